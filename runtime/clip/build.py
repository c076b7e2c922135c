"""Building clips offline, and measuring a built clip against its source.

A clip source keys its channels as glTF does; the build evaluates every channel at every
sample of the grid in binary64 (glTF's LINEAR, with slerp for rotations, STEP and
CUBICSPLINE), takes the root motion out of its bone, takes differences for an additive clip,
keeps each rotation in the hemisphere of the sample before, and writes the file clip/clip.py
reads. The same source builds the same bytes on every platform.

Refusals carry the reason and, as item, a place in the source counted over its lists in
order: bone channels, float tracks, discrete tracks, events, markers (ClipSource.locate
turns an item back into a list and an index). Whole-clip settings use item 0:

    Timing      item 0: other 0 the sample rate not finite or not above 0, other 1 the
                duration negative or not finite; a LimitError with other 2 for more than
                MAX_SAMPLES samples
    Option      item 0 the loop policy, item 1 the additive basis: a value of no such kind
    Joint       a channel's bone past the skeleton (other the bone)
    Channel     a channel or track refused, other: 0 no keys (fewer than two for
                CUBICSPLINE), 1 values that do not fit the times (count, width, or a
                discrete value not a whole int32), 2 key times not finite, negative or not
                increasing, 3 an unknown path or interpolation, 4 a bone and path an
                earlier channel gives
    NotFinite   a value not finite or past MAX_MAGNITUDE, or a rotation key of length 0
                (other the key; a sample for values a CUBICSPLINE overshoots)
    Name, DuplicateName, NameHash   a track's, event's or marker's name (other the
                earlier place); past MAX_NAME_BYTES a LimitError
    Event       an event's or marker's time not finite, negative or past the duration
    RootMotion  item the bone given: other 0 past the skeleton or without a channel, 1
                axes other than x, y, z, 2 a rotation of no such kind
    Basis       item the bone: an additive difference not finite (a basis scale of 0)
"""
from __future__ import annotations

import math
import operator
import struct
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Sequence

import numpy as np

from ..core import container, names
from ..core.builder import Builder, enter_build
from .clip import (FLOAT_LINEAR, FLOAT_STEP, FORMAT_MINOR, FORMAT_VERSION, HEADER, MAX_MAGNITUDE,
                   MAX_SAMPLES, PART_R, PART_S, PART_T, AdditiveBasis, Clip, ClipEvent, Encoding,
                   LoopPolicy, is_open, sample_count, sample_times)
from ..core.container import FileKind, Section
from ..core.errors import BuildReason, InvalidError, LimitError
from ..core.limits import NO_BONE, NO_TRACK
from ..pose.pose import PoseBatch
from .rootmotion import RootMotionSource, RootRotation, hemisphere_continuous, moves_at, take_out
from ..pose.skeleton import Skeleton
from ..core.transform import IDENTITY, quat_conj, quat_mul, quat_rotate

MEASURE_CHUNK = 512         # times measured per pass, bounding the measurement's memory


class Interpolation(IntEnum):
    """How a channel's keys interpolate, as glTF names them."""

    linear = 0
    step = 1
    cubic_spline = 2


class ChannelPath(IntEnum):
    translation = 0
    rotation = 1
    scale = 2


WIDTH = {ChannelPath.translation: 3, ChannelPath.rotation: 4, ChannelPath.scale: 3}
COLUMNS = {ChannelPath.translation: slice(0, 3), ChannelPath.rotation: slice(3, 7),
           ChannelPath.scale: slice(7, 10)}
PART = {ChannelPath.translation: PART_T, ChannelPath.rotation: PART_R, ChannelPath.scale: PART_S}


@dataclass
class ChannelSource:
    """A bone's translation, rotation (x y z w) or scale keyed over time, as a glTF channel.

    `values` holds one value a key, (k, width); for CUBICSPLINE three a key as glTF stores
    them, in-tangent, value, out-tangent: (k, 3, width) or flat (3k, width).
    """

    bone: int
    path: ChannelPath
    times: Sequence[float]
    values: Any
    interpolation: Interpolation = Interpolation.linear


@dataclass
class FloatTrackSource:
    """A named float (a morph weight, a curve) keyed over time; values (k,), or (k, 3) for
    CUBICSPLINE. A STEP track holds between samples; any other interpolates linearly."""

    name: str | bytes
    times: Sequence[float]
    values: Any
    interpolation: Interpolation = Interpolation.linear


