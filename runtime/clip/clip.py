"""Clips: a skeleton's motion as samples on one uniform grid, read in place.

A clip is built offline (clip/build.py) and opened here without copies. Samples lie at
each multiple of the period 1 / rate, the last at the duration, so sampling any time costs
the same: find the two samples around it, read two rows, interpolate them.

The clip file (container kind 2, format version 1), every number little-endian:

    CLIP  header, 64 bytes:
            0  u32  sample count S, 1 to MAX_SAMPLES, = sample_count(duration, rate)
            4  u32  tracked bones B
            8  f32  sample rate, finite and above 0
           12  f32  duration in seconds, finite and at least 0
           16  u64  identity of the skeleton (which also fixes its bone count)
           24  u16  loop policy, u16 additive basis,
                    u16 encoding (0 full precision; room for compressed clips), u16 root motion (0, 1)
           32  u32  float tracks F, discrete tracks D, events E, markers M,
                    distinct event names, distinct marker names
           56  u32  reserved, 0 (two words)
    BONE  u32[B, 2]      each tracked bone (increasing) and the parts its channels animate:
                         1 translation, 2 rotation, 4 scale
    SAMP  f32[S, B, 10]  sample k of tracked bone b, as a pose stores a local: translation,
                         rotation (unit, in the hemisphere of sample k - 1's), scale. A part
                         no channel animates holds the skeleton's rest (an additive clip: the
                         identity) at every sample.
    FMOD  u32[F]         each float track between samples: 0 linear, 1 step
    FSMP  f32[S, F]      float tracks at each sample
    F...  name table of the float tracks (core/names.py: FOFF FNAM FHSH FSRT)
    KTRK  u32[K]         the discrete track of each key: 0, 1, ... D - 1, each at least once,
                         in order (so the keys need no offsets a corruption could shift)
    KTIM  f32[K]         key times, increasing within a track
    KVAL  i32[K]         key values
    D...  name table of the discrete tracks
    ETIM  f32[E]         event times, not decreasing, within [0, duration]
    EIDX  u32[E]         each event's name, in the event name table (names repeat; the
    E...                 table holds each once)
    MTIM, MIDX, M...     the sync markers, as the events
    ROOT  (root motion only) u32 bone, u32 translation axes (1 x, 2 y, 4 z), u32 rotation
          taken (rootmotion.RootRotation), u32 reserved 0
    RMOV  (root motion only) f32[S, 7]: the bone's move at each sample in its parent's frame,
          translation then rotation (unit, hemisphere-continuous)

Every count sizes a section, so a corrupted count is found at the count; the tracked bones
are checked against the skeleton's bone count when a skeleton first samples the clip.

Why this layout: one sample of every tracked bone is one contiguous (B, 10) row laid out
as the pose's locals, so sampling a time is two row reads, a lerp, one normalization of the
rotation columns and (only when some bones are untracked) one scatter; a clip that tracks
every bone lerps straight into the pose. A part no channel animates costs its row space
and buys that: the full-precision clip is the reference, compression (a later encoding)
folds constant parts. Translations, scales and float values stay below MAX_MAGNITUDE so
the difference of two samples is finite, and the nlerp's length comes from each rotation's
dot product with the next, worked out once at the open (see Clip._write).

Sampling reads only within the file: indices come from counts copied at the open, so
bytes changed after it sample to some pose (a writable buffer samples under
np.errstate, a read-only one cannot change).
"""
from __future__ import annotations

import math
import struct
import threading
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from ..core import container, names
from ..core.container import Container, FileKind
from ..core.errors import CapacityError, FormatError, InvalidError
from ..core.limits import MAX_BONES, NO_TRACK
from ..core.memory import caller_bytes
from ..pose.pose import Pose, PoseBatch
from ..pose.skeleton import ROTATION_TOLERANCE, Skeleton
from ..core.transform import IDENTITY

# ---- limits (to move to core/limits.py) -----------------------------------------------------------
MAX_SAMPLES = 1 << 20           # MANI_MAX_SAMPLES: 9.7 hours at 30 Hz, 2.4 hours at 120 Hz
MAX_MAGNITUDE = 2.0 ** 126      # |translation|, |scale| and |float value| stay below this
GRID_SLACK = 1e-4               # a last period shorter than this many periods joins the one before

FORMAT_VERSION = 1
FORMAT_MINOR = 0
HEADER = struct.Struct("<IIffQHHHHIIIIIIII")
KNOWN = {b"CLIP": 0, b"BONE": 0, b"SAMP": 0, b"FMOD": 0, b"FSMP": 0, b"KTRK": 0, b"KTIM": 0,
         b"KVAL": 0, b"ETIM": 0, b"EIDX": 0, b"MTIM": 0, b"MIDX": 0, b"ROOT": 0, b"RMOV": 0,
         **names.tags(b"F"), **names.tags(b"D"), **names.tags(b"E"), **names.tags(b"M")}
OPTIONAL = (b"ROOT", b"RMOV")
REQUIRED = tuple(t for t in KNOWN if t not in OPTIONAL)

# header field offsets, for reports
AT_SAMPLES, AT_TRACKED, AT_RATE, AT_DURATION, AT_LOOP, AT_BASIS, AT_ENCODING, AT_ROOT = \
    0, 4, 8, 12, 24, 26, 28, 30
