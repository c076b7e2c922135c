"""maniGraphInstance_Update: instances moved through one step of time.

Instances are lanes, as in the evaluation: the lanes' scalars are one (lanes, scalars)
binary64 array S (an instance's own, written in place, when it is alone), and each pass is
a compiled kernel (runtime.core.jit) looping over the lanes, so a hundred instances cost the
calls of one. Beside S the update keeps, per lane and node, what is shared down to it: P,
(5, lanes, nodes), its weight, root motion weight, weight times time scale, time scale and
seek (NaN: none).

1. From the output down (reverse node order, so a node's readers have all run): each
   weighted node makes its decisions (a machine's transitions, a one-shot's triggers, a
   select's choice, a seek's trigger) and shares its weight, its root motion weight, its
   time scale and any seek among its inputs, one kernel per node. A node of weight 0 keeps
   its state as it was.
2. The clip nodes, one kernel: sync groups' leaders first (a flagged leader of weight above
   0, else the heaviest), each playhead moved by delta x speed x the scales above (a
   follower placed at its leader's phase, one weighed for the first time placed without
   events or motion, a seek's playheads put at its time); then, in node order, the events
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

What each kernel reads of the graph (its inputs, parameters' places in S, machines'
transitions, clips' events, markers and moves) is worked out once per binding, as Tables.
"""
from __future__ import annotations

import math
import threading
import weakref
from collections import namedtuple

import numpy as np

from .. import motion as gm
from ...core.errors import InvalidError
from ..evaluate.kernels import curve
from ..limits import GRAPH_EVENT_THRESHOLD, GRAPH_NONE, MAX_GRAPH_TIME_FACTOR
from ..source import NodeKind
from ...core.jit import kernel

GraphEvent = namedtuple("GraphEvent", "node clip name time weight")
GraphEvent.__doc__ = """maniGraphEvent: a clip node's event an update listed: the node, its clip
slot, the event's name and time in the clip, and the node's share of the output."""

W, RW, SCW, SC, SEEK = range(5)             # P's rows
_TABLES = weakref.WeakKeyDictionary()       # binding -> Tables
_LONGEST = 1.0e6 * MAX_GRAPH_TIME_FACTOR    # the longest step an inertialize node keeps


def update(inst, delta, capacity=None):
    """(events, event count, root move) of one step; see the module's description."""
    delta = _checked(delta, capacity)
    return _run([inst], inst.S[None], delta, capacity)[0]


def update_many(insts: list, delta, capacity=None) -> list:
    """update() of instances of one binding, as lanes: each result bit for bit what update()
    gives it."""
    delta = _checked(delta, capacity)
    S = np.stack([inst.S for inst in insts], out=_scratch(tables(insts[0].binding), len(insts))[0])
    results = _run(insts, S, delta, capacity)
    for inst, row in zip(insts, S):
        inst.S[:] = row
    return results


def _checked(delta, capacity) -> float:
    try:
        delta = float(delta)
    except (TypeError, ValueError):
        raise InvalidError("the step is not a number") from None
    if not math.isfinite(delta):
        raise InvalidError("the step is not finite")
    if capacity is not None and (not isinstance(capacity, int) or capacity < 0):
        raise InvalidError("capacity is not a count")
    return delta


def _scratch(t: "Tables", m: int) -> tuple:
    """This thread's working arrays for m lanes of a binding's update: S for a batch, P, the
    events found and their counts."""
    mine = t.local.__dict__.setdefault("scratch", {})
    got = mine.get(m)
    if got is None:
        if len(mine) > 8:
            mine.clear()
        got = mine[m] = (np.empty((m, t.size)), np.empty((5, m, t.count)),
                         np.empty((m, t.event_room, 2), dtype=np.int64), np.empty(m, dtype=np.int64))
    return got


def _run(insts, S, delta, capacity) -> list:
    b = insts[0].binding
    t = tables(b)
    m = S.shape[0]
    _, P, found, counts = _scratch(t, m)
    _start(P)
    step = delta if delta > 0.0 else 0.0
    for decide in t.deciders:
        decide(S, P, step)
    moves = np.empty((m, 7), dtype=np.float32)
    _clips(S, P, delta, t.run_i, t.run_f, t.groups, t.group_start, t.event_times,
           t.marker_times, t.marker_names, t.moves, found, counts, moves)
    for latch in t.latches:
        latch(S, P, found, counts)
    out = []
    for lane in range(m):
        count = int(counts[lane])
        events = _events(b, S[lane], found[lane, :count]) if count else []
        out.append((events if capacity is None else events[:capacity], count, moves[lane]))
    return out


def _events(b, S, found) -> list:
    runs = b.clip_runs
    out = []
    for r, e in found.tolist():
        run = runs[r]
        out.append(GraphEvent(run.node, run.slot, run.event_names[e], run.event_times[e], float(S[run.base])))
    return out


