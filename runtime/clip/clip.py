"""Clips: a skeleton's motion as samples on one uniform grid, read in place.

A clip is built offline (clip/build.py) and opened here without copies: this module is the
view (the open's checks and the getters), clip/sampling.py its sampling and clip/cursor.py
the cursors. Samples lie at each multiple of the period 1 / rate, the last at the duration,
so sampling any time costs the same: find the two samples around it (clip/kernels.py), read
two rows, interpolate them.

The clip file (container kind 2, format version 1), every number little-endian:

    CLIP  header, 64 bytes:
            0  u32  sample count S, 1 to MAX_SAMPLES, = sample_count(duration, rate)
            4  u32  tracked bones B
            8  f32  sample rate, finite and above 0
           12  f32  duration in seconds, finite and at least 0
           16  u64  identity of the skeleton (which also fixes its bone count)
           24  u16  loop policy, u16 additive basis,
                    u16 encoding (0 full precision, 1 compressed), u16 root motion (0, 1)
           32  u32  float tracks F, discrete tracks D, events E, markers M,
                    distinct event names, distinct marker names
           56  u32  segments of a compressed clip (0 for a full one), u32 reserved 0
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

A compressed clip holds clip/compressed.py's sections in place of SAMP and FSMP.

Every count sizes a section, so a corrupted count is found at the count; the tracked bones
are checked against the skeleton's bone count when a skeleton first samples the clip.

Why this layout: one sample of every tracked bone is one contiguous (B, 10) row laid out
as the pose's locals, so sampling a time is two row reads, a lerp, one normalization of the
rotation columns and (only when some bones are untracked) one scatter; a clip that tracks
every bone lerps straight into the pose. A part no channel animates costs its row space
and buys that: the full-precision clip is the reference, compression (clip/compress.py,
the compressed encoding) folds constant parts. Translations, scales and float values stay below MAX_MAGNITUDE so
the difference of two samples is finite, and the nlerp's length comes from each rotation's
dot product with the next, worked out once at the open (see ClipSampling._write).

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
from typing import NamedTuple

import numpy as np

from ..core import args, container, jit, names
from ..core.container import Container, FileKind
from ..core.errors import FormatError, InvalidError
from ..core.limits import MAX_BONES, NO_TRACK
from ..core.transform import IDENTITY
from ..pose.pose import PoseBatch
from ..pose.skeleton import ROTATION_TOLERANCE, Skeleton
from .compressed import TAGS as COMPRESSED_TAGS
from .compressed import Stream
from .sampling import ClipSampling, seconds, to_f32

# ---- limits (to move to core/limits.py) -----------------------------------------------------------
MAX_SAMPLES = 1 << 20           # MANI_MAX_SAMPLES: 9.7 hours at 30 Hz, 2.4 hours at 120 Hz
MAX_MAGNITUDE = 2.0 ** 126      # |translation|, |scale| and |float value| stay below this
GRID_SLACK = 1e-4               # a last period shorter than this many periods joins the one before

FORMAT_VERSION = 1
FORMAT_MINOR = 0
HEADER = struct.Struct("<IIffQHHHHIIIIIIII")
KNOWN = {b"CLIP": 0, b"BONE": 0, b"SAMP": 0, b"FMOD": 0, b"FSMP": 0, b"KTRK": 0, b"KTIM": 0,
         b"KVAL": 0, b"ETIM": 0, b"EIDX": 0, b"MTIM": 0, b"MIDX": 0, b"ROOT": 0, b"RMOV": 0,
         **names.tags(b"F"), **names.tags(b"D"), **names.tags(b"E"), **names.tags(b"M"),
         **{tag: 0 for tag in COMPRESSED_TAGS}}
OPTIONAL = (b"ROOT", b"RMOV")
FULL_ONLY = (b"SAMP", b"FSMP")
REQUIRED = tuple(t for t in KNOWN if t not in OPTIONAL + FULL_ONLY + COMPRESSED_TAGS)

# header field offsets, for reports
AT_SAMPLES, AT_TRACKED, AT_RATE, AT_DURATION, AT_LOOP, AT_BASIS, AT_ENCODING, AT_ROOT = \
    0, 4, 8, 12, 24, 26, 28, 30
AT_FLOATS, AT_DISCRETES, AT_EVENTS, AT_MARKERS, AT_EVENT_NAMES, AT_MARKER_NAMES, AT_RESERVED = \
    32, 36, 40, 44, 48, 52, 56
AT_SEGMENTS = AT_RESERVED

PART_T, PART_R, PART_S = 1, 2, 4
FLOAT_LINEAR, FLOAT_STEP = 0, 1
NO_SAMPLE = 0xFFFFFFFF
CURSOR_HEADER = 64              # a cursor's header, before its two samples (clip/cursor.py)


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
    full = 0            # samples as built: the reference
    compressed = 1      # clip/compress.py's: ranges, segments and bit rates


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



def sample_times(count: int, duration: float, rate: float) -> np.ndarray:
    """The grid's times in binary64, exactly as sampling computes them: k / rate, the last the
    duration (a single sample is at 0)."""
    t = np.arange(count, dtype=np.float64) / float(rate)
    if count > 1:
        t[-1] = float(duration)
    return t


class _Header(NamedTuple):
    """The CLIP header's counts and settings, checked."""

    samples: int
    tracked: int
    rate: float
    duration: float
    skeleton: int
    loop: int
    basis: int
    root: int
    floats: int
    discretes: int
    events: int
    markers: int
    event_names: int
    marker_names: int
    encoding: int
    segments: int


