"""The trainer's loops: dense networks forward and backward, AdamW, the exact nearest frame.

Every sum runs in one fixed order, whatever calls it and on whatever thread: an output starts
at its bias and adds its inputs' products in the inputs' order; a weight's gradient adds its
rows' products in the rows' order. No BLAS (numpy's matmul blocks its sums by thread count)
and strict IEEE (core/jit), so a chunk's gradient is the same bits on any worker.

A network's parameters are one float64 vector: per layer its weights (inputs, outputs),
input-major, then its biases; `dims` (int64) its widths, input first. ReLU between layers,
the last layer linear (as the model's evaluation, learned/kernels.py).
"""
from __future__ import annotations

import math

import numpy as np

from ...core.jit import kernel

ADAMW_BLOCK = 4096          # parameters whose sums AdamW keeps at a time (32 KB)


@kernel(inner=True, inline=True)
def _axpy(out, v, w):
    """out += v * w, element by element."""
    for j in range(out.size):
        out[j] += v * w[j]


@kernel(inner=True, inline=True)
def _add(out, part):
    """out += part, element by element."""
    for j in range(out.size):
        out[j] += part[j]


@kernel(inner=True, inline=True)
def _sums(params, w, n_out, across, below, i):
    """below[r, i] = the sum over j of params[w + j] * across[j, r], in j's order, for every
    row r: eight rows at a time (then four, then one), their sums side by side in registers."""
    rows = across.shape[1]
    r = 0
    while r + 8 <= rows:
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
        for j in range(n_out):
            p = params[w + j]
            a = across[j]
            s0 += p * a[r]
            s1 += p * a[r + 1]
            s2 += p * a[r + 2]
            s3 += p * a[r + 3]
            s4 += p * a[r + 4]
            s5 += p * a[r + 5]
            s6 += p * a[r + 6]
            s7 += p * a[r + 7]
        below[r, i], below[r + 1, i], below[r + 2, i], below[r + 3, i] = s0, s1, s2, s3
        below[r + 4, i], below[r + 5, i], below[r + 6, i], below[r + 7, i] = s4, s5, s6, s7
        r += 8
    while r + 4 <= rows:
        s0 = s1 = s2 = s3 = 0.0
        for j in range(n_out):
            p = params[w + j]
            a = across[j]
            s0 += p * a[r]
            s1 += p * a[r + 1]
            s2 += p * a[r + 2]
            s3 += p * a[r + 3]
        below[r, i], below[r + 1, i], below[r + 2, i], below[r + 3, i] = s0, s1, s2, s3
        r += 4
    while r < rows:
        s0 = 0.0
        for j in range(n_out):
            s0 += params[w + j] * across[j, r]
        below[r, i] = s0
        r += 1


@kernel
def forward(params, dims, x, acts):
    """Every row of x (rows, dims[0]) through the network; acts (rows, sum(dims[1:])) gets
    each layer's output after its ReLU (the last layer's as is). A weight row is read once
    for all the rows: each output still adds its inputs' products in the inputs' order."""
    layers = dims.size - 1
    rows = x.shape[0]
    at = 0
    col = 0
    for k in range(layers):
        n_in, n_out = dims[k], dims[k + 1]
        b = at + n_in * n_out
        for r in range(rows):
            for j in range(n_out):
                acts[r, col + j] = params[b + j]
        for i in range(n_in):
            w = params[at + i * n_out:at + (i + 1) * n_out]
            for r in range(rows):
                v = x[r, i] if k == 0 else acts[r, col - n_in + i]
                if v != 0.0:
                    _axpy(acts[r, col:col + n_out], v, w)
        if k + 1 < layers:
            for r in range(rows):
                for j in range(n_out):
                    if acts[r, col + j] < 0.0:
                        acts[r, col + j] = 0.0
        at = b + n_out
        col += n_out


@kernel
def backward(params, dims, x, acts, dout, grad, dx):
    """Adds the gradient of sum(dout * output) to grad (each element's rows' products in the
    rows' order) and writes its gradient with respect to x into dx (rows, dims[0]; none
    when dx has no columns). A weight row is read once for all the rows; each row's sum
    over a weight row's outputs runs in the outputs' order, the rows side by side (_sums)."""
    layers = dims.size - 1
    rows = x.shape[0]
    width = 0
    for k in range(dims.size):
        width = max(width, dims[k])
    delta = np.empty((rows, width))
    across = np.empty((width, rows))          # delta transposed: the rows side by side
    below = np.empty((rows, width))
    starts = np.empty(layers, np.int64)
    cols = np.empty(layers, np.int64)
    at = 0
    col = 0
    for k in range(layers):
        starts[k] = at
        cols[k] = col
        at += dims[k] * dims[k + 1] + dims[k + 1]
        col += dims[k + 1]
    for r in range(rows):
        for j in range(dims[layers]):
            delta[r, j] = dout[r, j]
    for k in range(layers - 1, -1, -1):
        n_in, n_out = dims[k], dims[k + 1]
        w0 = starts[k]
        b0 = w0 + n_in * n_out
        for r in range(rows):
            for j in range(n_out):
                grad[b0 + j] += delta[r, j]
        carry = k > 0 or dx.shape[1] > 0
        if carry:
            for j in range(n_out):
                for r in range(rows):
                    across[j, r] = delta[r, j]
        for i in range(n_in):
            w = w0 + i * n_out
            g = grad[w:w + n_out]
            for r in range(rows):
                v = x[r, i] if k == 0 else acts[r, cols[k - 1] + i]
                _axpy(g, v, delta[r, :n_out])
            if carry:
                _sums(params, w, n_out, across[:n_out], below, i)
        for r in range(rows):
            if k == 0:
                for i in range(dx.shape[1]):
                    dx[r, i] = below[r, i]
            else:
                for i in range(n_in):
                    delta[r, i] = below[r, i] if acts[r, cols[k - 1] + i] > 0.0 else 0.0


@kernel
def adamw(grads, params, m, v, lo, hi, step, rate, beta1, beta2, eps, decay):
    """One AdamW step (Loshchilov and Hutter; PyTorch's order of operations) of params[lo:hi]
    on the batch's gradient: the chunks' gradients (a tuple) added in chunk order onto 0.0,
    then the weight decay taken first, then the bias-corrected moments' step. A block at a
    time, the block's sums kept in cache; every element on its own, so spans of the
    parameters on threads give the same bits as one."""
    c1 = 1.0 - beta1 ** step
    c2 = 1.0 - beta2 ** step
    total = np.empty(ADAMW_BLOCK)
    for first in range(lo, hi, ADAMW_BLOCK):
        end = min(first + ADAMW_BLOCK, hi)
        t = total[:end - first]
        t[:] = 0.0
        for c in range(len(grads)):
            _add(t, grads[c][first:end])
        for k in range(t.size):
            i = first + k
            g = t[k]
            params[i] *= 1.0 - rate * decay
            m[i] = beta1 * m[i] + (1.0 - beta1) * g
            v[i] = beta2 * v[i] + (1.0 - beta2) * g * g
            params[i] -= rate * (m[i] / c1) / (math.sqrt(v[i] / c2) + eps)


@kernel
def nearest(features, frames, queries, out):
    """For each query, the frame among `frames` whose features are nearest (squared
    distance summed in feature order; the lowest frame of a tie)."""
    f = features.shape[1]
    for q in range(queries.shape[0]):
        best = np.inf
        pick = -1
        for n in range(frames.size):
            row = frames[n]
            d = 0.0
            for i in range(f):
                e = queries[q, i] - features[row, i]
                d += e * e
            if d < best:
                best = d
                pick = row
        out[q] = pick
