"""A compressed clip's sections, checked at the open, and its decoding (clip/compress.py writes
them; clip/compress_kernels.py reads them).

A compressed clip (encoding 1) is a full clip's file with its SAMP and FSMP sections
replaced by these, the CLIP header's first reserved word holding the segment count G:

    CKND  u8[3B + F]     each track's kind: tracked bone b's translation, rotation and scale
                         at 3b, 3b + 1, 3b + 2, then the float tracks: 0 default (the
                         skeleton's rest, an additive clip's identity, a float track's 0; the
                         only kind of a part no channel animates), 1 constant, 2 animated
    CCON  f32[K]         the constants, in track order: 3 floats a translation or scale,
                         4 a rotation (unit, as the full clip held it), 1 a float track
    CRNG  f32[R, 2]      each animated component's range over the clip: minimum, extent (at
                         least 0), in track order: 3 a translation or scale, 4 a rotation
                         (x y z w, each over the samples that keep it), 1 a float track
    CSEG  u32[G + 1]     each segment's first sample, from 0 up, then S
    CRAT  u8[G, C]       each kept component's bit rate index in each segment (low 5 bits,
                         compress_kernels.BIT_RATES: 0 to 19 bits, or 32 for the raw value)
                         and, in a rotation's first kept component, the component it drops
                         there (bits 5 and 6: 0 x to 3 w, its sign fixed at or above 0 and it
                         rebuilt from the other three); bit 7 and every other drop field 0
    CSRN  u8[G, C, 2]    each kept component's range within the clip's range in each segment,
                         in 255ths: minimum, extent, their sum at most 255 (C components: 3 a
                         bone part, a rotation's three it keeps, 1 a float track)
    CBIT  u8[N + 8]      the bit stream, little-endian bit order: segment by segment (each
                         from a whole byte), sample by sample, track by track, component by
                         component at its segment's rate (a rotation whose three kept are
                         raw holds its dropped one raw after them: a raw rotation is the full
                         clip's exactly); then 8 zero bytes, so a read of 8 bytes from any
                         position stays in the section

A component at rate r in a segment decodes (binary32) to cmin + cext * (smin / 255 + sext /
255 * q / (2^bits - 1)), or its 32 bits as a float. Every count, kind, range, rate and offset
is checked at the open, so sampling reads only what the open checked: offsets follow from
the counts and rates, never from a field a corruption could point elsewhere.
"""
from __future__ import annotations

import numpy as np

from . import compress_kernels as ck
from ..core import jit
from ..core.errors import FormatError
from ..core.transform import IDENTITY
from ..pose.skeleton import ROTATION_TOLERANCE

TAGS = (b"CKND", b"CCON", b"CRNG", b"CSEG", b"CRAT", b"CSRN", b"CBIT")
PAD = 8
TRACK_PART = (1, 2, 4)          # clip.PART_T, PART_R, PART_S by a track's place in its bone


