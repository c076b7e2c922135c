"""Spring set sources after VRMC_springBone 1.0 (with VRMC_springBone_extended_collider and
VRMC_springBone_limit), their checks, and the build of the file physics/spring.py opens.

From a frame of the reference rate to a step of the step rate
-------------------------------------------------------------
VRM's update moves a tail by x' = x + (1 - drag) (x - x_prev) + f, where f is the frame's
push (stiffness, gravity power and the external force, each per second, times the frame's
seconds). With lam = 1 - drag and R the reference rate, that recurrence is exactly the
motion x'' = -c x' + a sampled every 1/R seconds, with lam = exp(-c / R) and f = a (1 - lam)
/ (c R): any solution A + B t + C exp(-c t) (B = a / c) satisfies it at every frame, whatever
A and C. Sampling the same motion every 1/S seconds gives the step's values:

    keep = lam ** k                         (k = R / S frames a step; drag 1 keeps 0)
    push = k (1 - lam ** k) / (1 - lam) / R (seconds: a per-second power times push is the
                                             step's move; k * k / R when drag is 0)

so under a constant force every reference motion, sampled at the step times, is a motion
of the steps, and the step rate changes nothing but the times the motion is sampled at.
(The bone's length, the colliders and the limits are applied at each step, as VRM applies
them each frame.) The conversion is worked in binary64 and stored in binary32.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Sequence

import numpy as np

from ..core import args, container, names
from ..core.builder import enter_build
from ..core.container import FileKind, Section
from ..core.errors import BuildReason, InvalidError, LimitError
from ..core.limits import MAX_BONES, NO_BONE
from ..pose.skeleton import Skeleton

FORMAT_VERSION = 1
FORMAT_MINOR = 0
MAX_SPRING_RATE = 1000.0        # MANI_MAX_SPRING_RATE: steps (or reference frames) a second
SPRING_MAX_STEPS = 32           # MANI_SPRING_MAX_STEPS: the most steps one call runs
HEAD = struct.Struct("<IIIIIIQff")   # springs, joints, colliders, links, bones, 0, skeleton id, step, reference
JOINT_VALUES = 8                # hit radius, stiffness, gravity x y z, keep, push, 0 (per step)
LIMIT_VALUES = 8                # angle (cone, hinge; pitch), yaw, 0, 0, rotation x y z w
COLLIDER_VALUES = 12            # offset xyz, radius, tail xyz, normal xyz, 0, 0
KNOWN = {b"SPRS": 0, b"SPRG": 0, b"JBON": 0, b"JVAL": 0, b"LKND": 0, b"LVAL": 0,
         b"CKND": 0, b"CBON": 0, b"CVAL": 0, b"LINK": 0, **names.tags(b"S")}


class ColliderShape(IntEnum):
    """A collider's shape: VRMC_springBone's sphere and capsule (tails kept out), and the
    extended collider's inside sphere and inside capsule (tails kept in) and plane (tails
    kept on the side its normal points to)."""

    sphere = 0
    capsule = 1
    inside_sphere = 2
    inside_capsule = 3
    plane = 4


class SpringLimitKind(IntEnum):
    """VRMC_springBone_limit's limits on a joint's direction, in its limit frame (the +Y axis
    turned onto the pose's head-to-tail direction by the shortest arc, then by the limit's
    rotation): a cone (within angle of +Y), a hinge (in the YZ plane, turning about X,
    within angle of +Y) and a spherical limit (pitch about X, yaw toward X)."""

    none = 0
    cone = 1
    hinge = 2
    spherical = 3


@dataclass
class ColliderSource:
    """A collider fixed to a bone: offset (and a capsule's tail, a plane's normal) in the
    bone's space; a radius for spheres and capsules."""

    bone: int
    shape: int = ColliderShape.sphere
    offset: Sequence[float] = (0.0, 0.0, 0.0)
    radius: float = 0.0
    tail: Sequence[float] = (0.0, 0.0, 0.0)
    normal: Sequence[float] = (0.0, 0.0, 1.0)


@dataclass
class LimitSource:
    """A joint's limit; angles in radians (past pi taken as pi, a yaw past pi / 2 as pi / 2)."""

    kind: int = SpringLimitKind.cone
    angle: float = 0.0          # cone and hinge; a spherical limit's pitch
    yaw: float = 0.0            # spherical
    rotation: Sequence[float] = (0.0, 0.0, 0.0, 1.0)