@kernel
def _start(P):
    """P before pass 1: nothing shared yet, time scales 1, no seeks; the output (the last
    node) has the whole."""
    P[W:SC] = 0.0
    P[SC] = 1.0
    P[SEEK] = np.nan
    P[W:SC, :, P.shape[2] - 1] = 1.0


# ---- the binding's tables --------------------------------------------------------------------------------
def tables(b) -> "Tables":
    got = _TABLES.get(b)
    if got is None:
        got = _TABLES[b] = Tables(b)
    return got


_RUN_I = ("node", "base", "repeat", "leader", "all_events", "events", "events_end", "markers",
          "markers_end", "moves", "last")
NODE, BASE, REPEAT, LEADER, ALL_EVENTS, EV, EV_END, MK, MK_END, MV, LAST = range(len(_RUN_I))
DURATION, SPEED, RATE = range(3)


class Tables:
    """What an update of a binding's graph reads, worked out once: each deciding node's step
    (a function of S, P and the step), from the output down; the clip nodes' numbers as
    flat arrays (run_i by the columns above, run_f duration, speed and sample rate; their
    events' times, markers' times and names, moves, each run's at its offsets); the sync
    groups' runs; each machine's latch step."""

    def __init__(self, b):
        self.count = len(b.graph.nodes)
        self.size = b.layout.size
        self.local = threading.local()      # each thread's working arrays
        self.deciders = [(make or _weigh_only)(b, k, node) for k, node, make in b.deciders]
        runs = b.clip_runs
        names = {}                      # marker and event names as numbers
        ids = lambda values: [names.setdefault(v, len(names)) for v in values]    # noqa: E731
        self.run_i = np.zeros((len(runs), len(_RUN_I)), dtype=np.int64)
        self.run_f = np.zeros((len(runs), 3))
        times, markers, marker_names, event_names, moves = [], [], [], [], []
        for x, r in enumerate(runs):
            clip = r.clip
            row = self.run_i[x]
            row[[NODE, BASE, REPEAT, LEADER, ALL_EVENTS]] = r.node, r.base, r.repeat, r.leader, r.all_events
            row[EV], row[EV_END] = len(times), len(times) + len(r.event_times)
            times += r.event_times
            event_names += ids(r.event_names)
            row[MK], row[MK_END] = len(markers), len(markers) + len(r.marker_times)
            markers += r.marker_times
            marker_names += ids(r.marker_names)
            row[MV] = -1 if r.moves is None else len(moves)
            moves += r.moves or []
            row[LAST] = clip.sample_count - 1
            self.run_f[x] = r.duration, r.speed, float(clip.sample_rate)
        self.event_times = np.array(times, dtype=np.float64)
        self.event_names = np.array(event_names, dtype=np.int64)
        self.marker_times = np.array(markers, dtype=np.float64)
        self.marker_names = np.array(marker_names, dtype=np.int64)
        self.moves = np.array(moves, dtype=np.float64).reshape(-1, 7)
        # a run lists each event at most three times an update (a step of many periods)
        self.event_room = max(1, 3 * len(times))
        index = {r.node: x for x, r in enumerate(runs)}
        groups = [[index[r.node] for r in group] for group in b.sync_groups.values()]
        self.groups = np.array([x for g in groups for x in g], dtype=np.int64)
        self.group_start = np.cumsum([0] + [len(g) for g in groups]).astype(np.int64)
        self.latches = [_latch_step(self, b, m, index, names) for m in b.machines if m.latch_events]


# ---- pass 1: decisions and shares ------------------------------------------------------------------
@kernel
def _weigh(S, P, lane, k, base):
    """A node's share of the output for a lane, kept in S: (weight, root motion weight, time
    scale); a weight of 0 when nothing weighs it. A node several readers share may be given
    more than the whole; it is the whole."""
    w = P[W, lane, k]
    if w <= 0.0:
        S[lane, base] = S[lane, base + 1] = 0.0
        return 0.0, 0.0, 1.0
    sc = P[SCW, lane, k] / w
    P[SC, lane, k] = sc
    if w > 1.0:
        w = P[W, lane, k] = 1.0
    rw = P[RW, lane, k] if P[RW, lane, k] < 1.0 else 1.0
    S[lane, base] = w
    S[lane, base + 1] = rw
    return w, rw, sc


@kernel
def _push(P, lane, i, w, rw, share, rshare, sc, seek):
    """Input i's part of a node's weight (w, rw) at the node's shares, with its time scale
    and seek (the first seek reaching an input holds)."""
    if share > 0.0:
        ws = w * share
        P[W, lane, i] += ws
        P[SCW, lane, i] += ws * sc
        if seek == seek and P[SEEK, lane, i] != P[SEEK, lane, i]:
            P[SEEK, lane, i] = seek
    if rshare > 0.0:
        P[RW, lane, i] += rw * rshare


