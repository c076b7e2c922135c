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
        bad = ck.first_bad_raw(self.buf, self.meta, self.ranges, limit, ROTATION_TOLERANCE)
        if bad >= 0:
            raise FormatError("raw value not finite or too large, or padding bit set", b_at + bad // 8)
        self.tracked = b
        self.floats = floats
        self.rows = jit.array(np.arange(b, dtype=np.int64), np.int64)
        self.bits = int(seg_at[-1])

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
        out = np.empty((samples, self.tracked, 10), dtype=np.float32)
        dots = np.empty((max(samples - 1, 0), self.tracked), dtype=np.float32)
        ck.decode_all(self.buf, self.meta, self.consts, self.ranges, base, self.rows, out, dots)
        return out, dots

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