@dataclass
class JointSource:
    """A joint: its bone and, for every joint but a spring's last (which is the chain's end
    and only a tail), VRM's per-frame settings at the reference rate."""

    bone: int
    hit_radius: float = 0.0
    stiffness: float = 1.0
    gravity_power: float = 0.0
    gravity_dir: Sequence[float] = (0.0, -1.0, 0.0)
    drag: float = 0.4
    limit: LimitSource | None = None


@dataclass
class SpringSource:
    """A chain: joints from the root down (each a descendant of the one before), the
    collider groups it meets, and an optional center bone (an ancestor of joint 0, or
    joint 0 itself) whose space carries its inertia."""

    name: str | bytes
    joints: list[JointSource] = field(default_factory=list)
    collider_groups: list[int] = field(default_factory=list)
    center: int = NO_BONE


@dataclass
class SpringSetSource:
    """maniSpringSetSource: a skeleton's springs, colliders and collider groups (each a
    list of collider indices), the rate the joints' values are per frame of, and the rate
    the set steps at."""

    skeleton: Skeleton
    springs: list[SpringSource] = field(default_factory=list)
    colliders: list[ColliderSource] = field(default_factory=list)
    collider_groups: list[list[int]] = field(default_factory=list)
    reference_rate: float = 60.0
    step_rate: float = 120.0


def convert_rates(drag: float, reference_rate: float, step_rate: float) -> tuple[float, float]:
    """(keep, push) of a step for a drag per reference frame (the module's description)."""
    k = reference_rate / step_rate
    if drag >= 1.0:
        return 0.0, k / reference_rate
    if drag <= 0.0:
        return 1.0, k * k / reference_rate
    log_lam = math.log1p(-drag)
    keep = math.exp(k * log_lam)
    ratio = math.expm1(k * log_lam) / math.expm1(log_lam)        # (1 - lam^k) / (1 - lam)
    return keep, k * ratio / reference_rate


# ---- the build -----------------------------------------------------------------------------
def _vector(values, width: int, fail) -> np.ndarray:
    try:
        return args.floats(values, (width,), "value", dtype=np.float64, within=np.float32)
    except InvalidError:
        raise fail() from None


def _index(value, fail) -> int:
    try:
        return args.integer(value, "index")
    except InvalidError:
        raise fail() from None


def _number(value, fail) -> float:
    try:
        return args.finite32(value, "value")
    except InvalidError:
        raise fail() from None


def _rate(value, item: int) -> float:
    what = ("reference", "step")[item]
    try:
        rate = args.finite(value, f"{what} rate")
    except InvalidError:
        rate = math.nan
    if not rate > 0:
        raise InvalidError(f"the {what} rate must be above 0", reason=BuildReason.Option, item=item)
    if rate > MAX_SPRING_RATE:
        raise LimitError(f"the {what} rate {rate} is past MAX_SPRING_RATE",
                         reason=BuildReason.Option, item=item)
    return rate


def _is_descendant(skeleton: Skeleton, bone: int, ancestor: int) -> bool:
    return ancestor < bone < skeleton.subtree_end(ancestor)


def _colliders(source: SpringSetSource, bones: int):
    kinds, owners, values = [], [], np.zeros((len(source.colliders), COLLIDER_VALUES))
    for c, col in enumerate(source.colliders):
        def fail(other, why="refused", c=c):
            return lambda: InvalidError(f"collider {c}: {why}", reason=BuildReason.Attribute,
                                        item=c, other=other)
        if not isinstance(col, ColliderSource):
            raise fail(0, "not a ColliderSource")()
        shape = _index(col.shape, fail(0, "unknown shape"))
        if shape not in ColliderShape.__members__.values():
            raise fail(0, "unknown shape")()
        bone = _index(col.bone, fail(1, "bone not an index"))
        if not 0 <= bone < bones:
            raise fail(1, f"bone {bone} past the skeleton's {bones}")()
        values[c, 0:3] = _vector(col.offset, 3, fail(2, "offset not 3 finite numbers"))
        radius = _number(col.radius, fail(3, "radius not finite"))
        if radius < 0:
            raise fail(3, "radius below 0")()
        values[c, 3] = radius
        values[c, 4:7] = _vector(col.tail, 3, fail(4, "tail not 3 finite numbers"))
        normal = _vector(col.normal, 3, fail(5, "normal not 3 finite numbers"))
        length = math.sqrt(float(normal @ normal))
        if shape == ColliderShape.plane and not length > 0:
            raise fail(5, "a plane's normal of length 0")()
        values[c, 7:10] = normal / length if length > 0 else (0.0, 0.0, 1.0)
        kinds.append(shape)
        owners.append(bone)
    return kinds, owners, values


