"""The graph's pose arithmetic: sampling, blending, adding differences, inertialization.

Poses here are component-major: (10, lanes, bones), a lane being one instance (an
evaluation of one instance is a batch of one). Each of a transform's ten numbers is then a
contiguous (lanes, bones) plane, so a quaternion's sums run over four planes instead of
along rows of four, which numpy does many times faster over a batch. Weights broadcast
against (lanes, bones): (lanes, 1) for a node's share, (lanes, bones) per bone.

Every kernel is elementwise over lanes and bones, summing only over a transform's own
components and over a node's inputs, in order; so any number of instances and any subset
of bones compute each bone of each instance with the same operations in the same order:
they agree bit for bit.

The formulas are blend.py's (blend_poses, add_layers), in binary32: a blend's translations
and scales are weighted sums, its rotations summed each on the arc that agrees with the sum
so far, then normalized; a difference adds t + w d_t, r nlerp(1, d_r, w) (the short way),
s (1 + w (d_s - 1)). A clip's two samples are interpolated as clip.py's batched path does,
the nlerp's length taken from the samples' dot products.
"""
from __future__ import annotations

import math

import numpy as np

_ADD = np.add.reduce
_ONE = np.float32(1.0)
NEAR = np.float32(0.70711)     # cos 45 degrees and a little: two within it of a third agree
# the Hamilton product a * b, xyzw: component c is the sum over terms t of
# a[A[t]] * b[B[t][c]] * SIGN[t][c]
_A = np.array([3, 0, 1, 2])
_B = np.array([[0, 1, 2, 3], [3, 2, 1, 0], [2, 3, 0, 1], [1, 0, 3, 2]])
_SIGN = np.array([[1, 1, 1, 1], [1, -1, 1, -1], [1, 1, -1, -1], [-1, 1, 1, -1]], dtype=np.float32)
_CONJ = np.array([-1, -1, -1, 1], dtype=np.float32)


def soa(aos: np.ndarray) -> np.ndarray:
    """(..., 10) rows as a contiguous (10, ...) array."""
    return np.ascontiguousarray(np.moveaxis(aos, -1, 0))


def qmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton products of (4, ...) quaternions, elementwise."""
    terms = a[_A][:, None] * b[_B]
    terms *= _SIGN.reshape(_SIGN.shape + (1,) * (a.ndim - 1))
    return _ADD(terms, axis=0)


def unit(q: np.ndarray) -> np.ndarray:
    """(4, ...) quaternions divided by their lengths, in place."""
    q /= np.sqrt(_ADD(q * q, axis=0))
    return q


def sample(a: np.ndarray, b: np.ndarray, dots: np.ndarray, factors: np.ndarray) -> np.ndarray:
    """(10, lanes, rows) sample rows a and b interpolated; `dots` (lanes, rows) are the two
    samples' rotations' dot products, `factors` (lanes, 3) each lane's fraction f,
    c = 2 f (1 - f) and 1 - c (so |a + f (b - a)|^2 = 1 - c (1 - a.b) for unit a and b)."""
    out = b - a
    out *= factors[:, 0, None]
    out += a
    length = dots * factors[:, 1, None]
    length += factors[:, 2, None]
    np.sqrt(length, out=length)
    out[3:7] /= length
    return out


def segments(t: np.ndarray, rate: np.ndarray, duration: np.ndarray, last: np.ndarray):
    """clip.segment over arrays of times, each with its clip's rate, duration and last
    sample: the two samples around each time and how far from the first to the second,
    worked out with segment's own operations in its order (so each equals what segment
    gives). NaN is 0; times clamp to the clip."""
    t = np.nan_to_num(t, nan=0.0)
    inside = (t > 0.0) & (t < duration) & (last > 0)
    tt = np.where(inside, t, 0.0)
    i = np.minimum(np.floor(tt * rate).astype(np.intp), np.maximum(last - 1, 0))
    ahead = i + 1 < last
    t1 = np.where(ahead, (i + 1) / rate, duration)
    i += (tt >= t1) & ahead
    ahead = i + 1 < last
    t1 = np.where(ahead, (i + 1) / rate, duration)
    t0 = i / rate
    with np.errstate(all="ignore"):
        f = np.clip((tt - t0) / (t1 - t0), 0.0, 1.0)
    end = ~inside & (t > 0.0) & (last > 0)             # at or past the end
    i = np.where(inside, i, np.where(end, last - 1, 0))
    j = np.where(last > 0, i + 1, 0)
    f = np.where(inside, f, np.where(end, 1.0, 0.0))
    return i, j, f


def factors(fractions) -> np.ndarray:
    """sample()'s per-lane factors from the lanes' fractions (binary64, then stored)."""
    f = np.asarray(fractions, dtype=np.float64)
    out = np.empty((f.size, 3), dtype=np.float32)
    c = 2.0 * f * (1.0 - f)
    out[:, 0] = f
    out[:, 1] = c
    out[:, 2] = 1.0 - c
    return out


def blend(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(inputs, 10, lanes, rows) values blended by (inputs, 1, lanes, rows or 1) weights that
    sum to 1 for every lane and row: (10, lanes, rows).

    Each rotation joins on the arc that agrees with the sum of those before it. When every
    input's rotation lies within a right angle (3D) of the first's, no two disagree, every
    sign is +, and the plain weighted sum already is that sum, term by term in the same
    order; so the loop over inputs runs only when some rotation lies farther."""
    acc = _ADD(values * weights, axis=0)
    if values.shape[0] > 1:
        q = values[:, 3:7]
        if (_ADD(q[1:] * q[0], axis=1) < NEAR).any():
            total = q[0] * weights[0]
            for v, w in zip(q[1:], weights[1:]):
                agree = _ADD(total * v, axis=0, initial=0.0)        # -0 agrees
                total += v * np.copysign(w[0], agree)
            acc[3:7] = total
    unit(acc[3:7])
    return acc


