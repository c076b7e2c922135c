"""maniGraphInstance_Update: an instance moved through one step of time.

Three passes over plain Python lists (the instance's scalars read once with tolist and
written back once, so the per-node work costs no numpy calls):

1. From the output down (reverse node order, so a node's readers have all run): each
   weighted node makes its decisions (a machine's transitions, a one-shot's triggers, a
   select's choice, a seek's trigger) and shares its weight, its root motion weight, its
   time scale and any seek among its inputs. A node of weight 0 keeps its state as it was.
2. The clip nodes: sync groups' leaders first (a flagged leader of weight above 0, else the
   heaviest), each playhead moved by delta x speed x the scales above (a follower placed at
   its leader's phase, one weighed for the first time placed without events or motion, a
   seek's playheads put at its time); then, in node order, the events
   of clip nodes past GRAPH_EVENT_THRESHOLD (or any weight, for a slot built with
   all_events), and each node's root motion, blended by the root motion weights (the rest
   of the weight below 1 moving nothing).
3. Each machine's event conditions latched from the events this update listed under their
   source states, for the next update's transitions.

A machine takes the highest priority transition whose conditions hold (ties in source
order) from its current state or any state; while a fade is under way only those its
interruption mode allows; a transition to the current state only when it is that state's
own. An event condition sees the events the update before listed under the source state.
A machine or select beneath an inertialize node switches at once and asks that node to
blend instead (over its own duration, or the transition's when its own is 0).

Triggers are consumed by the node that acts on them: a transition that fires, a one-shot
starting, fading out or aborting, a seek, an inertialize node. One a weighted node does not
act on stays set. Timers (state times, fades, cooldowns, one-shots, inertializations) move
by the step times the scales above when the step is positive and stand still otherwise;
playheads move both ways.
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from . import graph_motion as gm
from .errors import InvalidError
from .graph_limits import GRAPH_EVENT_THRESHOLD, GRAPH_NONE, MAX_GRAPH_TIME_FACTOR
from .graph_source import Curve, NodeKind

GraphEvent = namedtuple("GraphEvent", "node clip name time weight")
GraphEvent.__doc__ = """maniGraphEvent: a clip node's event an update listed: the node, its clip
slot, the event's name and time in the clip, and the node's share of the output."""


def curve(kind: int, t: float) -> float:
    if t <= 0.0:
        return 0.0
    if t >= 1.0:
        return 1.0
    if kind == Curve.smooth:
        return t * t * (3.0 - 2.0 * t)
    if kind == Curve.ease_in:
        return t * t
    if kind == Curve.ease_out:
        return 1.0 - (1.0 - t) * (1.0 - t)
    return t


class _Pass:
    """One update's working lists."""

    __slots__ = ("b", "S", "W", "RW", "SCW", "SC", "SEEK", "step", "pb", "count", "before", "last")

    def __init__(self, binding, S, step):
        n = len(binding.graph.nodes)
        self.b = binding
        self.S = S
        self.W = [0.0] * n
        self.RW = [0.0] * n
        self.SCW = [0.0] * n
        self.SC = [1.0] * n
        self.SEEK = [None] * n
        self.step = step
        self.pb = binding.parameter_base
        self.count = S[0]
        self.last = n - 1
        self.before = {r.node: S[r.base] for r in binding.sync_runs}   # followers' last weights

    def push(self, i, w, rw, share, rshare, sc, seek):
        if share > 0.0:
            ws = w * share
            self.W[i] += ws
            self.SCW[i] += ws * sc
            if seek is not None and self.SEEK[i] is None:
                self.SEEK[i] = seek
        if rshare > 0.0:
            self.RW[i] += rw * rshare

    def reset(self, node: int) -> None:
        """A node's subtree back to its state at init (an entry's restart)."""
        S, init = self.S, self.b.initial_list
        for a, b in self.b.reset_ranges[node]:
            S[a:b] = init[a:b]

    def request(self, node: int, duration: float) -> None:
        """A switch beneath an inertialize node: it blends from its last output over its own
        duration, or the switch's when its own is 0."""
        d = self.b.graph.nodes[node].data
        at = self.b.layout.nodes[node] + 2
        S = self.S
        length = d.duration if d.duration > 0 else duration
        if length <= 0:
            return
        S[at] = 0.0             # active once its offsets are captured
        S[at + 1] = 1.0         # pending
        S[at + 2] = 0.0         # time since the switch
        S[at + 3] = length
        S[at + 8] = 0.0         # captured