def _groups(source: SpringSetSource) -> list[list[int]]:
    groups = []
    for g, group in enumerate(source.collider_groups):
        if not isinstance(group, (list, tuple)):
            raise InvalidError(f"collider group {g} is not a list", reason=BuildReason.Input,
                               item=g)
        members = []
        for k, c in enumerate(group):
            def fail(g=g, k=k):
                return InvalidError(f"collider group {g}: entry {k} is not a collider",
                                    reason=BuildReason.Input, item=g, other=k)
            c = _index(c, fail)
            if not 0 <= c < len(source.colliders):
                raise fail()
            members.append(c)
        groups.append(members)
    return groups


def _limit(limit, fail) -> tuple[int, list[float]]:
    if limit is None:
        return SpringLimitKind.none, [0.0] * 7 + [1.0]
    if not isinstance(limit, LimitSource):
        raise fail("not a LimitSource")
    kind = _index(limit.kind, lambda: fail("unknown kind"))
    if kind not in (SpringLimitKind.cone, SpringLimitKind.hinge, SpringLimitKind.spherical):
        raise fail("unknown kind")
    angle = _number(limit.angle, lambda: fail("angle not finite"))
    yaw = _number(limit.yaw, lambda: fail("yaw not finite"))
    if angle < 0 or (kind == SpringLimitKind.spherical and yaw < 0):
        raise fail("an angle below 0")
    q = _vector(limit.rotation, 4, lambda: fail("rotation not 4 finite numbers"))
    length = math.sqrt(float(q @ q))
    if not length > 0:
        raise fail("rotation of length 0")
    return kind, [min(angle, math.pi), min(yaw, math.pi / 2), 0.0, 0.0, *(q / length)]


