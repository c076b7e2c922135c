"""The networks' evaluation: dense layers with ReLU between them, after Holden's nnet.h.

The same bits everywhere: each output starts at its bias and adds its inputs' products one
input after another, in the inputs' order (weights stored input-major, so the inner loop runs
over independent outputs and vectorises without reordering any sum); no BLAS, no threads, no
fused multiply-add (strict IEEE, core/jit). An input of exactly zero (ReLU's) adds nothing and
is skipped, as in nnet.h. Weights are float32 or 16-bit: a 16-bit layer multiplies each input
by its kept scale first, then by the integers.

A network's layout lives in a row of `meta` (int64):
    0 quant (1: 16-bit weights)   1 layer count L   2 .. 2+L  the widths, input first
    then per layer: weight offset (into reals, or into quants), scale offset, bias offset
    then the normalization's offsets into reals: input offset, input scale, output offset,
    output scale (normalized input = (x - offset) / scale; output = y * scale + offset)
"""
from __future__ import annotations

import math

import numpy as np

from ..core.jit import kernel

META_WIDTH = 3 + 8 + 1 + 3 * 8 + 4   # room for MAX_LEARNED_LAYERS layers


@kernel(inner=True)
def _add(out, v, w):
    for i in range(out.size):
        out[i] += v * w[i]


@kernel(inner=True)
def _add8(out, v, w0, w1, w2, w3, w4, w5, w6, w7):
    v0, v1, v2, v3, v4, v5, v6, v7 = v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
    for i in range(out.size):
        out[i] = (((((((out[i] + v0 * w0[i]) + v1 * w1[i]) + v2 * w2[i]) + v3 * w3[i])
                    + v4 * w4[i]) + v5 * w5[i]) + v6 * w6[i]) + v7 * w7[i]


@kernel(inner=True)
def _add16(out, v, w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15):
    v0, v1, v2, v3, v4, v5, v6, v7 = v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
    v8, v9, v10, v11, v12, v13, v14, v15 = v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15]
    for i in range(out.size):
        o = (((((((out[i] + v0 * w0[i]) + v1 * w1[i]) + v2 * w2[i]) + v3 * w3[i])
               + v4 * w4[i]) + v5 * w5[i]) + v6 * w6[i]) + v7 * w7[i]
        out[i] = (((((((o + v8 * w8[i]) + v9 * w9[i]) + v10 * w10[i]) + v11 * w11[i])
                    + v12 * w12[i]) + v13 * w13[i]) + v14 * w14[i]) + v15 * w15[i]


@kernel(inner=True)
def _add_quant(out, v, q):
    for i in range(out.size):
        out[i] += v * np.float32(q[i])


