"""Building clips offline, and measuring a built clip against its source.

The build evaluates every channel of a checked source (clip/source.py: what a source holds,
its keys, and every refusal) at every sample of the grid in binary64 (glTF's LINEAR, with
slerp for rotations, STEP and CUBICSPLINE), takes the root motion out of its bone, takes
differences for an additive clip, keeps each rotation in the hemisphere of the sample
before, and writes the file clip/clip.py reads. The same source builds the same bytes on
every platform.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from ..core import container, names
from ..core.builder import Builder, enter_build
from ..core.container import FileKind, Section
from ..core.errors import BuildReason, InvalidError, LimitError
from ..core.limits import NO_BONE, NO_TRACK
from ..core.transform import IDENTITY, quat_conj, quat_mul, quat_rotate
from ..pose.pose import PoseBatch
from ..pose.skeleton import Skeleton
from .clip import (FLOAT_LINEAR, FLOAT_STEP, FORMAT_MINOR, FORMAT_VERSION, HEADER, MAX_MAGNITUDE,
                   PART_R, PART_S, PART_T, AdditiveBasis, Clip, Encoding, is_open, sample_times)
from .rootmotion import hemisphere_continuous, moves_at, take_out
from .source import (COLUMNS, ChannelPath, ChannelSource, ClipSource, DiscreteTrackSource,
                     FloatTrackSource, Interpolation, _Checked, check, evaluate)

__all__ = ["ChannelPath", "ChannelSource", "ClipReport", "ClipSource", "DiscreteTrackSource",
           "FloatTrackSource", "Interpolation", "build", "build_clip", "check", "measure",
           "measure_clip"]

MEASURE_CHUNK = 512         # times measured per pass, bounding the measurement's memory


@dataclass
class ClipReport:
    """maniClipReport: a clip against its source at every sample and halfway between.

    Errors are distances (translation, scale), angles in radians (rotation) and absolute
    differences (float tracks); means are over every part the source animates at every time
    measured. `*_bone` and `*_time` say where the largest is (NO_BONE / NO_TRACK for none).
    """

    times: int = 0
    translation_max: float = 0.0
    translation_mean: float = 0.0
    translation_bone: int = NO_BONE
    translation_time: float = 0.0
    rotation_max: float = 0.0
    rotation_mean: float = 0.0
    rotation_bone: int = NO_BONE
    rotation_time: float = 0.0
    scale_max: float = 0.0
    scale_mean: float = 0.0
    scale_bone: int = NO_BONE
    scale_time: float = 0.0
    float_max: float = 0.0
    float_mean: float = 0.0
    float_track: int = NO_TRACK
    float_time: float = 0.0



# ---- evaluating a checked source ------------------------------------------------------------------
def _rests(ch: _Checked) -> np.ndarray:
    return ch.skeleton.rests[ch.bones].astype(np.float64)


def _source_locals(ch: _Checked, at: np.ndarray) -> np.ndarray:
    """(m, B, 10) binary64: the tracked bones' locals at the times, rests where no channel."""
    out = np.empty((at.size, ch.bones.size, 10))
    out[...] = _rests(ch)
    for b, path, keys in ch.channels:
        out[:, b, COLUMNS[path]] = evaluate(keys, at)
    return out


def _in_place(ch: _Checked, locals_: np.ndarray) -> np.ndarray | None:
    """Takes the root motion out of its bone in `locals_` (changed in place); the moves.
    Moves the source gives are the grid's, its bone's channels already in place."""
    if ch.root is None:
        return None
    if ch.moves is not None:
        return ch.moves
    b, axes, rotation = ch.root
    moves, t, r = take_out(locals_[:, b, 0:3], locals_[:, b, 3:7], axes, rotation)
    locals_[:, b, 0:3] = t
    locals_[:, b, 3:7] = r
    return moves


def _basis(ch: _Checked) -> np.ndarray:
    """(B, 10) the basis an additive clip's differences are from."""
    if ch.basis == AdditiveBasis.rest:
        return _rests(ch)
    first = _source_locals(ch, np.zeros(1))
    _in_place(ch, first)
    return first[0]


