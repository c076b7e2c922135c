"""The spring kernels: the steps due in one call, the output written into a pose, and what
both share (interpolation, composing in binary64, limits, colliders).

Vectors and quaternions (x y z w) are tuples of binary64 here, so nothing is allocated per
joint. Every constraint (a collider, a limit) keeps the tail on the sphere of its bone's
length around its head and bounds the angle between the head-to-tail direction and an
axis: a tail kept out of a sphere of radius R about c stays where the cosine to c's
direction is at most (L^2 + D^2 - R^2) / (2 D L), kept in it where it is at least that, and
on the right side of a plane where the cosine to its normal is at least (h - (o - p).n) / L.
A tail moved that way is the nearest point of the bone's sphere that keeps the constraint,
and its length stays the bone's exactly.

The state's values (binary64, physics/spring.py lays them out):

    0  remainder (seconds since the last step)   1 has last call   2 has motion   3 0
    4  the last call's placement (10)            14 its force (3)  17 0 0 0
    20 the last call's locals (bones x 10)
    then each joint's tail and previous tail (joints x 6), in its spring's center's space
"""
from __future__ import annotations

import math

import numpy as np

from ..core.jit import kernel, reads, scalar, writes
from ..core.limits import NO_BONE
from ..core.rotations import add, dot, qconj, qmul, rotate, scaled, sub

AT_PLACEMENT, AT_FORCE, AT_LOCALS = 4, 14, 20
GRID_SLACK = 1e-6       # of a step
CAPSULE_PASSES = 3      # nearest point, pushed, nearest point again: a capsule's bend settles

# step's and apply's one signature each (so a first run compiles them aside, while its
# first update compiles here: runtime.core.jit.compile_aside): the skeleton's parents, the
# spring set's tables (springs, joint bones and values, limit kinds and values, collider
# kinds, bones and values, links), the state's values, tails and scratch.
_U1, _U2, _F2 = reads(np.uint32, 1), reads(np.uint32, 2), reads(np.float32, 2)
_TABLES = (_U2, _U1, _F2, _U1, _F2, _U1, _U1, _F2, _U1)
_W1, _W2, _W3 = writes(np.float64, 1), writes(np.float64, 2), writes(np.float64, 3)
_R, _I = scalar(np.float64), scalar(np.int64)


# ---- small arithmetic (the rest is core.rotations') ----------------------------------------
@kernel(inner=True)
def _qnorm(q):
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if not n > 0.0:
        return (0.0, 0.0, 0.0, 1.0)
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


@kernel(inner=True)
def _arc(a, b):
    """The shortest turn taking unit a onto unit b (half way about any perpendicular when
    they are opposite)."""
    d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    if d < -0.999999999999:
        px, py, pz = (0.0, -a[2], a[1]) if abs(a[0]) < 0.9 else (-a[1], a[0], 0.0)
        return _qnorm((px, py, pz, 0.0))
    return _qnorm((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                   a[0] * b[1] - a[1] * b[0], 1.0 + d))


@kernel(inner=True)
def _unit(a, fallback):
    n = math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])
    if not n > 1e-300:
        return fallback
    return (a[0] / n, a[1] / n, a[2] / n)


@kernel(inner=True)
def _point(m, b, v):
    """Affine row block m[b] (3 x 4) times the point v."""
    return (m[b, 0, 0] * v[0] + m[b, 0, 1] * v[1] + m[b, 0, 2] * v[2] + m[b, 0, 3],
            m[b, 1, 0] * v[0] + m[b, 1, 1] * v[1] + m[b, 1, 2] * v[2] + m[b, 1, 3],
            m[b, 2, 0] * v[0] + m[b, 2, 1] * v[1] + m[b, 2, 2] * v[2] + m[b, 2, 3])


@kernel(inner=True)
def _origin(m, b):
    return (m[b, 0, 3], m[b, 1, 3], m[b, 2, 3])


