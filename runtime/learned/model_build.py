"""maniBuildLearnedModel: networks' layers and weights checked against their roles, the
learned database's channels, normalization and axes copied, the weights written as asked.

A state is the database's F normalized features followed by L latent values. The roles:

    Decompressor  state (F + L) -> 9 per bone (translation, then two rotation matrix
                  columns), 3 per scaled bone (its scale), 6 for the root's motion (velocity
                  and angular velocity in the root's space, per second), 1 per float track,
                  1 per event (its state)
    Stepper       state -> the state's rate of change (F + L, per second)
    Projector     query (F, normalized as the database normalizes) -> state

A network is dense layers (weights (inputs, outputs), biases), ReLU between them, with an
input and an output normalization (Holden's nnet.h). 16-bit weights: each input's weights
divided by the largest of their magnitudes over 32767 and rounded to nearest, ties to even;
that scale kept (an input whose weights are all zero keeps scale 0).

The file (container kind 11, format version 1):

    LHDR  u64 skeleton identity, u64 database identity, f32 step rate, u32 features, latent,
          bones, scaled bones, float tracks, events, projectors, channels, channel times,
          channel track names, up axis, forward axis, weight format (0 float32, 1 16-bit),
          networks' layers in all
    DCHN, DTIM, T...  the database's channels, their times and track names (its layout)
    DNRM  f32[2, features]   the database's offsets, then scales
    LBON  u32[scaled]        the scaled bones, increasing
    LSCA  f32[bones, 3]      every bone's constant scale
    LPRJ  u32[projectors, 2] each Projector's required and excluded tags
    LLAY  u32[layers, 2]     each layer's inputs and outputs: the Decompressor's layers, the
                             Stepper's, then each Projector's
    LNLC  u32[networks]      each network's layer count
    LNRM  f32[...]           per network: input offsets, input scales, output offsets,
                             output scales
    LBIA  f32[...]           every layer's biases
    LWGT  f32 or i16 [...]   every layer's weights, input-major (16-bit padded to 4 bytes)
    LWSC  f32[...]           16-bit only: every layer's per-input scales
    F..., E...               the float tracks' and the events' names
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from ..core import args, container, names
from ..core.builder import Builder, enter_build
from ..core.container import FileKind, Section
from ..core.errors import BuildReason, InvalidError, LimitError, ManiError
from ..core.limits import NO_TRACK
from ..matching.database import MotionDatabase
from ..matching.database_build import CHANNEL, DIMENSIONS, MatchChannelKind
from ..pose.skeleton import Skeleton
from .limits import (MAX_LEARNED_EVENTS, MAX_LEARNED_FLOAT_TRACKS, MAX_LEARNED_LATENT,
                     MAX_LEARNED_LAYERS, MAX_LEARNED_PROJECTORS, MAX_LEARNED_RATE,
                     MAX_LEARNED_WEIGHTS, MAX_LEARNED_WIDTH)

FORMAT_VERSION = 1
FORMAT_MINOR = 0
HEADER = struct.Struct("<QQf14I")
ROOT_MOTION = 6
LIST_SHIFT = 24      # a name refusal's other: its list's reason above this bit
KNOWN = {b"LHDR": 0, b"DCHN": 0, b"DTIM": 0, **names.tags(b"T"), b"DNRM": 0, b"LBON": 0,
         b"LSCA": 0, b"LPRJ": 0, b"LLAY": 0, b"LNLC": 0, b"LNRM": 0, b"LBIA": 0, b"LWGT": 0,
         b"LWSC": 0, **names.tags(b"F"), **names.tags(b"E")}
REQUIRED = tuple(t for t in KNOWN if t != b"LWSC")


class LearnedWeightFormat(IntEnum):
    """maniLearnedWeightFormat."""

    float32 = 0
    int16 = 1


@dataclass
class LearnedLayer:
    """A dense layer: weights (inputs, outputs) and biases (outputs)."""

    weights: Any
    biases: Any


@dataclass
class LearnedNetwork:
    """maniLearnedNetwork: layers (ReLU between them) and the normalization of the input
    (x - offset) / scale and of the output y * scale + offset."""

    layers: list = field(default_factory=list)
    input_offset: Any = None
    input_scale: Any = None
    output_offset: Any = None
    output_scale: Any = None


@dataclass
class LearnedProjector:
    """A Projector and the tag filter its targets passed."""

    network: LearnedNetwork
    required: int = 0
    excluded: int = 0


@dataclass
class LearnedModelSource:
    """maniLearnedModelSource."""

    skeleton: Skeleton
    database: MotionDatabase
    decompressor: LearnedNetwork = None
    stepper: LearnedNetwork = None
    projectors: list = field(default_factory=list)
    latent_count: int = 32
    step_rate: float = 60.0
    scaled_bones: list = field(default_factory=list)
    bone_scales: Any = None          # (bones, 3); None: the skeleton's rest scales
    float_tracks: list = field(default_factory=list)
    events: list = field(default_factory=list)
    weight_format: int = LearnedWeightFormat.float32


def _refuse(message, reason, item=0, other=0, limit=False):
    return (LimitError if limit else InvalidError)(message, reason=reason, item=item, other=other)


def decompressor_outputs(bones: int, scaled: int, tracks: int, events: int) -> int:
    return 9 * bones + 3 * scaled + ROOT_MOTION + tracks + events


@dataclass
class _Net:
    weights: list
    biases: list
    norm: list          # input offset, input scale, output offset, output scale


def _network(net, item: int, n_in: int, n_out: int) -> _Net:
    def bad(message, other=0, limit=False):
        return _refuse(f"network {item}: {message}", BuildReason.Network, item, other, limit)
    if not isinstance(net, LearnedNetwork) or not isinstance(net.layers, (list, tuple)):
        raise bad("not a LearnedNetwork with a list of layers")
    layers = list(net.layers)
    if not layers:
        raise bad("no layers")
    if len(layers) > MAX_LEARNED_LAYERS:
        raise bad(f"{len(layers)} layers past MAX_LEARNED_LAYERS", len(layers), True)
    weights, biases, total, width = [], [], 0, n_in
    for k, layer in enumerate(layers):
        if not isinstance(layer, LearnedLayer):
            raise bad(f"layer {k} is not a LearnedLayer", k)
        try:
            w = args.floats(layer.weights, (-1, -1), "weights")
            b = args.floats(layer.biases, (-1,), "biases")
        except ManiError as exc:
            raise bad(f"layer {k}: {exc}", k) from None
        if w.shape[0] > MAX_LEARNED_WIDTH or w.shape[1] > MAX_LEARNED_WIDTH:
            raise bad(f"layer {k} wider than MAX_LEARNED_WIDTH", k, True)
        total += w.size
        if total > MAX_LEARNED_WEIGHTS:
            raise bad(f"more than MAX_LEARNED_WEIGHTS weights by layer {k}", k, True)
        last = k + 1 == len(layers)
        if w.shape[0] != width or b.size != w.shape[1] or w.shape[1] == 0 or \
                (last and w.shape[1] != n_out):
            raise bad(f"layer {k} of shape {w.shape} does not chain from {width} "
                      f"(or end at {n_out})", k)
        width = w.shape[1]
        weights.append(w)
        biases.append(b)
    norm = []
    for what, size, positive in (("input_offset", n_in, False), ("input_scale", n_in, True),
                                 ("output_offset", n_out, False), ("output_scale", n_out, True)):
        value = getattr(net, what)
        try:
            v = (np.zeros(size, np.float32) if value is None and not positive else
                 np.ones(size, np.float32) if value is None else
                 args.floats(value, (size,), what))
        except ManiError as exc:
            raise bad(f"{what}: {exc}", len(layers)) from None
        if positive and not (v > 0).all():
            raise bad(f"{what} not above 0", len(layers))
        norm.append(v)
    return _Net(weights, biases, norm)


def _names(values, what: str, reason: BuildReason) -> tuple[list[bytes], list[int]]:
    """A list's names as UTF-8 and their hashes; a refusal's other carries the list."""
    if not isinstance(values, (list, tuple)):
        raise _refuse(f"{what} is not a list", BuildReason.Count)
    tag = int(reason) << LIST_SHIFT
    raws = [names.name_bytes(v, what, i, reason_other=tag) for i, v in enumerate(values)]
    return raws, names.check_unique(raws, what, other_bits=tag)


def _check(source: LearnedModelSource):
    sk, db = source.skeleton, source.database
    if db.skeleton_identity != sk.identity:
        raise _refuse("a database of another skeleton", BuildReason.Database)
    try:
        rate = args.finite(source.step_rate, "step rate")
    except ManiError:
        raise _refuse("the step rate is not a finite number", BuildReason.Timing) from None
    if not rate > 0:
        raise _refuse(f"a step rate of {rate}, not above 0", BuildReason.Timing)
    if rate > MAX_LEARNED_RATE:
        raise _refuse(f"a step rate of {rate} past MAX_LEARNED_RATE", BuildReason.Timing,
                      limit=True)
    try:
        latent = args.integer(source.latent_count, "latent count")
        fmt = LearnedWeightFormat(args.integer(source.weight_format, "weight format"))
    except (ManiError, ValueError):
        raise _refuse("the latent count or the weight format", BuildReason.Option) from None
    if latent < 1:
        raise _refuse("no latent values", BuildReason.Option)
    if latent > MAX_LEARNED_LATENT:
        raise _refuse(f"{latent} latent values past MAX_LEARNED_LATENT", BuildReason.Option,
                      limit=True)
    for what, value, bound in (("projectors", source.projectors, MAX_LEARNED_PROJECTORS),
                               ("float tracks", source.float_tracks, MAX_LEARNED_FLOAT_TRACKS),
                               ("events", source.events, MAX_LEARNED_EVENTS)):
        if not isinstance(value, (list, tuple)):
            raise _refuse(f"{what} is not a list", BuildReason.Count)
        if len(value) > bound:
            raise _refuse(f"{len(value)} {what} past the bound", BuildReason.Count, limit=True)
    if not source.projectors:
        raise _refuse("no Projector", BuildReason.Count)
    bones = sk.bone_count
    if not isinstance(source.scaled_bones, (list, tuple, np.ndarray)):
        raise _refuse("scaled bones is not a list", BuildReason.Joint)
    scaled = []
    for i, b in enumerate(source.scaled_bones):
        try:
            b = args.integer(b, "scaled bone")
        except ManiError:
            raise _refuse(f"scaled bone {i} is not an integer", BuildReason.Joint, i) from None
        if not 0 <= b < bones or (scaled and b <= scaled[-1]):
            raise _refuse(f"scaled bone {i} ({b}) past the skeleton or not increasing",
                          BuildReason.Joint, i)
        scaled.append(b)
    if source.bone_scales is None:
        scales = np.ascontiguousarray(sk.rests[:, 7:10], np.float32)
    else:
        try:
            scales = args.floats(source.bone_scales, (bones, 3), "bone scales",
                                 allow_nonfinite=True)
        except ManiError:
            raise _refuse("bone scales are not (bones, 3) numbers", BuildReason.NotFinite) from None
    bad = np.flatnonzero(~np.isfinite(scales).all(axis=1))
    if bad.size:
        raise _refuse(f"bone {bad[0]}'s scale is not finite", BuildReason.NotFinite, int(bad[0]))
    tracks = _names(source.float_tracks, "float track", BuildReason.FloatTrack)
    events = _names(source.events, "event", BuildReason.Event)
    feats = db.feature_count
    state = feats + latent
    outputs = decompressor_outputs(bones, len(scaled), len(tracks[0]), len(events[0]))
    nets = [_network(source.decompressor, 0, state, outputs),
            _network(source.stepper, 1, state, state)]
    tags = []
    for p, proj in enumerate(source.projectors):
        if not isinstance(proj, LearnedProjector):
            raise _refuse(f"projector {p} is not a LearnedProjector", BuildReason.Network, 2 + p)
        nets.append(_network(proj.network, 2 + p, feats, state))
        try:
            req, exc = args.integer(proj.required, "required"), args.integer(proj.excluded,
                                                                            "excluded")
        except ManiError:
            req = exc = -1
        if not (0 <= req < 1 << 32 and 0 <= exc < 1 << 32):
            raise _refuse(f"projector {p}: tags not uint32", BuildReason.Tags, p)
        tags.append((req, exc))
    return rate, latent, fmt, scaled, scales, tracks, events, nets, tags


def quantize(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """16-bit weights (inputs, outputs) and each input's scale (the largest magnitude of its
    weights over 32767); rint rounds to nearest, ties to even."""
    top = np.abs(w.astype(np.float64)).max(axis=1)
    scale = (top / 32767.0).astype(np.float32)
    div = np.where(scale > 0, scale, 1).astype(np.float64)
    q = np.rint(w.astype(np.float64) / div[:, None])
    return np.clip(q, -32767, 32767).astype("<i2"), scale


def _database_sections(db: MotionDatabase):
    chans = np.zeros(db.channel_count, CHANNEL)
    times, tracks = [], []
    first_time = first_feature = 0
    for i in range(db.channel_count):
        c = db.channel(i)
        track = NO_TRACK
        if c.track is not None:
            raw = c.track.encode("utf-8") if isinstance(c.track, str) else bytes(c.track)
            if raw not in tracks:
                tracks.append(raw)
            track = tracks.index(raw)
        n = len(c.times)
        chans[i] = (int(c.kind), c.bone, first_time, n, first_feature, c.weight, track, 0)
        times.append(np.asarray(c.times, np.float32))
        first_time += n
        first_feature += DIMENSIONS[MatchChannelKind(int(c.kind))] * n
    secs = [Section(b"DCHN", 0, chans.tobytes()),
            Section(b"DTIM", 0, np.concatenate(times).astype("<f4").tobytes()),
            *names.sections(b"T", tracks, [names.hash_name(t) for t in tracks]),
            Section(b"DNRM", 0, np.stack([db.offsets, db.scales]).astype("<f4").tobytes())]
    return secs, first_time, len(tracks)


def build(source: LearnedModelSource) -> bytes:
    rate, latent, fmt, scaled, scales, tracks, events, nets, tags = _check(source)
    sk, db = source.skeleton, source.database
    layers = [(w.shape[0], w.shape[1]) for n in nets for w in n.weights]
    if fmt == LearnedWeightFormat.int16:
        pairs = [quantize(w) for n in nets for w in n.weights]
        blob = b"".join(q.tobytes() for q, _ in pairs)
        blob += b"\0" * (-len(blob) % 4)
        extra = [Section(b"LWSC", 0, np.concatenate([s for _, s in pairs]).astype("<f4").tobytes())]
    else:
        blob = b"".join(w.astype("<f4").tobytes() for n in nets for w in n.weights)
        extra = []
    db_secs, ntimes, ntracks = _database_sections(db)
    header = HEADER.pack(sk.identity, db.identity, np.float32(rate), db.feature_count, latent,
                         sk.bone_count, len(scaled), len(tracks[0]), len(events[0]), len(tags),
                         db.channel_count, ntimes, ntracks, db.up_axis, db.forward_axis,
                         int(fmt), len(layers))
    sections = [
        Section(b"LHDR", 0, header), *db_secs,
        Section(b"LBON", 0, np.array(scaled, "<u4").tobytes()),
        Section(b"LSCA", 0, scales.astype("<f4").tobytes()),
        Section(b"LPRJ", 0, np.array(tags, "<u4").reshape(-1, 2).tobytes()),
        Section(b"LLAY", 0, np.array(layers, "<u4").tobytes()),
        Section(b"LNLC", 0, np.array([len(n.weights) for n in nets], "<u4").tobytes()),
        Section(b"LNRM", 0, np.concatenate([v for n in nets for v in n.norm]).astype("<f4").tobytes()),
        Section(b"LBIA", 0, np.concatenate([b for n in nets for b in n.biases]).astype("<f4").tobytes()),
        Section(b"LWGT", 0, blob), *extra,
        *names.sections(b"F", *tracks),
        *names.sections(b"E", *events),
    ]
    return container.write(FileKind.learned_model, FORMAT_VERSION, FORMAT_MINOR, sections)


def build_learned_model(builder: Builder, source: LearnedModelSource) -> bytes:
    """maniBuildLearnedModel: the model built and kept in the builder. A missing builder,
    source, skeleton or database is a misuse; a refused source is not."""
    enter_build(builder, source, LearnedModelSource, skeleton=Skeleton, database=MotionDatabase)
    data = build(source)
    builder.keep(data, "learned model")
    return data