class Clip(ClipSampling):
    """A clip file opened in place (maniClip); its sampling is ClipSampling's."""

    def __init__(self, data):
        self._opened = False
        with np.errstate(all="ignore"):         # a flipped bit can make a signalling NaN
            self._open(data)
        self._opened = True

    def _open(self, data) -> None:
        buf = container.as_buffer(data)
        c = Container(buf, FileKind.clip, FORMAT_VERSION, FORMAT_MINOR, KNOWN, required=REQUIRED)
        h = _read_header(c, buf)
        s, b, f = h.samples, h.tracked, h.floats
        keys = _key_count(c)

        bones = c.array(b"BONE", "<u4", (b, 2))
        _check_bones(bones, c.offset_of(b"BONE"))
        compressed = h.encoding == Encoding.compressed
        if compressed:
            self._stream = Stream(c, buf, bones[:, 1].copy(), s, f, h.segments,
                                  c.offset_of(b"CLIP", AT_SEGMENTS), MAX_MAGNITUDE)
            samples = floats = dots = None
        else:
            self._stream = None
            samples = c.array(b"SAMP", "<f4", (s, b, 10))
            dots = _check_samples(samples, bones, h.basis != AdditiveBasis.none,
                                  c.offset_of(b"SAMP")).astype(np.float32)
        modes = c.array(b"FMOD", "<u4", (f,))
        bad = np.flatnonzero(modes > FLOAT_STEP)
        if bad.size:
            raise FormatError("float track interpolation unknown", c.offset_of(b"FMOD", 4 * int(bad[0])))
        if not compressed:
            floats = c.array(b"FSMP", "<f4", (s, f))
            _check_values(floats, c.offset_of(b"FSMP"))
        self._float_names = names.NameTable(c, b"F", f)

        key_tracks = c.array(b"KTRK", "<u4", (keys,))
        key_times = c.array(b"KTIM", "<f4", (keys,))
        key_values = c.array(b"KVAL", "<i4", (keys,))
        key_off = _check_key_tracks(key_tracks, h.discretes, c.offset_of(b"KTRK"))
        _check_key_times(key_times, key_off, c.offset_of(b"KTIM"))
        self._discrete_names = names.NameTable(c, b"D", h.discretes)

        self._events = _Named(c, b"E", h.events, h.event_names, h.duration)
        self._markers = _Named(c, b"M", h.markers, h.marker_names, h.duration)
        self._root, moves = _read_root_motion(c, s) if h.root else (None, None)
        c.finish()

        # facts, copied out so bytes changed after the open cannot move a read or a write
        self.data = buf
        self.identity = c.identity
        self.skeleton_identity = int(h.skeleton)
        self.sample_count = s
        self.sample_rate = float(h.rate)
        self.duration = float(h.duration)
        self.loop_policy = LoopPolicy(h.loop)
        self.additive_basis = AdditiveBasis(h.basis)
        self.is_additive = h.basis != AdditiveBasis.none
        self.is_compressed = compressed
        self.tracked_bone_count = b
        self.float_track_count = f
        self.discrete_track_count = h.discretes
        # read-only, as the kernels reading them take them (one specialisation)
        self._samples = None if samples is None else jit.array(samples, np.float32)
        self._dots = None if dots is None else jit.array(dots, np.float32)    # nlerp's lengths
        self._floats = floats
        self._moves = moves
        self._bones = bones[:, 0].astype(np.intp)
        self._bones64 = jit.array(self._bones, np.int64)
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
        self._decoded = None            # a compressed clip's samples decoded whole, on demand

    @classmethod
    def open(cls, data) -> "Clip":
        return cls(data)

    # ---- tracks
    def float_track_name(self, track: int) -> str | None:
        return self._float_names.name(track)

    def find_float_track(self, name) -> int:
        return NO_TRACK if name is None else self._float_names.find(name)

    def float_track_is_step(self, track) -> bool:
        """Whether a float track holds between samples (step) rather than interpolating
        (linear); False for a track past the count. A clip made from a clip (a mirrored
        one) keeps each track's interpolation by it."""
        track = args.integer(track, "track")
        return bool(self._step[track]) if 0 <= track < self.float_track_count else False

    def discrete_track_name(self, track: int) -> str | None:
        return self._discrete_names.name(track)

    def discrete_track_keys(self, track) -> tuple[np.ndarray, np.ndarray]:
        """A discrete track's keys as copies: times (binary32, increasing) and int32 values;
        both empty for a track past the count. What a clip made from a clip copies."""
        track = args.integer(track, "track")
        if not 0 <= track < self.discrete_track_count:
            return np.zeros(0, np.float32), np.zeros(0, np.int32)
        a, b = int(self._key_off[track]), int(self._key_off[track + 1])
        return self._key_times[a:b].astype(np.float32), self._key_values[a:b].astype(np.int32)

    def find_discrete_track(self, name) -> int:
        return NO_TRACK if name is None else self._discrete_names.find(name)

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
        """The (S, B, 10) samples of the tracked bones, in place (a full clip's; a compressed
        clip's are decoded for a skeleton: decoded())."""
        if self.is_compressed:
            raise InvalidError("a compressed clip's samples are decoded for its skeleton (decoded)")
        return self._samples

    @property
    def segment_dots(self) -> np.ndarray:
        """(S - 1, B): each sample's rotations dotted with the next's (nlerp's lengths)."""
        if self.is_compressed:
            raise InvalidError("a compressed clip's samples are decoded for its skeleton (decoded)")
        return self._dots

    def decoded(self, skeleton: Skeleton) -> tuple[np.ndarray, np.ndarray]:
        """(samples (S, B, 10), segment dots (S - 1, B)) for a skeleton of the clip: a full
        clip's in place, a compressed clip's decoded whole once (each rotation in the previous
        sample's hemisphere, so they interpolate as a full clip's), for samplers that gather
        rows of many clips at once (a graph's binding)."""
        bound = self._skeleton(skeleton)
        if not self.is_compressed:
            return self._samples, self._dots
        if self._decoded is None:
            self._decoded = self._stream.all(bound[4], self.sample_count)
        return self._decoded

    def decoded_floats(self) -> np.ndarray:
        """(S, F): the float tracks at every sample (a compressed clip's decoded anew)."""
        return self._stream.all_floats(self.sample_count) if self.is_compressed else self._floats

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
        """maniClip_GetCursorSize: the header and two decoded samples of bones and floats (and,
        for a compressed clip, the two bone samples' rotation dot products). The
        scalar backend keeps no second copy in groups of eight bones, so this is also the
        compact size."""
        dots = 4 * self.tracked_bone_count if self.is_compressed else 0
        return CURSOR_HEADER + 8 * (10 * self.tracked_bone_count + self.float_track_count) + dots

    compact_cursor_size = cursor_size

    @property
    def compressed_size(self) -> int:
        """The bytes of a compressed clip's bit stream (0 for a full clip)."""
        return self._stream.bits if self.is_compressed else 0


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