AT_FLOATS, AT_DISCRETES, AT_EVENTS, AT_MARKERS, AT_EVENT_NAMES, AT_MARKER_NAMES, AT_RESERVED = \
    32, 36, 40, 44, 48, 52, 56

PART_T, PART_R, PART_S = 1, 2, 4
FLOAT_LINEAR, FLOAT_STEP = 0, 1
NO_SAMPLE = 0xFFFFFFFF


class LoopPolicy(IntEnum):
    """maniLoopPolicy: what a player does past the end (sampling always clamps)."""

    clamp = 0
    repeat = 1


class AdditiveBasis(IntEnum):
    """maniAdditiveBasis: what an additive clip's differences are from."""

    none = 0
    rest = 1
    first_frame = 2


class Encoding(IntEnum):
    full = 0            # samples as built: the reference. Compressed encodings come later.


@dataclass(frozen=True)
class ClipEvent:
    """maniClipEvent: a named time (an event, or a sync marker). A zeroed one has name None."""

    name: str | bytes | None = None
    time: float = 0.0


ZERO_EVENT = ClipEvent(None, 0.0)


def sample_count(duration: float, rate: float) -> int:
    """Samples on the grid: one at each multiple of the period below the duration, one at it.

    A last period shorter than GRID_SLACK periods (a duration a rounding away from a
    multiple) joins the one before, so no two samples lie a rounding apart. Past
    MAX_SAMPLES it returns MAX_SAMPLES + 1 without working out how far past.
    """
    x = float(duration) * float(rate)
    if not math.isfinite(x) or x > MAX_SAMPLES:
        return MAX_SAMPLES + 1
    return max(0, math.ceil(x - GRID_SLACK)) + 1


def seconds(time) -> float:
    """A time argument as a float; InvalidError for something that is not a number."""
    try:
        return float(time)
    except (TypeError, ValueError):
        raise InvalidError(f"time {time!r} is not a number") from None


def sample_times(count: int, duration: float, rate: float) -> np.ndarray:
    """The grid's times in binary64, exactly as sampling computes them: k / rate, the last the
    duration (a single sample is at 0)."""
    t = np.arange(count, dtype=np.float64) / float(rate)
    if count > 1:
        t[-1] = float(duration)
    return t


class _Scratch:
    """Per-thread working arrays of one clip's sampling, so a frame allocates nothing and two
    threads sampling one clip never share them."""

    def __init__(self, b: int, f: int):
        self.rows = np.empty((b, 10), dtype=np.float32)
        self.norm = np.empty(b, dtype=np.float32)
        self.norm_col = self.norm[:, None]
        self.weights = np.empty(f, dtype=np.float32)
        self.floats = np.empty(f, dtype=np.float32)


class _BatchScratch:
    """Per-thread working arrays of the batched path for one batch size, kept so a frame
    allocates (and page-faults) nothing."""

    def __init__(self, m: int, b: int):
        self.m = m
        self.a = np.empty((m, b, 10), dtype=np.float32)
        self.v = np.empty((m, b, 10), dtype=np.float32)
        self.length = np.empty((m, b), dtype=np.float32)
        self._full = None

    def full(self, n: int) -> np.ndarray:
        """(m, n, 10): whole poses, for a clip that tracks some of the bones."""
        if self._full is None or self._full.shape[1] != n:
            self._full = np.empty((self.m, n, 10), dtype=np.float32)
        return self._full


