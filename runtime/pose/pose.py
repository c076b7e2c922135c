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
paths (compose, sample, blend) are one call over all of them.
"""
from __future__ import annotations

import numpy as np

from ..core import args, threads
from ..core.errors import CapacityError, FormatError, InvalidError
from ..core.jit import kernel
from ..core.memory import caller_block
from .lanes import compose_bone
from .skeleton import Skeleton, opened
from ..core.transform import IDENTITY, IDENTITY_AFFINE, decompose_affine

MAGIC = np.frombuffer(b"POSE", dtype="<u4")[0]
HEADER_BYTES = 32
MODEL_CURRENT = 1
DIFFERENCE = 2
SPAN_POSES = 128        # poses a thread at least, in a batch: a thread's start costs ~20 us


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


def _extent(buf: np.ndarray) -> tuple[int, int]:
    """The addresses [start, end) of a pose's bytes: two poses share memory where theirs
    overlap (np.may_share_memory's bounds, worked out once rather than on every blend)."""
    start = buf.__array_interface__["data"][0]
    return start, start + buf.size


@kernel
def _compose(parents, locals_, model):
    """One pose's model matrices, bone by bone in storage order, which puts every parent
    before its children: a root's is its local's matrix, any other bone's its parent's times
    its local's. Binary32 throughout, as the model is stored.

    The local's block is the quaternion's rotation matrix in its homogeneous form (x^2 + y^2
    + z^2 + w^2 stands in for 1) with column j scaled by s_j. A parent that is not a lower
    index counts as none: Skeleton.check_parents() has refused those already, and the kernel
    then never reads a matrix it has not written."""
    for b in range(locals_.shape[0]):      # in binary32 lanes (pose/lanes.py), same bits
        compose_bone(locals_, model, b, np.int64(parents[b]))


@kernel
def _compose_batch(parents, locals_, model):
    """_compose for each of (poses, n, 10) locals into (poses, n, 3, 4) models: every pose
    by the same operations, so a batch's poses equal the single poses bit for bit, and
    spans of the batch on several threads give the bits of one call."""
    for i in range(locals_.shape[0]):
        _compose(parents, locals_[i], model[i])


class Pose:
    """A pose of one skeleton in one buffer (maniPose)."""

    def __init__(self, skeleton: Skeleton, memory=None):
        opened(skeleton)
        n = skeleton.bone_count
        self.buffer = caller_block(memory, None, pose_size(n), "a pose")[:pose_size(n)]
        self._set_views(n)
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
        self._set_views(n)
        return self

    def _set_views(self, n: int) -> None:
        """The arrays over the buffer, made once: the header's, the locals (also read-only,
        the one type the blend and add kernels read layers as) and the model."""
        self._head, self._identity, self.locals, self.model = _views(self.buffer, n)
        self.read_only_locals = self.locals.view()
        self.read_only_locals.flags.writeable = False
        self.extent = _extent(self.buffer)

    # ---- facts
    @property
    def bone_count(self) -> int:
        return self._head.item(2)

    @property
    def skeleton_identity(self) -> int:
        return self._identity.item(0)

    @property
    def is_model_current(self) -> bool:
        return bool(self._head.item(1) & MODEL_CURRENT)

    @property
    def is_difference(self) -> bool:
        return bool(self._head.item(1) & DIFFERENCE)

    def of(self, skeleton: Skeleton) -> bool:
        """Whether this is a pose of that skeleton, its arrays of the skeleton's bone count
        whatever its header's bytes now say (a kernel's writes rely on it)."""
        n = skeleton.bone_count
        return (skeleton.identity == self._identity.item(0) and n == self._head.item(2)
                and n == len(self.locals))

    def _set_flags(self, flags: int) -> None:
        self._head[1] = flags

    def mark_stale(self) -> None:
        """Call after writing `locals` directly: the model no longer matches them."""
        self._head[1] = self._head.item(1) & ~MODEL_CURRENT

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
        """maniPose_ComputeModel: the checks of _require, then one kernel call. A per-frame
        call: its Python is what the spec's refusals need, each fact read once (an open
        skeleton is one of more than 0 bones; its parents are checked again only where its
        bytes can change)."""
        head = self._head
        n = skeleton.bone_count if isinstance(skeleton, Skeleton) else 0
        if not (n and skeleton.identity == self._identity.item(0) and n == head.item(2)
                and n == len(self.locals)):
            opened(skeleton)
            raise InvalidError("a pose of another skeleton")
        flags = head.item(1)
        if flags & DIFFERENCE:
            raise InvalidError("a difference has no model")
        if skeleton._mutable:
            try:
                skeleton.check_parents()     # FormatError for a parent changed to one not lower
            except FormatError:
                head[1] = flags & ~MODEL_CURRENT
                raise
        _compose(skeleton.parents, self.locals, self.model)
        head[1] = MODEL_CURRENT

    def copy_from(self, other: "Pose") -> None:
        if other.buffer.size != self.buffer.size:
            raise InvalidError("poses of different sizes")
        self.buffer[...] = other.buffer

    # ---- per bone
    def get_local(self, bone: int) -> np.ndarray:
        bone = args.integer(bone, "bone")
        if not 0 <= bone < self.bone_count:
            return IDENTITY.copy()
        return self.locals[bone].copy()

    def set_local(self, bone: int, transform) -> None:
        """A bone past the count is ignored; a transform not of 10 numbers, or with a value
        past the binary32 range, is refused."""
        bone = args.integer(bone, "bone")
        t = args.floats(transform, (10,), "transform", allow_nonfinite=True)
        if 0 <= bone < self.bone_count:
            self.locals[bone] = t
            self.mark_stale()

    def read_locals(self, first: int, count: int, out: np.ndarray | None = None) -> np.ndarray:
        first, count = self._range(first, count)
        if out is None:
            return self.locals[first:first + count].copy()
        out[...] = self.locals[first:first + count]
        return out

    def write_locals(self, first: int, transforms) -> None:
        """Refused (nothing written) for transforms that are not rows of 10 numbers, a value
        past the binary32 range or a range past the bone count."""
        t = args.floats(transforms, (-1, 10), "transforms", allow_nonfinite=True)
        first, _ = self._range(first, t.shape[0])
        self.locals[first:first + t.shape[0]] = t
        self.mark_stale()

    def get_model(self, bone: int) -> np.ndarray:
        bone = args.integer(bone, "bone")
        if not 0 <= bone < self.bone_count:
            return IDENTITY_AFFINE.copy()
        return self.model[bone].copy()

    def read_models(self, first: int, count: int, out: np.ndarray | None = None) -> np.ndarray:
        first, count = self._range(first, count)
        if out is None:
            return self.model[first:first + count].copy()
        out[...] = self.model[first:first + count]
        return out

    def get_model_transform(self, bone: int) -> np.ndarray:
        """maniPose_GetModelTransform: the model matrix split; identity past the count or
        for a matrix that is not finite."""
        bone = args.integer(bone, "bone")
        if not 0 <= bone < self.bone_count:
            return IDENTITY.copy()
        try:
            return decompose_affine(self.model[bone])
        except InvalidError:
            return IDENTITY.copy()

    # ---- checks
    def _require(self, skeleton: Skeleton) -> None:
        opened(skeleton)
        if not self.of(skeleton):
            raise InvalidError("a pose of another skeleton")

    def _range(self, first: int, count: int) -> tuple[int, int]:
        first, count = args.integer(first, "first"), args.integer(count, "count")
        if first < 0 or count < 0 or first + count > self.bone_count:
            raise InvalidError(f"bones {first}..{first + count} past the bone count")
        return first, count


class PoseBatch:
    """Many poses of one skeleton end to end; `poses[i]` is a whole pose over row i."""

    def __init__(self, skeleton: Skeleton, count: int):
        opened(skeleton)
        n = skeleton.bone_count
        self.buffer = np.zeros((count, pose_size(n)), dtype=np.uint8)
        self._head, ident, self.locals, self.model = _views(self.buffer, n)
        self._head[:] = (MAGIC, 0, n, 0)
        ident[...] = skeleton.identity
        self.poses = [Pose.attach(self.buffer[i]) for i in range(count)]
        self.skeleton_identity = skeleton.identity
        self.locals[...] = skeleton.rests
        self.compute_model(skeleton)

    def compute_model(self, skeleton: Skeleton) -> None:
        """Composes every pose of the batch, each as Pose.compute_model composes one."""
        opened(skeleton)
        if skeleton.identity != self.skeleton_identity:
            raise InvalidError("a batch of another skeleton")
        if (self._head[:, 1] & DIFFERENCE).any():
            raise InvalidError("a difference has no model")
        skeleton.check_parents()
        parents, locals_, model = skeleton.parents, self.locals, self.model

        def span(lo, hi):           # each pose on its own: the same bits on any thread count
            _compose_batch(parents, locals_[lo:hi], model[lo:hi])
        threads.run_spans(span, 0, locals_.shape[0], SPAN_POSES)
        self._head[:, 1] = MODEL_CURRENT

    def mark_kind(self, difference: bool, rows=None) -> None:
        """Whether the poses (all, or `rows`) now hold differences; their models are stale."""
        self._head[slice(None) if rows is None else rows, 1] = DIFFERENCE if difference else 0