def build(source: SpringSetSource) -> bytes:
    """Builds a spring set file (the refusals: maniBuildSpringSet in capi/_spring.py)."""
    skeleton = source.skeleton
    bones = skeleton.bone_count
    reference = _rate(source.reference_rate, 0)
    step = _rate(source.step_rate, 1)
    springs = source.springs
    if not isinstance(springs, (list, tuple)):
        raise InvalidError("springs must be a list", reason=BuildReason.Count)
    if len(springs) > MAX_BONES:
        raise LimitError(f"{len(springs)} springs past MAX_BONES", reason=BuildReason.Count,
                         item=len(springs))
    kinds, owners, cvalues = _colliders(source, bones)
    groups = _groups(source)
    raw_names, records, joint_bones, jvalues, lkinds, lvalues, links = [], [], [], [], [], [], []
    owner_of_bone: dict[int, int] = {}
    for s, spring in enumerate(springs):
        if not isinstance(spring, SpringSource):
            raise InvalidError(f"spring {s} is not a SpringSource", reason=BuildReason.Count,
                               item=s)
        raw_names.append(names.name_bytes(spring.name, "spring", s))
        joints = spring.joints
        if not isinstance(joints, (list, tuple)) or len(joints) < 2:
            raise InvalidError(f"spring {s}: a chain needs two joints at least",
                               reason=BuildReason.Count, item=s)
        first_joint = len(joint_bones)
        for j, joint in enumerate(joints):
            def bad(reason, why, s=s, j=j):
                return InvalidError(f"spring {s} joint {j}: {why}", reason=reason, item=s, other=j)
            if not isinstance(joint, JointSource):
                raise bad(BuildReason.Joint, "not a JointSource")
            bone = _index(joint.bone, lambda: bad(BuildReason.Joint, "bone not an index"))
            if not 0 <= bone < bones:
                raise bad(BuildReason.Joint, f"bone {bone} past the skeleton's {bones}")
            if j and not _is_descendant(skeleton, bone, joint_bones[-1]):
                raise bad(BuildReason.Joint, f"bone {bone} not a descendant of the joint before")
            if bone in owner_of_bone:
                raise bad(BuildReason.Joint, f"bone {bone} already a joint of spring "
                                             f"{owner_of_bone[bone]}")
            owner_of_bone[bone] = s
            values = [0.0] * JOINT_VALUES
            kind, limit = SpringLimitKind.none, [0.0] * 7 + [1.0]
            if j < len(joints) - 1:
                not_finite = lambda: bad(BuildReason.NotFinite, "a value not finite")   # noqa: E731
                hit = _number(joint.hit_radius, not_finite)
                stiffness = _number(joint.stiffness, not_finite)
                power = _number(joint.gravity_power, not_finite)
                drag = _number(joint.drag, not_finite)
                direction = _vector(joint.gravity_dir, 3, not_finite)
                if hit < 0 or stiffness < 0 or power < 0 or not 0 <= drag <= 1:
                    raise bad(BuildReason.Weight, "a hit radius, stiffness or gravity power "
                                                  "below 0, or a drag outside [0, 1]")
                length = math.sqrt(float(direction @ direction))
                if power > 0 and not length > 0:
                    raise bad(BuildReason.Weight, "a gravity direction of length 0")
                keep, push = convert_rates(drag, reference, step)
                gravity = direction / length * power * push if length > 0 else np.zeros(3)
                values = [hit, stiffness * push, *gravity, keep, push, 0.0]
                kind, limit = _limit(joint.limit, lambda why: bad(BuildReason.Scalar,
                                                                  f"limit: {why}"))
            joint_bones.append(bone)
            jvalues.append(values)
            lkinds.append(kind)
            lvalues.append(limit)
        center = spring.center
        center = NO_BONE if center is None else _index(
            center, lambda s=s: InvalidError(f"spring {s}: center not an index",
                                             reason=BuildReason.Joint, item=s, other=NO_BONE))
        if center == -1:
            center = NO_BONE
        root = joint_bones[first_joint]
        if center != NO_BONE and not (center == root or _is_descendant(skeleton, root, center)
                                      if 0 <= center < bones else False):
            raise InvalidError(f"spring {s}: center {center} not joint 0 nor its ancestor",
                               reason=BuildReason.Joint, item=s, other=NO_BONE)
        first_link = len(links)
        group_list = spring.collider_groups
        if not isinstance(group_list, (list, tuple)):
            raise InvalidError(f"spring {s}: collider groups not a list",
                               reason=BuildReason.Input, item=s)
        seen = set()
        for k, g in enumerate(group_list):
            def fail(s=s, k=k):
                return InvalidError(f"spring {s}: collider group entry {k} is not a group",
                                    reason=BuildReason.Input, item=s, other=k)
            g = _index(g, fail)
            if not 0 <= g < len(groups):
                raise fail()
            for c in groups[g]:
                if c not in seen:           # a collider in two of its groups meets it once
                    seen.add(c)
                    links.append(c)
        records.append((first_joint, len(joints), first_link, len(links) - first_link, center))
    hashes = names.check_unique(raw_names, "spring")
    head = HEAD.pack(len(springs), len(joint_bones), len(kinds), len(links), bones, 0,
                     skeleton.identity, step, reference)
    return container.write(FileKind.spring_set, FORMAT_VERSION, FORMAT_MINOR, [
        Section(b"SPRS", 0, head),
        Section(b"SPRG", 0, np.array(records, dtype="<u4").reshape(-1, 5).tobytes()),
        Section(b"JBON", 0, np.array(joint_bones, dtype="<u4").tobytes()),
        Section(b"JVAL", 0, np.array(jvalues, dtype="<f4").reshape(-1, JOINT_VALUES).tobytes()),
        Section(b"LKND", 0, np.array(lkinds, dtype="<u4").tobytes()),
        Section(b"LVAL", 0, np.array(lvalues, dtype="<f4").reshape(-1, LIMIT_VALUES).tobytes()),
        Section(b"CKND", 0, np.array(kinds, dtype="<u4").tobytes()),
        Section(b"CBON", 0, np.array(owners, dtype="<u4").tobytes()),
        Section(b"CVAL", 0, cvalues.astype("<f4").tobytes()),
        Section(b"LINK", 0, np.array(links, dtype="<u4").tobytes()),
        *names.sections(b"S", raw_names, hashes),
    ])


def build_spring_set(builder, source: SpringSetSource) -> bytes:
    """maniBuildSpringSet: builds the set and keeps it in the builder in place of any file
    before. A missing builder or source, or a source without an opened skeleton, is a misuse;
    a refused source is not."""
    enter_build(builder, source, SpringSetSource, skeleton=Skeleton)
    data = build(source)
    builder.keep(data, "spring set")
    return data
