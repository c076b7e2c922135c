"""maniBuildMotionDatabase: every entry's frames sampled at the rate, each channel at each of
its times in the root's space at the frame, normalized per channel (Holden's scheme: the
mean taken off each feature, the channel divided by its features' pooled deviation over its
weight), and the frames ordered in a k-d tree.

The root's space at clip time t is the frame the clip's root-motion move at t puts the
root in, the move read in model space (the root-motion bone is a skeleton root in every rig
that has one); a clip without root motion stays at the model's origin. A channel's value at
offset o from a frame at t is taken at s = t + o clamped to the entry's span, or wrapped
when the entry loops (its clip repeats and the span is the whole clip), with the root's
relative move from t to s (across the wraps, as GetRootMotion moves) carrying the pose
sampled at s (in place) into the frame's root space:

    bone position    the bone's model position, 3 floats
    bone velocity    (p(s + 1/rate) - p(s - 1/rate)) over the two times' distance once
                     clamped (2 / rate when wrapped; 0 where they meet), 3 floats
    trajectory pos.  the root's position at s, on the ground plane (the two axes besides
                     `up_axis`, in order), 2 floats
    trajectory fac.  `forward_axis` turned by the root's rotation at s, on the ground plane
    float track      the clip's track of that name at s, 1 float

Features run channel by channel, time by time within a channel, components within a time.
A mirrored entry samples its clip as maniBuildMirroredClip would bake it through the map
(poses mirrored, root moves reflected, tracks renamed), so its features are the mirrored
clip's.

The file (container kind 10, format version 1):

    DHDR  u64 skeleton identity, u64 mirror map identity (0: no mirrored entry), f32 rate,
          u32 clips, channels, entries, frames, features, nodes, leaf size, up axis,
          forward axis, channel times, track names
    DCLP  u64[clips]        each clip's identity
    DCHN  32 bytes a channel: u32 kind, bone, first time, time count, first feature,
          f32 weight, u32 track name (NO_TRACK for other kinds), u32 reserved 0
    DTIM  f32[times]        the channels' times, channel after channel
    T...  the track names (core/names.py), each once
    DENT  32 bytes an entry: u32 clip, flags (1 no jump, 2 mirrored, 4 loops), tags,
          f32 cost bias, start, end, u32 first frame, frame count
    DNRM  f32[2, features]  offsets, then scales: normalized = (value - offset) / scale
    DFEA  f32[frames, features]  normalized features in tree order
    DSLT  u32[frames, 2]    each tree slot's frame and its entry
    DNOD  24 bytes a node, in preorder: u32 first slot, slot count, left, right (NO_NODE
          for a leaf's), lowest frame, f32 least cost bias
    DBOX  f32[nodes, 2, features]  each node's least, then greatest feature values

A node with more slots than the leaf size splits at the median of the feature its frames
spread widest over (the first such feature), ties ordered by frame; its left child is the
next node, holding the lower half (count // 2 slots).
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from enum import IntEnum, IntFlag
from typing import Any

import numpy as np

from ..clip.build import build_clip
from ..clip.clip import Clip, LoopPolicy, is_open
from ..clip.rootmotion import get_root_motion, moves_at
from ..core import args, container, names
from ..core.builder import Builder, enter_build
from ..core.container import FileKind, Section
from ..core.errors import BuildReason, InvalidError, LimitError, ManiError
from ..core.limits import MAX_NAME_BYTES, NO_TRACK
from ..core.transform import quat_conj, quat_mul, quat_rotate
from ..mapping.mirror import MirrorMap
from ..mapping.mirror_clip import MirrorClipSource, mirrored_clip_source
from ..pose.pose import PoseBatch
from ..pose.skeleton import Skeleton
from .kernels import NO_NODE
from .limits import (MAX_MATCH_CHANNELS, MAX_MATCH_CLIPS, MAX_MATCH_ENTRIES, MAX_MATCH_FEATURES,
                     MAX_MATCH_FRAMES, MAX_MATCH_LEAF, MAX_MATCH_RATE, MAX_MATCH_REACH,
                     MAX_MATCH_TIMES)

FORMAT_VERSION = 1
FORMAT_MINOR = 0
GRID_SLACK = 1e-4       # a span this many periods short of another frame still reaches it
MAX_NAME_TABLE_BYTES = 2 ** 32 - 1
HEADER = struct.Struct("<QQf11I")
CHANNEL = np.dtype([("kind", "<u4"), ("bone", "<u4"), ("first_time", "<u4"),
                    ("time_count", "<u4"), ("first_feature", "<u4"), ("weight", "<f4"),
                    ("track", "<u4"), ("reserved", "<u4")])
ENTRY = np.dtype([("clip", "<u4"), ("flags", "<u4"), ("tags", "<u4"), ("bias", "<f4"),
                  ("start", "<f4"), ("end", "<f4"), ("first_frame", "<u4"),
                  ("frame_count", "<u4")])
NODE = np.dtype([("start", "<u4"), ("count", "<u4"), ("left", "<u4"), ("right", "<u4"),
                 ("lowest", "<u4"), ("bias", "<f4")])
KNOWN = {b"DHDR": 0, b"DCLP": 0, b"DCHN": 0, b"DTIM": 0, **names.tags(b"T"), b"DENT": 0,
         b"DNRM": 0, b"DFEA": 0, b"DSLT": 0, b"DNOD": 0, b"DBOX": 0}


class MatchChannelKind(IntEnum):
    """maniMatchChannelKind."""

    bone_position = 0
    bone_velocity = 1
    trajectory_position = 2
    trajectory_facing = 3
    float_track = 4


DIMENSIONS = {MatchChannelKind.bone_position: 3, MatchChannelKind.bone_velocity: 3,
              MatchChannelKind.trajectory_position: 2, MatchChannelKind.trajectory_facing: 2,
              MatchChannelKind.float_track: 1}


class MatchEntryFlag(IntFlag):
    """maniMatchEntryFlags: no_jump (the search only continues into it), mirrored (its clip
    played through the database's mirror map); loops is the database's finding (its clip
    repeats and its span is the whole clip), ignored in a source."""

    none = 0
    no_jump = 1
    mirrored = 2
    loops = 4


SOURCE_FLAGS = MatchEntryFlag.no_jump | MatchEntryFlag.mirrored


@dataclass
class MatchChannel:
    """maniMatchChannel: what a channel measures (a bone for the bone kinds, a float track's
    name for float_track), at which times from the frame (seconds), and its weight."""

    kind: int
    bone: int = 0
    times: Any = (0.0,)
    weight: float = 1.0
    track: Any = None


@dataclass
class MatchEntry:
    """maniMatchEntry: a clip's span [start, end] in seconds, its tags (bits the searches
    filter by), cost bias and flags."""

    clip: int
    start: float
    end: float
    tags: int = 0
    cost_bias: float = 0.0
    flags: int = 0


@dataclass
class MotionDatabaseSource:
    """maniMotionDatabaseSource: the skeleton, its clips, the entries over them, the
    channels, the rate frames are sampled at, the mirror map mirrored entries play through,
    the axes (up, and the forward a facing turns) and the tree's leaf size."""

    skeleton: Skeleton
    clips: list = field(default_factory=list)
    entries: list = field(default_factory=list)
    channels: list = field(default_factory=list)
    rate: float = 60.0
    mirror_map: Any = None
    up_axis: int = 1
    forward_axis: int = 2
    leaf_size: int = 16


