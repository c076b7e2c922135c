"""Clip cursors: a clip's two decoded samples kept in caller memory between calls, so a player
stepping through one segment decodes it once (maniClipCursor)."""
from __future__ import annotations

import numpy as np

from .clip import CURSOR_HEADER, NO_SAMPLE, Clip, is_open
from ..core import args
from ..core.errors import CapacityError, InvalidError
from ..core.memory import caller_bytes
from ..pose.pose import Pose
from ..pose.skeleton import Skeleton

CURSOR_MAGIC = 0x52554343       # "CCUR"
CURSOR_ALIGN = 8


# the largest cursor any clip needs (MAX_BONES bones and tracks of two binary32 samples),
# with room to spare: a bigger request for new memory is a mistake, not a cursor
MAX_NEW_CURSOR = 1 << 24


class ClipCursor:
    """maniClipCursor: a clip's two decoded samples kept in caller memory between calls.

    The memory holds no pointers, so a byte copy is a cursor too (ClipCursor.attach):

        offset  size  field
        0       4     magic b"CCUR"
        4       4     reserved, 0
        8       8     size of the cursor's memory
        16      8     identity of the bound clip (0: bound to none)
        24      8     the bound view's id(), compared and never followed
        32      8     the samples held for the bones (first, second; NO_SAMPLE for none)
        40      8     the samples held for the float tracks
        48      8     tracked bones and float tracks of the bound clip
        56      8     reserved, 0
        64            f32 (2, B, 10) bone samples, then f32 (2, F) float samples, then for
                      a compressed clip f32 (B) the bone samples' rotation dot products

    A clip of another identity or view rebinds the cursor, dropping what it held.
    """

    def __init__(self, memory=None, size: int | None = None):
        if memory is None:
            if size is None:
                raise InvalidError("no memory for the cursor")
            size = args.count(size, "size")
            if size > MAX_NEW_CURSOR:
                raise InvalidError(f"a cursor of {size} bytes: no clip needs more than {MAX_NEW_CURSOR}")
            memory = np.zeros(size, dtype=np.uint8)
        buf = _cursor_memory(memory, size)
        if buf.size < CURSOR_HEADER:
            raise CapacityError(f"{buf.size} bytes, a cursor needs at least {CURSOR_HEADER}",
                                size=CURSOR_HEADER)
        self.buffer = buf
        self._u32 = buf[:CURSOR_HEADER].view("<u4")
        self._u64 = buf[:CURSOR_HEADER].view("<u8")
        self._u64[:] = 0
        self._u32[0] = CURSOR_MAGIC
        self._u64[1] = buf.size
        self._u32[8:12] = NO_SAMPLE
        self._shape = None

    @classmethod
    def attach(cls, memory) -> "ClipCursor":
        """A cursor over bytes that already hold one."""
        buf = _cursor_memory(memory, None)
        if buf.size < CURSOR_HEADER or buf[:4].view("<u4")[0] != CURSOR_MAGIC:
            raise InvalidError("not a cursor's bytes")
        self = cls.__new__(cls)
        self.buffer = buf
        self._u32 = buf[:CURSOR_HEADER].view("<u4")
        self._u64 = buf[:CURSOR_HEADER].view("<u8")
        self._shape = None
        if int(self._u64[1]) > buf.size:
            raise CapacityError("bytes shorter than the cursor they hold", size=int(self._u64[1]))
        return self

    @classmethod
    def for_clip(cls, clip: Clip) -> "ClipCursor":
        """A cursor in new memory, big enough for the clip."""
        if not is_open(clip):
            raise InvalidError("not an opened clip")
        return cls(None, clip.cursor_size)

    @property
    def size(self) -> int:
        return int(self._u64[1])

    def _bind(self, clip: Clip) -> None:
        """Binds the cursor to the clip unless it is bound to it already; CapacityError (the
        cursor unchanged) when the clip needs more than the cursor's memory."""
        u64 = self._u64
        shape = (clip.tracked_bone_count, clip.float_track_count, clip.is_compressed)
        if u64.item(2) == clip.identity and u64.item(3) == id(clip):     # per frame: items
            if self._shape != shape:
                self._views(*shape)
            return
        if clip.cursor_size > self.size:
            raise CapacityError(f"a cursor of {self.size} bytes for a clip needing "
                                f"{clip.cursor_size}", size=clip.cursor_size)
        u64[2] = clip.identity
        u64[3] = id(clip)
        self._u32[8:12] = NO_SAMPLE
        self._u32[12] = shape[0]
        self._u32[13] = shape[1]
        self._views(*shape)

    def _views(self, b: int, f: int, compressed: bool) -> None:
        end = CURSOR_HEADER + 8 * (10 * b + f) + (4 * b if compressed else 0)
        body = self.buffer[CURSOR_HEADER:end].view("<f4")
        self._bone_rows = body[:20 * b].reshape(2, b, 10)
        self._float_rows = body[20 * b:20 * b + 2 * f].reshape(2, f)
        self._dots = body[20 * b + 2 * f:]
        self._shape = (b, f, compressed)

    def sample(self, clip: Clip, skeleton: Skeleton, time, out: Pose) -> None:
        """maniClipCursor_Sample: as Clip.sample, from the two samples the cursor holds,
        decoding the pair around the time when it holds another; an uncompressed clip's
        bones straight from its samples, as Clip.sample (a copy would cost more than it
        saves), its cursor holding no bone samples."""
        if not is_open(clip):
            raise InvalidError("not an opened clip")
        bound = clip.check_target(skeleton, out)
        self._bind(clip)
        if not clip.is_compressed:      # its samples are at hand: nothing to keep
            clip.sample_full(bound, time, out)
            return
        i, j, f = clip.segment(time)
        u32 = self._u32
        rows = self._bone_rows
        if u32[8] != i or u32[9] != j:
            clip.decode_pair(bound, i, j, rows, self._dots)
            u32[8] = i
            u32[9] = j
        clip._sample_rows(rows[0], rows[1], self._dots, f, skeleton, bound, out)

    def sample_floats(self, clip: Clip, time, out: np.ndarray | None = None) -> np.ndarray:
        """maniClipCursor_SampleFloats: as Clip.sample_floats, through the cursor."""
        if not is_open(clip):
            raise InvalidError("not an opened clip")
        dst = clip._float_out(out)
        self._bind(clip)
        i, j, f = clip.segment(time)
        u32 = self._u32
        if u32[10] != i or u32[11] != j:
            if clip.is_compressed:
                clip.float_rows(i, j, self._float_rows)
            else:
                self._float_rows[0] = clip._floats[i]
                self._float_rows[1] = clip._floats[j]
            u32[10] = i
            u32[11] = j
        with np.errstate(all="ignore"):
            clip._floats_into(self._float_rows[0], self._float_rows[1], f,
                              dst[:clip.float_track_count])
        return dst


def _cursor_memory(memory, size: int | None) -> np.ndarray:
    buf = caller_bytes(memory, CURSOR_ALIGN)
    if size is not None:
        size = args.count(size, "size")
        if not 0 <= size <= buf.size:
            raise InvalidError(f"a size of {size} for {buf.size} bytes of memory")
        buf = buf[:size]
    return buf

