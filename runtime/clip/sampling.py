"""Sampling a clip: the grid searched (clip/kernels.py), two samples interpolated into a pose,
a pose's bones, many poses at once, and the float and discrete tracks at a time.

ClipSampling is the sampling half of Clip (clip/clip.py): it reads the arrays the view's open
copied out and checked, so nothing here checks the file again. The batched path and the
single one interpolate alike (lerp, then the rotations normalized by the length the samples'
dot products give), the single one in place in the pose, the batched one over contiguous
(m, B, 10) rows, since contiguous passes are faster than strided ones.
"""
from __future__ import annotations

import math

import numpy as np

from . import compress_kernels as ck
from . import kernels
from ..core import args, jit, threads
from ..core.errors import CapacityError, InvalidError
from ..core.transform import IDENTITY
from ..pose.pose import DIFFERENCE, Pose, PoseBatch
from ..pose.skeleton import Skeleton

F32_MAX = float(np.finfo(np.float32).max)
_NO_DOTS = np.zeros(0, np.float32)      # a clip of one sample's: never read (f is 0)
_NO_ROWS = np.zeros(0, np.intp)         # a batch sampled pose by pose in order
SPAN_POSES = 128                        # poses a thread at least: a thread's start costs ~20 us


def seconds(time, what: str = "time") -> float:
    """A time argument as a float (NaN and infinities pass: each call says what it does with
    them); InvalidError for something that is not a number or an int past the float range."""
    return args.real(time, what)


def to_f32(x: float) -> np.float32:
    """A time as the C API's float holds it: rounded to binary32, past its range infinite."""
    if math.isfinite(x) and abs(x) > F32_MAX:
        x = math.copysign(math.inf, x)
    return np.float32(x)


class _Scratch:
    """Per-thread working arrays of one clip's sampling, so a frame allocates nothing and two
    threads sampling one clip never share them (a compressed clip's two decoded samples and
    their dot products too)."""

    def __init__(self, b: int, f: int):
        self.rows = np.empty((b, 10), dtype=np.float32)
        self.pair = np.empty((2, b, 10), dtype=np.float32)
        self.dots = np.empty(b, dtype=np.float32)
        self.float_pair = np.empty((2, f), dtype=np.float32)
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
        self.order = np.arange(m, dtype=np.intp)
        self._floats = None

    def floats(self, f: int) -> tuple[np.ndarray, np.ndarray]:
        """Two (m, f) arrays: a compressed clip's float samples around each time."""
        if self._floats is None or self._floats[0].shape[1] != f:
            self._floats = (np.empty((self.m, f), np.float32), np.empty((self.m, f), np.float32))
        return self._floats


