"""Morph targets: a mesh primitive's blend shapes opened in place, and the job that applies
them (built offline by deform/morph_build.py; the job's loop is deform/kernels.py's morph).

Named channels, each one or more targets at increasing full weights (glTF's have one at 1,
FBX's in-betweens several); each target deltas for some of the file's attributes, for every
vertex (dense) or for listed vertices (sparse). A channel's weight walks from an implicit
zero shape at 0 through its targets (compute_target_weights); the job adds each target's
deltas at its weight, target by target in order, into the skinning job's input.

The morph targets file (container kind 6, format version 1):

    MRPH  u32 vertex count n, attribute count a, channel count c, target count T
    ASEM  u32[a]      each attribute's semantic (MorphSemantic)
    ASET  u32[a]      its set (0 for positions, normals and tangents)
    CHAN  u32[c + 1]  each channel's first target, then T
    TCHN  u32[T]      each target's channel
    COFF, CNAM, CHSH, CSRT   the channel names (core/names.py)
    TOFF  u32[T + 1]  offsets of the target names in TNAM
    TNAM  the target names, UTF-8 (two targets may share a name: the first is found)
    THSH  u64[T]      maniHash64(NAME_HASH_SEED, name) of each, compared before the bytes
    FULL  f32[T]      each target's full weight: finite, not 0, increasing within a channel
    TARG  u32[T, 4]   each target: sparse (0 or 1), attributes moved (bit i: attribute i),
                      rows (n when dense), first of its indices in INDX (0 when dense)
    TDEL  u64[T]      each target's first float in DELT
    INDX  u32[...]    the sparse targets' vertices, increasing within a target
    DELT  f32[...]    deltas: per target, per attribute it moves in order, rows x components
    VTCH  u32[n]      how many targets move each vertex
    VATT  u32[n]      which attributes any target moves at each vertex (bit i: attribute i)

TCHN, VTCH and VATT repeat what the rest says: they are what a renderer or the queries use,
and being sized by the target and vertex counts they let a wrong count be told apart from a
wrong section size.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Sequence

import numpy as np

from ..core import args, container, names, threads
from ..core.container import Container, FileKind
from ..core.errors import CapacityError, FormatError, InvalidError
from ..core.limits import MAX_NAME_BYTES
from ..core.scratch import vertex_range
from .kernels import morph

FORMAT_VERSION = 1
FORMAT_MINOR = 0
SPAN_VERTICES = 4096          # vertices a thread at least: a thread's start costs ~20 us
MAX_MORPH_ATTRIBUTES = 32     # MANI_MAX_MORPH_ATTRIBUTES: one bit each in a target's mask
NO_CHANNEL = 0xFFFFFFFF       # MANI_NO_CHANNEL
HEAD = struct.Struct("<IIII")
KNOWN = {b"MRPH": 0, b"ASEM": 0, b"ASET": 0, b"CHAN": 0, b"TCHN": 0, **names.tags(b"C"),
         b"TOFF": 0, b"TNAM": 0, b"THSH": 0, b"FULL": 0, b"TARG": 0, b"TDEL": 0, b"INDX": 0,
         b"DELT": 0, b"VTCH": 0, b"VATT": 0}


class MorphSemantic(IntEnum):
    """maniMorphSemantic: what an attribute is, which fixes its components."""

    position = 0
    normal = 1
    tangent = 2          # the xyz deltas glTF gives; the handedness is not morphed
    texcoord = 3
    color = 4            # RGBA (glTF's RGB colors with alpha 0)


COMPONENTS = {MorphSemantic.position: 3, MorphSemantic.normal: 3, MorphSemantic.tangent: 3,
              MorphSemantic.texcoord: 2, MorphSemantic.color: 4}
SINGLE_SET = (MorphSemantic.position, MorphSemantic.normal, MorphSemantic.tangent)
RENORMALIZED = (MorphSemantic.normal, MorphSemantic.tangent)
_WIDTH = np.array([COMPONENTS[MorphSemantic(s)] for s in range(len(MorphSemantic))])


# ---- the file ----------------------------------------------------------------------------

class MorphTargets:
    """A morph targets file opened in place (maniMorphTargets)."""

    def __init__(self, data):
        buf = container.as_buffer(data)
        c = Container(buf, FileKind.morph_targets, FORMAT_VERSION, FORMAT_MINOR, KNOWN,
                      required=tuple(KNOWN))
        at = c.offset_of(b"MRPH")
        n, a, ch, t = HEAD.unpack(c.array(b"MRPH", "u1", (HEAD.size,)).tobytes())
        if n < 1:
            raise FormatError("no vertices", at)
        if a > MAX_MORPH_ATTRIBUTES:
            raise FormatError(f"{a} attributes past MAX_MORPH_ATTRIBUTES", at + 4)
        if ch < 1:
            raise FormatError("no channels", at + 8)
        c.check_count(n, at, {b"VTCH": (4, 0), b"VATT": (4, 0)})
        c.check_count(a, at + 4, {b"ASEM": (4, 0), b"ASET": (4, 0)})
        c.check_count(ch, at + 8, {b"CHAN": (4, 1), **names.count_items(b"C")})
        c.check_count(t, at + 12, {b"TCHN": (4, 0), b"TOFF": (4, 1), b"THSH": (8, 0),
                                   b"FULL": (4, 0), b"TARG": (16, 0), b"TDEL": (8, 0)})
        if t < ch:
            raise FormatError(f"{t} targets for {ch} channels", at + 12)
        self.semantics = c.array(b"ASEM", "<u4", (a,))
        self.sets = c.array(b"ASET", "<u4", (a,))
        _check_attribute_table(c, self.semantics, self.sets)
        self.channel_first = c.array(b"CHAN", "<u4", (ch + 1,))
        self.target_channel = c.array(b"TCHN", "<u4", (t,))
        _check_channels(c, self.channel_first, self.target_channel, ch, t)
        self.channel_names = names.NameTable(c, b"C", ch)
        self.target_offsets = c.array(b"TOFF", "<u4", (t + 1,))
        self.target_name_bytes = c.raw(b"TNAM")
        self.target_hashes = c.array(b"THSH", "<u8", (t,))
        _check_target_names(c, self.target_offsets, self.target_hashes, t)
        self.full_weights = c.array(b"FULL", "<f4", (t,))
        _check_full_weights(c, self.full_weights, self.target_channel)
        self.table = c.array(b"TARG", "<u4", (t, 4))
        self.delta_at = c.array(b"TDEL", "<u8", (t,))
        widths = _WIDTH[self.semantics.astype(np.int64)] if a else np.zeros(0, np.int64)
        index_total, float_total = _check_targets(c, self.table, self.delta_at, widths, n, a)
        self.indices = c.array(b"INDX", "<u4", (index_total,))
        self.deltas = c.array(b"DELT", "<f4", (float_total,))
        self.deltas.flags.writeable = False     # whatever the bytes: one type for _morph
        touches, attrs = _check_indices(c, self.table, self.indices, n)
        bad = np.flatnonzero(~np.isfinite(self.deltas))
        if bad.size:
            raise FormatError("delta not finite", c.offset_of(b"DELT", 4 * int(bad[0])))
        self.touches = c.array(b"VTCH", "<u4", (n,))
        self.vertex_attributes = c.array(b"VATT", "<u4", (n,))
        bad = np.flatnonzero(touches != self.touches)
        if bad.size:
            raise FormatError("a vertex's target count wrong",
                              c.offset_of(b"VTCH", 4 * int(bad[0])))
        bad = np.flatnonzero(attrs != self.vertex_attributes)
        if bad.size:
            raise FormatError("a vertex's attributes wrong", c.offset_of(b"VATT", 4 * int(bad[0])))
        c.finish()
        self.vertex_count, self.attribute_count = n, a
        self.channel_count, self.target_count = ch, t
        self.identity = c.identity
        self.data = buf
        self._plan(widths)

    @classmethod
    def open(cls, data) -> "MorphTargets":
        return cls(data)

    def _plan(self, widths):
        """What the job and the weights read, worked out once: views of each target's
        deltas, the targets moving each attribute (the job kernel's moves), and each
        target's neighbours on its channel's walk. The job reads what the open checked:
        bytes changed after it move no vertex outside the range."""
        table = self.table.astype(np.int64)
        t = self.target_count
        self._sparse = table[:, 0].astype(bool)
        self._rows = table[:, 2]
        self._index_first = table[:, 3]
        self._index_ends = self._index_first + np.where(self._sparse, self._rows, 0)
        self._indices = self.indices.astype(np.int64)         # as the open checked them
        views: list[dict[int, np.ndarray]] = []
        # each attribute's moves, target by target: (target, first float of its deltas,
        # rows, sparse, first of its indices)
        moves: list[list] = [[] for _ in range(self.attribute_count)]
        for k in range(t):
            at, rows, mask, mine = int(self.delta_at[k]), int(table[k, 2]), int(table[k, 1]), {}
            for i in range(self.attribute_count):
                if mask >> i & 1:
                    w = int(widths[i])
                    mine[i] = self.deltas[at:at + rows * w].reshape(rows, w)
                    moves[i].append((k, at, rows, int(table[k, 0]), int(table[k, 3])))
                    at += rows * w
            views.append(mine)
        self._views = views
        self._moves = [np.array(m, dtype=np.int64).reshape(-1, 5) for m in moves]
        self._attribute_of = {(int(s), int(k)): i
                              for i, (s, k) in enumerate(zip(self.semantics, self.sets))}
        self._channel_of = self.target_channel.astype(np.intp)
        full = self.full_weights.astype(np.float64)
        first = self.channel_first.astype(np.int64)
        place = np.arange(t) - first[self._channel_of]           # within the channel
        size = np.diff(first)[self._channel_of]
        # the zero shape's place among a channel's knots: before its first positive weight
        zero_at = np.add.reduceat((full < 0).astype(np.int64), first[:-1])[self._channel_of]
        knot = place + (place >= zero_at)                       # this target's knot
        knots = size + 1

        def knot_value(k):
            """The value of knot k of each target's channel (0 for the zero shape)."""
            k = np.clip(k, 0, knots - 1)
            own = k - (k > zero_at)
            value = full[np.clip(first[self._channel_of] + own, 0, t - 1)]
            return np.where(k == zero_at, 0.0, value)

        self._has_left = knot > 0
        self._has_right = knot < knots - 1
        self._left = knot_value(knot - 1)
        self._right = knot_value(knot + 1)
        self._left_is_first = knot - 1 == 0
        self._right_is_last = knot + 1 == knots - 1
        self._full = full

    # ---- queries
    def attribute(self, i: int) -> tuple[int, int]:
        """(semantic, set) of attribute i; (-1, 0) past the count."""
        i = args.integer(i, "attribute")
        if not 0 <= i < self.attribute_count:
            return -1, 0
        return int(self.semantics[i]), int(self.sets[i])

    def channel_name(self, channel: int) -> str | None:
        return self.channel_names.name(channel)

    def find_channel(self, name) -> int:
        found = self.channel_names.find(name)
        return NO_CHANNEL if found >= self.channel_count else found

    def target_name(self, target: int) -> str | None:
        target = args.integer(target, "target")
        if not 0 <= target < self.target_count:
            return None
        a, b = int(self.target_offsets[target]), int(self.target_offsets[target + 1])
        if not 0 <= a <= b <= self.target_name_bytes.size:
            return None
        return self.target_name_bytes[a:b].tobytes().decode("utf-8", errors="replace")

    def find_target(self, name) -> int:
        """The first target of that name, or NO_CHANNEL."""
        raw = args.name(name)
        offsets = self.target_offsets
        data = self.target_name_bytes
        for i in np.flatnonzero(self.target_hashes == np.uint64(names.hash_name(raw))).tolist():
            a, b = int(offsets[i]), int(offsets[i + 1])
            if 0 <= a <= b <= data.size and data[a:b].tobytes() == raw:
                return i
        return NO_CHANNEL

    def channel_targets(self, channel: int) -> tuple[int, int]:
        """(first target, count) of a channel; (0, 0) past the count."""
        channel = args.integer(channel, "channel")
        if not 0 <= channel < self.channel_count:
            return 0, 0
        a, b = int(self.channel_first[channel]), int(self.channel_first[channel + 1])
        if not 0 <= a <= b <= self.target_count:
            return 0, 0
        return a, b - a

    def full_weight(self, target: int) -> float:
        target = args.integer(target, "target")
        if not 0 <= target < self.target_count:
            return 0.0
        return float(self.full_weights[target])

    def target_deltas(self, target: int, attribute: int) -> np.ndarray | None:
        """A target's (rows, components) deltas of one attribute, in place, or None."""
        if not 0 <= target < self.target_count:
            return None
        return self._views[target].get(attribute)

    def target_indices(self, target: int) -> np.ndarray | None:
        """A sparse target's vertices, in place; None for a dense one."""
        if not 0 <= target < self.target_count or not self._sparse[target]:
            return None
        return self.indices[self._index_first[target]:self._index_ends[target]]

    def compute_target_weights(self, channel_weights, out=None) -> np.ndarray:
        return compute_target_weights(self, channel_weights, out)


# ---- open checks -------------------------------------------------------------------------

def _check_attribute_table(c: Container, semantics, sets) -> None:
    at_sem, at_set = c.offset_of(b"ASEM"), c.offset_of(b"ASET")
    seen = {}
    for i, (s, k) in enumerate(zip(semantics.tolist(), sets.tolist())):
        if s >= len(MorphSemantic):
            raise FormatError("unknown semantic", at_sem + 4 * i)
        if (s in SINGLE_SET and k != 0) or k > 0xFFFF:
            raise FormatError("set refused", at_set + 4 * i)
        if (s, k) in seen:
            raise FormatError("an attribute twice", at_sem + 4 * i)
        seen[(s, k)] = i


def _check_channels(c: Container, first, channel_of, channels: int, targets: int) -> None:
    """TCHN from channel 0 to the last in steps of 0 or 1; CHAN where each channel starts."""
    own = channel_of.astype(np.int64)
    at = c.offset_of(b"TCHN")
    if own[0] != 0:
        raise FormatError("the first target not of channel 0", at)
    bad = np.flatnonzero((np.diff(own) < 0) | (np.diff(own) > 1))
    if bad.size:
        raise FormatError("targets' channels out of order", at + 4 * (int(bad[0]) + 1))
    if own[-1] != channels - 1:
        raise FormatError("the last target not of the last channel", at + 4 * (targets - 1))
    want = np.searchsorted(own, np.arange(channels + 1))
    bad = np.flatnonzero(want != first)
    if bad.size:
        raise FormatError("a channel's first target wrong", c.offset_of(b"CHAN", 4 * int(bad[0])))


def _check_target_names(c: Container, offsets, hashes, count: int) -> None:
    """Spans within TNAM, 1 to MAX_NAME_BYTES bytes, UTF-8, of their hashes; an offset shared
    by two wrong names, or by the last and the end, is the one blamed."""
    off = offsets.astype(np.int64)
    base = c.offset_of(b"TOFF")
    names_at = c.offset_of(b"TNAM")
    size = c.sections[b"TNAM"][1]
    if off[0] != 0:
        raise FormatError("target names do not start at 0", base)
    within = c.buf[names_at:].tobytes()

    def fault(i: int) -> int | None:
        a, b = off[i], off[i + 1]
        if not (0 <= a < b <= len(within) and b - a <= MAX_NAME_BYTES):
            return base + 4 * (i + 1)
        try:
            within[a:b].decode("utf-8")
        except UnicodeDecodeError as e:
            return names_at + int(a) + e.start
        return None if names.hash_name(within[a:b]) == int(hashes[i]) else hash_at + 8 * i

    hash_at = c.offset_of(b"THSH")
    ends_right = off[-1] == size
    for i in range(count):
        at = fault(i)
        if at is not None:
            if (i + 1 < count and fault(i + 1) is not None) or (i + 1 == count and not ends_right):
                at = base + 4 * (i + 1)
            raise FormatError(f"target name {i} wrong", at)
    if not ends_right:
        raise FormatError("target names section size disagrees with the names",
                          c.size_field(b"TNAM"))


def _check_full_weights(c: Container, full, channel_of) -> None:
    at = c.offset_of(b"FULL")
    bad = np.flatnonzero(~np.isfinite(full) | (full == 0))
    if bad.size:
        raise FormatError("full weight not finite or 0", at + 4 * int(bad[0]))
    same = channel_of[1:] == channel_of[:-1]
    bad = np.flatnonzero(same & (full[1:] <= full[:-1]))
    if bad.size:
        raise FormatError("full weights not increasing", at + 4 * (int(bad[0]) + 1))


def _check_targets(c: Container, table, delta_at, widths, n: int, a: int):
    """Each target's kind, mask and rows, and where its indices and deltas start: each start
    the sum of the rows before it, the last sums the sections' sizes. Returns the totals."""
    t = table.shape[0]
    base = c.offset_of(b"TARG")
    sparse, mask, rows, index_first = (table[:, i].astype(np.int64) for i in range(4))
    bad = np.flatnonzero(sparse > 1)
    if bad.size:
        raise FormatError("target kind unknown", base + 16 * int(bad[0]))
    bad = np.flatnonzero(mask >> a if a < 32 else np.zeros(t, np.int64))
    if bad.size:
        raise FormatError("target moves an attribute past the count", base + 16 * int(bad[0]) + 4)
    bad = np.flatnonzero(np.where(sparse == 1, rows > n, rows != n))
    if bad.size:
        raise FormatError("target rows wrong", base + 16 * int(bad[0]) + 8)
    bad = np.flatnonzero((sparse == 0) & (index_first != 0))
    if bad.size:
        raise FormatError("a dense target's index start not 0", base + 16 * int(bad[0]) + 12)
    bits = (mask[:, None] >> np.arange(a)[None, :]) & 1 if a else np.zeros((t, 0), np.int64)
    per_row = bits @ widths if a else np.zeros(t, np.int64)
    owners = np.flatnonzero(sparse == 1)
    index_at = np.append(owners, t)                        # the targets the index starts are of
    index_have = np.append(index_first[owners], c.sections[b"INDX"][1] // 4)
    index_want = np.concatenate([[0], np.cumsum(rows[owners])])
    float_have = np.append(delta_at.astype(np.int64), c.sections[b"DELT"][1] // 4)
    float_want = np.concatenate([[0], np.cumsum(rows * per_row)])
    ki, index_shift = _first_fault(index_have, index_want)
    kd, float_shift = _first_fault(float_have, float_want)
    if ki is not None:
        at = int(index_at[ki])
        before = int(index_at[ki - 1]) if ki > 0 else None
        # a wrong count shifts every start after it; a wrong start stands alone
        if before is not None and index_shift and (at < t or (
                kd is not None and float_shift and kd == before + 1)):
            raise FormatError("target rows disagree with the starts", base + 16 * before + 8)
        if at == t:
            raise FormatError("INDX size disagrees with the targets", c.size_field(b"INDX"))
        raise FormatError("target index start wrong", base + 16 * at + 12)
    if kd is not None:
        if kd == t:
            raise FormatError("DELT size disagrees with the targets", c.size_field(b"DELT"))
        if float_shift and kd > 0:
            raise FormatError("target's attributes disagree with the starts",
                              base + 16 * (kd - 1) + 4)
        raise FormatError("target delta start wrong", c.offset_of(b"TDEL", 8 * kd))
    return int(index_want[-1]), int(float_want[-1])


def _first_fault(have: np.ndarray, want: np.ndarray):
    """The first place two sequences differ, and whether they differ by the same amount from
    there to the end (what a wrong count before it does), or (None, False)."""
    diff = have - want
    bad = np.flatnonzero(diff)
    if not bad.size:
        return None, False
    k = int(bad[0])
    return k, bool((diff[k:] == diff[k]).all())


def _check_indices(c: Container, table, indices, n: int):
    """Each sparse target's vertices increasing and below n; returns each vertex's target
    count and attribute mask."""
    t = table.shape[0]
    sparse = table[:, 0].astype(bool)
    rows = np.where(sparse, table[:, 2].astype(np.int64), 0)
    owner = np.repeat(np.arange(t), rows)
    idx = indices.astype(np.int64)
    at = c.offset_of(b"INDX")
    starts = np.zeros(idx.size, dtype=bool)
    starts[np.cumsum(rows)[:-1][rows[1:] > 0] if t > 1 else []] = True
    if idx.size:
        starts[0] = True
    bad = np.flatnonzero((idx >= n) | (~starts & (np.diff(idx, prepend=-1) <= 0)))
    if bad.size:
        raise FormatError("sparse index not increasing or past the vertices", at + 4 * int(bad[0]))
    mask = table[:, 1].astype(np.int64)
    touches = np.bincount(idx, minlength=n) + int((~sparse).sum())
    attrs = np.zeros(n, dtype=np.int64)
    np.bitwise_or.at(attrs, idx, mask[owner])
    dense_mask = np.bitwise_or.reduce(mask[~sparse]) if (~sparse).any() else 0
    return touches, attrs | dense_mask


# ---- target weights ----------------------------------------------------------------------

def compute_target_weights(targets: MorphTargets, channel_weights, out=None) -> np.ndarray:
    """maniMorphTargets_ComputeTargetWeights: within each channel the weight walks linearly
    from the zero shape at 0 through the targets at their full weights, extrapolated past
    the first and last; a channel of one target at 1 passes its weight through. (targets,)
    float32, into `out` when given (CapacityError with `.count` when it is short, nothing
    written)."""
    if not isinstance(targets, MorphTargets):
        raise InvalidError("not opened morph targets")
    if channel_weights is None:
        raise InvalidError("no channel weights")
    x = args.floats(channel_weights, (-1,), "channel weights", dtype=np.float64,
                    allow_nonfinite=True)
    if x.size != targets.channel_count:
        raise InvalidError(f"{x.size} channel weights for {targets.channel_count} channels")
    if not np.isfinite(x).all():
        raise InvalidError("a channel weight not finite")
    t = targets.target_count
    if out is not None:
        if not (isinstance(out, np.ndarray) and out.dtype == np.float32 and out.ndim == 1):
            raise InvalidError("the target weights are not a float32 array")
        if out.size < t:
            raise CapacityError(f"{out.size} entries for {t} targets", count=t)
        if not out.flags.writeable:
            raise InvalidError("the target weights are read-only")
    p = targets
    v = x[p._channel_of]
    f, left, right = p._full, p._left, p._right
    with np.errstate(all="ignore"):
        rising = p._has_left & (((left <= v) & (v <= f)) | ((v > f) & ~p._has_right)
                                | ((v < left) & p._left_is_first))
        falling = p._has_right & (((f <= v) & (v <= right)) | ((v < f) & ~p._has_left)
                                  | ((v > right) & p._right_is_last))
        weights = np.where(rising, (v - left) / (f - left),
                           np.where(falling, (right - v) / (right - f), 0.0))
        result = weights.astype(np.float32)
    if not np.isfinite(result).all():
        raise InvalidError("a target weight past binary32's range")
    if out is None:
        return result
    out[:t] = result
    return out


# ---- the job -----------------------------------------------------------------------------

@dataclass
class MorphStream:
    """One attribute of the vertices: `source` read, `target` written, (vertices, components)
    float32 arrays of the semantic's components (column views of an interleaved buffer
    serve); the target may be the source."""

    semantic: int
    set: int = 0
    source: np.ndarray | None = None
    target: np.ndarray | None = None


@dataclass
class MorphJob:
    """maniMorphJob: a vertex range, the target weights (compute_target_weights) and the
    streams. `count` None runs to the last vertex."""

    targets: MorphTargets
    weights: object
    streams: Sequence[MorphStream] = field(default_factory=list)
    first: int = 0
    count: int | None = None


def _check_stream(s, i: int, end: int):
    if not isinstance(s, MorphStream):
        raise InvalidError(f"stream {i} is not a MorphStream")
    try:
        semantic = MorphSemantic(int(s.semantic))
        index = int(s.set)
    except (TypeError, ValueError):
        raise InvalidError(f"stream {i}: unknown semantic {s.semantic!r}") from None
    if index < 0 or (semantic in SINGLE_SET and index != 0):
        raise InvalidError(f"stream {i}: set {index} refused for {semantic.name}")
    width = COMPONENTS[semantic]
    for what, a in (("source", s.source), ("target", s.target)):
        if not isinstance(a, np.ndarray):
            raise InvalidError(f"stream {i} has no {what}")
        if a.dtype != np.float32 or a.ndim != 2 or a.shape[1] != width:
            raise InvalidError(f"stream {i}'s {what} is not (vertices, {width}) float32, "
                               f"the components of {semantic.name}")
        if a.strides[1] != 4 or a.strides[0] < 4 * width:
            raise InvalidError(f"stream {i}'s {what} has a stride too small")
        if a.shape[0] < end:
            raise InvalidError(f"stream {i}'s {what} holds {a.shape[0]} vertices, "
                               f"the range ends at {end}")
    if not s.target.flags.writeable:
        raise InvalidError(f"stream {i}'s target is read-only")
    return semantic, index, width, s.source, s.target


def apply_morph_targets(job: MorphJob) -> None:
    """maniApplyMorphTargets: each stream's vertices plus its attribute's deltas at the target
    weights, target by target in order (a dense target and a sparse one of the same deltas
    add the same bits, whatever the range), then every normal and tangent of the range
    renormalized, zero kept zero. Checks everything before writing anything. A large
    range runs in spans on both cores (core.threads): each vertex on its own, the same
    bits on any thread count."""
    if not isinstance(job, MorphJob):
        raise InvalidError("not a morph job")
    mt = job.targets
    if not isinstance(mt, MorphTargets):
        raise InvalidError("the job has no opened morph targets")
    if job.weights is None:
        raise InvalidError("no target weights")
    try:
        weights = np.asarray(job.weights, dtype=np.float32).reshape(-1)
    except (TypeError, ValueError):
        raise InvalidError("target weights are not numbers") from None
    if weights.size != mt.target_count:
        raise InvalidError(f"{weights.size} weights for {mt.target_count} targets")
    if not np.isfinite(weights).all():
        raise InvalidError("a target weight not finite")
    n = mt.vertex_count
    first, end = vertex_range(job.first, job.count, n)
    count = end - first
    if job.streams is None:
        raise InvalidError("no streams")
    streams = [_check_stream(s, i, end) for i, s in enumerate(job.streams)]
    if count == 0 or not streams:
        return
    for semantic, index, width, source, target in streams:
        attribute = mt._attribute_of.get((int(semantic), index))
        moves = _NO_MOVES if attribute is None else mt._moves[attribute]
        renormalize = semantic in RENORMALIZED

        def span(lo, hi):
            morph(source, target, lo, hi, moves, weights, mt.deltas, mt._indices, renormalize)
        threads.run_spans(span, first, end, SPAN_VERTICES, [target], [source, target])


_NO_MOVES = np.zeros((0, 5), np.int64)
