"""Poses: a skeleton's local transforms and the model matrices composed from them.

One pose is one buffer the caller may own, with no pointers in it, so copying its bytes
copies the pose:

    offset     size   field
    0          4      magic b"POSE"
    4          4      flags: 1 model current, 2 difference
    8          4      bone count
    12         4      reserved, 0
    16         8      identity of the skeleton
    24         8      reserved, 0
    32         40 n   locals, f32 (n, 10): translation, rotation x y z w, scale
    32 + 40 n  48 n   model, f32 (n, 3, 4)

PoseBatch lays many poses of one skeleton end to end, each a whole pose, so the batched
paths (compose, sample, blend) are one numpy call over all of them.
"""
from __future__ import annotations

import numpy as np

from .errors import CapacityError, FormatError, InvalidError
from .memory import ALIGN, caller_bytes
from .skeleton import Skeleton
from .transform import (IDENTITY, IDENTITY_AFFINE, ROTATION_FROM_OUTER, R, S, T, decompose_affine,
                        rotation_matrices)

MAGIC = np.frombuffer(b"POSE", dtype="<u4")[0]
HEADER_BYTES = 32
MODEL_CURRENT = 1
DIFFERENCE = 2


def pose_size(bone_count: int) -> int:
    """maniSkeleton_GetPoseSize for a skeleton of that many bones."""
    return HEADER_BYTES + 88 * bone_count


def _views(buf: np.ndarray, n: int):
    """Header words, skeleton identity, locals and model over a (..., size) uint8 buffer."""
    lead = buf.shape[:-1]
    head = buf[..., 0:16].view("<u4")
    ident = buf[..., 16:24].view("<u8")
    locals_ = buf[..., HEADER_BYTES:HEADER_BYTES + 40 * n].view("<f4").reshape(lead + (n, 10))
    model = buf[..., HEADER_BYTES + 40 * n:HEADER_BYTES + 88 * n].view("<f4").reshape(lead + (n, 3, 4))
    return head, ident, locals_, model


def _memory(memory, size: int) -> np.ndarray:
    if memory is None:
        return np.zeros(size, dtype=np.uint8)
    buf = caller_bytes(memory, ALIGN)
    if buf.size < size:
        raise CapacityError(f"{buf.size} bytes for a pose of {size}")
    return buf[:size]


def compose_model(skeleton: Skeleton, locals_: np.ndarray, model: np.ndarray,
                  homogeneous: np.ndarray) -> None:
    """One pose's model matrices: each bone's parent's times its local's.

    `homogeneous` is (n + 1, 4, 4) scratch whose bottom rows and last matrix stay the
    identity's; the plan's pointer jumps then compose every bone in a few matmuls.
    """
    n = locals_.shape[0]
    np.multiply(rotation_matrices(locals_[:, R]), locals_[:, None, S], out=homogeneous[:n, :3, :3])
    homogeneous[:n, :3, 3] = locals_[:, T]
    world = homogeneous
    for up in skeleton.plan().jumps:
        world = np.matmul(world[up], world)
    model[...] = world[:n, :3]


def homogeneous_scratch(n: int) -> np.ndarray:
    h = np.zeros((n + 1, 4, 4), dtype=np.float32)
    h[:, 3, 3] = 1
    h[n] = np.eye(4, dtype=np.float32)
    return h


class BatchScratch:
    """The working arrays of compose_model_batch, kept between calls so a frame allocates
    nothing: the poses laid out bone by component by pose, poses innermost."""

    def __init__(self, n: int, m: int):
        self.soa = np.empty((n * 10, m), dtype=np.float32)
        self.outer = np.empty((n, 4, 4, m), dtype=np.float32)
        self.rot = np.empty((n, 9, m), dtype=np.float32)
        self.local = np.empty((n, 3, 4, m), dtype=np.float32)
        self.level = np.empty((n, 3, 4, m), dtype=np.float32)
        self.term = np.empty((n, 3, 4, m), dtype=np.float32)