def update(inst, delta, capacity=None):
    """(events, event count, root move) of one step; see the module's description."""
    events, count, pending = _update(inst, delta, capacity)
    return events, count, _finish(pending, [gm.clip_move(r, old, new, wraps) for r, old, new, wraps, _ in pending[0]])


def update_many(insts: list, delta, capacity=None) -> list:
    """update() of instances of one binding, their root motion worked out together (each
    move bit for bit what update() gives it)."""
    results = [_update(inst, delta, capacity) for inst in insts]
    rows, weights, owner, simple, place = [], [], [], [], []
    for k, (_, _, (items, total)) in enumerate(results):
        for r, old, new, wraps, rw in items:
            if not wraps and r.moves is not None:
                place.append(len(rows))
                simple.append((r, old, new))
                rows.append(None)
            else:
                rows.append(gm.clip_move(r, old, new, wraps))
            weights.append(rw)
            owner.append(k)
        if total < 1.0:
            rows.append(gm.IDENTITY)
            weights.append(1.0 - total)
            owner.append(k)
    moves = np.empty((len(rows), 7))
    for at, row in enumerate(rows):
        if row is not None:
            moves[at] = row
    if simple:
        moves[place] = gm.relative_many(insts[0].binding, simple)
    blended = gm.blend_many(moves, np.array(weights), np.array(owner, dtype=np.intp), len(insts))
    blended = blended.astype(np.float32)
    return [(events, count, blended[k]) for k, (events, count, _) in enumerate(results)]


def _finish(pending, clip_moves: list) -> np.ndarray:
    """The root move: the clip nodes' moves blended by their root motion weights, the rest of
    the weight below 1 moving nothing."""
    items, total = pending
    weights = [rw for _, _, _, _, rw in items]
    if total < 1.0:
        clip_moves = clip_moves + [gm.IDENTITY]
        weights.append(1.0 - total)
    return np.array(gm.blend(clip_moves, weights), dtype=np.float32)


def _update(inst, delta, capacity):
    try:
        delta = float(delta)
    except (TypeError, ValueError):
        raise InvalidError("the step is not a number") from None
    if not math.isfinite(delta):
        raise InvalidError("the step is not finite")
    if capacity is not None and (not isinstance(capacity, int) or capacity < 0):
        raise InvalidError("capacity is not a count")
    b = inst.binding
    S = inst.S.tolist()
    p = _Pass(b, S, delta if delta > 0.0 else 0.0)
    nodes = b.graph.nodes
    bases = b.layout.nodes
    last = len(nodes) - 1
    p.W[last] = p.RW[last] = p.SCW[last] = 1.0
    W, RW, SCW, SC, SEEK = p.W, p.RW, p.SCW, p.SC, p.SEEK
    for k, node, handler in b.deciders:          # from the output down; clip nodes decide nothing
        base = bases[k]
        w = W[k]
        if w <= 0.0:
            S[base] = S[base + 1] = 0.0
            continue
        sc = SCW[k] / w
        SC[k] = sc
        # a node several readers share may be given more than the whole; it is the whole
        if w > 1.0:
            w = W[k] = 1.0
        rw = RW[k] if RW[k] < 1.0 else 1.0
        S[base] = w
        S[base + 1] = rw
        if handler is not None:
            handler(p, k, node, base, w, rw, sc, SEEK[k])
    events, pending = _clips(p, delta)
    _latch(p, events)
    S[0] += 1.0
    S[1] = delta
    inst.S[:] = S
    count = len(events)
    listed = events if capacity is None else events[:capacity]
    return listed, count, pending