@kernel(inner=True)
def _forward(meta, reals, quants, x, a, b, out, vals, rows):
    """Evaluates one network on x into out (its output width); a and b hold the layers in
    between, vals and rows a layer's nonzero inputs and their weights' places. Returns
    whether every output is finite."""
    quant = meta[0]
    layers = meta[1]
    p = 3 + layers
    q = p + 3 * layers
    n = meta[2]
    in_off, in_scale = meta[q], meta[q + 1]
    for j in range(n):
        a[j] = (x[j] - reals[in_off + j]) / reals[in_scale + j]
    src, dst = a, b
    for k in range(layers):
        nin, nout = meta[2 + k], meta[3 + k]
        w, s, bias = meta[p + 3 * k], meta[p + 3 * k + 1], meta[p + 3 * k + 2]
        out_row = dst[:nout]
        out_row[:] = reals[bias:bias + nout]
        if quant:
            for j in range(nin):
                v = src[j]
                if v != 0.0:
                    row = w + j * nout
                    _add_quant(out_row, v * reals[s + j], quants[row:row + nout])
        else:
            # the nonzero inputs gathered, then sixteen a pass (eight, one for the rest):
            # each output still adds them one after another, in the inputs' order
            held = 0
            for j in range(nin):
                v = src[j]
                if v != 0.0:
                    vals[held] = v
                    rows[held] = w + j * nout
                    held += 1
            t = 0
            while t + 16 <= held:
                r = rows[t:t + 16]
                _add16(out_row, vals[t:t + 16], reals[r[0]:r[0] + nout], reals[r[1]:r[1] + nout],
                       reals[r[2]:r[2] + nout], reals[r[3]:r[3] + nout], reals[r[4]:r[4] + nout],
                       reals[r[5]:r[5] + nout], reals[r[6]:r[6] + nout], reals[r[7]:r[7] + nout],
                       reals[r[8]:r[8] + nout], reals[r[9]:r[9] + nout],
                       reals[r[10]:r[10] + nout], reals[r[11]:r[11] + nout],
                       reals[r[12]:r[12] + nout], reals[r[13]:r[13] + nout],
                       reals[r[14]:r[14] + nout], reals[r[15]:r[15] + nout])
                t += 16
            while t + 8 <= held:
                r = rows[t:t + 8]
                _add8(out_row, vals[t:t + 8], reals[r[0]:r[0] + nout], reals[r[1]:r[1] + nout],
                      reals[r[2]:r[2] + nout], reals[r[3]:r[3] + nout], reals[r[4]:r[4] + nout],
                      reals[r[5]:r[5] + nout], reals[r[6]:r[6] + nout], reals[r[7]:r[7] + nout])
                t += 8
            while t < held:
                _add(out_row, vals[t], reals[rows[t]:rows[t] + nout])
                t += 1
        if k + 1 < layers:
            for i in range(nout):
                if not dst[i] > 0.0:
                    dst[i] = 0.0
            src, dst = dst, src
    m = meta[2 + layers]
    out_off, out_scale = meta[q + 2], meta[q + 3]
    finite = True
    for i in range(m):
        y = dst[i] * reals[out_scale + i] + reals[out_off + i]
        out[i] = y
        if not math.isfinite(y):
            finite = False
    return finite


# what `refusal` finds in an evaluation's input and scratch
DONE, INPUT_NOT_FINITE, MISALIGNED = 0, 1, 2
SCRATCH_ALIGN = 8


@kernel(inner=True)
def _rows(raw, width):
    """The scratch bytes (24 * width) as the layers' rows: three float32 rows of `width`,
    one for a layer's nonzero inputs and an int64 row for their weights' places."""
    rows = raw[:8 * width].view(np.int64)
    buf = raw[8 * width:24 * width].view(np.float32)
    return buf[:width], buf[width:2 * width], buf[2 * width:3 * width], buf[3 * width:], rows


@kernel
def refusal(x, raw):
    """The refusal an input not finite or a scratch off SCRATCH_ALIGN gets, else DONE (one
    call: numpy's isfinite and an address through ctypes cost a microsecond each)."""
    for i in range(x.size):
        if not math.isfinite(x[i]):
            return INPUT_NOT_FINITE
    if raw.ctypes.data % SCRATCH_ALIGN:
        return MISALIGNED
    return DONE


@kernel
def project(meta, reals, quants, query, raw, width, out):
    """Projector: the query's state into out, only when every value is finite. Returns
    whether it was."""
    a, b, staged, vals, rows = _rows(raw, width)
    if not _forward(meta, reals, quants, query, a, b, staged, vals, rows):
        return False
    for i in range(out.size):
        out[i] = staged[i]
    return True


@kernel
def step(meta, reals, quants, state, dt, raw, width):
    """Stepper: state += dt * rate of change, only when every new value is finite."""
    a, b, staged, vals, rows = _rows(raw, width)
    if not _forward(meta, reals, quants, state, a, b, staged, vals, rows):
        return False
    n = state.size
    for i in range(n):
        v = state[i] + dt * staged[i]
        if not math.isfinite(v):
            return False
        staged[i] = v
    for i in range(n):
        state[i] = staged[i]
    return True


