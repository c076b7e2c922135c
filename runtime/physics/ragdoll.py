"""Ragdoll profiles opened in place, and the moves between poses and bodies a host's physics
engine needs: bodies from a pose (kinematic bodies, world-space drives), joint targets
(motors), a pose from bodies (the engine's answer), and where a fallen ragdoll gets up.
The library never simulates; stadium/physics maps a profile onto MuJoCo.

The ragdoll file (container kind 9, format version 1; built by ragdoll_build):

    RAGD  u32 bodies, skeleton bones, 0, 0; u64 skeleton identity; f32 the root body's
          facing (3) and up (3) axes in its frame, unit and perpendicular
    RSKP  u32[bones]        the skeleton's parents (a body's frame needs its bone's model
                            rotation, the product of the rotations above it)
    RBON  u32[bodies]       each body's bone, increasing
    RPAR  u32[bodies]       each body's parent body (NO_BONE for body 0, the root; lower
                            otherwise: the body of the bone's nearest ancestor with one)
    RSHP  u32[bodies]       shape (RagdollShape)
    RVAL  f32[bodies, 36]   frame in the bone's model frame without scale: t (3), q (4);
                            size (3); mass; 0; the joint's frame in this body (7) and in the
                            parent body (7, from the rest pose); twist min, max, swing y, z;
                            drive stiffness, damping, max force (inf for none); 0 0 0.
                            The root's joint frames are the identity, its limits and drive 0.
    R...  the bodies' names (core/names.py)

Body states are (bodies, 13) binary32 rows (ragdoll_kernels says what is in a row); joint
targets (bodies, 7): the child's joint frame's rotation in the parent's (x y z w), and the
relative angular velocity in the parent joint frame's axes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core import args, container, names
from ..core.container import Container, FileKind
from ..core.errors import BuildReason, CapacityError, FormatError, InvalidError
from ..core.jit import array
from ..core.limits import MAX_BONES, NO_BONE
from ..core.transform import quat_rotate, quats_from_matrices
from ..pose.pose import Pose
from ..pose.skeleton import Skeleton, opened
from . import ragdoll_kernels as kernels
from .ragdoll_build import (BODY_VALUES, FORMAT_MINOR, FORMAT_VERSION, HEAD, KNOWN, NO_BODY,
                            SIZES_USED, RagdollShape)

FILE_TOLERANCE = 1e-5           # a stored unit quaternion or axis may be off 1 by this
TOLERANCE = 1e-3                # a caller's normal and axes: unit and perpendicular within this
SHORT_HEADING = 1e-3            # a get-up heading shorter than this is degenerate
ACROSS = 1e-3                   # a facing this little below the plane still lies across it
STATE_VALUES = 13
TARGET_VALUES = 7
F32_PI = float(np.float32(math.pi))


def _first(bad: np.ndarray) -> int | None:
    flat = np.flatnonzero(np.asarray(bad).reshape(-1))
    return int(flat[0]) if flat.size else None


@dataclass
class RagdollBody:
    """maniRagdollBody: one body of a profile as GetBody reads it (frames are t (3) and
    q (4); parent NO_BODY for the root)."""

    name: str
    bone: int
    parent: int
    shape: RagdollShape
    size: np.ndarray
    mass: float
    frame: np.ndarray
    joint_frame: np.ndarray
    parent_frame: np.ndarray
    twist_min: float
    twist_max: float
    swing_y: float
    swing_z: float
    stiffness: float
    damping: float
    max_force: float


@dataclass
class RagdollGround:
    """maniRagdollGround: the plane a ragdoll gets up on (a point and its unit normal), and
    the character's model up and forward axes (unit, perpendicular)."""

    point: object = (0.0, 0.0, 0.0)
    normal: object = (0.0, 1.0, 0.0)
    up: object = (0.0, 1.0, 0.0)
    forward: object = (0.0, 0.0, 1.0)


@dataclass
class RagdollGetUp:
    """maniRagdollGetUp: the character's placement to get up from (10 floats, scale 1) and
    whether the body lies face up."""

    placement: np.ndarray
    face_up: bool


