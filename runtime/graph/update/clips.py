"""Pass 2 of the update, one kernel for every clip node of every lane: the playheads moved
(sync groups' leaders first, their followers placed at the leader's phase), the events
passed and each node's root motion, blended. What it reads of each clip node is a row of
the binding's run table (its columns below) and the events, markers and moves at the row's
offsets.
"""
from __future__ import annotations

import numpy as np

from .. import motion as gm
from ...core.jit import kernel, reads, scalar, writes
from ..limits import GRAPH_EVENT_THRESHOLD
from .nodes import ROOT_WEIGHT, SCALED_WEIGHT, SEEK_TIME, TIME_SCALE, WEIGHT

RUN_COLUMNS = ("node", "base", "repeat", "leader", "all_events", "events", "events_end", "markers",
               "markers_end", "moves", "last", "mirror")
NODE, BASE, REPEAT, LEADER, ALL_EVENTS, EV, EV_END, MK, MK_END, MV, LAST, MIRROR = \
    range(len(RUN_COLUMNS))
# MIRROR: the mirror map's axis for a clip node beneath an odd number of mirror nodes (its
# move mirrored as maniMirrorMap_MirrorRootMotion mirrors one), -1 for the others
DURATION, SPEED, RATE = range(3)        # the run table's numbers (run_f)
UNMOVED, MOVED, SEEKED = 0, 1, 2


_I64, _F64 = reads(np.int64, 1), reads(np.float64, 1)


def _player(synced: bool):
    """play_clips, with the sync groups' code (synced) or without it: a graph of no sync
    groups (the battle's) compiles a fifth less; numba drops the branch on the constant."""

    @kernel(signature=(writes(np.float64, 2), writes(np.float64, 3), scalar(np.float64), reads(np.int64, 2),
                       reads(np.float64, 2), _I64, _I64, _F64, _F64, _I64, reads(np.float64, 2),
                       writes(np.int64, 3), writes(np.int64, 1), writes(np.float32, 2), _I64,
                       reads(np.float64, 3), reads(np.float64, 2)))
    def play_clips(S, P, delta, run_i, run_f, groups, group_start, event_times, marker_times,
                   marker_names, moves, found, counts, roots, extra_nodes, extra_moves, extra_weights):
        """Every clip node of every lane: its weight and scale kept; the playheads moved (sync
        groups' leaders first, their followers placed at the leader's phase); then, in node
        order, the events passed (into found[lane], (run, event) rows, counted in counts) and
        each node's root motion, blended into roots[lane], with the moves of the other nodes
        that play clips (motion matching nodes extra_nodes, in node order: extra_moves[lane, x]
        at root motion weight extra_weights[lane, x]) in their places; the update counted."""
        R = run_i.shape[0]
        X = extra_nodes.size
        before = np.empty(R)
        state = np.empty(R, np.int64)
        old = np.empty(R)
        new = np.empty(R)
        wraps = np.empty(R)
        pending = np.empty((R + X + 1, 7))
        weights = np.empty(R + X + 1)
        for lane in range(S.shape[0]):
            _weigh_clips(S, P, run_i, lane, before, state)
            if synced:
                for g in range(group_start.size - 1):
                    _play_group(S, P, delta, run_i, run_f, groups, group_start[g], group_start[g + 1], marker_times,
                                marker_names, lane, before, state, old, new, wraps)
            count = 0
            n = 0
            total = 0.0
            x = 0
            for r in range(R + 1):
                k = run_i[r, NODE] if r < R else 1 << 62
                while x < X and extra_nodes[x] < k:
                    if extra_weights[lane, x] > 0.0:
                        for c in range(7):
                            pending[n, c] = extra_moves[lane, x, c]
                        weights[n] = extra_weights[lane, x]
                        total += weights[n]
                        n += 1
                    x += 1
                if r == R:
                    break
                w = P[WEIGHT, lane, k]
                if w <= 0.0:
                    continue
                if state[r] == UNMOVED:
                    _move(S, P, delta, run_i, run_f, lane, r, state, old, new, wraps)
                if state[r] == SEEKED:
                    continue
                if w > GRAPH_EVENT_THRESHOLD or run_i[r, ALL_EVENTS]:
                    count = gm.events_passed(event_times, run_i[r, EV], run_i[r, EV_END], run_f[r, DURATION],
                                             old[r], new[r], wraps[r], found[lane], count, r)
                rw = P[ROOT_WEIGHT, lane, k]
                if rw > 0.0:
                    move = gm.clip_move(moves, run_i[r, MV], run_f[r, RATE], run_f[r, DURATION],
                                        run_i[r, LAST], old[r], new[r], wraps[r])
                    for c in range(7):
                        pending[n, c] = move[c]
                    a = run_i[r, MIRROR]
                    if a >= 0:
                        for c in range(3):
                            if c == a:
                                pending[n, c] = -pending[n, c]
                            else:
                                pending[n, 3 + c] = -pending[n, 3 + c]
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

    return play_clips


