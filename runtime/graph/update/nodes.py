"""Pass 1 of the update, node by node: what each deciding kind decides and how it shares its
weight among its inputs (one kernel per kind, over the lanes), and the maker of each kind's
step from the binding (a function of S, P and the step). State machines have their own
module (update/machine.py); the shares every kind gives go through weigh and push here.
"""
from __future__ import annotations

import math

import numpy as np

from ...core.jit import kernel
from ..evaluate.kernels import curve
from ..limits import GRAPH_NONE, MAX_GRAPH_SECONDS, MAX_GRAPH_TIME_FACTOR
from ..source import PASS_ON_KINDS, NodeKind

WEIGHT, ROOT_WEIGHT, SCALED_WEIGHT, TIME_SCALE, SEEK_TIME = range(5)
"""P's rows: weight, root motion weight, weight times time scale, time scale, and the time a
seek puts the playheads at (NaN: none)."""
LONGEST_STEP = 1.0e6 * MAX_GRAPH_TIME_FACTOR    # the longest step an inertialize node keeps


@kernel(inner=True)
def weigh(S, P, lane, k, base):
    """A node's share of the output for a lane, kept in S: (weight, root motion weight, time
    scale); a weight of 0 when nothing weighs it. A node several readers share may be given
    more than the whole; it is the whole."""
    w = P[WEIGHT, lane, k]
    if w <= 0.0:
        S[lane, base] = S[lane, base + 1] = 0.0
        return 0.0, 0.0, 1.0
    sc = P[SCALED_WEIGHT, lane, k] / w
    P[TIME_SCALE, lane, k] = sc
    if w > 1.0:
        w = P[WEIGHT, lane, k] = 1.0
    rw = P[ROOT_WEIGHT, lane, k] if P[ROOT_WEIGHT, lane, k] < 1.0 else 1.0
    S[lane, base] = w
    S[lane, base + 1] = rw
    return w, rw, sc


@kernel(inner=True)
def push(P, lane, i, w, rw, share, rshare, sc, seek):
    """Input i's part of a node's weight (w, rw) at the node's shares, with its time scale
    and seek (the first seek reaching an input holds)."""
    if share > 0.0:
        ws = w * share
        P[WEIGHT, lane, i] += ws
        P[SCALED_WEIGHT, lane, i] += ws * sc
        if seek == seek and P[SEEK_TIME, lane, i] != P[SEEK_TIME, lane, i]:
            P[SEEK_TIME, lane, i] = seek
    if rshare > 0.0:
        P[ROOT_WEIGHT, lane, i] += rw * rshare


@kernel(inner=True)
def _shares(S, P, lane, base, inputs, shares, w, rw, sc, seek):
    """A blend's or space's shares kept (S[base + 2 + j]) and given to its inputs."""
    for j in range(inputs.size):
        S[lane, base + 2 + j] = shares[j]
        push(P, lane, inputs[j], w, rw, shares[j], shares[j], sc, seek)


@kernel(inner=True)
def _unit(v):
    return 0.0 if v < 0.0 else 1.0 if v > 1.0 else v


@kernel(inner=True)
def lesser(a, b):
    """Python's min(a, b)."""
    return b if b < a else a


@kernel(inner=True)
def greater(a, b):
    """Python's max(a, b)."""
    return b if b > a else a


@kernel(inner=True)
def request_blend(S, lane, at, own, duration):
    """A switch beneath an inertialize node (its state at S[at:]; none for at < 0): it blends
    from its last output over its own duration, or the switch's when its own is 0."""
    length = own if own > 0 else duration
    if at < 0 or length <= 0:
        return
    S[lane, at] = 0.0           # active once its offsets are captured
    S[lane, at + 1] = 1.0       # pending
    S[lane, at + 2] = 0.0       # time since the switch
    S[lane, at + 3] = length
    S[lane, at + 8] = 0.0       # captured


@kernel(inner=True)
def reset_subtree(S, lane, ranges, initial):
    """A subtree back to its state at init (S's ranges of it): an entry's restart."""
    for x in range(ranges.shape[0]):
        for i in range(ranges[x, 0], ranges[x, 1]):
            S[lane, i] = initial[i]