@dataclass
class DiscreteTrackSource:
    """A named whole number (int32) held from each key to the next."""

    name: str | bytes
    times: Sequence[float]
    values: Sequence[int]


@dataclass
class ClipSource:
    """maniClipSource: channels on the bones of an opened skeleton (by skeleton index), tracks,
    events and sync markers, and the clip's settings.

    The duration is given, or else the latest time among all keys, events and markers.
    """

    skeleton: Skeleton
    channels: list[ChannelSource] = field(default_factory=list)
    float_tracks: list[FloatTrackSource] = field(default_factory=list)
    discrete_tracks: list[DiscreteTrackSource] = field(default_factory=list)
    events: list[ClipEvent] = field(default_factory=list)
    markers: list[ClipEvent] = field(default_factory=list)
    sample_rate: float = 30.0
    duration: float | None = None
    loop: LoopPolicy = LoopPolicy.clamp
    additive: AdditiveBasis = AdditiveBasis.none
    root_motion: RootMotionSource | None = None

    def locate(self, item: int) -> tuple[str, int]:
        """Which list a refusal's item is in, and its index there."""
        for what, items in (("channel", self.channels), ("float track", self.float_tracks),
                            ("discrete track", self.discrete_tracks), ("event", self.events),
                            ("marker", self.markers)):
            n = len(items or ())
            if item < n:
                return what, item
            item -= n
        return "none", item


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


# ---- keys --------------------------------------------------------------------------------------
@dataclass
class _Keys:
    times: np.ndarray           # (k,) binary64, increasing
    values: np.ndarray          # (k, w), or (k, 3, w) for CUBICSPLINE
    interpolation: Interpolation
    rotation: bool
    item: int


def evaluate(keys: _Keys, at: np.ndarray) -> np.ndarray:
    """The keys at times `at` as glTF defines each interpolation, binary64: before the first
    key its value, after the last the last; rotations normalized (slerp on the short arc for
    LINEAR, the Hermite spline then normalized for CUBICSPLINE)."""
    times, values, mode = keys.times, keys.values, keys.interpolation
    k = times.size
    if mode == Interpolation.step:
        idx = np.clip(np.searchsorted(times, at, side="right") - 1, 0, k - 1)
        return values[idx]
    v = values if mode == Interpolation.linear else values[:, 1]
    if k == 1:
        return np.broadcast_to(v[0], (at.size,) + v.shape[1:]).copy()
    seg = np.clip(np.searchsorted(times, at, side="right") - 1, 0, k - 2)
    t0, t1 = times[seg], times[seg + 1]
    td = (t1 - t0)[:, None]
    s = np.clip((at - t0) / (t1 - t0), 0.0, 1.0)[:, None]
    a, b = v[seg], v[seg + 1]
    if mode == Interpolation.linear:
        if not keys.rotation:
            return (1.0 - s) * a + s * b
        return _slerp(a, b, s)
    s2, s3 = s * s, s * s * s
    out = ((2 * s3 - 3 * s2 + 1) * a + td * (s3 - 2 * s2 + s) * values[seg, 2]
           + (-2 * s3 + 3 * s2) * b + td * (s3 - s2) * values[seg + 1, 0])
    if keys.rotation:
        length = np.linalg.norm(out, axis=1, keepdims=True)
        bad = np.flatnonzero(~(length[:, 0] > 0))
        if bad.size:
            raise InvalidError("a CUBICSPLINE rotation of length 0", reason=BuildReason.NotFinite,
                               item=keys.item, other=int(seg[bad[0]]))
        out = out / length
    return out


