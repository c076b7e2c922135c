"""Ragdoll profile sources, their checks, and the build of the file physics/ragdoll.py opens.

A body sits on a bone: its frame is given in the bone's model frame with the scale left out
(the model matrix's translation, and the product of the local rotations from the root down,
as engines give a scaled node's world rotation), so a scaled bone carries its body without
shearing it. Its joint is the body's link to its parent body, the nearest of its bone's
ancestors that carries a body: the joint's frame is given on the child's side (in the
child body's frame, like the child side of an OMI_physics_joint), and the builder works out
the same frame in the parent body from the skeleton's rest pose, so at rest the two
coincide. A joint's limits are swing-twist: a twist about the joint frame's x between two
angles, and symmetric swings about its y and z; its drive is a spring and damper with a
force limit (the host engine's units, passed through). The root body has no joint.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import Sequence

import numpy as np

from ..core import args, container, names
from ..core.builder import enter_build
from ..core.container import FileKind, Section
from ..core.errors import BuildReason, InvalidError
from ..core.limits import NO_BONE
from ..core.transform import quat_mul, quat_rotate, quat_conj
from ..pose.skeleton import Skeleton

FORMAT_VERSION = 1
FORMAT_MINOR = 0
NO_BODY = NO_BONE               # the root body's parent
HEAD = struct.Struct("<IIIIQ6f")   # bodies, skeleton bones, 0, 0, skeleton id, facing, up
BODY_VALUES = 36                # see ragdoll.py's file layout
AXIS_TOLERANCE = 1e-3           # a source's axes: perpendicular within this (after unit)
KNOWN = {b"RAGD": 0, b"RSKP": 0, b"RBON": 0, b"RPAR": 0, b"RSHP": 0, b"RVAL": 0, **names.tags(b"R")}


class RagdollShape(IntEnum):
    """A body's primitive, centred on its frame: a sphere (size: radius), a capsule (radius,
    and half the length between its caps' centres, along the frame's y) and a box (half
    extents along x, y, z). A shape's unused sizes are 0."""

    sphere = 0
    capsule = 1
    box = 2


SIZES_USED = {RagdollShape.sphere: 1, RagdollShape.capsule: 2, RagdollShape.box: 3}


@dataclass
class BodySource:
    """maniRagdollSource's body. The frame is the body's in its bone's model frame without
    scale; the joint frame is the joint's in this body's frame (the root's is ignored, as
    are its limits and drive). Angles in radians: -pi <= twist_min <= twist_max <= pi,
    swings in [0, pi]; stiffness and damping 0 or more, max_force above 0 (inf for none)."""

    name: str | bytes
    bone: int
    shape: int = RagdollShape.capsule
    size: Sequence[float] = (0.05, 0.1, 0.0)
    mass: float = 1.0
    translation: Sequence[float] = (0.0, 0.0, 0.0)
    rotation: Sequence[float] = (0.0, 0.0, 0.0, 1.0)
    joint_translation: Sequence[float] = (0.0, 0.0, 0.0)
    joint_rotation: Sequence[float] = (0.0, 0.0, 0.0, 1.0)
    twist_min: float = -0.5
    twist_max: float = 0.5
    swing_y: float = 0.5
    swing_z: float = 0.5
    stiffness: float = 0.0
    damping: float = 0.0
    max_force: float = math.inf


@dataclass
class RagdollSource:
    """maniRagdollSource: a skeleton's bodies (any order, one a bone), and the root body's
    facing (out of the chest) and up (toward the head) axes in its own frame."""

    skeleton: Skeleton
    bodies: list
    facing: Sequence[float] = (0.0, 0.0, 1.0)
    up: Sequence[float] = (0.0, 1.0, 0.0)