# ---- pass 1: decisions and shares ------------------------------------------------------------------
def _param(p: _Pass, index: int) -> float:
    return p.S[p.pb + 4 * index]


def _unit(v: float) -> float:
    return 0.0 if v < 0.0 else 1.0 if v > 1.0 else v


def _shares(p, k, node, base, w, rw, sc, seek, shares):
    S = p.S
    for j, (i, s) in enumerate(zip(node.inputs, shares)):
        S[base + 2 + j] = s
        p.push(i, w, rw, s, s, sc, seek)


def _blend(p, k, node, base, w, rw, sc, seek):
    d = node.data
    ws = []
    for weight, par in zip(d.weights, d.parameters):
        ws.append(weight * (_unit(_param(p, par)) if par != GRAPH_NONE else 1.0))
    total = sum(ws)
    div = max(total, 1.0) if d.direct else total
    shares = [v / div for v in ws] if div > 0.0 else [0.0] * len(ws)
    _shares(p, k, node, base, w, rw, sc, seek, shares)


def _blend_1d(p, k, node, base, w, rw, sc, seek):
    d = node.data
    _shares(p, k, node, base, w, rw, sc, seek, line_weights(d.xs, _param(p, d.parameter), d.period))


def line_weights(xs: list, x: float, period: float) -> list:
    """Weights of points along a line (or a circle of the period) for a position."""
    n = len(xs)
    out = [0.0] * n
    if n == 1:
        out[0] = 1.0
        return out
    if period > 0.0:
        x = math.fmod(x - xs[0], period)
        if x < 0.0:
            x += period
        x += xs[0]
        j = _below(xs, x)
        a, b = j, (j + 1) % n
        xa, xb = xs[a], xs[b] + (period if b == 0 else 0.0)
    else:
        if x <= xs[0]:
            out[0] = 1.0
            return out
        if x >= xs[-1]:
            out[-1] = 1.0
            return out
        a = _below(xs, x)
        b = a + 1
        xa, xb = xs[a], xs[b]
    t = (x - xa) / (xb - xa) if xb > xa else 0.0
    t = _unit(t)
    out[a] += 1.0 - t
    out[b] += t
    return out


def _below(xs, x):
    lo, hi = 0, len(xs) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if xs[mid] <= x:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _banded(p, k, node, base, w, rw, sc, seek):
    d = node.data
    bands = p.b.runs[k]
    _shares(p, k, node, base, w, rw, sc, seek,
            banded_weights(bands, len(node.inputs), _param(p, d.x_parameter),
                           _param(p, d.y_parameter), d.polar))


def banded_weights(bands, count, x, y, polar) -> list:
    """Weights in a banded space: along x within the bands below and above y, then between
    them along y (clamped to the outermost bands)."""
    out = [0.0] * count
    ys = [band[0] for band in bands]
    if y <= ys[0]:
        pairs = [(0, 1.0)]
    elif y >= ys[-1]:
        pairs = [(len(bands) - 1, 1.0)]
    else:
        j = _below(ys, y)
        t = (y - ys[j]) / (ys[j + 1] - ys[j])
        pairs = [(j, 1.0 - t), (j + 1, t)]
    for j, share in pairs:
        _, xs, which = bands[j]
        for i, v in zip(which, line_weights(xs, x, 2.0 * math.pi if polar else 0.0)):
            out[i] += share * v
    return out


def _triangulated(p, k, node, base, w, rw, sc, seek):
    d = node.data
    _shares(p, k, node, base, w, rw, sc, seek,
            triangle_weights(p.b.runs[k], len(node.inputs), _param(p, d.x_parameter),
                             _param(p, d.y_parameter)))


