"""The clip package's compiled code (runtime.core.jit): the search of the sample grid, and a
root-motion move at a time, composed, inverted and raised to a power.

The clip's sampling and root motion call these from Python, the graph's evaluation and update
from its kernels, so a clip and a graph find the same samples and the same moves bit for bit.

Moves are 7-tuples of binary64 (tx, ty, tz, qx, qy, qz, qw); composing (t1, r1) then (t2, r2)
gives (t1 + r1 t2, r1 r2). Every rotation a lerp or a product makes is normalized, and one of
length 0 (or not finite) becomes the identity: the rotation of the move of no motion, as a
blend of nothing gives it (rootmotion.h).
"""
from __future__ import annotations

import math

import numpy as np

from ..core.jit import kernel

NO_MOTION = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)


# ---- the grid ------------------------------------------------------------------------------------
@kernel
def segment(t, rate, duration, last):
    """The samples around a time on a clip's grid (sample k at k / rate for k < last, sample
    `last` at the duration), and how far from the first to the second, 0 to 1. A time at or
    below 0 (NaN too) gives (0, 1, 0), one at or past the duration (last - 1, last, 1), a time
    on the grid its own sample with 0; a clip of one sample (last 0) gives (0, 0, 0)."""
    if not last:
        return 0, 0, 0.0
    if not t > 0.0:
        return 0, 1, 0.0
    if t >= duration:
        return last - 1, last, 1.0
    i = int(t * rate)               # the product may round across a grid time either way:
    if i >= last:
        i = last - 1
    if i > 0 and t < i / rate:      # a time just below sample i's
        i -= 1
    t1 = (i + 1) / rate if i + 1 < last else duration
    if t >= t1:                     # a time at or just past sample i + 1's (never the last's)
        i += 1
        t1 = (i + 1) / rate if i + 1 < last else duration
    t0 = i / rate
    return i, i + 1, (t - t0) / (t1 - t0)


@kernel
def segments(times, rate, duration, last, first, second, fraction):
    """segment() at each of `times`, into first, second and fraction (binary32)."""
    for k in range(times.size):
        i, j, f = segment(times[k], rate, duration, last)
        first[k] = i
        second[k] = j
        fraction[k] = f


# ---- moves ----------------------------------------------------------------------------------------
@kernel(inner=True)
def _move(tx, ty, tz, qx, qy, qz, qw):
    """A move with its rotation normalized (the identity for one of length 0)."""
    n = math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
    if not n > 0:
        return (tx, ty, tz, 0.0, 0.0, 0.0, 1.0)
    return (tx, ty, tz, qx / n, qy / n, qz / n, qw / n)


@kernel(inner=True)
def _lerp(a, b, f):
    """a + f (b - a) in binary64 (np.float64: numba's float() keeps a binary32 one)."""
    x = np.float64(a)
    return x + f * (np.float64(b) - x)


@kernel
def move_at(moves, at, rate, duration, last, t):
    """The move at a clip time from a clip's moves (one row of 7 a sample, from row `at` on):
    the two samples' moves around it interpolated as sampling interpolates a bone (lerp, then
    the rotation normalized), in binary64 whatever the rows' type."""
    i, j, f = segment(t, rate, duration, last)
    a, b = moves[at + i], moves[at + j]
    return _move(_lerp(a[0], b[0], f), _lerp(a[1], b[1], f), _lerp(a[2], b[2], f),
                 _lerp(a[3], b[3], f), _lerp(a[4], b[4], f), _lerp(a[5], b[5], f),
                 _lerp(a[6], b[6], f))


@kernel
def moves_at(moves, rate, duration, last, times, out):
    """move_at at each of `times`, into the rows of out (binary64)."""
    for k in range(times.size):
        m = move_at(moves, 0, rate, duration, last, times[k])
        for c in range(7):
            out[k, c] = m[c]


@kernel
def compose_moves(a, b):
    """a, then b from where a ends: (t_a + r_a t_b, r_a r_b)."""
    ax, ay, az, qx, qy, qz, qw = a
    bx, by, bz, rx, ry, rz, rw = b
    cx, cy, cz = 2 * (qy * bz - qz * by), 2 * (qz * bx - qx * bz), 2 * (qx * by - qy * bx)
    return _move(ax + bx + qw * cx + qy * cz - qz * cy, ay + by + qw * cy + qz * cx - qx * cz,
                 az + bz + qw * cz + qx * cy - qy * cx,
                 qw * rx + qx * rw + qy * rz - qz * ry, qw * ry - qx * rz + qy * rw + qz * rx,
                 qw * rz + qx * ry - qy * rx + qz * rw, qw * rw - qx * rx - qy * ry - qz * rz)


@kernel
def inverse_move(a):
    """The move undoing a."""
    tx, ty, tz, qx, qy, qz, qw = a
    t = compose_moves((0.0, 0.0, 0.0, -qx, -qy, -qz, qw), (tx, ty, tz, 0.0, 0.0, 0.0, 1.0))
    return (-t[0], -t[1], -t[2], -qx, -qy, -qz, qw)


@kernel
def power_move(move, n):
    """move composed with itself n times, n a whole binary64 number (maybe negative, maybe
    past any integer type), by squaring."""
    if n < 0:
        move, n = inverse_move(move), -n
    result = NO_MOTION
    while n:
        if np.fmod(n, 2.0):
            result = compose_moves(result, move)
        n = np.floor(n / 2.0)
        if n:
            move = compose_moves(move, move)
    return result
