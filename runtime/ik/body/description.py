"""maniBodySolve: the one description both full-body solvers take, its checks, and the
exact scratch size.

The solved part is every bone on a path from the top to an effector, in storage order (so
every parent comes before its children). Each of its bones may have one setting; a bone
without one turns freely, holds its length and has no limit. Angles and axes are in the
bone's parent's frame, measured from the bone's rest rotation (skeleton.rests).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from ...core import args
from ...core.errors import CapacityError, InvalidError, LimitError
from ...core.memory import caller_bytes
from ...pose.pose import Pose
from ...pose.skeleton import Skeleton, opened
from . import kernels
from ..kept import Kept, Part
from ..limits import MAX_IK_ITERATIONS      # ik.h's, the same for every solver

MAX_BODY_IK_EFFECTORS = 32      # MANI_MAX_BODY_IK_EFFECTORS
MAX_BODY_IK_BONES = 128         # MANI_MAX_BODY_IK_BONES: bones of a solved part, and settings


class BodyTopMode(IntEnum):
    """maniBodyTopMode: what the top bone may do."""

    pinned = 0      # its origin stays; it turns as any bone of the part
    held = 1        # it neither moves nor turns
    free = 2        # it turns and its origin moves (three translations in SDLS)


class BodyLimitKind(IntEnum):
    """maniBodyLimitKind: one limit a bone's turn from its rest keeps, about `axis`."""

    none = 0
    hinge = 1       # turns about the axis only, by an angle in [low, high]
    cone = 2        # the axis swings at most `high` from its rest direction; twist free
    twist = 3       # twists about the axis by an angle in [low, high]; swing free


@dataclass
class BodyLimit(Part):
    """maniBodyLimit. `axis` of length 1 within a thousandth; hinge and twist take
    -pi <= low <= high <= pi; a cone takes low 0 and high in [0, pi]."""

    kind: BodyLimitKind = BodyLimitKind.none
    axis: tuple = (1.0, 0.0, 0.0)
    low: float = 0.0
    high: float = 0.0


@dataclass
class BodyEffector(Part):
    """maniBodyEffector: a bone whose origin is pulled to `goal` (model space) by its
    strength and, by `rotation_weight`, its model rotation toward `rotation` (x y z w, any
    length but 0). `pull_chain` turns its path toward the goal by that share before the
    passes."""

    bone: int
    goal: tuple
    rotation: tuple = (0.0, 0.0, 0.0, 1.0)
    rotation_weight: float = 0.0
    strength: float = 1.0
    pull_chain: float = 0.0


@dataclass
class BodyBone(Part):
    """maniBodyBone: one bone's settings. `stiffness` resists turning (1 locks the bone);
    `stretch` lets its origin leave its place in the parent (0 holds it; XPBD only);
    `preferred` is a turn from rest (a rotation vector, radians) the bone starts from by
    `preferred_weight`."""

    bone: int
    stiffness: float = 0.0
    limit: BodyLimit = field(default_factory=BodyLimit)
    preferred: tuple = (0.0, 0.0, 0.0)
    preferred_weight: float = 0.0
    stretch: float = 0.0


@dataclass
class BodySolve(Kept):
    """maniBodySolve. `pre_pull` moves a free top by that share of its effectors'
    strength-weighted mean miss before the passes."""

    top: int
    effectors: list
    bones: list = field(default_factory=list)
    top_mode: BodyTopMode = BodyTopMode.pinned
    pre_pull: float = 0.0
    iterations: int = 10
    tolerance: float = 1e-3


class Packed:
    """A checked description as the kernels take it: per effector and per part slot."""

    __slots__ = ("part", "ppar", "eff_slot", "goals", "rots", "rot_w", "strength", "pull",
                 "stiff", "stretch", "lkind", "laxis", "lrange", "pref", "pref_w", "mode",
                 "pre_pull", "iterations", "tolerance", "col_slot", "col_scale", "rows")


def _unit_share(values: np.ndarray, what: str) -> None:
    if not ((values >= 0.0) & (values <= 1.0)).all():
        raise InvalidError(f"a {what} outside [0, 1]")


def _bone(value, n: int, what: str) -> int:
    bone = args.integer(value, what)
    if not 0 <= bone < n:
        raise InvalidError(f"{what} {bone} out of range")
    return bone


def _table(items, fields, shape, what) -> np.ndarray:
    """(count,) + shape float64 of one field of every item, finite."""
    rows = [getattr(item, fields) for item in items]
    return args.floats(rows, (len(items),) + shape, what, dtype=np.float64,
                       within=np.float32) if rows else np.zeros((0,) + shape)