play_clips, play_synced_clips = _player(False), _player(True)
"""The clip pass of a graph without sync groups, and with them (Tables.play picks)."""


@kernel(inner=True)
def _weigh_clips(S, P, run_i, lane, before, state):
    """The clip nodes' weights and scales kept, as pass 1 keeps other nodes'; each one's
    weight before (a follower's last weight) and nothing moved yet."""
    for r in range(run_i.shape[0]):
        k, base = run_i[r, NODE], run_i[r, BASE]
        before[r] = S[lane, base]
        state[r] = UNMOVED
        w = P[WEIGHT, lane, k]
        if w <= 0.0:
            S[lane, base] = S[lane, base + 1] = 0.0
            continue
        P[TIME_SCALE, lane, k] = P[SCALED_WEIGHT, lane, k] / w
        if w > 1.0:
            P[WEIGHT, lane, k] = 1.0
        S[lane, base] = P[WEIGHT, lane, k]
        P[ROOT_WEIGHT, lane, k] = P[ROOT_WEIGHT, lane, k] if P[ROOT_WEIGHT, lane, k] < 1.0 else 1.0
        S[lane, base + 1] = P[ROOT_WEIGHT, lane, k]


@kernel(inner=True)
def _leader(P, run_i, groups, a, z, lane):
    """A sync group's (runs groups[a:z]) leader: its first flagged run of weight above 0, else
    its heaviest; -1 when none weighs."""
    leader = heaviest = -1
    for x in range(a, z):
        r = groups[x]
        w = P[WEIGHT, lane, run_i[r, NODE]]
        if not w > 0.0:
            continue
        if run_i[r, LEADER] and leader < 0:
            leader = r
        if heaviest < 0 or w > P[WEIGHT, lane, run_i[heaviest, NODE]]:
            heaviest = r
    return heaviest if leader < 0 else leader


@kernel(inner=True)
def _play_group(S, P, delta, run_i, run_f, groups, a, z, marker_times, marker_names, lane, before,
                state, old, new, wraps):
    """A sync group's leader moved and its weighted followers placed at its phase: seeked
    with it (or by a seek of their own), placed without playing when joining, else played
    from where they were (a wrap when the phase came round)."""
    leader = _leader(P, run_i, groups, a, z, lane)
    if leader < 0:
        return
    _move(S, P, delta, run_i, run_f, lane, leader, state, old, new, wraps)
    t = S[lane, run_i[leader, BASE] + 2]
    forward = delta * run_f[leader, SPEED] * P[TIME_SCALE, lane, run_i[leader, NODE]] >= 0.0
    lead = (run_i[leader, MK], run_i[leader, MK_END], run_f[leader, DURATION], run_i[leader, REPEAT])
    for x in range(a, z):
        r = groups[x]
        k = run_i[r, NODE]
        if r == leader or not P[WEIGHT, lane, k] > 0.0:
            continue
        at = run_i[r, BASE] + 2
        old[r] = S[lane, at]
        new[r] = S[lane, at] = gm.follow(marker_times, marker_names, lead, (
            run_i[r, MK], run_i[r, MK_END], run_f[r, DURATION], run_i[r, REPEAT]), t)
        wraps[r] = 0.0
        state[r] = MOVED
        if state[leader] == SEEKED or P[SEEK_TIME, lane, k] == P[SEEK_TIME, lane, k]:
            state[r] = SEEKED
        elif not before[r] > 0.0:           # joining: placed, not played
            old[r] = new[r]
        elif forward:
            wraps[r] = 1.0 if new[r] < old[r] and run_i[r, REPEAT] else 0.0
        else:
            wraps[r] = -1.0 if new[r] > old[r] and run_i[r, REPEAT] else 0.0


@kernel(inner=True)
def _move(S, P, delta, run_i, run_f, lane, r, state, old, new, wraps):
    """Moves one clip node's playhead by delta x speed x its time scale, or to its seek."""
    at = run_i[r, BASE] + 2
    k = run_i[r, NODE]
    seek = P[SEEK_TIME, lane, k]
    if seek == seek:
        S[lane, at] = gm.place(run_f[r, DURATION], run_i[r, REPEAT], seek)
        state[r] = SEEKED
        return
    old[r] = S[lane, at]
    new[r], wraps[r] = gm.advance(run_f[r, DURATION], run_i[r, REPEAT], old[r],
                                  delta * run_f[r, SPEED] * P[TIME_SCALE, lane, k])
    S[lane, at] = new[r]
    state[r] = MOVED