def triangle_weights(tris, count, x, y) -> list:
    """Barycentric weights of the triangle holding (x, y), else of the nearest point on the
    triangulation (the first triangle of the least distance)."""
    best = None
    for (a, b, c, ax, ay, e0x, e0y, e1x, e1y, det) in tris:
        px, py = x - ax, y - ay
        l1 = (px * e1y - e1x * py) / det
        l2 = (e0x * py - px * e0y) / det
        l0 = 1.0 - l1 - l2
        if l0 >= 0.0 and l1 >= 0.0 and l2 >= 0.0:
            best = (0.0, a, b, c, l0, l1, l2)
            break
        # the nearest point of the triangle: the nearest of its three edges'
        for (i, j, ox, oy, dx, dy, wi, wj) in ((0, 1, 0.0, 0.0, e0x, e0y, a, b),
                                                (0, 2, 0.0, 0.0, e1x, e1y, a, c),
                                                (1, 2, e0x, e0y, e1x - e0x, e1y - e0y, b, c)):
            length = dx * dx + dy * dy
            t = _unit(((px - ox) * dx + (py - oy) * dy) / length) if length > 0 else 0.0
            qx, qy = ox + t * dx - px, oy + t * dy - py
            dist = qx * qx + qy * qy
            if best is None or dist < best[0]:
                best = (dist, wi, wj, wj, 1.0 - t, t, 0.0)
    out = [0.0] * count
    _, a, b, c, l0, l1, l2 = best
    out[a] += l0
    out[b] += l1
    out[c] += l2
    return out


def _mask(p, k, node, base, w, rw, sc, seek):
    _, most, base_most, root, _, _ = p.b.runs[k]
    p.push(node.inputs[0], w, rw, base_most, 1.0 - root, sc, seek)
    p.push(node.inputs[1], w, rw, most, root, sc, seek)


def _additive(p, k, node, base, w, rw, sc, seek):
    d = node.data
    aw = d.weight * (_unit(_param(p, d.parameter)) if d.parameter != GRAPH_NONE else 1.0)
    p.S[base + 2] = aw
    p.push(node.inputs[0], w, rw, 1.0, 1.0, sc, seek)
    p.push(node.inputs[1], w, rw, aw, 0.0, sc, seek)


def _select(p, k, node, base, w, rw, sc, seek):
    S = p.S
    v = _param(p, node.data.parameter)
    i = int(v)
    i = 0 if i < 0 else len(node.inputs) - 1 if i >= len(node.inputs) else i
    if i != S[base + 2] and p.count > 0:
        inert = p.b.inertializer[k]
        if inert is not None:
            p.request(inert, 0.0)
    S[base + 2] = float(i)
    p.push(node.inputs[i], w, rw, 1.0, 1.0, sc, seek)


def _time_scale(p, k, node, base, w, rw, sc, seek):
    d = node.data
    f = d.scale * (_param(p, d.parameter) if d.parameter != GRAPH_NONE else 1.0)
    f = max(-MAX_GRAPH_TIME_FACTOR, min(MAX_GRAPH_TIME_FACTOR, f))
    p.push(node.inputs[0], w, rw, 1.0, 1.0, sc * f, seek)


def _seek(p, k, node, base, w, rw, sc, seek):
    d = node.data
    at = p.pb + 4 * d.trigger
    if p.S[at] != 0.0:
        p.S[at] = 0.0
        seek = d.time
    p.push(node.inputs[0], w, rw, 1.0, 1.0, sc, seek)


def _inertialize(p, k, node, base, w, rw, sc, seek):
    d = node.data
    S = p.S
    at = base + 2
    if S[at] and p.step > 0.0:
        S[at + 2] += p.step * sc
        if S[at + 2] >= S[at + 3]:
            S[at] = 0.0
    if d.trigger != GRAPH_NONE and S[p.pb + 4 * d.trigger] != 0.0:
        S[p.pb + 4 * d.trigger] = 0.0
        p.request(k, 0.0)
    S[at + 9] = min(p.step * abs(sc), 1.0e6 * MAX_GRAPH_TIME_FACTOR)
    p.push(node.inputs[0], w, rw, 1.0, 1.0, sc, seek)