@kernel(inner=True)
def _size(m, b):
    """A frame's scale as one number: the cube root of its block's |determinant| (the scale
    itself for a uniform one)."""
    det = (m[b, 0, 0] * (m[b, 1, 1] * m[b, 2, 2] - m[b, 1, 2] * m[b, 2, 1])
           - m[b, 0, 1] * (m[b, 1, 0] * m[b, 2, 2] - m[b, 1, 2] * m[b, 2, 0])
           + m[b, 0, 2] * (m[b, 1, 0] * m[b, 2, 1] - m[b, 1, 1] * m[b, 2, 0]))
    return np.cbrt(abs(det))


@kernel(inner=True)
def _to_frame(m, b, p):
    """The point p in frame m[b]'s coordinates (its block inverted)."""
    a, bb, c = m[b, 0, 0], m[b, 0, 1], m[b, 0, 2]
    d, e, f = m[b, 1, 0], m[b, 1, 1], m[b, 1, 2]
    g, h, i = m[b, 2, 0], m[b, 2, 1], m[b, 2, 2]
    det = a * (e * i - f * h) - bb * (d * i - f * g) + c * (d * h - e * g)
    if det == 0.0:
        return (0.0, 0.0, 0.0)
    x, y, z = p[0] - m[b, 0, 3], p[1] - m[b, 1, 3], p[2] - m[b, 2, 3]
    return (((e * i - f * h) * x + (c * h - bb * i) * y + (bb * f - c * e) * z) / det,
            ((f * g - d * i) * x + (a * i - c * g) * y + (c * d - a * f) * z) / det,
            ((d * h - e * g) * x + (bb * g - a * h) * y + (a * e - bb * d) * z) / det)


# ---- poses in binary64 ---------------------------------------------------------------------
@kernel(inner=True)
def _slerp(a, b, t):
    """Along the shorter arc from unit a to unit b."""
    d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
    sign = 1.0
    if d < 0.0:
        sign, d = -1.0, -d
    if d > 0.9995:
        wa, wb = 1.0 - t, t * sign
    else:
        theta = math.acos(d)
        s = math.sin(theta)
        wa, wb = math.sin((1.0 - t) * theta) / s, math.sin(t * theta) / s * sign
    return _qnorm((wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2],
                   wa * a[3] + wb * b[3]))


@kernel(inner=True)
def _blend_transform(a, b, t, out):
    """out = a to b at t: translation and scale linearly, rotation along the shorter arc."""
    for i in (0, 1, 2, 7, 8, 9):
        out[i] = a[i] + (b[i] - a[i]) * t
    q = _slerp(_qnorm((a[3], a[4], a[5], a[6])), _qnorm((b[3], b[4], b[5], b[6])), t)
    out[3], out[4], out[5], out[6] = q


@kernel(inner=True)
def _compose(parents, locals_, placement, model, turns):
    """Each bone's frame under the placement (model (n, 3, 4), binary64) and its turn (turns
    (n, 4): the placement's rotation times the chain of the locals' normalized rotations),
    bone by bone in storage order. A parent that is not a lower index counts as none."""
    pq = _qnorm((placement[3], placement[4], placement[5], placement[6]))
    ps = (placement[7], placement[8], placement[9])
    for b in range(locals_.shape[0]):
        q = _qnorm((locals_[b, 3], locals_[b, 4], locals_[b, 5], locals_[b, 6]))
        t = (locals_[b, 0], locals_[b, 1], locals_[b, 2])
        p = np.int64(parents[b])
        root = not p < b
        turn = qmul(pq, q) if root else qmul((turns[p, 0], turns[p, 1], turns[p, 2],
                                                 turns[p, 3]), q)
        turns[b, 0], turns[b, 1], turns[b, 2], turns[b, 3] = turn
        for j in range(4):
            if j < 3:
                e = (locals_[b, 7] if j == 0 else 0.0, locals_[b, 8] if j == 1 else 0.0,
                     locals_[b, 9] if j == 2 else 0.0)
                c = rotate(q, e)
            else:
                c = t
            if root:
                c = rotate(pq, (c[0] * ps[0], c[1] * ps[1], c[2] * ps[2]))
                for i in range(3):
                    model[b, i, j] = c[i] + (placement[i] if j == 3 else 0.0)
            else:
                for i in range(3):
                    model[b, i, j] = (model[p, i, 0] * c[0] + model[p, i, 1] * c[1]
                                      + model[p, i, 2] * c[2] + (model[p, i, 3] if j == 3 else 0.0))