@kernel
def _only(S, P, k, base):
    """A node that decides nothing and shares nothing (a pose parameter)."""
    for lane in range(S.shape[0]):
        weigh(S, P, lane, k, base)


@kernel
def _blend(S, P, k, base, inputs, weights, params, direct):
    """Shares by weights (each times its parameter in [0, 1] where it has one; params[j] is
    its place in S, or -1), normalized; a direct blend's left below 1 when they sum below."""
    shares = np.empty(inputs.size)
    for lane in range(S.shape[0]):
        w, rw, sc = weigh(S, P, lane, k, base)
        if not w > 0.0:
            continue
        total = 0.0
        for j in range(inputs.size):
            shares[j] = weights[j] * (_unit(S[lane, params[j]]) if params[j] >= 0 else 1.0)
            total += shares[j]
        div = greater(total, 1.0) if direct else total
        for j in range(inputs.size):
            shares[j] = shares[j] / div if div > 0.0 else 0.0
        _shares(S, P, lane, base, inputs, shares, w, rw, sc, P[SEEK_TIME, lane, k])


@kernel(inner=True)
def _below(xs, x):
    """The last of increasing xs at or below x (the first when none is)."""
    lo, hi = 0, xs.size - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if xs[mid] <= x:
            lo = mid
        else:
            hi = mid - 1
    return lo


@kernel(inner=True)
def line_weights(xs, x, period, out):
    """Weights of points along a line (or a circle of the period) for a position, into out."""
    n = xs.size
    out[:n] = 0.0
    if n == 1:
        out[0] = 1.0
        return
    if period > 0.0:
        x = np.fmod(x - xs[0], period)
        if x < 0.0:
            x += period
        x += xs[0]
        a = _below(xs, x)
        b = (a + 1) % n
        xa, xb = xs[a], xs[b] + (period if b == 0 else 0.0)
    else:
        if x <= xs[0]:
            out[0] = 1.0
            return
        if x >= xs[n - 1]:
            out[n - 1] = 1.0
            return
        a = _below(xs, x)
        b = a + 1
        xa, xb = xs[a], xs[b]
    t = _unit((x - xa) / (xb - xa) if xb > xa else 0.0)
    out[a] += 1.0 - t
    out[b] += t


@kernel
def _blend_1d(S, P, k, base, inputs, xs, at, period):
    shares = np.empty(inputs.size)
    for lane in range(S.shape[0]):
        w, rw, sc = weigh(S, P, lane, k, base)
        if w > 0.0:
            line_weights(xs, S[lane, at], period, shares)
            _shares(S, P, lane, base, inputs, shares, w, rw, sc, P[SEEK_TIME, lane, k])


@kernel
def _banded(S, P, k, base, inputs, ys, starts, xs, which, at_x, at_y, period):
    """Weights in a banded space: along x within the bands below and above y (band j's
    points xs[starts[j]:starts[j + 1]], inputs `which` of the same places), then between them
    along y (clamped to the outermost bands)."""
    shares = np.empty(inputs.size)
    line = np.empty(inputs.size)
    last = ys.size - 1
    for lane in range(S.shape[0]):
        w, rw, sc = weigh(S, P, lane, k, base)
        if not w > 0.0:
            continue
        x, y = S[lane, at_x], S[lane, at_y]
        shares[:] = 0.0
        if y <= ys[0]:
            j, t, pairs = 0, 0.0, 1
        elif y >= ys[last]:
            j, t, pairs = last, 0.0, 1
        else:
            j = _below(ys, y)
            t = (y - ys[j]) / (ys[j + 1] - ys[j])
            pairs = 2
        for p in range(pairs):
            band = j + p
            share = 1.0 if pairs == 1 else 1.0 - t if p == 0 else t
            a, z = starts[band], starts[band + 1]
            line_weights(xs[a:z], x, period, line)
            for i in range(z - a):
                shares[which[a + i]] += share * line[i]
        _shares(S, P, lane, base, inputs, shares, w, rw, sc, P[SEEK_TIME, lane, k])