def _one_shot(p, k, node, base, w, rw, sc, seek):
    d = node.data
    S = p.S
    at = base + 2
    dt = p.step * sc if sc > 0 else 0.0
    playing, time, start_w, fading, fade_el, fade_w, shot_w = S[at:at + 7]
    if d.abort != GRAPH_NONE and S[p.pb + 4 * d.abort] != 0.0:
        S[p.pb + 4 * d.abort] = 0.0
        playing = fading = fade_el = fade_w = shot_w = time = 0.0
    if S[p.pb + 4 * d.trigger] != 0.0:
        S[p.pb + 4 * d.trigger] = 0.0
        start_w, playing, time, fading, fade_el = shot_w, 1.0, 0.0, 0.0, 0.0
        p.reset(node.inputs[1])
    elif playing:
        time += dt
        if fading:
            fade_el += dt
    if playing and not fading:
        length = p.b.shot_length[k]
        asked = d.fade_out_trigger != GRAPH_NONE and S[p.pb + 4 * d.fade_out_trigger] != 0.0
        if asked:
            S[p.pb + 4 * d.fade_out_trigger] = 0.0
        if asked or time >= length - d.fade_out:
            fading, fade_el = 1.0, 0.0
            fade_w = _fade_in(d, start_w, time)
    if playing:
        if fading:
            progress = fade_el / d.fade_out if d.fade_out > 0 else 1.0
            shot_w = fade_w * (1.0 - curve(d.curve, progress))
            if progress >= 1.0:
                playing = fading = fade_el = fade_w = 0.0
                shot_w = 0.0
        else:
            shot_w = _fade_in(d, start_w, time)
    else:
        shot_w = 0.0
    S[at:at + 7] = [playing, min(time, 1.0e6), start_w, fading, min(fade_el, 1.0e6), fade_w, shot_w]
    _, most, base_most, root, _, _ = p.b.runs[k]
    least = 1.0 - base_most
    p.push(node.inputs[0], w, rw, 1.0 - shot_w * least, 1.0 - shot_w * root, sc, seek)
    p.push(node.inputs[1], w, rw, shot_w * most, shot_w * root, sc, seek)


def _fade_in(d, start_w: float, time: float) -> float:
    progress = time / d.fade_in if d.fade_in > 0 else 1.0
    return start_w + (1.0 - start_w) * curve(d.curve, progress)


def _machine(p, k, node, base, w, rw, sc, seek):
    m = p.b.runs[k]
    at = m.at
    S = p.S
    dt = p.step * sc if sc > 0 else 0.0
    L = int(S[at["length"]])
    st, tr, el = at["states"], at["transitions"], at["elapsed"]
    S[at["time"]] = min(S[at["time"]] + dt, 1.0e6)
    for i in range(L):
        S[el + i] = min(S[el + i] + dt, 1.0e6)
    cd = at["cooldowns"]
    for t in range(len(m.transitions)):
        if S[cd + t] > 0.0:
            S[cd + t] = max(0.0, S[cd + t] - dt)
    progress = [_progress(m, S, tr + i, el + i) for i in range(L)]
    # fades done hide everything before them
    done = max((i for i in range(L) if progress[i] >= 1.0), default=-1)
    if done >= 0:
        keep = L - done - 1
        S[st:st + keep + 1] = S[st + done + 1:st + L + 1]
        S[tr:tr + keep] = S[tr + done + 1:tr + L]
        S[el:el + keep] = S[el + done + 1:el + L]
        progress = progress[done + 1:]
        L = keep
    fired = _decide(p, m, S, L)
    if fired is not None:
        L, progress = _fire(p, m, S, L, progress, fired)
    S[at["length"]] = float(L)
    current = int(S[st + L])
    S[at["finished"]] = 1.0 if (L == 0 and current in m.finals) else 0.0
    # each state's share: the newest fade's curve, the rest of the chain beneath it
    shares = [0.0] * len(m.states)
    carry = 1.0
    for i in range(L - 1, -1, -1):
        c = curve(m.transitions[int(S[tr + i])].fade, progress[i])
        shares[int(S[st + i + 1])] += carry * c
        carry *= 1.0 - c
    shares[int(S[st])] += carry
    sh = at["shares"]
    for s, v in enumerate(shares):
        S[sh + s] = v
        if v > 0.0:
            p.push(m.states[s], w, rw, v, v, sc, seek)