def _differences(ch: _Checked, locals_: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """d_t = t - t_b, d_r = r_b^-1 r, d_s = s / s_b on the animated parts; the identity on the
    others. Refuses (Basis) a difference that is not finite or past MAX_MAGNITUDE."""
    d = np.empty_like(locals_)
    with np.errstate(all="ignore"):
        d[..., 0:3] = locals_[..., 0:3] - basis[:, 0:3]
        q = quat_mul(quat_conj(basis[:, 3:7]), locals_[..., 3:7])
        d[..., 3:7] = q / np.linalg.norm(q, axis=-1, keepdims=True)
        d[..., 7:10] = locals_[..., 7:10] / basis[:, 7:10]
    fixed = _fixed_columns(ch.parts)
    d[:, fixed] = np.broadcast_to(IDENTITY.astype(np.float64), fixed.shape)[fixed]
    bad = ~(np.abs(d) < MAX_MAGNITUDE)
    if bad.any():
        bone = int(ch.bones[np.argwhere(bad)[0][1]])
        raise InvalidError(f"bone {bone}: difference from the basis not finite",
                           reason=BuildReason.Basis, item=bone)
    return d


def _fixed_columns(parts: np.ndarray) -> np.ndarray:
    """(B, 10) True where a part is not animated."""
    fixed = np.zeros((parts.size, 10), dtype=bool)
    fixed[:, 0:3] = (parts & PART_T == 0)[:, None]
    fixed[:, 3:7] = (parts & PART_R == 0)[:, None]
    fixed[:, 7:10] = (parts & PART_S == 0)[:, None]
    return fixed


def _clip_locals(ch: _Checked, at: np.ndarray, basis: np.ndarray | None):
    """What the clip stores at the times: locals in place (differences for an additive clip)
    and the moves (None without root motion), binary64."""
    locals_ = _source_locals(ch, at)
    moves = _in_place(ch, locals_)
    if ch.basis != AdditiveBasis.none:
        locals_ = _differences(ch, locals_, basis)
    return locals_, moves


# ---- the build --------------------------------------------------------------------------------------
def build(source: ClipSource) -> bytes:
    """maniBuildClip's work: the full-precision clip file of a checked source."""
    if not isinstance(source, ClipSource):
        raise InvalidError("not a clip source")
    if not isinstance(source.skeleton, Skeleton):
        raise InvalidError("the source names no opened skeleton")
    ch = check(source)
    grid = sample_times(ch.count, ch.duration, ch.rate)
    basis = _basis(ch) if ch.basis != AdditiveBasis.none else None
    locals_, moves = _clip_locals(ch, grid, basis)
    locals_[..., 3:7] = hemisphere_continuous(locals_[..., 3:7])
    floats = np.empty((ch.count, len(ch.float_keys)))
    for k, keys in enumerate(ch.float_keys):
        floats[:, k] = evaluate(keys, grid)[:, 0]
    with np.errstate(over="ignore"):        # an overshoot past binary32 is refused just below
        samples = locals_.astype("<f4")
        floats32 = floats.astype("<f4")
    _check_stored(ch, samples)
    bad = np.argwhere(~(np.abs(floats32) < MAX_MAGNITUDE))
    if bad.size:
        s, k = bad[0]
        raise InvalidError(f"float track {int(k)} overshoots past MAX_MAGNITUDE",
                           reason=BuildReason.NotFinite, item=len(ch.channels) + int(k),
                           other=int(s))

    skeleton = ch.skeleton
    b, f, d = ch.bones.size, len(ch.float_keys), len(ch.discrete_times)
    events, markers = _named(ch.events), _named(ch.markers)
    header = HEADER.pack(ch.count, b, ch.rate, ch.duration, skeleton.identity,
                         int(ch.loop), int(ch.basis), int(Encoding.full), int(ch.root is not None),
                         f, d, len(ch.events), len(ch.markers), len(events[2]), len(markers[2]),
                         0, 0)
    key_tracks = np.repeat(np.arange(d), [t.size for t in ch.discrete_times]).astype("<u4")
    sections = [
        Section(b"CLIP", 0, header),
        Section(b"BONE", 0, np.stack([ch.bones, ch.parts], axis=1).astype("<u4").tobytes()),
        Section(b"SAMP", 0, samples.tobytes()),
        Section(b"FMOD", 0, np.where(ch.float_step, FLOAT_STEP, FLOAT_LINEAR).astype("<u4").tobytes()),
        Section(b"FSMP", 0, floats32.tobytes()),
        *names.sections(b"F", ch.float_names, ch.float_hashes),
        Section(b"KTRK", 0, key_tracks.tobytes()),
        Section(b"KTIM", 0, b"".join(t.astype("<f4").tobytes() for t in ch.discrete_times)),
        Section(b"KVAL", 0, b"".join(v.astype("<i4").tobytes() for v in ch.discrete_values)),
        *names.sections(b"D", ch.discrete_names, ch.discrete_hashes),
        Section(b"ETIM", 0, events[0]), Section(b"EIDX", 0, events[1]),
        *names.sections(b"E", events[2], [names.hash_name(raw) for raw in events[2]]),
        Section(b"MTIM", 0, markers[0]), Section(b"MIDX", 0, markers[1]),
        *names.sections(b"M", markers[2], [names.hash_name(raw) for raw in markers[2]]),
    ]
    if ch.root is not None:
        _, axes, rotation = ch.root
        sections.append(Section(b"ROOT", 0, struct.pack("<IIII", ch.root_bone, axes, rotation, 0)))
        moves = np.concatenate([moves[:, 0:3], hemisphere_continuous(moves[:, 3:7])], axis=1)
        sections.append(Section(b"RMOV", 0, moves.astype("<f4").tobytes()))
    return container.write(FileKind.clip, FORMAT_VERSION, FORMAT_MINOR, sections)


def _check_stored(ch: _Checked, samples: np.ndarray) -> None:
    """Refuses values binary32 cannot hold below MAX_MAGNITUDE (a CUBICSPLINE overshoot)."""
    bad = np.argwhere(~(np.abs(samples) < MAX_MAGNITUDE))
    if not bad.size:
        return
    s, b, col = (int(v) for v in bad[0])
    path = ChannelPath.translation if col < 3 else ChannelPath.rotation if col < 7 else ChannelPath.scale
    for c, (tb, p, keys) in enumerate(ch.channels):
        if tb == b and p == path:
            raise InvalidError(f"channel {c} past MAX_MAGNITUDE at sample {s}",
                               reason=BuildReason.NotFinite, item=keys.item, other=s)
    bone = int(ch.bones[b])
    raise InvalidError(f"bone {bone}: a value past MAX_MAGNITUDE at sample {s}",
                       reason=BuildReason.Basis if ch.basis else BuildReason.RootMotion, item=bone)


def _named(entries: list[tuple[bytes, float]]) -> tuple[bytes, bytes, list[bytes]]:
    """Times, name indices and the distinct names (in first use) of events or markers."""
    distinct: dict[bytes, int] = {}
    index = [distinct.setdefault(raw, len(distinct)) for raw, _ in entries]
    return (np.array([t for _, t in entries], dtype="<f4").tobytes(),
            np.array(index, dtype="<u4").tobytes(), list(distinct))


def build_clip(builder: Builder, source: ClipSource) -> bytes:
    """maniBuildClip: builds the clip and keeps it in the builder in place of any file before.
    A missing builder, source or skeleton is a misuse; a refused source is not."""
    enter_build(builder, source, ClipSource, skeleton=Skeleton)
    data = build(source)
    builder.keep(data, "clip")
    return data


# ---- measuring ------------------------------------------------------------------------------------
def measure(source: ClipSource, clip: Clip) -> ClipReport:
    """maniBuilder_MeasureClip's work: the clip through its own sampling against the source in
    binary64, at every sample and halfway between. A clip with root motion (not additive)
    is measured with the motion restored to its bone, as a host that keeps it sees it."""
    if not isinstance(source, ClipSource) or not isinstance(source.skeleton, Skeleton):
        raise InvalidError("not a clip source naming an opened skeleton")
    if not is_open(clip):
        raise InvalidError("not an opened clip")
    try:
        ch = check(source)
    except LimitError as exc:
        raise InvalidError(str(exc), reason=exc.reason, item=exc.item, other=exc.other) from None
    skeleton = ch.skeleton
    if clip.skeleton_identity != skeleton.identity:
        raise InvalidError("a clip not of the source's skeleton")
    tracks = [clip.find_float_track(raw) for raw in ch.float_names]
    if NO_TRACK in tracks:
        raise InvalidError(f"the clip lacks float track {ch.float_names[tracks.index(NO_TRACK)]!r}")

    grid = sample_times(ch.count, ch.duration, ch.rate)
    at = np.sort(np.concatenate([grid, 0.5 * (grid[1:] + grid[:-1])]))
    basis = _basis(ch) if ch.basis != AdditiveBasis.none else None
    restore = ch.root is not None and ch.basis == AdditiveBasis.none and ch.moves is None
    masks = [(ch.source_parts & p) != 0 for p in (PART_T, PART_R, PART_S)]
    stats = [_Worst() for _ in range(4)]
    batch = PoseBatch(skeleton, min(MEASURE_CHUNK, at.size))
    for start in range(0, at.size, MEASURE_CHUNK):
        t = at[start:start + MEASURE_CHUNK]
        if restore:
            want = _source_locals(ch, t)
        else:
            want, _ = _clip_locals(ch, t, basis)
        rows = np.arange(t.size)
        clip.sample_batch(skeleton, t, batch, rows)
        got = batch.locals[:t.size][:, ch.bones].astype(np.float64)
        if restore and clip.moves is not None:
            b = ch.root[0]
            m = moves_at(clip, t)
            got[:, b, 0:3] = m[:, :3] + quat_rotate(m[:, 3:], got[:, b, 0:3])
            got[:, b, 3:7] = quat_mul(m[:, 3:], got[:, b, 3:7])
        errors = (np.linalg.norm(got[..., 0:3] - want[..., 0:3], axis=-1),
                  _angle(got[..., 3:7], want[..., 3:7]),
                  np.linalg.norm(got[..., 7:10] - want[..., 7:10], axis=-1))
        for stat, err, mask in zip(stats, errors, masks):
            stat.add(err[:, mask], t, ch.bones[mask])
        if tracks:
            want_f = np.stack([evaluate(k, t)[:, 0] for k in ch.float_keys], axis=1)
            got_f = clip.sample_floats_batch(t)[:, tracks].astype(np.float64)
            stats[3].add(np.abs(got_f - want_f), t, np.arange(len(tracks)))
    report = ClipReport(times=int(at.size))
    for prefix, stat, none in (("translation", stats[0], NO_BONE), ("rotation", stats[1], NO_BONE),
                               ("scale", stats[2], NO_BONE), ("float", stats[3], NO_TRACK)):
        setattr(report, f"{prefix}_max", stat.max)
        setattr(report, f"{prefix}_mean", stat.total / stat.count if stat.count else 0.0)
        where = "track" if prefix == "float" else "bone"
        setattr(report, f"{prefix}_{where}", none if stat.where is None else stat.where)
        setattr(report, f"{prefix}_time", stat.time)
    return report


class _Worst:
    """Running max (with where) and sum of errors over (times, items) blocks."""

    def __init__(self):
        self.max, self.total, self.count, self.where, self.time = 0.0, 0.0, 0, None, 0.0

    def add(self, err: np.ndarray, times: np.ndarray, items: np.ndarray) -> None:
        if not err.size:
            return
        self.total += float(err.sum())
        self.count += err.size
        k = int(np.argmax(err))
        s, i = divmod(k, err.shape[1])
        if self.where is None or err[s, i] > self.max:
            self.max, self.where, self.time = float(err[s, i]), int(items[i]), float(times[s])


def _angle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Angle of the rotation between unit quaternions a and b, in radians."""
    d = quat_mul(quat_conj(a), b)
    return 2.0 * np.arctan2(np.linalg.norm(d[..., :3], axis=-1), np.abs(d[..., 3]))


def measure_clip(builder: Builder, source: ClipSource, clip: Clip) -> ClipReport:
    """maniBuilder_MeasureClip: a missing builder, source or clip is a misuse."""
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    builder.enter()
    if source is None or clip is None:
        raise builder.refuse("no source or no clip")
    return measure(source, clip)