@kernel(inner=True)
def _edge(best, px, py, ox, oy, dx, dy, wi, wj):
    """The nearest point of a triangle's edge, kept in best (distance, a, b, c, l0, l1, l2)
    when nearer than what it holds (or it holds nothing)."""
    length = dx * dx + dy * dy
    t = _unit(((px - ox) * dx + (py - oy) * dy) / length) if length > 0 else 0.0
    qx, qy = ox + t * dx - px, oy + t * dy - py
    dist = qx * qx + qy * qy
    if best[0] != best[0] or dist < best[0]:
        best[0], best[1], best[2], best[3] = dist, wi, wj, wj
        best[4], best[5], best[6] = 1.0 - t, t, 0.0


@kernel(inner=True)
def triangle_weights(tris, x, y, best, out):
    """Barycentric weights (into out) of the triangle holding (x, y), else of the nearest point
    on the triangulation (the first triangle of the least distance). tris rows are (a, b, c,
    ax, ay, e0x, e0y, e1x, e1y, det)."""
    best[0] = np.nan
    for row in range(tris.shape[0]):
        a, b, c = tris[row, 0], tris[row, 1], tris[row, 2]
        ax, ay, e0x, e0y, e1x, e1y, det = (tris[row, 3], tris[row, 4], tris[row, 5], tris[row, 6],
                                           tris[row, 7], tris[row, 8], tris[row, 9])
        px, py = x - ax, y - ay
        l1 = (px * e1y - e1x * py) / det
        l2 = (e0x * py - px * e0y) / det
        l0 = 1.0 - l1 - l2
        if l0 >= 0.0 and l1 >= 0.0 and l2 >= 0.0:
            best[0], best[1], best[2], best[3], best[4], best[5], best[6] = 0.0, a, b, c, l0, l1, l2
            break
        _edge(best, px, py, 0.0, 0.0, e0x, e0y, a, b)
        _edge(best, px, py, 0.0, 0.0, e1x, e1y, a, c)
        _edge(best, px, py, e0x, e0y, e1x - e0x, e1y - e0y, b, c)
    out[:] = 0.0
    if best[0] != best[0]:          # no triangle
        return
    out[int(best[1])] += best[4]
    out[int(best[2])] += best[5]
    out[int(best[3])] += best[6]


@kernel
def _triangulated(S, P, k, base, inputs, tris, at_x, at_y):
    shares = np.empty(inputs.size)
    best = np.empty(7)
    for lane in range(S.shape[0]):
        w, rw, sc = weigh(S, P, lane, k, base)
        if w > 0.0:
            triangle_weights(tris, S[lane, at_x], S[lane, at_y], best, shares)
            _shares(S, P, lane, base, inputs, shares, w, rw, sc, P[SEEK_TIME, lane, k])


@kernel
def _mask(S, P, k, base, a, b, most, base_most, root):
    """The base by the most any bone keeps of it, the overlay by its largest bone weight;
    root motion by the root motion bone's weight."""
    for lane in range(S.shape[0]):
        w, rw, sc = weigh(S, P, lane, k, base)
        if w > 0.0:
            seek = P[SEEK_TIME, lane, k]
            push(P, lane, a, w, rw, base_most, 1.0 - root, sc, seek)
            push(P, lane, b, w, rw, most, root, sc, seek)


@kernel
def _additive(S, P, k, base, a, b, weight, at):
    """The layer at its weight (times its parameter in [0, 1], at its place at in S, if
    any), kept in S[base + 2]; no root motion from it."""
    for lane in range(S.shape[0]):
        w, rw, sc = weigh(S, P, lane, k, base)
        if w > 0.0:
            aw = weight * (_unit(S[lane, at]) if at >= 0 else 1.0)
            S[lane, base + 2] = aw
            seek = P[SEEK_TIME, lane, k]
            push(P, lane, a, w, rw, 1.0, 1.0, sc, seek)
            push(P, lane, b, w, rw, aw, 0.0, sc, seek)


@kernel
def _select(S, P, k, base, inputs, at, inert_at, inert_duration):
    """The input the parameter at S[at] selects (clamped to the inputs); a switch once the
    instance has updated asks the inertialize node above (its state at inert_at) to blend."""
    n = inputs.size
    for lane in range(S.shape[0]):
        w, rw, sc = weigh(S, P, lane, k, base)
        if not w > 0.0:
            continue
        v = S[lane, at]
        i = n - 1 if v >= n else int(v) if v > 0.0 else 0
        if i != S[lane, base + 2] and S[lane, 0] > 0:
            request_blend(S, lane, inert_at, inert_duration, 0.0)
        S[lane, base + 2] = float(i)
        push(P, lane, inputs[i], w, rw, 1.0, 1.0, sc, P[SEEK_TIME, lane, k])