class Clip:
    """A clip file opened in place (maniClip)."""

    def __init__(self, data):
        self._opened = False
        with np.errstate(all="ignore"):         # a flipped bit can make a signalling NaN
            self._open(data)
        self._opened = True

    def _open(self, data) -> None:
        buf = container.as_buffer(data)
        c = Container(buf, FileKind.clip, FORMAT_VERSION, FORMAT_MINOR, KNOWN, required=REQUIRED)
        c.array(b"CLIP", "<u1", (HEADER.size,))
        at = c.offset_of(b"CLIP")
        (s, b, rate, duration, skel_id, loop, basis, encoding, root, f, d, e, m, ne, nm,
         r0, r1) = HEADER.unpack_from(buf, at)
        if not 1 <= s <= MAX_SAMPLES:
            raise FormatError(f"sample count {s} out of range", at + AT_SAMPLES)
        if b > MAX_BONES:
            raise FormatError(f"{b} tracked bones past MAX_BONES", at + AT_TRACKED)
        if not (math.isfinite(rate) and rate > 0):
            raise FormatError(f"sample rate {rate} not finite and above 0", at + AT_RATE)
        if not (math.isfinite(duration) and duration >= 0):
            raise FormatError(f"duration {duration} negative or not finite", at + AT_DURATION)
        if loop not in LoopPolicy.__members__.values():
            raise FormatError(f"loop policy {loop} unknown", at + AT_LOOP)
        if basis not in AdditiveBasis.__members__.values():
            raise FormatError(f"additive basis {basis} unknown", at + AT_BASIS)
        if encoding != Encoding.full:
            raise FormatError(f"encoding {encoding} unknown", at + AT_ENCODING)
        if root > 1 or root != c.has(b"ROOT") or root != c.has(b"RMOV"):
            raise FormatError("root motion flag does not match the sections", at + AT_ROOT)
        for k, word in enumerate((r0, r1)):
            if word:
                raise FormatError("reserved field set", at + AT_RESERVED + 4 * k)

        # each count against the sections it sizes, before anything reads them
        c.check_count(b, at + AT_TRACKED, {b"BONE": (8, 0), **({b"SAMP": (40 * s, 0)} if s else {})})
        c.check_count(f, at + AT_FLOATS, {b"FMOD": (4, 0), **names.count_items(b"F")})
        c.check_count(d, at + AT_DISCRETES, names.count_items(b"D"))
        c.check_count(e, at + AT_EVENTS, {b"ETIM": (4, 0), b"EIDX": (4, 0)})
        c.check_count(m, at + AT_MARKERS, {b"MTIM": (4, 0), b"MIDX": (4, 0)})
        c.check_count(ne, at + AT_EVENT_NAMES, names.count_items(b"E"))
        c.check_count(nm, at + AT_MARKER_NAMES, names.count_items(b"M"))
        by_sample = {tag: (size, 0) for tag, size in ((b"SAMP", 40 * b), (b"FSMP", 4 * f),
                                                       (b"RMOV", 28 * root)) if size}
        c.check_count(s, at + AT_SAMPLES, by_sample)
        if sample_count(duration, rate) != s:
            raise FormatError(f"duration {duration} at rate {rate} does not give {s} samples",
                              at + (AT_DURATION if by_sample else AT_SAMPLES))
        keys = _key_count(c)

        bones = c.array(b"BONE", "<u4", (b, 2))
        samples = c.array(b"SAMP", "<f4", (s, b, 10))
        _check_bones(bones, c.offset_of(b"BONE"))
        dots = _check_samples(samples, bones, basis != AdditiveBasis.none, c.offset_of(b"SAMP"))
        modes = c.array(b"FMOD", "<u4", (f,))
        bad = np.flatnonzero(modes > FLOAT_STEP)
        if bad.size:
            raise FormatError("float track interpolation unknown", c.offset_of(b"FMOD", 4 * int(bad[0])))
        floats = c.array(b"FSMP", "<f4", (s, f))
        _check_values(floats, c.offset_of(b"FSMP"))
        self._float_names = names.NameTable(c, b"F", f)

        key_tracks = c.array(b"KTRK", "<u4", (keys,))
        key_times = c.array(b"KTIM", "<f4", (keys,))
        key_values = c.array(b"KVAL", "<i4", (keys,))
        key_off = _check_key_tracks(key_tracks, d, c.offset_of(b"KTRK"))
        _check_key_times(key_times, key_off, c.offset_of(b"KTIM"))
        self._discrete_names = names.NameTable(c, b"D", d)

        self._events = _Named(c, b"E", e, ne, duration)
        self._markers = _Named(c, b"M", m, nm, duration)
        moves = None
        if root:
            head = c.array(b"ROOT", "<u4", (4,))
            r_at = c.offset_of(b"ROOT")
            if head[0] >= MAX_BONES:
                raise FormatError("root motion bone past MAX_BONES", r_at)
            if head[1] > 7:
                raise FormatError("root motion axes unknown", r_at + 4)
            if head[2] > 4:
                raise FormatError("root motion rotation unknown", r_at + 8)
            if head[3]:
                raise FormatError("reserved field set", r_at + 12)
            moves = c.array(b"RMOV", "<f4", (s, 7))
            _check_rotations(moves, c.offset_of(b"RMOV"))
            self._root = tuple(int(v) for v in head[:3])
        else:
            self._root = None
        c.finish()

        # facts, copied out so bytes changed after the open cannot move a read or a write
        self.data = buf
        self.identity = c.identity
        self.skeleton_identity = int(skel_id)
        self.sample_count = s
        self.sample_rate = float(rate)
        self.duration = float(duration)
        self.loop_policy = LoopPolicy(loop)
        self.additive_basis = AdditiveBasis(basis)
        self.is_additive = basis != AdditiveBasis.none
        self.is_compressed = False
        self.tracked_bone_count = b
        self.float_track_count = f
        self.discrete_track_count = d
        self._samples = samples
        self._dots = dots.astype(np.float32)    # for the batched nlerp's lengths
        self._floats = floats
        self._moves = moves
        self._bones = bones[:, 0].astype(np.intp)
        self._parts = bones[:, 1].copy()
        self._reach = max(int(self._bones[-1]) + 1 if b else 0,
                          self._root[0] + 1 if self._root else 0)
        self._step = modes == FLOAT_STEP
        self._linear = (~self._step).astype(np.float32)
        self._has_step = bool(self._step.any())
        self._key_off = key_off
        self._key_times = key_times
        self._key_values = key_values
        self._mutable = buf.flags.writeable
        self._last = s - 1
        self._tls = threading.local()
        self._bound = None              # the skeleton's bone count and what follows from it

    @classmethod
    def open(cls, data) -> "Clip":
        return cls(data)

    # ---- the grid
    def segment(self, time) -> tuple[int, int, float]:
        """The samples around a time clamped to [0, duration] (NaN as 0), and how far from the
        first to the second (0 to 1). A time on the grid gives its own sample with 0."""
        t = seconds(time)
        if not t > 0.0:                 # NaN too
            return (0, 1, 0.0) if self._last else (0, 0, 0.0)
        last, rate = self._last, self.sample_rate
        if t >= self.duration or not last:
            return (last - 1, last, 1.0) if last else (0, 0, 0.0)
        i = int(t * rate)
        if i >= last:
            i = last - 1
        t1 = (i + 1) / rate if i + 1 < last else self.duration
        if t >= t1 and i + 1 < last:
            i += 1
            t1 = (i + 1) / rate if i + 1 < last else self.duration
        t0 = i / rate
        f = (t - t0) / (t1 - t0)
        return i, i + 1, (0.0 if f < 0.0 else 1.0 if f > 1.0 else f)

    def segments(self, times) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """segment() over an array of times: first samples, second samples, float32 fractions."""
        t = np.nan_to_num(np.asarray(times, dtype=np.float64), nan=0.0, posinf=self.duration,
                          neginf=0.0)
        t = np.clip(t, 0.0, self.duration)
        last, rate = self._last, self.sample_rate
        if not last:
            zero = np.zeros(t.shape, dtype=np.intp)
            return zero, zero, np.zeros(t.shape, dtype=np.float32)
        i = np.minimum((t * rate).astype(np.intp), last - 1)
        nxt = i + 1
        i += (nxt < last) & (t >= nxt / rate)     # a time on the grid rounded one sample early
        nxt = i + 1
        t1 = np.where(nxt < last, nxt / rate, self.duration)
        t0 = i / rate
        f = np.clip((t - t0) / (t1 - t0), 0.0, 1.0).astype(np.float32)
        return i, nxt, f

    # ---- sampling
    def _scratch(self) -> _Scratch:
        s = getattr(self._tls, "s", None)
        if s is None:
            s = self._tls.s = _Scratch(self.tracked_bone_count, self.float_track_count)
        return s

    def _skeleton(self, skeleton) -> tuple:
        """Refuses a skeleton that is not the clip's; (bone count, tracked row of each bone or
        -1, identity locals, whether every bone is tracked) for one that is."""
        if not isinstance(skeleton, Skeleton):
            raise InvalidError("not an opened skeleton")
        if skeleton.identity != self.skeleton_identity:
            raise InvalidError("a skeleton that is not the clip's")
        bound = self._bound
        n = skeleton.bone_count
        if bound is None or bound[0] != n:
            if self._reach > n:
                raise InvalidError("a skeleton that is not the clip's (the clip animates bones "
                                   "past it)")
            where = np.full(n, -1, dtype=np.intp)
            where[self._bones] = np.arange(self.tracked_bone_count)
            bound = self._bound = (n, where, np.tile(IDENTITY, (n, 1)),
                                   self.tracked_bone_count == n)
        return bound

    def _batch_scratch(self, m: int) -> "_BatchScratch":
        s = getattr(self._tls, "batch", None)
        if s is None or s.m != m:
            s = self._tls.batch = _BatchScratch(m, self.tracked_bone_count)
        return s

    def check_target(self, skeleton, pose) -> tuple:
        """Refuses a skeleton that is not the clip's, or a pose not of it."""
        bound = self._skeleton(skeleton)
        if not isinstance(pose, Pose):
            raise InvalidError("not a pose")
        if not pose.of(skeleton):
            raise InvalidError("a pose of another skeleton")
        return bound

    def _write(self, a: np.ndarray, b: np.ndarray, i: int, f: float, skeleton: Skeleton,
               bound: tuple, locals_: np.ndarray) -> None:
        """Interpolates two (B, 10) sample rows (samples i and i + 1) into a pose's locals: lerp,
        then the rotation columns normalized (nlerp); untracked bones take the rest (or the
        identity). nlerp's length comes from the samples' dot products, kept at the open:
        |a + f (b - a)|^2 = 1 - c (1 - a.b) with c = 2 f (1 - f), so no reduction runs over
        the strided rotation columns, and a time on the grid reads its sample exactly."""
        s = self._scratch()
        whole = bound[3]
        dst = locals_ if whole else s.rows
        np.subtract(b, a, out=dst)
        np.multiply(dst, f, out=dst)
        np.add(dst, a, out=dst)
        c = 2.0 * f * (1.0 - f)
        if c:
            np.multiply(self._dots[i], c, out=s.norm)
            np.add(s.norm, 1.0 - c, out=s.norm)
            np.sqrt(s.norm, out=s.norm)
            q = dst[:, 3:7]
            np.divide(q, s.norm_col, out=q)
        if not whole:
            np.copyto(locals_, bound[2] if self.is_additive else skeleton.rests)
            locals_[self._bones] = dst

    def sample(self, skeleton: Skeleton, time, out: Pose) -> None:
        """maniClip_Sample: every bone's local at a time (clamped, NaN as 0); the model stale.

        An additive clip writes a difference (untracked bones the identity), any other a pose
        (untracked bones the skeleton's rest).
        """
        bound = self.check_target(skeleton, out)
        i, j, f = self.segment(time)
        if self._mutable:
            with np.errstate(all="ignore"):
                self._write(self._samples[i], self._samples[j], i, f, skeleton, bound, out.locals)
        else:
            self._write(self._samples[i], self._samples[j], i, f, skeleton, bound, out.locals)
        out.mark_kind(self.is_additive)

    def sample_bones(self, skeleton: Skeleton, time, bones, out: Pose) -> None:
        """maniClip_SampleBones: only the given bones (increasing), every other local kept.

        The pose must be of the clip's kind (a difference for an additive clip), since a pose
        holding both kinds would mean nothing; the pose is unchanged on failure.
        """
        n, where, identity, _ = self.check_target(skeleton, out)
        if bones is None:
            raise InvalidError("no bones")
        try:
            sel = np.asarray(bones, dtype=np.int64).reshape(-1)
        except (TypeError, ValueError, OverflowError):
            raise InvalidError("bones not whole numbers") from None
        if sel.size and (sel[0] < 0 or sel[-1] >= n or (np.diff(sel) <= 0).any()):
            raise InvalidError("bones out of range or not increasing")
        if out.is_difference != self.is_additive:
            raise InvalidError("a difference pose for a pose clip, or a pose for an additive clip")
        i, j, f = self.segment(time)
        rows = where[sel]
        tracked = rows >= 0
        with np.errstate(all="ignore"):
            a = self._samples[i][rows[tracked]]
            v = a + np.float32(f) * (self._samples[j][rows[tracked]] - a)
            c = 2.0 * f * (1.0 - f)
            if c:
                v[:, 3:7] /= np.sqrt(1.0 - c + c * self._dots[i][rows[tracked]])[:, None]
        base = identity if self.is_additive else skeleton.rests
        untracked = sel[~tracked]
        out.locals[untracked] = base[untracked]
        out.locals[sel[tracked]] = v
        out.mark_stale()

    def sample_batch(self, skeleton: Skeleton, times, batch: PoseBatch, rows=None) -> None:
        """Samples many poses of one skeleton at their own times in one pass: `times[k]` into
        pose `rows[k]` of the batch (every pose in order without rows). As sample() per pose."""
        n, _, identity, whole = self._skeleton(skeleton)
        if not isinstance(batch, PoseBatch) or batch.skeleton_identity != skeleton.identity \
                or batch.locals.shape[1] != n:
            raise InvalidError("not a batch of the clip's skeleton")
        m = batch.locals.shape[0]
        try:
            t = np.asarray(times, dtype=np.float64).reshape(-1)
            if rows is not None:
                rows = np.asarray(rows, dtype=np.intp).reshape(-1)
        except (TypeError, ValueError, OverflowError):
            raise InvalidError("times and rows are numbers") from None
        if rows is not None:
            if rows.size and (rows.min() < 0 or rows.max() >= m):
                raise InvalidError("rows past the batch")
            if rows.size != t.size:
                raise InvalidError(f"{t.size} times for {rows.size} rows")
        elif t.size != m:
            raise InvalidError(f"{t.size} times for {m} poses")
        i, j, f = self.segments(t)
        sc = self._batch_scratch(t.size)
        a, v, length = sc.a, sc.v, sc.length
        with np.errstate(all="ignore"):
            np.take(self._samples, i, axis=0, out=a, mode="clip")
            np.take(self._samples, j, axis=0, out=v, mode="clip")
            flat_a, flat_v = a.reshape(t.size, -1), v.reshape(t.size, -1)
            np.subtract(flat_v, flat_a, out=flat_v)
            np.multiply(flat_v, f[:, None], out=flat_v)
            np.add(a, v, out=a)     # here rather than in the poses: contiguous passes are faster
            if self._last:
                # nlerp's length from the rows' dot products, without a reduction over the
                # strided rotation columns: |a + f (b - a)|^2 = 1 - c (1 - a.b), c = 2 f (1 - f)
                np.take(self._dots, i, axis=0, out=length, mode="clip")
                c = (2.0 * f * (1.0 - f))[:, None]
                np.multiply(length, c, out=length)
                np.add(length, 1.0 - c, out=length)
                np.sqrt(length, out=length)
                q = a[..., 3:7]
                for k in range(4):
                    np.divide(q[..., k], length, out=q[..., k])
            if not whole:
                full = sc.full(n)
                full[...] = identity if self.is_additive else skeleton.rests
                full[:, self._bones] = a
                a = full
            if rows is None:
                np.copyto(batch.locals, a)
            else:
                batch.locals[rows] = a
        batch.mark_kind(self.is_additive, rows)

    # ---- float tracks
    def float_track_name(self, track: int) -> str | None:
        return self._float_names.name(track)

    def find_float_track(self, name) -> int:
        return NO_TRACK if name is None else self._float_names.find(name)

    def _floats_into(self, a: np.ndarray, b: np.ndarray, f: float, out: np.ndarray) -> None:
        s = self._scratch()
        w = s.weights
        if self._has_step:
            held = 1.0 if f >= 1.0 else 0.0
            np.multiply(self._linear, f - held, out=w)
            np.add(w, held, out=w)
        else:
            w.fill(f)
        np.subtract(b, a, out=s.floats)
        np.multiply(s.floats, w, out=s.floats)
        np.add(s.floats, a, out=out)

    def _float_out(self, out) -> np.ndarray:
        f = self.float_track_count
        if out is None:
            return np.empty(f, dtype=np.float32)
        if not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.ndim != 1:
            raise InvalidError("values must be a one-dimensional float32 array")
        if out.size < f:
            raise CapacityError(f"{out.size} values for {f} tracks", count=f)
        return out

    def sample_floats(self, time, out: np.ndarray | None = None) -> np.ndarray:
        """maniClip_SampleFloats: every float track at a time, clamped as sampling clamps it; a
        linear track interpolates, a step track holds the sample at or before the time. Into
        `out` (float32) when given: CapacityError with .count when it is short, nothing written."""
        dst = self._float_out(out)
        i, j, f = self.segment(time)
        with np.errstate(all="ignore"):
            self._floats_into(self._floats[i], self._floats[j], f, dst[:self.float_track_count])
        return dst

    def sample_floats_batch(self, times) -> np.ndarray:
        """sample_floats at many times at once: (m, F) float32."""
        i, j, f = self.segments(times)
        with np.errstate(all="ignore"):
            a = self._floats[i]
            w = np.where(self._step, (f >= 1.0)[:, None], f[:, None]).astype(np.float32)
            return a + w * (self._floats[j] - a)

    # ---- discrete tracks
    def discrete_track_name(self, track: int) -> str | None:
        return self._discrete_names.name(track)

    def find_discrete_track(self, name) -> int:
        return NO_TRACK if name is None else self._discrete_names.find(name)

    def discrete_value(self, track: int, time) -> int:
        """maniClip_GetDiscreteValue: the last key at or before the time, else the first key
        (NaN as 0); 0 for a track past the count."""
        if not 0 <= track < self.discrete_track_count:
            return 0
        a, b = self._key_off[track], self._key_off[track + 1]
        t = seconds(time)
        k = int(np.searchsorted(self._key_times[a:b], _to_f32(0.0 if math.isnan(t) else t),
                                side="right")) - 1
        return int(self._key_values[a + max(k, 0)])

    # ---- events and markers
    @property
    def event_count(self) -> int:
        return self._events.count

    @property
    def marker_count(self) -> int:
        return self._markers.count

    def event(self, index: int) -> ClipEvent:
        return self._events.get(index)

    def marker(self, index: int) -> ClipEvent:
        return self._markers.get(index)

    def event_range(self, start, end) -> tuple[int, int]:
        """maniClip_GetEventRange: (first, count) of the events a playhead passes from `start`
        to `end`: forward those with start <= time < end, backward those with end < time <=
        start; none for equal times or a NaN. Compared in binary32, as the times are stored."""
        return self._events.range(start, end)

    def marker_range(self, start, end) -> tuple[int, int]:
        """The markers a playhead passes, by event_range's rules."""
        return self._markers.range(start, end)

    # ---- the samples, for samplers of their own (graphs sample many clips at once)
    @property
    def samples(self) -> np.ndarray:
        """The (S, B, 10) samples of the tracked bones, in place."""
        return self._samples

    @property
    def segment_dots(self) -> np.ndarray:
        """(S - 1, B): each sample's rotations dotted with the next's (nlerp's lengths)."""
        return self._dots

    @property
    def tracked_bones(self) -> np.ndarray:
        """The bones the clip tracks, increasing."""
        return self._bones

    # ---- root motion (clip/rootmotion.py reads these)
    @property
    def has_root_motion(self) -> bool:
        return self._root is not None

    @property
    def root_motion_fields(self) -> tuple[int, int, int] | None:
        """(bone, translation axes, rotation) the root motion was taken with, or None."""
        return self._root

    @property
    def moves(self) -> np.ndarray | None:
        """The (S, 7) moves in place, or None."""
        return self._moves

    # ---- cursors
    @property
    def cursor_size(self) -> int:
        """maniClip_GetCursorSize: the header and two decoded samples of bones and floats. The
        scalar backend keeps no second copy in groups of eight bones, so this is also the
        compact size."""
        return CURSOR_HEADER + 8 * (10 * self.tracked_bone_count + self.float_track_count)

    compact_cursor_size = cursor_size