def frame_count(start: float, end: float, rate: float) -> int:
    """Frames an entry of this span holds at this rate (the binary32 values as stored)."""
    return int(math.floor((end - start) * rate + GRID_SLACK)) + 1


def frame_times(start: float, count: int, rate: float) -> np.ndarray:
    """The clip times of an entry's frames, binary32 as GetFrame gives them."""
    return (start + np.arange(count, dtype=np.float64) / rate).astype(np.float32)


def ground_axes(up: int) -> list[int]:
    return [a for a in range(3) if a != up]


# ---- the source's checks ---------------------------------------------------------------------
@dataclass
class _Channel:
    kind: MatchChannelKind
    bone: int
    times: np.ndarray        # binary32 values, kept in binary64
    weight: float
    track: bytes | None


@dataclass
class _Entry:
    clip: int
    start: float
    end: float
    tags: int
    bias: float
    flags: int
    frames: int = 0


def _refuse(message: str, reason: BuildReason, item: int = 0, other: int = 0, limit=False):
    return (LimitError if limit else InvalidError)(message, reason=reason, item=item, other=other)


def _options(source: MotionDatabaseSource) -> tuple[float, int, int, int]:
    try:
        rate = args.finite(source.rate, "rate")
    except ManiError:
        raise _refuse("the rate is not a finite number", BuildReason.Timing) from None
    if not rate > 0:
        raise _refuse(f"a rate of {rate}, not above 0", BuildReason.Timing)
    if rate > MAX_MATCH_RATE:
        raise _refuse(f"a rate of {rate} past MAX_MATCH_RATE", BuildReason.Timing, limit=True)
    rate = float(np.float32(rate))
    try:
        up, forward = args.integer(source.up_axis, "up axis"), args.integer(source.forward_axis,
                                                                           "forward axis")
        leaf = args.integer(source.leaf_size, "leaf size")
    except ManiError:
        raise _refuse("an axis or the leaf size is not an integer", BuildReason.Option) from None
    if not (0 <= up <= 2 and 0 <= forward <= 2 and up != forward):
        raise _refuse(f"axes up {up} and forward {forward}: two of x, y and z",
                      BuildReason.Option)
    if not 1 <= leaf <= MAX_MATCH_LEAF:
        raise _refuse(f"a leaf size of {leaf}, not 1 to {MAX_MATCH_LEAF}", BuildReason.Option,
                      item=1)
    return rate, up, forward, leaf


