"""Spring sets opened in place, and spring states in caller memory.

The spring set file (container kind 8, format version 1; built by spring_build):

    SPRS  u32 springs, joints, colliders, links, skeleton bones, 0; u64 skeleton identity;
          f32 step rate, reference rate
    SPRG  u32[springs, 5]   first joint, joint count, first link, link count, center bone
    JBON  u32[joints]       each joint's bone (a spring's joints in storage order: each below
                            the one before, so at higher indices)
    JVAL  f32[joints, 8]    hit radius, stiffness, gravity x y z, keep, push, 0: per step
                            (spring_build says how a frame's values become a step's); a
                            spring's last joint is its chain's end, all zeros
    LKND  u32[joints]       limit kind;  LVAL f32[joints, 8]: angle, yaw, 0, 0, rotation
    CKND  u32[colliders]    shape;  CBON u32[colliders] bone
    CVAL  f32[colliders, 12] offset xyz, radius, tail xyz, normal xyz (unit), 0, 0
    LINK  u32[links]        the colliders each spring meets, spring after spring
    S...  the springs' names (core/names.py)

A state (maniSpringState) lives in the caller's bytes: a 32-byte header (b"SPST", bones,
the set's identity, joints), then binary64 values (kernels.py lays them out: the remainder,
two flags, the last call's placement, force and locals, each joint's tail and previous
tail), then the steps' scratch. Save writes the header's facts and the values, which are
all there is to a state, so a restored state continues bit for bit.

Time: a state steps at its set's step rate whatever the host's; a call runs the steps due
in its delta, each at its own time between the last call and this one, and keeps the time
short of a step. Apply moves the last step's tails on for that remainder, so the output
moves smoothly at any host rate and equals the last step's own when the step rate is a
multiple of the host's.

Scale: a joint's stiffness, gravity, external force and hit radius are lengths per unit of
its bone's world scale, and colliders' radii per unit of their bone's, so a scaled
placement moves as the unscaled one, scaled (the scale of a frame: the cube root of its
block's |determinant|).

Each spring reads the pose it is given; a spring below another's joints does not see that
spring's output.
"""
from __future__ import annotations

import math
import struct

import numpy as np

from ..core import args, container, names
from ..core.base import ABI_VERSION
from ..core.container import Container, FileKind, Section
from ..core.errors import CapacityError, FormatError, InvalidError, VersionError
from ..core.jit import array
from ..core.limits import MAX_BONES, NO_BONE
from ..core.memory import caller_block
from ..pose.pose import Pose
from ..pose.skeleton import Skeleton, opened
from . import kernels
from .spring_build import (COLLIDER_VALUES, FORMAT_MINOR, FORMAT_VERSION, HEAD, JOINT_VALUES,
                           KNOWN, LIMIT_VALUES, MAX_SPRING_RATE, SPRING_MAX_STEPS, ColliderShape,
                           SpringLimitKind)

UNIT_TOLERANCE = 1e-5           # a stored unit quaternion or normal may be off 1 by this
STATE_MAGIC = np.frombuffer(b"SPST", dtype="<u4")[0]
STATE_HEADER = 32
STATE_FORMAT_VERSION = 1
STATE_FORMAT_MINOR = 0
STATE_HEAD = struct.Struct("<IIQII")      # ABI, 0, set identity, bones, joints
STATE_KNOWN = {b"SPSH": 0, b"SPSV": 0}
STATE_UNIT_TOLERANCE = 1e-9     # the state's rotations are normalized in binary64


def _first(bad: np.ndarray) -> int | None:
    flat = np.flatnonzero(np.asarray(bad).reshape(-1))
    return int(flat[0]) if flat.size else None


def _refuse_at(bad, c: Container, tag: bytes, item_bytes: int, what: str) -> None:
    """FormatError at the first bad item of a section (bad: one flag an item of
    item_bytes)."""
    k = _first(bad)
    if k is not None:
        raise FormatError(what, c.offset_of(tag, item_bytes * k))


