"""The full-body solvers' compiled code: the part's frames, the steps both solvers take first
(preferred angles, pre-pull, pull chains), limits, the XPBD passes and the SDLS iteration.

Everything works in binary64 inside the caller's scratch and writes the pose's binary32
locals once, at the end. A bone's body is its model rotation Q (the rotations of its root
path composed, scale left out) and its origin X. Each child's origin hangs at an anchor
R in its parent's body frame. The XPBD passes carry an anchor rigidly with its parent
body, and each iteration measures the anchors afresh on the exact frames (so a turn under
a non-uniform scale moves a child where the skeleton would); the frames a result is judged
by (and SDLS's Jacobian) are composed exactly, each bone's model block
A = A_parent Rot(local) Scale(local) and origin X = X_parent + A_parent t.

Scratch (float64), `common` first: header (48: the top's parent's model matrix 0:12, its
rotation 12:16, the mean bone length 19, two 3 x 4 spares 24:48), then per part slot Q (4),
X (3), R (3), L0 (4, the rotation the stiffness holds), LQ (4, the working local rotation),
A (9, row-major), the SDLS step (3) and LT (3, the working local translation). Each
solver's own arrays follow.
"""
from __future__ import annotations

import math

import numpy as np

from ...core.jit import kernel

HEAD = 48
PER_SLOT = 4 + 3 + 3 + 4 + 4 + 9 + 3 + 3
EPS = 1e-12
INERTIA = 1.0      # a body's inverse inertia times the squared mean bone length


def common_floats(P: int) -> int:
    return HEAD + PER_SLOT * P


# ---- the part --------------------------------------------------------------------------------------------

@kernel
def mark_part(parents, top, eff_bones, mark):
    """mark[b] >= 0 for each bone on a path from the top to an effector; False when an
    effector is not the top or below it."""
    n = mark.shape[0]
    for b in range(n):
        mark[b] = -1
    for e in eff_bones:
        b = e
        while b != top:
            p = np.int64(parents[b])
            if p >= b:
                return False
            b = p
    for e in eff_bones:
        b = e
        while b != top:
            mark[b] = 1
            b = np.int64(parents[b])
        mark[top] = 1
    return True


# ---- quaternions (x y z w, binary64) ------------------------------------------------------------------------

@kernel
def qmul(ax, ay, az, aw, bx, by, bz, bw):
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


@kernel
def qrot(qx, qy, qz, qw, vx, vy, vz):
    """q v q^-1 for a unit q."""
    cx = 2.0 * (qy * vz - qz * vy)
    cy = 2.0 * (qz * vx - qx * vz)
    cz = 2.0 * (qx * vy - qy * vx)
    return (vx + qw * cx + qy * cz - qz * cy,
            vy + qw * cy + qz * cx - qx * cz,
            vz + qw * cz + qx * cy - qy * cx)


@kernel
def qnorm(x, y, z, w):
    n = math.sqrt(x * x + y * y + z * z + w * w)
    if n < EPS:
        return 0.0, 0.0, 0.0, 1.0
    return x / n, y / n, z / n, w / n


@kernel
def qexp(vx, vy, vz):
    """The rotation of rotation vector v."""
    a = math.sqrt(vx * vx + vy * vy + vz * vz)
    if a < EPS:
        return qnorm(0.5 * vx, 0.5 * vy, 0.5 * vz, 1.0)
    s = math.sin(0.5 * a) / a
    return vx * s, vy * s, vz * s, math.cos(0.5 * a)


@kernel
def qlog(x, y, z, w):
    """The rotation vector of q, the short way (angle in [0, pi])."""
    if w < 0.0:
        x, y, z, w = -x, -y, -z, -w
    s = math.sqrt(x * x + y * y + z * z)
    if s < EPS:
        return 2.0 * x, 2.0 * y, 2.0 * z
    a = 2.0 * math.atan2(s, w)
    return x * a / s, y * a / s, z * a / s


@kernel
def rest_rotation(rests, b):
    return qnorm(np.float64(rests[b, 3]), np.float64(rests[b, 4]), np.float64(rests[b, 5]),
                 np.float64(rests[b, 6]))


@kernel
def get4(a, i):
    return a[i], a[i + 1], a[i + 2], a[i + 3]


@kernel
def put4(a, i, q):
    a[i], a[i + 1], a[i + 2], a[i + 3] = q[0], q[1], q[2], q[3]


# ---- limits -----------------------------------------------------------------------------------------------

