"""One chunk's losses and gradients, for each kind of stage: pure functions of a payload
(plain tuples of numbers and arrays), so a chunk gives the same bits on a thread of this
process or on a Ray worker elsewhere. Every loss is a mean over the whole batch (the
payload carries its size), so the chunks' gradients add up to the batch's.

Holden et al. 2020's terms and weights (his open implementation's), each the mean absolute
difference of what the networks give, taken back to its own units, and the truth's:

    decompressor  local translations 75, rotation columns 10, root velocity 2 and angular
                  velocity 2, the rest (scales, tracks, events) 2; model-space positions
                  15 and rotation matrices 5 through forward kinematics (fk.py); the
                  change per second over the window of the local translations 10 and
                  columns 1.75 and of the model-space positions 2 and rotations 0.75; the
                  Compressor's latent values 0.1 (absolute), 0.1 (squared) and their change
                  per second 0.01. (Holden's per-bone velocity outputs are not in the
                  model's layout, so their terms are not either.)
    stepper       the features rolled on over the window by the Stepper 2, the latent
                  values 15, their change per second 0.2 and 1.5
    projector     the features against the nearest frame's 1, latent values 9, and the
                  query's distance to the projected features against its distance to the
                  nearest frame's 0.2

Holden's weights are for lengths in metres; our databases are in their skeletons' units (the
staged mocap's centimetres), which no source field names. The terms on lengths
(POSITION_TERMS: translations, root velocity, model-space positions and their changes) take
the lengths in metres, `unit` metres a database unit (length_unit: the power of ten that
makes the skeleton human-sized), so positions weigh against rotations as in Holden's
training. The networks still learn and give the database's units.
"""
from __future__ import annotations

import math

import numpy as np

from . import fk, kernels

DECOMPRESSOR = dict(loc_pos=75.0, loc_cols=10.0, root_vel=2.0, root_ang=2.0, extra=2.0,
                    chr_pos=15.0, chr_rot=5.0, dloc_pos=10.0, dloc_cols=1.75, dchr_pos=2.0,
                    dchr_rot=0.75, latent_abs=0.1, latent_sq=0.1, dlatent=0.01)
STEPPER = dict(features=2.0, latents=15.0, dfeatures=0.2, dlatents=1.5)
PROJECTOR = dict(features=1.0, latents=9.0, distance=0.2)
POSITION_TERMS = ("loc_pos", "root_vel", "chr_pos", "dloc_pos", "dchr_pos")
HOLDEN_SIZE = 1.7           # metres: the rest size (height or span) of Holden's character


def length_unit(rest_positions: np.ndarray) -> float:
    """Holden's metres per length unit of a skeleton, taken as the power of ten that makes
    its rest size (the largest spread of its rest bone positions (bones, 3) along x, y or z)
    nearest HOLDEN_SIZE metres: 0.01 for a human in centimetres, 1 in metres (and for any
    size from 0.54 to 5.4 of its units); 1 for a skeleton of no size."""
    size = float(np.ptp(np.asarray(rest_positions, np.float64), axis=0).max())
    if not (size > 0 and math.isfinite(size)):
        return 1.0
    return 10.0 ** -round(math.log10(size / HOLDEN_SIZE))


def _forward(params, dims, x):
    acts = np.empty((x.shape[0], int(dims[1:].sum())))
    kernels.forward(params, dims, x, acts)
    return acts, acts[:, acts.shape[1] - int(dims[-1]):]


def _backward(params, dims, x, acts, dout, grad, wanted=True):
    """The gradient into grad; the one by x returned when wanted (else not computed)."""
    dx = np.empty_like(x) if wanted else np.empty((x.shape[0], 0))
    kernels.backward(params, dims, x, acts, np.ascontiguousarray(dout), grad, dx)
    return dx


def _l1(d, weight, count, grad_out):
    """weight * sum|d| / count and its gradient, added into grad_out."""
    grad_out += (weight / count) * np.sign(d)
    return float(np.abs(d).sum() * (weight / count))


