"""Transforms as glTF gives them (binary64): node locals as TRS or matrices, matrices
decomposed back into TRS, and the options' basis change applied to each kind of value."""
from __future__ import annotations

import numpy as np

from ..common import ImportFormatError, ImportReason
from .document import Gltf, GltfOptions

SHEAR_TOLERANCE = 1e-4          # a matrix's columns, scale divided out, orthonormal within this


def quat_matrix(q: np.ndarray) -> np.ndarray:
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def matrix_quat(m: np.ndarray) -> np.ndarray:
    """The unit quaternion (x y z w) of a rotation matrix (Shepperd's branches)."""
    t = np.trace(m)
    if t > 0:
        s = 2.0 * np.sqrt(t + 1.0)
        q = [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4]
    else:
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(max(1.0 + m[i, i] - m[j, j] - m[k, k], 0.0))
        q = [0.0] * 4
        q[i] = s / 4
        q[j] = (m[j, i] + m[i, j]) / s
        q[k] = (m[k, i] + m[i, k]) / s
        q[3] = (m[k, j] - m[j, k]) / s
    q = np.asarray(q)
    return q / np.linalg.norm(q)


def trs_matrix(t, q, s) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = quat_matrix(np.asarray(q, dtype=np.float64)) * np.asarray(s, dtype=np.float64)
    m[:3, 3] = t
    return m


def local_matrix(doc: Gltf, node: int) -> np.ndarray:
    n = doc.nodes[node]
    return n.matrix.copy() if n.matrix is not None else trs_matrix(n.translation, n.rotation,
                                                                    n.scale)


def decompose(m: np.ndarray, node: int, at: int, what: str):
    """(t, q, s) of a 4x4 affine; Matrix for one that is not affine, not invertible with a
    positive determinant, or sheared."""
    if not np.isfinite(m).all() or np.abs(m[3] - [0, 0, 0, 1]).max() > 1e-6:
        raise ImportFormatError(f"{what}: node {node}'s matrix is not affine",
                                ImportReason.Matrix, offset=at, item=node)
    a = m[:3, :3]
    s = np.linalg.norm(a, axis=0)
    if not (s > 1e-12).all() or np.linalg.det(a) <= 0:
        raise ImportFormatError(f"{what}: node {node}'s matrix is singular or mirrors",
                                ImportReason.Matrix, offset=at, item=node)
    r = a / s
    if np.abs(r.T @ r - np.eye(3)).max() > SHEAR_TOLERANCE:
        raise ImportFormatError(f"{what}: node {node}'s matrix shears", ImportReason.Matrix,
                                offset=at, item=node)
    return m[:3, 3].copy(), matrix_quat(r), s


def local_trs(doc: Gltf, node: int, what: str):
    n = doc.nodes[node]
    if n.matrix is None:
        return n.translation.copy(), n.rotation.copy(), n.scale.copy()
    return decompose(n.matrix, node, n.at, what)


def above(doc: Gltf, node: int) -> np.ndarray:
    """The product of the locals of the nodes above `node`, top first."""
    m = np.eye(4)
    p = doc.nodes[node].parent
    while p != -1:
        m = local_matrix(doc, p) @ m
        p = doc.nodes[p].parent
    return m


# ---- the basis change: every value conjugated by C = unit * turn
def points(options: GltfOptions, p: np.ndarray) -> np.ndarray:
    """Positions and translations (..., 3)."""
    return (p @ options.turn.T) * options.unit


def directions(options: GltfOptions, d: np.ndarray) -> np.ndarray:
    return d @ options.turn.T


def rotations(options: GltfOptions, q: np.ndarray) -> np.ndarray:
    """Quaternions (..., 4): the turn conjugates a rotation by turning its axis."""
    out = np.array(q, dtype=np.float64, copy=True)
    out[..., :3] = q[..., :3] @ options.turn.T
    return out


def scales(options: GltfOptions, s: np.ndarray) -> np.ndarray:
    return s @ np.abs(options.turn).T


def matrix(options: GltfOptions, m: np.ndarray) -> np.ndarray:
    """A 4x4 affine conjugated: C m C^-1."""
    out = m.copy()
    turn = options.turn
    out[:3, :3] = turn @ m[:3, :3] @ turn.T
    out[:3, 3] = turn @ m[:3, 3] * options.unit
    return out