def placement_frame(value, what: str = "placement") -> np.ndarray:
    """A placement transform (10 numbers finite in binary32) as binary64 with its rotation
    normalized; its scale is left out by every ragdoll call. A rotation of length 0 is
    refused, as it is no turn at all. (A binary32 or binary64 array of ten is checked by one
    kernel, without numpy's per-call costs; anything else by args.floats first.)"""
    if (isinstance(value, np.ndarray) and value.shape == (10,)
            and value.dtype in (np.float32, np.float64)):
        p = value.astype(np.float64)
    else:
        p = args.floats(value, (10,), what, dtype=np.float64, within=np.float32)
    verdict = kernels.placement_checked(p, args.F32_MAX)
    if verdict == 1:
        raise InvalidError(f"{what} has values not finite in binary32", reason=BuildReason.NotFinite)
    if verdict == 2:
        raise InvalidError(f"{what}: a rotation of length 0")
    return p


def _states(bodies, what: str = "bodies") -> np.ndarray:
    """Body states as binary32 rows of 13 (no copy when they are already)."""
    if (isinstance(bodies, np.ndarray) and bodies.dtype == np.float32 and bodies.ndim == 2
            and bodies.shape[1] == STATE_VALUES):
        return array(bodies, np.float32)
    return array(args.floats(bodies, (-1, STATE_VALUES), what, allow_nonfinite=True), np.float32)


def _output(out, rows: int, width: int, what: str):
    """(the array written, out to copy it into or None)."""
    if out is None:
        return np.empty((rows, width), np.float32), None
    if not (isinstance(out, np.ndarray) and out.dtype == np.float32 and out.ndim == 2
            and out.shape[1] == width and out.flags.writeable):
        out = args.output(out, "f", (-1, width), what)
    if out.shape[0] < rows:
        raise CapacityError(f"{what} holds {out.shape[0]} rows for {rows} bodies", count=rows)
    if out.dtype == np.float32 and out.flags.c_contiguous:
        return out, None
    return np.empty((rows, width), np.float32), out


