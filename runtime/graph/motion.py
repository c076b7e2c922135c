"""Playheads, events and root motion for clip nodes, compiled (runtime.core.jit) for the update's
clip pass (graph/update/clips.py).

A clip node's tables are flat arrays the binding's clips give once (graph_update.Tables):
its events' times (`times[lo:hi]`, increasing), its sync markers' times and names (names as
numbers), its clip's moves (`moves[at:at + samples]`, binary64). A move at a time, composed,
inverted and raised to powers is clip/kernels.py's, the clip's own root motion's, so bit for
bit as the clip gives it; a blend of moves is rootmotion.blend's formula, summed in the moves'
order. A node's loop mode (which may differ from its clip's) decides the wraps, a count of
periods being a whole binary64 number (a step of any length has one).
"""
from __future__ import annotations

import math

import numpy as np

from ..clip.kernels import NO_MOTION as IDENTITY
from ..clip.kernels import compose_moves as compose
from ..clip.kernels import inverse_move as inverse
from ..clip.kernels import move_at
from ..clip.kernels import power_move as power
from ..core.jit import kernel

_MOST = 1.7976931348623157e308          # a count of periods past binary64's range counts this many


# ---- playheads -------------------------------------------------------------------------------------------
@kernel(inner=True)
def advance(duration, repeat, old, step):
    """A playhead moved by a step under the node's loop mode: (new, wraps), wraps the whole
    periods crossed (signed)."""
    t = old + step
    if not repeat or duration <= 0:
        return (0.0 if t < 0 else duration if t > duration else t), 0.0
    if 0.0 <= t < duration:
        return t, 0.0
    wraps = np.floor(t / duration)
    if not abs(wraps) <= _MOST:
        wraps = math.copysign(_MOST, wraps)
    t -= wraps * duration
    if not 0.0 <= t < duration:         # rounding at the period's edge
        t = 0.0
    return t, wraps


@kernel(inner=True)
def place(duration, repeat, t):
    """A time put on the clip: wrapped for a repeating node, clamped otherwise."""
    if repeat and duration > 0:
        t = np.fmod(t, duration)
        if t < 0:
            t += duration
        return t if t < duration else 0.0
    return 0.0 if t < 0 else duration if t > duration else t


@kernel(inner=True)
def _right(a, lo, hi, x):
    """bisect_right over a[lo:hi], as an index from lo."""
    first = lo
    while lo < hi:
        mid = (lo + hi) // 2
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo - first


@kernel(inner=True)
def _left(a, lo, hi, x):
    """bisect_left over a[lo:hi], as an index from lo."""
    first = lo
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo - first


@kernel(inner=True)
def _phase(times, names, lo, hi, duration, t):
    """Where a playhead is between the clip's sync markers times[lo:hi]: (name, fraction), or
    (-1, 0) for a clip without markers."""
    count = hi - lo
    if not count:
        return -1, 0.0
    k = _right(times, lo, hi, t) - 1
    if k < 0:
        k = count - 1
        start = times[lo + k] - duration
    else:
        start = times[lo + k]
    end = times[lo + k + 1] if k + 1 < count else times[lo] + duration
    span = end - start
    return names[lo + k], ((t - start) / span if span > 0 else 0.0)


@kernel(inner=True)
def follow(times, names, leader, follower, t):
    """A follower's playhead for a leader's: at the same fraction between markers of the same
    names where both have them, else at the same fraction of their durations. Each of
    leader and follower is (marker lo, marker hi, duration, repeat)."""
    lo, hi, duration, _ = leader
    flo, fhi, fduration, frepeat = follower
    name, frac = _phase(times, names, lo, hi, duration, t)
    if name >= 0 and fhi > flo:
        for j in range(flo, fhi):
            if names[j] == name:
                start = times[j]
                end = times[j + 1] if j + 1 < fhi else times[flo] + fduration
                return place(fduration, frepeat, start + frac * (end - start))
    if duration <= 0:
        return place(fduration, frepeat, 0.0)
    return place(fduration, frepeat, t / duration * fduration)