@kernel
def _time_scale(S, P, k, base, a, scale, at):
    """Its input at the time scale times its parameter (at its place at in S, if any), within
    +-MAX_GRAPH_TIME_FACTOR."""
    for lane in range(S.shape[0]):
        w, rw, sc = weigh(S, P, lane, k, base)
        if w > 0.0:
            f = scale * (S[lane, at] if at >= 0 else 1.0)
            f = greater(-MAX_GRAPH_TIME_FACTOR, lesser(MAX_GRAPH_TIME_FACTOR, f))
            push(P, lane, a, w, rw, 1.0, 1.0, sc * f, P[SEEK_TIME, lane, k])


@kernel
def _seek(S, P, k, base, a, at, time):
    """Its trigger (at S[at]) consumed puts its input's playheads at its time."""
    for lane in range(S.shape[0]):
        w, rw, sc = weigh(S, P, lane, k, base)
        if not w > 0.0:
            continue
        seek = P[SEEK_TIME, lane, k]
        if S[lane, at] != 0.0:
            S[lane, at] = 0.0
            seek = time
        push(P, lane, a, w, rw, 1.0, 1.0, sc, seek)


@kernel
def _inertialize(S, P, step, k, base, a, at_trigger, duration):
    """An inertialization's timer, its trigger (consumed: a switch of its own), and the step
    its evaluation keeps."""
    at = base + 2
    for lane in range(S.shape[0]):
        w, rw, sc = weigh(S, P, lane, k, base)
        if not w > 0.0:
            continue
        if S[lane, at] and step > 0.0:       # within MAX_GRAPH_SECONDS, so a save restores
            S[lane, at + 2] = lesser(S[lane, at + 2] + step * abs(sc), MAX_GRAPH_SECONDS)
            if S[lane, at + 2] >= S[lane, at + 3]:
                S[lane, at] = 0.0
        if at_trigger >= 0 and S[lane, at_trigger] != 0.0:
            S[lane, at_trigger] = 0.0
            request_blend(S, lane, at, duration, 0.0)
        S[lane, at + 9] = lesser(step * abs(sc), LONGEST_STEP)
        push(P, lane, a, w, rw, 1.0, 1.0, sc, P[SEEK_TIME, lane, k])


@kernel(inner=True)
def _fade_in(fade_in, kind, start_w, time):
    progress = time / fade_in if fade_in > 0 else 1.0
    return start_w + (1.0 - start_w) * curve(kind, progress)


@kernel
def _one_shot(S, P, step, k, base, a, b, at_abort, at_trigger, at_fade, kind, fade_in, fade_out,
              length, resets, initial, most, base_most, root):
    """A one-shot's triggers (abort, then start, then fade out: each consumed), its time, its
    fades (in over fade_in from the weight it had, out over fade_out once asked or fade_out
    before the shot's end) and its weight; the shot's subtree restarts with it."""
    at = base + 2
    for lane in range(S.shape[0]):
        w, rw, sc = weigh(S, P, lane, k, base)
        if not w > 0.0:
            continue
        dt = step * sc if sc > 0 else 0.0
        playing, time, start_w, fading, fade_el, fade_w, shot_w = (
            S[lane, at], S[lane, at + 1], S[lane, at + 2], S[lane, at + 3], S[lane, at + 4],
            S[lane, at + 5], S[lane, at + 6])
        if at_abort >= 0 and S[lane, at_abort] != 0.0:
            S[lane, at_abort] = 0.0
            playing = fading = fade_el = fade_w = shot_w = time = 0.0
        if S[lane, at_trigger] != 0.0:
            S[lane, at_trigger] = 0.0
            start_w, playing, time, fading, fade_el = shot_w, 1.0, 0.0, 0.0, 0.0
            reset_subtree(S, lane, resets, initial)
        elif playing:
            time += dt
            if fading:
                fade_el += dt
        if playing and not fading:
            asked = at_fade >= 0 and S[lane, at_fade] != 0.0
            if asked:
                S[lane, at_fade] = 0.0
            if asked or time >= length - fade_out:
                fading, fade_el = 1.0, 0.0
                fade_w = _fade_in(fade_in, kind, start_w, time)
        if playing:
            if fading:
                progress = fade_el / fade_out if fade_out > 0 else 1.0
                shot_w = fade_w * (1.0 - curve(kind, progress))
                if progress >= 1.0:
                    playing = fading = fade_el = fade_w = 0.0
                    shot_w = 0.0
            else:
                shot_w = _fade_in(fade_in, kind, start_w, time)
        else:
            shot_w = 0.0
        S[lane, at], S[lane, at + 1], S[lane, at + 2], S[lane, at + 3] = playing, lesser(time, 1.0e6), start_w, fading
        S[lane, at + 4], S[lane, at + 5], S[lane, at + 6] = lesser(fade_el, 1.0e6), fade_w, shot_w
        seek = P[SEEK_TIME, lane, k]
        least = 1.0 - base_most
        push(P, lane, a, w, rw, 1.0 - shot_w * least, 1.0 - shot_w * root, sc, seek)
        push(P, lane, b, w, rw, shot_w * most, shot_w * root, sc, seek)


