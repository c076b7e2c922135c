"""State machines in the update: pass 1's machine kernel (timers, fades, the transition that
fires, each state's share) and pass 3's event latches, with their step makers. A machine's
numbers live in S at graph/layout.py's machine_offsets; its transitions, conditions and states
are the binding's MachineRun as flat arrays.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core.jit import kernel, reads, scalar, writes
from ..evaluate.kernels import curve
from ..limits import GRAPH_NONE
from ..source import NodeKind
from .clips import EV

if TYPE_CHECKING:                       # the driver imports this module
    from .driver import Tables
from .nodes import (SEEK_TIME, WEIGHT, greater, inertializer, lesser, push, request_blend, reset_subtree,
                    weigh)

# a machine's S offsets (graph/layout.py's machine_offsets) and numbers, in `offs`
LENGTH, TIME, FINISHED, STATES, TRANSITIONS, ELAPSED, COOLDOWNS, SHARES, LIMIT, INERT_AT = range(10)
# a transition's columns of trans_i; trans_f holds its duration and cooldown
T_SOURCE, T_TARGET, T_PRIORITY, T_MODE, T_RESTART, T_FADE, T_COND, T_COND_END, T_TRIG, T_TRIG_END = range(10)


_I64, _F64 = reads(np.int64, 1), reads(np.float64, 1)
_MACHINE = (writes(np.float64, 2), writes(np.float64, 3), scalar(np.float64), scalar(np.int64),
            scalar(np.int64), _I64, scalar(np.float64), _I64, reads(np.int64, 2),
            reads(np.float64, 2), reads(np.int64, 2), _F64, _I64, _I64, _I64, _I64,
            reads(np.bool_, 1), reads(np.int64, 2), _F64, reads(np.int64, 2), _I64, _F64)
"""_machine's one signature (make_machine's arrays), so a first run can compile it aside."""


@kernel(signature=_MACHINE)
def _machine(S, P, step, k, base, offs, inert_duration, states, trans_i, trans_f, cond_i, cond_v,
             triggers, order, order_start, any_, finals, finish_i, finish_f, resets, reset_start,
             initial):
    """A state machine: its timers; fades done hide what is beneath them; the transition that
    fires (if any) starts a fade (or, beneath an inertialize node or of no duration, switches
    at once); each state's share is the newest fade's curve, the rest of the chain beneath
    it. Transitions by source state are listed in order[order_start[s]:order_start[s + 1]]
    and those from any state in any_, each by priority then source order."""
    progress = np.empty(offs[LIMIT] + 1)
    for lane in range(S.shape[0]):
        w, rw, sc = weigh(S, P, lane, k, base)
        if not w > 0.0:
            continue
        L = _tick(S, lane, offs, trans_i, trans_f, step * sc if sc > 0 else 0.0, progress)
        t = _decide(S, lane, L, offs, trans_i, cond_i, cond_v, order, order_start, any_, finals,
                    finish_i, finish_f)
        if t >= 0:
            L = _fire(S, lane, L, t, offs, inert_duration, trans_i, trans_f, triggers, resets, reset_start,
                      initial, progress)
        S[lane, offs[LENGTH]] = float(L)
        current = int(S[lane, offs[STATES] + L])
        S[lane, offs[FINISHED]] = 1.0 if (L == 0 and finals[current]) else 0.0
        _share(S, P, lane, k, L, offs, states, trans_i, progress, w, rw, sc)


@kernel(inner=True)
def _tick(S, lane, offs, trans_i, trans_f, dt, progress):
    """The machine's timers moved by dt (the state's time, the fades', the cooldowns), each
    fade's progress into progress; the fades done hide everything before them. The chain's
    length left."""
    st, tr, el, cd = offs[STATES], offs[TRANSITIONS], offs[ELAPSED], offs[COOLDOWNS]
    L = int(S[lane, offs[LENGTH]])
    S[lane, offs[TIME]] = lesser(S[lane, offs[TIME]] + dt, 1.0e6)
    for i in range(L):
        S[lane, el + i] = lesser(S[lane, el + i] + dt, 1.0e6)
    for t in range(trans_i.shape[0]):
        if S[lane, cd + t] > 0.0:
            S[lane, cd + t] = greater(0.0, S[lane, cd + t] - dt)
    done = -1
    for i in range(L):
        duration = trans_f[int(S[lane, tr + i]), 0]
        progress[i] = S[lane, el + i] / duration if duration > 0 else 1.0
        if progress[i] >= 1.0:
            done = i
    if done < 0:
        return L
    keep = L - done - 1
    for i in range(keep + 1):
        S[lane, st + i] = S[lane, st + done + 1 + i]
    for i in range(keep):
        S[lane, tr + i] = S[lane, tr + done + 1 + i]
        S[lane, el + i] = S[lane, el + done + 1 + i]
        progress[i] = progress[done + 1 + i]
    return keep


@kernel(inner=True)
def _fire(S, lane, L, t, offs, inert_duration, trans_i, trans_f, triggers, resets, reset_start, initial,
          progress):
    """Transition t fires: its triggers consumed, its cooldown started, the target restarted
    if it asks; a switch at once (beneath an inertialize node or of no duration) or a new
    fade on the chain (the oldest giving way at the limit). The chain's length after."""
    st, tr, el = offs[STATES], offs[TRANSITIONS], offs[ELAPSED]
    for x in range(trans_i[t, T_TRIG], trans_i[t, T_TRIG_END]):
        S[lane, triggers[x]] = 0.0
    duration = trans_f[t, 0]
    target = trans_i[t, T_TARGET]
    S[lane, offs[COOLDOWNS] + t] = trans_f[t, 1]
    S[lane, offs[TIME]] = 0.0
    if trans_i[t, T_RESTART]:
        reset_subtree(S, lane, resets[reset_start[target]:reset_start[target + 1]], initial)
    if offs[INERT_AT] >= 0 or duration <= 0.0:
        request_blend(S, lane, offs[INERT_AT], inert_duration, duration)
        S[lane, st] = float(target)
        return 0
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
    return L + 1


