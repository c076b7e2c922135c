"""spring.h, and maniBuildSpringSet of build.h.

maniSpringSet_GetStepRate returns (step rate, reference rate); maniSpringSet_GetSpringName
the name (None past the springs); maniInitSpringState's memory and size may be None (the
library's own memory); maniSpringState_Step and _Apply return None (Step's placement None is
the identity, its force None no force); maniSpringState_Save returns the bytes, or their
size when it measures (no buffer, capacity 0) or writes into bytesOut.

maniBuildSpringSet's refusals (InvalidError unless said; item, other):
  Option           a rate not finite or not above 0 (item 0 the reference, 1 the step rate);
                   LimitError past MAX_SPRING_RATE
  Count            LimitError for more than MAX_BONES springs; a spring not a SpringSource or
                   with fewer than two joints (item the spring)
  Name, DuplicateName, NameHash   a spring's name (item the spring; LimitError past
                   MAX_NAME_BYTES; other the earlier spring)
  Joint            item the spring, other the joint's place: a bone past the skeleton's, not
                   a descendant of the joint before, or a joint of an earlier chain; other
                   NO_BONE for a center neither joint 0 nor its ancestor
  NotFinite, Weight  a joint's value not finite in binary32, or out of range (a hit radius,
                   stiffness or gravity power below 0, a drag outside [0, 1], a gravity
                   direction of length 0 with a power); item the spring, other the joint
  Scalar           a joint's limit: an unknown kind, an angle below 0 or not finite, a
                   rotation of length 0 (item the spring, other the joint)
  Attribute        a collider (item the collider; other 0 shape, 1 bone, 2 offset, 3 radius
                   below 0 or not finite, 4 tail, 5 a plane's normal of length 0)
  Input            a collider group's entry past the colliders (item the group, other the
                   entry's place), or a spring's group entry past the groups (item the
                   spring, other the entry's place)
"""
from ..core import args
from ..core.errors import InvalidError
from ..physics.spring import SpringSet, SpringState
from ..physics.spring_build import (MAX_SPRING_RATE, SPRING_MAX_STEPS, ColliderShape, SpringLimitKind,
                                    build_spring_set)

__all__ = ["maniOpenSpringSet", "maniSpringSet_GetIdentity", "maniSpringSet_GetSkeletonIdentity",
           "maniSpringSet_GetSpringCount", "maniSpringSet_GetSpringName",
           "maniSpringSet_GetStepRate", "maniSpringSet_GetStateSize", "maniInitSpringState",
           "maniSpringState_Step", "maniSpringState_Apply", "maniSpringState_Reset",
           "maniSpringState_Save", "maniSpringState_Restore", "maniBuildSpringSet"]
__constants__ = ["MANI_SPRING_MAX_STEPS", "MANI_MAX_SPRING_RATE",
                 *(f"MANI_COLLIDER_{s.name.upper()}" for s in ColliderShape),
                 *(f"MANI_LIMIT_{k.name.upper()}" for k in SpringLimitKind)]
MANI_SPRING_MAX_STEPS = SPRING_MAX_STEPS
MANI_MAX_SPRING_RATE = MAX_SPRING_RATE
globals().update({f"MANI_COLLIDER_{s.name.upper()}": int(s) for s in ColliderShape})
globals().update({f"MANI_LIMIT_{k.name.upper()}": int(k) for k in SpringLimitKind})


def _set(spring_set) -> bool:
    return isinstance(spring_set, SpringSet) and spring_set.is_open


def _state(state) -> SpringState:
    if not isinstance(state, SpringState):
        raise InvalidError("no state")
    return state


def maniOpenSpringSet(data) -> SpringSet:
    return SpringSet(data)


def maniSpringSet_GetIdentity(set) -> int:                      # noqa: A002 - the spec's name
    return set.identity if _set(set) else 0


def maniSpringSet_GetSkeletonIdentity(set) -> int:              # noqa: A002
    return set.skeleton_identity if _set(set) else 0


def maniSpringSet_GetSpringCount(set) -> int:                   # noqa: A002
    return set.spring_count if _set(set) else 0


def maniSpringSet_GetSpringName(set, spring: int):              # noqa: A002
    return set.spring_name(spring) if _set(set) else None


def maniSpringSet_GetStepRate(set):                             # noqa: A002
    return (set.step_rate, set.reference_rate) if _set(set) else (0.0, 0.0)


def maniSpringSet_GetStateSize(set) -> int:                     # noqa: A002
    return set.state_size if _set(set) else 0


def maniInitSpringState(set, skeleton, memory=None, size=None) -> SpringState:   # noqa: A002
    if set is None or skeleton is None:
        raise InvalidError("no set or no skeleton")
    return SpringState(set, skeleton, memory, size)


def maniSpringState_Step(state, pose, placement=None, force=None, delta=0.0) -> None:
    _state(state).step(pose, placement, force, delta)


def maniSpringState_Apply(state, pose) -> None:
    _state(state).apply(pose)


def maniSpringState_Reset(state) -> None:
    if isinstance(state, SpringState):
        state.reset()


def maniSpringState_Save(state, bytesOut=None, capacity=None):
    """The bytes (no buffer, no capacity); their size, measured (no buffer, capacity 0) or
    written into bytesOut's first `capacity` bytes (CapacityError with .size when short)."""
    st = _state(state)
    capacity = None if capacity is None else args.count(capacity, "capacity")
    if bytesOut is None:
        if capacity:
            raise InvalidError("no buffer with a positive capacity")
        data = st.save()
        return data if capacity is None else len(data)
    view = args.writable_bytes(bytesOut, "bytesOut")
    return st.save(view if capacity is None else view[:capacity])


def maniSpringState_Restore(state, data) -> None:
    _state(state).restore(data)


def maniBuildSpringSet(builder, source) -> None:
    """Success returns None; the file is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_spring_set(builder, source)