def _l1_rate(a, b, weight, batch, rate, grad_out):
    """The term on the change per second along axis 1 (the window) of a against b's."""
    d = (np.diff(a, axis=1) - np.diff(b, axis=1)) * rate
    g = np.zeros_like(d)
    loss = _l1(d, weight, batch * d[0].size, g)
    grad_out[:, 1:] += g * rate
    grad_out[:, :-1] -= g * rate
    return loss


def _fk(pose, parents):
    rows, bones = pose.shape[0], parents.size
    local, pos, rot = np.empty((rows, bones, 3, 3)), np.empty((rows, bones, 3)), \
        np.empty((rows, bones, 3, 3))
    fk.forward(np.ascontiguousarray(pose), parents, local, pos, rot)
    return local, pos, rot


def _decompressor_loss(out, y, parents, scaled, batch, rate, unit, grad):
    """Holden's pose terms of out (c, w, outputs) against y, lengths in `unit`s; grad gets
    d/dout."""
    W = {k: v * unit if k in POSITION_TERMS else v for k, v in DECOMPRESSOR.items()}
    c, w = out.shape[0], out.shape[1]
    nb = parents.size
    per_bone = 9 * np.arange(nb)[:, None]
    pos_at, col_at = (per_bone + np.arange(3)).ravel(), (per_bone + np.arange(3, 9)).ravel()
    root = 9 * nb + 3 * scaled
    extra = np.r_[np.arange(9 * nb, root), np.arange(root + 6, out.shape[2])]
    loss = 0.0
    for name, at in (("loc_pos", pos_at), ("loc_cols", col_at), ("root_vel", np.arange(root, root + 3)),
                     ("root_ang", np.arange(root + 3, root + 6)), ("extra", extra)):
        if at.size:
            g = np.zeros((c, w, at.size))
            loss += _l1(out[:, :, at] - y[:, :, at], W[name], batch * w * at.size, g)
            if name in ("loc_pos", "loc_cols"):
                loss += _l1_rate(out[:, :, at], y[:, :, at], W["d" + name], batch, rate, g)
            grad[:, :, at] += g
    rows = c * w
    pose = np.ascontiguousarray(out[:, :, :9 * nb].reshape(rows, 9 * nb))
    local, pos, rot = _fk(pose, parents)
    _, tpos, trot = _fk(y[:, :, :9 * nb].reshape(rows, 9 * nb), parents)
    dpos, drot = np.zeros((c, w, nb, 3)), np.zeros((c, w, nb, 3, 3))
    p3, r3 = pos.reshape(c, w, nb, 3), rot.reshape(c, w, nb, 3, 3)
    t3, s3 = tpos.reshape(c, w, nb, 3), trot.reshape(c, w, nb, 3, 3)
    loss += _l1(p3 - t3, W["chr_pos"], batch * w * nb * 3, dpos)
    loss += _l1(r3 - s3, W["chr_rot"], batch * w * nb * 9, drot)
    loss += _l1_rate(p3, t3, W["dchr_pos"], batch, rate, dpos)
    loss += _l1_rate(r3, s3, W["dchr_rot"], batch, rate, drot)
    dpose = np.zeros((rows, 9 * nb))
    fk.backward(pose, parents, local, rot, dpos.reshape(rows, nb, 3),
                drot.reshape(rows, nb, 3, 3), dpose)
    grad[:, :, :9 * nb] += dpose.reshape(c, w, 9 * nb)
    return loss