@kernel
def limited(q, rest, kind, axis, low, high):
    """A local rotation q kept to its limit: its turn from rest d = q rest^-1 (parent frame)
    split into a twist about the axis and the swing after it, then clamped."""
    rx, ry, rz, rw = rest
    dx, dy, dz, dw = qmul(q[0], q[1], q[2], q[3], -rx, -ry, -rz, rw)
    if dw < 0.0:
        dx, dy, dz, dw = -dx, -dy, -dz, -dw
    ax, ay, az = axis
    p = dx * ax + dy * ay + dz * az
    tx, ty, tz, tw = qnorm(p * ax, p * ay, p * az, dw)
    sx, sy, sz, sw = qmul(dx, dy, dz, dw, -tx, -ty, -tz, tw)      # swing = d twist^-1
    if kind == 1 or kind == 3:                                    # hinge, twist: the twist's angle
        angle = 2.0 * math.atan2(tx * ax + ty * ay + tz * az, tw)
        angle = min(max(angle, low), high)
        tx, ty, tz, tw = qexp(angle * ax, angle * ay, angle * az)
        if kind == 1:
            sx, sy, sz, sw = 0.0, 0.0, 0.0, 1.0
    else:                                                         # cone: the swing's angle
        vx, vy, vz = qlog(sx, sy, sz, sw)
        a = math.sqrt(vx * vx + vy * vy + vz * vz)
        if a > high:
            f = high / a
            sx, sy, sz, sw = qexp(vx * f, vy * f, vz * f)
    dx, dy, dz, dw = qmul(sx, sy, sz, sw, tx, ty, tz, tw)
    return qnorm(*qmul(dx, dy, dz, dw, rx, ry, rz, rw))


# ---- frames -----------------------------------------------------------------------------------------------

@kernel
def _local_block(l, out):
    """A local transform's 3 x 4 matrix into 12 binary64 floats, from its rotation
    normalized."""
    x, y, z, w = qnorm(np.float64(l[3]), np.float64(l[4]), np.float64(l[5]), np.float64(l[6]))
    sx, sy, sz = np.float64(l[7]), np.float64(l[8]), np.float64(l[9])
    out[0], out[1], out[2], out[3] = ((1 - 2 * (y * y + z * z)) * sx, 2 * (x * y - z * w) * sy,
                                      2 * (x * z + y * w) * sz, l[0])
    out[4], out[5], out[6], out[7] = (2 * (x * y + z * w) * sx, (1 - 2 * (x * x + z * z)) * sy,
                                      2 * (y * z - x * w) * sz, l[1])
    out[8], out[9], out[10], out[11] = (2 * (x * z - y * w) * sx, 2 * (y * z + x * w) * sy,
                                        (1 - 2 * (x * x + y * y)) * sz, l[2])


@kernel
def _mat_mul(a, b, out):
    """out = a b for 3 x 4 affines held as 12 floats."""
    for i in range(3):
        a0, a1, a2, a3 = a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]
        for j in range(4):
            out[4 * i + j] = a0 * b[j] + a1 * b[4 + j] + a2 * b[8 + j]
        out[4 * i + 3] += a3


@kernel
def inv3_apply(S, o, vx, vy, vz):
    """A^-1 v for the row-major 3 x 3 at S[o:o + 9]; v itself where A is singular."""
    k = S[o:o + 9]
    c00, c01, c02 = k[4] * k[8] - k[5] * k[7], k[5] * k[6] - k[3] * k[8], k[3] * k[7] - k[4] * k[6]
    det = k[0] * c00 + k[1] * c01 + k[2] * c02
    if not abs(det) > EPS:
        return vx, vy, vz
    return ((c00 * vx + (k[2] * k[7] - k[1] * k[8]) * vy + (k[1] * k[5] - k[2] * k[4]) * vz) / det,
            (c01 * vx + (k[0] * k[8] - k[2] * k[6]) * vy + (k[2] * k[3] - k[0] * k[5]) * vz) / det,
            (c02 * vx + (k[1] * k[6] - k[0] * k[7]) * vy + (k[0] * k[4] - k[1] * k[3]) * vz) / det)


@kernel
def parent_frame(S, ppar, s):
    """Where slot s's parent's block A (row-major 9), rotation and origin are: the offset of
    its block, its Q, its X."""
    ps = ppar[s]
    if ps < 0:
        return 36, get4(S, 12), (S[3], S[7], S[11])
    po = HEAD + PER_SLOT * ps
    return po + 18, get4(S, po), (S[po + 4], S[po + 5], S[po + 6])


@kernel
def setup(locals_, parents, part, ppar, S):
    """The header and each slot's LQ, LT, frames and anchor R from the input's locals: the
    top's root path composed upward (its model matrix and rotation), then the part down
    from the top."""
    P = part.shape[0]
    top = part[0]
    for k in range(12):
        S[k] = 0.0
    S[0] = S[5] = S[10] = 1.0
    qa = (0.0, 0.0, 0.0, 1.0)
    b = top
    while True:       # the ancestors' locals multiplied on the left, walking up
        p = np.int64(parents[b])
        if p >= b:
            break
        _local_block(locals_[p], S[24:36])
        _mat_mul(S[24:36], S[0:12], S[36:48])
        S[0:12] = S[36:48]
        lq = qnorm(np.float64(locals_[p, 3]), np.float64(locals_[p, 4]), np.float64(locals_[p, 5]),
                   np.float64(locals_[p, 6]))
        qa = qnorm(*qmul(lq[0], lq[1], lq[2], lq[3], qa[0], qa[1], qa[2], qa[3]))
        b = p
    put4(S, 12, qa)
    for i in range(3):                # the top's parent's block, row-major, at 36
        for j in range(3):
            S[36 + 3 * i + j] = S[4 * i + j]
    for s in range(P):
        o = HEAD + PER_SLOT * s
        bone = part[s]
        lq = qnorm(np.float64(locals_[bone, 3]), np.float64(locals_[bone, 4]),
                   np.float64(locals_[bone, 5]), np.float64(locals_[bone, 6]))
        put4(S, o + 10, lq)
        put4(S, o + 14, lq)
        S[o + 30], S[o + 31], S[o + 32] = locals_[bone, 0], locals_[bone, 1], locals_[bone, 2]
    frames(locals_, part, ppar, S)
    total = 0.0
    for s in range(P):
        o = HEAD + PER_SLOT * s
        _, pq, px = parent_frame(S, ppar, s)
        r = qrot(-pq[0], -pq[1], -pq[2], pq[3], S[o + 4] - px[0], S[o + 5] - px[1], S[o + 6] - px[2])
        S[o + 7], S[o + 8], S[o + 9] = r
        if s > 0:
            total += math.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2])
    if P > 1:
        S[19] = total / (P - 1)
    else:
        S[19] = math.sqrt(S[HEAD + 7] ** 2 + S[HEAD + 8] ** 2 + S[HEAD + 9] ** 2)
    if not S[19] > EPS:
        S[19] = 1.0