@kernel
def _shares(S, P, lane, base, inputs, shares, w, rw, sc, seek):
    """A blend's or space's shares kept (S[base + 2 + j]) and given to its inputs."""
    for j in range(inputs.size):
        S[lane, base + 2 + j] = shares[j]
        _push(P, lane, inputs[j], w, rw, shares[j], shares[j], sc, seek)


@kernel
def _unit(v):
    return 0.0 if v < 0.0 else 1.0 if v > 1.0 else v


@kernel
def _min(a, b):
    """Python's min(a, b)."""
    return b if b < a else a


@kernel
def _max(a, b):
    """Python's max(a, b)."""
    return b if b > a else a


@kernel
def _request(S, lane, at, own, duration):
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


@kernel
def _reset(S, lane, ranges, initial):
    """A subtree back to its state at init (S's ranges of it): an entry's restart."""
    for x in range(ranges.shape[0]):
        for i in range(ranges[x, 0], ranges[x, 1]):
            S[lane, i] = initial[i]


@kernel
def _only(S, P, k, base):
    """A node that decides nothing and shares nothing (a pose parameter)."""
    for lane in range(S.shape[0]):
        _weigh(S, P, lane, k, base)


@kernel
def _blend(S, P, k, base, inputs, weights, params, direct):
    """Shares by weights (each times its parameter in [0, 1] where it has one; params[j] is
    its place in S, or -1), normalized; a direct blend's left below 1 when they sum below."""
    shares = np.empty(inputs.size)
    for lane in range(S.shape[0]):
        w, rw, sc = _weigh(S, P, lane, k, base)
        if not w > 0.0:
            continue
        total = 0.0
        for j in range(inputs.size):
            shares[j] = weights[j] * (_unit(S[lane, params[j]]) if params[j] >= 0 else 1.0)
            total += shares[j]
        div = _max(total, 1.0) if direct else total
        for j in range(inputs.size):
            shares[j] = shares[j] / div if div > 0.0 else 0.0
        _shares(S, P, lane, base, inputs, shares, w, rw, sc, P[SEEK, lane, k])


@kernel
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


@kernel
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
        w, rw, sc = _weigh(S, P, lane, k, base)
        if w > 0.0:
            line_weights(xs, S[lane, at], period, shares)
            _shares(S, P, lane, base, inputs, shares, w, rw, sc, P[SEEK, lane, k])


@kernel
def _banded(S, P, k, base, inputs, ys, starts, xs, which, at_x, at_y, period):
    """Weights in a banded space: along x within the bands below and above y (band j's
    points xs[starts[j]:starts[j + 1]], inputs `which` of the same places), then between them
    along y (clamped to the outermost bands)."""
    shares = np.empty(inputs.size)
    line = np.empty(inputs.size)
    last = ys.size - 1
    for lane in range(S.shape[0]):
        w, rw, sc = _weigh(S, P, lane, k, base)
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
        _shares(S, P, lane, base, inputs, shares, w, rw, sc, P[SEEK, lane, k])


@kernel
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


@kernel
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
        w, rw, sc = _weigh(S, P, lane, k, base)
        if w > 0.0:
            triangle_weights(tris, S[lane, at_x], S[lane, at_y], best, shares)
            _shares(S, P, lane, base, inputs, shares, w, rw, sc, P[SEEK, lane, k])


@kernel
def _mask(S, P, k, base, a, b, most, base_most, root):
    """The base by the most any bone keeps of it, the overlay by its largest bone weight;
    root motion by the root motion bone's weight."""
    for lane in range(S.shape[0]):
        w, rw, sc = _weigh(S, P, lane, k, base)
        if w > 0.0:
            seek = P[SEEK, lane, k]
            _push(P, lane, a, w, rw, base_most, 1.0 - root, sc, seek)
            _push(P, lane, b, w, rw, most, root, sc, seek)


@kernel
def _additive(S, P, k, base, a, b, weight, at):
    """The layer at its weight (times its parameter in [0, 1], at its place at in S, if
    any), kept in S[base + 2]; no root motion from it."""
    for lane in range(S.shape[0]):
        w, rw, sc = _weigh(S, P, lane, k, base)
        if w > 0.0:
            aw = weight * (_unit(S[lane, at]) if at >= 0 else 1.0)
            S[lane, base + 2] = aw
            seek = P[SEEK, lane, k]
            _push(P, lane, a, w, rw, 1.0, 1.0, sc, seek)
            _push(P, lane, b, w, rw, aw, 0.0, sc, seek)


