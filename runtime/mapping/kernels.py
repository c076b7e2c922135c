"""Mirroring's compiled loop and the quaternion arithmetic the builder shares with it.

The kernel works in binary64 and rounds once into the pose's binary32, so a mirror whose
corrections are identities (a rig whose partners' reference axes are mirror images) moves no
bit but signs, and mirroring twice gives the pose back bit for bit; with other corrections
each pass rounds once.
"""
from __future__ import annotations

import numpy as np

from ..core.jit import kernel


def qmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton products a b of (..., 4) x y z w quaternions, binary64."""
    ax, ay, az, aw = np.moveaxis(np.asarray(a, dtype=np.float64), -1, 0)
    bx, by, bz, bw = np.moveaxis(np.asarray(b, dtype=np.float64), -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def qconj(q: np.ndarray) -> np.ndarray:
    return np.asarray(q, dtype=np.float64) * np.array([-1.0, -1.0, -1.0, 1.0])


def qmirror(q: np.ndarray, axis: int) -> np.ndarray:
    """The turn M R M makes of R, M the reflection across the plane normal to `axis`: the
    component along the normal kept, the other two negated."""
    sign = -np.ones(4)
    sign[axis] = 1.0
    sign[3] = 1.0
    return np.asarray(q, dtype=np.float64) * sign


def qmatrix(q: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotation matrices of unit quaternions."""
    x, y, z, w = np.moveaxis(np.asarray(q, dtype=np.float64), -1, 0)
    return np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                     2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                     2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
                    axis=-1).reshape(np.shape(x) + (3, 3))


@kernel
def mirror_locals(bones, turns, axis, src, out):
    """Each bone b from its partner p's local: translation with the normal's component
    negated, turned by E_b; rotation E_b m(q_p) C_b; scale axis i from p's axis a_i.
    bones (n, 4) int64: p, a_0, a_1, a_2; turns (n, 8) binary64: C_b, then E_b. `src` and
    `out` are distinct (n, 10) binary32 arrays."""
    for b in range(out.shape[0]):
        p = bones[b, 0]
        tx, ty, tz = np.float64(src[p, 0]), np.float64(src[p, 1]), np.float64(src[p, 2])
        qx, qy, qz, qw = (np.float64(src[p, 3]), np.float64(src[p, 4]),
                          np.float64(src[p, 5]), np.float64(src[p, 6]))
        if axis == 0:
            tx = -tx
            qy = -qy
            qz = -qz
        elif axis == 1:
            ty = -ty
            qx = -qx
            qz = -qz
        else:
            tz = -tz
            qx = -qx
            qy = -qy
        ex, ey, ez, ew = turns[b, 4], turns[b, 5], turns[b, 6], turns[b, 7]
        # t' = E t E*: t + 2 e x (e x t + w t)
        cx = ey * tz - ez * ty + ew * tx
        cy = ez * tx - ex * tz + ew * ty
        cz = ex * ty - ey * tx + ew * tz
        out[b, 0] = tx + 2.0 * (ey * cz - ez * cy)
        out[b, 1] = ty + 2.0 * (ez * cx - ex * cz)
        out[b, 2] = tz + 2.0 * (ex * cy - ey * cx)
        # E m(q)
        mx = ew * qx + ex * qw + ey * qz - ez * qy
        my = ew * qy - ex * qz + ey * qw + ez * qx
        mz = ew * qz + ex * qy - ey * qx + ez * qw
        mw = ew * qw - ex * qx - ey * qy - ez * qz
        # (E m(q)) C
        cx, cy, cz, cw = turns[b, 0], turns[b, 1], turns[b, 2], turns[b, 3]
        out[b, 3] = mw * cx + mx * cw + my * cz - mz * cy
        out[b, 4] = mw * cy - mx * cz + my * cw + mz * cx
        out[b, 5] = mw * cz + mx * cy - my * cx + mz * cw
        out[b, 6] = mw * cw - mx * cx - my * cy - mz * cz
        out[b, 7] = src[p, 7 + bones[b, 1]]
        out[b, 8] = src[p, 7 + bones[b, 2]]
        out[b, 9] = src[p, 7 + bones[b, 3]]
