"""Root motion and event lists for clip nodes, in plain Python floats.

An update asks each weighted clip node for its move and its events over one step: a few
dozen scalar operations, where numpy's per-call cost would be ten times the work. The
arithmetic is rootmotion.py's (binary64, a move's rotation normalized after each lerp and
product); a node's loop mode (which may differ from its clip's) decides the wraps.
"""
from __future__ import annotations

import math
import struct
from bisect import bisect_left, bisect_right

import numpy as np

from .rootmotion import compose_moves, inverse_move, power_move

IDENTITY = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
_F = struct.Struct("<f")


def f32(x: float) -> float:
    """x as binary32 holds it, as the clip's event times are compared (clip.event_range)."""
    try:
        return _F.unpack(_F.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _normalized(q):
    x, y, z, w = q
    n = math.sqrt(x * x + y * y + z * z + w * w)
    return (x / n, y / n, z / n, w / n) if n > 0 else (0.0, 0.0, 0.0, 1.0)


def move_at(run, t: float):
    """The root bone's move at a clip time (rootmotion.move_at)."""
    i, j, f = run.clip.segment(t)
    a, b = run.moves[i], run.moves[j]
    x, y, z = a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]), a[2] + f * (b[2] - a[2])
    qx, qy, qz, qw = (a[3] + f * (b[3] - a[3]), a[4] + f * (b[4] - a[4]), a[5] + f * (b[5] - a[5]),
                      a[6] + f * (b[6] - a[6]))
    n = math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
    return (x, y, z, qx / n, qy / n, qz / n, qw / n)


def relative(a, b):
    """inverse(a) composed with b: the move from where a ends to where b ends, in a's frame."""
    ax, ay, az, aw = -a[3], -a[4], -a[5], a[6]          # a's rotation, inverted
    vx, vy, vz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    cx, cy, cz = 2 * (ay * vz - az * vy), 2 * (az * vx - ax * vz), 2 * (ax * vy - ay * vx)
    tx = vx + aw * cx + (ay * cz - az * cy)
    ty = vy + aw * cy + (az * cx - ax * cz)
    tz = vz + aw * cz + (ax * cy - ay * cx)
    bx, by, bz, bw = b[3], b[4], b[5], b[6]
    qx = aw * bx + ax * bw + ay * bz - az * by
    qy = aw * by - ax * bz + ay * bw + az * bx
    qz = aw * bz + ax * by - ay * bx + az * bw
    qw = aw * bw - ax * bx - ay * by - az * bz
    n = math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
    return (tx, ty, tz, qx / n, qy / n, qz / n, qw / n)


def clip_move(run, old: float, new: float, wraps: int):
    """The move a clip node makes from one playhead to another across `wraps` periods
    (signed), in the character's frame where it begins."""
    if run.moves is None:
        return IDENTITY
    if not wraps:
        return relative(move_at(run, old), move_at(run, new))
    to_start = inverse_move(move_at(run, 0.0))
    period = compose_moves(to_start, move_at(run, run.duration))
    xa = compose_moves(to_start, move_at(run, old))
    xb = compose_moves(to_start, move_at(run, new))
    return compose_moves(inverse_move(xa), compose_moves(power_move(period, wraps), xb))


def relative_many(binding, items: list) -> list:
    """relative(move_at(old), move_at(new)) for many (run, old, new) at once, with numpy over
    the binding's side-by-side moves: every operation is the scalar path's, in its order,
    so each move is bit for bit what clip_move gives."""
    M = binding.all_moves
    rows, fractions = [], []
    for r, old, new in items:
        for t in (old, new):
            i, j, f = r.clip.segment(t)
            rows.append((r.moves_offset + i, r.moves_offset + j))
            fractions.append(f)
    rows = np.array(rows, dtype=np.intp)
    f = np.array(fractions)
    a, b = M[rows[:, 0]], M[rows[:, 1]]
    m = a + f[:, None] * (b - a)
    qx, qy, qz, qw = m[:, 3], m[:, 4], m[:, 5], m[:, 6]
    n = np.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
    m[:, 3] = qx / n
    m[:, 4] = qy / n
    m[:, 5] = qz / n
    m[:, 6] = qw / n
    A, B = m[0::2], m[1::2]
    ax, ay, az, aw = -A[:, 3], -A[:, 4], -A[:, 5], A[:, 6]
    vx, vy, vz = B[:, 0] - A[:, 0], B[:, 1] - A[:, 1], B[:, 2] - A[:, 2]
    cx, cy, cz = 2 * (ay * vz - az * vy), 2 * (az * vx - ax * vz), 2 * (ax * vy - ay * vx)
    out = np.empty((len(items), 7))
    out[:, 0] = vx + aw * cx + (ay * cz - az * cy)
    out[:, 1] = vy + aw * cy + (az * cx - ax * cz)
    out[:, 2] = vz + aw * cz + (ax * cy - ay * cx)
    bx, by, bz, bw = B[:, 3], B[:, 4], B[:, 5], B[:, 6]
    qx = aw * bx + ax * bw + ay * bz - az * by
    qy = aw * by - ax * bz + ay * bw + az * bx
    qz = aw * bz + ax * by - ay * bx + az * bw
    qw = aw * bw - ax * bx - ay * by - az * bz
    n = np.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
    out[:, 3], out[:, 4], out[:, 5], out[:, 6] = qx / n, qy / n, qz / n, qw / n
    return out


