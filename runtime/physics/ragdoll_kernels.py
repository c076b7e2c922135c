"""The ragdoll kernels: bodies placed from a pose (with their velocities), joint targets from
bodies, and a pose made from bodies. Binary64 inside, on tuples (core.rotations), binary32
in and out. A rigid frame is (t, q): a point p in it is t + q p.

A profile's body values (binary64 copies of the file's, ragdoll.py lays them out):
    0 frame t (3)   3 frame q (4)   7 size (3)   10 mass   12 joint in the body (7)
    19 joint in the parent body (7)   26 twist min, max, swing y, z   30 drive (3)

A body state row (binary32, 13): position (3), rotation x y z w (4), linear velocity (3),
angular velocity (3), the velocities in the world's axes.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.jit import kernel
from ..core.rotations import add, qconj, qmul, qunit, rotate, shortest, sub
from ..pose.pose import _compose

UNIT_TOLERANCE = 1e-3       # a body's rotation may be off length 1 by this


@kernel(inner=True)
def _frame_of(values, k, at):
    return ((values[k, at], values[k, at + 1], values[k, at + 2]),
            (values[k, at + 3], values[k, at + 4], values[k, at + 5], values[k, at + 6]))


@kernel(inner=True)
def _then(t, q, u, r):
    """(t, q) then (u, r) inside it."""
    return add(t, rotate(q, u)), qmul(q, r)


@kernel(inner=True)
def _inverse(t, q):
    c = qconj(q)
    v = rotate(c, t)
    return (-v[0], -v[1], -v[2]), c


@kernel(inner=True)
def _chain(parents, locals_, needed, chain):
    """The model rotation without scale of each `needed` bone (the bodies' bones and their
    ancestors, in storage order): the product of the normalized local rotations from its
    root down."""
    for i in range(needed.shape[0]):
        b = np.int64(needed[i])
        q = qunit((np.float64(locals_[b, 3]), np.float64(locals_[b, 4]),
                   np.float64(locals_[b, 5]), np.float64(locals_[b, 6])))
        p = np.int64(parents[b])
        if p < b:
            q = qmul((chain[p, 0], chain[p, 1], chain[p, 2], chain[p, 3]), q)
        chain[b, 0], chain[b, 1], chain[b, 2], chain[b, 3] = q[0], q[1], q[2], q[3]


@kernel(inner=True)
def _body_at(model, chain, b, values, k, pt, pq):
    """Body k (on bone b) under the placement (pt, pq)."""
    bt = (np.float64(model[b, 0, 3]), np.float64(model[b, 1, 3]), np.float64(model[b, 2, 3]))
    bq = (chain[b, 0], chain[b, 1], chain[b, 2], chain[b, 3])
    ft, fq = _frame_of(values, k, 0)
    t, q = _then(pt, pq, bt, bq)
    return _then(t, q, ft, fq)


@kernel
def bodies_from_pose(parents, body_bones, values, needed, locals_, model, placement,
                     previous_locals, previous_model, previous_placement, has_previous,
                     seconds, out):
    """Every body's state into out (n, 13); velocities over `seconds` from the previous
    pose when there is one (the angular one the shortest turn's), else 0."""
    reach = np.int64(needed[needed.shape[0] - 1]) + 1
    chain = np.empty((reach, 4))
    before = np.empty((reach, 4))
    _chain(parents, locals_, needed, chain)
    if has_previous:
        _chain(parents, previous_locals, needed, before)
    pt = (placement[0], placement[1], placement[2])
    pq = (placement[3], placement[4], placement[5], placement[6])
    ot = (previous_placement[0], previous_placement[1], previous_placement[2])
    oq = (previous_placement[3], previous_placement[4], previous_placement[5],
          previous_placement[6])
    for k in range(body_bones.shape[0]):
        b = np.int64(body_bones[k])
        t, q = _body_at(model, chain, b, values, k, pt, pq)
        q = qunit(q)
        v = (0.0, 0.0, 0.0)
        w = (0.0, 0.0, 0.0)
        if has_previous:
            t0, q0 = _body_at(previous_model, before, b, values, k, ot, oq)
            d = sub(t, t0)
            v = (d[0] / seconds, d[1] / seconds, d[2] / seconds)
            turn = shortest(qunit(qmul(q, qconj(qunit(q0)))))
            s = math.sqrt(turn[0] * turn[0] + turn[1] * turn[1] + turn[2] * turn[2])
            if s > 0.0:
                rate = 2.0 * math.atan2(s, turn[3]) / (s * seconds)
                w = (turn[0] * rate, turn[1] * rate, turn[2] * rate)
        row = (t[0], t[1], t[2], q[0], q[1], q[2], q[3], v[0], v[1], v[2], w[0], w[1], w[2])
        for i in range(13):
            out[k, i] = row[i]


@kernel(inner=True)
def _state_q(bodies, k):
    return qunit((np.float64(bodies[k, 3]), np.float64(bodies[k, 4]), np.float64(bodies[k, 5]),
                  np.float64(bodies[k, 6])))


@kernel(inner=True)
def _state_w(bodies, k):
    return (np.float64(bodies[k, 10]), np.float64(bodies[k, 11]), np.float64(bodies[k, 12]))


@kernel
def joint_targets(body_parents, values, bodies, out):
    """Each joint's child frame in its parent frame, and the child's angular velocity less
    the parent's in the parent joint frame's axes, into out (n, 7); the root's the identity
    and 0."""
    for k in range(body_parents.shape[0]):
        p = np.int64(body_parents[k])
        row = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
        if p < k:
            child = qmul(_state_q(bodies, k), _frame_of(values, k, 12)[1])
            parent = qunit(qmul(_state_q(bodies, p), _frame_of(values, k, 19)[1]))
            rel = shortest(qunit(qmul(qconj(parent), child)))
            w = rotate(qconj(parent), sub(_state_w(bodies, k), _state_w(bodies, p)))
            row = (rel[0], rel[1], rel[2], rel[3], w[0], w[1], w[2])
        for i in range(7):
            out[k, i] = row[i]


@kernel
def placement_checked(p, largest):
    """0 with p's rotation made unit in place; 1 for a value past `largest` (binary32's) or
    not finite, 2 for a rotation of length 0 (p then unchanged)."""
    for i in range(10):
        if not abs(p[i]) <= largest:
            return 1
    n = math.sqrt(p[3] * p[3] + p[4] * p[4] + p[5] * p[5] + p[6] * p[6])
    if not n > 0.0:
        return 2
    for i in range(3, 7):
        p[i] = p[i] / n
    return 0


@kernel
def first_bad_body(bodies, count):
    """The first of the first `count` bodies whose place is not finite or whose rotation is
    not of length 1 within UNIT_TOLERANCE; -1 when none is."""
    for k in range(count):
        for i in range(7):
            if not math.isfinite(bodies[k, i]):
                return k
        q = (np.float64(bodies[k, 3]), np.float64(bodies[k, 4]), np.float64(bodies[k, 5]),
             np.float64(bodies[k, 6]))
        n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
        if not abs(n - 1.0) <= UNIT_TOLERANCE:
            return k
    return -1


@kernel(inner=True)
def _solve(m, b, d):
    """The parent block m[b]'s (3 x 3, binary64) inverse times d."""
    a00, a01, a02 = m[b, 0, 0], m[b, 0, 1], m[b, 0, 2]
    a10, a11, a12 = m[b, 1, 0], m[b, 1, 1], m[b, 1, 2]
    a20, a21, a22 = m[b, 2, 0], m[b, 2, 1], m[b, 2, 2]
    c00, c01, c02 = a11 * a22 - a12 * a21, a02 * a21 - a01 * a22, a01 * a12 - a02 * a11
    c10, c11, c12 = a12 * a20 - a10 * a22, a00 * a22 - a02 * a20, a02 * a10 - a00 * a12
    c20, c21, c22 = a10 * a21 - a11 * a20, a01 * a20 - a00 * a21, a00 * a11 - a01 * a10
    det = a00 * c00 + a01 * c10 + a02 * c20
    return ((c00 * d[0] + c01 * d[1] + c02 * d[2]) / det,
            (c10 * d[0] + c11 * d[1] + c12 * d[2]) / det,
            (c20 * d[0] + c21 * d[1] + c22 * d[2]) / det)


@kernel
def pose_from_bodies(parents, body_of_bone, is_needed, values, bodies, placement, reference,
                     out_locals, out_model):
    """A bone with a body takes its model frame from the body's (the body's frame taken off,
    the placement's too) and its local scale from the reference; a bone without keeps the
    reference's local. The locals are worked out in binary64 over binary64 model frames
    (for the bones with a body at or below them, `is_needed`), then stored and composed as
    the pose composes them."""
    n = parents.shape[0]
    chain = np.empty((n, 4))
    m = np.empty((n, 3, 4))
    it, iq = _inverse((placement[0], placement[1], placement[2]),
                      (placement[3], placement[4], placement[5], placement[6]))
    for b in range(n):
        if not is_needed[b]:            # no body at or below: the reference's local alone
            for i in range(10):
                out_locals[b, i] = reference[b, i]
            continue
        p = np.int64(parents[b])
        s = (np.float64(reference[b, 7]), np.float64(reference[b, 8]), np.float64(reference[b, 9]))
        k = np.int64(body_of_bone[b])
        if k >= 0:
            ft, fq = _frame_of(values, k, 0)
            gt, gq = _then(it, iq, (np.float64(bodies[k, 0]), np.float64(bodies[k, 1]),
                                    np.float64(bodies[k, 2])), _state_q(bodies, k))
            bt, bq = _inverse(ft, fq)
            gt, gq = _then(gt, gq, bt, bq)
            gq = qunit(gq)
            if p < b:
                q = qunit(qmul(qconj((chain[p, 0], chain[p, 1], chain[p, 2], chain[p, 3])), gq))
                t = _solve(m, p, (gt[0] - m[p, 0, 3], gt[1] - m[p, 1, 3], gt[2] - m[p, 2, 3]))
            else:
                q, t = gq, gt
            c = gq
        else:
            t = (np.float64(reference[b, 0]), np.float64(reference[b, 1]),
                 np.float64(reference[b, 2]))
            q = (np.float64(reference[b, 3]), np.float64(reference[b, 4]),
                 np.float64(reference[b, 5]), np.float64(reference[b, 6]))
            c = qunit(q)
            if p < b:
                c = qmul((chain[p, 0], chain[p, 1], chain[p, 2], chain[p, 3]), c)
        chain[b, 0], chain[b, 1], chain[b, 2], chain[b, 3] = c[0], c[1], c[2], c[3]
        row = (t[0], t[1], t[2], q[0], q[1], q[2], q[3], s[0], s[1], s[2])
        for i in range(10):
            out_locals[b, i] = row[i]
        # the binary64 model frame the children are solved in
        x, y, z, w = q
        nn = x * x + y * y + z * z + w * w
        l00, l01, l02 = (w * w + x * x - y * y - z * z) / nn * s[0], 2 * (x * y - z * w) / nn * s[1], 2 * (x * z + y * w) / nn * s[2]
        l10, l11, l12 = 2 * (x * y + z * w) / nn * s[0], (w * w - x * x + y * y - z * z) / nn * s[1], 2 * (y * z - x * w) / nn * s[2]
        l20, l21, l22 = 2 * (x * z - y * w) / nn * s[0], 2 * (y * z + x * w) / nn * s[1], (w * w - x * x - y * y + z * z) / nn * s[2]
        if p < b:
            for i in range(3):
                a0, a1, a2 = m[p, i, 0], m[p, i, 1], m[p, i, 2]
                m[b, i, 0] = a0 * l00 + a1 * l10 + a2 * l20
                m[b, i, 1] = a0 * l01 + a1 * l11 + a2 * l21
                m[b, i, 2] = a0 * l02 + a1 * l12 + a2 * l22
                m[b, i, 3] = a0 * t[0] + a1 * t[1] + a2 * t[2] + m[p, i, 3]
        else:
            m[b, 0, 0], m[b, 0, 1], m[b, 0, 2], m[b, 0, 3] = l00, l01, l02, t[0]
            m[b, 1, 0], m[b, 1, 1], m[b, 1, 2], m[b, 1, 3] = l10, l11, l12, t[1]
            m[b, 2, 0], m[b, 2, 1], m[b, 2, 2], m[b, 2, 3] = l20, l21, l22, t[2]
    _compose(parents, out_locals, out_model)