def compose_model_batch(skeleton: Skeleton, locals_: np.ndarray, model: np.ndarray,
                        scratch: BatchScratch) -> None:
    """Many poses' model matrices at once, as compose_model composes one.

    Every product is an elementwise numpy call over the m poses of a level's bones at once,
    with the poses innermost, instead of m * n tiny matrix products.
    """
    plan = skeleton.plan()
    m, n = locals_.shape[:2]
    np.copyto(scratch.soa, locals_.reshape(m, n * 10).T)
    soa = scratch.soa.reshape(n, 10, m)
    q = soa[:, 3:7]
    np.multiply(q[:, :, None], q[:, None], out=scratch.outer)
    np.matmul(ROTATION_FROM_OUTER.T, scratch.outer.reshape(n, 16, m), out=scratch.rot)
    local = scratch.local
    np.multiply(scratch.rot.reshape(n, 3, 3, m), soa[:, None, 7:10], out=local[:, :, :3])
    local[:, :, 3] = soa[:, 0:3]
    for start, end, parents in plan.spans:
        bones = plan.order[start:end]
        parent, child = local[plan.order[parents]], local[bones]
        k = end - start
        out, term = scratch.level[:k], scratch.term[:k]
        np.multiply(parent[:, :, 0:1], child[:, 0:1], out=out)
        for j in (1, 2):
            np.multiply(parent[:, :, j:j + 1], child[:, j:j + 1], out=term)
            out += term
        out[:, :, 3] += parent[:, :, 3]
        local[bones] = out
    model.reshape(m, n * 12)[...] = local.reshape(n * 12, m).T


class Pose:
    """A pose of one skeleton in one buffer (maniPose)."""

    def __init__(self, skeleton: Skeleton, memory=None):
        _check_skeleton(skeleton)
        n = skeleton.bone_count
        self.buffer = _memory(memory, pose_size(n))
        self._head, self._identity, self.locals, self.model = _views(self.buffer, n)
        self._homogeneous = homogeneous_scratch(n)
        self._head[:] = (MAGIC, 0, n, 0)
        self.buffer[16:24].view("<u8")[0] = skeleton.identity
        self.buffer[24:32] = 0
        try:
            self.set_rest(skeleton)
        except FormatError as exc:
            exc.pose = self
            raise

    @classmethod
    def attach(cls, memory) -> "Pose":
        """A pose over bytes that already hold one (a byte copy of a pose is a pose)."""
        buf = np.frombuffer(memory, dtype=np.uint8)
        if buf.size < HEADER_BYTES or buf[:16].view("<u4")[0] != MAGIC:
            raise InvalidError("not a pose's bytes")
        n = int(buf[:16].view("<u4")[2])
        if buf.size < pose_size(n):
            raise CapacityError("bytes shorter than the pose they hold")
        self = cls.__new__(cls)
        self.buffer = buf[:pose_size(n)]
        self._head, self._identity, self.locals, self.model = _views(self.buffer, n)
        self._homogeneous = homogeneous_scratch(n)
        return self

    # ---- facts
    @property
    def bone_count(self) -> int:
        return int(self._head[2])

    @property
    def skeleton_identity(self) -> int:
        return int(self._identity[0])

    @property
    def is_model_current(self) -> bool:
        return bool(self._head[1] & MODEL_CURRENT)

    @property
    def is_difference(self) -> bool:
        return bool(self._head[1] & DIFFERENCE)

    def of(self, skeleton: Skeleton) -> bool:
        """Whether this is a pose of that skeleton."""
        return skeleton.identity == self._identity[0] and skeleton.bone_count == self._head[2]

    def _set_flags(self, flags: int) -> None:
        self._head[1] = flags

    def mark_stale(self) -> None:
        """Call after writing `locals` directly: the model no longer matches them."""
        self._head[1] &= ~np.uint32(MODEL_CURRENT)

    def mark_kind(self, difference: bool) -> None:
        """Whether the locals now hold a difference; either way the model is stale."""
        self._set_flags(DIFFERENCE if difference else 0)

    # ---- whole pose
    def set_rest(self, skeleton: Skeleton) -> None:
        """maniPose_SetRest: every bone at rest, the model composed."""
        self._require(skeleton)
        self.locals[...] = skeleton.rests
        self._set_flags(0)
        self.compute_model(skeleton)

    def compute_model(self, skeleton: Skeleton) -> None:
        """maniPose_ComputeModel."""
        self._require(skeleton)
        if self.is_difference:
            raise InvalidError("a difference has no model")
        self.mark_stale()           # and so it stays if the skeleton's bytes turn out wrong
        compose_model(skeleton, self.locals, self.model, self._homogeneous)
        self._set_flags(MODEL_CURRENT)

    def copy_from(self, other: "Pose") -> None:
        if other.buffer.size != self.buffer.size:
            raise InvalidError("poses of different sizes")
        self.buffer[...] = other.buffer

    # ---- per bone
    def get_local(self, bone: int) -> np.ndarray:
        if not 0 <= bone < self.bone_count:
            return IDENTITY.copy()
        return self.locals[bone].copy()

    def set_local(self, bone: int, transform) -> None:
        if 0 <= bone < self.bone_count:
            self.locals[bone] = transform
            self.mark_stale()

    def read_locals(self, first: int, count: int, out: np.ndarray | None = None) -> np.ndarray:
        self._range(first, count)
        if out is None:
            return self.locals[first:first + count].copy()
        out[...] = self.locals[first:first + count]
        return out

    def write_locals(self, first: int, transforms) -> None:
        t = np.asarray(transforms, dtype=np.float32).reshape(-1, 10)
        self._range(first, t.shape[0])
        self.locals[first:first + t.shape[0]] = t
        self.mark_stale()

    def get_model(self, bone: int) -> np.ndarray:
        if not 0 <= bone < self.bone_count:
            return IDENTITY_AFFINE.copy()
        return self.model[bone].copy()

    def read_models(self, first: int, count: int, out: np.ndarray | None = None) -> np.ndarray:
        self._range(first, count)
        if out is None:
            return self.model[first:first + count].copy()
        out[...] = self.model[first:first + count]
        return out

    def get_model_transform(self, bone: int) -> np.ndarray:
        """maniPose_GetModelTransform: the model matrix split; identity past the count or
        for a matrix that is not finite."""
        if not 0 <= bone < self.bone_count:
            return IDENTITY.copy()
        try:
            return decompose_affine(self.model[bone])
        except InvalidError:
            return IDENTITY.copy()

    # ---- checks
    def _require(self, skeleton: Skeleton) -> None:
        _check_skeleton(skeleton)
        if not self.of(skeleton):
            raise InvalidError("a pose of another skeleton")

    def _range(self, first: int, count: int) -> None:
        if first < 0 or count < 0 or first + count > self.bone_count:
            raise InvalidError(f"bones {first}..{first + count} past the bone count")