@kernel
def frames(locals_, part, ppar, S):
    """Each slot's Q, A and X from the working locals LQ and LT (scales the pose's)."""
    P = ppar.shape[0]
    for s in range(P):
        o = HEAD + PER_SLOT * s
        ao, pq, px = parent_frame(S, ppar, s)
        lq = get4(S, o + 14)
        put4(S, o, qnorm(*qmul(pq[0], pq[1], pq[2], pq[3], lq[0], lq[1], lq[2], lq[3])))
        tx, ty, tz = S[o + 30], S[o + 31], S[o + 32]
        x, y, z, w = lq
        b = part[s]
        sc = (np.float64(locals_[b, 7]), np.float64(locals_[b, 8]), np.float64(locals_[b, 9]))
        rot = (1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
               2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
               2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y))
        for i in range(3):
            a0, a1, a2 = S[ao + 3 * i], S[ao + 3 * i + 1], S[ao + 3 * i + 2]
            S[o + 4 + i] = px[i] + a0 * tx + a1 * ty + a2 * tz
            for j in range(3):
                S[o + 18 + 3 * i + j] = (a0 * rot[j] + a1 * rot[3 + j] + a2 * rot[6 + j]) * sc[j]


@kernel
def turn_local(S, ppar, s, q):
    """Turns slot s by the model-space rotation q: LQ = P^-1 q P LQ, P its parent's Q."""
    o = HEAD + PER_SLOT * s
    ps = ppar[s]
    pq = get4(S, 12) if ps < 0 else get4(S, HEAD + PER_SLOT * ps)
    lq = get4(S, o + 14)
    a = qmul(q[0], q[1], q[2], q[3], pq[0], pq[1], pq[2], pq[3])
    a = qmul(-pq[0], -pq[1], -pq[2], pq[3], a[0], a[1], a[2], a[3])
    put4(S, o + 14, qnorm(*qmul(a[0], a[1], a[2], a[3], lq[0], lq[1], lq[2], lq[3])))


@kernel
def arc(ux, uy, uz, vx, vy, vz, share):
    """The shortest-arc rotation taking direction u onto v, by `share` of its angle; none
    for a direction of no length or opposite ones."""
    nu = math.sqrt(ux * ux + uy * uy + uz * uz)
    nv = math.sqrt(vx * vx + vy * vy + vz * vz)
    if nu < EPS or nv < EPS:
        return 0.0, 0.0, 0.0, 1.0
    cx, cy, cz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
    cn = math.sqrt(cx * cx + cy * cy + cz * cz)
    if cn < EPS:
        return 0.0, 0.0, 0.0, 1.0
    a = math.atan2(cn, ux * vx + uy * vy + uz * vz) * share
    return qexp(cx / cn * a, cy / cn * a, cz / cn * a)


