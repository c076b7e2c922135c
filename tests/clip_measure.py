"""The independent measurement of a compressed clip, which the compression tests and the
benchmark share: each clip sampled through the runtime, composed to model space in binary64
by a loop of its own, and the six virtual vertices at the shell distance on each bone's axes
compared with the full clip's."""
from __future__ import annotations

import numpy as np

import runtime as rt


def models(parents: np.ndarray, locals_: np.ndarray) -> np.ndarray:
    """(m, n, 10) locals to (m, n, 3, 4) model affines in binary64: parent times the local's
    [R(q) diag(s) | t], R the quaternion's homogeneous rotation matrix as a pose composes it
    (|q|^2 standing in for 1, so a rotation a rounding off unit length counts as it plays)."""
    m, n = locals_.shape[:2]
    x = locals_.astype(np.float64)
    q = x[..., 3:7]
    i, j, k, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    ii, jj, kk, ww = i * i, j * j, k * k, w * w
    r = np.stack([np.stack([ww + ii - jj - kk, 2 * (i * j - k * w), 2 * (i * k + j * w)], -1),
                  np.stack([2 * (i * j + k * w), ww - ii + jj - kk, 2 * (j * k - i * w)], -1),
                  np.stack([2 * (i * k - j * w), 2 * (j * k + i * w), ww - ii - jj + kk], -1)], -2)
    local = np.concatenate([r * x[..., None, 7:10], x[..., 0:3, None]], axis=-1)
    out = np.empty((m, n, 3, 4))
    for b in range(n):
        p = int(parents[b])
        if p < n:
            out[:, b, :, :3] = out[:, p, :, :3] @ local[:, b, :, :3]
            out[:, b, :, 3] = np.einsum("mij,mj->mi", out[:, p, :, :3], local[:, b, :, 3]) + out[:, p, :, 3]
        else:
            out[:, b] = local[:, b]
    return out


def shell_errors(a: np.ndarray, b: np.ndarray, d: float) -> np.ndarray:
    """(m, n): the largest distance between the six vertices at +-d on each bone's axes."""
    worst = np.zeros(a.shape[:2])
    for axis in range(3):
        for sign in (-d, d):
            v = np.zeros(4)
            v[axis], v[3] = sign, 1.0
            worst = np.maximum(worst, np.linalg.norm((a - b) @ v, axis=-1))
    return worst


def poses_at(clip, skeleton, times) -> np.ndarray:
    pose = rt.Pose(skeleton)
    out = np.empty((len(times), skeleton.bone_count, 10), dtype=np.float32)
    for k, t in enumerate(times):
        clip.sample(skeleton, t, pose)
        out[k] = pose.locals
    return out


def measure(full, packed, skeleton, d, times) -> np.ndarray:
    """(m, n) shell errors of the compressed clip against the full one at the times."""
    return shell_errors(models(skeleton.parents, poses_at(packed, skeleton, times)),
                        models(skeleton.parents, poses_at(full, skeleton, times)), d)