def _slerp(a: np.ndarray, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """glTF's rotation LINEAR: angle arccos |a.b|, b taken with the dot's sign (the short arc)."""
    dot = np.einsum("ij,ij->i", a, b)[:, None]
    sign = np.where(dot < 0, -1.0, 1.0)
    angle = np.arccos(np.clip(np.abs(dot), 0.0, 1.0))
    sin = np.sin(angle)
    near = sin < 1e-9
    safe = np.where(near, 1.0, sin)
    w0 = np.where(near, 1.0 - s, np.sin((1.0 - s) * angle) / safe)
    w1 = np.where(near, s, np.sin(s * angle) / safe)
    q = w0 * a + sign * w1 * b
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def _keys(times, values, mode, width: int | None, rotation: bool, item: int) -> _Keys:
    """Checks and shapes one channel's or track's keys (width None: a float track)."""
    try:
        mode = Interpolation(mode)
    except (ValueError, TypeError):
        raise InvalidError(f"item {item}: interpolation {mode!r} unknown",
                           reason=BuildReason.Channel, item=item, other=3) from None
    try:
        t = np.asarray(times, dtype=np.float64).reshape(-1)
        v = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidError(f"item {item}: keys are not numbers", reason=BuildReason.Channel,
                           item=item, other=1) from None
    k = t.size
    if k == 0 or (mode == Interpolation.cubic_spline and k < 2):
        raise InvalidError(f"item {item}: too few keys", reason=BuildReason.Channel, item=item,
                           other=0)
    w = 1 if width is None else width
    per = 3 if mode == Interpolation.cubic_spline else 1
    if v.size != k * per * w:
        raise InvalidError(f"item {item}: {v.size} values for {k} keys", reason=BuildReason.Channel,
                           item=item, other=1)
    v = v.reshape((k, 3, w) if per == 3 else (k, w))
    if not (np.isfinite(t).all() and (t >= 0).all() and (np.diff(t) > 0).all()):
        raise InvalidError(f"item {item}: key times not finite, negative or not increasing",
                           reason=BuildReason.Channel, item=item, other=2)
    good = np.abs(v) < MAX_MAGNITUDE
    bad = np.flatnonzero(~good.reshape(k, -1).all(axis=1))
    if bad.size:
        raise InvalidError(f"item {item}: key {int(bad[0])} not finite",
                           reason=BuildReason.NotFinite, item=item, other=int(bad[0]))
    if rotation and mode != Interpolation.cubic_spline:
        length = np.linalg.norm(v, axis=1)
        bad = np.flatnonzero(~(length > 0))
        if bad.size:
            raise InvalidError(f"item {item}: rotation key {int(bad[0])} of length 0",
                               reason=BuildReason.NotFinite, item=item, other=int(bad[0]))
        v = v / length[:, None]
    return _Keys(t, v, mode, rotation, item)


# ---- checking a source ---------------------------------------------------------------------------
@dataclass
class _Checked:
    """A source the build accepts, in the build's terms."""

    skeleton: Skeleton
    rate: float                     # as stored (binary32), in binary64
    duration: float
    count: int
    loop: LoopPolicy
    basis: AdditiveBasis
    bones: np.ndarray               # tracked bones, increasing
    source_parts: np.ndarray        # the parts the source's channels animate, per tracked bone
    parts: np.ndarray               # the parts the file stores as animated (root motion adds)
    channels: list[tuple[int, ChannelPath, _Keys]]      # (tracked index, path, keys)
    float_names: list[bytes]
    float_hashes: list[int]
    float_keys: list[_Keys]
    float_step: np.ndarray
    discrete_names: list[bytes]
    discrete_hashes: list[int]
    discrete_times: list[np.ndarray]
    discrete_values: list[np.ndarray]
    events: list[tuple[bytes, float]]
    markers: list[tuple[bytes, float]]
    root: tuple[int, int, int] | None   # (tracked index, axes, rotation)
    root_bone: int


def check(source: ClipSource) -> _Checked:
    """Every refusal the build makes, before any work (see the module's table)."""
    skeleton = source.skeleton
    n = skeleton.bone_count
    try:
        rate = float(source.sample_rate)
    except (TypeError, ValueError):
        rate = math.nan
    rate32 = float(np.float32(rate)) if math.isfinite(rate) and abs(rate) < 3e38 else math.nan
    if not (math.isfinite(rate32) and rate32 > 0):
        raise InvalidError(f"sample rate {source.sample_rate!r} not finite and above 0",
                           reason=BuildReason.Timing, item=0, other=0)
    try:
        loop = LoopPolicy(source.loop)
    except (ValueError, TypeError):
        raise InvalidError(f"loop policy {source.loop!r} unknown", reason=BuildReason.Option,
                           item=0) from None
    try:
        basis = AdditiveBasis(source.additive)
    except (ValueError, TypeError):
        raise InvalidError(f"additive basis {source.additive!r} unknown",
                           reason=BuildReason.Option, item=1) from None
    given = None
    if source.duration is not None:
        try:
            given = float(source.duration)
        except (TypeError, ValueError):
            given = math.nan
        if not (math.isfinite(given) and 0 <= given < 3e38):
            raise InvalidError(f"duration {source.duration!r} negative or not finite",
                               reason=BuildReason.Timing, item=0, other=1)

    place = 0
    channels, seen, latest = [], {}, 0.0
    for c, ch in enumerate(source.channels or ()):
        if not isinstance(ch, ChannelSource):
            raise InvalidError(f"channel {c} is not a ChannelSource", reason=BuildReason.Channel,
                               item=c, other=3)
        try:
            bone = operator.index(ch.bone)
        except TypeError:
            bone = -1
        if not 0 <= bone < n:
            raise InvalidError(f"channel {c}: bone {ch.bone!r} past the skeleton",
                               reason=BuildReason.Joint, item=c,
                               other=bone & 0xFFFFFFFF if bone >= 0 else NO_BONE)
        try:
            path = ChannelPath(ch.path)
        except (ValueError, TypeError):
            raise InvalidError(f"channel {c}: path {ch.path!r} unknown",
                               reason=BuildReason.Channel, item=c, other=3) from None
        keys = _keys(ch.times, ch.values, ch.interpolation, WIDTH[path],
                     path == ChannelPath.rotation, c)
        if (bone, path) in seen:
            raise InvalidError(f"channel {c}: bone {bone}'s {path.name} given by channel "
                               f"{seen[bone, path]} too", reason=BuildReason.Channel, item=c,
                               other=4)
        seen[bone, path] = c
        latest = max(latest, float(keys.times[-1]))
        channels.append((bone, path, keys))
    place = len(channels)

    float_names, float_keys = [], []
    for k, tr in enumerate(source.float_tracks or ()):
        item = place + k
        if not isinstance(tr, FloatTrackSource):
            raise InvalidError(f"float track {k} is not a FloatTrackSource",
                               reason=BuildReason.Channel, item=item, other=3)
        float_names.append(names.name_bytes(tr.name, "float track", item))
        keys = _keys(tr.times, tr.values, tr.interpolation, None, False, item)
        latest = max(latest, float(keys.times[-1]))
        float_keys.append(keys)
    float_hashes = names.check_unique(float_names, "float track", first=place)
    place += len(float_keys)

    discrete_names, discrete_times, discrete_values = [], [], []
    for k, tr in enumerate(source.discrete_tracks or ()):
        item = place + k
        if not isinstance(tr, DiscreteTrackSource):
            raise InvalidError(f"discrete track {k} is not a DiscreteTrackSource",
                               reason=BuildReason.Channel, item=item, other=3)
        discrete_names.append(names.name_bytes(tr.name, "discrete track", item))
        t, v = _discrete_keys(tr, item)
        latest = max(latest, float(t[-1]))
        discrete_times.append(t)
        discrete_values.append(v)
    discrete_hashes = names.check_unique(discrete_names, "discrete track", first=place)
    place += len(discrete_times)

    lists = []
    for what, entries in (("event", source.events), ("marker", source.markers)):
        out = []
        for k, ev in enumerate(entries or ()):
            item = place + k
            if isinstance(ev, ClipEvent):
                name, time = ev.name, ev.time
            elif isinstance(ev, (tuple, list)) and len(ev) == 2:
                name, time = ev
            else:
                raise InvalidError(f"{what} {k} is not a ClipEvent", reason=BuildReason.Event,
                                   item=item)
            raw = names.name_bytes(name, what, item)
            try:
                t = float(time)
            except (TypeError, ValueError):
                t = math.nan
            if not (math.isfinite(t) and 0 <= t < 3e38):
                raise InvalidError(f"{what} {k}: time {time!r} not finite or negative",
                                   reason=BuildReason.Event, item=item)
            latest = max(latest, t)
            out.append((raw, t, item))
        lists.append(out)
        place += len(out)

    duration = latest if given is None else given
    if duration >= 3e38:
        raise LimitError(f"a duration of {duration} s is past MAX_SAMPLES samples",
                         reason=BuildReason.Timing, item=0, other=2)
    duration = float(np.float32(duration))
    count = sample_count(duration, rate32)
    if count > MAX_SAMPLES:
        raise LimitError(f"{duration} s at {rate32} Hz is past MAX_SAMPLES samples",
                         reason=BuildReason.Timing, item=0, other=2)
    for out in lists:
        for raw, t, item in out:
            if float(np.float32(t)) > duration:
                raise InvalidError(f"item {item}: time {t} past the duration {duration}",
                                   reason=BuildReason.Event, item=item)
    events, markers = ([(raw, float(np.float32(t))) for raw, t, _ in sorted(out, key=lambda e: e[1])]
                       for out in lists)

    bones = np.array(sorted({b for b, _, _ in channels}), dtype=np.int64)
    where = {int(b): i for i, b in enumerate(bones)}
    parts = np.zeros(bones.size, dtype=np.uint32)
    for b, path, _ in channels:
        parts[where[b]] |= PART[path]
    source_parts = parts.copy()

    root, root_bone = None, NO_BONE
    rm = source.root_motion
    if rm is not None:
        try:
            bone = operator.index(rm.bone)
        except (TypeError, AttributeError):
            bone = -1
        if bone not in where:
            raise InvalidError(f"root motion bone {getattr(rm, 'bone', None)!r} past the "
                               "skeleton or without a channel", reason=BuildReason.RootMotion,
                               item=bone & 0xFFFFFFFF if bone >= 0 else NO_BONE, other=0)
        axes, rotation = getattr(rm, "axes", None), getattr(rm, "rotation", None)
        if not isinstance(axes, (int, np.integer)) or not 0 <= int(axes) <= 7:
            raise InvalidError(f"root motion axes {axes!r} unknown", reason=BuildReason.RootMotion,
                               item=bone, other=1)
        try:
            rotation = RootRotation(rotation)
        except (ValueError, TypeError):
            raise InvalidError(f"root motion rotation {rotation!r} unknown",
                               reason=BuildReason.RootMotion, item=bone, other=2) from None
        root = (where[bone], int(axes), int(rotation))
        root_bone = bone
        if int(axes) or rotation != RootRotation.none:
            parts[where[bone]] |= PART_T
        if rotation != RootRotation.none:
            parts[where[bone]] |= PART_R

    return _Checked(
        skeleton=skeleton, rate=rate32, duration=duration, count=count, loop=loop, basis=basis,
        bones=bones, source_parts=source_parts, parts=parts,
        channels=[(where[b], path, keys) for b, path, keys in channels],
        float_names=float_names, float_hashes=float_hashes, float_keys=float_keys,
        float_step=np.array([k.interpolation == Interpolation.step for k in float_keys], dtype=bool),
        discrete_names=discrete_names, discrete_hashes=discrete_hashes,
        discrete_times=discrete_times, discrete_values=discrete_values,
        events=events, markers=markers, root=root, root_bone=root_bone)


def _discrete_keys(track, item: int) -> tuple[np.ndarray, np.ndarray]:
    try:
        t = np.asarray(track.times, dtype=np.float64).reshape(-1)
        v = np.asarray(track.values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError, OverflowError):
        raise InvalidError(f"item {item}: keys are not numbers", reason=BuildReason.Channel,
                           item=item, other=1) from None
    if t.size == 0:
        raise InvalidError(f"item {item}: no keys", reason=BuildReason.Channel, item=item, other=0)
    if v.size != t.size or not (np.isfinite(v) & (v == np.round(v)) & (v >= -2 ** 31)
                                & (v < 2 ** 31)).all():
        raise InvalidError(f"item {item}: values not one whole int32 a key",
                           reason=BuildReason.Channel, item=item, other=1)
    if not (np.isfinite(t).all() and (t >= 0).all() and (t < 3e38).all()):
        raise InvalidError(f"item {item}: key times not finite, negative or past binary32",
                           reason=BuildReason.Channel, item=item, other=2)
    t32 = t.astype(np.float32)
    if not (np.diff(t32) > 0).all():
        raise InvalidError(f"item {item}: key times not finite, negative or not increasing "
                           "(as binary32)", reason=BuildReason.Channel, item=item, other=2)
    return t32, v.astype(np.int64).astype("<i4")


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
    """Takes the root motion out of its bone in `locals_` (changed in place); the moves."""
    if ch.root is None:
        return None
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
    restore = ch.root is not None and ch.basis == AdditiveBasis.none
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