@kernel
def first_steps(locals_, rests, part, ppar, eff_slot, goals, strength, pull, stiff, pref, pref_w,
                mode, pre_pull, S):
    """What acts before the passes: preferred angles, the free top's pre-pull, then each
    effector's pull chain (from its parent up to the top, each bone turning by that share
    of the arc taking its direction to the effector onto its direction to the goal). A
    locked bone (stiffness 1) and a held top turn in none of them. Ends with the frames
    current and L0, the rotation stiffness holds, set to the result."""
    P = part.shape[0]
    for s in range(P):
        if pref_w[s] > 0.0 and stiff[s] < 1.0 and not (s == 0 and mode == 1):
            o = HEAD + PER_SLOT * s
            b = part[s]
            rq = rest_rotation(rests, b)
            pq = qexp(pref[s, 0], pref[s, 1], pref[s, 2])
            t = qmul(pq[0], pq[1], pq[2], pq[3], rq[0], rq[1], rq[2], rq[3])
            lq = get4(S, o + 14)
            if t[0] * lq[0] + t[1] * lq[1] + t[2] * lq[2] + t[3] * lq[3] < 0.0:
                t = (-t[0], -t[1], -t[2], -t[3])
            w = pref_w[s]
            put4(S, o + 14, qnorm(lq[0] + (t[0] - lq[0]) * w, lq[1] + (t[1] - lq[1]) * w,
                                  lq[2] + (t[2] - lq[2]) * w, lq[3] + (t[3] - lq[3]) * w))
    frames(locals_, part, ppar, S)
    E = eff_slot.shape[0]
    if mode == 2 and pre_pull > 0.0:
        sx = sy = sz = sw = 0.0
        for l in range(E):
            o = HEAD + PER_SLOT * eff_slot[l]
            sx += strength[l] * (goals[l, 0] - S[o + 4])
            sy += strength[l] * (goals[l, 1] - S[o + 5])
            sz += strength[l] * (goals[l, 2] - S[o + 6])
            sw += strength[l]
        if sw > 0.0:
            d = inv3_apply(S, 36, pre_pull * sx / sw, pre_pull * sy / sw, pre_pull * sz / sw)
            S[HEAD + 30] += d[0]
            S[HEAD + 31] += d[1]
            S[HEAD + 32] += d[2]
            frames(locals_, part, ppar, S)
    for l in range(E):
        if pull[l] <= 0.0:
            continue
        eo = HEAD + PER_SLOT * eff_slot[l]
        s = ppar[eff_slot[l]]
        while s >= 0:
            if stiff[s] < 1.0 and not (s == 0 and mode == 1):
                o = HEAD + PER_SLOT * s
                q = arc(S[eo + 4] - S[o + 4], S[eo + 5] - S[o + 5], S[eo + 6] - S[o + 6],
                        goals[l, 0] - S[o + 4], goals[l, 1] - S[o + 5], goals[l, 2] - S[o + 6],
                        pull[l])
                turn_local(S, ppar, s, q)
                frames(locals_, part, ppar, S)
            s = ppar[s]
    for s in range(P):
        o = HEAD + PER_SLOT * s
        S[o + 10:o + 14] = S[o + 14:o + 18]


@kernel
def clamp_limits(rests, part, lkind, laxis, lrange, S):
    for s in range(part.shape[0]):
        if lkind[s] != 0:
            o = HEAD + PER_SLOT * s
            b = part[s]
            rq = rest_rotation(rests, b)
            put4(S, o + 14, limited(S[o + 14:o + 18], rq, lkind[s], laxis[s], lrange[s, 0], lrange[s, 1]))


@kernel
def all_within(eff_slot, strength, goals, tolerance, S):
    for l in range(eff_slot.shape[0]):
        if strength[l] > 0.0:
            o = HEAD + PER_SLOT * eff_slot[l]
            dx, dy, dz = goals[l, 0] - S[o + 4], goals[l, 1] - S[o + 5], goals[l, 2] - S[o + 6]
            if math.sqrt(dx * dx + dy * dy + dz * dz) > tolerance:
                return False
    return True


@kernel
def write_back(locals_, part, stiff, stretch, mode, S):
    """The solved locals into the pose: the rotation of every bone that may turn, the
    translation of a free top or a stretching bone."""
    for s in range(part.shape[0]):
        o = HEAD + PER_SLOT * s
        b = part[s]
        if stiff[s] < 1.0 and not (s == 0 and mode == 1):
            for k in range(4):
                locals_[b, 3 + k] = np.float32(S[o + 14 + k])
        if (s == 0 and mode == 2) or (s > 0 and stretch[s] > 0.0):
            for k in range(3):
                locals_[b, k] = np.float32(S[o + 30 + k])


# ---- XPBD ---------------------------------------------------------------------------------------------------

@kernel
def _rotate_body(S, o, w, nx, ny, nz, angle):
    """Turns a body's Q by w * angle about unit n: q += 0.5 [w angle n, 0] q, normalized."""
    a = 0.5 * w * angle
    q = get4(S, o)
    d = qmul(a * nx, a * ny, a * nz, 0.0, q[0], q[1], q[2], q[3])
    put4(S, o, qnorm(q[0] + d[0], q[1] + d[1], q[2] + d[2], q[3] + d[3]))


@kernel
def _angular(S, po, so, wp, ws, target, alpha, lam, k, hard):
    """Turns body s (and its parent body p, po < 0 for the fixed frame) so that s's rotation
    reaches `target` (model space): C the angle left, XPBD's dlambda = (-C - alpha lambda) /
    (wp + ws + alpha); `hard` (a limit) projects without a multiplier."""
    q = get4(S, so)
    e = qmul(target[0], target[1], target[2], target[3], -q[0], -q[1], -q[2], q[3])
    vx, vy, vz = qlog(e[0], e[1], e[2], e[3])
    c = math.sqrt(vx * vx + vy * vy + vz * vz)
    wsum = wp + ws
    if c < EPS or wsum + alpha <= 0.0:
        return
    nx, ny, nz = vx / c, vy / c, vz / c
    if hard:
        turn = c / wsum
    else:
        dl = (-c - alpha * lam[k]) / (wsum + alpha)
        lam[k] += dl
        turn = -dl
    if ws > 0.0:
        _rotate_body(S, so, ws, nx, ny, nz, turn)
    if po >= 0 and wp > 0.0:
        _rotate_body(S, po, wp, nx, ny, nz, -turn)


