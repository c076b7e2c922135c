"""What a clip is built from (channels, float and discrete tracks, events, sync markers and the
clip's settings), its keys evaluated as glTF defines them, and the check that turns a source
into the build's terms (clip/build.py) or refuses it.

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
                axes other than x, y, z, 2 a rotation of no such kind, 3 moves given that
                are not one finite move a sample with a unit rotation (or given without a
                root motion source: item NO_BONE)
    Basis       item the bone: an additive difference not finite (a basis scale of 0)
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Sequence

import numpy as np

from ..core import args, names
from ..core.errors import BuildReason, InvalidError, LimitError
from ..core.limits import NO_BONE
from ..pose.skeleton import ROTATION_TOLERANCE, Skeleton
from .clip import (MAX_MAGNITUDE, MAX_SAMPLES, PART_R, PART_S, PART_T, AdditiveBasis, ClipEvent,
                   LoopPolicy, sample_count)
from .rootmotion import RootMotionSource, RootRotation


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
    `root_moves`, when given with `root_motion`, are the bone's moves at every sample, (S, 7)
    in its parent's frame: the build stores them as given (rotations turned into one
    hemisphere) and takes no motion out of the bone, whose channels are then already in
    place. A clip made from a clip (a mirrored one) carries its moves this way.
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
    root_moves: Any = None

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
    moves: np.ndarray | None = None     # (count, 7) binary64 moves given, or None


def check(source: ClipSource) -> _Checked:
    """Every refusal the build makes, before any work (see the module's table)."""
    skeleton = source.skeleton
    rate, loop, basis, given = _settings(source)
    channels, latest = _channels(source.channels, skeleton.bone_count)
    place = len(channels)
    float_names, float_hashes, float_keys, latest = _float_tracks(source.float_tracks, place,
                                                                  latest)
    place += len(float_keys)
    discrete_names, discrete_hashes, discrete_times, discrete_values, latest = \
        _discrete_tracks(source.discrete_tracks, place, latest)
    place += len(discrete_times)
    lists, latest = _timed_names(source, place, latest)
    duration, count = _timing(latest if given is None else given, rate)
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
    root, root_bone = (None, NO_BONE) if source.root_motion is None else \
        _root_motion(source.root_motion, where, parts)
    moves = _given_moves(source.root_moves, root_bone, count)

    return _Checked(
        skeleton=skeleton, rate=rate, duration=duration, count=count, loop=loop, basis=basis,
        bones=bones, source_parts=source_parts, parts=parts,
        channels=[(where[b], path, keys) for b, path, keys in channels],
        float_names=float_names, float_hashes=float_hashes, float_keys=float_keys,
        float_step=np.array([k.interpolation == Interpolation.step for k in float_keys], dtype=bool),
        discrete_names=discrete_names, discrete_hashes=discrete_hashes,
        discrete_times=discrete_times, discrete_values=discrete_values,
        events=events, markers=markers, root=root, root_bone=root_bone, moves=moves)


def _settings(source: ClipSource) -> tuple[float, LoopPolicy, AdditiveBasis, float | None]:
    """The sample rate as stored (binary32, in binary64), the loop policy, the additive
    basis and the duration given (None for the latest key)."""
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
    return rate32, loop, basis, given


def _channels(given, n: int) -> tuple[list[tuple[int, ChannelPath, _Keys]], float]:
    """Each channel as (bone, path, keys), and the latest key time."""
    channels, seen, latest = [], {}, 0.0
    for c, ch in enumerate(given or ()):
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
    return channels, latest


def _float_tracks(given, place: int, latest: float):
    """The float tracks' names, hashes and keys, from `place` in the source; the latest key."""
    float_names, float_keys = [], []
    for k, tr in enumerate(given or ()):
        item = place + k
        if not isinstance(tr, FloatTrackSource):
            raise InvalidError(f"float track {k} is not a FloatTrackSource",
                               reason=BuildReason.Channel, item=item, other=3)
        float_names.append(names.name_bytes(tr.name, "float track", item))
        keys = _keys(tr.times, tr.values, tr.interpolation, None, False, item)
        latest = max(latest, float(keys.times[-1]))
        float_keys.append(keys)
    float_hashes = names.check_unique(float_names, "float track", first=place)
    return float_names, float_hashes, float_keys, latest


def _discrete_tracks(given, place: int, latest: float):
    """The discrete tracks' names, hashes, key times (binary32) and values, from `place` in
    the source; the latest key."""
    discrete_names, discrete_times, discrete_values = [], [], []
    for k, tr in enumerate(given or ()):
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
    return discrete_names, discrete_hashes, discrete_times, discrete_values, latest


def _timed_names(source: ClipSource, place: int, latest: float):
    """The events and the markers, each a list of (name, time, item) from `place` in the
    source; the latest time."""
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
    return lists, latest


def _timing(duration: float, rate: float) -> tuple[float, int]:
    """The duration as stored (binary32) and the samples it takes at the rate."""
    if duration >= 3e38:
        raise LimitError(f"a duration of {duration} s is past MAX_SAMPLES samples",
                         reason=BuildReason.Timing, item=0, other=2)
    duration = float(np.float32(duration))
    count = sample_count(duration, rate)
    if count > MAX_SAMPLES:
        raise LimitError(f"{duration} s at {rate} Hz is past MAX_SAMPLES samples",
                         reason=BuildReason.Timing, item=0, other=2)
    return duration, count


def _root_motion(rm, where: dict[int, int], parts: np.ndarray):
    """(tracked index, axes, rotation) and the bone of a root motion source; the parts its
    bone stores as animated added to `parts`."""
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
    if int(axes) or rotation != RootRotation.none:
        parts[where[bone]] |= PART_T
    if rotation != RootRotation.none:
        parts[where[bone]] |= PART_R
    return (where[bone], int(axes), int(rotation)), bone


def _given_moves(given, bone: int, count: int) -> np.ndarray | None:
    """The moves a source gives, checked: one a sample, finite, each rotation of length 1
    within the skeleton's rotation tolerance. Kept as given (binary64), so moves read from a
    clip are stored bit for bit."""
    if given is None:
        return None
    refuse = InvalidError("root moves given that are not one finite move a sample with a "
                          "unit rotation, or without a root motion source",
                          reason=BuildReason.RootMotion, item=bone, other=3)
    if bone == NO_BONE:
        raise refuse
    try:
        m = args.floats(given, (count, 7), "root moves", dtype=np.float64)
    except InvalidError:
        raise refuse from None
    if not (np.abs(m) < MAX_MAGNITUDE).all():
        raise refuse
    length = np.linalg.norm(m[:, 3:7], axis=1)
    if not (np.abs(length - 1) <= ROTATION_TOLERANCE).all():
        raise refuse
    return m


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