@kernel(inner=True)
def _rotation(o, at, locals_, bone):
    """Two matrix columns made orthonormal (the first kept, the second made perpendicular,
    the third their cross product) and turned to a unit quaternion (Shepperd's branch on the
    largest diagonal term), in binary64."""
    ax, ay, az = np.float64(o[at]), np.float64(o[at + 1]), np.float64(o[at + 2])
    bx, by, bz = np.float64(o[at + 3]), np.float64(o[at + 4]), np.float64(o[at + 5])
    na = math.sqrt(ax * ax + ay * ay + az * az)
    if na > 0.0 and math.isfinite(na):
        ax, ay, az = ax / na, ay / na, az / na
    else:
        ax, ay, az = 1.0, 0.0, 0.0
    d = ax * bx + ay * by + az * bz
    bx, by, bz = bx - d * ax, by - d * ay, bz - d * az
    nb = math.sqrt(bx * bx + by * by + bz * bz)
    if not (nb > 1e-12 and math.isfinite(nb)):
        # any perpendicular: the axis the first column leans on least, made perpendicular
        ex, ey, ez = 1.0, 0.0, 0.0
        if abs(ay) <= abs(ax) and abs(ay) <= abs(az):
            ex, ey, ez = 0.0, 1.0, 0.0
        elif abs(az) < abs(ax):
            ex, ey, ez = 0.0, 0.0, 1.0
        d = ax * ex + ay * ey + az * ez
        bx, by, bz = ex - d * ax, ey - d * ay, ez - d * az
        nb = math.sqrt(bx * bx + by * by + bz * bz)
    bx, by, bz = bx / nb, by / nb, bz / nb
    cx, cy, cz = ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx
    # matrix columns (a, b, c): m[r][k]
    m00, m10, m20 = ax, ay, az
    m01, m11, m21 = bx, by, bz
    m02, m12, m22 = cx, cy, cz
    tr = m00 + m11 + m22
    if tr > 0.0:
        s = math.sqrt(tr + 1.0) * 2.0
        w, x, y, z = 0.25 * s, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s
    elif m00 > m11 and m00 > m22:
        s = math.sqrt(1.0 + m00 - m11 - m22) * 2.0
        w, x, y, z = (m21 - m12) / s, 0.25 * s, (m01 + m10) / s, (m02 + m20) / s
    elif m11 > m22:
        s = math.sqrt(1.0 + m11 - m00 - m22) * 2.0
        w, x, y, z = (m02 - m20) / s, (m01 + m10) / s, 0.25 * s, (m12 + m21) / s
    else:
        s = math.sqrt(1.0 + m22 - m00 - m11) * 2.0
        w, x, y, z = (m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, 0.25 * s
    n = math.sqrt(w * w + x * x + y * y + z * z)
    if w < 0.0:
        n = -n
    locals_[bone, 3] = x / n
    locals_[bone, 4] = y / n
    locals_[bone, 5] = z / n
    locals_[bone, 6] = w / n


@kernel
def decompress(meta, reals, quants, state, raw, width, scaled, scales, locals_, root, floats,
               events, tracks_at):
    """Decompressor: the outputs staged, then (only when every one is finite) written:
    per bone translation and rotation (9 floats), each scaled bone's scale (3; the others
    keep `scales`), the root's motion (6), the float tracks and the events' states."""
    a, b, staged, vals, rows = _rows(raw, width)
    if not _forward(meta, reals, quants, state, a, b, staged, vals, rows):
        return False
    bones = locals_.shape[0]
    for bone in range(bones):
        at = 9 * bone
        locals_[bone, 0] = staged[at]
        locals_[bone, 1] = staged[at + 1]
        locals_[bone, 2] = staged[at + 2]
        _rotation(staged, at + 3, locals_, bone)
        locals_[bone, 7] = scales[bone, 0]
        locals_[bone, 8] = scales[bone, 1]
        locals_[bone, 9] = scales[bone, 2]
    at = 9 * bones
    for k in range(scaled.size):
        bone = scaled[k]
        locals_[bone, 7] = staged[at]
        locals_[bone, 8] = staged[at + 1]
        locals_[bone, 9] = staged[at + 2]
        at += 3
    for i in range(root.size):
        root[i] = staged[at + i]
    for i in range(floats.size):
        floats[i] = staged[tracks_at + i]
    for i in range(events.size):
        events[i] = staged[tracks_at + floats.size + i]
    return True