def is_open(clip) -> bool:
    """Whether `clip` is a view an open wrote (the C API's "a view no open wrote")."""
    return isinstance(clip, Clip) and getattr(clip, "_opened", False)


def sample_batch(skeleton: Skeleton, clips, times, batch: PoseBatch, clip_index=None) -> None:
    """Samples a batch of poses in one call: pose k from clips[clip_index[k]] at times[k]
    (one clip for every pose when `clips` is a Clip). One pass per distinct clip."""
    if isinstance(clips, Clip):
        clips.sample_batch(skeleton, times, batch)
        return
    clips = list(clips)
    if clip_index is None:
        raise InvalidError("several clips need a clip index for each pose")
    index = np.asarray(clip_index, dtype=np.int64).reshape(-1)
    t = np.asarray(times, dtype=np.float64).reshape(-1)
    if index.size != t.size or (isinstance(batch, PoseBatch) and t.size != batch.locals.shape[0]):
        raise InvalidError("one time and one clip index for each pose")
    if index.size and (index.min() < 0 or index.max() >= len(clips)):
        raise InvalidError("a clip index past the clips")
    for k, clip in enumerate(clips):
        if not is_open(clip):
            raise InvalidError(f"clip {k} is not an opened clip")
    for k in np.unique(index).tolist():
        rows = np.flatnonzero(index == k)
        clips[k].sample_batch(skeleton, t[rows], batch, rows)