@kernel
def _select(S, P, k, base, inputs, at, inert_at, inert_duration):
    """The input the parameter at S[at] selects (clamped to the inputs); a switch once the
    instance has updated asks the inertialize node above (its state at inert_at) to blend."""
    n = inputs.size
    for lane in range(S.shape[0]):
        w, rw, sc = _weigh(S, P, lane, k, base)
        if not w > 0.0:
            continue
        v = S[lane, at]
        i = n - 1 if v >= n else int(v) if v > 0.0 else 0
        if i != S[lane, base + 2] and S[lane, 0] > 0:
            _request(S, lane, inert_at, inert_duration, 0.0)
        S[lane, base + 2] = float(i)
        _push(P, lane, inputs[i], w, rw, 1.0, 1.0, sc, P[SEEK, lane, k])


@kernel
def _time_scale(S, P, k, base, a, scale, at):
    """Its input at the time scale times its parameter (at its place at in S, if any), within
    +-MAX_GRAPH_TIME_FACTOR."""
    for lane in range(S.shape[0]):
        w, rw, sc = _weigh(S, P, lane, k, base)
        if w > 0.0:
            f = scale * (S[lane, at] if at >= 0 else 1.0)
            f = _max(-MAX_GRAPH_TIME_FACTOR, _min(MAX_GRAPH_TIME_FACTOR, f))
            _push(P, lane, a, w, rw, 1.0, 1.0, sc * f, P[SEEK, lane, k])


@kernel
def _seek(S, P, k, base, a, at, time):
    """Its trigger (at S[at]) consumed puts its input's playheads at its time."""
    for lane in range(S.shape[0]):
        w, rw, sc = _weigh(S, P, lane, k, base)
        if not w > 0.0:
            continue
        seek = P[SEEK, lane, k]
        if S[lane, at] != 0.0:
            S[lane, at] = 0.0
            seek = time
        _push(P, lane, a, w, rw, 1.0, 1.0, sc, seek)


@kernel
def _inertialize(S, P, step, k, base, a, at_trigger, duration):
    """An inertialization's timer, its trigger (consumed: a switch of its own), and the step
    its evaluation keeps."""
    at = base + 2
    for lane in range(S.shape[0]):
        w, rw, sc = _weigh(S, P, lane, k, base)
        if not w > 0.0:
            continue
        if S[lane, at] and step > 0.0:
            S[lane, at + 2] += step * sc
            if S[lane, at + 2] >= S[lane, at + 3]:
                S[lane, at] = 0.0
        if at_trigger >= 0 and S[lane, at_trigger] != 0.0:
            S[lane, at_trigger] = 0.0
            _request(S, lane, at, duration, 0.0)
        S[lane, at + 9] = _min(step * abs(sc), _LONGEST)
        _push(P, lane, a, w, rw, 1.0, 1.0, sc, P[SEEK, lane, k])


@kernel
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
        w, rw, sc = _weigh(S, P, lane, k, base)
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
            _reset(S, lane, resets, initial)
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
        S[lane, at], S[lane, at + 1], S[lane, at + 2], S[lane, at + 3] = playing, _min(time, 1.0e6), start_w, fading
        S[lane, at + 4], S[lane, at + 5], S[lane, at + 6] = _min(fade_el, 1.0e6), fade_w, shot_w
        seek = P[SEEK, lane, k]
        least = 1.0 - base_most
        _push(P, lane, a, w, rw, 1.0 - shot_w * least, 1.0 - shot_w * root, sc, seek)
        _push(P, lane, b, w, rw, shot_w * most, shot_w * root, sc, seek)


# a machine's S offsets (graph_layout.machine_offsets) and numbers, in `offs`
LENGTH, TIME, FINISHED, STATES, TRANSITIONS, ELAPSED, COOLDOWNS, SHARES, LIMIT, INERT_AT = range(10)
# a transition's columns of trans_i; trans_f holds its duration and cooldown
T_SOURCE, T_TARGET, T_PRIORITY, T_MODE, T_RESTART, T_FADE, T_COND, T_COND_END, T_TRIG, T_TRIG_END = range(10)


