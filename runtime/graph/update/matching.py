"""Pass 1 of the update for motion matching nodes: each weighed node plays its frame on and,
when a search is due, searches its database (maniMotionDatabase_Search), lane by lane.

Holden's motion matching, as the spec leaves it to us:

- The playhead moves forward by the step times the time scales above (a negative scale or
  step stands it still): a looping entry wraps, another stops at its end.
- A search is due on the node's first weighed update, every `period` seconds since the last
  (0: every update), when its trigger is set (consumed) and at the end of an entry that
  does not loop. The query is the playing frame's features (raw: as stored, unnormalized)
  with each query input's parameter in its channel's place (before any frame plays, the
  database's means), its tags the node's bits or its int parameter's.
- The playing frame is the continuing frame (none at a non-looping entry's end, so that a
  search there always moves on), its cost carrying continuing_bias less jump_threshold: the
  search keeps it unless another frame beats it by the threshold. Its end exclusion and
  history time are the node's, the picks the last history_count frames it jumped to.
- A jump moves the playhead to the frame's entry and time and asks the inertialize node
  above (as a state machine's switch does, update/nodes.py's request_blend) to blend over
  its own duration, or this node's when its own is 0; with none above it is a cut.
- Root motion and events are the playing clip's from the old playhead to the new (a jump
  moves no root and lists no event: its frame starts where the last one stopped), a
  mirrored entry's as its mirrored clip's, reflected again beneath an odd number of mirror
  nodes. They join the clip nodes' in pass 2 in node order (update/clips.py).
"""
from __future__ import annotations

import numpy as np

from ...core.jit import kernel
from ...matching.limits import NO_FRAME
from ...matching.search import MatchQuery, search
from .. import motion as gm
from ..limits import GRAPH_EVENT_THRESHOLD
from .nodes import TIME_SCALE, inertializer, request_blend, weigh_only


@kernel
def _move(moves, rate, duration, last, old, new, wraps, out):
    """A clip's move from one playhead to another (graph/motion.py's clip_move)."""
    m = gm.clip_move(moves, 0, rate, duration, last, old, new, wraps)
    for c in range(7):
        out[c] = m[c]


@kernel
def _passed(times, duration, old, new, wraps, out):
    """The events a playhead passes (graph/motion.py's events_passed): how many, in out[:, 1]."""
    return gm.events_passed(times, 0, times.size, duration, old, new, wraps, out, 0, 0)


@kernel
def _blend_request(S, lane, at, own, duration):
    request_blend(S, lane, at, own, duration)


