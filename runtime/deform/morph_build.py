"""Building morph targets offline: a source's channels and targets checked, their deltas
stored densely or by vertex, and the file deform/morph.py opens."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..core import container, names
from ..core.builder import Builder, enter_build
from ..core.container import FileKind, Section
from ..core.errors import BuildReason, InvalidError, LimitError
from ..core.limits import MAX_NAME_BYTES
from .morph import (_WIDTH, FORMAT_MINOR, FORMAT_VERSION, HEAD, MAX_MORPH_ATTRIBUTES, SINGLE_SET,
                    MorphSemantic)


@dataclass
class MorphAttribute:
    """One attribute the targets move: a semantic and its set."""

    semantic: int
    set: int = 0


@dataclass
class MorphTargetSource:
    """A target: its full weight, its deltas (one entry per attribute of the source, each
    (rows, components) or None where the target leaves the attribute), and either no
    indices (rows are every vertex) or the vertex of each row, in any order; a vertex given
    twice has its rows summed. Its name defaults to its channel's, then '/' and its index
    in the channel past the first."""

    full_weight: float = 1.0
    deltas: Sequence = ()
    indices: Sequence[int] | None = None
    name: str | bytes | None = None


@dataclass
class MorphChannelSource:
    name: str | bytes
    targets: list[MorphTargetSource] = field(default_factory=list)


@dataclass
class MorphSource:
    """maniMorphSource: the vertex count, the attributes, the channels in order."""

    vertex_count: int
    attributes: list[MorphAttribute] = field(default_factory=list)
    channels: list[MorphChannelSource] = field(default_factory=list)


# ---- building ----------------------------------------------------------------------------
def build(source: MorphSource) -> bytes:
    """Builds a morph targets file.

    Refusals, targets counted over the channels in order: LimitError Count for more than
    MAX_MORPH_ATTRIBUTES attributes (item 0) and Name for a name past MAX_NAME_BYTES (item
    the channel, or the target with other 1); else Count (no channels or vertices; item a
    channel without targets; item a target whose rows do not match its indices or, without
    indices, the vertex count), Attribute (item the attribute: an unknown semantic, a set
    other than 0 for positions, normals and tangents, one given twice, or deltas of other
    components), Name and DuplicateName (item the channel, other the earlier), Name with
    other 1 (a target's), Weight (a full weight not finite, 0 or not above the one before),
    Vertex (other the index's place) and NotFinite (other the row's place).
    """
    attributes = list(source.attributes)
    a = len(attributes)
    if a > MAX_MORPH_ATTRIBUTES:
        raise LimitError(f"{a} attributes past MAX_MORPH_ATTRIBUTES", reason=BuildReason.Count)
    n = int(source.vertex_count)
    if n < 1:
        raise InvalidError("morph targets need a vertex", reason=BuildReason.Count)
    channels = list(source.channels)
    if not channels:
        raise InvalidError("morph targets need a channel", reason=BuildReason.Count)
    semantics, sets = _check_attributes(attributes)
    channel_names = [names.name_bytes(ch.name, "channel", i) for i, ch in enumerate(channels)]
    hashes = names.check_unique(channel_names, "channel")
    for i, ch in enumerate(channels):
        if not ch.targets:
            raise InvalidError(f"channel {i} has no targets", reason=BuildReason.Count, item=i)
    widths = _WIDTH[semantics] if a else np.zeros(0, dtype=np.int64)
    targets, target_names, first, channel_of = [], [], [0], []
    t = 0
    for ci, ch in enumerate(channels):
        previous = None
        for k, tgt in enumerate(ch.targets):
            target_names.append(_target_name(tgt, channel_names[ci], k, t))
            full = _full_weight(tgt, previous, t)
            previous = full
            targets.append((full, *_target_rows(tgt, n, widths, t)))
            channel_of.append(ci)
            t += 1
        first.append(t)
    return _write(n, semantics, sets, channel_names, hashes, first, channel_of, target_names,
                  targets, widths)


def build_morph_targets(builder: Builder, source: MorphSource) -> bytes:
    """maniBuildMorphTargets: builds the targets and keeps them in the builder in place of
    any file before. A missing builder, source or list is a misuse; a refused source is not."""
    enter_build(builder, source, MorphSource, attributes=None, channels=None)
    data = build(source)
    builder.keep(data, "morph_targets")
    return data


def _check_attributes(attributes):
    semantics, sets, seen = [], [], {}
    for i, attr in enumerate(attributes):
        try:
            semantic = MorphSemantic(int(attr.semantic))
            index = int(attr.set)
        except (TypeError, ValueError):
            raise InvalidError(f"attribute {i}: unknown semantic", reason=BuildReason.Attribute,
                               item=i) from None
        if index < 0 or index > 0xFFFF or (semantic in SINGLE_SET and index != 0):
            raise InvalidError(f"attribute {i}: set {index} refused", reason=BuildReason.Attribute,
                               item=i)
        if (semantic, index) in seen:
            raise InvalidError(f"attribute {i} given twice", reason=BuildReason.Attribute, item=i,
                               other=seen[(semantic, index)])
        seen[(semantic, index)] = i
        semantics.append(int(semantic))
        sets.append(index)
    return np.array(semantics, dtype=np.int64), np.array(sets, dtype=np.int64)


def _target_name(tgt, channel_name: bytes, k: int, t: int) -> bytes:
    if tgt.name is not None:
        return names.name_bytes(tgt.name, "target", t, reason_other=1)
    raw = channel_name if k == 0 else channel_name + b"/%d" % k
    if len(raw) > MAX_NAME_BYTES:
        raise LimitError(f"target {t}: its name {raw!r} past MAX_NAME_BYTES",
                         reason=BuildReason.Name, item=t, other=1)
    return raw


def _full_weight(tgt, previous, t: int) -> float:
    try:
        full = float(tgt.full_weight)
    except (TypeError, ValueError):
        full = float("nan")
    stored = np.float32(full) if np.isfinite(full) and abs(full) < 3e38 else np.float32("nan")
    if not np.isfinite(stored) or stored == 0 or (previous is not None and stored <= previous):
        raise InvalidError(f"target {t}: full weight {full} refused", reason=BuildReason.Weight,
                           item=t)
    return float(stored)


def _target_rows(tgt, n: int, widths: np.ndarray, t: int):
    """(sparse, mask, vertex indices or None, per-attribute float32 deltas) of a target."""
    arrays = _target_deltas(tgt, widths, t)
    indices = None if tgt.indices is None else _target_indices(tgt, n, t)
    rows = n if indices is None else indices.size
    for d in arrays:
        if d is not None and d.shape[0] != rows:
            raise InvalidError(f"target {t}: {d.shape[0]} rows for {rows}",
                               reason=BuildReason.Count, item=t)
    for d in arrays:
        if d is not None:
            bad = np.flatnonzero(~np.isfinite(d).all(axis=1) | (np.abs(d) >= 3e38).any(axis=1))
            if bad.size:
                raise InvalidError(f"target {t}: row {int(bad[0])} not finite",
                                   reason=BuildReason.NotFinite, item=t, other=int(bad[0]))
    mask = sum(1 << i for i, d in enumerate(arrays) if d is not None)
    if indices is None:
        return False, mask, None, _as_f32(arrays)
    unique, summed = _summed_by_vertex(indices, arrays)
    for d in summed:
        if d is not None and not np.isfinite(d.astype(np.float32)).all():
            raise InvalidError(f"target {t}: summed deltas overflow", reason=BuildReason.NotFinite,
                               item=t)
    if unique.size == n:                      # every vertex: kept densely
        return False, mask, None, _as_f32(summed)
    return True, mask, unique, _as_f32(summed)


def _target_deltas(tgt, widths: np.ndarray, t: int) -> list:
    """A target's deltas, one binary64 (rows, components) array or None an attribute."""
    deltas = list(tgt.deltas) if tgt.deltas is not None else []
    if len(deltas) != widths.size:
        raise InvalidError(f"target {t}: {len(deltas)} delta arrays for {widths.size} attributes",
                           reason=BuildReason.Count, item=t)
    arrays = []
    for i, d in enumerate(deltas):
        if d is None:
            arrays.append(None)
            continue
        try:
            d = np.asarray(d, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidError(f"target {t}: deltas of attribute {i} are not numbers",
                               reason=BuildReason.NotFinite, item=t) from None
        if d.ndim != 2 or d.shape[1] != widths[i]:
            raise InvalidError(f"target {t}: deltas of attribute {i} are not "
                               f"(rows, {widths[i]})", reason=BuildReason.Attribute, item=i)
        arrays.append(d)
    return arrays


def _target_indices(tgt, n: int, t: int) -> np.ndarray:
    """A sparse target's vertex of each row, checked against the vertex count."""
    try:
        indices = np.asarray(tgt.indices).reshape(-1)
        if indices.size and indices.dtype.kind not in "iu":
            raise TypeError
        indices = indices.astype(np.int64)
    except (TypeError, ValueError, OverflowError):
        raise InvalidError(f"target {t}: indices are not integers", reason=BuildReason.Vertex,
                           item=t) from None
    bad = np.flatnonzero((indices < 0) | (indices >= n))
    if bad.size:
        raise InvalidError(f"target {t}: index {int(bad[0])} past the vertices",
                           reason=BuildReason.Vertex, item=t, other=int(bad[0]))
    return indices


def _summed_by_vertex(indices: np.ndarray, arrays: list) -> tuple[np.ndarray, list]:
    """The vertices in order, and each attribute's rows of a vertex given twice summed in the
    source's order, in binary64."""
    order = np.argsort(indices, kind="stable")
    sorted_idx = indices[order]
    unique, start, count = np.unique(sorted_idx, return_index=True, return_counts=True)
    summed = []
    for d in arrays:
        if d is None:
            summed.append(None)
            continue
        ordered = d[order]
        total = ordered[start].copy()
        for rank in range(1, int(count.max(initial=1))):
            more = np.flatnonzero(count > rank)
            total[more] += ordered[start[more] + rank]
        summed.append(total)
    return unique, summed


def _as_f32(arrays: list) -> list:
    return [None if d is None else d.astype(np.float32) for d in arrays]


def _write(n, semantics, sets, channel_names, hashes, first, channel_of, target_names,
           targets, widths) -> bytes:
    t_count = len(targets)
    table = np.zeros((t_count, 4), dtype="<u4")
    delta_at = np.zeros(t_count, dtype="<u8")
    index_parts, delta_parts = [], []
    touches = np.zeros(n, dtype=np.int64)
    attrs = np.zeros(n, dtype=np.int64)
    index_at = floats_at = 0
    for t, (full, sparse, mask, indices, deltas) in enumerate(targets):
        rows = n if indices is None else indices.size
        table[t] = (int(sparse), mask, rows, index_at if sparse else 0)
        delta_at[t] = floats_at
        if sparse:
            index_parts.append(indices.astype("<u4"))
            index_at += rows
            touches[indices] += 1
            attrs[indices] |= mask
        else:
            touches += 1
            attrs |= mask
        for d in deltas:
            if d is not None:
                delta_parts.append(d.astype("<f4").reshape(-1))
                floats_at += d.size
    full = np.array([tg[0] for tg in targets], dtype="<f4")
    offsets = np.zeros(t_count + 1, dtype="<u4")
    np.cumsum([len(x) for x in target_names], out=offsets[1:])
    cat = lambda parts, dtype: np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)
    return container.write(FileKind.morph_targets, FORMAT_VERSION, FORMAT_MINOR, [
        Section(b"MRPH", 0, HEAD.pack(n, semantics.size, len(channel_names), t_count)),
        Section(b"ASEM", 0, semantics.astype("<u4").tobytes()),
        Section(b"ASET", 0, sets.astype("<u4").tobytes()),
        Section(b"CHAN", 0, np.array(first, dtype="<u4").tobytes()),
        Section(b"TCHN", 0, np.array(channel_of, dtype="<u4").tobytes()),
        *names.sections(b"C", channel_names, hashes),
        Section(b"TOFF", 0, offsets.tobytes()),
        Section(b"TNAM", 0, b"".join(target_names)),
        Section(b"THSH", 0, np.array([names.hash_name(x) for x in target_names],
                                     dtype="<u8").tobytes()),
        Section(b"FULL", 0, full.tobytes()),
        Section(b"TARG", 0, table.tobytes()),
        Section(b"TDEL", 0, delta_at.tobytes()),
        Section(b"INDX", 0, cat(index_parts, "<u4").tobytes()),
        Section(b"DELT", 0, cat(delta_parts, "<f4").tobytes()),
        Section(b"VTCH", 0, touches.astype("<u4").tobytes()),
        Section(b"VATT", 0, attrs.astype("<u4").tobytes()),
    ])