# ---- constraints on a tail -----------------------------------------------------------------
@kernel(inner=True)
def _bound_cosine(head, tail, length, axis, bound, at_least):
    """The tail turned about its head, nearest where it was, so its direction's cosine to
    the unit axis is at least (or, at_least False, at most) bound (clamped to [-1, 1])."""
    d = _unit(sub(tail, head), axis)
    c = dot(d, axis)
    if (c >= bound) if at_least else (c <= bound):
        return tail
    bound = min(1.0, max(-1.0, bound))
    perp = sub(d, scaled(axis, c))
    fallback = (0.0, -axis[2], axis[1]) if abs(axis[0]) < 0.9 else (-axis[1], axis[0], 0.0)
    perp = _unit(perp, _unit(fallback, (0.0, 0.0, 1.0)))
    s = math.sqrt(max(0.0, 1.0 - bound * bound))
    return add(head, scaled(add(scaled(axis, bound), scaled(perp, s)), length))


@kernel(inner=True)
def _sphere(head, tail, length, center, radius, inside):
    """The tail kept out of (or in) the sphere of radius about center."""
    to = sub(center, head)
    dist = math.sqrt(dot(to, to))
    if not dist > 1e-12 * max(length, 1e-300):
        return tail                     # concentric: every direction is as near as any other
    axis = scaled(to, 1.0 / dist)
    bound = (length * length + dist * dist - radius * radius) / (2.0 * dist * length)
    return _bound_cosine(head, tail, length, axis, bound, inside)


@kernel(inner=True)
def _nearest_on_segment(a, b, p):
    ab = sub(b, a)
    den = dot(ab, ab)
    t = 0.0 if not den > 0.0 else min(1.0, max(0.0, dot(sub(p, a), ab) / den))
    return add(a, scaled(ab, t))


@kernel(inner=True)
def place_colliders(ckinds, cbones, cvalues, world, table):
    """Each collider in the world once a step (table (colliders, 8)): its point, then its
    capsule's end (a sphere's point again) or its plane's unit normal, then its radius."""
    for c in range(ckinds.shape[0]):
        bone = cbones[c]
        a = _point(world, bone, (np.float64(cvalues[c, 0]), np.float64(cvalues[c, 1]),
                                 np.float64(cvalues[c, 2])))
        if ckinds[c] == 4:
            n = (np.float64(cvalues[c, 7]), np.float64(cvalues[c, 8]), np.float64(cvalues[c, 9]))
            b = _unit((world[bone, 0, 0] * n[0] + world[bone, 0, 1] * n[1] + world[bone, 0, 2] * n[2],
                       world[bone, 1, 0] * n[0] + world[bone, 1, 1] * n[1] + world[bone, 1, 2] * n[2],
                       world[bone, 2, 0] * n[0] + world[bone, 2, 1] * n[1] + world[bone, 2, 2] * n[2]),
                      (0.0, 0.0, 1.0))
        elif ckinds[c] == 1 or ckinds[c] == 3:
            b = _point(world, bone, (np.float64(cvalues[c, 4]), np.float64(cvalues[c, 5]),
                                     np.float64(cvalues[c, 6])))
        else:
            b = a
        table[c, 0], table[c, 1], table[c, 2] = a
        table[c, 3], table[c, 4], table[c, 5] = b
        table[c, 6] = np.float64(cvalues[c, 3]) * _size(world, bone)


@kernel(inner=True)
def _collide(head, tail, length, hit, kind, table, c):
    """The tail pushed out of collider c (or kept in an inside one, or on a plane's side),
    as place_colliders put it in the world."""
    a = (table[c, 0], table[c, 1], table[c, 2])
    b = (table[c, 3], table[c, 4], table[c, 5])
    if kind == 4:                                            # plane
        if dot(sub(tail, a), b) >= hit:
            return tail
        bound = (hit - dot(sub(head, a), b)) / length
        return _bound_cosine(head, tail, length, b, bound, True)
    inside = kind == 2 or kind == 3
    reach = max(0.0, table[c, 6] - hit) if inside else table[c, 6] + hit
    sphere = kind == 0 or kind == 2
    for _ in range(1 if sphere else CAPSULE_PASSES):
        near = a if sphere else _nearest_on_segment(a, b, tail)
        gap = sub(tail, near)
        far = dot(gap, gap)
        if (far <= reach * reach) if inside else (far >= reach * reach):
            return tail
        tail = _sphere(head, tail, length, near, reach, inside)
    return tail


