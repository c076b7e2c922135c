"""Compressing a full-precision clip (maniCompressClip): Frechette's uniformly sampled
algorithm with variable bit rates and range reduction, as ACL does it, into the sections
clip/compressed.py lays out and checks.

Every track of every tracked bone (translation, rotation, scale) and every float track is
folded when it can be: a default track (a part no channel animates, or one at the skeleton's
rest at every sample, an additive clip's identity, a float track's 0) is not stored; a
constant one is stored once. Rotations are kept with w at or above 0 (the sign fixed) and w
dropped. Each animated component is normalized over its range in the clip, the samples cut
into segments of about SEGMENT_SAMPLES, each component's range narrowed again within each
segment (in 255ths of the clip's), and per segment each track takes the fewest bits
(compress_kernels.BIT_RATES) that keep every bone's shell and every float track within its
tolerance at every sample: a bone's shell is the six virtual vertices at the shell distance
on its axes, measured in model space against the full clip's, so an ancestor's error counts
at every descendant (compress_kernels.choose_bone_rates). The search measures the values as
the clip decodes them, so a compressed clip sampled at a sample time plays what it chose.

Units: the precision and shell distance are in the skeleton's units. The defaults (0.0001 at
0.03) are 0.1 mm at 3 cm for a rig in metres; a rig in centimetres keeps the same physical
bound with both a hundred times larger (0.01 at 3).

The decisions are binary64 and binary32 arithmetic in a fixed order in compiled code, with
no reduction whose order a library picks, so the same clip gives the same bytes on every
platform.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

import numpy as np

from . import compress_kernels as ck
from .clip import (AT_ENCODING, AT_SEGMENTS, FORMAT_MINOR, FORMAT_VERSION, KNOWN, Clip,
                   Encoding, PART_R, PART_S, PART_T, is_open)
from .compressed import TAGS, PAD, track_widths
from ..core import args, container
from ..core.builder import Builder
from ..core.container import Container, FileKind, Section
from ..core.errors import InvalidError
from ..core.limits import NO_BONE, NO_TRACK
from ..core.transform import IDENTITY
from ..pose.skeleton import Skeleton

SEGMENT_SAMPLES = 16        # ACL's ideal: ranges tight enough, few enough segment headers
SHARE = 0.5                 # of the precision a component may spend alone, before the chains


@dataclass
class CompressOptions:
    """maniCompressOptions: the bounds, in the skeleton's units (see the module's note)."""

    precision: float = 0.0001
    shell_distance: float = 0.03
    float_tolerance: float = 0.00001


def default_compress_options() -> CompressOptions:
    """maniDefaultCompressOptions."""
    return CompressOptions()


@dataclass
class CompressReport:
    """maniCompressReport: the sizes, the bit rates chosen and the worst errors measured on the
    compressed clip as it decodes (shell errors in the skeleton's units, float tracks as
    absolute differences)."""

    raw_bytes: int = 0              # 10 binary32 a bone a sample, one a float track a sample
    full_bytes: int = 0             # the full clip's file
    compressed_bytes: int = 0       # the compressed clip's file
    stream_bytes: int = 0           # its bit stream
    segments: int = 0
    default_tracks: int = 0
    constant_tracks: int = 0
    animated_tracks: int = 0
    worst_error: float = 0.0
    worst_bone: int = NO_BONE
    worst_sample: int = 0
    worst_float_error: float = 0.0
    worst_float_track: int = NO_TRACK
    worst_float_sample: int = 0
    # segment tracks at each rate of compress_kernels.BIT_RATES
    histogram: np.ndarray = field(default_factory=lambda: np.zeros(ck.BIT_RATES.size, np.int64))

    @property
    def ratio(self) -> float:
        return self.raw_bytes / self.compressed_bytes if self.compressed_bytes else 0.0


def compress_clip(builder: Builder, clip: Clip, skeleton: Skeleton,
                  options: CompressOptions) -> CompressReport:
    """maniCompressClip: compresses the clip into the builder, in place of any file before.

    No builder, clip, skeleton or options (default_compress_options() gives the defaults),
    or a bound not finite and above 0, is a misuse; a compressed clip or another skeleton's
    is refused without one (the clip's file decides them).
    """
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    builder.enter()
    if not is_open(clip) or not isinstance(skeleton, Skeleton):
        raise builder.refuse("no opened clip or no opened skeleton")
    if not isinstance(options, CompressOptions):
        raise builder.refuse("options are not CompressOptions")
    try:
        bounds = [args.real(getattr(options, k), k) for k in
                  ("precision", "shell_distance", "float_tolerance")]
    except InvalidError:
        builder.misuse += 1
        raise
    for name, value in zip(("precision", "shell_distance", "float_tolerance"), bounds):
        if not (math.isfinite(value) and value > 0):
            raise builder.refuse(f"{name} {value} not finite and above 0")
    data, report = compress(clip, skeleton, CompressOptions(*bounds))
    builder.keep(data, "clip")
    return report


def compress(clip: Clip, skeleton: Skeleton, options: CompressOptions) -> tuple[bytes, CompressReport]:
    """The compressed file and its report (compress_clip's work, its arguments checked but for
    the clip against the skeleton)."""
    if clip.is_compressed:
        raise InvalidError("the clip is compressed already")
    bound = clip._skeleton(skeleton)            # refuses another skeleton's clip
    n = skeleton.bone_count
    s, b, f = clip.sample_count, clip.tracked_bone_count, clip.float_track_count
    bones = clip.tracked_bones
    samples = np.ascontiguousarray(clip.samples, dtype=np.float32)
    floats = np.ascontiguousarray(clip.decoded_floats(), dtype=np.float32)
    base = (np.tile(IDENTITY, (b, 1)) if clip.is_additive else skeleton.rests[bones]).astype(np.float32)
    parts = clip._parts

    kinds, consts, animated = _fold(samples, floats, base, parts)
    a = len(animated)
    starts = _segments(s)
    g = starts.size - 1
    values, kept, ranges, drops, dropped = _kept_components(animated, starts, b)
    normal, seg_ranges = _normalized(values, kept, ranges, starts)
    srange = _segment_ranges(normal, starts)

    # the search, segment by segment
    raw_locals = np.empty((s, n, 10), dtype=np.float32)
    raw_locals[...] = IDENTITY if clip.is_additive else skeleton.rests
    raw_locals[:, bones] = samples
    parents = _parents(skeleton)
    ends = skeleton.ends.astype(np.int64)
    raw_model = np.empty((s, n, 3, 4))
    ck.compose_models(parents, raw_locals, raw_model)
    widths = np.array([1 if t >= 3 * b else 3 for t, _ in animated], dtype=np.int64)
    comp = np.concatenate([[0], np.cumsum(widths)])[:-1].astype(np.int64)
    is_bone = np.array([t < 3 * b for t, _ in animated], dtype=bool)
    track_of = np.array([t for t, _ in animated], dtype=np.int64)
    table = np.zeros((int(is_bone.sum()), 4), dtype=np.int64)
    table[:, 0] = bones[track_of[is_bone] // 3]
    table[:, 1] = track_of[is_bone] % 3
    table[:, 2] = comp[is_bone]
    float_comps = comp[~is_bone]
    cs = values.shape[1]
    rates = np.zeros((g, cs), dtype=np.uint8)
    drop_at = comp[is_bone & (track_of % 3 == 1)]     # a rotation's first kept component
    for k in range(g):
        lo, hi = int(starts[k]), int(starts[k + 1])
        table[:, 3] = drops[k, is_bone]
        chosen = np.zeros(cs, dtype=np.int64)
        if table.shape[0]:
            ck.choose_bone_rates(parents, ends, raw_locals[lo:hi], raw_model[lo:hi], table,
                                 values[lo:hi], normal[lo:hi], seg_ranges[k], srange[k],
                                 float(options.precision), SHARE, float(options.shell_distance),
                                 chosen)
        if float_comps.size:
            ck.choose_float_rates(float_comps, values[lo:hi], normal[lo:hi], seg_ranges[k], srange[k],
                                  float(options.float_tolerance), chosen)
        chosen[drop_at] |= drops[k, is_bone & (track_of % 3 == 1)].astype(np.int64) << ck.DROP_SHIFT
        rates[k] = chosen

    # the stream
    raw = rates & ck.RATE_MASK
    exact = ((raw[:, drop_at] == ck.RAW) & (raw[:, drop_at + 1] == ck.RAW)
             & (raw[:, drop_at + 2] == ck.RAW)).sum(axis=1)
    bps = ck.BIT_RATES[raw].sum(axis=1) + 32 * exact
    seg_bytes = (np.diff(starts) * bps + 7) // 8
    seg_at = np.concatenate([[0], np.cumsum(seg_bytes)]).astype(np.int64)
    stream = np.zeros(int(seg_at[-1]) + PAD, dtype=np.uint8)
    rotation_of = np.full(cs, -1, dtype=np.int64)
    rotation_of[drop_at + 2] = drop_at
    ck.pack(starts, rates, values, normal, srange, rotation_of, dropped, seg_at, stream)

    data = _write(clip, kinds, consts, ranges, starts, rates, srange, stream)
    report = _measure(data, clip, skeleton, options, raw_model, floats)
    report.raw_bytes = 40 * n * s + 4 * f * s
    report.full_bytes = int(clip.data.size)
    report.compressed_bytes = len(data)
    report.stream_bytes = int(stream.size)
    report.segments = g
    report.default_tracks = int((kinds == ck.KIND_DEFAULT).sum())
    report.constant_tracks = int((kinds == ck.KIND_CONSTANT).sum())
    report.animated_tracks = a
    report.histogram = np.bincount((rates & ck.RATE_MASK).reshape(-1),
                                   minlength=ck.BIT_RATES.size).astype(np.int64)
    return data, report


# ---- the steps -----------------------------------------------------------------------------
def _fold(samples, floats, base, parts):
    """Each track's kind, the constants in track order, and each animated track with its
    values at every sample: [(track, (S, 3, 4 or 1) binary32)]."""
    s, b = samples.shape[:2]
    f = floats.shape[1]
    kinds = np.zeros(3 * b + f, dtype=np.uint8)
    consts, animated = [], []
    cols = (slice(0, 3), slice(3, 7), slice(7, 10))
    for r in range(b):
        for p, (bit, sl) in enumerate(zip((PART_T, PART_R, PART_S), cols)):
            x = samples[:, r, sl]
            if not parts[r] & bit or (x == base[r, sl]).all():
                continue
            constant = (x == x[0]).all()
            kinds[3 * r + p] = ck.KIND_CONSTANT if constant else ck.KIND_ANIMATED
            if constant:
                consts.append(x[0])
            else:
                animated.append((3 * r + p, x))
    for t in range(f):
        x = floats[:, t:t + 1]
        if (x == 0).all():
            continue
        constant = (x == x[0]).all()
        kinds[3 * b + t] = ck.KIND_CONSTANT if constant else ck.KIND_ANIMATED
        if constant:
            consts.append(x[0])
        else:
            animated.append((3 * b + t, x))
    consts = np.concatenate(consts).astype(np.float32) if consts else np.zeros(0, np.float32)
    return kinds, consts, animated


def _kept_components(animated, starts: np.ndarray, b: int):
    """What the stream holds: (S, C) the kept components' values; (S, C) each one's place in
    the clip ranges; the (R, 2) clip ranges; (G, A) each rotation's dropped component in each
    segment; (S, C) at each rotation's first kept column, its dropped component's value. A rotation drops, segment by segment, the component whose smallest size there
    is the largest (ACL drops w; the largest keeps a rotation near a half turn exact), its
    sign fixed at or above 0 at every sample."""
    s = int(starts[-1])
    g = starts.size - 1
    seg = np.repeat(np.arange(g), np.diff(starts))
    columns, places, ranges, extra = [], [], [], []
    drops = np.zeros((g, len(animated)), dtype=np.uint8)
    for a, (t, x) in enumerate(animated):
        at = len(ranges)
        if t < 3 * b and t % 3 == 1:
            smallest = np.minimum.reduceat(np.abs(x), starts[:-1], axis=0)        # (G, 4)
            drop = np.argmax(smallest, axis=1)
            drops[:, a] = drop
            d = drop[seg]
            sign = np.where(np.take_along_axis(x, d[:, None], axis=1) < 0, np.float32(-1), np.float32(1))
            fixed = x * sign
            keep = np.array([[c for c in range(4) if c != k] for k in range(4)])[d]   # (S, 3)
            columns.append(np.take_along_axis(fixed, keep, axis=1))
            places.append(at + keep)
            lost = np.zeros((s, 3), dtype=np.float32)
            lost[:, 0] = np.take_along_axis(fixed, d[:, None], axis=1)[:, 0]
            extra.append(lost)
            for c in range(4):
                held = fixed[d != c, c]
                ranges.append(_range(held.min(), held.max()) if held.size else (0.0, 0.0))
        else:
            columns.append(x)
            places.append(np.broadcast_to(at + np.arange(x.shape[1]), x.shape))
            extra.append(np.zeros(x.shape, dtype=np.float32))
            ranges += [_range(x[:, c].min(), x[:, c].max()) for c in range(x.shape[1])]
    values = np.ascontiguousarray(np.concatenate(columns, axis=1) if columns else np.zeros((s, 0)),
                                  dtype=np.float32)
    kept = np.concatenate(places, axis=1) if places else np.zeros((s, 0), np.int64)
    table = np.array(ranges, dtype=np.float32).reshape(-1, 2)
    dropped = np.ascontiguousarray(np.concatenate(extra, axis=1) if extra else np.zeros((s, 0)),
                                   dtype=np.float32)
    return values, kept, table, drops, dropped


def _range(lo, hi) -> tuple[np.float32, np.float32]:
    """A binary32 range holding [lo, hi]: the minimum rounded down, the extent up."""
    lo, hi = float(lo), float(hi)
    mn = np.float32(lo)
    if float(mn) > lo:
        mn = np.nextafter(mn, np.float32(-np.inf))
    ext = np.float32(hi - float(mn))
    if float(mn) + float(ext) < hi:
        ext = np.nextafter(ext, np.float32(np.inf))
    return mn, ext


def _normalized(values, kept, ranges, starts):
    """The kept values normalized in their clip ranges (binary64, 0 to 1), and (G, C, 2) the
    clip range of each kept component in each segment, as the search and the stream use."""
    mn = ranges[kept, 0].astype(np.float64)
    ext = ranges[kept, 1].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        normal = np.where(ext > 0, (values - mn) / np.where(ext > 0, ext, 1.0), 0.0)
    seg_ranges = np.ascontiguousarray(ranges[kept[starts[:-1]]], dtype=np.float32)
    return np.ascontiguousarray(np.clip(normal, 0.0, 1.0)), seg_ranges


def _segments(s: int) -> np.ndarray:
    """The segments' first samples, then S: about SEGMENT_SAMPLES each, as even as they go."""
    g = max(1, round(s / SEGMENT_SAMPLES))
    return (np.arange(g + 1, dtype=np.int64) * s) // g


def _segment_ranges(normal: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(G, C, 2) u8: each component's range in each segment, in 255ths of the clip's (the
    minimum rounded down, the maximum up)."""
    g, c = starts.size - 1, normal.shape[1]
    out = np.zeros((g, c, 2), dtype=np.uint8)
    for k in range(g):
        seg = normal[starts[k]:starts[k + 1]]
        if not c:
            continue
        lo = np.clip(np.floor(seg.min(axis=0) * 255.0), 0, 255)
        hi = np.clip(np.ceil(seg.max(axis=0) * 255.0), 0, 255)
        out[k, :, 0] = lo
        out[k, :, 1] = hi - lo
    return np.ascontiguousarray(out)


def _parents(skeleton: Skeleton) -> np.ndarray:
    """Each bone's parent as int64, -1 for a root."""
    p = skeleton.parents.astype(np.int64)
    return np.where(p >= skeleton.bone_count, -1, p)


def _write(clip: Clip, kinds, consts, ranges, starts, rates, srange, stream) -> bytes:
    """The full clip's file with its samples' sections replaced by the compressed ones."""
    c = Container(clip.data, FileKind.clip, FORMAT_VERSION, FORMAT_MINOR, KNOWN)
    new = {b"CKND": kinds.tobytes(), b"CCON": consts.astype("<f4").tobytes(),
           b"CRNG": ranges.astype("<f4").tobytes(), b"CSEG": starts.astype("<u4").tobytes(),
           b"CRAT": rates.tobytes(), b"CSRN": srange.tobytes(), b"CBIT": stream.tobytes()}
    sections = []
    for tag in c.sections:
        if tag == b"SAMP":
            sections += [Section(t, 0, new[t]) for t in TAGS]
        elif tag == b"FSMP":
            continue
        elif tag == b"CLIP":
            head = bytearray(c.raw(tag).tobytes())
            struct.pack_into("<H", head, AT_ENCODING, int(Encoding.compressed))
            struct.pack_into("<I", head, AT_SEGMENTS, starts.size - 1)
            sections.append(Section(tag, 0, bytes(head)))
        else:
            sections.append(Section(tag, 0, c.raw(tag).tobytes()))
    return container.write(FileKind.clip, FORMAT_VERSION, FORMAT_MINOR, sections)


def _measure(data: bytes, clip: Clip, skeleton: Skeleton, options: CompressOptions,
             raw_model: np.ndarray, floats: np.ndarray) -> CompressReport:
    """The compressed clip's worst errors at every sample, as it decodes."""
    out = Clip(data)
    report = CompressReport()
    decoded, _ = out.decoded(skeleton)
    s, n = raw_model.shape[:2]
    lossy = np.empty((s, n, 10), dtype=np.float32)
    lossy[...] = IDENTITY if clip.is_additive else skeleton.rests
    lossy[:, clip.tracked_bones] = decoded
    model = np.empty_like(raw_model)
    ck.compose_models(_parents(skeleton), lossy, model)
    err, bone, sample = ck.worst_shell(model, raw_model, float(options.shell_distance))
    report.worst_error, report.worst_bone, report.worst_sample = float(err), int(bone), int(sample)
    if floats.size:
        diff = np.abs(out.decoded_floats().astype(np.float64) - floats)
        at = int(np.argmax(diff))
        report.worst_float_error = float(diff.reshape(-1)[at])
        report.worst_float_sample, report.worst_float_track = divmod(at, floats.shape[1])
    return report