class ClipSampling:
    """Clip's sampling (maniClip_Sample, SampleBones, SampleFloats, GetDiscreteValue, and the
    batched path), over the arrays its open set: _samples (S, B, 10), _dots (S - 1, B),
    _floats (S, F), _bones, the float tracks' modes and the discrete keys; a compressed clip
    (is_compressed) decodes its rows from _stream (clip/compressed.py) instead, two samples
    at a time, into per-thread scratch."""

    # ---- the grid
    def segment(self, time) -> tuple[int, int, float]:
        """The samples around a time clamped to [0, duration] (NaN as 0), and how far from the
        first to the second (0 to 1). A time on the grid gives its own sample with 0."""
        return kernels.segment(seconds(time), self.sample_rate, self.duration, self._last)

    def segments(self, times) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """segment() over an array of times: first samples, second samples, float32 fractions."""
        t = np.ascontiguousarray(times, dtype=np.float64)
        flat = t.reshape(-1)
        i = np.empty(flat.size, dtype=np.intp)
        j = np.empty(flat.size, dtype=np.intp)
        f = np.empty(flat.size, dtype=np.float32)
        kernels.segments(flat, self.sample_rate, self.duration, self._last, i, j, f)
        return i.reshape(t.shape), j.reshape(t.shape), f.reshape(t.shape)

    # ---- sampling
    def _scratch(self) -> _Scratch:
        s = getattr(self._tls, "s", None)
        if s is None:
            s = self._tls.s = _Scratch(self.tracked_bone_count, self.float_track_count)
        return s

    def _skeleton(self, skeleton) -> tuple:
        """Refuses a skeleton that is not the clip's; (bone count, tracked row of each bone or
        -1, identity locals, whether every bone is tracked, what a compressed clip's default
        parts decode to, what its untracked bones take, the grid's rate, duration and last
        sample for sample_at) for one that is."""
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
            base = (self._stream.base(skeleton.rests, self._bones, self.is_additive)
                    if self.is_compressed else None)
            fill = jit.array(np.tile(IDENTITY, (n, 1)) if self.is_additive else skeleton.rests,
                             np.float32)
            grid = jit.array(np.array([self.sample_rate, self.duration, self._last]), np.float64)
            bound = self._bound = (n, where, np.tile(IDENTITY, (n, 1)),
                                   self.tracked_bone_count == n, base, fill, grid)
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

    def sample(self, skeleton: Skeleton, time, out: Pose) -> None:
        """maniClip_Sample: every bone's local at a time (clamped, NaN as 0); the model stale.

        An additive clip writes a difference (untracked bones the identity), any other a pose
        (untracked bones the skeleton's rest).
        """
        bound = self.check_target(skeleton, out)
        if not self.is_compressed:
            self.sample_full(bound, time, out)
            return
        i, j, f = self.segment(time)
        s = self._scratch()
        self.decode_pair(bound, i, j, s.pair, s.dots)
        self._sample_rows(s.pair[0], s.pair[1], s.dots, f, skeleton, bound, out)

    def sample_full(self, bound: tuple, time, out: Pose) -> None:
        """sample() of a full (uncompressed) clip for a checked target: the grid searched and
        the pair interpolated in one kernel call (ck.sample_at), as _sample_rows would."""
        ck.sample_at(self._samples, self._dots, seconds(time), bound[6], self._bones64, bound[5],
                     out.locals)
        out._head[1] = DIFFERENCE if self.is_additive else 0    # mark_kind: the model stale

    def decode_pair(self, bound: tuple, i: int, j: int, rows: np.ndarray, dots: np.ndarray) -> None:
        """A compressed clip's samples i and j into rows (2, B, 10), j's rotations in i's
        hemisphere, and their dot products into dots (B)."""
        self._stream.pair(bound[4], i, j, rows[0], rows[1], dots)

    def _sample_rows(self, a: np.ndarray, b: np.ndarray, dots, f: float, skeleton: Skeleton,
                     bound: tuple, out: Pose) -> None:
        """sample() from two (B, 10) samples as given (the clip's, decoded ones, or a
        cursor's), with their rotations' dot products (None for a clip of one sample), in
        one compiled pass (compress_kernels.interpolate): lerp, then the rotation columns
        normalized (nlerp); untracked bones take the rest (or the identity). nlerp's length
        comes from the samples' dot products, kept at the open: |a + f (b - a)|^2 =
        1 - c (1 - a.b) with c = 2 f (1 - f), so a time on the grid reads its sample exactly."""
        ck.interpolate(a, b, _NO_DOTS if dots is None else dots, f, self._bones64, bound[5],
                       out.locals)
        out.mark_kind(self.is_additive)

    def sample_bones(self, skeleton: Skeleton, time, bones, out: Pose) -> None:
        """maniClip_SampleBones: only the given bones (increasing), every other local kept.

        The pose must be of the clip's kind (a difference for an additive clip), since a pose
        holding both kinds would mean nothing; the pose is unchanged on failure.
        """
        n, where, identity, _, base, *_ = self.check_target(skeleton, out)
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
            if self.is_compressed:
                a, b, dots = self._decode_bones(base, rows[tracked], i, j)
            else:
                a, b = self._samples[i][rows[tracked]], self._samples[j][rows[tracked]]
                dots = self._dots[i][rows[tracked]] if self._last else None
            v = a + np.float32(f) * (b - a)
            c = 2.0 * f * (1.0 - f)
            if c:
                v[:, 3:7] /= np.sqrt(1.0 - c + c * dots)[:, None]
        base = identity if self.is_additive else skeleton.rests
        untracked = sel[~tracked]
        out.locals[untracked] = base[untracked]
        out.locals[sel[tracked]] = v
        out.mark_stale()

    def _decode_bones(self, base, rows: np.ndarray, i: int, j: int) -> tuple:
        """A compressed clip's samples i and j of the tracked rows given, and no other's, j's
        rotations in i's hemisphere, and their dot products."""
        a = np.empty((rows.size, 10), dtype=np.float32)
        b = np.empty((rows.size, 10), dtype=np.float32)
        dots = np.empty(rows.size, dtype=np.float32)
        self._stream.bones_pair(base, i, j, rows, a, b, dots)
        return a, b, dots

    def sample_batch(self, skeleton: Skeleton, times, batch: PoseBatch, rows=None) -> None:
        """Samples many poses of one skeleton at their own times in one pass: `times[k]` into
        pose `rows[k]` of the batch (every pose in order without rows). As sample() per pose."""
        bound = self._skeleton(skeleton)
        n, base = bound[0], bound[4]
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
        if self.is_compressed:
            with np.errstate(all="ignore"):
                self._stream.pairs(base, i, j, sc.a, sc.v, sc.length)
            tables = (sc.a, sc.v, sc.length, sc.order, sc.order)
        else:
            tables = (self._samples, self._samples, self._dots, i, j)

        def span(lo, hi):
            ck.interpolate_batch(*tables, f, lo, hi, self._bones64, bound[5],
                                 _NO_ROWS if rows is None else rows, batch.locals)
        if rows is None:        # each pose on its own: the same bits on any thread count
            threads.run_spans(span, 0, t.size, SPAN_POSES)
        else:                   # rows may repeat (the last time given wins)
            span(0, t.size)
        batch.mark_kind(self.is_additive, rows)

    # ---- float tracks
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
        a, b = self.float_rows(i, j)
        with np.errstate(all="ignore"):
            self._floats_into(a, b, f, dst[:self.float_track_count])
        return dst

    def float_rows(self, i: int, j: int, into: np.ndarray | None = None):
        """The float tracks at samples i and j: a full clip's rows in place, or a compressed
        clip's decoded (into the (2, F) `into`, or per-thread scratch)."""
        if not self.is_compressed:
            return self._floats[i], self._floats[j]
        pair = self._scratch().float_pair if into is None else into
        self._stream.floats_at(i, pair[0])
        self._stream.floats_at(j, pair[1])
        return pair[0], pair[1]

    def sample_floats_batch(self, times) -> np.ndarray:
        """sample_floats at many times at once: (m, F) float32."""
        i, j, f = self.segments(times)
        if self.is_compressed:
            a = np.empty((i.size, self.float_track_count), np.float32)
            b = np.empty_like(a)
            self._stream.floats_pairs(i.reshape(-1), j.reshape(-1), a, b)
            a, b = a.reshape(i.shape + (-1,)), b.reshape(i.shape + (-1,))
        else:
            a, b = self._floats[i], self._floats[j]
        with np.errstate(all="ignore"):
            w = np.where(self._step, (f >= 1.0)[..., None], f[..., None]).astype(np.float32)
            return a + w * (b - a)

    # ---- discrete tracks
    def discrete_value(self, track: int, time) -> int:
        """maniClip_GetDiscreteValue: the last key at or before the time, else the first key
        (NaN as 0); 0 for a track past the count."""
        track = args.integer(track, "track")
        if not 0 <= track < self.discrete_track_count:
            return 0
        a, b = self._key_off[track], self._key_off[track + 1]
        t = seconds(time)
        k = int(np.searchsorted(self._key_times[a:b], to_f32(0.0 if math.isnan(t) else t),
                                side="right")) - 1
        return int(self._key_values[a + max(k, 0)])