@kernel
def _positional(S, po, so, wlp, wrp, wls, ax, ay, az, alpha, lam, k):
    """Pulls body s's origin onto point a, fixed to body p at offset r = a - X_p (po < 0: a
    fixed point): C = |X_s - a|, the generalized inverse masses w_p = wl + wr |r x n|^2
    and w_s = wl (at the origin), Mueller et al.'s position and rotation updates."""
    dx, dy, dz = S[so + 4] - ax, S[so + 5] - ay, S[so + 6] - az
    c = math.sqrt(dx * dx + dy * dy + dz * dz)
    if c < EPS:
        return
    nx, ny, nz = dx / c, dy / c, dz / c
    wp = 0.0
    if po >= 0:
        rx, ry, rz = ax - S[po + 4], ay - S[po + 5], az - S[po + 6]
        cx, cy, cz = ry * nz - rz * ny, rz * nx - rx * nz, rx * ny - ry * nx
        cn2 = cx * cx + cy * cy + cz * cz
        wp = wlp + wrp * cn2
    w = wp + wls + alpha
    if w <= 0.0:
        return
    dl = (-c - alpha * lam[k]) / w
    lam[k] += dl
    S[so + 4] += wls * dl * nx
    S[so + 5] += wls * dl * ny
    S[so + 6] += wls * dl * nz
    if po >= 0:
        S[po + 4] -= wlp * dl * nx
        S[po + 5] -= wlp * dl * ny
        S[po + 6] -= wlp * dl * nz
        if wrp > 0.0 and cn2 > 0.0:
            cn = math.sqrt(cn2)
            _rotate_body(S, po, wrp, cx / cn, cy / cn, cz / cn, -dl * cn)


@kernel
def settle(locals_, rests, part, ppar, stiff, stretch, lkind, laxis, lrange, mode, S, clamp):
    """The bodies back onto the skeleton: each turning bone's local rotation from its body
    and its parent's, a stretching bone's and a free top's translation from their origins
    (and, with `clamp`, every local kept to its limit); then the frames composed exactly
    from those locals, and the anchors measured on them (each joint's input offset, so a
    stretch is always pulled back toward it), so the next passes see where a turn really
    carries each child under the bones' scales."""
    P = part.shape[0]
    fixed = get4(S, 12)
    for s in range(P - 1, -1, -1):
        so = HEAD + PER_SLOT * s
        ps = ppar[s]
        pq = fixed if ps < 0 else get4(S, HEAD + PER_SLOT * ps)
        q = get4(S, so)
        if not (stiff[s] >= 1.0 or (s == 0 and mode == 1)):
            put4(S, so + 14, qnorm(*qmul(-pq[0], -pq[1], -pq[2], pq[3], q[0], q[1], q[2], q[3])))
        if ps >= 0 and stretch[s] > 0.0:
            po = HEAD + PER_SLOT * ps
            r = qrot(-pq[0], -pq[1], -pq[2], pq[3], S[so + 4] - S[po + 4], S[so + 5] - S[po + 5],
                     S[so + 6] - S[po + 6])
            S[so + 7], S[so + 8], S[so + 9] = r
    if mode == 2:
        S[HEAD + 30:HEAD + 33] = inv3_apply(S, 36, S[HEAD + 4] - S[3], S[HEAD + 5] - S[7],
                                            S[HEAD + 6] - S[11])
    if clamp:
        clamp_limits(rests, part, lkind, laxis, lrange, S)
    frames(locals_, part, ppar, S)
    stretched = False
    for s in range(1, P):
        if stretch[s] > 0.0:
            so = HEAD + PER_SLOT * s
            ao, pq, _ = parent_frame(S, ppar, s)
            r = qrot(pq[0], pq[1], pq[2], pq[3], S[so + 7], S[so + 8], S[so + 9])
            S[so + 30:so + 33] = inv3_apply(S, ao, r[0], r[1], r[2])
            stretched = True
    if stretched:
        frames(locals_, part, ppar, S)
    for s in range(1, P):     # where the joint holds the child: its input offset, A_p t
        so = HEAD + PER_SLOT * s
        ao, pq, _ = parent_frame(S, ppar, s)
        b = part[s]
        tx, ty, tz = np.float64(locals_[b, 0]), np.float64(locals_[b, 1]), np.float64(locals_[b, 2])
        S[so + 7:so + 10] = qrot(-pq[0], -pq[1], -pq[2], pq[3],
                                 S[ao] * tx + S[ao + 1] * ty + S[ao + 2] * tz,
                                 S[ao + 3] * tx + S[ao + 4] * ty + S[ao + 5] * tz,
                                 S[ao + 6] * tx + S[ao + 7] * ty + S[ao + 8] * tz)