@kernel
def _machine(S, P, step, k, base, offs, inert_duration, states, trans_i, trans_f, cond_i, cond_v,
             triggers, order, order_start, any_, finals, finish_i, finish_f, resets, reset_start,
             initial):
    """A state machine: its timers; fades done hide what is beneath them; the transition that
    fires (if any) starts a fade (or, beneath an inertialize node or of no duration, switches
    at once); each state's share is the newest fade's curve, the rest of the chain beneath
    it. Transitions by source state are listed in order[order_start[s]:order_start[s + 1]]
    and those from any state in any_, each by priority then source order."""
    progress = np.empty(offs[LIMIT] + 1)
    st, tr, el, cd = offs[STATES], offs[TRANSITIONS], offs[ELAPSED], offs[COOLDOWNS]
    for lane in range(S.shape[0]):
        w, rw, sc = _weigh(S, P, lane, k, base)
        if not w > 0.0:
            continue
        dt = step * sc if sc > 0 else 0.0
        L = int(S[lane, offs[LENGTH]])
        S[lane, offs[TIME]] = _min(S[lane, offs[TIME]] + dt, 1.0e6)
        for i in range(L):
            S[lane, el + i] = _min(S[lane, el + i] + dt, 1.0e6)
        for t in range(trans_i.shape[0]):
            if S[lane, cd + t] > 0.0:
                S[lane, cd + t] = _max(0.0, S[lane, cd + t] - dt)
        done = -1
        for i in range(L):
            duration = trans_f[int(S[lane, tr + i]), 0]
            progress[i] = S[lane, el + i] / duration if duration > 0 else 1.0
            if progress[i] >= 1.0:
                done = i
        if done >= 0:               # fades done hide everything before them
            keep = L - done - 1
            for i in range(keep + 1):
                S[lane, st + i] = S[lane, st + done + 1 + i]
            for i in range(keep):
                S[lane, tr + i] = S[lane, tr + done + 1 + i]
                S[lane, el + i] = S[lane, el + done + 1 + i]
                progress[i] = progress[done + 1 + i]
            L = keep
        t = _decide(S, lane, L, offs, trans_i, cond_i, cond_v, order, order_start, any_, finals,
                    finish_i, finish_f)
        if t >= 0:
            for x in range(trans_i[t, T_TRIG], trans_i[t, T_TRIG_END]):
                S[lane, triggers[x]] = 0.0
            duration = trans_f[t, 0]
            target = trans_i[t, T_TARGET]
            S[lane, cd + t] = trans_f[t, 1]
            S[lane, offs[TIME]] = 0.0
            if trans_i[t, T_RESTART]:
                _reset(S, lane, resets[reset_start[target]:reset_start[target + 1]], initial)
            if offs[INERT_AT] >= 0 or duration <= 0.0:
                _request(S, lane, offs[INERT_AT], inert_duration, duration)
                S[lane, st] = float(target)
                L = 0
            else:
                if L >= offs[LIMIT]:        # the oldest fade gives way
                    for i in range(L):
                        S[lane, st + i] = S[lane, st + i + 1]
                    for i in range(L - 1):
                        S[lane, tr + i] = S[lane, tr + i + 1]
                        S[lane, el + i] = S[lane, el + i + 1]
                        progress[i] = progress[i + 1]
                    L -= 1
                S[lane, st + L + 1] = float(target)
                S[lane, tr + L] = float(t)
                S[lane, el + L] = 0.0
                progress[L] = 0.0
                L += 1
        S[lane, offs[LENGTH]] = float(L)
        current = int(S[lane, st + L])
        S[lane, offs[FINISHED]] = 1.0 if (L == 0 and finals[current]) else 0.0
        # each state's share: the newest fade's curve, the rest of the chain beneath it
        sh = offs[SHARES]
        for s in range(states.size):
            S[lane, sh + s] = 0.0
        carry = 1.0
        for i in range(L - 1, -1, -1):
            c = curve(trans_i[int(S[lane, tr + i]), T_FADE], progress[i])
            S[lane, sh + int(S[lane, st + i + 1])] += carry * c
            carry *= 1.0 - c
        S[lane, sh + int(S[lane, st])] += carry
        seek = P[SEEK, lane, k]
        for s in range(states.size):
            v = S[lane, sh + s]
            if v > 0.0:
                _push(P, lane, states[s], w, rw, v, v, sc, seek)


@kernel
def _decide(S, lane, L, offs, trans_i, cond_i, cond_v, order, order_start, any_, finals,
            finish_i, finish_f):
    """The transition to fire now, or -1: the highest priority among those allowed whose
    conditions hold, ties in source order. At rest, those from the current state or any
    state; while a fade is under way, those its interruption mode allows: none, the fade's
    source's, the current state's (or any state's), or both, one set looked at first."""
    st = offs[STATES]
    current = int(S[lane, st + L])
    if L == 0:
        if finals[current]:
            return -1
        return _best(S, lane, current, current, True, offs, trans_i, cond_i, cond_v, order,
                     order_start, any_, finish_i, finish_f)
    mode = trans_i[int(S[lane, offs[TRANSITIONS] + L - 1]), T_MODE]
    source = int(S[lane, st + L - 1])
    for look in range(2):
        # mode 1: the source's; 2: here (current and any); 3: source, then here; 4: here, then source
        here = mode == 2 or (mode == 3 and look == 1) or (mode == 4 and look == 0)
        there = mode == 1 or (mode == 3 and look == 0) or (mode == 4 and look == 1)
        if look == 1 and mode < 3:
            break
        if here or there:
            t = _best(S, lane, current if here else source, current, here, offs, trans_i, cond_i,
                      cond_v, order, order_start, any_, finish_i, finish_f)
            if t >= 0:
                return t
    return -1