@kernel(inner=True)
def _share(S, P, lane, k, L, offs, states, trans_i, progress, w, rw, sc):
    """Each state's share, kept and given to it: the newest fade's curve, the rest of the
    chain beneath it."""
    st, tr, sh = offs[STATES], offs[TRANSITIONS], offs[SHARES]
    for s in range(states.size):
        S[lane, sh + s] = 0.0
    carry = 1.0
    for i in range(L - 1, -1, -1):
        c = curve(trans_i[int(S[lane, tr + i]), T_FADE], progress[i])
        S[lane, sh + int(S[lane, st + i + 1])] += carry * c
        carry *= 1.0 - c
    S[lane, sh + int(S[lane, st])] += carry
    seek = P[SEEK_TIME, lane, k]
    for s in range(states.size):
        v = S[lane, sh + s]
        if v > 0.0:
            push(P, lane, states[s], w, rw, v, v, sc, seek)


@kernel(inner=True)
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


@kernel(inner=True)
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


@kernel(inner=True)
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


# ---- pass 3: event latches ----------------------------------------------------------------------
@kernel
def _latch(S, P, node, length_at, st, latches, in_state, run_events, event_names, found, counts):
    """A machine's event conditions: each latch (S place, event name, source state or -1 for
    the current one) set when this update listed that event of a clip node under the state
    (in_state[state, run])."""
    for lane in range(S.shape[0]):
        if P[WEIGHT, lane, node] <= 0.0:
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


def latch_step(t: "Tables", b, m, index: dict, names: dict):
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


def machine_kernels(graph) -> list:
    """The update's kernels of one declared signature `graph` calls (for
    instance.compile_graph_aside): the state machine's, if it has one."""
    return [_machine] if any(node.kind == NodeKind.state_machine for node in graph.nodes) else []


# ---- the step maker -----------------------------------------------------------------------------
def make_machine(b, k, node):
    m = b.runs[k]
    at = m.at
    inert_at, _ = inertializer(b, k)
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