def decompressor_chunk(payload):
    (comp, comp_dims, dec, dec_dims, targets, feats, y_mean, y_std, parents, scaled, rate,
     unit, batch) = payload
    c, w, n_out = targets.shape
    rows = c * w
    y = np.ascontiguousarray(targets.reshape(rows, n_out))
    c_acts, z = _forward(comp, comp_dims, y)
    x = np.ascontiguousarray(np.concatenate([feats.reshape(rows, -1), z], axis=1))
    d_acts, out = _forward(dec, dec_dims, x)
    g3 = np.zeros((c, w, n_out))
    loss = _decompressor_loss((out * y_std + y_mean).reshape(c, w, n_out),
                              (y * y_std + y_mean).reshape(c, w, n_out), parents, scaled,
                              batch, rate, unit, g3)
    grad = np.zeros(comp.size + dec.size)
    dx = _backward(dec, dec_dims, x, d_acts, g3.reshape(rows, n_out) * y_std, grad[comp.size:])
    latent = z.shape[1]
    dz = np.ascontiguousarray(dx[:, x.shape[1] - latent:])
    W, count = DECOMPRESSOR, batch * w * latent
    loss += _l1(z, W["latent_abs"], count, dz)
    grad_sq = (2.0 * W["latent_sq"] / count) * z
    loss += float(np.square(z).sum() * (W["latent_sq"] / count))
    dz += grad_sq
    dz3 = dz.reshape(c, w, latent)
    loss += _l1_rate(z.reshape(c, w, latent), np.zeros((c, w, latent)), W["dlatent"], batch,
                     rate, dz3)
    _backward(comp, comp_dims, y, c_acts, dz, grad[:comp.size], wanted=False)
    return grad, loss


def stepper_chunk(payload):
    (net, dims, states, in_off, in_scale, out_off, out_scale, features, dt, batch) = payload
    c, w, n = states.shape
    s = [np.ascontiguousarray(states[:, 0])]
    xs, acts = [], []
    for k in range(w - 1):
        x = np.ascontiguousarray((s[k] - in_off) / in_scale)
        a, raw = _forward(net, dims, x)
        xs.append(x)
        acts.append(a)
        s.append(s[k] + dt * (raw * out_scale + out_off))
    rolled = np.stack(s, axis=1)
    W, rate = STEPPER, 1.0 / dt
    ds = np.zeros((c, w, n))
    loss = 0.0
    for part, at in (("features", slice(0, features)), ("latents", slice(features, n))):
        width = n - features if part == "latents" else features
        if width:
            g = np.zeros((c, w, width))
            loss += _l1(rolled[:, :, at] - states[:, :, at], W[part], batch * w * width, g)
            loss += _l1_rate(rolled[:, :, at], states[:, :, at], W["d" + part], batch, rate, g)
            ds[:, :, at] += g
    grad = np.zeros(net.size)
    carry = ds[:, w - 1]        # the loss's gradient by s[k], through every later step
    for k in range(w - 1, 0, -1):
        dx = _backward(net, dims, xs[k - 1], acts[k - 1], carry * (dt * out_scale), grad)
        carry = ds[:, k - 1] + carry + dx / in_scale
    return grad, loss


def projector_chunk(payload):
    (net, dims, queries, targets, out_off, out_scale, features, batch) = payload
    acts, raw = _forward(net, dims, queries)
    out = raw * out_scale + out_off
    W, n = PROJECTOR, out.shape[1]
    dout = np.zeros_like(out)
    loss = _l1(out[:, :features] - targets[:, :features], W["features"], batch * features,
               dout[:, :features])
    if n > features:
        loss += _l1(out[:, features:] - targets[:, features:], W["latents"],
                    batch * (n - features), dout[:, features:])
    gap = out[:, :features] - queries
    mine = np.sqrt(np.square(gap).sum(axis=1))
    theirs = np.sqrt(np.square(targets[:, :features] - queries).sum(axis=1))
    g = np.zeros(mine.shape)
    loss += _l1(mine - theirs, W["distance"], batch, g)
    dout[:, :features] += (g / np.maximum(mine, fk.TINY))[:, None] * gap
    grad = np.zeros(net.size)
    _backward(net, dims, queries, acts, dout * out_scale, grad, wanted=False)
    return grad, loss


WORK = {"decompressor": decompressor_chunk, "stepper": stepper_chunk, "projector": projector_chunk}


def run_chunk(task):
    """A task hook's work: (kind, payload) -> (gradient, loss)."""
    kind, payload = task
    return WORK[kind](payload)