class SpringSet:
    """A spring set file opened in place (maniSpringSet). A view no open wrote has no
    springs, and the calls that need a set refuse it."""

    spring_count = 0
    identity = 0
    skeleton_identity = 0
    step_rate = 0.0
    reference_rate = 0.0
    is_open = False

    def __init__(self, data):
        with np.errstate(all="ignore"):
            self._open(container.as_buffer(data))

    @classmethod
    def open(cls, data) -> "SpringSet":
        return cls(data)

    def _open(self, buf: np.ndarray) -> None:
        c = Container(buf, FileKind.spring_set, FORMAT_VERSION, FORMAT_MINOR, KNOWN,
                      required=tuple(KNOWN))
        c.array(b"SPRS", "u1", (HEAD.size,))
        at = c.offset_of(b"SPRS")
        ns, nj, nc, nl, bones, reserved, skeleton_id, step, reference = HEAD.unpack_from(buf, at)
        if not 1 <= bones <= MAX_BONES:
            raise FormatError(f"skeleton bone count {bones} out of range", at + 16)
        if ns > MAX_BONES:
            raise FormatError(f"spring count {ns} past MAX_BONES", at)
        if nj > bones:
            raise FormatError(f"{nj} joints for {bones} bones", at + 4)
        if reserved:
            raise FormatError("reserved field set", at + 20)
        for value, where in ((step, 32), (reference, 36)):
            if not 0 < value <= MAX_SPRING_RATE:
                raise FormatError("a rate out of range", at + where)
        c.check_count(ns, at, {b"SPRG": (20, 0), **names.count_items(b"S")})
        c.check_count(nj, at + 4, {b"JBON": (4, 0), b"JVAL": (4 * JOINT_VALUES, 0),
                                   b"LKND": (4, 0), b"LVAL": (4 * LIMIT_VALUES, 0)})
        c.check_count(nc, at + 8, {b"CKND": (4, 0), b"CBON": (4, 0),
                                   b"CVAL": (4 * COLLIDER_VALUES, 0)})
        springs = c.array(b"SPRG", "<u4", (ns, 5))
        jbones = c.array(b"JBON", "<u4", (nj,))
        jvalues = c.array(b"JVAL", "<f4", (nj, JOINT_VALUES))
        lkinds = c.array(b"LKND", "<u4", (nj,))
        lvalues = c.array(b"LVAL", "<f4", (nj, LIMIT_VALUES))
        ckinds = c.array(b"CKND", "<u4", (nc,))
        cbones = c.array(b"CBON", "<u4", (nc,))
        cvalues = c.array(b"CVAL", "<f4", (nc, COLLIDER_VALUES))
        self._check_springs(c, springs, jbones, nj, nl, bones)
        links = c.array(b"LINK", "<u4", (nl,))      # its count agrees with the springs' now
        self._check_joints(c, springs, jbones, jvalues, lkinds, lvalues, bones)
        self._check_colliders(c, ckinds, cbones, cvalues, links, bones)
        self.names = names.NameTable(c, b"S", ns)
        c.finish()
        # private copies, so bytes changed after the open cannot send a kernel astray
        self.springs = array(springs.astype(np.uint32), np.uint32)
        self.joint_bones = array(jbones.astype(np.uint32), np.uint32)
        self.joint_values = array(jvalues.astype(np.float32), np.float32)
        self.limit_kinds = array(lkinds.astype(np.uint32), np.uint32)
        self.limit_values = array(lvalues.astype(np.float32), np.float32)
        self.collider_kinds = array(ckinds.astype(np.uint32), np.uint32)
        self.collider_bones = array(cbones.astype(np.uint32), np.uint32)
        self.collider_values = array(cvalues.astype(np.float32), np.float32)
        self.links = array(links.astype(np.uint32), np.uint32)
        self.spring_count, self.joint_count, self.bone_count = ns, nj, bones
        self.collider_count = nc
        hung = [int(b) + 1 for b in self.collider_bones] + [int(c) + 1 for c in springs[:, 4]
                                                             if c != NO_BONE]
        self.collider_reach = max(hung, default=0)     # bones Apply composes the last pose for
        self.skeleton_identity = skeleton_id
        self.identity = c.identity
        self.step_rate, self.reference_rate = float(step), float(reference)
        self.data = buf
        self.is_open = True

    @staticmethod
    def _check_springs(c, springs, jbones, nj, nl, bones) -> None:
        at = c.offset_of(b"SPRG")
        joint_at, link_at = 0, 0
        for s, (first, count, first_link, link_count, center) in enumerate(springs.tolist()):
            base = at + 20 * s
            if first != joint_at:
                raise FormatError("a spring's first joint not after the last", base)
            if not 2 <= count <= nj - first:
                raise FormatError("a spring's joint count out of range", base + 4)
            if first_link != link_at:
                raise FormatError("a spring's first link not after the last", base + 8)
            if center != NO_BONE and not (center < bones and center <= int(jbones[first])):
                raise FormatError("a center not joint 0 nor above it", base + 16)
            joint_at, link_at = first + count, first_link + link_count
        if joint_at != nj:
            raise FormatError("joints no spring holds", c.offset_of(b"SPRS", 4))
        if link_at != nl:
            raise FormatError("links no spring holds", c.offset_of(b"SPRS", 12))

    @staticmethod
    def _check_joints(c, springs, jbones, jvalues, lkinds, lvalues, bones) -> None:
        _refuse_at(jbones >= bones, c, b"JBON", 4, "a joint's bone past the skeleton")
        ends = np.zeros(jbones.size, dtype=bool)
        starts = np.zeros(jbones.size, dtype=bool)
        for first, count, *_ in springs.tolist():
            ends[first + count - 1] = True
            starts[first] = True
        climbing = np.ones(jbones.size, dtype=bool)
        climbing[1:] = starts[1:] | (jbones[1:] > jbones[:-1])
        _refuse_at(~climbing, c, b"JBON", 4, "a joint not below the joint before")
        order = np.argsort(jbones, kind="stable")
        twice = np.zeros(jbones.size, dtype=bool)
        twice[order[1:]] = jbones[order[1:]] == jbones[order[:-1]]
        _refuse_at(twice, c, b"JBON", 4, "a bone in two chains")
        v = jvalues.astype(np.float64)
        bad = ~np.isfinite(v)
        bad |= (v < 0) & np.isin(np.arange(JOINT_VALUES), (0, 1, 5, 6))
        bad[:, 5] |= v[:, 5] > 1
        bad[:, 7] |= v[:, 7] != 0
        bad[ends] |= v[ends] != 0
        _refuse_at(bad, c, b"JVAL", 4, "a joint value out of range")
        _refuse_at((lkinds > SpringLimitKind.spherical) | (ends & (lkinds != 0)), c, b"LKND", 4,
                   "an unknown limit kind")
        lv = lvalues.astype(np.float64)
        bad = ~np.isfinite(lv)
        bad[:, 0] |= ~((lv[:, 0] >= 0) & (lv[:, 0] <= np.float32(math.pi)))
        bad[:, 1] |= ~((lv[:, 1] >= 0) & (lv[:, 1] <= np.float32(math.pi / 2)))
        bad[:, 2:4] |= lv[:, 2:4] != 0
        length = np.sqrt(np.einsum("ij,ij->i", lv[:, 4:8], lv[:, 4:8]))
        bad[:, 4] |= ~(np.abs(length - 1) <= UNIT_TOLERANCE)
        _refuse_at(bad, c, b"LVAL", 4, "a limit value out of range")

    @staticmethod
    def _check_colliders(c, ckinds, cbones, cvalues, links, bones) -> None:
        _refuse_at(ckinds > ColliderShape.plane, c, b"CKND", 4, "an unknown collider shape")
        _refuse_at(cbones >= bones, c, b"CBON", 4, "a collider's bone past the skeleton")
        v = cvalues.astype(np.float64)
        bad = ~np.isfinite(v)
        bad[:, 3] |= v[:, 3] < 0
        bad[:, 10:] |= v[:, 10:] != 0
        length = np.sqrt(np.einsum("ij,ij->i", v[:, 7:10], v[:, 7:10]))
        bad[:, 7] |= ~(np.abs(length - 1) <= UNIT_TOLERANCE)
        _refuse_at(bad, c, b"CVAL", 4, "a collider value out of range")
        _refuse_at(links >= ckinds.size, c, b"LINK", 4, "a link past the colliders")

    # ---- queries
    def spring_name(self, spring: int) -> str | None:
        """A spring's name; None past the springs."""
        spring = args.integer(spring, "spring")
        return self.names.name(spring, "spring") if self.is_open else None

    @property
    def state_size(self) -> int:
        """maniSpringSet_GetStateSize."""
        return state_size(self) if self.is_open else 0