def pack(skeleton: Skeleton, solve: BodySolve) -> Packed:
    """Every check of the spec's Returns line that needs no pose or scratch; the part."""
    opened(skeleton)
    args.of(solve, BodySolve, "solve")
    effs = args.records(solve.effectors, BodyEffector, "solve.effectors")
    sets = args.records(solve.bones, BodyBone, "solve.bones")
    if len(effs) > MAX_BODY_IK_EFFECTORS:
        raise LimitError(f"{len(effs)} effectors, past {MAX_BODY_IK_EFFECTORS}")
    if len(sets) > MAX_BODY_IK_BONES:
        raise LimitError(f"{len(sets)} bone settings, past {MAX_BODY_IK_BONES}")
    iterations = args.integer(solve.iterations, "solve.iterations")
    if iterations > MAX_IK_ITERATIONS:
        raise LimitError(f"{iterations} iterations, past {MAX_IK_ITERATIONS}")
    if iterations < 1:
        raise InvalidError("no iterations")
    if not effs:
        raise InvalidError("no effectors")
    n = skeleton.bone_count
    top = args.integer(solve.top, "solve.top")
    if not 0 <= top < n:
        raise InvalidError(f"top {top} out of range")
    mode = args.integer(solve.top_mode, "solve.top_mode")
    if mode not in BodyTopMode._value2member_map_:
        raise InvalidError(f"top mode {mode} unknown")
    tolerance = args.real(solve.tolerance, "solve.tolerance")
    if not (math.isfinite(tolerance) and tolerance >= 0.0):
        raise InvalidError(f"tolerance {tolerance} below 0 or not finite")
    pre_pull = args.real(solve.pre_pull, "solve.pre_pull")
    if not 0.0 <= pre_pull <= 1.0:
        raise InvalidError("a weight outside [0, 1] (pre_pull)")

    p = Packed()
    eff_list = [_bone(e.bone, n, f"solve.effectors[{i}].bone") for i, e in enumerate(effs)]
    set_list = [_bone(s.bone, n, f"solve.bones[{i}].bone") for i, s in enumerate(sets)]
    if len(set(eff_list)) != len(eff_list) or len(set(set_list)) != len(set_list):
        raise InvalidError("a bone twice among the effectors or the settings")
    eff_bones = np.array(eff_list, dtype=np.int64)
    set_bones = np.array(set_list, dtype=np.int64)
    p.goals = _table(effs, "goal", (3,), "an effector's goal")
    rots = _table(effs, "rotation", (4,), "an effector's rotation")
    length = np.sqrt((rots * rots).sum(axis=1))
    if (length == 0.0).any():
        raise InvalidError("a rotation of length 0")
    p.rots = rots / length[:, None]
    shares = np.array([[args.real(getattr(e, f), f"solve.effectors[{i}].{f}")
                        for f in ("rotation_weight", "strength", "pull_chain")]
                       for i, e in enumerate(effs)], dtype=np.float64).reshape(-1, 3)
    _unit_share(shares[:, 0], "weight")
    _unit_share(shares[:, 1], "strength")
    _unit_share(shares[:, 2], "pull chain")
    p.rot_w, p.strength, p.pull = (np.ascontiguousarray(shares[:, k]) for k in range(3))

    mark = np.empty(n, dtype=np.int64)
    below = kernels.mark_part(skeleton.parents, top, eff_bones, mark)
    if not below:
        raise InvalidError("an effector not the top or below it")
    p.part = np.flatnonzero(mark >= 0).astype(np.int64)
    if p.part.size > MAX_BODY_IK_BONES:
        raise LimitError(f"a solved part of {p.part.size} bones, past {MAX_BODY_IK_BONES}")
    slot = np.full(n, -1, dtype=np.int64)
    slot[p.part] = np.arange(p.part.size)
    parents = skeleton.parents[p.part].astype(np.int64)
    p.ppar = np.where(p.part == top, -1, slot[np.minimum(parents, n - 1)])
    p.eff_slot = slot[eff_bones]
    if (slot[set_bones] < 0).any():
        raise InvalidError("a setting's bone off the solved part")

    P = p.part.size
    p.stiff, p.stretch, p.pref_w = (np.zeros(P) for _ in range(3))
    p.lkind = np.zeros(P, dtype=np.int64)
    p.laxis = np.tile([1.0, 0.0, 0.0], (P, 1))
    p.lrange = np.zeros((P, 2))
    p.pref = np.zeros((P, 3))
    if sets:
        at = slot[set_bones]
        vals = np.array([[args.real(getattr(s, f), f"solve.bones[{i}].{f}")
                          for f in ("stiffness", "stretch", "preferred_weight")]
                         for i, s in enumerate(sets)], dtype=np.float64)
        _unit_share(vals[:, 0], "stiffness")
        _unit_share(vals[:, 1], "stiffness (stretch)")
        _unit_share(vals[:, 2], "weight")
        p.stiff[at], p.stretch[at], p.pref_w[at] = vals[:, 0], vals[:, 1], vals[:, 2]
        p.pref[at] = _table(sets, "preferred", (3,), "a preferred angle")
        limits = [args.of(s.limit, BodyLimit, f"solve.bones[{i}].limit") for i, s in enumerate(sets)]
        kinds = np.array([args.integer(l.kind, "a limit's kind") for l in limits], dtype=np.int64)
        if not np.isin(kinds, list(BodyLimitKind._value2member_map_)).all():
            raise InvalidError("a limit of an unknown kind")
        axes = _table(limits, "axis", (3,), "a limit's axis")
        ranges = np.array([[args.real(l.low, "a limit's low"), args.real(l.high, "a limit's high")]
                           for l in limits], dtype=np.float64)
        _check_limits(kinds, axes, ranges)
        used = kinds != BodyLimitKind.none
        p.lkind[at] = kinds
        p.laxis[at[used]] = axes[used] / np.sqrt((axes[used] ** 2).sum(axis=1))[:, None]
        p.lrange[at] = ranges
    p.mode, p.pre_pull, p.iterations, p.tolerance = mode, pre_pull, iterations, tolerance
    turning = p.stiff < 1.0
    turning[0] &= mode != BodyTopMode.held
    slots = np.flatnonzero(turning)
    if mode == BodyTopMode.free:
        slots = np.append(slots, -1)
    p.col_slot = np.repeat(slots, 3).astype(np.int64)
    p.col_scale = np.where(p.col_slot < 0, 1.0, 1.0 - p.stiff[np.maximum(p.col_slot, 0)])
    p.rows = 3 * len(effs) + 3 * int((p.rot_w > 0.0).sum())
    return p