class Ragdoll:
    """A ragdoll profile file opened in place (maniRagdoll). A view no open wrote has no
    bodies, and the calls that need a profile refuse it."""

    body_count = 0
    identity = 0
    skeleton_identity = 0
    is_open = False

    def __init__(self, data):
        with np.errstate(all="ignore"):
            self._open(container.as_buffer(data))

    @classmethod
    def open(cls, data) -> "Ragdoll":
        return cls(data)

    def _open(self, buf: np.ndarray) -> None:
        c = Container(buf, FileKind.ragdoll, FORMAT_VERSION, FORMAT_MINOR, KNOWN,
                      required=tuple(KNOWN))
        c.array(b"RAGD", "u1", (HEAD.size,))
        at = c.offset_of(b"RAGD")
        nb, bones, r0, r1, skeleton_id, *axes = HEAD.unpack_from(buf, at)
        if not 1 <= bones <= MAX_BONES:
            raise FormatError(f"skeleton bone count {bones} out of range", at + 4)
        if not 1 <= nb <= bones:
            raise FormatError(f"body count {nb} out of range", at)
        if r0 or r1:
            raise FormatError("reserved field set", at + (8 if r0 else 12))
        self._check_axes(np.array(axes, dtype=np.float64), at + 24)
        parents = c.array(b"RSKP", "<u4", (bones,))
        k = _first((parents != NO_BONE) & (parents >= np.arange(bones)))
        if k is not None:
            raise FormatError("a bone's parent not a lower bone", c.offset_of(b"RSKP", 4 * k))
        body_bones = c.array(b"RBON", "<u4", (nb,))
        k = _first((body_bones >= bones) | np.r_[False, body_bones[1:] <= body_bones[:-1]])
        if k is not None:
            raise FormatError("a body's bone past the skeleton or not above the one before",
                              c.offset_of(b"RBON", 4 * k))
        body_parents = c.array(b"RPAR", "<u4", (nb,))
        self._check_parents(c, parents, body_bones, body_parents)
        shapes = c.array(b"RSHP", "<u4", (nb,))
        k = _first(shapes > RagdollShape.box)
        if k is not None:
            raise FormatError("an unknown shape", c.offset_of(b"RSHP", 4 * k))
        values = c.array(b"RVAL", "<f4", (nb, BODY_VALUES))
        self._check_values(c, shapes, values)
        self.names = names.NameTable(c, b"R", nb)
        c.finish()
        # private copies, so bytes changed after the open cannot send a kernel astray
        self.parents = array(parents.astype(np.uint32), np.uint32)
        self.body_bones = array(body_bones.astype(np.uint32), np.uint32)
        self.body_parents = array(body_parents.astype(np.uint32), np.uint32)
        self.shapes = shapes.astype(np.uint32)
        self.values = array(values.astype(np.float64), np.float64)
        body_of_bone = np.full(bones, -1, dtype=np.int32)
        body_of_bone[self.body_bones] = np.arange(nb, dtype=np.int32)
        self.body_of_bone = array(body_of_bone, np.int32)
        self.facing = np.array(axes[0:3], dtype=np.float64)
        self.up = np.array(axes[3:6], dtype=np.float64)
        needed = np.zeros(bones, dtype=np.uint8)       # the bodies' bones and their ancestors
        for b in self.body_bones.tolist():
            while b != NO_BONE and not needed[b]:
                needed[b] = 1
                b = int(self.parents[b])
        self.is_needed = array(needed, np.uint8)
        self.needed = array(np.flatnonzero(needed).astype(np.uint32), np.uint32)
        self.body_count, self.bone_count = nb, bones
        self.skeleton_identity = skeleton_id
        self.identity = c.identity
        self.data = buf
        self.is_open = True

    @staticmethod
    def _check_axes(axes: np.ndarray, at: int) -> None:
        bad = ~np.isfinite(axes)
        for i, v in ((0, axes[0:3]), (3, axes[3:6])):
            bad[i] |= not abs(math.sqrt(float(v @ v)) - 1.0) <= FILE_TOLERANCE
        bad[3] |= not abs(float(axes[0:3] @ axes[3:6])) <= FILE_TOLERANCE
        k = _first(bad)
        if k is not None:
            raise FormatError("the root's axes not unit and perpendicular", at + 4 * k)

    @staticmethod
    def _check_parents(c, parents, body_bones, body_parents) -> None:
        """The root first, and each other body's parent the body of its bone's nearest
        ancestor with one (so lower, and one root)."""
        body_of = {int(b): k for k, b in enumerate(body_bones.tolist())}
        nearest = np.full(parents.size, NO_BODY, dtype=np.int64)
        for b, p in enumerate(parents.tolist()):
            if p != NO_BONE:
                nearest[b] = body_of.get(p, nearest[p])
        want = nearest[body_bones.astype(np.int64)]
        k = _first(body_parents != want)
        if k is not None:
            raise FormatError("a body's parent not its bone's nearest body above",
                              c.offset_of(b"RPAR", 4 * k))

    @staticmethod
    def _check_values(c, shapes, values) -> None:
        v = values.astype(np.float64)
        bad = ~np.isfinite(v)
        bad[:, 32] &= ~(v[:, 32] == math.inf)           # max force: inf for none
        used = np.array([SIZES_USED[RagdollShape(int(s))] for s in shapes], dtype=np.int64)
        column = np.arange(3)[None, :]
        size = v[:, 7:10]
        bad[:, 7:10] |= np.where(column < used[:, None], ~(size > 0), size != 0)
        bad[:, 10] |= ~(v[:, 10] > 0)
        bad[:, 11] |= v[:, 11] != 0
        bad[:, 33:] |= v[:, 33:] != 0
        for at in (3, 15, 22):
            length = np.sqrt(np.einsum("ij,ij->i", v[:, at:at + 4], v[:, at:at + 4]))
            bad[:, at] |= ~(np.abs(length - 1) <= FILE_TOLERANCE)
        tmin, tmax = v[:, 26], v[:, 27]
        bad[:, 26] |= ~((tmin >= -F32_PI) & (tmin <= tmax))
        bad[:, 27] |= ~(tmax <= F32_PI)
        bad[:, 28:30] |= ~((v[:, 28:30] >= 0) & (v[:, 28:30] <= F32_PI))
        bad[:, 30:32] |= ~(v[:, 30:32] >= 0)
        bad[:, 32] |= ~(v[:, 32] > 0)
        root = np.array([0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1] + [0.0] * 10)
        bad[0, 12:] = v[0, 12:] != root             # the root: no joint, no limits, no drive
        k = _first(bad)
        if k is not None:
            raise FormatError("a body value out of range", c.offset_of(b"RVAL", 4 * k))

    # ---- queries
    def body(self, body: int) -> RagdollBody:
        """maniRagdoll_GetBody: InvalidError past the bodies."""
        body = args.integer(body, "body")
        if not self.is_open or not 0 <= body < self.body_count:
            raise InvalidError(f"body {body} past the {self.body_count} bodies")
        v = self.values[body]
        return RagdollBody(self.names.name(body, "body"), int(self.body_bones[body]),
                           int(self.body_parents[body]), RagdollShape(int(self.shapes[body])),
                           v[7:10].astype(np.float32), float(v[10]), v[0:7].astype(np.float32),
                           v[12:19].astype(np.float32), v[19:26].astype(np.float32),
                           *(float(x) for x in v[26:33]))

    # ---- poses and bodies
    def _pose(self, pose, what: str) -> Pose:
        if not isinstance(pose, Pose):
            raise InvalidError(f"{what} is not a pose")
        if (pose.skeleton_identity != self.skeleton_identity or pose.bone_count != self.bone_count
                or len(pose.locals) != self.bone_count):
            raise InvalidError(f"{what} is a pose of another skeleton")
        if pose.is_difference:
            raise InvalidError(f"{what} is a difference")
        return pose

    def bodies_from_pose(self, pose: Pose, placement, previous: Pose | None = None,
                         previous_placement=None, seconds: float = 0.0, out=None) -> np.ndarray:
        """maniRagdoll_ComputeBodiesFromPose: each body's state (bodies, 13) where the pose
        puts it under the placement (scales left out); velocities over `seconds` from the
        previous pose under its placement, 0 without one. Into out's first rows when given
        (CapacityError with .count when it has fewer rows than bodies, nothing written)."""
        _opened(self)
        pose = self._pose(pose, "pose")
        if not pose.is_model_current:
            raise InvalidError("pose: the model is not current")
        p = placement_frame(placement)
        seconds = args.finite32(seconds, "seconds")
        if previous is None:
            if seconds < 0:
                raise InvalidError("seconds below 0")
            before, q, has = pose, p, False
        else:
            before = self._pose(previous, "previous")
            if not before.is_model_current:
                raise InvalidError("previous: the model is not current")
            if previous_placement is None:
                raise InvalidError("a previous pose without its placement")
            q = placement_frame(previous_placement, "previous placement")
            if not seconds > 0:
                raise InvalidError("seconds must be above 0 with a previous pose")
            has = True
        target, copy = _output(out, self.body_count, STATE_VALUES, "bodies")
        kernels.bodies_from_pose(self.parents, self.body_bones, self.values, self.needed,
                                 pose.locals, pose.model, p, before.locals, before.model, q, has,
                                 seconds, target)
        return _finish(target, copy, self.body_count)

    def joint_targets(self, bodies, out=None) -> np.ndarray:
        """maniRagdoll_ComputeJointTargets: (bodies, 7), the root's the identity and 0, into
        out's first rows when given (CapacityError with .count when it has fewer rows than
        bodies, nothing written). Fewer body states than bodies are refused."""
        _opened(self)
        states = _states(bodies)
        if states.shape[0] < self.body_count:
            raise InvalidError(f"{states.shape[0]} body states for {self.body_count} bodies")
        target, copy = _output(out, self.body_count, TARGET_VALUES, "joints")
        kernels.joint_targets(self.body_parents, self.values, states, target)
        return _finish(target, copy, self.body_count)

    def _checked_states(self, bodies) -> np.ndarray:
        states = _states(bodies)
        if states.shape[0] < self.body_count:
            raise CapacityError(f"{states.shape[0]} body states for {self.body_count} bodies",
                                count=self.body_count)
        k = kernels.first_bad_body(states, self.body_count)
        if k >= 0:
            raise InvalidError(f"body {k}: a place not finite or a rotation not of length 1")
        return states

    def pose_from_bodies(self, skeleton: Skeleton, bodies, placement, reference: Pose,
                         out: Pose) -> None:
        """maniRagdoll_ComputePoseFromBodies: out's locals from the bodies' places (the
        reference's where a bone has no body, and its scales), its model composed.
        `out` may be `reference`."""
        _opened(self)
        sk = opened(skeleton)
        if sk.identity != self.skeleton_identity or sk.bone_count != self.bone_count:
            raise InvalidError("a skeleton of another identity than the profile's")
        reference = self._pose(reference, "reference")
        if not isinstance(out, Pose):
            raise InvalidError("out is not a pose")
        if not out.of(sk):
            raise InvalidError("out is a pose of another skeleton")
        p = placement_frame(placement)
        states = self._checked_states(bodies)
        sk.check_parents()
        kernels.pose_from_bodies(self.parents, self.body_of_bone, self.is_needed, self.values, states, p,
                                 reference.locals, out.locals, out.model)
        out._set_flags(1)

    def get_up(self, bodies, ground: RagdollGround) -> RagdollGetUp:
        """maniRagdoll_ComputeGetUpPlacement (the rules: getup_heading)."""
        _opened(self)
        if not isinstance(ground, RagdollGround):
            raise InvalidError("ground is not a RagdollGround")
        point = args.floats(ground.point, (3,), "ground point", dtype=np.float64,
                            within=np.float32)
        normal, up, forward = (args.floats(v, (3,), f"ground {what}", dtype=np.float64,
                                           within=np.float32)
                               for v, what in ((ground.normal, "normal"), (ground.up, "up"),
                                               (ground.forward, "forward")))
        for v, what in ((normal, "normal"), (up, "up"), (forward, "forward")):
            if not abs(math.sqrt(float(v @ v)) - 1.0) <= TOLERANCE:
                raise InvalidError(f"ground {what} not of length 1")
        if not abs(float(up @ forward)) <= TOLERANCE:
            raise InvalidError("ground up and forward not perpendicular")
        states = self._checked_states(bodies)
        root = states[0].astype(np.float64)
        q = root[3:7] / np.linalg.norm(root[3:7])
        n = normal / np.linalg.norm(normal)
        facing, head = quat_rotate(q, self.facing), quat_rotate(q, self.up)
        heading, face_up = getup_heading(head, facing, n)
        u = up / np.linalg.norm(up)
        f = forward - u * float(forward @ u)
        f /= np.linalg.norm(f)
        model = np.stack([f, u, np.cross(f, u)], axis=1)
        world = np.stack([heading, n, np.cross(heading, n)], axis=1)
        rotation = quats_from_matrices(world @ model.T)
        ground_at = root[0:3] - n * float((root[0:3] - point) @ n)
        placement = np.concatenate([ground_at, rotation, [1.0, 1.0, 1.0]]).astype(np.float32)
        return RagdollGetUp(placement, face_up)