def opened_set(spring_set, what: str = "set") -> SpringSet:
    if not isinstance(spring_set, SpringSet) or not spring_set.is_open:
        raise InvalidError(f"{what} is not an opened spring set")
    return spring_set


# ---- states ------------------------------------------------------------------------------------
def _value_count(bones: int, joints: int) -> int:
    return kernels.AT_LOCALS + 10 * bones + 6 * joints


def _scratch_count(bones: int, colliders: int) -> int:
    """Locals and a placement; twice each bone's frame and turn; each collider placed."""
    return 10 * (bones + 1) + 2 * 16 * bones + 8 * colliders


def state_size(spring_set: SpringSet) -> int:
    n, j = spring_set.bone_count, spring_set.joint_count
    return STATE_HEADER + 8 * (_value_count(n, j) + _scratch_count(n, spring_set.collider_count))


def _pose_for(pose, bones: int, what: str = "pose") -> Pose:
    if not isinstance(pose, Pose):
        raise InvalidError(f"{what} is not a pose")
    if pose.bone_count != bones or len(pose.locals) != bones:
        raise InvalidError(f"a pose of {pose.bone_count} bones for a state of {bones}")
    if pose.is_difference:
        raise InvalidError("a difference is not a pose to follow")
    return pose


class SpringState:
    """A set's motion in caller memory (maniSpringState): with no motion yet, the first step
    places every tail where the pose puts it."""

    kernels = (kernels.step, kernels.apply)    # what step and apply run, each of one declared
                                               # signature (jit.compile_aside)

    def __init__(self, spring_set: SpringSet, skeleton: Skeleton, memory=None, size=None):
        s = opened_set(spring_set)
        sk = opened(skeleton)
        if sk.identity != s.skeleton_identity or sk.bone_count != s.bone_count:
            raise InvalidError("a skeleton of another identity than the set's")
        if size is not None:
            size = args.count(size, "size")
        need = state_size(s)
        self.buffer = caller_block(memory, size, need, "a spring state")[:need]
        n, j = s.bone_count, s.joint_count
        head = self.buffer[:STATE_HEADER]
        head[...] = 0
        head[0:4].view("<u4")[0] = STATE_MAGIC
        head[4:8].view("<u4")[0] = n
        head[8:16].view("<u8")[0] = s.identity
        head[16:20].view("<u4")[0] = j
        words = self.buffer[STATE_HEADER:].view(np.float64)
        words[...] = 0.0
        count = _value_count(n, j)
        self.values = words[:count]
        self.tails = self.values[kernels.AT_LOCALS + 10 * n:].reshape(j, 6)
        scratch = words[count:]
        self._locals = scratch[:10 * (n + 1)].reshape(n + 1, 10)
        frames = scratch[10 * (n + 1):10 * (n + 1) + 32 * n].reshape(2, 16 * n)
        self._colliders = scratch[10 * (n + 1) + 32 * n:].reshape(s.collider_count, 8)
        self._world = [frames[i, :12 * n].reshape(n, 3, 4) for i in range(2)]
        self._turns = [frames[i, 12 * n:].reshape(n, 4) for i in range(2)]
        self.set = s
        self.skeleton = sk
        self._tables = (s.springs, s.joint_bones, s.joint_values, s.limit_kinds, s.limit_values,
                        s.collider_kinds, s.collider_bones, s.collider_values, s.links)

    @property
    def has_motion(self) -> bool:
        return self.values[2] != 0.0

    def step(self, pose: Pose, placement=None, force=None, delta: float = 0.0) -> int:
        """maniSpringState_Step: the steps due in |delta| (at most SPRING_MAX_STEPS steps'
        seconds); returns how many ran. placement None is the identity, force None none."""
        pose = _pose_for(pose, self.set.bone_count)
        delta = args.finite32(delta, "delta")
        if placement is None:
            p = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], dtype=np.float64)
        else:
            p = args.floats(placement, (10,), "placement", dtype=np.float64, within=np.float32)
            length = math.sqrt(float(p[3:7] @ p[3:7]))
            if not length > 0:
                raise InvalidError("placement: a rotation of length 0")
            p[3:7] /= length
        f = np.zeros(3) if force is None else args.floats(force, (3,), "force", dtype=np.float64,
                                                          within=np.float32)
        self.skeleton.check_parents()
        return int(kernels.step(self.skeleton.parents, array(pose.locals, np.float32), p, f,
                                float(delta), self.set.step_rate, SPRING_MAX_STEPS,
                                *self._tables, self.values, self.tails, self._locals,
                                self._world[0], self._turns[0], self._colliders))

    def apply(self, pose: Pose) -> None:
        """maniSpringState_Apply: each spring joint of the pose turned toward its tail; the
        pose's model left stale where a joint turned (as the IK solvers leave it)."""
        pose = _pose_for(pose, self.set.bone_count)
        if not self.has_motion:
            return
        self.skeleton.check_parents()
        kernels.apply(self.skeleton.parents, array(pose.locals, np.float32, written=True),
                      self.set.step_rate, *self._tables, self.values, self.tails,
                      self._locals, self._world[0], self._turns[0], self._world[1],
                      self._turns[1], self._colliders, self.set.collider_reach)
        pose.mark_stale()

    def reset(self) -> None:
        """maniSpringState_Reset: no motion and no last call (the next step's values are
        its own at both ends); the time short of a step is kept."""
        self.values[1:] = 0.0

    # ---- saving
    def save(self, out=None):
        """The state's bytes; or, into `out`, their size (CapacityError with .size when
        short, nothing written)."""
        s = self.set
        head = STATE_HEAD.pack(ABI_VERSION, 0, s.identity, s.bone_count, s.joint_count)
        data = container.write(FileKind.saved_state, STATE_FORMAT_VERSION, STATE_FORMAT_MINOR, [
            Section(b"SPSH", 0, head), Section(b"SPSV", 0, self.values.astype("<f8").tobytes())])
        if out is None:
            return data
        view = args.writable_bytes(out, "bytes")
        if view.nbytes < len(data):
            raise CapacityError(f"{view.nbytes} bytes for a state of {len(data)}", size=len(data))
        view[:len(data)] = data
        return len(data)

    def restore(self, data) -> None:
        """maniSpringState_Restore: the bytes checked as external ones, then copied in; a
        refusal leaves the state as it was."""
        if data is None:
            raise InvalidError("no bytes")
        raw = bytes(args.byte_view(data, "bytes"))
        buf = np.frombuffer(raw, dtype=np.uint8)        # a copy, so aligned whatever the caller's
        c = Container(buf, FileKind.saved_state, STATE_FORMAT_VERSION, STATE_FORMAT_MINOR,
                      STATE_KNOWN, required=tuple(STATE_KNOWN))
        s = self.set
        n, j = s.bone_count, s.joint_count
        c.array(b"SPSH", "u1", (STATE_HEAD.size,))
        at = c.offset_of(b"SPSH")
        abi, reserved, identity, bones, joints = STATE_HEAD.unpack_from(buf, at)
        if abi != ABI_VERSION:
            raise VersionError(f"a state saved by ABI version {abi}; this library is {ABI_VERSION}")
        for value, want, where in ((reserved, 0, 4), (identity, s.identity, 8), (bones, n, 16),
                                   (joints, j, 20)):
            if value != want:
                raise FormatError("a state of another spring set", at + where)
        v = c.array(b"SPSV", "<f8", (_value_count(n, j),))
        with np.errstate(all="ignore"):
            _check_values(v, n, j, s, c.offset_of(b"SPSV"))
        c.finish()
        self.values[...] = v