@kernel
def _best(S, lane, state, current, with_any, offs, trans_i, cond_i, cond_v, order, order_start,
          any_, finish_i, finish_f):
    """The best transition holding among those from `state` (and, with_any, from any state)."""
    best = -1
    n = order_start[state + 1] - order_start[state]
    for x in range(n + (any_.size if with_any else 0)):
        t = order[order_start[state] + x] if x < n else any_[x - n]
        if S[lane, offs[COOLDOWNS] + t] > 0.0:
            continue
        if trans_i[t, T_TARGET] == current and trans_i[t, T_SOURCE] != current:
            continue                # only a transition of a state to itself restarts it
        if best >= 0 and (trans_i[t, T_PRIORITY] < trans_i[best, T_PRIORITY] or (
                trans_i[t, T_PRIORITY] == trans_i[best, T_PRIORITY] and t > best)):
            continue
        if _holds(S, lane, t, current, trans_i, cond_i, cond_v, finish_i, finish_f):
            best = t
    return best


@kernel
def _holds(S, lane, t, current, trans_i, cond_i, cond_v, finish_i, finish_f):
    """Whether every condition of transition t holds: a parameter compared, a trigger or an
    event latch set, the state's time reached, the source (or current) state finished."""
    for c in range(trans_i[t, T_COND], trans_i[t, T_COND_END]):
        kind, at, op = cond_i[c, 0], cond_i[c, 1], cond_i[c, 2]
        value = cond_v[c]
        if kind == 0:
            v = S[lane, at]
            ok = (v == value if op == 0 else v != value if op == 1 else v < value if op == 2 else
                  v <= value if op == 3 else v > value if op == 4 else v >= value)
        elif kind == 1 or kind == 2:
            ok = S[lane, at] != 0.0
        elif kind == 3:
            ok = S[lane, at] >= value
        else:
            source = trans_i[t, T_SOURCE]
            state = source if source >= 0 else current
            how, at, forward = finish_i[state, 0], finish_i[state, 1], finish_i[state, 2]
            if how == 0:
                ok = False
            elif how == 2:
                ok = S[lane, at] != 0.0
            else:
                ok = S[lane, at] >= finish_f[state] if forward else S[lane, at] <= 0.0
        if not ok:
            return False
    return True


# ---- pass 2: playheads, events, root motion ------------------------------------------------------------
UNMOVED, MOVED, SEEKED = 0, 1, 2