# ---- events ----------------------------------------------------------------------------------------------
@kernel(inner=True)
def events_passed(times, lo, hi, duration, old, new, wraps, out, at, run):
    """The events times[lo:hi] a playhead passes going from old to new across `wraps`
    periods, in the order it passes them, written as (run, event) rows of out from row `at`
    on; the next free row. Forward those at old <= t < new, backward those at new < t <= old,
    compared in binary32 as clip.event_range compares them; a step of whole periods lists
    each event once."""
    count = hi - lo
    if not count:
        return at
    a, b = np.float64(np.float32(old)), np.float64(np.float32(new))
    if not wraps:
        if a < b:
            return _list(out, at, run, _left(times, lo, hi, a), _left(times, lo, hi, b), 1)
        if b < a:
            return _list(out, at, run, _right(times, lo, hi, a) - 1, _right(times, lo, hi, b) - 1, -1)
        return at
    end = np.float64(np.float32(duration))
    if wraps > 0:
        at = _list(out, at, run, _left(times, lo, hi, a), _right(times, lo, hi, end), 1)
        if wraps > 1:
            at = _list(out, at, run, 0, count, 1)
        return _list(out, at, run, 0, _left(times, lo, hi, b), 1)
    at = _list(out, at, run, _right(times, lo, hi, a) - 1, -1, -1)
    if wraps < -1:
        at = _list(out, at, run, count - 1, -1, -1)
    return _list(out, at, run, count - 1, _right(times, lo, hi, b) - 1, -1)


@kernel(inner=True)
def _list(out, at, run, first, stop, step):
    for e in range(first, stop, step):
        out[at, 0] = run
        out[at, 1] = e
        at += 1
    return at


# ---- root motion -----------------------------------------------------------------------------------------
@kernel(inner=True)
def clip_move(moves, at, rate, duration, last, old, new, wraps):
    """The move a clip node makes from one playhead to another across `wraps` periods
    (signed), in the character's frame where it begins; at < 0 for a clip without root
    motion (no move)."""
    if at < 0:
        return IDENTITY
    if not wraps:
        return compose(inverse(move_at(moves, at, rate, duration, last, old)),
                       move_at(moves, at, rate, duration, last, new))
    to_start = inverse(move_at(moves, at, rate, duration, last, 0.0))
    period = compose(to_start, move_at(moves, at, rate, duration, last, duration))
    xa = compose(to_start, move_at(moves, at, rate, duration, last, old))
    xb = compose(to_start, move_at(moves, at, rate, duration, last, new))
    return compose(inverse(xa), compose(power(period, wraps), xb))


@kernel(inner=True)
def blend(moves, weights, count, out):
    """moves[:count] (7 each) blended by weights (rootmotion.blend) into out, binary32:
    normalized weights, translations summed, rotations each in the hemisphere of the first
    weighted one, summed and normalized."""
    total = 0.0
    ref = -1
    for k in range(count):
        if weights[k] > 0:
            total += weights[k]
            if ref < 0:
                ref = k
    if ref < 0:
        for c in range(7):
            out[c] = IDENTITY[c]
        return
    t0 = t1 = t2 = 0.0
    q0 = q1 = q2 = q3 = 0.0
    r = moves[ref]
    for k in range(count):
        w = weights[k]
        if w <= 0:
            continue
        w = w / total
        m = moves[k]
        t0 += w * m[0]
        t1 += w * m[1]
        t2 += w * m[2]
        s = w if (m[3] * r[3] + m[4] * r[4] + m[5] * r[5] + m[6] * r[6]) >= 0 else -w
        q0 += s * m[3]
        q1 += s * m[4]
        q2 += s * m[5]
        q3 += s * m[6]
    n = math.sqrt(q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3)
    if not n > 0:
        q0, q1, q2, q3, n = 0.0, 0.0, 0.0, 1.0, 1.0
    out[0], out[1], out[2] = t0, t1, t2
    out[3], out[4], out[5], out[6] = q0 / n, q1 / n, q2 / n, q3 / n