class PoseBatch:
    """Many poses of one skeleton end to end; `poses[i]` is a whole pose over row i."""

    def __init__(self, skeleton: Skeleton, count: int):
        _check_skeleton(skeleton)
        n = skeleton.bone_count
        self.buffer = np.zeros((count, pose_size(n)), dtype=np.uint8)
        self._head, ident, self.locals, self.model = _views(self.buffer, n)
        self._head[:] = (MAGIC, 0, n, 0)
        ident[...] = skeleton.identity
        self.poses = [Pose.attach(self.buffer[i]) for i in range(count)]
        self.skeleton_identity = skeleton.identity
        self._scratch = BatchScratch(n, count)
        self.locals[...] = skeleton.rests
        self.compute_model(skeleton)

    def compute_model(self, skeleton: Skeleton) -> None:
        """Composes every pose of the batch in one pass over the levels."""
        _check_skeleton(skeleton)
        if skeleton.identity != self.skeleton_identity:
            raise InvalidError("a batch of another skeleton")
        if (self._head[:, 1] & DIFFERENCE).any():
            raise InvalidError("a difference has no model")
        compose_model_batch(skeleton, self.locals, self.model, self._scratch)
        self._head[:, 1] = MODEL_CURRENT

    def mark_kind(self, difference: bool, rows=None) -> None:
        """Whether the poses (all, or `rows`) now hold differences; their models are stale."""
        self._head[slice(None) if rows is None else rows, 1] = DIFFERENCE if difference else 0


def _check_skeleton(skeleton) -> None:
    if not isinstance(skeleton, Skeleton):
        raise InvalidError("not an opened skeleton")
