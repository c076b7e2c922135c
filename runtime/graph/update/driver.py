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

A motion matching node decides in pass 1 (update/matching.py: its playhead, its searches,
its jumps), and so does a learned node (update/learned.py: its steps, projections and
decompression); their events and root motion join the clip nodes' in pass 2, in node order.
When a learned node's model gave a value past the float range, the update completes for
every node and then raises FormatError carrying, as `.written`, what the call returns
(update_many: the list), the failing nodes marked failed (maniGraphInstance_InspectNode).

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

Pass 1's kernels are in update/nodes.py (a machine's in update/machine.py), pass 2's in
update/clips.py, pass 3's in update/machine.py. What each kernel reads of the graph (its
inputs, parameters' places in S, machines' transitions, clips' events, markers and moves)
is worked out once per binding, as Tables, and kept on the binding.
"""
from __future__ import annotations

import threading
from collections import namedtuple
from operator import attrgetter

import numpy as np

from ...core import args, threads
from ...core.jit import kernel
from ...core.errors import FormatError
from ..source import NodeKind
from . import machine, nodes
from .learned import LearnedStep, make_learned
from .matching import MatchStep, make_matching
from .clips import (ALL_EVENTS, BASE, EV, EV_END, LAST, LEADER, MIRROR, MK, MK_END, MV, NODE, REPEAT, RUN_COLUMNS,
                    play_clips, play_synced_clips)
from .nodes import SEEK_TIME, TIME_SCALE, WEIGHT

GraphEvent = namedtuple("GraphEvent", "node clip name time weight")
GraphEvent.__doc__ = """maniGraphEvent: a clip node's event an update listed: the node, its clip
slot, the event's name and time in the clip, and the node's share of the output."""


SPAN_LANES = 16         # instances a thread at least, in a batch: a thread's start costs ~20 us


def update(inst, delta, capacity=None):
    """(events, event count, root move) of one step; see the module's description."""
    delta, capacity = _checked(delta, capacity)
    results, failed = [], []
    _run([inst], inst.scalars[None], delta, capacity, results, failed)
    if failed:
        _fail(failed, results[0])
    return results[0]


def update_many(insts: list, delta, capacity=None) -> list:
    """update() of instances of one binding, as lanes: each result bit for bit what update()
    gives it, on any number of threads (core.threads: each span of instances is updated on
    its own, and every kernel computes each lane from that lane's scalars alone)."""
    delta, capacity = _checked(delta, capacity)
    t = tables(insts[0].binding)
    parts = {}

    def span(lo, hi):
        results, failed = parts[lo] = [], []
        mine = insts[lo:hi]
        rows = list(map(_scalars, mine))
        S = np.stack(rows, out=_scratch(t, hi - lo)[0])
        _run(mine, S, delta, capacity, results, failed)
        for row, new in zip(rows, S):
            row[:] = new
    threads.run_spans(span, 0, len(insts), SPAN_LANES)
    results = [r for lo in sorted(parts) for r in parts[lo][0]]
    failed = [k for lo in sorted(parts) for k in parts[lo][1]]
    if failed:
        _fail(failed, results)
    return results


_scalars = attrgetter("scalars")


def _fail(failed: list, written) -> None:
    err = FormatError(f"learned nodes {sorted(set(failed))}: their model gave a value past the float range", 0)
    err.written = written
    raise err


def _checked(delta, capacity) -> tuple:
    """The step, finite, and the capacity, None or a count."""
    return args.finite(delta, "delta"), None if capacity is None else args.count(capacity, "capacity")


def _scratch(t: "Tables", m: int) -> tuple:
    """This thread's working arrays for m lanes of a binding's update: S for a batch, P, the
    events found and their counts, the motion matching and learned nodes' moves and root
    motion weights."""
    mine = t.local.__dict__.setdefault("scratch", {})
    got = mine.get(m)
    if got is None:
        if len(mine) > 8:
            mine.clear()
        x = len(t.matching)
        got = mine[m] = (np.empty((m, t.size)), np.empty((5, m, t.count)),
                         np.empty((m, t.event_room, 2), dtype=np.int64), np.empty(m, dtype=np.int64),
                         np.empty((m, x, 7)), np.empty((m, x)))
    return got