def _check_values(v: np.ndarray, n: int, j: int, s: SpringSet, at: int) -> None:
    """Every value finite in binary32's range (the inputs' and the motion's), in its range,
    rotations of unit length, zeros where there is no last call or no motion (and in the
    tails of every chain's end)."""
    A = kernels
    bad = ~(np.abs(v) <= args.F32_MAX)
    k = _first(bad)
    if k is None:
        h = 1.0 / s.step_rate
        bad[0] = not 0.0 <= v[0] < h
        bad[1:3] = (v[1:3] != 0.0) & (v[1:3] != 1.0)
        bad[2] |= v[2] == 1.0 and v[1] == 0.0
        bad[3] = v[3] != 0.0
        bad[A.AT_FORCE + 3:A.AT_LOCALS] = v[A.AT_FORCE + 3:A.AT_LOCALS] != 0.0
        last = np.r_[A.AT_PLACEMENT:A.AT_FORCE + 3, A.AT_LOCALS:A.AT_LOCALS + 10 * n]
        if v[1] == 0.0:
            bad[last] |= v[last] != 0.0
        else:
            rotations = np.r_[A.AT_PLACEMENT + 3,
                              A.AT_LOCALS + 3 + 10 * np.arange(n)]
            for r in rotations:
                bad[r] |= not abs(math.sqrt(float(v[r:r + 4] @ v[r:r + 4])) - 1.0) \
                    <= STATE_UNIT_TOLERANCE
        tails = A.AT_LOCALS + 10 * n
        ends = np.zeros(j, dtype=bool)
        for first, count, *_ in s.springs.tolist():
            ends[first + count - 1] = True
        zero = ends[:, None] | (v[2] == 0.0)
        bad[tails:] |= (zero & (v[tails:].reshape(j, 6) != 0.0)).reshape(-1)
        k = _first(bad)
    if k is not None:
        raise FormatError("a state value out of range", at + 8 * k)