def add(base: np.ndarray, d: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Differences d added onto poses at (lanes, 1) weights w (0 to 1)."""
    out = d * w
    out[0:3] += base[0:3]
    turn = out[3:7] * np.copysign(_ONE, d[6])
    turn[3] += 1.0 - w
    out[3:7] = unit(qmul(base[3:7], turn))
    out[7:10] += 1.0 - w
    out[7:10] *= base[7:10]
    return out


# ---- inertialization ---------------------------------------------------------------------------------
def log_rotations(q: np.ndarray) -> np.ndarray:
    """(4, ...) unit quaternions to (3, ...) rotation vectors (axis times angle), the short way."""
    q = q * np.where(q[3] < 0, -1.0, 1.0).astype(np.float32)
    v = q[0:3]
    s = np.sqrt(_ADD(v * v, axis=0))
    angle = 2.0 * np.arctan2(s, q[3])
    small = s <= 1e-12
    scale = np.where(small, 2.0, angle / np.where(small, 1.0, s)).astype(np.float32)
    return v * scale


def exp_rotations(r: np.ndarray) -> np.ndarray:
    """(3, ...) rotation vectors to (4, ...) unit quaternions."""
    angle = np.sqrt(_ADD(r * r, axis=0))
    half = 0.5 * angle
    small = angle <= 1e-12
    scale = np.where(small, 0.5, np.sin(half) / np.where(small, 1.0, angle)).astype(np.float32)
    out = np.empty((4,) + r.shape[1:], dtype=np.float32)
    out[0:3] = r * scale
    out[3] = np.cos(half)
    return out


def difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """What takes poses b to poses a, as (10, ...): translation and scale a - b, the
    rotation vector of a_r b_r^-1 in rows 3:6 (row 6 zero)."""
    out = a - b
    out[3:6] = log_rotations(qmul(a[3:7], b[3:7] * _CONJ.reshape((4,) + (1,) * (a.ndim - 1))))
    out[6] = 0.0
    return out


def apply(target: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """A difference (as `difference` makes it) put onto poses: target + offset."""
    out = target + offset
    out[3:7] = unit(qmul(exp_rotations(offset[3:6]), target[3:7]))
    return out


def quintic(t: float, duration: float) -> tuple[float, float]:
    """The coefficients (of the offset, of its velocity) an inertialization's offset has t
    seconds into its duration: the quintic from (x0, v0, no acceleration) to rest, nothing
    left of either at the end."""
    if duration <= 0 or t >= duration:
        return 0.0, 0.0
    s = t / duration
    s3 = s * s * s
    return (1.0 - 10.0 * s3 + 15.0 * s3 * s - 6.0 * s3 * s * s,
            duration * (s - 6.0 * s3 + 8.0 * s3 * s - 3.0 * s3 * s * s))


def decayed(t: float, half_life: float) -> float:
    """How far a velocity that halves every half_life carries in t seconds."""
    return half_life / math.log(2.0) * (1.0 - 2.0 ** (-t / half_life))