def _channel(c, i: int, bones: int) -> _Channel:
    def bad(message: str) -> InvalidError:
        return _refuse(f"channel {i}: {message}", BuildReason.Channel, i)
    if not isinstance(c, MatchChannel):
        raise bad("not a MatchChannel")
    try:
        kind = MatchChannelKind(args.integer(c.kind, "kind"))
    except (ManiError, ValueError):
        raise bad("an unknown kind") from None
    bone = 0
    if kind in (MatchChannelKind.bone_position, MatchChannelKind.bone_velocity):
        try:
            bone = args.integer(c.bone, "bone")
        except ManiError:
            raise bad("a bone that is not an integer") from None
        if not 0 <= bone < bones:
            raise bad(f"bone {bone} past the skeleton's {bones}")
    try:
        times = args.floats(c.times, (-1,), "times", dtype=np.float64, within=np.float32)
    except ManiError:
        raise bad("times not a list of finite numbers") from None
    if times.size == 0:
        raise bad("no times")
    if times.size > MAX_MATCH_TIMES:
        raise _refuse(f"channel {i}: {times.size} times past MAX_MATCH_TIMES",
                      BuildReason.Channel, i, limit=True)
    times = times.astype(np.float32).astype(np.float64)
    if (np.abs(times) > MAX_MATCH_REACH).any():
        raise _refuse(f"channel {i}: a time past MAX_MATCH_REACH", BuildReason.Channel, i,
                      limit=True)
    try:
        weight = args.finite32(c.weight, "weight")
    except ManiError:
        raise bad("a weight that is not a finite number") from None
    weight = float(np.float32(weight))
    if not weight > 0:
        raise bad(f"a weight of {weight}, not above 0")
    track = None
    if kind == MatchChannelKind.float_track:
        if not isinstance(c.track, (str, bytes, bytearray, memoryview)):
            raise bad("a float track channel without its track's name")
        track = args.name(c.track, "track")
        if len(track) > MAX_NAME_BYTES:
            raise _refuse(f"channel {i}: a track name past MAX_NAME_BYTES", BuildReason.Channel,
                          i, limit=True)
        try:
            track.decode("utf-8")
        except UnicodeDecodeError:
            raise bad("a track name that is not UTF-8") from None
        if not track:
            raise bad("an empty track name")
    elif c.track is not None:
        raise bad("a track name on a channel of another kind")
    return _Channel(kind, bone, times, weight, track)