# ---- each deciding kind's step maker --------------------------------------------------------------
def _at(b, parameter) -> int:
    """A parameter's place in S, or -1 for none."""
    return -1 if parameter == GRAPH_NONE else b.parameter_base + 4 * parameter


def _inputs(node) -> np.ndarray:
    return np.array(node.inputs, dtype=np.int64)


def weigh_only(b, k, node):
    base = b.layout.nodes[k]
    return lambda S, P, step: _only(S, P, k, base)


def _make_blend(b, k, node):
    d = node.data
    base, inputs = b.layout.nodes[k], _inputs(node)
    weights = np.array(d.weights, dtype=np.float64)
    params = np.array([_at(b, p) for p in d.parameters], dtype=np.int64)
    return lambda S, P, step: _blend(S, P, k, base, inputs, weights, params, bool(d.direct))


def _make_blend_1d(b, k, node):
    d = node.data
    base, inputs = b.layout.nodes[k], _inputs(node)
    xs = np.array(d.xs, dtype=np.float64)
    at = _at(b, d.parameter)
    return lambda S, P, step: _blend_1d(S, P, k, base, inputs, xs, at, float(d.period))


def _make_banded(b, k, node):
    d = node.data
    base, inputs = b.layout.nodes[k], _inputs(node)
    bands = b.runs[k]
    ys = np.array([y for y, _, _ in bands], dtype=np.float64)
    starts = np.cumsum([0] + [len(xs) for _, xs, _ in bands]).astype(np.int64)
    xs = np.array([x for _, band, _ in bands for x in band], dtype=np.float64)
    which = np.array([i for _, _, band in bands for i in band], dtype=np.int64)
    at_x, at_y = _at(b, d.x_parameter), _at(b, d.y_parameter)
    period = 2.0 * math.pi if d.polar else 0.0
    return lambda S, P, step: _banded(S, P, k, base, inputs, ys, starts, xs, which, at_x, at_y, period)


def _make_triangulated(b, k, node):
    d = node.data
    base, inputs = b.layout.nodes[k], _inputs(node)
    tris = np.array(b.runs[k], dtype=np.float64).reshape(-1, 10)
    at_x, at_y = _at(b, d.x_parameter), _at(b, d.y_parameter)
    return lambda S, P, step: _triangulated(S, P, k, base, inputs, tris, at_x, at_y)


def _make_mask(b, k, node):
    _, most, base_most, root, _, _ = b.runs[k]
    base, (x, y) = b.layout.nodes[k], node.inputs
    return lambda S, P, step: _mask(S, P, k, base, x, y, most, base_most, root)


def _make_additive(b, k, node):
    d = node.data
    base, (x, y) = b.layout.nodes[k], node.inputs
    at = _at(b, d.parameter)
    return lambda S, P, step: _additive(S, P, k, base, x, y, float(d.weight), at)