@kernel(inner=True)
def _limit(head, tail, length, frame, kind, values, j):
    """The tail kept within joint j's limit, its frame the limit's turn in the world."""
    if kind == 0:
        return tail
    d = rotate(qconj(frame), _unit(sub(tail, head), rotate(frame, (0.0, 1.0, 0.0))))
    angle = np.float64(values[j, 0])
    if kind == 2:                                             # hinge: about X only
        d = _unit((0.0, d[1], d[2]), (0.0, 1.0, 0.0))
    if kind == 3:                                             # spherical: pitch and yaw
        pitch = min(angle, max(-angle, math.atan2(d[2], d[1])))
        yaw_limit = np.float64(values[j, 1])
        yaw = min(yaw_limit, max(-yaw_limit, math.asin(min(1.0, max(-1.0, d[0])))))
        d = (math.sin(yaw), math.cos(yaw) * math.cos(pitch), math.cos(yaw) * math.sin(pitch))
    else:
        c = d[1]
        bound = math.cos(angle)
        if c < bound:
            perp = _unit((d[0], 0.0, d[2]), (0.0, 0.0, 1.0))
            s = math.sin(angle)
            d = (perp[0] * s, bound, perp[2] * s)
    return add(head, scaled(rotate(frame, d), length))


@kernel(inner=True)
def _limit_frame(turn, direction, values, j):
    """Joint j's limit frame: the joint's turn, +Y taken onto the pose's head-to-tail
    direction by the shortest arc, then the limit's rotation."""
    local = rotate(qconj(turn), direction)
    q = (np.float64(values[j, 4]), np.float64(values[j, 5]), np.float64(values[j, 6]),
         np.float64(values[j, 7]))
    return qmul(qmul(turn, _arc((0.0, 1.0, 0.0), local)), q)


@kernel(inner=True)
def _constrain(head, tail, length, hit, frame, j, lkinds, lvalues, first_link, link_count,
               links, ckinds, table):
    """The limit, then each collider followed by the limit again (VRMC_springBone_limit's
    order)."""
    limited = lkinds[j] != 0
    if limited:
        tail = _limit(head, tail, length, frame, lkinds[j], lvalues, j)
    for k in range(first_link, first_link + link_count):
        c = links[k]
        tail = _collide(head, tail, length, hit, ckinds[c], table, c)
        if limited:
            tail = _limit(head, tail, length, frame, lkinds[j], lvalues, j)
    return tail


# ---- one step --------------------------------------------------------------------------------
@kernel(inner=True)
def _from_center(world, center, p):
    return p if center == NO_BONE else _point(world, center, p)


@kernel(inner=True)
def _into_center(world, center, p):
    return p if center == NO_BONE else _to_frame(world, center, p)


