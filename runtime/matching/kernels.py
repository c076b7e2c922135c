"""Motion matching's compiled loops: the exact k-d search and the trajectory's springs.

Both work in binary32 throughout, every operation rounded on its own (no fastmath, so no
fused multiply-add), so a cost is the same bits whichever way the search reaches it.

A cost that comes to NaN (an infinite bias and transition sum meeting an infinite square,
from finite values past binary32's range) counts as +inf; a bound that comes to NaN prunes
nothing.

Why the box bound never exceeds a frame's true cost: for each feature, the query's distance
to the box is at most its distance to any frame inside, and binary32 rounding is monotonic,
so fl(x - edge)^2 <= fl(x - f)^2; the bound then adds those squares to the node's least bias
plus the transition cost in the same order as a frame's cost adds its own, and rounded
addition is monotonic in each argument, so by induction bound <= cost.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.jit import kernel

NO_JUMP = 1
LOOPS = 4
NO_NODE = 0xFFFFFFFF
NOT_FINITE = -2           # search_tree's frame for a query feature not finite
NO_BEST = 1 << 62          # a frame number past every frame: the first candidate always wins
STACK = 96                 # a tree of MAX_MATCH_FRAMES frames is 23 levels deep

_ZERO = np.float32(0.0)
_ONE = np.float32(1.0)
_TWO = np.float32(2.0)
_HALF = np.float32(0.5)
_LN2X2 = np.float32(2.0 * math.log(2.0))
_HALF_LIFE_EPS = np.float32(1e-5)
_ANGLE_EPS = np.float32(1e-8)


@kernel(inner=True)
def _loses(cost, frame, best, best_frame, best_continuing):
    """Whether a cost (or a bound on costs) at a frame (or a node's lowest) cannot beat the
    best: the continuing frame wins ties, then the lower frame."""
    if cost > best:
        return True
    return cost == best and (best_continuing or frame > best_frame)


@kernel(inner=True)
def _excluded(f, e, entry_reals, entry_ints, frames, frame_time, end_exclusion, picks,
              history_time):
    if not entry_ints[1, e] & LOOPS and frame_time[f] > entry_reals[1, e] - end_exclusion:
        return True
    for k in range(picks.size):
        p = picks[k]
        if frames[2, p] == e and abs(frame_time[f] - frame_time[p]) <= history_time:
            return True
    return False


@kernel
def search_tree(query, norm, features, frames, frame_time, entry_reals, entry_ints, node_links,
                node_bias, boxes, picks, continuing, continuing_bias, transition, required,
                excluded, end_exclusion, history_time):
    """(frame, cost, frames costed) of the least cost; frame -1 when no frame is a
    candidate, NOT_FINITE for a query feature not finite. `query` raw binary32 features,
    normalized here; -1 for no continuing frame; the costs and times binary64 values the
    kernel rounds to binary32. norm (2, F): offsets, scales; frames (3, N): each slot's frame,
    each frame's slot, each frame's entry; entry_reals (2, E): cost bias, end; entry_ints
    (2, E): tags, flags; node_links (M, 5): first slot, count, left, right, lowest frame."""
    width = query.size
    qn = np.empty(width, np.float32)
    for i in range(width):
        if not math.isfinite(query[i]):
            return NOT_FINITE, np.float32(0.0), 0
        qn[i] = (query[i] - norm[0, i]) / norm[1, i]
    continuing_bias = np.float32(continuing_bias)
    transition = np.float32(transition)
    end_exclusion = np.float32(end_exclusion)
    history_time = np.float32(history_time)
    best = np.float32(np.inf)
    best_frame = NO_BEST
    best_continuing = False
    costed = 0
    if continuing >= 0:
        e = frames[2, continuing]
        tags = entry_ints[0, e]
        if (tags & required) == required and (tags & excluded) == 0:
            s = frames[1, continuing]
            acc = entry_reals[0, e] + continuing_bias
            for i in range(width):
                d = qn[i] - features[s, i]
                acc += d * d
            if acc != acc:
                acc = np.float32(np.inf)
            best, best_frame, best_continuing = acc, continuing, True
            costed += 1
    stack = np.empty(STACK, np.int64)
    stack_bound = np.empty(STACK, np.float32)
    stack[0] = 0
    stack_bound[0] = _ZERO
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        bound = stack_bound[top]
        if _loses(bound, node_links[node, 4], best, best_frame, best_continuing):
            continue
        left, right = node_links[node, 2], node_links[node, 3]
        if left == NO_NODE:
            first = node_links[node, 0]
            for s in range(first, first + node_links[node, 1]):
                f = frames[0, s]
                if f == continuing:
                    continue
                e = frames[2, f]
                tags = entry_ints[0, e]
                if (tags & required) != required or (tags & excluded) != 0 \
                        or entry_ints[1, e] & NO_JUMP:
                    continue
                if _excluded(f, e, entry_reals, entry_ints, frames, frame_time,
                             end_exclusion, picks, history_time):
                    continue
                acc = entry_reals[0, e] + transition
                lost = False
                for i in range(width):
                    d = qn[i] - features[s, i]
                    acc += d * d
                    if acc > best:
                        lost = True
                        break
                costed += 1
                if acc != acc:
                    acc = np.float32(np.inf)
                if not lost and not _loses(acc, f, best, best_frame, best_continuing):
                    best, best_frame, best_continuing = acc, f, False
            continue
        bl = _bound(node_bias[left] + transition, qn, boxes, left, best)
        br = _bound(node_bias[right] + transition, qn, boxes, right, best)
        near, far, bn, bf = (left, right, bl, br) if bl <= br else (right, left, br, bl)
        for child, b in ((far, bf), (near, bn)):
            if _loses(b, node_links[child, 4], best, best_frame, best_continuing):
                continue
            stack[top] = child
            stack_bound[top] = b
            top += 1
    if best_frame == NO_BEST:
        return -1, best, costed
    return best_frame, best, costed


@kernel
def check_tree(links, lowest, least, boxes, features, slot_frame, slot_bias, leaf):
    """(node, fault, feature) of the first fault an open finds in a tree, node -1 for none.
    links (n, 4): first slot, count, left, right. Faults: 0 the root's first slot, 1 its
    count, 2 a leaf's count, 3 a node the leaf size leaves whole split, 4 a left child not
    the next node, 5 a right child past the nodes or taken, 6 a child's first slot and 7 its
    count not its half (node the child), 8 a node no parent holds, 9 a lowest frame, 10 a
    least bias, 11 a box's least and 12 its greatest value (at the feature)."""
    n = links.shape[0]
    width = features.shape[1]
    if links[0, 0] != 0:
        return 0, 0, 0
    if links[0, 1] != features.shape[0]:
        return 0, 1, 0
    held = np.zeros(n, np.bool_)
    for i in range(n):
        start, count, left, right = links[i, 0], links[i, 1], links[i, 2], links[i, 3]
        if left == NO_NODE and right == NO_NODE:
            if not 1 <= count <= leaf:
                return i, 2, 0
            continue
        if count <= leaf:
            return i, 3, 0
        if left != i + 1 or left >= n or held[left]:
            return i, 4, 0
        if not i + 1 < right < n or held[right]:
            return i, 5, 0
        held[left] = True
        held[right] = True
        half = count // 2
        if links[left, 0] != start:
            return left, 6, 0
        if links[left, 1] != half:
            return left, 7, 0
        if links[right, 0] != start + half:
            return right, 6, 0
        if links[right, 1] != count - half:
            return right, 7, 0
    for i in range(1, n):
        if not held[i]:
            return i, 8, 0
    lo = np.empty(width, np.float32)
    hi = np.empty(width, np.float32)
    for i in range(n - 1, -1, -1):
        left, right = links[i, 2], links[i, 3]
        if left == NO_NODE:
            first = links[i, 0]
            low, bias = slot_frame[first], slot_bias[first]
            for j in range(width):
                lo[j] = features[first, j]
                hi[j] = features[first, j]
            for s in range(first + 1, first + links[i, 1]):
                low = min(low, slot_frame[s])
                bias = min(bias, slot_bias[s])
                for j in range(width):
                    lo[j] = min(lo[j], features[s, j])
                    hi[j] = max(hi[j], features[s, j])
        else:
            low = min(lowest[left], lowest[right])
            bias = min(least[left], least[right])
            for j in range(width):
                lo[j] = min(boxes[left, 0, j], boxes[right, 0, j])
                hi[j] = max(boxes[left, 1, j], boxes[right, 1, j])
        if lowest[i] != low:
            return i, 9, 0
        if not least[i] == bias:
            return i, 10, 0
        for j in range(width):
            if boxes[i, 0, j] != lo[j]:
                return i, 11, j
        for j in range(width):
            if boxes[i, 1, j] != hi[j]:
                return i, 12, j
    return -1, 0, 0


@kernel(inner=True)
def _bound(acc, qn, boxes, node, best):
    """The least cost any frame of the node can have (stopping once it loses)."""
    for i in range(qn.size):
        x = qn[i]
        lo = boxes[node, 0, i]
        hi = boxes[node, 1, i]
        if x < lo:
            d = x - lo
            acc += d * d
        elif x > hi:
            d = x - hi
            acc += d * d
        else:
            continue
        if acc > best:
            break
    return acc


# ---- trajectories ---------------------------------------------------------------------------------
@kernel(inner=True)
def _scaled_angle_axis(x, y, z, w):
    """2 log q of a unit quaternion with w >= 0, the angle from atan2 (accurate near 0)."""
    length = np.float32(math.sqrt(x * x + y * y + z * z))
    if length < _ANGLE_EPS:
        return _TWO * x, _TWO * y, _TWO * z
    half = np.float32(math.atan2(length, w))
    k = _TWO * half / length
    return k * x, k * y, k * z


@kernel(inner=True)
def _from_scaled_angle_axis(vx, vy, vz):
    hx, hy, hz = _HALF * vx, _HALF * vy, _HALF * vz
    half = np.float32(math.sqrt(hx * hx + hy * hy + hz * hz))
    if half < _ANGLE_EPS:
        n = np.float32(math.sqrt(hx * hx + hy * hy + hz * hz + _ONE))
        return hx / n, hy / n, hz / n, _ONE / n
    s = np.float32(math.sin(half)) / half
    return hx * s, hy * s, hz * s, np.float32(math.cos(half))


@kernel(inner=True)
def _qmul(ax, ay, az, aw, bx, by, bz, bw):
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


@kernel
def advance_trajectory(state, goal, dt, out):
    """Holden's critically damped springs in closed form, binary32. state (16,): position,
    velocity, acceleration, rotation (x y z w), angular velocity; goal (9,): desired
    velocity, desired rotation, position half-life, rotation half-life."""
    y = _LN2X2 / (goal[7] + _HALF_LIFE_EPS)
    eydt = np.float32(math.exp(-(y * dt)))
    for i in range(3):
        x, v, a, vg = state[i], state[3 + i], state[6 + i], goal[i]
        j0 = v - vg
        j1 = a + j0 * y
        out[i] = eydt * (((-j1) / (y * y)) + ((-j0 - j1 * dt) / y)) + (j1 / (y * y)) \
            + j0 / y + vg * dt + x
        out[3 + i] = eydt * (j0 + j1 * dt) + vg
        out[6 + i] = eydt * (a - j1 * y * dt)
    y = _LN2X2 / (goal[8] + _HALF_LIFE_EPS)
    eydt = np.float32(math.exp(-(y * dt)))
    gx, gy, gz, gw = goal[3], goal[4], goal[5], goal[6]
    ex, ey, ez, ew = _qmul(state[9], state[10], state[11], state[12], -gx, -gy, -gz, gw)
    if ew < _ZERO:
        ex, ey, ez, ew = -ex, -ey, -ez, -ew
    j0x, j0y, j0z = _scaled_angle_axis(ex, ey, ez, ew)
    j1x = state[13] + j0x * y
    j1y = state[14] + j0y * y
    j1z = state[15] + j0z * y
    rx, ry, rz, rw = _from_scaled_angle_axis(eydt * (j0x + j1x * dt), eydt * (j0y + j1y * dt),
                                             eydt * (j0z + j1z * dt))
    out[9], out[10], out[11], out[12] = _qmul(rx, ry, rz, rw, gx, gy, gz, gw)
    out[13] = eydt * (state[13] - j1x * y * dt)
    out[14] = eydt * (state[14] - j1y * y * dt)
    out[15] = eydt * (state[15] - j1z * y * dt)