def _progress(m, S, tr: int, el: int) -> float:
    t = m.transitions[int(S[tr])]
    return S[el] / t.duration if t.duration > 0 else 1.0


def _decide(p, m, S, L):
    """The transition to fire now, if any: the highest priority among those allowed whose
    conditions hold, ties in source order."""
    at = m.at
    st = at["states"]
    current = int(S[st + L])
    if L == 0:
        if current in m.finals:
            return None
        sets = [m.by_source[current] + m.any]
    else:
        mode = m.transitions[int(S[at["transitions"] + L - 1])].interruption
        source = int(S[st + L - 1])
        here = m.by_source[current] + m.any
        there = m.by_source[source]
        sets = {0: [], 1: [there], 2: [here], 3: [there, here], 4: [here, there]}[mode]
    cd = at["cooldowns"]
    for candidates in sets:
        best = None
        for t in candidates:
            if S[cd + t.index] > 0.0:
                continue
            if t.target == current and t.source != current:
                continue                    # only a transition of a state to itself restarts it
            if _holds(p, m, S, t, current) and (best is None or (t.priority, -t.index) > (best.priority, -best.index)):
                best = t
        if best is not None:
            return best
    return None


def _holds(p, m, S, t, current) -> bool:
    for kind, at, op, value in t.conditions:
        if kind == 0:
            v = S[at]
            ok = (v == value, v != value, v < value, v <= value, v > value, v >= value)[op]
        elif kind == 1 or kind == 2:
            ok = S[at] != 0.0
        elif kind == 3:
            ok = S[at] >= value
        else:
            ok = _finished(m, S, t.source if t.source != GRAPH_NONE else current)
        if not ok:
            return False
    return True


def _finished(m, S, state: int) -> bool:
    f = m.finish[state]
    if f is None:
        return False
    if f[0] == "machine":
        return S[f[1]] != 0.0
    _, at, duration, forward = f
    return S[at] >= duration if forward else S[at] <= 0.0


def _fire(p, m, S, L, progress, t):
    at = m.at
    st, tr, el = at["states"], at["transitions"], at["elapsed"]
    for trig in t.triggers:
        S[trig] = 0.0
    S[at["cooldowns"] + t.index] = t.cooldown
    S[at["time"]] = 0.0
    if t.restart:
        p.reset(m.states[t.target])
    if m.inertializer is not None or t.duration <= 0.0:
        if m.inertializer is not None:
            p.request(m.inertializer, t.duration)
        S[st] = float(t.target)
        return 0, []
    if L >= m.limit:                # the oldest fade gives way
        S[st:st + L] = S[st + 1:st + L + 1]
        S[tr:tr + L - 1] = S[tr + 1:tr + L]
        S[el:el + L - 1] = S[el + 1:el + L]
        progress = progress[1:]
        L -= 1
    S[st + L + 1] = float(t.target)
    S[tr + L] = float(t.index)
    S[el + L] = 0.0
    return L + 1, progress + [0.0]