@kernel(inner=True)
def _step_springs(springs, jbones, jvalues, lkinds, lvalues, ckinds, links, table, world, turns,
                  force, tails, moving):
    """One step of every spring, its pose's frames in world (turns their rotations), the
    colliders placed in table."""
    for s in range(springs.shape[0]):
        first, count = np.int64(springs[s, 0]), np.int64(springs[s, 1])
        first_link, link_count = np.int64(springs[s, 2]), np.int64(springs[s, 3])
        center = springs[s, 4]
        acc = (0.0, 0.0, 0.0, 1.0)
        head = _origin(world, jbones[first])
        for j in range(first, first + count - 1):
            b, nb = jbones[j], jbones[j + 1]
            span = sub(_origin(world, nb), _origin(world, b))
            length = math.sqrt(dot(span, span))
            if not length > 0.0:
                cur = _into_center(world, center, head)
                for i in range(3):
                    tails[j, i] = cur[i]
                    tails[j, 3 + i] = cur[i]
                continue
            direction = rotate(acc, scaled(span, 1.0 / length))
            if not moving:
                tail = add(head, scaled(direction, length))
                prev_c = _into_center(world, center, tail)
            else:
                size = _size(world, b)
                cur_c = (tails[j, 0], tails[j, 1], tails[j, 2])
                prev_c = cur_c
                keep = np.float64(jvalues[j, 5])
                push = np.float64(jvalues[j, 6])
                moved = _from_center(world, center, add(cur_c, scaled(
                    sub(cur_c, (tails[j, 3], tails[j, 4], tails[j, 5])), keep)))
                stiff = np.float64(jvalues[j, 1]) * size
                pulled = (moved[0] + (direction[0] * stiff + (np.float64(jvalues[j, 2]) + force[0] * push) * size),
                          moved[1] + (direction[1] * stiff + (np.float64(jvalues[j, 3]) + force[1] * push) * size),
                          moved[2] + (direction[2] * stiff + (np.float64(jvalues[j, 4]) + force[2] * push) * size))
                tail = add(head, scaled(_unit(sub(pulled, head), direction), length))
                frame = acc
                if lkinds[j] != 0:
                    turn = qmul(acc, (turns[b, 0], turns[b, 1], turns[b, 2], turns[b, 3]))
                    frame = _limit_frame(turn, direction, lvalues, j)
                tail = _constrain(head, tail, length, np.float64(jvalues[j, 0]) * size, frame, j,
                                  lkinds, lvalues, first_link, link_count, links, ckinds, table)
            cur = _into_center(world, center, tail)
            for i in range(3):
                tails[j, i] = cur[i]
                tails[j, 3 + i] = prev_c[i]
            acc = qmul(_arc(direction, _unit(sub(tail, head), direction)), acc)
            head = tail


@kernel(signature=(_U1, _F2, reads(np.float64, 1), reads(np.float64, 1), _R, _R, _I, *_TABLES,
                   _W1, _W2, _W2, _W3, _W2, _W2))
def step(parents, pose_locals, placement, force, delta, rate, max_steps, springs, jbones,
         jvalues, lkinds, lvalues, ckinds, cbones, cvalues, links, values, tails, locals_,
         world, turns, table):
    """maniSpringState_Step's work: the steps due in |delta| (at most max_steps' seconds),
    each with the pose, placement and force interpolated between the last call's and these
    at its time; the remainder kept; these become the last call's. locals_ ((bones + 1,
    10): the last row the placement's), world and turns are the state's scratch. Returns
    the steps run."""
    n = pose_locals.shape[0]
    last = values[AT_LOCALS:AT_LOCALS + 10 * n].reshape((n, 10))
    last_placement = values[AT_PLACEMENT:AT_PLACEMENT + 10]
    if values[1] == 0.0:
        _keep_call(values, last, placement, force, pose_locals)
        values[1] = 1.0
    h = 1.0 / rate
    d = min(abs(delta), max_steps * h)
    r = values[0]
    total = r + d
    # within GRID_SLACK of a step counts as reaching it, so a host whose frames land on the
    # step grid lands on it whatever its deltas' rounding
    count = min(np.int64(math.floor(total * rate + GRID_SLACK)), np.int64(max_steps))
    for k in range(1, count + 1):
        t = min(1.0, max(0.0, (k * h - r) / d)) if d > 0.0 else 1.0
        for b in range(n):
            _blend_transform(last[b], pose_locals[b], t, locals_[b])
        _blend_transform(last_placement, placement, t, locals_[n])
        f = (values[AT_FORCE] + (force[0] - values[AT_FORCE]) * t,
             values[AT_FORCE + 1] + (force[1] - values[AT_FORCE + 1]) * t,
             values[AT_FORCE + 2] + (force[2] - values[AT_FORCE + 2]) * t)
        _compose(parents, locals_[:n], locals_[n], world, turns)
        moving = values[2] != 0.0
        if moving:
            place_colliders(ckinds, cbones, cvalues, world, table)
        _step_springs(springs, jbones, jvalues, lkinds, lvalues, ckinds, links, table, world,
                      turns, f, tails, moving)
        values[2] = 1.0
    rest = total - count * h
    values[0] = rest if 0.0 < rest < h else 0.0
    _keep_call(values, last, placement, force, pose_locals)
    return count


