"""ragdoll.h, and maniBuildRagdoll of build.h.

Body states are (count, 13) binary32 rows, joint targets (count, 7) (physics/ragdoll.py).
maniRagdoll_ComputeBodiesFromPose and _ComputeJointTargets return (array, count): with
no array and no capacity the library's own array; into the array's first `capacity` rows
(all of them when capacity is None); a capacity under the body count raises CapacityError
with .count, nothing written (no array with capacity 0 measures that way). previous None
is no previous pose (velocities 0; previousPlacement is then not read). The (array, count)
pairs of _ComputePoseFromBodies and _ComputeGetUpPlacement are one array; the latter returns
a RagdollGetUp (placement, face up).

maniBuildRagdoll's refusals (InvalidError unless said; item the source body, other):
  Count            no bodies, more than the skeleton's bones (item the count), or a body not
                   a BodySource (item the body)
  Name, DuplicateName, NameHash   a body's name (LimitError past MAX_NAME_BYTES; other the
                   earlier body)
  Joint            a bone not an index or past the skeleton (other 0), a bone given a body
                   twice (other the earlier body), a second root (other the first)
  Attribute        an unknown shape (other 0); a size not above 0 or an unused one not 0
                   (other 1)
  Weight           a mass not finite or not above 0
  NotFinite        a frame's translation (other 0) or rotation (1: or of length 0), the joint
                   frame's (2, 3), not finite in binary32
  Scalar           a twist limit outside -pi <= min <= max <= pi (other 0), a swing outside
                   [0, pi] (1), a drive's stiffness or damping below 0 or its max force not
                   above 0 (2)
  Basis            the root's axes: item 0 facing, 1 up; of length 0, or not perpendicular
                   within a thousandth (item 0)
"""
import numpy as np

from ..core import args
from ..core.errors import InvalidError
from ..physics.ragdoll import Ragdoll, RagdollGround
from ..physics.ragdoll_build import NO_BODY, RagdollShape, build_ragdoll

__all__ = ["maniOpenRagdoll", "maniRagdoll_GetIdentity", "maniRagdoll_GetSkeletonIdentity",
           "maniRagdoll_GetBodyCount", "maniRagdoll_GetBody", "maniRagdoll_ComputeBodiesFromPose",
           "maniRagdoll_ComputeJointTargets", "maniRagdoll_ComputePoseFromBodies",
           "maniRagdoll_ComputeGetUpPlacement", "maniBuildRagdoll"]
__constants__ = ["MANI_NO_BODY", *(f"MANI_RAGDOLL_{s.name.upper()}" for s in RagdollShape)]
MANI_NO_BODY = NO_BODY
globals().update({f"MANI_RAGDOLL_{s.name.upper()}": int(s) for s in RagdollShape})


def _ragdoll(ragdoll) -> bool:
    return isinstance(ragdoll, Ragdoll) and ragdoll.is_open


def _need(ragdoll) -> Ragdoll:
    if not _ragdoll(ragdoll):
        raise InvalidError("no ragdoll")
    return ragdoll


def _rows(out, capacity, width: int):
    """The rows to write into (None: the library's own; no rows when measuring)."""
    capacity = None if capacity is None else args.count(capacity, "capacity")
    if out is None:
        if capacity:
            raise InvalidError("no array with a positive capacity")
        return None if capacity is None else np.empty((0, width), np.float32)
    if not (isinstance(out, np.ndarray) and out.dtype == np.float32 and out.ndim == 2
            and out.shape[1] == width and out.flags.writeable):
        out = args.output(out, "f", (-1, width), "array")
    if capacity is not None:
        if capacity > out.shape[0]:
            raise InvalidError(f"capacity {capacity} past the array's {out.shape[0]} rows")
        out = out[:capacity]
    return out


def maniOpenRagdoll(data) -> Ragdoll:
    return Ragdoll(data)


def maniRagdoll_GetIdentity(ragdoll) -> int:
    return ragdoll.identity if _ragdoll(ragdoll) else 0


def maniRagdoll_GetSkeletonIdentity(ragdoll) -> int:
    return ragdoll.skeleton_identity if _ragdoll(ragdoll) else 0


def maniRagdoll_GetBodyCount(ragdoll) -> int:
    return ragdoll.body_count if _ragdoll(ragdoll) else 0


def maniRagdoll_GetBody(ragdoll, body: int):
    return _need(ragdoll).body(body)


def maniRagdoll_ComputeBodiesFromPose(ragdoll, pose, placement, previous, previousPlacement,
                                      seconds, bodiesOut=None, capacity=None):
    r = _need(ragdoll)
    if pose is None or placement is None:
        raise InvalidError("no pose or no placement")
    out = _rows(bodiesOut, capacity, 13)
    bodies = r.bodies_from_pose(pose, placement, previous, previousPlacement, seconds, out)
    return bodies, r.body_count


def maniRagdoll_ComputeJointTargets(ragdoll, bodies, jointsOut=None, capacity=None):
    r = _need(ragdoll)
    if bodies is None:
        raise InvalidError("no bodies")
    out = _rows(jointsOut, capacity, 7)
    return r.joint_targets(bodies, out), r.body_count


def maniRagdoll_ComputePoseFromBodies(ragdoll, skeleton, bodies, placement, reference,
                                      poseOut) -> None:
    r = _need(ragdoll)
    if bodies is None or placement is None:
        raise InvalidError("no bodies or no placement")
    r.pose_from_bodies(skeleton, bodies, placement, reference, poseOut)


def maniRagdoll_ComputeGetUpPlacement(ragdoll, bodies, ground):
    r = _need(ragdoll)
    if bodies is None or ground is None:
        raise InvalidError("no bodies or no ground")
    if not isinstance(ground, RagdollGround):
        raise InvalidError("ground is not a RagdollGround")
    return r.get_up(bodies, ground)


def maniBuildRagdoll(builder, source) -> None:
    """Success returns None; the file is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_ragdoll(builder, source)