@kernel
def _clips(S, P, delta, run_i, run_f, groups, group_start, event_times, marker_times,
           marker_names, moves, found, counts, roots):
    """Every clip node of every lane: its weight and scale kept; the playheads moved (sync
    groups' leaders first, their followers placed at the leader's phase); then, in node
    order, the events passed (into found[lane], (run, event) rows, counted in counts) and
    each node's root motion, blended into roots[lane]; the update counted."""
    R = run_i.shape[0]
    before = np.empty(R)
    state = np.empty(R, np.int64)
    old = np.empty(R)
    new = np.empty(R)
    wraps = np.empty(R)
    pending = np.empty((R + 1, 7))
    weights = np.empty(R + 1)
    for lane in range(S.shape[0]):
        for r in range(R):          # the clip nodes' weights and scales, as pass 1 keeps others'
            k, base = run_i[r, NODE], run_i[r, BASE]
            before[r] = S[lane, base]           # a follower's last weight
            state[r] = UNMOVED
            w = P[W, lane, k]
            if w <= 0.0:
                S[lane, base] = S[lane, base + 1] = 0.0
                continue
            P[SC, lane, k] = P[SCW, lane, k] / w
            if w > 1.0:
                P[W, lane, k] = 1.0
            S[lane, base] = P[W, lane, k]
            P[RW, lane, k] = P[RW, lane, k] if P[RW, lane, k] < 1.0 else 1.0
            S[lane, base + 1] = P[RW, lane, k]
        for g in range(group_start.size - 1):
            leader = heaviest = -1
            for x in range(group_start[g], group_start[g + 1]):
                r = groups[x]
                w = P[W, lane, run_i[r, NODE]]
                if not w > 0.0:
                    continue
                if run_i[r, LEADER] and leader < 0:
                    leader = r
                if heaviest < 0 or w > P[W, lane, run_i[heaviest, NODE]]:
                    heaviest = r
            if heaviest < 0:
                continue
            if leader < 0:
                leader = heaviest
            _move(S, P, delta, run_i, run_f, lane, leader, state, old, new, wraps)
            t = S[lane, run_i[leader, BASE] + 2]
            forward = delta * run_f[leader, SPEED] * P[SC, lane, run_i[leader, NODE]] >= 0.0
            lead = (run_i[leader, MK], run_i[leader, MK_END], run_f[leader, DURATION], run_i[leader, REPEAT])
            for x in range(group_start[g], group_start[g + 1]):
                r = groups[x]
                k = run_i[r, NODE]
                if r == leader or not P[W, lane, k] > 0.0:
                    continue
                at = run_i[r, BASE] + 2
                old[r] = S[lane, at]
                new[r] = S[lane, at] = gm.follow(marker_times, marker_names, lead, (
                    run_i[r, MK], run_i[r, MK_END], run_f[r, DURATION], run_i[r, REPEAT]), t)
                wraps[r] = 0.0
                state[r] = MOVED
                if state[leader] == SEEKED or P[SEEK, lane, k] == P[SEEK, lane, k]:
                    state[r] = SEEKED
                elif not before[r] > 0.0:           # joining: placed, not played
                    old[r] = new[r]
                elif forward:
                    wraps[r] = 1.0 if new[r] < old[r] and run_i[r, REPEAT] else 0.0
                else:
                    wraps[r] = -1.0 if new[r] > old[r] and run_i[r, REPEAT] else 0.0
        count = 0
        n = 0
        total = 0.0
        for r in range(R):
            k = run_i[r, NODE]
            w = P[W, lane, k]
            if w <= 0.0:
                continue
            if state[r] == UNMOVED:
                _move(S, P, delta, run_i, run_f, lane, r, state, old, new, wraps)
            if state[r] == SEEKED:
                continue
            if w > GRAPH_EVENT_THRESHOLD or run_i[r, ALL_EVENTS]:
                count = gm.events_passed(event_times, run_i[r, EV], run_i[r, EV_END], run_f[r, DURATION],
                                         old[r], new[r], wraps[r], found[lane], count, r)
            rw = P[RW, lane, k]
            if rw > 0.0:
                move = gm.clip_move(moves, run_i[r, MV], run_f[r, RATE], run_f[r, DURATION],
                                    run_i[r, LAST], old[r], new[r], wraps[r])
                for c in range(7):
                    pending[n, c] = move[c]
                weights[n] = rw
                n += 1
                total += rw
        if total < 1.0:
            for c in range(7):
                pending[n, c] = gm.IDENTITY[c]
            weights[n] = 1.0 - total
            n += 1
        gm.blend(pending, weights, n, roots[lane])
        counts[lane] = count
        S[lane, 0] += 1.0
        S[lane, 1] = delta


@kernel
def _move(S, P, delta, run_i, run_f, lane, r, state, old, new, wraps):
    """Moves one clip node's playhead by delta x speed x its time scale, or to its seek."""
    at = run_i[r, BASE] + 2
    k = run_i[r, NODE]
    seek = P[SEEK, lane, k]
    if seek == seek:
        S[lane, at] = gm.place(run_f[r, DURATION], run_i[r, REPEAT], seek)
        state[r] = SEEKED
        return
    old[r] = S[lane, at]
    new[r], wraps[r] = gm.advance(run_f[r, DURATION], run_i[r, REPEAT], old[r],
                                  delta * run_f[r, SPEED] * P[SC, lane, k])
    S[lane, at] = new[r]
    state[r] = MOVED


# ---- pass 3: event latches -----------------------------------------------------------------------------
@kernel
def _latch(S, P, node, length_at, st, latches, in_state, run_events, event_names, found, counts):
    """A machine's event conditions: each latch (S place, event name, source state or -1 for
    the current one) set when this update listed that event of a clip node under the state
    (in_state[state, run])."""
    for lane in range(S.shape[0]):
        if P[W, lane, node] <= 0.0:
            continue
        current = int(S[lane, st + int(S[lane, length_at])])
        for x in range(latches.shape[0]):
            at, name, source = latches[x, 0], latches[x, 1], latches[x, 2]
            state = current if source < 0 else source
            hit = 0.0
            for y in range(counts[lane]):
                r, e = found[lane, y, 0], found[lane, y, 1]
                if in_state[state, r] and event_names[run_events[r] + e] == name:
                    hit = 1.0
                    break
            S[lane, at] = hit


def _latch_step(t: Tables, b, m, index: dict, names: dict):
    latches = np.array([(at, names.setdefault(name, len(names)), -1 if source == GRAPH_NONE else source)
                        for at, name, source in m.latch_events], dtype=np.int64)
    in_state = np.zeros((len(m.states), len(b.clip_runs)), dtype=np.bool_)
    for s, clips in enumerate(m.state_clips):
        for node in clips:
            in_state[s, index[node]] = True
    run_events = np.ascontiguousarray(t.run_i[:, EV])
    length, states = m.at["length"], m.at["states"]
    return lambda S, P, found, counts: _latch(S, P, m.node, length, states, latches, in_state, run_events,
                                              t.event_names, found, counts)