def blend_many(moves: np.ndarray, weights: np.ndarray, owner: np.ndarray, count: int) -> np.ndarray:
    """blend() of many groups of moves at once: row k of `moves` (K, 7), at weight k (above
    0), belongs to group owner[k] (groups in order, rows of a group together). The sums run
    in blend()'s order, so each group's move is bit for bit what blend() gives it."""
    total = np.bincount(owner, weights=weights, minlength=count)
    first = np.searchsorted(owner, np.arange(count))
    ref = moves[first, 3:7][owner]
    w = weights / total[owner]
    out = np.empty((count, 7))
    for c in range(3):
        out[:, c] = np.bincount(owner, weights=w * moves[:, c], minlength=count)
    dot = moves[:, 3] * ref[:, 0] + moves[:, 4] * ref[:, 1] + moves[:, 5] * ref[:, 2] + moves[:, 6] * ref[:, 3]
    s = np.where(dot >= 0, w, -w)
    for c in range(4):
        out[:, 3 + c] = np.bincount(owner, weights=s * moves[:, 3 + c], minlength=count)
    x, y, z, q = out[:, 3], out[:, 4], out[:, 5], out[:, 6]
    n = np.sqrt(x * x + y * y + z * z + q * q)
    zero = n == 0
    n = np.where(zero, 1.0, n)
    out[:, 3:7] = np.where(zero[:, None], (0.0, 0.0, 0.0, 1.0), out[:, 3:7] / n[:, None])
    return out


def blend(moves: list, weights: list):
    """Moves blended by weights (rootmotion.blend): normalized weights, translations summed,
    rotations each in the hemisphere of the first weighted one, summed and normalized."""
    total = 0.0
    ref = None
    for m, w in zip(moves, weights):
        if w > 0:
            total += w
            if ref is None:
                ref = m[3:]
    if ref is None:
        return IDENTITY
    t = [0.0, 0.0, 0.0]
    q = [0.0, 0.0, 0.0, 0.0]
    for m, w in zip(moves, weights):
        if w <= 0:
            continue
        w = w / total
        t[0] += w * m[0]
        t[1] += w * m[1]
        t[2] += w * m[2]
        s = w if (m[3] * ref[0] + m[4] * ref[1] + m[5] * ref[2] + m[6] * ref[3]) >= 0 else -w
        for c in range(4):
            q[c] += s * m[3 + c]
    return tuple(t) + _normalized(q)


def events_passed(run, old: float, new: float, wraps: int) -> list[int]:
    """The clip's events a playhead passes going from old to new across `wraps` periods, in
    the order it passes them: forward those at old <= t < new, backward those at new < t <=
    old, compared in binary32 as clip.event_range compares them; a step of whole periods
    lists each event once."""
    times = run.event_times
    if not times:
        return []
    a, b = f32(old), f32(new)
    if not wraps:
        if a < b:
            return list(range(bisect_left(times, a), bisect_left(times, b)))
        if b < a:
            return list(range(bisect_right(times, a) - 1, bisect_right(times, b) - 1, -1))
        return []
    end = f32(run.duration)
    everything = list(range(len(times)))
    if wraps > 0:
        out = list(range(bisect_left(times, a), bisect_right(times, end)))
        if wraps > 1:
            out += everything
        return out + list(range(0, bisect_left(times, b)))
    out = list(range(bisect_right(times, a) - 1, -1, -1))
    if wraps < -1:
        out += everything[::-1]
    return out + list(range(len(times) - 1, bisect_right(times, b) - 1, -1))


def advance(run, old: float, step: float):
    """A playhead moved by a step under the node's loop mode: (new, wraps)."""
    d = run.duration
    t = old + step
    if not run.repeat or d <= 0:
        return (0.0 if t < 0 else d if t > d else t), 0
    if 0.0 <= t < d:
        return t, 0
    wraps = math.floor(t / d)
    t -= wraps * d
    if not 0.0 <= t < d:        # rounding at the period's edge
        t = 0.0
    return t, int(wraps)


def place(run, t: float) -> float:
    """A time put on the clip: wrapped for a repeating node, clamped otherwise."""
    d = run.duration
    if run.repeat and d > 0:
        t = math.fmod(t, d)
        if t < 0:
            t += d
        return t if t < d else 0.0
    return 0.0 if t < 0 else d if t > d else t


def marker_phase(run, t: float):
    """Where a playhead is between the clip's sync markers: (name, fraction), or None for a
    clip without markers."""
    times = run.marker_times
    if not times:
        return None
    d = run.duration
    k = bisect_right(times, t) - 1
    if k < 0:
        k = len(times) - 1
        start = times[k] - d
    else:
        start = times[k]
    end = times[k + 1] if k + 1 < len(times) else times[0] + d
    span = end - start
    return run.marker_names[k], ((t - start) / span if span > 0 else 0.0)


def follow(leader, follower, t: float) -> float:
    """A follower's playhead for a leader's: at the same fraction between markers of the same
    names where both have them, else at the same fraction of their durations."""
    phase = marker_phase(leader, t)
    if phase is not None and follower.marker_times:
        name, frac = phase
        names = follower.marker_names
        if name in names:
            j = names.index(name)
            times = follower.marker_times
            start = times[j]
            end = times[j + 1] if j + 1 < len(times) else times[0] + follower.duration
            return place(follower, start + frac * (end - start))
    if leader.duration <= 0:
        return place(follower, 0.0)
    return place(follower, t / leader.duration * follower.duration)
