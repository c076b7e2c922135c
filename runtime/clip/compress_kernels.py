"""Compressed clips' compiled code (runtime.core.jit): reading a sample out of the bit stream,
and the compressor's error search. (The open's check of the raw values and a graph's decode
of every sample at once are numpy, in clip/compressed.py: done once per clip, they compile
nothing, and a test holds them to these kernels bit for bit.)

The runtime's decode and the compressor's measurement call the same `component` and
`place_rotation`, so what the compressor measured is what a clip samples, bit for bit: every
decode step is binary32 arithmetic in a fixed order (no fastmath, so no contraction).

A decoder reads a compressed clip through one int64 table, `meta` (clip/compressed.py builds
it at the open from the checked sections): the counts, then per track its kind and slot,
per animated track its first component, per segment its first sample, byte offset, bits a
sample and where the float tracks start in a sample, where the segment range and bit
sections lie in the file's bytes, and a private copy of the rates (bytes, at the byte offset
meta[M_RATES] of meta's own bytes), which every position is worked out from.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.jit import kernel
from .kernels import segment
from ..pose.lanes import lerp_row

# bits a component at each rate index: 0 holds the segment's minimum, 32 the binary32 value
BIT_RATES = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 32],
                     dtype=np.int64)
RAW = BIT_RATES.size - 1            # the rate index of the raw binary32 value (the others: their bits)
KIND_DEFAULT, KIND_CONSTANT, KIND_ANIMATED = 0, 1, 2

# meta's head: counts, then where each table starts in meta
M_B, M_F, M_A, M_C, M_G, M_S = 0, 1, 2, 3, 4, 5
M_KIND, M_SLOT, M_COMP, M_SCOMP, M_START, M_BYTE, M_BPS, M_FBIT = 6, 7, 8, 9, 10, 11, 12, 13
M_RATES, M_SRANGE, M_BITS = 14, 15, 16
M_HEAD = 17
RATE_MASK, DROP_SHIFT = 31, 5     # a CRAT byte: the rate index, and a rotation's dropped component

MAX_F32 = float(np.finfo(np.float32).max)


# ---- one component ---------------------------------------------------------------------
@kernel
def bits_of(rate):
    """BIT_RATES[rate] (a comparison, cheaper than a table read in the compiled loops)."""
    return 32 if rate == RAW else np.int64(rate)


@kernel
def read_bits(buf, pos, nb):
    """`nb` (0 to 32) bits at bit `pos` of the little-endian bit stream in `buf` (bytes past
    the stream's end are its padding, so 8 bytes from any start are there)."""
    if nb == 0:
        return np.uint64(0)
    at = pos >> 3
    word = np.uint64(0)
    for k in range(8):
        word |= np.uint64(buf[at + k]) << np.uint64(8 * k)
    word >>= np.uint64(pos & 7)
    return word & ((np.uint64(1) << np.uint64(nb)) - np.uint64(1))


@kernel
def as_float(q):
    """The binary32 whose bits are q's low 32 (exact; any NaN for a NaN's bits), without the
    allocation a view would make."""
    q = np.uint64(q) & np.uint64(0xFFFFFFFF)
    e = np.int64((q >> np.uint64(23)) & np.uint64(255))
    m = np.int64(q & np.uint64(0x7FFFFF))
    if e == 255:
        v = math.inf if m == 0 else math.nan
    elif e == 0:
        v = math.ldexp(np.float64(m), -149)
    else:
        v = math.ldexp(np.float64(m | 0x800000), int(e - 150))
    return np.float32(-v if q >> np.uint64(31) else v)


@kernel
def component(q, nb, smin, sext, cmin, cext):
    """A component's binary32 value from its quantized bits: the segment's range within the
    clip's, then the clip's range; 32 bits are the value itself."""
    if nb == 32:
        return as_float(q)
    lo = np.float32(smin) / np.float32(255.0)
    ext = np.float32(sext) / np.float32(255.0)
    n = lo
    if nb:
        n = lo + ext * (np.float32(q) / np.float32((1 << nb) - 1))
    return np.float32(cmin) + np.float32(cext) * n


@kernel
def _rebuilt(v0, v1, v2):
    """The three kept components (scaled to unit length when longer than 1) and the dropped
    one rebuilt at or above 0 (its sign was fixed so), binary32."""
    s = v0 * v0 + v1 * v1 + v2 * v2
    one = np.float32(1.0)
    if s >= one:
        r = np.float32(math.sqrt(s))
        return v0 / r, v1 / r, v2 / r, np.float32(0.0)
    return v0, v1, v2, np.float32(math.sqrt(one - s))


@kernel
def place_rotation(row, drop, v0, v1, v2):
    """row[3:7] from a rotation's three kept components (in order, the dropped one left out):
    the dropped one rebuilt at or above 0 (its sign was fixed so), or 0 with the three scaled
    to unit length when the quantized three are longer than 1. Binary32."""
    v0, v1, v2, d = _rebuilt(v0, v1, v2)
    if drop == 0:
        row[3], row[4], row[5], row[6] = d, v0, v1, v2
    elif drop == 1:
        row[3], row[4], row[5], row[6] = v0, d, v1, v2
    elif drop == 2:
        row[3], row[4], row[5], row[6] = v0, v1, d, v2
    else:
        row[3], row[4], row[5], row[6] = v0, v1, v2, d


# ---- decoding ---------------------------------------------------------------------------
@kernel
def segment_of(meta, k):
    """The segment holding sample k (a search of the segments' first samples)."""
    start = meta[M_START]
    lo, hi = 0, meta[M_G] - 1
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if meta[start + mid] <= k:
            lo = mid
        else:
            hi = mid - 1
    return lo


@kernel
def _rate(buf, meta, g, k):
    """Kept component k's CRAT byte in segment g, from meta's private copy (so bytes changed
    after the open cannot move a read past the stream)."""
    return meta.view(np.uint8)[meta[M_RATES] + g * meta[M_C] + k]


@kernel
def _sample_start(meta, g, k):
    return meta[meta[M_BYTE] + g] * 8 + (k - meta[meta[M_START] + g]) * meta[meta[M_BPS] + g]


@kernel
def _sample(buf, meta, consts, ranges, base, k, rows, out):
    """Sample k's tracked bones `rows` (increasing) into out[r] (10 floats each), the others'
    bits skipped. One flat loop: a call per part would cost more than its arithmetic."""
    nbones = meta[M_B]
    kinds, slots, comps, scomps = meta[M_KIND], meta[M_SLOT], meta[M_COMP], meta[M_SCOMP]
    g = segment_of(meta, k)
    at = meta[M_BITS] * 8 + _sample_start(meta, g, k)
    rates = meta[M_RATES] + g * meta[M_C]
    seg = meta[M_SRANGE] + 2 * g * meta[M_C]
    rb = meta.view(np.uint8)
    r = 0
    for b in range(nbones):
        if r >= rows.size:
            break
        want = rows[r] == b
        for p in range(3):
            t = 3 * b + p
            kind = meta[kinds + t]
            col = 3 * p if p < 2 else 7
            width = 4 if p == 1 else 3
            if kind != KIND_ANIMATED:
                if want:
                    slot = meta[slots + t]
                    for c in range(width):
                        out[r, col + c] = base[b, col + c] if kind == KIND_DEFAULT else consts[slot + c]
                continue
            a = meta[slots + t]
            sc = meta[scomps + a]
            rc = meta[comps + a]
            drop = (rb[rates + sc] >> DROP_SHIFT) if p == 1 else 3
            raw = p == 1
            v0 = v1 = v2 = np.float32(0.0)
            for c in range(3):
                nb = bits_of(rb[rates + sc + c] & RATE_MASK)
                raw = raw and nb == 32
                if want:
                    q = np.uint64(0)
                    if nb:                          # read_bits, inline
                        byte = at >> 3
                        for m in range(8):
                            q |= np.uint64(buf[byte + m]) << np.uint64(8 * m)
                        q = (q >> np.uint64(at & 7)) & ((np.uint64(1) << np.uint64(nb)) - np.uint64(1))
                    kk = c if c < drop else c + 1
                    x = component(q, nb, buf[seg + 2 * (sc + c)], buf[seg + 2 * (sc + c) + 1],
                                  ranges[rc + kk, 0], ranges[rc + kk, 1])
                    if c == 0:
                        v0 = x
                    elif c == 1:
                        v1 = x
                    else:
                        v2 = x
                at += nb
            if not want:
                if raw:
                    at += 32
                continue
            if p != 1:
                out[r, col], out[r, col + 1], out[r, col + 2] = v0, v1, v2
                continue
            if raw:
                d = as_float(read_bits(buf, at, 32))
                at += 32
            else:
                v0, v1, v2, d = _rebuilt(v0, v1, v2)
            if drop == 0:
                out[r, 3], out[r, 4], out[r, 5], out[r, 6] = d, v0, v1, v2
            elif drop == 1:
                out[r, 3], out[r, 4], out[r, 5], out[r, 6] = v0, d, v1, v2
            elif drop == 2:
                out[r, 3], out[r, 4], out[r, 5], out[r, 6] = v0, v1, d, v2
            else:
                out[r, 3], out[r, 4], out[r, 5], out[r, 6] = v0, v1, v2, d
        if want:
            r += 1


@kernel
def interpolate(a, b, dots, f, bones, fill, out):
    """A pose's locals from two samples (a clip's, a cursor's or decoded ones): every bone
    `fill` (its rest or the identity) unless every bone is tracked, each tracked bone's
    row a + f (b - a), its rotation divided by sqrt(1 - c (1 - a.b)), c = 2 f (1 - f)
    (binary32, the scalars rounded as numpy rounds them)."""
    f32 = np.float32(f)
    c = 2.0 * f * (1.0 - f)
    c32 = np.float32(c)
    rest = np.float32(1.0 - c)
    if bones.size != out.shape[0]:
        for k in range(out.shape[0]):
            for col in range(10):
                out[k, col] = fill[k, col]
    for r in range(bones.size):     # a row in binary32 lanes (pose/lanes.py), same bits
        norm = np.float32(math.sqrt(dots[r] * c32 + rest)) if c else np.float32(1.0)
        lerp_row(out, bones[r], a, r, b, r, f32, norm)


@kernel
def sample_at(samples, dots, t, grid, bones, fill, out):
    """A full clip's pose at time t in one call: segment() on the grid (rate, duration and
    last sample, grid's three binary64 numbers), then interpolate() from the two samples
    in place (a clip of one sample has no dots and interpolates at 0, reading none)."""
    i, j, f = segment(t, grid[0], grid[1], np.int64(grid[2]))
    if dots.shape[0]:
        interpolate(samples[i], samples[j], dots[i], f, bones, fill, out)
    else:
        interpolate(samples[i], samples[j], dots.reshape(-1), f, bones, fill, out)


@kernel
def interpolate_batch(first, second, dots, i, j, f, lo, hi, bones, fill, rows, out):
    """Poses lo to hi - 1 of a batch: pose rows[k] (k itself where rows is empty) from
    first[i[k]] and second[j[k]] at f[k] (binary32) with dots[i[k]], as interpolate makes
    one pose but with c = 2 f (1 - f) in binary32, as the batched numpy path it replaced
    did; the rotation divided by the length even at c = 0 (by 1: the same bits). Each pose
    on its own from inputs no pose writes: spans of poses on several threads give the bits
    of one call (given rows without repeats)."""
    two, one = np.float32(2.0), np.float32(1.0)
    whole = bones.size == out.shape[1]
    for k in range(lo, hi):
        o = out[rows[k] if rows.size else k]
        if not whole:
            for bone in range(o.shape[0]):
                for col in range(10):
                    o[bone, col] = fill[bone, col]
        fk = f[k]
        c = two * fk * (one - fk)
        rest = one - c
        a, b = first[i[k]], second[j[k]]
        for r in range(bones.size):     # none for a clip of one sample: its norm is 1
            norm = np.float32(math.sqrt(dots[i[k], r] * c + rest)) if dots.shape[0] else one
            lerp_row(o, bones[r], a, r, b, r, fk, norm)


@kernel
def _hemispheres(a, b, dots):
    """Each of b's rotations turned into a's hemisphere; their dot products, binary32."""
    for r in range(a.shape[0]):
        d = a[r, 3] * b[r, 3] + a[r, 4] * b[r, 4] + a[r, 5] * b[r, 5] + a[r, 6] * b[r, 6]
        if d < 0:
            for c in range(3, 7):
                b[r, c] = -b[r, c]
            d = -d
        dots[r] = d


@kernel
def decode_pair(buf, meta, consts, ranges, base, rows, i, j, a, b, dots):
    """Samples i and j of the tracked bones `rows` into a and b, b's rotations in a's
    hemisphere, and their dot products (nlerp's lengths) into dots."""
    _sample(buf, meta, consts, ranges, base, i, rows, a)
    _sample(buf, meta, consts, ranges, base, j, rows, b)
    _hemispheres(a, b, dots)


@kernel
def decode_bones_pair(buf, meta, consts, ranges, base, i, j, rows, a, b, dots):
    """decode_pair for the tracked bones `rows` (increasing) alone."""
    decode_pair(buf, meta, consts, ranges, base, rows, i, j, a, b, dots)


@kernel
def decode_pairs(buf, meta, consts, ranges, base, rows, first, second, a, b, dots):
    """decode_pair for each of the times' sample pairs: into a[k], b[k] and dots[k]."""
    for k in range(first.size):
        decode_pair(buf, meta, consts, ranges, base, rows, first[k], second[k], a[k], b[k], dots[k])


@kernel
def decode_floats(buf, meta, consts, ranges, k, out):
    """Sample k's float tracks into out (F floats)."""
    nbones, nf = meta[M_B], meta[M_F]
    g = segment_of(meta, k)
    at = meta[M_BITS] * 8 + _sample_start(meta, g, k) + meta[meta[M_FBIT] + g]
    rates = meta[M_RATES] + g * meta[M_C]
    seg = meta[M_SRANGE] + 2 * g * meta[M_C]
    for f in range(nf):
        t = 3 * nbones + f
        kind = meta[meta[M_KIND] + t]
        slot = meta[meta[M_SLOT] + t]
        if kind == KIND_DEFAULT:
            out[f] = 0.0
        elif kind == KIND_CONSTANT:
            out[f] = consts[slot]
        else:
            sc = meta[meta[M_SCOMP] + slot]
            rc = meta[meta[M_COMP] + slot]
            nb = bits_of(meta.view(np.uint8)[rates + sc] & RATE_MASK)
            out[f] = component(read_bits(buf, at, nb), nb, buf[seg + 2 * sc], buf[seg + 2 * sc + 1],
                               ranges[rc, 0], ranges[rc, 1])
            at += nb


@kernel
def decode_floats_pairs(buf, meta, consts, ranges, first, second, a, b):
    """decode_floats of each pair: sample first[k] into a[k], second[k] into b[k]."""
    for k in range(first.size):
        decode_floats(buf, meta, consts, ranges, first[k], a[k])
        decode_floats(buf, meta, consts, ranges, second[k], b[k])


# ---- the compressor's side --------------------------------------------------------------
@kernel
def write_bits(out, pos, value, nb):
    """Writes `nb` bits of `value` at bit `pos` of a zeroed little-endian bit stream."""
    for k in range(nb):
        if (value >> np.uint64(k)) & np.uint64(1):
            p = pos + k
            out[p >> 3] |= np.uint8(1 << (p & 7))


@kernel
def quantize(n, nb, smin, sext):
    """The bits of a normalized value n (in the clip's range) at nb bits within the segment
    range (smin, sext in 255ths): the nearest level of the decode's grid."""
    if nb == 0:
        return np.uint64(0)
    lo = np.float64(np.float32(smin) / np.float32(255.0))
    ext = np.float64(np.float32(sext) / np.float32(255.0))
    top = (1 << nb) - 1
    if not ext > 0:
        return np.uint64(0)
    u = (n - lo) / ext * top
    q = math.floor(u + 0.5)
    if q < 0:
        q = 0
    if q > top:
        q = top
    return np.uint64(q)


@kernel
def _affine(row, m):
    """A local (10 floats) as its 3 x 4 affine in binary64, the pose's rule: the quaternion's
    homogeneous rotation matrix, column j scaled by s_j."""
    tx, ty, tz = np.float64(row[0]), np.float64(row[1]), np.float64(row[2])
    x, y, z, w = np.float64(row[3]), np.float64(row[4]), np.float64(row[5]), np.float64(row[6])
    sx, sy, sz = np.float64(row[7]), np.float64(row[8]), np.float64(row[9])
    xx, yy, zz, ww = x * x, y * y, z * z, w * w
    m[0, 0], m[0, 1], m[0, 2], m[0, 3] = (ww + xx - yy - zz) * sx, 2 * (x * y - z * w) * sy, 2 * (x * z + y * w) * sz, tx
    m[1, 0], m[1, 1], m[1, 2], m[1, 3] = 2 * (x * y + z * w) * sx, (ww - xx + yy - zz) * sy, 2 * (y * z - x * w) * sz, ty
    m[2, 0], m[2, 1], m[2, 2], m[2, 3] = 2 * (x * z - y * w) * sx, 2 * (y * z + x * w) * sy, (ww - xx - yy + zz) * sz, tz


@kernel
def _times(p, l, m):
    """m = p l for 3 x 4 affines."""
    for i in range(3):
        a0, a1, a2 = p[i, 0], p[i, 1], p[i, 2]
        for j in range(4):
            m[i, j] = a0 * l[0, j] + a1 * l[1, j] + a2 * l[2, j]
        m[i, 3] += p[i, 3]


@kernel
def compose_models(parents, locals_, model):
    """(m, n, 10) locals to (m, n, 3, 4) binary64 model affines (parents before children)."""
    loc = np.empty((3, 4))
    for s in range(locals_.shape[0]):
        for b in range(locals_.shape[1]):
            p = parents[b]
            if p >= 0:
                _affine(locals_[s, b], loc)
                _times(model[s, p], loc, model[s, b])
            else:
                _affine(locals_[s, b], model[s, b])


@kernel
def shell_error(m, ref, d):
    """The largest distance between the six virtual vertices at +-d on a bone's axes under two
    affines (the lossy and the reference)."""
    worst = 0.0
    for axis in range(3):
        for sign in (-1.0, 1.0):
            e2 = 0.0
            for i in range(3):
                e = sign * d * (m[i, axis] - ref[i, axis]) + (m[i, 3] - ref[i, 3])
                e2 += e * e
            if e2 > worst:
                worst = e2
    return math.sqrt(worst)


@kernel
def subtree_error(parents, lossy, raw_locals, raw_model, k, end, d, scratch):
    """The worst shell error over bones k to end - 1 (bone k's subtree) and the segment's
    samples, bone k's local taken from `lossy`, its ancestors' and descendants' from the
    reference: what bone k's own quantization costs its whole subtree."""
    worst = 0.0
    loc = np.empty((3, 4))
    for s in range(lossy.shape[0]):
        p = parents[k]
        _affine(lossy[s, k], loc)
        if p >= 0:
            _times(raw_model[s, p], loc, scratch[k])
        else:
            scratch[k, :, :] = loc
        e = shell_error(scratch[k], raw_model[s, k], d)
        if e > worst:
            worst = e
        for c in range(k + 1, end):
            _affine(raw_locals[s, c], loc)
            _times(scratch[parents[c]], loc, scratch[c])
            e = shell_error(scratch[c], raw_model[s, c], d)
            if e > worst:
                worst = e
    return worst


@kernel
def chain_error(chain, parents, lossy, raw_model, d, scratch):
    """The worst shell error of the chain's last bone over the segment's samples, every bone
    of the chain (root first) taken from `lossy`."""
    worst = 0.0
    loc = np.empty((3, 4))
    last = chain[chain.size - 1]
    for s in range(lossy.shape[0]):
        for k in range(chain.size):
            b = chain[k]
            _affine(lossy[s, b], loc)
            if k:
                _times(scratch[chain[k - 1]], loc, scratch[b])
            else:
                scratch[b, :, :] = loc
        e = shell_error(scratch[last], raw_model[s, last], d)
        if e > worst:
            worst = e
    return worst


@kernel
def _set_track(lossy, raw, bone, part, c0, drop, rates, values, normal, ranges, srange):
    """Writes an animated bone track's segment samples at its components' rates into lossy,
    decoded as a clip decodes them (so the search measures what the clip will play). Its
    components from c0 on in the segment's rates, values, normalized values and ranges; a
    rotation's dropped one `drop` (held raw, as the full clip's, when the three kept are)."""
    col = 3 * part if part < 2 else 7
    exact = part == 1 and rates[c0] == RAW and rates[c0 + 1] == RAW and rates[c0 + 2] == RAW
    v = np.empty(3, dtype=np.float32)
    for s in range(lossy.shape[0]):
        for c in range(3):
            k = c0 + c
            nb = bits_of(rates[k])
            if nb == 32:
                v[c] = values[s, k]
            else:
                q = quantize(normal[s, k], nb, srange[k, 0], srange[k, 1])
                v[c] = component(q, nb, srange[k, 0], srange[k, 1], ranges[k, 0], ranges[k, 1])
        if exact:
            flip = np.float32(-1.0) if raw[s, bone, 3 + drop] < 0 else np.float32(1.0)
            for c in range(4):
                lossy[s, bone, 3 + c] = raw[s, bone, 3 + c] * flip
        elif part == 1:
            place_rotation(lossy[s, bone], drop, v[0], v[1], v[2])
        else:
            for c in range(3):
                lossy[s, bone, col + c] = v[c]


@kernel
def choose_bone_rates(parents, ends, raw_locals, raw_model, tracks, values, normal, ranges,
                      srange, precision, share, d, rates):
    """A segment's bit rates for the bones' animated components (tracks: rows of bone, part,
    first component, dropped component; rates: each kept component's, written for these),
    the fewest bits keeping every bone's shell within `precision` at every sample, measured
    in model space. First each component alone (the others exact) at the fewest bits that
    keep its bone's whole subtree within `share` of the precision; then, bone by bone from
    the roots, while a bone's shell is outside the precision with every component at its
    rate, the component of the bone or an ancestor whose next rate buys the most error per
    bit is raised; last, each component is lowered while its bone's subtree stays within."""
    n = parents.size
    lossy = raw_locals.copy()
    scratch = np.zeros((n, 3, 4))
    nt = tracks.shape[0]
    for t in range(nt):
        bone, part, c0, drop = tracks[t, 0], tracks[t, 1], tracks[t, 2], tracks[t, 3]
        found = np.empty(3, dtype=np.int64)
        for c in range(3):
            rates[c0 + c] = RAW
        for c in range(3):
            lo, hi = 0, RAW
            while lo < hi:
                mid = (lo + hi) // 2
                rates[c0 + c] = mid
                _set_track(lossy, raw_locals, bone, part, c0, drop, rates, values, normal, ranges, srange)
                if subtree_error(parents, lossy, raw_locals, raw_model, bone, ends[bone], d,
                                 scratch) <= share * precision:
                    hi = mid
                else:
                    lo = mid + 1
            found[c] = lo
            rates[c0 + c] = RAW
        lossy[:, bone] = raw_locals[:, bone]
        for c in range(3):
            rates[c0 + c] = found[c]
    for t in range(nt):
        _set_track(lossy, raw_locals, tracks[t, 0], tracks[t, 1], tracks[t, 2], tracks[t, 3], rates, values,
                   normal, ranges, srange)
    first = np.full(n + 1, nt, dtype=np.int64)
    for t in range(nt - 1, -1, -1):
        first[tracks[t, 0]] = t
    chain = np.empty(n, dtype=np.int64)
    for _ in range(64):
        changed = False
        for k in range(n):
            depth = 0
            b = k
            while b >= 0:
                chain[depth] = b
                depth += 1
                b = parents[b]
            path = chain[:depth][::-1].copy()
            err = chain_error(path, parents, lossy, raw_model, d, scratch)
            while err > precision:
                best, best_gain, best_err = -1, -np.inf, err
                for u in range(depth):
                    b = path[u]
                    t = first[b]
                    while t < nt and tracks[t, 0] == b:
                        for c in range(3):
                            k2 = tracks[t, 2] + c
                            r = rates[k2]
                            if r < RAW:
                                rates[k2] = r + 1
                                _set_track(lossy, raw_locals, b, tracks[t, 1], tracks[t, 2], tracks[t, 3], rates,
                                           values, normal, ranges, srange)
                                e = chain_error(path, parents, lossy, raw_model, d, scratch)
                                rates[k2] = r
                                _set_track(lossy, raw_locals, b, tracks[t, 1], tracks[t, 2], tracks[t, 3], rates,
                                           values, normal, ranges, srange)
                                gain = (err - e) / (bits_of(r + 1) - bits_of(r))
                                if gain > best_gain:
                                    best, best_gain, best_err = 3 * t + c, gain, e
                        t += 1
                if best < 0:
                    break               # every component of the chain raw: as close as it gets
                t = best // 3
                rates[tracks[t, 2] + best % 3] += 1
                _set_track(lossy, raw_locals, tracks[t, 0], tracks[t, 1], tracks[t, 2], tracks[t, 3], rates,
                           values, normal, ranges, srange)
                err = best_err
                changed = True
        if not changed:
            break
    for t in range(nt):
        bone, part, c0, drop = tracks[t, 0], tracks[t, 1], tracks[t, 2], tracks[t, 3]
        for c in range(3):
            while rates[c0 + c] > 0:
                rates[c0 + c] -= 1
                _set_track(lossy, raw_locals, bone, part, c0, drop, rates, values, normal, ranges, srange)
                if lossy_subtree_error(parents, lossy, raw_model, bone, ends[bone], d, scratch) > precision:
                    rates[c0 + c] += 1
                    _set_track(lossy, raw_locals, bone, part, c0, drop, rates, values, normal, ranges, srange)
                    break


@kernel
def lossy_subtree_error(parents, lossy, raw_model, k, end, d, scratch):
    """The worst shell error over bone k's subtree and the segment's samples, every bone (its
    ancestors too) taken from `lossy`."""
    worst = 0.0
    loc = np.empty((3, 4))
    chain = np.empty(parents.size, dtype=np.int64)
    depth = 0
    b = parents[k]
    while b >= 0:
        chain[depth] = b
        depth += 1
        b = parents[b]
    for s in range(lossy.shape[0]):
        for u in range(depth - 1, -1, -1):
            b = chain[u]
            _affine(lossy[s, b], loc)
            if u < depth - 1:
                _times(scratch[chain[u + 1]], loc, scratch[b])
            else:
                scratch[b, :, :] = loc
        for c in range(k, end):
            _affine(lossy[s, c], loc)
            p = parents[c]
            if p >= 0:
                _times(scratch[p], loc, scratch[c])
            else:
                scratch[c, :, :] = loc
            e = shell_error(scratch[c], raw_model[s, c], d)
            if e > worst:
                worst = e
    return worst


@kernel
def choose_float_rates(comps, values, normal, ranges, srange, tolerance, rates):
    """A segment's bit rates for its animated float tracks (comps: their components): the
    fewest bits keeping each within the tolerance at every sample."""
    for t in range(comps.size):
        k = comps[t]
        r = 0
        while r < RAW:
            nb = bits_of(r)
            ok = True
            for s in range(values.shape[0]):
                q = quantize(normal[s, k], nb, srange[k, 0], srange[k, 1])
                v = component(q, nb, srange[k, 0], srange[k, 1], ranges[k, 0], ranges[k, 1])
                if not abs(np.float64(v) - np.float64(values[s, k])) <= tolerance:
                    ok = False
                    break
            if ok:
                break
            r += 1
        rates[k] = r


@kernel
def _raw_bits(x):
    """A binary32's bits (the compressor's side, where an allocation costs nothing)."""
    return np.uint64(np.array([x], dtype=np.float32).view(np.uint32)[0])


@kernel
def pack(starts, rates, values, normal, srange, rotation_of, dropped, seg_at, out):
    """The bit stream: segment by segment from its byte, sample by sample, each kept component
    at its rate in the segment; after a rotation's three kept components (rotation_of: at
    the third, the first's column; -1 elsewhere), when the three are raw, its dropped one
    (dropped, at the first's column) raw."""
    for g in range(starts.size - 1):
        pos = seg_at[g] * 8
        for s in range(starts[g], starts[g + 1]):
            for k in range(values.shape[1]):
                nb = bits_of(rates[g, k] & RATE_MASK)
                if nb == 32:
                    q = _raw_bits(values[s, k])
                else:
                    q = quantize(normal[s, k], nb, srange[g, k, 0], srange[g, k, 1])
                write_bits(out, pos, q, nb)
                pos += nb
                f = rotation_of[k]
                if f >= 0 and (rates[g, f] & RATE_MASK) == RAW and (rates[g, f + 1] & RATE_MASK) == RAW \
                        and (rates[g, f + 2] & RATE_MASK) == RAW:
                    write_bits(out, pos, _raw_bits(dropped[s, f]), 32)
                    pos += 32


@kernel
def worst_shell(model, ref, d):
    """The worst shell error over (S, n) models against the reference: (error, bone, sample)."""
    worst, bone, sample = 0.0, 0, 0
    for s in range(model.shape[0]):
        for b in range(model.shape[1]):
            e = shell_error(model[s, b], ref[s, b], d)
            if e > worst:
                worst, bone, sample = e, b, s
    return worst, bone, sample