def _entry(e, i: int, clips: list[Clip], rate: float) -> _Entry:
    def bad(message: str) -> InvalidError:
        return _refuse(f"entry {i}: {message}", BuildReason.Entry, i)
    if not isinstance(e, MatchEntry):
        raise bad("not a MatchEntry")
    try:
        clip = args.integer(e.clip, "clip")
        start = float(np.float32(args.finite32(e.start, "start")))
        end = float(np.float32(args.finite32(e.end, "end")))
        tags = args.integer(e.tags, "tags")
        bias = float(np.float32(args.finite32(e.cost_bias, "cost bias")))
        flags = args.integer(e.flags, "flags")
    except ManiError as exc:
        raise bad(str(exc)) from None
    if not 0 <= clip < len(clips):
        raise bad(f"clip {clip} past the clips")
    if not 0 <= tags < 1 << 32:
        raise bad("tags not a uint32")
    if flags & ~int(SOURCE_FLAGS) or flags < 0:
        raise bad(f"unknown flags {flags:#x}")
    if not 0 <= start <= end <= clips[clip].duration:
        raise bad(f"a span [{start}, {end}] not within the clip's [0, {clips[clip].duration}]")
    whole = start == 0 and end == np.float32(clips[clip].duration)
    if clips[clip].loop_policy == LoopPolicy.repeat and whole and clips[clip].duration > 0:
        flags |= MatchEntryFlag.loops
    return _Entry(clip, start, end, tags, bias, flags, frame_count(start, end, rate))


def _check(source: MotionDatabaseSource):
    rate, up, forward, leaf = _options(source)
    lists = []
    for what in ("clips", "entries", "channels"):
        value = getattr(source, what)
        if not isinstance(value, (list, tuple)):
            raise _refuse(f"{what} is not a list", BuildReason.Count)
        lists.append(list(value))
    clips, entries, channels = lists
    for what, items, bound in (("channels", channels, MAX_MATCH_CHANNELS),
                               ("clips", clips, MAX_MATCH_CLIPS),
                               ("entries", entries, MAX_MATCH_ENTRIES)):
        if not items:
            raise _refuse(f"no {what}", BuildReason.Count)
        if len(items) > bound:
            raise _refuse(f"{len(items)} {what} past the bound", BuildReason.Count, limit=True)
    sk = source.skeleton
    for k, clip in enumerate(clips):
        if not is_open(clip) or clip.skeleton_identity != sk.identity:
            raise _refuse(f"clip {k} is not an opened clip of the skeleton", BuildReason.Joint, k)
        if clip.is_additive:
            raise _refuse(f"clip {k} is additive", BuildReason.Joint, k)
    m = source.mirror_map
    if m is not None and not (isinstance(m, MirrorMap) and m.is_open
                              and m.skeleton_identity == sk.identity
                              and m.bone_count == sk.bone_count):
        raise _refuse("a mirror map that is not an opened map of the skeleton",
                      BuildReason.MirrorDatabase)
    checked = [_channel(c, i, sk.bone_count) for i, c in enumerate(channels)]
    tracks = list(dict.fromkeys(c.track for c in checked if c.track is not None))
    if sum(len(t) for t in tracks) > MAX_NAME_TABLE_BYTES:
        raise _refuse("track names past 4 GiB", BuildReason.Count)
    ents = [_entry(e, i, clips, rate) for i, e in enumerate(entries)]
    for i, e in enumerate(ents):
        if e.flags & MatchEntryFlag.mirrored and m is None:
            raise _refuse(f"entry {i} is mirrored without a mirror map",
                          BuildReason.MirrorDatabase, i)
    frames = sum(e.frames for e in ents)
    if frames > MAX_MATCH_FRAMES:
        raise _refuse(f"{frames} frames past MAX_MATCH_FRAMES", BuildReason.Count, limit=True)
    features = sum(DIMENSIONS[c.kind] * c.times.size for c in checked)
    if features > MAX_MATCH_FEATURES:
        raise _refuse(f"{features} features past MAX_MATCH_FEATURES", BuildReason.Count,
                      limit=True)
    for i, c in enumerate(checked):
        if c.track is None:
            continue
        for j, e in enumerate(ents):
            name = m.mirror_name(c.track) if e.flags & MatchEntryFlag.mirrored else c.track
            if clips[e.clip].find_float_track(name) == NO_TRACK:
                raise _refuse(f"channel {i}: entry {j}'s clip has no track {name!r}",
                              BuildReason.MissingTrack, i, j)
    return rate, up, forward, leaf, clips, checked, tracks, ents, features


