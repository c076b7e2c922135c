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


@kernel
def forward(params, dims, x, acts):
    """Every row of x (rows, dims[0]) through the network; acts (rows, sum(dims[1:])) gets
    each layer's output after its ReLU (the last layer's as is)."""
    layers = dims.size - 1
    for r in range(x.shape[0]):
        at = 0
        col = 0
        for k in range(layers):
            n_in, n_out = dims[k], dims[k + 1]
            b = at + n_in * n_out
            for j in range(n_out):
                acts[r, col + j] = params[b + j]
            for i in range(n_in):
                v = x[r, i] if k == 0 else acts[r, col - n_in + i]
                if v != 0.0:
                    w = at + i * n_out
                    for j in range(n_out):
                        acts[r, col + j] += v * params[w + j]
            if k + 1 < layers:
                for j in range(n_out):
                    if acts[r, col + j] < 0.0:
                        acts[r, col + j] = 0.0
            at = b + n_out
            col += n_out


@kernel
def backward(params, dims, x, acts, dout, grad, dx):
    """Adds the gradient of sum(dout * output) to grad, row after row, and writes its
    gradient with respect to x into dx (rows, dims[0])."""
    layers = dims.size - 1
    width = 0
    for k in range(dims.size):
        width = max(width, dims[k])
    delta = np.empty(width)
    below = np.empty(width)
    starts = np.empty(layers, np.int64)
    cols = np.empty(layers, np.int64)
    at = 0
    col = 0
    for k in range(layers):
        starts[k] = at
        cols[k] = col
        at += dims[k] * dims[k + 1] + dims[k + 1]
        col += dims[k + 1]
    for r in range(x.shape[0]):
        n_last = dims[layers]
        for j in range(n_last):
            delta[j] = dout[r, j]
        for k in range(layers - 1, -1, -1):
            n_in, n_out = dims[k], dims[k + 1]
            w0 = starts[k]
            b0 = w0 + n_in * n_out
            for j in range(n_out):
                grad[b0 + j] += delta[j]
            for i in range(n_in):
                v = x[r, i] if k == 0 else acts[r, cols[k - 1] + i]
                w = w0 + i * n_out
                s = 0.0
                for j in range(n_out):
                    grad[w + j] += v * delta[j]
                    s += params[w + j] * delta[j]
                below[i] = s
            if k == 0:
                for i in range(n_in):
                    dx[r, i] = below[i]
            else:
                for i in range(n_in):
                    delta[i] = below[i] if acts[r, cols[k - 1] + i] > 0.0 else 0.0


@kernel
def add_into(total, part):
    """total += part, element by element (the chunks' reduction, called in chunk order)."""
    for i in range(total.size):
        total[i] += part[i]


@kernel
def adamw(params, grad, m, v, step, rate, beta1, beta2, eps, decay):
    """One AdamW step (Loshchilov and Hutter; PyTorch's order of operations): the weight
    decay taken first, then the bias-corrected moments' step."""
    c1 = 1.0 - beta1 ** step
    c2 = 1.0 - beta2 ** step
    for i in range(params.size):
        g = grad[i]
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