def inertializer(b, k):
    """Where the inertialize node a switch of node k goes to keeps its state, and its own
    duration: (-1, 0) for none."""
    inert = b.inertializer[k]
    if inert is None:
        return -1, 0.0
    return b.layout.nodes[inert] + 2, float(b.graph.nodes[inert].data.duration)


def _make_select(b, k, node):
    base, inputs = b.layout.nodes[k], _inputs(node)
    at = _at(b, node.data.parameter)
    inert_at, inert_duration = inertializer(b, k)
    return lambda S, P, step: _select(S, P, k, base, inputs, at, inert_at, inert_duration)


def _make_time_scale(b, k, node):
    d = node.data
    base = b.layout.nodes[k]
    at = _at(b, d.parameter)
    return lambda S, P, step: _time_scale(S, P, k, base, node.inputs[0], float(d.scale), at)


def _make_pass_on(b, k, node):
    """A mirror or IK node: its input's weight, root motion and time as its own (its work is
    the evaluation's)."""
    base = b.layout.nodes[k]
    return lambda S, P, step: _time_scale(S, P, k, base, node.inputs[0], 1.0, -1)


@kernel
def _springs(S, P, k, base, a, step, reset, end):
    """Its input weighed as itself; the step's seconds counted due (within
    MAX_GRAPH_SECONDS) while it is weighed; its reset trigger (at S[reset]) consumed puts
    its springs at rest (physics' Reset: no motion, no last call, the remainder kept)."""
    for lane in range(S.shape[0]):
        w, rw, sc = weigh(S, P, lane, k, base)
        if reset >= 0 and S[lane, reset] != 0.0:
            S[lane, reset] = 0.0
            S[lane, base + 4:end] = 0.0
        if w > 0.0:
            S[lane, base + 2] = lesser(MAX_GRAPH_SECONDS, S[lane, base + 2] + step)
            push(P, lane, a, w, rw, 1.0, 1.0, sc, P[SEEK_TIME, lane, k])


def _make_springs(b, k, node):
    base = b.layout.nodes[k]
    reset = _at(b, node.data.reset)
    end = b.layout.nodes[k + 1] if k + 1 < len(b.layout.nodes) else b.layout.size
    # the step as binary32 (the C API's delta, as maniSpringState_Step takes it)
    return lambda S, P, step: _springs(S, P, k, base, node.inputs[0], float(np.float32(step)), reset,
                                       end)


def _make_seek(b, k, node):
    d = node.data
    base = b.layout.nodes[k]
    at = _at(b, d.trigger)
    return lambda S, P, step: _seek(S, P, k, base, node.inputs[0], at, float(d.time))


def _make_inertialize(b, k, node):
    d = node.data
    base = b.layout.nodes[k]
    at = _at(b, d.trigger)
    return lambda S, P, step: _inertialize(S, P, step, k, base, node.inputs[0], at, float(d.duration))


def _make_one_shot(b, k, node):
    d = node.data
    base, (x, y) = b.layout.nodes[k], node.inputs
    _, most, base_most, root, _, _ = b.runs[k]
    resets = np.array(b.reset_ranges[y], dtype=np.int64).reshape(-1, 2)
    args = (x, y, _at(b, d.abort), _at(b, d.trigger), _at(b, d.fade_out_trigger), int(d.curve),
            float(d.fade_in), float(d.fade_out), float(b.shot_length[k]), resets, b.initial, most,
            base_most, root)
    return lambda S, P, step: _one_shot(S, P, step, k, base, *args)



STEP_MAKERS = {NodeKind.blend: _make_blend, NodeKind.blend_1d: _make_blend_1d,
               NodeKind.blend_2d_banded: _make_banded, NodeKind.blend_2d_triangulated: _make_triangulated,
               NodeKind.mask: _make_mask, NodeKind.additive: _make_additive, NodeKind.select: _make_select,
               NodeKind.time_scale: _make_time_scale, NodeKind.seek: _make_seek,
               NodeKind.inertialize: _make_inertialize, NodeKind.one_shot: _make_one_shot,
               **{kind: _make_pass_on for kind in PASS_ON_KINDS}, NodeKind.springs: _make_springs}
"""The step makers of the kinds this module decides for (a machine's is update/machine.py's)."""
