"""Retargeting's compiled loop: one pass over the source's bones for their model rotations,
one over the target's writing each local (retarget.py describes what it writes). Binary64
inside, on core.rotations' tuples, rounded once into the target pose's binary32; the model
rotations live in the caller's scratch, so a call allocates nothing."""
from __future__ import annotations


from ..core.jit import kernel
from ..core.rotations import partial, qconj, qmul, qunit, rotate
from .retarget_build import KEEP, SCALE_CARRIES, TWO

OWN, SCALED, ABSOLUTE = 0, 1, 2


@kernel(inner=True)
def _row_turn(a, b):
    return (a[b, 0], a[b, 1], a[b, 2], a[b, 3])


@kernel(inner=True)
def _affine_up(parents, locals_, bone, point):
    """`point` in `bone`'s frame carried to model space through its root path's local
    transforms (translation, rotation, scale), walking up: each step is one local applied."""
    x, y, z = point
    b = bone
    while b >= 0:
        q = (float(locals_[b, 3]), float(locals_[b, 4]), float(locals_[b, 5]), float(locals_[b, 6]))
        x, y, z = rotate(q, (x * locals_[b, 7], y * locals_[b, 8], z * locals_[b, 9]))
        x, y, z = x + locals_[b, 0], y + locals_[b, 1], z + locals_[b, 2]
        p = parents[b]
        b = p if p < b else -1
    return (x, y, z)


@kernel(inner=True)
def _affine_down(parents, locals_, bone, point):
    """A model-space point in `bone`'s frame: the inverse of _affine_up, the root path's
    locals undone from the root down (a scale component of 0 undoes as 1)."""
    x, y, z = point
    depth = 0
    b = bone
    while b >= 0:
        depth += 1
        p = parents[b]
        b = p if p < b else -1
    for level in range(depth - 1, -1, -1):
        b = bone
        for _ in range(level):
            b = parents[b]
        q = (float(locals_[b, 3]), float(locals_[b, 4]), float(locals_[b, 5]), float(locals_[b, 6]))
        x, y, z = rotate(qconj(qunit(q)), (x - locals_[b, 0], y - locals_[b, 1], z - locals_[b, 2]))
        sx, sy, sz = locals_[b, 7], locals_[b, 8], locals_[b, 9]
        x, y, z = x / sx if sx != 0 else x, y / sy if sy != 0 else y, z / sz if sz != 0 else z
    return (x, y, z)