def track_widths(tracked: int, floats: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per track: the floats a constant holds, the clip ranges an animated one has and the
    components it keeps in a segment."""
    const = np.array([3, 4, 3] * tracked + [1] * floats, dtype=np.int64)
    ranges = const
    kept = np.array([3, 3, 3] * tracked + [1] * floats, dtype=np.int64)
    return const, ranges, kept


class Stream:
    """A compressed clip's checked sections and the table its decoding reads (meta)."""

    def __init__(self, c, buf, parts: np.ndarray, samples: int, floats: int, segments: int,
                 segments_at: int, limit: float):
        b = parts.size
        ntr = 3 * b + floats
        kinds = c.array(b"CKND", "<u1", (ntr,))
        at = c.offset_of(b"CKND")
        bad = np.flatnonzero(kinds > ck.KIND_ANIMATED)
        if bad.size:
            raise FormatError("track kind unknown", at + int(bad[0]))
        animated_part = np.zeros(ntr, dtype=bool)
        animated_part[3 * b:] = True
        for p, bit in enumerate(TRACK_PART):
            animated_part[p:3 * b:3] = (parts & bit) != 0
        bad = np.flatnonzero(~animated_part & (kinds != ck.KIND_DEFAULT))
        if bad.size:
            raise FormatError("a part no channel animates is not default", at + int(bad[0]))

        cw, rw, aw = track_widths(b, floats)
        is_const = kinds == ck.KIND_CONSTANT
        is_anim = kinds == ck.KIND_ANIMATED
        const_at = np.concatenate([[0], np.cumsum(np.where(is_const, cw, 0))])
        consts = c.array(b"CCON", "<f4", (int(const_at[-1]),))
        self._check_constants(consts, kinds, const_at, b, c.offset_of(b"CCON"), limit)
        anim_index = np.cumsum(is_anim) - 1
        a = int(is_anim.sum())
        range_at = np.concatenate([[0], np.cumsum(np.where(is_anim, rw, 0))])
        comp_at = np.concatenate([[0], np.cumsum(np.where(is_anim, aw, 0))])
        ncomp = int(comp_at[-1])
        ranges = c.array(b"CRNG", "<f4", (int(range_at[-1]), 2))
        _check_ranges(ranges, c.offset_of(b"CRNG"), limit)

        c.check_count(segments, segments_at, {b"CSEG": (4, 1), **({b"CRAT": (ncomp, 0)} if ncomp else {}),
                                              **({b"CSRN": (2 * ncomp, 0)} if ncomp else {})})
        if not 1 <= segments <= samples:
            raise FormatError(f"{segments} segments for {samples} samples", segments_at)
        starts = c.array(b"CSEG", "<u4", (segments + 1,)).astype(np.int64)
        s_at = c.offset_of(b"CSEG")
        if starts[0] != 0:
            raise FormatError("the first segment does not start at sample 0", s_at)
        bad = np.flatnonzero(starts[1:] <= starts[:-1])
        if bad.size:
            raise FormatError("segments not increasing", s_at + 4 * (int(bad[0]) + 1))
        if starts[-1] != samples:
            raise FormatError("the segments do not end at the last sample", s_at + 4 * segments)
        crat = c.array(b"CRAT", "<u1", (segments, ncomp))
        drops = np.zeros(ncomp, dtype=bool)        # where a rotation's drop field is
        rot_tracks = np.flatnonzero(is_anim[:3 * b] & (np.arange(3 * b) % 3 == 1))
        drops[comp_at[rot_tracks]] = True
        wrong = ((crat & ck.RATE_MASK) > ck.RAW) | (crat >= 128) | \
            (~drops[None, :] & (crat >> ck.DROP_SHIFT != 0))
        bad = np.flatnonzero(wrong.reshape(-1))
        if bad.size:
            raise FormatError("bit rate or dropped component unknown", c.offset_of(b"CRAT", int(bad[0])))
        rates = crat & ck.RATE_MASK
        srange = c.array(b"CSRN", "<u1", (segments, ncomp, 2))
        over = srange[..., 0].astype(np.int64) + srange[..., 1] > 255
        bad = np.flatnonzero(over.reshape(-1))
        if bad.size:
            raise FormatError("segment range past the clip's", c.offset_of(b"CSRN", 2 * int(bad[0]) + 1))

        # bits a sample in each segment: every animated track's components at its rate
        per_comp = ck.BIT_RATES[rates]
        first = comp_at[rot_tracks]
        exact = ((rates[:, first] == ck.RAW) & (rates[:, first + 1] == ck.RAW)
                 & (rates[:, first + 2] == ck.RAW)).sum(axis=1)
        bps = per_comp.sum(axis=1) + 32 * exact
        fbit = per_comp[:, :int(comp_at[3 * b])].sum(axis=1) + 32 * exact
        lengths = np.diff(starts)
        seg_bytes = (lengths * bps + 7) // 8
        seg_at = np.concatenate([[0], np.cumsum(seg_bytes)])
        stream = c.array(b"CBIT", "<u1", (int(seg_at[-1]) + PAD,))
        b_at = c.offset_of(b"CBIT")
        pad = stream[-PAD:]
        if pad.any():
            raise FormatError("stream padding not zero", b_at + stream.size - PAD + int(np.flatnonzero(pad)[0]))

        slots = np.where(is_const, const_at[:-1], np.where(is_anim, anim_index, 0))
        tables = [kinds.astype(np.int64), slots, range_at[:-1][is_anim], comp_at[:-1][is_anim],
                  starts, seg_at[:-1], bps, fbit]
        meta = np.zeros(ck.M_HEAD, dtype=np.int64)
        meta[[ck.M_B, ck.M_F, ck.M_A, ck.M_C, ck.M_G, ck.M_S]] = b, floats, a, ncomp, segments, samples
        at = ck.M_HEAD
        for k, table in zip(range(ck.M_KIND, ck.M_FBIT + 1), tables):
            meta[k] = at
            at += table.size
        meta[ck.M_SRANGE] = c.offset_of(b"CSRN")
        meta[ck.M_BITS] = b_at
        meta[ck.M_RATES] = 8 * at
        copy = np.zeros(-(-crat.size // 8) * 8, dtype=np.uint8)
        copy[:crat.size] = crat.reshape(-1)
        self.meta = jit.array(np.concatenate([meta, *[t.astype(np.int64) for t in tables],
                                              copy.view(np.int64)]), np.int64)
        self.buf = jit.array(buf, np.uint8)
        self.consts = jit.array(consts, np.float32)
        self.ranges = jit.array(ranges, np.float32)
        self.tracked = b
        self.floats = floats
        self.rows = jit.array(np.arange(b, dtype=np.int64), np.int64)
        self.bits = int(seg_at[-1])
        self._whole = _Whole(stream, kinds, slots, is_anim, range_at, comp_at,
                             crat.copy(), srange.copy(), starts, seg_at, bps, b)
        bad = self._whole.first_bad_raw(limit, ROTATION_TOLERANCE)
        if bad >= 0:
            raise FormatError("raw value not finite or too large, or padding bit set", b_at + bad // 8)

    @staticmethod
    def _check_constants(consts, kinds, const_at, b, at, limit) -> None:
        v = consts.astype(np.float64)
        bad = np.flatnonzero(~(np.abs(v) < limit))
        if bad.size:
            raise FormatError("constant not finite or too large", at + 4 * int(bad[0]))
        rot = np.flatnonzero(kinds[1:3 * b:3] == ck.KIND_CONSTANT) * 3 + 1
        for t in rot.tolist():
            q = v[const_at[t]:const_at[t] + 4]
            if abs(float(np.sqrt(q @ q)) - 1) > ROTATION_TOLERANCE:
                raise FormatError("constant rotation not of unit length", at + 4 * int(const_at[t]))

    # ---- decoding
    def base(self, rests: np.ndarray, bones: np.ndarray, additive: bool) -> np.ndarray:
        """(B, 10) what a default part decodes to: the tracked bones' rests, or the identity."""
        if additive:
            return jit.array(np.tile(IDENTITY, (bones.size, 1)), np.float32)
        return jit.array(rests[bones], np.float32)

    def pair(self, base, i: int, j: int, a, b, dots) -> None:
        ck.decode_pair(self.buf, self.meta, self.consts, self.ranges, base, self.rows, i, j, a, b, dots)

    def pairs(self, base, first, second, a, b, dots) -> None:
        ck.decode_pairs(self.buf, self.meta, self.consts, self.ranges, base, self.rows,
                        jit.array(first, np.int64), jit.array(second, np.int64), a, b, dots)

    def bones_pair(self, base, i: int, j: int, rows, a, b, dots) -> None:
        ck.decode_bones_pair(self.buf, self.meta, self.consts, self.ranges, base, i, j,
                             jit.array(rows, np.int64), a, b, dots)

    def floats_at(self, k: int, out) -> None:
        ck.decode_floats(self.buf, self.meta, self.consts, self.ranges, k, out)

    def floats_pairs(self, first, second, a, b) -> None:
        ck.decode_floats_pairs(self.buf, self.meta, self.consts, self.ranges,
                               jit.array(first, np.int64), jit.array(second, np.int64), a, b)

    def all(self, base, samples: int) -> tuple[np.ndarray, np.ndarray]:
        """Every sample (S, B, 10), rotations hemisphere-continuous, and the (S - 1, B) dots."""
        return self._whole.decode(base, self.consts, self.ranges)

    def all_floats(self, samples: int) -> np.ndarray:
        out = np.empty((samples, self.floats), dtype=np.float32)
        k = np.arange(samples, dtype=np.int64)
        self.floats_pairs(k, k, out, np.empty_like(out))
        return out


def _check_ranges(ranges: np.ndarray, at: int, limit: float) -> None:
    r = ranges.astype(np.float64)
    lo, ext = r[:, 0], r[:, 1]
    bad = np.flatnonzero(~(np.abs(lo) < limit))
    if bad.size:
        raise FormatError("range minimum not finite or too large", at + 8 * int(bad[0]))
    bad = np.flatnonzero(~((ext >= 0) & (np.abs(lo + ext) < limit)))
    if bad.size:
        raise FormatError("range extent negative, not finite or too large", at + 8 * int(bad[0]) + 4)


class _Whole:
    """The whole stream at once, in numpy: the open's check of every raw value and a graph's
    decode of every sample, each done once per clip, so opening and binding a compressed clip
    compiles nothing. Bit for bit what compress_kernels decodes a sample at a time: the same
    binary32 operations in the same order (numpy rounds each as numba does, without
    contraction), and the same scan order for the first wrong bit."""

    def __init__(self, stream, kinds, slots, is_anim, range_at, comp_at, crat,
                 srange, starts, seg_at, bps, bones):
        segments, ncomp = crat.shape
        self.bones, self.kinds, self.slots = bones, kinds, slots
        self.starts, self.seg_at, self.bps = starts, seg_at, bps
        self.nb = ck.BIT_RATES[crat & ck.RATE_MASK]                        # (G, C)
        self.srange = srange
        # each kept component's track, its place in it and the clip range row it decodes by
        track = np.repeat(np.flatnonzero(is_anim), np.diff(comp_at)[is_anim])
        place = np.arange(ncomp) - comp_at[track]
        rotation = (track < 3 * bones) & (track % 3 == 1)
        first = comp_at[track]                                  # the track's first component
        drop = np.where(rotation[None, :], crat[:, first] >> ck.DROP_SHIFT, 3)
        self.range_row = range_at[track][None, :] + place + (place >= drop)
        # a rotation whose three are raw holds its dropped one raw after the third
        raw3 = np.zeros((segments, ncomp), dtype=bool)
        third = np.flatnonzero(rotation & (place == 2))
        raw3[:, third] = (self.nb[:, third] == 32) & (self.nb[:, third - 1] == 32) \
            & (self.nb[:, third - 2] == 32)
        width = self.nb + 32 * raw3
        self.offset = np.cumsum(width, axis=1) - width                     # in a sample, (G, C)
        self.raw3, self.track, self.place, self.drop = raw3, track, place, drop
        self.rotations = np.flatnonzero(rotation & (place == 0))           # first kept of each
        lengths = np.diff(starts)
        self.segment_of = np.repeat(np.arange(segments), lengths)          # (S,)
        self.sample_at = seg_at[self.segment_of] * 8 + \
            (np.arange(starts[-1]) - starts[self.segment_of]) * bps[self.segment_of]
        self.data_end = seg_at[:-1] * 8 + lengths * bps                   # each segment's last bit
        self.stream = stream                    # read as a decoder reads it: in place

    def _words(self) -> np.ndarray:
        """Every byte position's little-endian 64-bit word (the section's 8 zero bytes after
        its data are there for the last ones): made for one pass, not kept."""
        n = self.stream.size - PAD + 1
        words = np.zeros(n, dtype=np.uint64)
        for m in range(PAD):
            words |= self.stream[m:m + n].astype(np.uint64) << np.uint64(8 * m)
        return words

    @staticmethod
    def _bits(words, pos, nb):
        """The nb-bit fields (nb 0 to 32) at bit positions pos, as uint64."""
        word = words[pos >> 3] >> (pos & 7).astype(np.uint64)
        return word & ((np.uint64(1) << nb.astype(np.uint64)) - np.uint64(1))

    @staticmethod
    def _float(q, dtype=np.float32):
        """The binary32 whose bits are q's low 32, as dtype (a signalling NaN's conversion
        raises no warning: any NaN is a NaN here)."""
        f = (q & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)
        with np.errstate(invalid="ignore"):
            return f.astype(dtype)

    def _positions(self):
        """(S, C) each kept component's bit position, and (S, C) its bits."""
        g = self.segment_of
        return self.sample_at[:, None] + self.offset[g], self.nb[g]

    def first_bad_raw(self, limit: float, tolerance: float) -> int:
        """The bit position (from the stream's start) of the first raw value not finite or at
        or past `limit` in size, of a raw rotation (its four held) whose length is not within
        `tolerance` of 1, or of the first padding bit set at a segment's end; -1 when there
        is none. First in the order a decoder meets them: a component as it is read, a raw
        rotation's four and its length once its third is read."""
        found = []                                          # (when met, which, position)
        words = self._words()
        pos, nb = self._positions()
        raw = nb == 32
        value = self._float(self._bits(words, pos[raw], nb[raw]), np.float64)
        bad = ~(np.abs(value) < limit)
        found += [(p, 0, p) for p in pos[raw][bad][:1].tolist()]
        rot = self.rotations
        g = self.segment_of
        held = self.raw3[g][:, rot + 2]                                    # (S, R)
        if held.any():
            at = pos[:, rot][held]                                         # the first's position
            fourth = at + 96
            four = np.stack([self._float(self._bits(words, at + 32 * c, np.full_like(at, 32)),
                                         np.float64) for c in range(4)])  # (4, n)
            met = fourth
            for c in range(4):
                over = np.flatnonzero(~(np.abs(four[c]) <= 1.0))
                if over.size:
                    k = int(over[0])
                    found.append((int(met[k]), 1 + c, int(at[k] + 32 * c)))
            length = np.sqrt(((four[0] * four[0] + four[1] * four[1]) + four[2] * four[2])
                             + four[3] * four[3])
            off = np.flatnonzero(np.abs(length - 1.0) > tolerance)
            if off.size:
                k = int(off[0])
                found.append((int(met[k]), 5, int(fourth[k])))
        for g0 in range(self.starts.size - 1):
            end, stop = int(self.data_end[g0]), int(self.seg_at[g0 + 1]) * 8
            if end < stop:
                set_bit = np.flatnonzero(self._bits(words, np.arange(end, stop),
                                                    np.ones(stop - end, np.int64)))
                if set_bit.size:
                    found.append((end + int(set_bit[0]), 0, end + int(set_bit[0])))
        return min(found)[2] if found else -1

    def decode(self, base, consts, ranges) -> tuple[np.ndarray, np.ndarray]:
        """Every sample's tracked bones (S, B, 10), each rotation in the previous sample's
        hemisphere, and each sample's rotation dots with the next (S - 1, B). Bytes changed
        after the open decode to whatever IEEE arithmetic makes of them, without warnings."""
        with np.errstate(all="ignore"):
            return self._decode(base, consts, ranges)

    def _decode(self, base, consts, ranges) -> tuple[np.ndarray, np.ndarray]:
        words = self._words()
        pos, nb = self._positions()
        g = self.segment_of
        q = self._bits(words, pos, nb)
        smin = self.srange[g, :, 0].astype(np.float32) / np.float32(255.0)
        sext = self.srange[g, :, 1].astype(np.float32) / np.float32(255.0)
        top = ((np.int64(1) << nb) - 1).astype(np.float32)
        n = np.where(nb > 0, smin + sext * (q.astype(np.float32) / top), smin)
        rows = self.range_row[g]
        value = np.where(nb == 32, self._float(q), ranges[rows, 0] + ranges[rows, 1] * n)
        samples = pos.shape[0]
        out = np.empty((samples, self.bones, 10), dtype=np.float32)
        for p, (col, width) in enumerate(((0, 3), (3, 4), (7, 3))):
            t = 3 * np.arange(self.bones) + p
            for kind in (ck.KIND_DEFAULT, ck.KIND_CONSTANT):
                bones = np.flatnonzero(self.kinds[t] == kind)
                if kind == ck.KIND_DEFAULT:
                    out[:, bones, col:col + width] = base[bones, col:col + width]
                else:
                    at = self.slots[t[bones]][:, None] + np.arange(width)
                    out[:, bones, col:col + width] = consts[at]
        comps = np.flatnonzero(self.track < 3 * self.bones)
        for p in (0, 2):
            first = comps[(self.track[comps] % 3 == p) & (self.place[comps] == 0)]
            bones = self.track[first] // 3
            col = 0 if p == 0 else 7
            for c in range(3):
                out[:, bones, col + c] = value[:, first + c]
        rot = self.rotations
        if rot.size:
            bones = self.track[rot] // 3
            v0, v1, v2 = value[:, rot], value[:, rot + 1], value[:, rot + 2]
            held = self.raw3[g][:, rot + 2]
            s = v0 * v0 + v1 * v1 + v2 * v2
            long = (s >= np.float32(1.0)) & ~held
            r = np.sqrt(np.where(long, s, np.float32(1.0)))
            d = np.where(long, np.float32(0.0), np.sqrt(np.float32(1.0) - s))
            v0, v1, v2 = (np.where(long, v / r, v) for v in (v0, v1, v2))
            at = np.where(held, pos[:, rot + 2] + 32, 0)           # only a held one's is there
            fourth = self._float(self._bits(words, at, np.full_like(at, 32)))
            d = np.where(held, fourth, d)
            drop = self.drop[g][:, rot]
            kept = (v0, v1, v2)
            for j in range(4):
                slot = np.where(drop == j, d, 0)
                for i, v in enumerate(kept):
                    # component j holds kept i where i == j below the drop, i == j - 1 above it
                    slot = np.where((drop != j) & (np.where(j < drop, j, j - 1) == i), v, slot)
                out[:, bones, 3 + j] = slot
        return out, _hemispheres(out)


def _hemispheres(out: np.ndarray) -> np.ndarray:
    """Turns each sample's rotations (out[k, :, 3:7]) into the previous sample's hemisphere,
    in place, and returns their dot products with the previous (S - 1, B), binary32."""
    q = out[:, :, 3:7]
    raw = q[1:, :, 0] * q[:-1, :, 0] + q[1:, :, 1] * q[:-1, :, 1] \
        + q[1:, :, 2] * q[:-1, :, 2] + q[1:, :, 3] * q[:-1, :, 3]
    # sample k turns when its dot with the previous, as that one was turned, is below 0:
    # turned = (turned before) xor (raw dot < 0), restarting (not turned) where the raw
    # dot is 0 or NaN, whose sign no turn changes
    neg, zero = raw < 0, ~((raw < 0) | (raw > 0))
    count = np.cumsum(neg, axis=0)
    restart = np.maximum.accumulate(np.where(zero, count, 0), axis=0)
    turned = ((count - restart) & 1).astype(bool)
    before = np.concatenate([np.zeros_like(turned[:1]), turned[:-1]])
    dots = np.where(before, -raw, raw)
    dots = np.where(dots < 0, -dots, dots)
    q[1:] = np.where(turned[..., None], -q[1:], q[1:])
    return dots
