"""Transforms, quaternions and affines over arrays.

A transform is ten floats: translation x y z, rotation quaternion x y z w, scale x y z. An
affine is 3 rows of 4: the rotation-scale block, then the translation column. Every
function here works on any leading shape, so one call serves a bone, a pose or a batch.
"""
from __future__ import annotations

import numpy as np

from . import args

T, R, S = slice(0, 3), slice(3, 7), slice(7, 10)
IDENTITY = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], dtype=np.float32)
IDENTITY_AFFINE = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], dtype=np.float32)

# The Hamilton product is bilinear: as a (16, 4) matrix over the outer product a b^T it is
# one outer product and one matmul, whatever the leading shape.
QUAT_PRODUCT = np.zeros((16, 4))
for _k, _terms in enumerate((
        ((3, 0, 1), (0, 3, 1), (1, 2, 1), (2, 1, -1)),
        ((3, 1, 1), (0, 2, -1), (1, 3, 1), (2, 0, 1)),
        ((3, 2, 1), (0, 1, 1), (1, 0, -1), (2, 3, 1)),
        ((3, 3, 1), (0, 0, -1), (1, 1, -1), (2, 2, -1)))):
    for _i, _j, _sign in _terms:
        QUAT_PRODUCT[_i * 4 + _j, _k] = _sign
del _k, _terms, _i, _j, _sign


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a * b (apply b, then a), xyzw, in the inputs' precision."""
    outer = a[..., :, None] * b[..., None, :]
    return np.matmul(outer.reshape(outer.shape[:-2] + (16,)), QUAT_PRODUCT.astype(outer.dtype, copy=False))


def quat_conj(q: np.ndarray) -> np.ndarray:
    return q * np.array([-1, -1, -1, 1], dtype=q.dtype)


def quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotates vectors by unit quaternions: v + 2 w (u x v) + 2 u x (u x v)."""
    u, w = q[..., :3], q[..., 3:4]
    c = 2.0 * np.cross(u, v)
    return v + w * c + np.cross(u, c)


def quats_from_matrices(m: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotation matrices to unit quaternions with w >= 0 (Shepperd's method)."""
    m = np.asarray(m, dtype=np.float64)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    trace = m00 + m11 + m22
    # four candidate solutions, each well conditioned where its divisor is largest
    cand = np.stack([
        np.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                  m[..., 1, 0] - m[..., 0, 1], 1 + trace], -1),
        np.stack([1 + m00 - m11 - m22, m[..., 0, 1] + m[..., 1, 0],
                  m[..., 0, 2] + m[..., 2, 0], m[..., 2, 1] - m[..., 1, 2]], -1),
        np.stack([m[..., 0, 1] + m[..., 1, 0], 1 - m00 + m11 - m22,
                  m[..., 1, 2] + m[..., 2, 1], m[..., 0, 2] - m[..., 2, 0]], -1),
        np.stack([m[..., 0, 2] + m[..., 2, 0], m[..., 1, 2] + m[..., 2, 1],
                  1 - m00 - m11 + m22, m[..., 1, 0] - m[..., 0, 1]], -1),
    ], -2)
    pick = np.argmax(np.stack([trace, m00, m11, m22], -1), axis=-1)
    q = np.take_along_axis(cand, pick[..., None, None], axis=-2)[..., 0, :]
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    q *= np.where(q[..., 3:4] < 0, -1.0, 1.0)
    return q


def decompose_affine(matrix) -> np.ndarray:
    """maniDecomposeAffine: (3, 4) to a transform.

    Translation is the fourth column; rotation the polar decomposition's (the rotation
    nearest the block, exact for a shear-free block), from an SVD in binary64 so a zero or
    flat axis still leaves a rotation made of the axes that remain; a mirror becomes a
    negative x scale; scale is the block measured along the rotated axes. The matrix is
    binary32 (a component past that range, or not finite, is refused); a scale past the
    binary32 range comes out infinite, the IEEE result.
    """
    m = args.floats(matrix, (3, 4), "matrix").astype(np.float64)
    block = m[:, :3].copy()
    mirrored = np.linalg.det(block) < 0
    if mirrored:
        block[:, 0] = -block[:, 0]
    u, _, vt = np.linalg.svd(block)
    rot = u @ vt
    if np.linalg.det(rot) < 0:
        # a flat block: the smallest singular direction may come out reflected
        u[:, 2] = -u[:, 2]
        rot = u @ vt
    scale = np.einsum("ij,ij->j", rot, block)
    if mirrored:
        scale[0] = -scale[0]
    out = np.empty(10, dtype=np.float32)
    out[T] = m[:, 3]
    out[R] = quats_from_matrices(rot)
    with np.errstate(over="ignore"):
        out[S] = scale
    return out