@kernel
def xpbd(locals_, rests, part, ppar, eff_slot, goals, rots, rot_w, strength, stiff, stretch,
         lkind, laxis, lrange, mode, iterations, tolerance, S, lam, bodies):
    """The passes, after first_steps: each iteration a stop once every effector lies within
    the tolerance on the frames the bodies give (settle; the bodies themselves, kept in
    `bodies` (P, 7), go on, the anchors measured afresh), then effectors by index
    (origin, then rotation), joints from the tips up, stiffness, limits; at the end the
    locals settled and limited, and written into the pose. Returns whether
    every effector of some strength lies within the tolerance, and the iterations run.

    Every body's inverse mass is 1 and its inverse inertia 1 / l^2 (l the part's mean bone
    length), the top's none where the mode pins or holds it; compliances are (1 - k) / k of
    the setting's share k, times l^2 for a length, so a share means the same at any
    scale."""
    P = part.shape[0]
    E = eff_slot.shape[0]
    ell = S[19]
    wrot = INERTIA / (ell * ell)
    for k in range(lam.shape[0]):
        lam[k] = 0.0
    fixed = get4(S, 12)
    done = 0
    for it in range(iterations):
        if it > 0:         # judge the bodies on the exact frames, then go on from the bodies
            for s in range(P):
                so = HEAD + PER_SLOT * s
                bodies[s, :] = S[so:so + 7]
            settle(locals_, rests, part, ppar, stiff, stretch, lkind, laxis, lrange, mode, S, False)
            if all_within(eff_slot, strength, goals, tolerance, S):
                break
            for s in range(P):
                so = HEAD + PER_SLOT * s
                S[so:so + 7] = bodies[s, :]
        elif all_within(eff_slot, strength, goals, tolerance, S):
            break
        done = it + 1
        for l in range(E):
            if strength[l] <= 0.0:
                continue
            s = eff_slot[l]
            so = HEAD + PER_SLOT * s
            wl = 0.0 if (s == 0 and mode != 2) else 1.0
            wr = 0.0 if (s == 0 and mode == 1) else wrot
            alpha = (1.0 - strength[l]) / strength[l] * ell * ell
            _positional(S, -1, so, 0.0, 0.0, wl, goals[l, 0], goals[l, 1], goals[l, 2], alpha, lam, l)
            share = rot_w[l] * strength[l]
            if share > 0.0:
                _angular(S, -1, so, 0.0, wr, rots[l], (1.0 - share) / share, lam, E + l, False)
        for s in range(P - 1, 0, -1):
            if stretch[s] >= 1.0:
                continue
            so = HEAD + PER_SLOT * s
            po = HEAD + PER_SLOT * ppar[s]
            pq = get4(S, po)
            r = qrot(pq[0], pq[1], pq[2], pq[3], S[so + 7], S[so + 8], S[so + 9])
            wlp = 0.0 if (ppar[s] == 0 and mode != 2) else 1.0
            wrp = 0.0 if (ppar[s] == 0 and mode == 1) else wrot
            alpha = stretch[s] / (1.0 - stretch[s]) * ell * ell
            _positional(S, po, so, wlp, wrp, 1.0, S[po + 4] + r[0], S[po + 5] + r[1],
                        S[po + 6] + r[2], alpha, lam, 2 * E + s)
        for s in range(P):
            if stiff[s] <= 0.0 or (s == 0 and mode == 1):
                continue
            so = HEAD + PER_SLOT * s
            ps = ppar[s]
            po = -1 if ps < 0 else HEAD + PER_SLOT * ps
            pq = fixed if ps < 0 else get4(S, po)
            l0 = get4(S, so + 10)
            t = qnorm(*qmul(pq[0], pq[1], pq[2], pq[3], l0[0], l0[1], l0[2], l0[3]))
            wp = 0.0 if ps < 0 or (ps == 0 and mode == 1) else wrot
            _angular(S, po, so, wp, wrot, t, (1.0 - stiff[s]) / stiff[s], lam, 2 * E + P + s, False)
        for s in range(P):
            if lkind[s] == 0 or (s == 0 and mode == 1):
                continue
            so = HEAD + PER_SLOT * s
            ps = ppar[s]
            po = -1 if ps < 0 else HEAD + PER_SLOT * ps
            pq = fixed if ps < 0 else get4(S, po)
            q = get4(S, so)
            rel = qmul(-pq[0], -pq[1], -pq[2], pq[3], q[0], q[1], q[2], q[3])
            b = part[s]
            rq = rest_rotation(rests, b)
            kept = limited(rel, rq, lkind[s], laxis[s], lrange[s, 0], lrange[s, 1])
            t = qnorm(*qmul(pq[0], pq[1], pq[2], pq[3], kept[0], kept[1], kept[2], kept[3]))
            wp = 0.0 if ps < 0 or (ps == 0 and mode == 1) else wrot
            _angular(S, po, so, wp, wrot, t, 0.0, lam, 0, True)
    settle(locals_, rests, part, ppar, stiff, stretch, lkind, laxis, lrange, mode, S, True)
    write_back(locals_, part, stiff, stretch, mode, S)
    return all_within(eff_slot, strength, goals, tolerance, S), done


# ---- SDLS ---------------------------------------------------------------------------------------------------