def _check_limits(kinds, axes, ranges) -> None:
    used = kinds != BodyLimitKind.none
    if not np.isfinite(ranges).all():
        raise InvalidError("a limit out of range (not finite)")
    length = np.sqrt((axes * axes).sum(axis=1))
    if (used & (np.abs(length - 1.0) > 1e-3)).any():
        raise InvalidError("a limit out of range: an axis not of length 1 within a thousandth")
    low, high = ranges[:, 0], ranges[:, 1]
    angled = (kinds == BodyLimitKind.hinge) | (kinds == BodyLimitKind.twist)
    bad_angle = angled & ~((-math.pi <= low) & (low <= high) & (high <= math.pi))
    bad_cone = (kinds == BodyLimitKind.cone) & ~((low == 0.0) & (0.0 <= high) & (high <= math.pi))
    if (bad_angle | bad_cone).any():
        raise InvalidError("a limit out of range")


# ---- scratch ---------------------------------------------------------------------------------------------
# The caller's bytes hold, as float64: the part's working state (shared by both solvers) and
# then one solver's own arrays; the size is the larger of the two solvers' needs.

def common_floats(p: Packed) -> int:
    """The frames' state, kernels.py's layout."""
    return kernels.common_floats(p.part.size)


def xpbd_floats(p: Packed) -> int:
    """A multiplier per effector origin, effector rotation, joint and stiffness; the bodies
    kept while the frames are judged."""
    return 2 * p.eff_slot.size + 2 * p.part.size + 7 * p.part.size


def sdls_floats(p: Packed) -> int:
    """The Jacobian and its rotated rows (rows, columns) each, U (rows, rows), misses and
    singular values (rows), the step and rho (columns)."""
    m, n = p.rows, p.col_slot.size
    return 2 * m * n + m * m + 2 * m + 2 * n


def scratch_size(p: Packed) -> int:
    return 8 * (common_floats(p) + max(xpbd_floats(p), sdls_floats(p)))


def body_ik_scratch_size(skeleton, solve) -> int:
    """maniSkeleton_GetBodyIkScratchSize: the bytes either solver needs; 0 for None or a
    solve solve_body_xpbd refuses."""
    try:
        return scratch_size(pack(skeleton, solve))
    except (InvalidError, LimitError):
        return 0


def _packed(skeleton, solve) -> tuple[Packed, int]:
    """pack's description and its scratch size, kept on the solve while it is unchanged."""
    if isinstance(solve, BodySolve):
        kept = solve.kept(skeleton, solve.effectors, solve.bones)
        if kept is not None:
            return kept
    p = pack(skeleton, solve)
    return solve.keep(skeleton, (solve.effectors, solve.bones),
                      (solve.top, solve.top_mode, solve.pre_pull, solve.iterations,
                       solve.tolerance), (p, scratch_size(p)))


def prepare(pose, skeleton, solve, scratch) -> tuple[Packed, np.ndarray, int]:
    """The checks every solve makes before it writes anything: the description, the pose,
    the scratch (aligned to 8, at least the size query's bytes). Returns the packed
    description, the scratch as float64 and where its solver part begins."""
    args.of(pose, Pose, "pose")
    opened(skeleton)
    p, need = _packed(skeleton, solve)
    if not pose.of(skeleton):
        raise InvalidError("a pose of another skeleton")
    if pose.is_difference:
        raise InvalidError("a difference, not a pose")
    if scratch is None:
        raise InvalidError("no scratch")
    buf = caller_bytes(scratch, 8, "scratch")
    if buf.size < need:
        raise CapacityError(f"{buf.size} bytes of scratch for {need}", size=need)
    skeleton.check_parents()
    return p, buf[:need].view(np.float64), common_floats(p)