def rest_frames(skeleton: Skeleton) -> np.ndarray:
    """Each bone's rest model frame without scale, binary64 (n, 7): the composed matrix's
    translation and the product of the normalized local rotations."""
    rests = skeleton.rests.astype(np.float64)
    n = skeleton.bone_count
    out = np.zeros((n, 7))
    blocks = np.zeros((n, 3, 3))
    for b in range(n):
        q = rests[b, 3:7] / np.linalg.norm(rests[b, 3:7])
        x, y, z, w = q
        r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                      [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                      [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
        local = r * rests[b, 7:10]
        p = int(skeleton.parents[b])
        if p < b:
            out[b, 0:3] = blocks[p] @ rests[b, 0:3] + out[p, 0:3]
            out[b, 3:7] = quat_mul(out[p, 3:7], q)
            blocks[b] = blocks[p] @ local
        else:
            out[b, 0:3], out[b, 3:7], blocks[b] = rests[b, 0:3], q, local
    return out


def compose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rigid frames (t, q) composed: a then b inside it."""
    return np.concatenate([a[..., 0:3] + quat_rotate(a[..., 3:7], b[..., 0:3]),
                           quat_mul(a[..., 3:7], b[..., 3:7])], axis=-1)


def inverse(a: np.ndarray) -> np.ndarray:
    q = quat_conj(a[..., 3:7])
    return np.concatenate([-quat_rotate(q, a[..., 0:3]), q], axis=-1)


# ---- the build -----------------------------------------------------------------------------
def _vector(values, width: int, fail) -> np.ndarray:
    try:
        return args.floats(values, (width,), "value", dtype=np.float64, within=np.float32)
    except InvalidError:
        raise fail() from None


def _number(value, fail, *, allow_inf: bool = False) -> float:
    try:
        if allow_inf and isinstance(value, (int, float, np.floating)) and value == math.inf:
            return math.inf
        return args.finite32(value, "value")
    except InvalidError:
        raise fail() from None


def _rotation(values, fail) -> np.ndarray:
    q = _vector(values, 4, fail)
    length = math.sqrt(float(q @ q))
    if not length > 0:
        raise fail()
    return q / length


def _body(i: int, body, bones: int) -> tuple[int, int, list[float], np.ndarray]:
    """(bone, shape, values, joint frame in the body) of one source body, checked."""
    def bad(reason, other, why):
        return lambda: InvalidError(f"body {i}: {why}", reason=reason, item=i, other=other)
    try:
        bone = args.integer(body.bone, "bone")
    except InvalidError:
        raise bad(BuildReason.Joint, 0, "bone not an index")() from None
    if not 0 <= bone < bones:
        raise bad(BuildReason.Joint, 0, f"bone {bone} past the skeleton's {bones}")()
    try:
        shape = RagdollShape(args.integer(body.shape, "shape"))
    except (InvalidError, ValueError):
        raise bad(BuildReason.Attribute, 0, "unknown shape")() from None
    size = _vector(body.size, 3, bad(BuildReason.Attribute, 1, "size not 3 finite numbers"))
    used = SIZES_USED[shape]
    if not (size[:used] > 0).all() or (size[used:] != 0).any():
        raise bad(BuildReason.Attribute, 1, "a size not above 0, or an unused size not 0")()
    mass = _number(body.mass, bad(BuildReason.Weight, 0, "mass not finite"))
    if not mass > 0:
        raise bad(BuildReason.Weight, 0, "mass not above 0")()
    t = _vector(body.translation, 3, bad(BuildReason.NotFinite, 0, "translation not finite"))
    q = _rotation(body.rotation, bad(BuildReason.NotFinite, 1, "rotation not finite or 0"))
    jt = _vector(body.joint_translation, 3, bad(BuildReason.NotFinite, 2,
                                                "joint translation not finite"))
    jq = _rotation(body.joint_rotation, bad(BuildReason.NotFinite, 3,
                                            "joint rotation not finite or 0"))
    limit = bad(BuildReason.Scalar, 0, "a twist limit outside -pi <= min <= max <= pi")
    tmin, tmax = _number(body.twist_min, limit), _number(body.twist_max, limit)
    if not -math.pi <= tmin <= tmax <= math.pi:
        raise limit()
    swing = bad(BuildReason.Scalar, 1, "a swing limit outside [0, pi]")
    sy, sz = _number(body.swing_y, swing), _number(body.swing_z, swing)
    if not (0 <= sy <= math.pi and 0 <= sz <= math.pi):
        raise swing()
    drive = bad(BuildReason.Scalar, 2, "a drive's stiffness or damping below 0 or not finite, "
                                       "or its max force not above 0")
    k, c = _number(body.stiffness, drive), _number(body.damping, drive)
    f = _number(body.max_force, drive, allow_inf=True)
    if not (k >= 0 and c >= 0 and f > 0):
        raise drive()
    values = [*t, *q, *size, mass, 0.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
              tmin, tmax, sy, sz, k, c, f, 0.0, 0.0, 0.0]
    return bone, int(shape), values, np.concatenate([jt, jq])


def _axes(source: RagdollSource) -> tuple[np.ndarray, np.ndarray]:
    """The root's facing and up, unit and made exactly perpendicular (facing adjusted)."""
    def fail(item, why):
        return lambda: InvalidError(f"the root's axes: {why}", reason=BuildReason.Basis,
                                    item=item)
    facing = _vector(source.facing, 3, fail(0, "facing not 3 finite numbers"))
    up = _vector(source.up, 3, fail(1, "up not 3 finite numbers"))
    lf, lu = math.sqrt(float(facing @ facing)), math.sqrt(float(up @ up))
    if not lf > 0:
        raise fail(0, "facing of length 0")()
    if not lu > 0:
        raise fail(1, "up of length 0")()
    facing, up = facing / lf, up / lu
    if not abs(float(facing @ up)) <= AXIS_TOLERANCE:
        raise fail(0, "facing and up not perpendicular")()
    facing = facing - up * float(facing @ up)
    return facing / np.linalg.norm(facing), up


def build(source: RagdollSource) -> bytes:
    """Builds a ragdoll profile file (the refusals: maniBuildRagdoll in capi/_ragdoll.py)."""
    skeleton = source.skeleton
    bones = skeleton.bone_count
    bodies = source.bodies
    if not isinstance(bodies, (list, tuple)) or not bodies:
        raise InvalidError("a ragdoll needs a list of bodies", reason=BuildReason.Count)
    if len(bodies) > bones:
        raise InvalidError(f"{len(bodies)} bodies for {bones} bones", reason=BuildReason.Count,
                           item=len(bodies))
    raw_names, records, on_bone = [], [], {}
    for i, body in enumerate(bodies):
        if not isinstance(body, BodySource):
            raise InvalidError(f"body {i} is not a BodySource", reason=BuildReason.Count, item=i)
        raw_names.append(names.name_bytes(body.name, "body", i))
        bone, shape, values, joint = _body(i, body, bones)
        if bone in on_bone:
            raise InvalidError(f"body {i}: bone {bone} has body {on_bone[bone]} already",
                               reason=BuildReason.Joint, item=i, other=on_bone[bone])
        on_bone[bone] = i
        records.append((bone, shape, values, joint))
    hashes = names.check_unique(raw_names, "body")
    facing, up = _axes(source)
    order = sorted(range(len(records)), key=lambda i: records[i][0])
    place_of_bone = {records[i][0]: k for k, i in enumerate(order)}
    parents, root = [], None
    for k, i in enumerate(order):
        p = int(skeleton.parents[records[i][0]])
        while p < bones and p not in place_of_bone:
            p = int(skeleton.parents[p])
        if p >= bones:
            if root is not None:
                raise InvalidError(f"body {i}: a second root (body {order[root]} is one)",
                                   reason=BuildReason.Joint, item=i, other=order[root])
            root = k
            parents.append(NO_BODY)
        else:
            parents.append(place_of_bone[p])
    rest = rest_frames(skeleton)
    values = np.array([records[i][2] for i in order], dtype=np.float64)
    frames = compose(rest[[records[i][0] for i in order]], values[:, 0:7])   # bodies at rest
    for k, i in enumerate(order):
        if parents[k] == NO_BODY:
            values[k, 12:26] = [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1]
            values[k, 26:33] = 0.0
            continue
        joint = records[i][3]
        world = compose(frames[k], joint)
        in_parent = compose(inverse(frames[parents[k]]), world)
        in_parent[3:7] /= np.linalg.norm(in_parent[3:7])
        values[k, 12:19], values[k, 19:26] = joint, in_parent
    with np.errstate(over="ignore"):
        stored = values.astype("<f4")
    if not np.isfinite(stored[:, :32]).all():
        k = int(np.flatnonzero(~np.isfinite(stored[:, :32]).all(axis=1))[0])
        raise InvalidError(f"body {order[k]}: a joint frame past the binary32 range",
                           reason=BuildReason.NotFinite, item=order[k], other=2)
    sorted_names = [raw_names[i] for i in order]
    sorted_hashes = [hashes[i] for i in order]
    head = HEAD.pack(len(order), bones, 0, 0, skeleton.identity, *facing, *up)
    return container.write(FileKind.ragdoll, FORMAT_VERSION, FORMAT_MINOR, [
        Section(b"RAGD", 0, head),
        Section(b"RSKP", 0, np.asarray(skeleton.parents, dtype="<u4").tobytes()),
        Section(b"RBON", 0, np.array([records[i][0] for i in order], dtype="<u4").tobytes()),
        Section(b"RPAR", 0, np.array(parents, dtype="<u4").tobytes()),
        Section(b"RSHP", 0, np.array([records[i][1] for i in order], dtype="<u4").tobytes()),
        Section(b"RVAL", 0, stored.tobytes()),
        *names.sections(b"R", sorted_names, sorted_hashes),
    ])


def build_ragdoll(builder, source: RagdollSource) -> bytes:
    """maniBuildRagdoll: builds the profile and keeps it in the builder in place of any file
    before. A missing builder or source, or a source without an opened skeleton, is a misuse;
    a refused source is not."""
    enter_build(builder, source, RagdollSource, skeleton=Skeleton)
    data = build(source)
    builder.keep(data, "ragdoll")
    return data