@kernel
def dot(x, y):
    """x . y summed in four interleaved partial sums, then those in order: a fixed order
    (so fixed bits) that lets the processor overlap four multiply-adds."""
    n = x.shape[0]
    s0 = s1 = s2 = s3 = 0.0
    k = 0
    while k + 4 <= n:
        s0 += x[k] * y[k]
        s1 += x[k + 1] * y[k + 1]
        s2 += x[k + 2] * y[k + 2]
        s3 += x[k + 3] * y[k + 3]
        k += 4
    while k < n:
        s0 += x[k] * y[k]
        k += 1
    return (s0 + s1) + (s2 + s3)


@kernel
def jacobi_rows(J, A, U, norms, sweeps, warm):
    """One-sided Jacobi on the rows of J (m, n), into A: plane rotations of row pairs,
    accumulated in U (m, m), until every pair is orthogonal to within 1e-12 of its norms or
    after `sweeps` sweeps; `norms` keeps each row's squared norm, updated by each rotation
    as Hestenes' method does. Then J = U^T A, and A's row i is sigma_i v_i^T with U's row i
    its u_i. U starts from the identity, or `warm`, from the rotations it holds (the last
    iteration's, whose Jacobian was close: its rows start nearly orthogonal, so fewer
    sweeps), A from U J."""
    m, n = A.shape
    for i in range(m):
        if warm:
            for k in range(n):
                A[i, k] = 0.0
            for j in range(m):
                w = U[i, j]
                if w != 0.0:
                    for k in range(n):
                        A[i, k] += w * J[j, k]
        else:
            for j in range(m):
                U[i, j] = 1.0 if i == j else 0.0
            for k in range(n):
                A[i, k] = J[i, k]
        norms[i] = dot(A[i], A[i])
    for _ in range(sweeps):
        turned = False
        for i in range(m - 1):
            for j in range(i + 1, m):
                a, b = norms[i], norms[j]
                if a == 0.0 or b == 0.0:
                    continue
                g = dot(A[i], A[j])
                if abs(g) <= 1e-12 * math.sqrt(a * b):
                    continue
                turned = True
                z = (b - a) / (2.0 * g)
                t = (1.0 if z >= 0.0 else -1.0) / (abs(z) + math.sqrt(1.0 + z * z))
                c = 1.0 / math.sqrt(1.0 + t * t)
                s = c * t
                for k in range(n):
                    x, y = A[i, k], A[j, k]
                    A[i, k] = c * x - s * y
                    A[j, k] = s * x + c * y
                for k in range(m):
                    x, y = U[i, k], U[j, k]
                    U[i, k] = c * x - s * y
                    U[j, k] = s * x + c * y
                norms[i] = a - t * g
                norms[j] = b + t * g
        if not turned:
            break


@kernel
def sdls_rows(ppar, eff_slot, goals, rots, rot_w, strength, col_slot, S, J, e, rho, half):
    """The Jacobian J (rows, columns) at the current frames, its rows scaled by strength
    (and rotation weight), its columns by 1 - stiffness (held in rho on entry per column,
    replaced by Buss and Kim's rho_j: the sum over blocks of column j's block norms), and
    the misses e, each block clamped to `half`. A column's slot is col_slot (-1: the free
    top's translations, scaled by the mean bone length)."""
    m, n = J.shape
    ell = S[19]
    to = HEAD
    for i in range(m):
        e[i] = 0.0
        for j in range(n):
            J[i, j] = 0.0
    row = 0
    for l in range(eff_slot.shape[0]):
        s_e = eff_slot[l]
        eo = HEAD + PER_SLOT * s_e
        w = strength[l]
        dx, dy, dz = goals[l, 0] - S[eo + 4], goals[l, 1] - S[eo + 5], goals[l, 2] - S[eo + 6]
        d = math.sqrt(dx * dx + dy * dy + dz * dz)
        f = half / d if d > half else 1.0
        e[row], e[row + 1], e[row + 2] = w * f * dx, w * f * dy, w * f * dz
        rr = -1
        reach = 0.0
        if rot_w[l] > 0.0:
            rr = row + 3
            q = get4(S, eo)
            g = rots[l]
            v = qlog(*qmul(g[0], g[1], g[2], g[3], -q[0], -q[1], -q[2], q[3]))
            rx, ry, rz = S[eo + 4] - S[to + 4], S[eo + 5] - S[to + 5], S[eo + 6] - S[to + 6]
            reach = math.sqrt(rx * rx + ry * ry + rz * rz)
            if reach < EPS:
                reach = ell
            wr = w * rot_w[l] * reach
            d = wr * math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
            f = half / d if d > half else 1.0
            e[rr], e[rr + 1], e[rr + 2] = wr * f * v[0], wr * f * v[1], wr * f * v[2]
        for j in range(n):
            s = col_slot[j]
            c = rho[j]
            if s < 0:                         # the free top's translation along axis j % 3
                J[row + j % 3, j] = w * c * ell
                continue
            # is slot s on the effector's path?
            t = s_e
            while t > s:
                t = ppar[t]
            if t != s:
                continue
            so = HEAD + PER_SLOT * s
            k = j % 3
            # the model axis k seen in the parent's frame, b = Q_p^-1 a_k, and the change of
            # X_e as the local turns about b: A_p (b x A_p^-1 (X_e - X_s))
            ao, pq, _ = parent_frame(S, ppar, s)
            bx, by, bz = qrot(-pq[0], -pq[1], -pq[2], pq[3], 1.0 if k == 0 else 0.0,
                              1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0)
            ox, oy, oz = inv3_apply(S, ao, S[eo + 4] - S[so + 4], S[eo + 5] - S[so + 5],
                                    S[eo + 6] - S[so + 6])
            cx, cy, cz = by * oz - bz * oy, bz * ox - bx * oz, bx * oy - by * ox
            jx = S[ao] * cx + S[ao + 1] * cy + S[ao + 2] * cz
            jy = S[ao + 3] * cx + S[ao + 4] * cy + S[ao + 5] * cz
            jz = S[ao + 6] * cx + S[ao + 7] * cy + S[ao + 8] * cz
            J[row, j], J[row + 1, j], J[row + 2, j] = w * c * jx, w * c * jy, w * c * jz
            if rr >= 0:
                J[rr + k, j] = w * rot_w[l] * reach * c
        row += 6 if rr >= 0 else 3