# ---- cursors ---------------------------------------------------------------------------------
CURSOR_MAGIC = 0x52554343       # "CCUR"
CURSOR_HEADER = 64
CURSOR_ALIGN = 8


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
        64            f32 (2, B, 10) bone samples, then f32 (2, F) float samples

    A clip of another identity or view rebinds the cursor, dropping what it held.
    """

    def __init__(self, memory=None, size: int | None = None):
        if memory is None:
            if size is None:
                raise InvalidError("no memory for the cursor")
            memory = np.zeros(int(size), dtype=np.uint8)
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
        b, f = clip.tracked_bone_count, clip.float_track_count
        if u64[2] == clip.identity and u64[3] == id(clip):
            if self._shape != (b, f):
                self._views(b, f)
            return
        if clip.cursor_size > self.size:
            raise CapacityError(f"a cursor of {self.size} bytes for a clip needing "
                                f"{clip.cursor_size}", size=clip.cursor_size)
        u64[2] = clip.identity
        u64[3] = id(clip)
        self._u32[8:12] = NO_SAMPLE
        self._u32[12] = b
        self._u32[13] = f
        self._views(b, f)

    def _views(self, b: int, f: int) -> None:
        body = self.buffer[CURSOR_HEADER:CURSOR_HEADER + 8 * (10 * b + f)].view("<f4")
        self._bone_rows = body[:20 * b].reshape(2, b, 10)
        self._float_rows = body[20 * b:].reshape(2, f)
        self._shape = (b, f)

    def sample(self, clip: Clip, skeleton: Skeleton, time, out: Pose) -> None:
        """maniClipCursor_Sample: as Clip.sample, from the two samples the cursor holds,
        decoding the pair around the time when it holds another."""
        if not is_open(clip):
            raise InvalidError("not an opened clip")
        bound = clip.check_target(skeleton, out)
        self._bind(clip)
        i, j, f = clip.segment(time)
        u32 = self._u32
        if u32[8] != i or u32[9] != j:
            rows = self._bone_rows
            rows[0] = clip._samples[i]
            rows[1] = clip._samples[j]
            u32[8] = i
            u32[9] = j
        rows = self._bone_rows
        if clip._mutable:
            with np.errstate(all="ignore"):
                clip._write(rows[0], rows[1], i, f, skeleton, bound, out.locals)
        else:
            clip._write(rows[0], rows[1], i, f, skeleton, bound, out.locals)
        out.mark_kind(clip.is_additive)

    def sample_floats(self, clip: Clip, time, out: np.ndarray | None = None) -> np.ndarray:
        """maniClipCursor_SampleFloats: as Clip.sample_floats, through the cursor."""
        if not is_open(clip):
            raise InvalidError("not an opened clip")
        dst = clip._float_out(out)
        self._bind(clip)
        i, j, f = clip.segment(time)
        u32 = self._u32
        if u32[10] != i or u32[11] != j:
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
        size = int(size)
        if not 0 <= size <= buf.size:
            raise InvalidError(f"a size of {size} for {buf.size} bytes of memory")
        buf = buf[:size]
    return buf


# ---- open checks -----------------------------------------------------------------------------
class _Named:
    """Events or sync markers: times, and names by index into a table holding each name once."""

    def __init__(self, c: Container, prefix: bytes, count: int, distinct: int, duration: float):
        self.times = c.array(prefix + b"TIM", "<f4", (count,))
        self.index = c.array(prefix + b"IDX", "<u4", (count,))
        self.names = names.NameTable(c, prefix, distinct)
        t_at = c.offset_of(prefix + b"TIM")
        t = self.times.astype(np.float64)
        bad = np.flatnonzero(~(np.isfinite(t) & (t >= 0) & (t <= duration)))
        if bad.size:
            raise FormatError("time not finite or outside the clip", t_at + 4 * int(bad[0]))
        bad = np.flatnonzero(t[1:] < t[:-1])
        if bad.size:
            raise FormatError("times decreasing", t_at + 4 * (int(bad[0]) + 1))
        bad = np.flatnonzero(self.index >= distinct)
        if bad.size:
            raise FormatError("name index past the names", c.offset_of(prefix + b"IDX", 4 * int(bad[0])))
        self.count = count

    def get(self, index: int) -> ClipEvent:
        if not 0 <= index < self.count:
            return ZERO_EVENT
        return ClipEvent(self.names.name(int(self.index[index])), float(self.times[index]))

    def range(self, start, end) -> tuple[int, int]:
        a, b = seconds(start), seconds(end)
        if math.isnan(a) or math.isnan(b) or not self.count:
            return 0, 0
        a32, b32 = _to_f32(a), _to_f32(b)
        if a32 == b32:
            return 0, 0
        side = "left" if a32 < b32 else "right"
        lo, hi = (a32, b32) if a32 < b32 else (b32, a32)
        first = int(np.searchsorted(self.times, lo, side=side))
        last = int(np.searchsorted(self.times, hi, side=side))
        return (first, last - first) if last > first else (0, 0)


F32_MAX = float(np.finfo(np.float32).max)


def _to_f32(x: float) -> np.float32:
    """A time as the C API's float holds it: rounded to binary32, past its range infinite."""
    if math.isfinite(x) and abs(x) > F32_MAX:
        x = math.copysign(math.inf, x)
    return np.float32(x)