@kernel(inner=True)
def _keep_call(values, last, placement, force, pose_locals):
    """The placement, force and pose as the last call's, the pose's rotations normalized (a
    state holds unit ones). Element by element: a slice assignment compiles numba's shape
    check and its message's string formatting, seconds of a first run."""
    for i in range(10):
        values[AT_PLACEMENT + i] = placement[i]
    for i in range(3):
        values[AT_FORCE + i] = force[i]
    for b in range(last.shape[0]):
        for i in range(10):
            last[b, i] = pose_locals[b, i]
        last[b, 3], last[b, 4], last[b, 5], last[b, 6] = _qnorm((last[b, 3], last[b, 4],
                                                                 last[b, 5], last[b, 6]))


# ---- the output ------------------------------------------------------------------------------
@kernel(signature=(_U1, writes(np.float32, 2), _R, *_TABLES, _W1, _W2, _W2, _W3, _W2, _W3, _W2,
                   _W2, _I))
def apply(parents, pose_locals, rate, springs, jbones, jvalues, lkinds, lvalues, ckinds, cbones,
          cvalues, links, values, tails, locals_, world, turns, out_world, out_turns, table, reach):
    """maniSpringState_Apply's work: each joint's local rotation in pose_locals (binary32)
    turned toward its tail: moved on at its velocity for the remainder, in the world of the
    last call's placement, pushed out of the colliders as the last call left them. The
    output pose is framed under that placement too, so its joints' turns follow from the
    world's. Each spring reads the input pose, as its steps do."""
    if values[2] == 0.0:
        return
    n = pose_locals.shape[0]
    last = values[AT_LOCALS:AT_LOCALS + 10 * n].reshape((n, 10))
    placement = values[AT_PLACEMENT:AT_PLACEMENT + 10]
    _compose(parents, last[:reach], placement, world[:reach], turns[:reach])
    place_colliders(ckinds, cbones, cvalues, world, table)
    for b in range(n):
        for i in range(10):
            locals_[b, i] = pose_locals[b, i]
    _compose(parents, locals_[:n], placement, out_world, out_turns)
    pq = _qnorm((placement[3], placement[4], placement[5], placement[6]))
    frac = values[0] * rate
    for s in range(springs.shape[0]):
        first, count = np.int64(springs[s, 0]), np.int64(springs[s, 1])
        first_link, link_count = np.int64(springs[s, 2]), np.int64(springs[s, 3])
        center = springs[s, 4]
        acc = (0.0, 0.0, 0.0, 1.0)
        head = _origin(out_world, jbones[first])
        for j in range(first, first + count - 1):
            b, nb = jbones[j], jbones[j + 1]
            span = sub(_origin(out_world, nb), _origin(out_world, b))
            length = math.sqrt(dot(span, span))
            if not length > 0.0:
                continue
            direction = rotate(acc, scaled(span, 1.0 / length))
            cur_c = (tails[j, 0], tails[j, 1], tails[j, 2])
            ahead = add(cur_c, scaled(sub(cur_c, (tails[j, 3], tails[j, 4], tails[j, 5])), frac))
            tail = _from_center(world, center, ahead)
            tail = add(head, scaled(_unit(sub(tail, head), direction), length))
            own = (out_turns[b, 0], out_turns[b, 1], out_turns[b, 2], out_turns[b, 3])
            frame = acc if lkinds[j] == 0 else _limit_frame(qmul(acc, own), direction, lvalues, j)
            tail = _constrain(head, tail, length, np.float64(jvalues[j, 0]) * _size(out_world, b),
                              frame, j, lkinds, lvalues, first_link, link_count, links, ckinds,
                              table)
            turn = _arc(direction, _unit(sub(tail, head), direction))
            p = np.int64(parents[b])
            above = (out_turns[p, 0], out_turns[p, 1], out_turns[p, 2], out_turns[p, 3]) \
                if p < b else pq
            placed = qmul(acc, above)
            q = _qnorm(qmul(qconj(placed), qmul(qmul(turn, acc), own)))
            pose_locals[b, 3], pose_locals[b, 4] = q[0], q[1]
            pose_locals[b, 5], pose_locals[b, 6] = q[2], q[3]
            acc = qmul(turn, acc)
            head = tail