@kernel
def sdls(locals_, rests, part, ppar, eff_slot, goals, rots, rot_w, strength, stiff, stretch,
         lkind, laxis, lrange, mode, iterations, tolerance, col_slot, col_scale, S,
         J, A, W, e, sig, phi, rho):
    """The iterations, after first_steps: the frames, stop once within the tolerance, the
    Jacobian, its decomposition, each singular direction stepped by at most
    pi/4 * min(1, N_i / M_i) (its largest component), each bone's turn cut to pi/4, limits.
    Returns whether every effector of some strength lies within the tolerance and the
    iterations run."""
    m, n = J.shape
    gmax = math.pi / 4.0
    half = 0.5 * S[19]
    done = 0
    frames(locals_, part, ppar, S)
    for it in range(iterations):
        if all_within(eff_slot, strength, goals, tolerance, S):
            break
        done = it + 1
        for j in range(n):
            rho[j] = col_scale[j]
        sdls_rows(ppar, eff_slot, goals, rots, rot_w, strength, col_slot, S, J, e, rho, half)
        # rho_j: the sum of column j's block norms (blocks of three rows)
        for j in range(n):
            r = 0.0
            for b in range(m // 3):
                x, y, z = J[3 * b, j], J[3 * b + 1, j], J[3 * b + 2, j]
                r += math.sqrt(x * x + y * y + z * z)
            rho[j] = r
        jacobi_rows(J, A, W, sig, 30, it > 0)
        smax = 0.0
        for i in range(m):
            a = 0.0
            for k in range(n):
                a += A[i, k] * A[i, k]
            sig[i] = math.sqrt(a)
            smax = max(smax, sig[i])
        for k in range(n):
            phi[k] = 0.0
        for i in range(m):
            si = sig[i]
            if si <= 1e-10 * smax or si < EPS:
                continue
            alpha = 0.0
            nn = 0.0
            for b in range(m // 3):
                x, y, z = W[i, 3 * b], W[i, 3 * b + 1], W[i, 3 * b + 2]
                alpha += x * e[3 * b] + y * e[3 * b + 1] + z * e[3 * b + 2]
                nn += math.sqrt(x * x + y * y + z * z)
            mm = 0.0
            big = 0.0
            for k in range(n):
                v = A[i, k] / si
                mm += abs(v) * rho[k]
                big = max(big, abs(v))
            mm /= si
            gam = gmax * (min(1.0, nn / mm) if mm > 0.0 else 1.0)
            f = alpha / (si * si)         # phi_i = alpha_i / sigma_i v_i, v_i = row_i / sigma_i
            top = abs(f) * big * si
            if top > gam:
                f *= gam / top
            for k in range(n):
                phi[k] += f * A[i, k]
        # each bone's turn at most pi/4; the columns' scale back on the step
        for j in range(0, n, 3):
            x, y, z = phi[j] * col_scale[j], phi[j + 1] * col_scale[j + 1], phi[j + 2] * col_scale[j + 2]
            s = col_slot[j]
            if s < 0:
                d = inv3_apply(S, 36, x * S[19], y * S[19], z * S[19])
                S[HEAD + 30] += d[0]
                S[HEAD + 31] += d[1]
                S[HEAD + 32] += d[2]
                continue
            a = math.sqrt(x * x + y * y + z * z)
            if a > gmax:
                x, y, z = x * gmax / a, y * gmax / a, z * gmax / a
            o = HEAD + PER_SLOT * s
            S[o + 27], S[o + 28], S[o + 29] = x, y, z
        # turn each bone about its origin, all against this iteration's frames
        for j in range(n - 1, -1, -3):
            s = col_slot[j]
            if s < 0:
                continue
            o = HEAD + PER_SLOT * s
            turn_local(S, ppar, s, qexp(S[o + 27], S[o + 28], S[o + 29]))
        clamp_limits(rests, part, lkind, laxis, lrange, S)
        frames(locals_, part, ppar, S)
    write_back(locals_, part, stiff, stretch, mode, S)
    return all_within(eff_slot, strength, goals, tolerance, S), done
