"""One chunk's losses and gradients, for each kind of stage: pure functions of a payload
(plain tuples of numbers and arrays), so a chunk gives the same bits on a thread of this
process or on a Ray worker elsewhere. Every loss is a mean over the whole batch (the
payload carries its size), so the chunks' gradients add up to the batch's.

After Holden et al. 2020, in the normalized spaces the networks work in:

    decompressor  the Decompressor's outputs against the targets, and their change from
                  frame to frame over the window against the targets'; the Compressor's
                  latent values kept small (LATENT_WEIGHT times their mean square).
                  Holden's losses on model-space positions and rotations (through forward
                  kinematics) are not taken: the outputs are compared as the model gives them
    stepper       the state rolled on over the window by the Stepper's rates against the
                  frames' states, and its change per step against theirs
    projector     the Projector's state against the nearest frame's
"""
from __future__ import annotations

import numpy as np

from . import kernels

LATENT_WEIGHT = 0.1


def _forward(params, dims, x):
    acts = np.empty((x.shape[0], int(dims[1:].sum())))
    kernels.forward(params, dims, x, acts)
    return acts, acts[:, acts.shape[1] - int(dims[-1]):]


def _backward(params, dims, x, acts, dout, grad):
    dx = np.empty_like(x)
    kernels.backward(params, dims, x, acts, np.ascontiguousarray(dout), grad, dx)
    return dx


def _mse(d, scale, grad_out):
    """sum(d^2) * scale and its gradient, added into grad_out."""
    grad_out += 2.0 * scale * d
    return float(np.square(d).sum() * scale)


def decompressor_chunk(payload):
    (comp, comp_dims, dec, dec_dims, targets, feats, batch) = payload
    c, w, n_out = targets.shape
    rows = c * w
    y = np.ascontiguousarray(targets.reshape(rows, n_out))
    c_acts, z = _forward(comp, comp_dims, y)
    x = np.ascontiguousarray(np.concatenate([feats.reshape(rows, -1), z], axis=1))
    d_acts, out = _forward(dec, dec_dims, x)
    dout = np.zeros_like(out)
    loss = _mse(out - y, 1.0 / (batch * w * n_out), dout)
    o3, y3, d3 = out.reshape(c, w, n_out), targets, dout.reshape(c, w, n_out)
    dv = np.diff(o3, axis=1) - np.diff(y3, axis=1)
    gv = np.zeros_like(dv)
    loss += _mse(dv, 1.0 / (batch * (w - 1) * n_out), gv)
    d3[:, 1:] += gv
    d3[:, :-1] -= gv
    grad = np.zeros(comp.size + dec.size)
    dx = _backward(dec, dec_dims, x, d_acts, dout, grad[comp.size:])
    latent = z.shape[1]
    dz = np.ascontiguousarray(dx[:, x.shape[1] - latent:])
    loss += _mse(z, LATENT_WEIGHT / (batch * w * latent), dz)
    _backward(comp, comp_dims, y, c_acts, dz, grad[:comp.size])
    return grad, loss


def stepper_chunk(payload):
    (net, dims, states, in_off, in_scale, out_off, out_scale, state_scale, dt, batch) = payload
    c, w, n = states.shape
    s = [np.ascontiguousarray(states[:, 0])]
    xs, acts = [], []
    for k in range(w - 1):
        x = np.ascontiguousarray((s[k] - in_off) / in_scale)
        a, raw = _forward(net, dims, x)
        xs.append(x)
        acts.append(a)
        s.append(s[k] + dt * (raw * out_scale + out_off))
    scale = 1.0 / (batch * (w - 1) * n)
    ds = [np.zeros((c, n)) for _ in range(w)]
    loss = 0.0
    for k in range(1, w):
        g = np.zeros((c, n))
        loss += _mse((s[k] - states[:, k]) / state_scale, scale, g)
        ds[k] += g / state_scale
        g = np.zeros((c, n))
        loss += _mse(((s[k] - s[k - 1]) - (states[:, k] - states[:, k - 1])) / state_scale,
                     scale, g)
        ds[k] += g / state_scale
        ds[k - 1] -= g / state_scale
    grad = np.zeros(net.size)
    carry = ds[w - 1]           # the loss's gradient by s[k], through every later step
    for k in range(w - 1, 0, -1):
        dx = _backward(net, dims, xs[k - 1], acts[k - 1], carry * (dt * out_scale), grad)
        carry = ds[k - 1] + carry + dx / in_scale
    return grad, loss


def projector_chunk(payload):
    (net, dims, queries, targets, batch) = payload
    acts, out = _forward(net, dims, queries)
    dout = np.zeros_like(out)
    loss = _mse(out - targets, 1.0 / (batch * targets.shape[1]), dout)
    grad = np.zeros(net.size)
    _backward(net, dims, queries, acts, dout, grad)
    return grad, loss


WORK = {"decompressor": decompressor_chunk, "stepper": stepper_chunk, "projector": projector_chunk}


def run_chunk(task):
    """A task hook's work: (kind, payload) -> (gradient, loss)."""
    kind, payload = task
    return WORK[kind](payload)