class MatchStep:
    """A motion matching node's pass 1 step (a function of S, P and the step), keeping for
    pass 2 each lane's move and root motion weight and its events."""

    def __init__(self, b, k: int, node):
        self.run = r = b.runs[k]
        self.node, self.base = k, r.base
        self.weigh = weigh_only(b, k, node)
        self.inert_at, self.inert_duration = inertializer(b, k)
        self.history = r.data.history_count
        self.moves = np.zeros((0, 7))
        self.weights = np.zeros(0)
        self.events = []
        self._found = np.zeros((max(1, 3 * max(p.event_times.size for p in r.plays)), 2), np.int64)
        offsets, scales = r.db.normalization()
        self._offsets, self._scales = offsets, scales
        self._raw = (r.db.features[r.db.frame_slot] * scales + offsets).astype(np.float32)

    def __call__(self, S, P, step):
        self.weigh(S, P, step)
        m = S.shape[0]
        if self.moves.shape[0] != m:
            self.moves, self.weights = np.zeros((m, 7)), np.zeros(m)
        self.moves[:] = gm.IDENTITY
        self.weights[:] = 0.0
        self.events = [[] for _ in range(m)]
        for lane in range(m):
            if S[lane, self.base] > 0.0:
                dt = step * P[TIME_SCALE, lane, self.node]
                self._lane(S, lane, dt if dt > 0.0 else 0.0)

    def _lane(self, S, lane: int, dt: float) -> None:
        r, at = self.run, self.base + 2
        d = r.data
        playing, entry, time, since = bool(S[lane, at]), int(S[lane, at + 1]), S[lane, at + 2], S[lane, at + 3]
        due = not playing
        if playing:
            play = r.plays[entry]
            start, end = r.spans[entry]
            if r.loops[entry]:
                new, wraps = _advance(play.duration, time, dt)
            else:
                new, wraps = min(max(time + dt, start), end), 0.0
            self._play(lane, entry, time, new, wraps, S[lane, self.base], S[lane, self.base + 1])
            time = new
            due = due or (not r.loops[entry] and time >= end)
        since = min(since + dt, 1.0e6)
        due = due or since >= d.period
        if r.trigger >= 0 and S[lane, r.trigger] != 0.0:
            S[lane, r.trigger] = 0.0
            due = True
        if due:
            since = 0.0
            at_end = playing and not r.loops[entry] and time >= r.spans[entry][1]
            continuing = r.frame_at(entry, time) if playing and not at_end else NO_FRAME
            picks = S[lane, at + 5:at + 5 + int(S[lane, at + 4])].astype(np.int64)
            found = search(r.db, MatchQuery(
                self._query(S, lane, continuing), continuing,
                float(np.float32(d.continuing_bias) - np.float32(d.jump_threshold)),
                d.transition_cost, self._tags(S, lane, r.required), self._tags(S, lane, r.excluded),
                d.end_exclusion, d.history_time, picks))
            if found.frame != NO_FRAME and not found.continuing:
                if playing:
                    _blend_request(S, lane, self.inert_at, self.inert_duration, float(d.duration))
                playing, entry, time = True, found.entry, found.time
                if self.history:
                    kept = min(picks.size + 1, self.history)
                    S[lane, at + 6:at + 5 + kept] = picks[:kept - 1]
                    S[lane, at + 5] = found.frame
                    S[lane, at + 4] = kept
        S[lane, at:at + 4] = float(playing), float(entry), time, since

    def _query(self, S, lane: int, continuing: int) -> np.ndarray:
        q = self._raw[continuing].copy() if continuing != NO_FRAME else self._offsets.copy()
        for first, width, p in self.run.query:
            q[first:first + width] = S[lane, p:p + width]
        return q

    @staticmethod
    def _tags(S, lane: int, tag) -> int:
        bits, p = tag
        return bits if p < 0 else int(S[lane, p]) & 0xFFFFFFFF

    def _play(self, lane, entry, old, new, wraps, weight, root_weight) -> None:
        """The lane's move and events (past GRAPH_EVENT_THRESHOLD, or any weight for a slot
        built with all_events) from old to new."""
        r = self.run
        play, slot = r.plays[entry], r.slots[entry]
        if play.event_times.size and (weight > GRAPH_EVENT_THRESHOLD or r.all_events[entry]):
            n = _passed(play.event_times, play.duration, old, new, wraps, self._found)
            self.events[lane] = [(slot, play.event_names[e], float(play.event_times[e]))
                                 for e in self._found[:n, 1].tolist()]
        if play.moves is None or not root_weight > 0.0:
            return
        out = self.moves[lane]
        _move(play.moves, play.rate, play.duration, play.last, old, new, wraps, out)
        a = r.node_axis
        if a >= 0:          # beneath a mirror node: reflected as update/clips.py reflects a clip's
            for c in range(3):
                if c == a:
                    out[c] = -out[c]
                else:
                    out[3 + c] = -out[3 + c]
        self.weights[lane] = root_weight


@kernel
def _advance(duration, old, step):
    """A looping entry's playhead moved by a step (graph/motion.py's advance, repeating)."""
    return gm.advance(duration, True, old, step)


def make_matching(b, k, node):
    return MatchStep(b, k, node)