def _key_count(c: Container) -> int:
    """The discrete keys: the count at least two of the three key sections agree on (a third
    that disagrees is blamed at its own size field when it is read)."""
    sizes = [c.sections[tag][1] // 4 for tag in (b"KTRK", b"KTIM", b"KVAL")]
    return max(sizes, key=sizes.count)


def _check_key_tracks(tracks: np.ndarray, count: int, at: int) -> np.ndarray:
    """Each key's track: from 0 up by steps of 0 or 1 to count - 1. The keys' offsets, from 0
    to the key count, a private copy."""
    t = tracks.astype(np.int64)
    if t.size:
        step = np.diff(t, prepend=0)
        bad = np.flatnonzero((step < 0) | (step > 1) | (np.arange(t.size) == 0) & (t != 0))
        if bad.size:
            raise FormatError("key tracks not in order, each track keyed", at + 4 * int(bad[0]))
    last = int(t[-1]) + 1 if t.size else 0
    if last != count:
        raise FormatError(f"keys for {last} discrete tracks of {count}",
                          at + 4 * (t.size - 1) if t.size else at)
    return np.searchsorted(t, np.arange(count + 1), side="left").astype(np.intp)


def _check_key_times(times: np.ndarray, off: np.ndarray, at: int) -> None:
    t = times.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(t))
    if bad.size:
        raise FormatError("key time not finite", at + 4 * int(bad[0]))
    starts = np.zeros(t.size + 1, dtype=bool)
    starts[off] = True
    bad = np.flatnonzero((t[1:] <= t[:-1]) & ~starts[1:-1])
    if bad.size:
        raise FormatError("key times not increasing", at + 4 * (int(bad[0]) + 1))