HANDLERS = {NodeKind.blend: _blend, NodeKind.blend_1d: _blend_1d,
             NodeKind.blend_2d_banded: _banded, NodeKind.blend_2d_triangulated: _triangulated,
             NodeKind.mask: _mask, NodeKind.additive: _additive, NodeKind.select: _select,
             NodeKind.time_scale: _time_scale, NodeKind.seek: _seek,
             NodeKind.inertialize: _inertialize, NodeKind.one_shot: _one_shot,
             NodeKind.state_machine: _machine}


# ---- pass 2: playheads, events, root motion ------------------------------------------------------------
def _clips(p: _Pass, delta: float):
    b, S, W, RW, SC, SEEK = p.b, p.S, p.W, p.RW, p.SC, p.SEEK
    for r in b.clip_runs:          # the clip nodes' weights and scales, as pass 1 keeps others'
        k = r.node
        w = W[k]
        if w <= 0.0:
            S[r.base] = S[r.base + 1] = 0.0
            continue
        SC[k] = p.SCW[k] / w
        if w > 1.0:
            W[k] = 1.0
        S[r.base] = W[k]
        S[r.base + 1] = RW[k] = RW[k] if RW[k] < 1.0 else 1.0
    moved = {}                      # node -> (old, new, wraps) or None for a seek
    for runs in b.sync_groups.values():
        live = [r for r in runs if W[r.node] > 0.0]
        if not live:
            continue
        leader = next((r for r in live if r.leader), None) or max(live, key=lambda r: W[r.node])
        lead = _move(leader, S, SC, SEEK, delta)
        moved[leader.node] = lead
        t = S[leader.base + 2]
        forward = delta * leader.speed * SC[leader.node] >= 0.0
        for r in live:
            if r is leader:
                continue
            old = S[r.base + 2]
            new = gm.follow(leader, r, t)
            S[r.base + 2] = new
            if lead is None or SEEK[r.node] is not None:
                moved[r.node] = None
            elif not p.before[r.node] > 0.0:        # joining: placed, not played
                moved[r.node] = (new, new, 0)
            elif forward:
                moved[r.node] = (old, new, 1 if new < old and r.repeat else 0)
            else:
                moved[r.node] = (old, new, -1 if new > old and r.repeat else 0)
    events = []
    pending = []                    # (run, old, new, wraps, root motion weight)
    total = 0.0
    for r in b.clip_runs:
        k = r.node
        w = W[k]
        if w <= 0.0:
            continue
        step = moved[k] if k in moved else _move(r, S, SC, SEEK, delta)
        if step is None:
            continue
        old, new, wraps = step
        if w > GRAPH_EVENT_THRESHOLD or r.all_events:
            for e in gm.events_passed(r, old, new, wraps):
                events.append(GraphEvent(k, r.slot, r.event_names[e], r.event_times[e], w))
        rw = RW[k]
        if rw > 0.0:
            pending.append((r, old, new, wraps, rw))
            total += rw
    return events, (pending, total)


def _move(r, S, SC, SEEK, delta):
    """Moves one clip node's playhead: (old, new, wraps), or None for a seek."""
    at = r.base + 2
    old = S[at]
    seek = SEEK[r.node]
    if seek is not None:
        S[at] = gm.place(r, seek)
        return None
    new, wraps = gm.advance(r, old, delta * r.speed * SC[r.node])
    S[at] = new
    return old, new, wraps


# ---- pass 3: event latches -----------------------------------------------------------------------------
def _latch(p: _Pass, events: list) -> None:
    if not events:
        names_by_node = {}
    else:
        names_by_node = {}
        for e in events:
            names_by_node.setdefault(e.node, set()).add(e.name)
    S, W = p.S, p.W
    for m in p.b.machines:
        if W[m.node] <= 0.0 or not m.latch_events:
            continue
        current = int(S[m.at["states"] + int(S[m.at["length"]])])
        for at, name, source in m.latch_events:
            state = current if source == GRAPH_NONE else source
            S[at] = 1.0 if any(name in names_by_node.get(c, ()) for c in m.state_clips[state]) else 0.0