def _run(insts, S, delta, capacity, out: list, failed: list) -> None:
    """The lanes' update, their results appended to `out` and failing learned nodes to
    `failed`. The working arrays are this thread's; the root moves, returned, are new."""
    b = insts[0].binding
    t = tables(b)
    m = S.shape[0]
    _, P, found, counts, extra_moves, extra_weights = _scratch(t, m)
    _start(P)
    step = delta if delta > 0.0 else 0.0
    for decide in t.deciders:
        decide(S, P, step)
    moves = np.empty((m, 7), dtype=np.float32)
    kept = [step_.kept() for step_ in t.matching]
    for x, (step_, k) in enumerate(zip(t.matching, kept)):
        if isinstance(step_, LearnedStep):
            step_.keep_poses(insts)
            if k.failed.any():
                failed.append(step_.node)
        extra_moves[:, x] = k.moves
        extra_weights[:, x] = k.weights
    t.play(S, P, delta, *t.clips, found, counts, moves, t.extra_nodes, extra_moves, extra_weights)
    for latch in t.latches:
        latch(S, P, found, counts)
    for lane, count in enumerate(counts.tolist()):
        events = _events(b, S[lane], found[lane, :count]) if count else []
        for step_, k in zip(t.matching, kept):
            if k.events[lane]:
                events = _matched_events(events, step_.node, k.events[lane], float(S[lane, step_.base]))
        out.append((events if capacity is None else events[:capacity], len(events), moves[lane]))


def _matched_events(events: list, node: int, mine: list, weight: float) -> list:
    """A motion matching node's events joined to the others in node order."""
    at = next((i for i, e in enumerate(events) if e.node > node), len(events))
    return events[:at] + [GraphEvent(node, slot, name, time, weight)
                          for slot, name, time in mine] + events[at:]


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
    P[WEIGHT:TIME_SCALE] = 0.0
    P[TIME_SCALE] = 1.0
    P[SEEK_TIME] = np.nan
    P[WEIGHT:TIME_SCALE, :, P.shape[2] - 1] = 1.0


# ---- the binding's tables --------------------------------------------------------------------------------
STEP_MAKERS = {**nodes.STEP_MAKERS, NodeKind.state_machine: machine.make_machine,
               NodeKind.motion_matching: make_matching, NodeKind.learned_motion_matching: make_learned}
"""Each deciding node kind's step maker (binding, node index, node) -> step(S, P, step); the
binding lists them from the output down (GraphBinding.deciders)."""


def tables(b) -> "Tables":
    """A binding's tables, made on its first update and kept on it."""
    if b.update_tables is None:
        b.update_tables = Tables(b)
    return b.update_tables


class Tables:
    """What an update of a binding's graph reads, worked out once: each deciding node's step
    (a function of S, P and the step), from the output down; the clip nodes' numbers as
    flat arrays (run_i by update/clips.py's columns, run_f duration, speed and sample rate; their
    events' times, markers' times and names, moves, each run's at its offsets); the sync
    groups' runs and the clip pass they call for (play); each machine's latch step."""

    def __init__(self, b):
        self.count = len(b.graph.nodes)
        self.size = b.layout.size
        self.local = threading.local()      # each thread's working arrays
        self.deciders = [(make or nodes.weigh_only)(b, k, node) for k, node, make in b.deciders]
        runs = b.clip_runs
        names = {}                      # marker and event names as numbers
        ids = lambda values: [names.setdefault(v, len(names)) for v in values]    # noqa: E731
        self.run_i = np.zeros((len(runs), len(RUN_COLUMNS)), dtype=np.int64)
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
            row[MIRROR] = b.mirror_map._axis if b.graph.nodes[r.node].mirrored else -1
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
        self.play = play_synced_clips if groups else play_clips
        self.latches = [machine.latch_step(self, b, m, index, names) for m in b.machines if m.latch_events]
        self.matching = sorted((d for d in self.deciders if isinstance(d, (MatchStep, LearnedStep))),
                               key=lambda d: d.node)
        self.extra_nodes = np.array([d.node for d in self.matching], dtype=np.int64)
        self.clips = (self.run_i, self.run_f, self.groups, self.group_start, self.event_times, self.marker_times,
                      self.marker_names, self.moves)       # play_clips' tables, in its order