def _check_values(values: np.ndarray, at: int) -> None:
    """Finite and below MAX_MAGNITUDE; reports the first value that is not."""
    flat = values.reshape(-1)
    bad = np.flatnonzero(~(np.abs(flat.astype(np.float64)) < MAX_MAGNITUDE))
    if bad.size:
        raise FormatError("value not finite or too large", at + 4 * int(bad[0]))


def _check_rotations(rows: np.ndarray, at: int) -> np.ndarray:
    """(S, k, 7 or 10)-like rows whose columns 3:7 are rotations (the rest values): finite,
    unit, each in the hemisphere of the previous row's. Returns the (S - 1, k) dot products
    of each rotation with the next."""
    flat = rows.reshape(rows.shape[0], -1, rows.shape[-1])
    _check_values(flat, at)
    width = flat.shape[-1]
    q = flat[..., 3:7].astype(np.float64)
    length = np.sqrt(np.einsum("skc,skc->sk", q, q))
    bad = np.argwhere(np.abs(length - 1) > ROTATION_TOLERANCE)
    if bad.size:
        s, k = bad[0]
        raise FormatError("rotation not of unit length", at + 4 * ((s * flat.shape[1] + k) * width + 3))
    dots = np.einsum("skc,skc->sk", q[1:], q[:-1])
    bad = np.argwhere(dots < -ROTATION_TOLERANCE)
    if bad.size:
        s, k = bad[0]
        raise FormatError("rotation leaves the previous sample's hemisphere",
                          at + 4 * (((s + 1) * flat.shape[1] + k) * width + 3))
    return dots