# ---- sampling ----------------------------------------------------------------------------------
def _relative_moves(clip: Clip, start: np.ndarray, at: np.ndarray, loops: bool) -> np.ndarray:
    """(n, 7) binary64: the root's move from each frame's time to its channel time (unwrapped
    `at` when the entry loops, already clamped otherwise)."""
    n = start.size
    if clip.moves is None:
        out = np.zeros((n, 7))
        out[:, 6] = 1.0
        return out
    if loops:
        return np.array([get_root_motion(clip, float(a), float(b - a))
                         for a, b in zip(start, at)], dtype=np.float64)
    a, b = moves_at(clip, start), moves_at(clip, at)
    inv = quat_conj(a[:, 3:7])
    out = np.empty((n, 7))
    out[:, 0:3] = quat_rotate(inv, b[:, 0:3] - a[:, 0:3])
    out[:, 3:7] = quat_mul(inv, b[:, 3:7])
    return out


class _EntrySampler:
    """One entry's frames: where each channel time lands in the clip and what is there."""

    def __init__(self, sk: Skeleton, clip: Clip, e: _Entry, rate: float):
        self.sk, self.clip, self.e, self.rate = sk, clip, e, rate
        self.t = frame_times(e.start, e.frames, rate).astype(np.float64)
        self.loops = bool(e.flags & MatchEntryFlag.loops)
        self._batch = None          # one batch of poses, a pose a frame, made when first needed

    def place(self, offset: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(the clip times sampled, the unwrapped or clamped times, the moves to them)."""
        s = self.t + offset
        if self.loops:
            d = self.clip.duration
            u = np.mod(s, d)
            u[u >= d] = 0.0
        else:
            s = np.clip(s, self.e.start, self.e.end)
            u = s
        return u, s, _relative_moves(self.clip, self.t, s, self.loops)

    def positions(self, bone: int, offset: float) -> tuple[np.ndarray, np.ndarray]:
        u, s, rel = self.place(offset)
        if self._batch is None:
            self._batch = PoseBatch(self.sk, u.size)
        batch = self._batch
        self.clip.sample_batch(self.sk, u, batch)
        batch.compute_model(self.sk)
        p = batch.model[:, bone, :, 3].astype(np.float64)
        return rel[:, 0:3] + quat_rotate(rel[:, 3:7], p), s

    def channel(self, c: _Channel, forward: int, plane: list[int]) -> np.ndarray:
        """(frames, dims * times) binary64 raw values."""
        cols = []
        for o in c.times:
            if c.kind == MatchChannelKind.bone_position:
                cols.append(self.positions(c.bone, o)[0])
            elif c.kind == MatchChannelKind.bone_velocity:
                step = 1.0 / self.rate
                after, s_after = self.positions(c.bone, o + step)
                before, s_before = self.positions(c.bone, o - step)
                apart = s_after - s_before
                with np.errstate(divide="ignore", invalid="ignore"):
                    cols.append(np.where(apart[:, None] > 0,
                                         (after - before) / np.where(apart > 0, apart, 1.0)[:, None],
                                         0.0))
            elif c.kind == MatchChannelKind.trajectory_position:
                cols.append(self.place(o)[2][:, plane])
            elif c.kind == MatchChannelKind.trajectory_facing:
                rel = self.place(o)[2]
                axis = np.zeros((rel.shape[0], 3))
                axis[:, forward] = 1.0
                cols.append(quat_rotate(rel[:, 3:7], axis)[:, plane])
            else:
                u = self.place(o)[0]
                track = self.clip.find_float_track(c.track)
                cols.append(self.clip.sample_floats_batch(u)[:, track:track + 1].astype(np.float64))
        return np.concatenate(cols, axis=1)


def _mirrored(m: MirrorMap, sk: Skeleton, clip: Clip) -> Clip:
    """The clip as maniBuildMirroredClip bakes it."""
    return Clip(build_clip(Builder(), mirrored_clip_source(MirrorClipSource(m, sk, clip))))


def sample_features(sk, clips, m, channels, ents, rate, up, forward) -> np.ndarray:
    """(frames, features) binary64: every frame's raw features, entry after entry."""
    plane = ground_axes(up)
    mirrored: dict[int, Clip] = {}
    rows = []
    for e in ents:
        clip = clips[e.clip]
        if e.flags & MatchEntryFlag.mirrored:
            if e.clip not in mirrored:
                mirrored[e.clip] = _mirrored(m, sk, clip)
            clip = mirrored[e.clip]
        sampler = _EntrySampler(sk, clip, e, rate)
        with np.errstate(over="ignore", invalid="ignore"):
            rows.append(np.concatenate([sampler.channel(c, forward, plane) for c in channels],
                                       axis=1))
    return np.concatenate(rows, axis=0)


def normalization(raw: np.ndarray, channels: list[_Channel]) -> tuple[np.ndarray, np.ndarray]:
    """Per feature the offset (its mean) and the scale (the channel's pooled deviation over
    its weight), binary32; a channel that never varies is refused."""
    offsets, scales = [], []
    at = 0
    for i, c in enumerate(channels):
        width = DIMENSIONS[c.kind] * c.times.size
        block = raw[:, at:at + width]
        at += width
        with np.errstate(over="ignore", invalid="ignore"):
            mean = block.mean(axis=0)
            std = math.sqrt(float(((block - mean) ** 2).mean(axis=0).mean()))
            scale = np.float32(std / c.weight)
        if not (np.isfinite(mean).all() and np.isfinite(scale) and scale > 0 and std > 0):
            raise _refuse(f"channel {i} never varies (or varies past binary32)",
                          BuildReason.Spread, i)
        offsets.append(mean.astype(np.float32))
        scales.append(np.full(width, scale, np.float32))
    return np.concatenate(offsets), np.concatenate(scales)


def normalize(values, offsets: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """(value - offset) / scale in binary32, as the search normalizes a query."""
    with np.errstate(over="ignore", invalid="ignore"):
        return (np.asarray(values, np.float64).astype(np.float32) - offsets) / scales


def build_tree(features: np.ndarray, bias: np.ndarray, leaf: int):
    """(slot order, node records, boxes) of the k-d tree over normalized features."""
    n, width = features.shape
    order = np.arange(n, dtype=np.int64)
    nodes, boxes = [], []

    def visit(start: int, count: int) -> int:
        index = len(nodes)
        nodes.append(None)
        boxes.append(None)
        seg = order[start:start + count]
        rows = features[seg]
        lo, hi = rows.min(axis=0), rows.max(axis=0)
        left = right = NO_NODE
        if count > leaf:
            dim = int(np.argmax(hi.astype(np.float64) - lo.astype(np.float64)))
            order[start:start + count] = seg[np.lexsort((seg, rows[:, dim]))]
            half = count // 2
            left = visit(start, half)
            right = visit(start + half, count - half)
        nodes[index] = (start, count, left, right, int(seg.min()), float(bias[seg].min()))
        boxes[index] = (lo, hi)
        return index

    visit(0, n)
    records = np.zeros(len(nodes), NODE)
    for i, (start, count, left, right, lowest, least) in enumerate(nodes):
        records[i] = (start, count, left, right, lowest, least)
    box = np.array(boxes, dtype="<f4").reshape(len(nodes), 2, width)
    return order, records, box


# ---- the build ------------------------------------------------------------------------------------
def build(source: MotionDatabaseSource) -> bytes:
    rate, up, forward, leaf, clips, channels, tracks, ents, width = _check(source)
    sk, m = source.skeleton, source.mirror_map
    raw = sample_features(sk, clips, m, channels, ents, rate, up, forward)
    offsets, scales = normalization(raw, channels)
    normalized = normalize(raw, offsets, scales)
    bad = np.flatnonzero(~np.isfinite(normalized).all(axis=0))
    if bad.size:
        at = np.cumsum([0] + [DIMENSIONS[c.kind] * c.times.size for c in channels])
        i = int(np.searchsorted(at, bad[0], side="right") - 1)
        raise _refuse(f"channel {i} has values past binary32", BuildReason.Channel, i)
    entry_of = np.repeat(np.arange(len(ents)), [e.frames for e in ents])
    bias = np.array([e.bias for e in ents], np.float32)[entry_of]
    order, nodes, boxes = build_tree(normalized, bias, leaf)

    chan = np.zeros(len(channels), CHANNEL)
    first_time = first_feature = 0
    for i, c in enumerate(channels):
        chan[i] = (int(c.kind), c.bone, first_time, c.times.size, first_feature, c.weight,
                   NO_TRACK if c.track is None else tracks.index(c.track), 0)
        first_time += c.times.size
        first_feature += DIMENSIONS[c.kind] * c.times.size
    entry = np.zeros(len(ents), ENTRY)
    first = 0
    for i, e in enumerate(ents):
        entry[i] = (e.clip, e.flags, e.tags, e.bias, e.start, e.end, first, e.frames)
        first += e.frames
    mirrored = any(e.flags & MatchEntryFlag.mirrored for e in ents)
    header = HEADER.pack(sk.identity, m.identity if mirrored else 0, rate, len(clips),
                         len(channels), len(ents), first, width, len(nodes), leaf, up, forward,
                         first_time, len(tracks))
    slots = np.column_stack([order, entry_of[order]]).astype("<u4")
    sections = [
        Section(b"DHDR", 0, header),
        Section(b"DCLP", 0, np.array([c.identity for c in clips], "<u8").tobytes()),
        Section(b"DCHN", 0, chan.tobytes()),
        Section(b"DTIM", 0, np.concatenate([c.times for c in channels]).astype("<f4").tobytes()),
        *names.sections(b"T", tracks, names.check_unique(tracks, "track")),
        Section(b"DENT", 0, entry.tobytes()),
        Section(b"DNRM", 0, np.stack([offsets, scales]).astype("<f4").tobytes()),
        Section(b"DFEA", 0, normalized[order].astype("<f4").tobytes()),
        Section(b"DSLT", 0, slots.tobytes()),
        Section(b"DNOD", 0, nodes.tobytes()),
        Section(b"DBOX", 0, boxes.tobytes()),
    ]
    return container.write(FileKind.motion_database, FORMAT_VERSION, FORMAT_MINOR, sections)


def build_motion_database(builder: Builder, source: MotionDatabaseSource) -> bytes:
    """maniBuildMotionDatabase: the database built and kept in the builder. A missing builder,
    source or skeleton is a misuse; a refused source is not."""
    enter_build(builder, source, MotionDatabaseSource, skeleton=Skeleton)
    data = build(source)
    builder.keep(data, "motion database")
    return data