# ---- each deciding kind's step -------------------------------------------------------------------------
def _at(b, parameter) -> int:
    """A parameter's place in S, or -1 for none."""
    return -1 if parameter == GRAPH_NONE else b.parameter_base + 4 * parameter


def _inputs(node) -> np.ndarray:
    return np.array(node.inputs, dtype=np.int64)


def _weigh_only(b, k, node):
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


def _inertializer(b, k):
    """Where the inertialize node a switch of node k goes to keeps its state, and its own
    duration: (-1, 0) for none."""
    inert = b.inertializer[k]
    if inert is None:
        return -1, 0.0
    return b.layout.nodes[inert] + 2, float(b.graph.nodes[inert].data.duration)


def _make_select(b, k, node):
    base, inputs = b.layout.nodes[k], _inputs(node)
    at = _at(b, node.data.parameter)
    inert_at, inert_duration = _inertializer(b, k)
    return lambda S, P, step: _select(S, P, k, base, inputs, at, inert_at, inert_duration)


def _make_time_scale(b, k, node):
    d = node.data
    base = b.layout.nodes[k]
    at = _at(b, d.parameter)
    return lambda S, P, step: _time_scale(S, P, k, base, node.inputs[0], float(d.scale), at)


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


def _make_machine(b, k, node):
    m = b.runs[k]
    at = m.at
    inert_at, _ = _inertializer(b, k)
    inert_duration = 0.0 if m.inertializer is None else float(b.graph.nodes[m.inertializer].data.duration)
    offs = np.array([at["length"], at["time"], at["finished"], at["states"], at["transitions"],
                     at["elapsed"], at["cooldowns"], at["shares"], m.limit, inert_at], dtype=np.int64)
    trans_i = np.zeros((len(m.transitions), 10), dtype=np.int64)
    trans_f = np.zeros((len(m.transitions), 2))
    cond_i, cond_v, triggers = [], [], []
    for t in m.transitions:
        trans_i[t.index] = (-1 if t.source == GRAPH_NONE else t.source, t.target, t.priority, t.interruption,
                            t.restart, t.fade, len(cond_i), len(cond_i) + len(t.conditions), len(triggers),
                            len(triggers) + len(t.triggers))
        trans_f[t.index] = t.duration, t.cooldown
        cond_i += [(kind, place, op) for kind, place, op, _ in t.conditions]
        cond_v += [value for _, _, _, value in t.conditions]
        triggers += t.triggers
    order = np.array([t.index for ts in m.by_source for t in ts], dtype=np.int64)
    order_start = np.cumsum([0] + [len(ts) for ts in m.by_source]).astype(np.int64)
    any_ = np.array([t.index for t in m.any], dtype=np.int64)
    finals = np.array([s in m.finals for s in range(len(m.states))], dtype=np.bool_)
    finish_i = np.zeros((len(m.states), 3), dtype=np.int64)
    finish_f = np.zeros(len(m.states))
    for s, f in enumerate(m.finish):
        if f is not None and f[0] == "machine":
            finish_i[s] = 2, f[1], 0
        elif f is not None:
            finish_i[s] = 1, f[1], f[3]
            finish_f[s] = f[2]
    ranges = [b.reset_ranges[node_] for node_ in m.states]
    resets = np.array([r for rs in ranges for r in rs], dtype=np.int64).reshape(-1, 2)
    reset_start = np.cumsum([0] + [len(rs) for rs in ranges]).astype(np.int64)
    args = (offs, inert_duration, np.array(m.states, dtype=np.int64), trans_i, trans_f,
            np.array(cond_i, dtype=np.int64).reshape(-1, 3), np.array(cond_v, dtype=np.float64),
            np.array(triggers, dtype=np.int64), order, order_start, any_, finals, finish_i, finish_f,
            resets, reset_start, b.initial)
    base = b.layout.nodes[k]
    return lambda S, P, step: _machine(S, P, step, k, base, *args)


HANDLERS = {NodeKind.blend: _make_blend, NodeKind.blend_1d: _make_blend_1d,
            NodeKind.blend_2d_banded: _make_banded, NodeKind.blend_2d_triangulated: _make_triangulated,
            NodeKind.mask: _make_mask, NodeKind.additive: _make_additive, NodeKind.select: _make_select,
            NodeKind.time_scale: _make_time_scale, NodeKind.seek: _make_seek,
            NodeKind.inertialize: _make_inertialize, NodeKind.one_shot: _make_one_shot,
            NodeKind.state_machine: _make_machine}
"""Each deciding node kind's step maker (binding, node index, node) -> step(S, P, step); the
binding lists them from the output down (GraphBinding.deciders)."""