def _check_bones(bones: np.ndarray, at: int) -> None:
    b = bones[:, 0].astype(np.int64)
    bad = np.flatnonzero(b >= MAX_BONES)
    if bad.size:
        raise FormatError("tracked bone past MAX_BONES", at + 8 * int(bad[0]))
    bad = np.flatnonzero(b[1:] <= b[:-1])
    if bad.size:
        raise FormatError("tracked bones not increasing", at + 8 * (int(bad[0]) + 1))
    parts = bones[:, 1]
    bad = np.flatnonzero((parts == 0) | (parts > 7))
    if bad.size:
        raise FormatError("tracked bone's parts unknown", at + 8 * int(bad[0]) + 4)


def _check_samples(samples: np.ndarray, bones: np.ndarray, additive: bool, at: int) -> np.ndarray:
    """Finite, rotations unit and continuous, and every part no channel animates constant
    (the identity in an additive clip). Returns the rotations' dot products, as
    _check_rotations."""
    dots = _check_rotations(samples, at)
    if not samples.size:
        return dots
    parts = bones[:, 1]
    fixed = np.zeros((bones.shape[0], 10), dtype=bool)
    fixed[:, 0:3] = (parts & PART_T == 0)[:, None]
    fixed[:, 3:7] = (parts & PART_R == 0)[:, None]
    fixed[:, 7:10] = (parts & PART_S == 0)[:, None]
    want = np.broadcast_to(IDENTITY, fixed.shape) if additive else samples[0]
    wrong = (samples != want) & fixed
    if wrong.any():
        s, k, c = np.argwhere(wrong)[0]
        raise FormatError("a part no channel animates changes" if not additive else
                          "a part no channel animates is not the identity",
                          at + 4 * ((int(s) * bones.shape[0] + int(k)) * 10 + int(c)))
    return dots