# ---- open checks -----------------------------------------------------------------------------
def _read_header(c: Container, buf) -> _Header:
    """The header's fields, each checked, and every count against the sections it sizes
    (before anything reads them)."""
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
    if encoding not in Encoding.__members__.values():
        raise FormatError(f"encoding {encoding} unknown", at + AT_ENCODING)
    want = COMPRESSED_TAGS if encoding == Encoding.compressed else FULL_ONLY
    other = FULL_ONLY if encoding == Encoding.compressed else COMPRESSED_TAGS
    if all(c.has(tag) == (tag in other) for tag in COMPRESSED_TAGS + FULL_ONLY):
        raise FormatError(f"encoding {encoding}, but the sections of the other", at + AT_ENCODING)
    for tag in COMPRESSED_TAGS + FULL_ONLY:
        if c.has(tag) != (tag in want):
            raise FormatError(f"section {tag!r} {'missing' if tag in want else 'not of the encoding'}",
                              c.size_field(tag) - 16 if c.has(tag) else 10)
    if root > 1 or root != c.has(b"ROOT") or root != c.has(b"RMOV"):
        raise FormatError("root motion flag does not match the sections", at + AT_ROOT)
    if r0 and encoding == Encoding.full:
        raise FormatError("reserved field set", at + AT_RESERVED)
    if r1:
        raise FormatError("reserved field set", at + AT_RESERVED + 4)

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
    return _Header(s, b, rate, duration, skel_id, loop, basis, root, f, d, e, m, ne, nm,
                   encoding, r0)


def _read_root_motion(c: Container, s: int) -> tuple[tuple[int, int, int], np.ndarray]:
    """The ROOT fields (bone, axes, rotation), checked, and the (S, 7) moves."""
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
    return tuple(int(v) for v in head[:3]), moves


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
        index = args.integer(index, "index")
        if not 0 <= index < self.count:
            return ZERO_EVENT
        return ClipEvent(self.names.name(int(self.index[index])), float(self.times[index]))

    def range(self, start, end) -> tuple[int, int]:
        a, b = seconds(start, "start"), seconds(end, "end")
        if math.isnan(a) or math.isnan(b) or not self.count:
            return 0, 0
        a32, b32 = to_f32(a), to_f32(b)
        if a32 == b32:
            return 0, 0
        side = "left" if a32 < b32 else "right"
        lo, hi = (a32, b32) if a32 < b32 else (b32, a32)
        first = int(np.searchsorted(self.times, lo, side=side))
        last = int(np.searchsorted(self.times, hi, side=side))
        return (first, last - first) if last > first else (0, 0)



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