@kernel
def retarget_locals(s_parents, t_parents, ints, reals, src, out, scratch):
    """ints (nt + 1, 5) int64: per target bone its plan's kind, source a, source b,
    translation and flags, then the pelvis's source and target bone (-1: no pelvis).
    reals (ns + nt + 1, 20) binary64: per source bone, then per target bone, its reference
    local (10) and model rotation (4), a target bone's plan's place, weight and parent turn
    (6); then the pelvis's up, height ratio, horizontal and vertical scales, absolute,
    to_source, weight, source and target reference positions. src (ns, 10) and out (nt, 10)
    binary32, distinct; scratch (ns + nt, 4) binary64."""
    ns, nt = src.shape[0], out.shape[0]
    for b in range(ns):
        q = (float(src[b, 3]), float(src[b, 4]), float(src[b, 5]), float(src[b, 6]))
        p = s_parents[b]
        if p < b:
            q = qmul(_row_turn(scratch, p), q)
        scratch[b, 0], scratch[b, 1], scratch[b, 2], scratch[b, 3] = q
    pelvis = ints[nt, 1]
    pf = reals[ns + nt]
    ratio = pf[3] if pelvis >= 0 else 1.0
    for b in range(nt):
        p = t_parents[b]
        parent = _row_turn(scratch, ns + p) if p < b else (0.0, 0.0, 0.0, 1.0)
        tr = reals[ns + b]
        kind = ints[b, 0]
        if kind == KEEP:
            for c in range(10):
                out[b, c] = tr[c]
            model = qmul(parent, (tr[3], tr[4], tr[5], tr[6]))
        else:
            a = ints[b, 1]
            sr = reals[a]
            turn = qmul(_row_turn(scratch, a), qconj((sr[10], sr[11], sr[12], sr[13])))
            if kind == TWO:
                c2 = ints[b, 2]
                other = qmul(_row_turn(scratch, c2),
                             qconj((reals[c2, 10], reals[c2, 11], reals[c2, 12], reals[c2, 13])))
                turn = qmul(turn, partial(qmul(qconj(turn), other), tr[14]))
            if tr[15] != 1.0:
                turn = partial(turn, tr[15])
            model = qunit(qmul(turn, (tr[10], tr[11], tr[12], tr[13])))
            local = qunit(qmul(qconj(parent), model))
            out[b, 3], out[b, 4], out[b, 5], out[b, 6] = local
            mode = ints[b, 3]
            turn_p = (tr[16], tr[17], tr[18], tr[19])
            if mode == OWN:
                t = (tr[0], tr[1], tr[2])
            elif mode == SCALED:
                d = rotate(turn_p, (src[a, 0] - sr[0], src[a, 1] - sr[1], src[a, 2] - sr[2]))
                t = (tr[0] + ratio * d[0], tr[1] + ratio * d[1], tr[2] + ratio * d[2])
            else:
                t = rotate(turn_p, (float(src[a, 0]), float(src[a, 1]), float(src[a, 2])))
            out[b, 0], out[b, 1], out[b, 2] = t
            for c in range(7, 10):
                s = tr[c]
                if ints[b, 4] & SCALE_CARRIES and sr[c] != 0:
                    s = s * src[a, c] / sr[c]
                out[b, c] = s
        scratch[ns + b, 0], scratch[ns + b, 1], scratch[ns + b, 2], scratch[ns + b, 3] = model
        if b == pelvis:
            _place_pelvis(s_parents, t_parents, ints[nt, 0], pf, src, out, b)


@kernel(inner=True)
def _pelvis_axis(pelvis_f, d, at, vertical, i):
    """One model axis of the pelvis rule (d the source's change, `vertical` its part along
    the up axis on this axis, at the source pelvis's position)."""
    scaled = pelvis_f[4] * (d[i] - vertical) + pelvis_f[5] * vertical
    change = scaled + pelvis_f[6 + i] * (d[i] - scaled)
    x = pelvis_f[16 + i] + change
    x = x + pelvis_f[9 + i] * (at[i] - x)
    return pelvis_f[16 + i] + pelvis_f[12] * (x - pelvis_f[16 + i])


@kernel(inner=True)
def _place_pelvis(s_parents, t_parents, source, pelvis_f, src, out, b):
    """The pelvis rule: the target reference's model position plus the source pelvis's
    change, its horizontal and vertical parts scaled, blended per axis toward the unscaled
    change, then toward the source's position, then weighted from the reference; written as
    the local translation under the target parent as just made."""
    ux, uy, uz = pelvis_f[0], pelvis_f[1], pelvis_f[2]
    at = _affine_up(s_parents, src, source, (0.0, 0.0, 0.0))
    d = (at[0] - pelvis_f[13], at[1] - pelvis_f[14], at[2] - pelvis_f[15])
    along = d[0] * ux + d[1] * uy + d[2] * uz
    x = _pelvis_axis(pelvis_f, d, at, along * ux, 0)
    y = _pelvis_axis(pelvis_f, d, at, along * uy, 1)
    z = _pelvis_axis(pelvis_f, d, at, along * uz, 2)
    p = t_parents[b]
    if p < b:
        local = _affine_down(t_parents, out, p, (x, y, z))
    else:
        local = (x, y, z)
    out[b, 0], out[b, 1], out[b, 2] = local


@kernel
def retarget_batch(s_parents, t_parents, ints, reals, src, out, scratch):
    """retarget_locals for each of (S, ns, 10) source locals into (S, nt, 10): the same
    operations, so a batch's poses equal the single calls' bit for bit."""
    for k in range(src.shape[0]):
        retarget_locals(s_parents, t_parents, ints, reals, src[k], out[k], scratch)