def getup_heading(head: np.ndarray, facing: np.ndarray, normal: np.ndarray):
    """(unit heading on the plane, face up) of a root body whose up axis (toward the head)
    and facing axis (out of the chest) are `head` and `facing` in the world, on a plane of
    unit `normal`. Face up when facing points along the normal or across it (within ACROSS,
    so a body on its side reads face up whatever the rounding). The heading is
    the head's way on the plane (reversed face up) plus the facing's way on the plane weighed
    by the head's component along the normal; shorter than SHORT_HEADING, the head's way
    alone. (With unit perpendicular axes the sum is at least 1 long: |h|^2 = 1 + a^2 |b|
    (2 - |b|), a and b the head's and facing's components along the normal; only axes off
    those rules reach the fallback.)"""
    face_up = bool(facing @ normal >= -ACROSS)
    a = float(head @ normal)
    head_on = head - normal * a
    facing_on = facing - normal * float(facing @ normal)
    heading = (-head_on if face_up else head_on) + facing_on * a
    if not np.linalg.norm(heading) >= SHORT_HEADING:
        heading = head_on
    length = float(np.linalg.norm(heading))
    if not length > 1e-12:          # the head along the normal too: any way on the plane
        other = np.eye(3)[int(np.argmin(np.abs(normal)))]
        heading = np.cross(normal, other)
        length = float(np.linalg.norm(heading))
    return heading / length, face_up


def _finish(target: np.ndarray, copy, rows: int) -> np.ndarray:
    if copy is None:
        return target[:rows]
    copy[:rows] = target
    return copy[:rows]


def _opened(ragdoll) -> Ragdoll:
    if not isinstance(ragdoll, Ragdoll) or not ragdoll.is_open:
        raise InvalidError("ragdoll is not an opened ragdoll profile")
    return ragdoll
