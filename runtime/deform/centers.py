"""Centers of rotation, offline (Le and Hodgins 2016, "Real-time Skeletal Skinning with
Optimized Centers of Rotation", Eq. 4), in binary64:

    c_i = sum_t s(w_i, w_t) a_t v_t / sum_t s(w_i, w_t) a_t
    s(w_p, w_q) = sum_{j != k} w_pj w_pk w_qj w_qk exp(-(w_pj w_qk - w_pk w_qj)^2 / sigma^2)

over the mesh's triangles t: area a_t, centroid v_t, w_t the mean of its corners' weights.
A term is nonzero only where both joints j and k weigh on the vertex and on the triangle,
so the work goes joint pair by joint pair: the vertices weighting both, against the
triangles weighting both, one bounded (vertices x triangles) block at a time. Never a loop
per vertex; a loop per joint pair and per block.
"""
from __future__ import annotations

import numpy as np

BLOCK_ELEMENTS = 1 << 20      # vertex x triangle terms a block holds


def centers_of_rotation(positions: np.ndarray, triangles: np.ndarray, joints: np.ndarray,
                        weights: np.ndarray, joint_count: int, sigma: float) -> np.ndarray:
    """(n, 3) centers; `joints` and `weights` are (k, n) slots, unweighted slots at 0. A
    vertex similar to no triangle keeps its position."""
    centers = positions.copy()
    if triangles.shape[0] == 0:
        return centers
    pair_key, pair_vertex, a1, a2 = _vertex_pairs(joints, weights, joint_count)
    tri_key, tri_index, b1, b2 = _triangle_pairs(triangles, joints, weights, joint_count)
    corners = positions[triangles]                                    # (t, 3, 3)
    area = 0.5 * np.linalg.norm(np.cross(corners[:, 1] - corners[:, 0],
                                         corners[:, 2] - corners[:, 0]), axis=1)
    payload = np.empty((triangles.shape[0], 4))
    payload[:, :3] = corners.mean(axis=1) * area[:, None]
    payload[:, 3] = area
    total = np.zeros((positions.shape[0], 4))
    v_order = np.argsort(pair_key, kind="stable")
    t_order = np.argsort(tri_key, kind="stable")
    v_keys, t_keys = pair_key[v_order], tri_key[t_order]
    for key in np.intersect1d(v_keys, t_keys):
        vs = v_order[np.searchsorted(v_keys, key):np.searchsorted(v_keys, key, side="right")]
        ts = t_order[np.searchsorted(t_keys, key):np.searchsorted(t_keys, key, side="right")]
        tb1, tb2 = b1[ts], b2[ts]
        tprod = tb1 * tb2
        rows = max(1, BLOCK_ELEMENTS // ts.size)
        for start in range(0, vs.size, rows):
            part = vs[start:start + rows]
            va1, va2 = a1[part][:, None], a2[part][:, None]
            d = va1 * tb2[None, :] - va2 * tb1[None, :]
            if sigma > 0:
                kernel = np.exp(-(d * d) / (sigma * sigma))
            else:
                kernel = (d == 0).astype(np.float64)
            s = (va1 * va2) * tprod[None, :] * kernel
            # each unordered pair stands for (j, k) and (k, j)
            total[pair_vertex[part]] += 2.0 * (s @ payload[tri_index[ts]])
    similar = total[:, 3] > 0
    centers[similar] = total[similar, :3] / total[similar, 3:4]
    return centers


def _vertex_pairs(joints, weights, joint_count):
    """Each vertex's unordered pairs of weighted joints: key j1 * J + j2 (j1 < j2), the
    vertex, and the weights on j1 and j2."""
    k = joints.shape[0]
    keys, verts, first, second = [], [], [], []
    for s1 in range(k):
        for s2 in range(s1 + 1, k):
            v = np.flatnonzero((weights[s1] > 0) & (weights[s2] > 0))
            if not v.size:
                continue
            ja, jb = joints[s1, v], joints[s2, v]
            wa, wb = weights[s1, v], weights[s2, v]
            low = ja < jb
            keys.append(np.where(low, ja, jb) * joint_count + np.where(low, jb, ja))
            verts.append(v)
            first.append(np.where(low, wa, wb))
            second.append(np.where(low, wb, wa))
    if not keys:
        empty = np.zeros(0)
        return empty.astype(np.int64), empty.astype(np.int64), empty, empty
    return (np.concatenate(keys), np.concatenate(verts), np.concatenate(first),
            np.concatenate(second))


def _triangle_pairs(triangles, joints, weights, joint_count):
    """Each triangle's unordered pairs of joints its mean weights name: key, the triangle,
    and the mean weights on j1 and j2."""
    t_count = triangles.shape[0]
    k = joints.shape[0]
    tri, joint, value = [], [], []
    for corner in range(3):
        verts = triangles[:, corner]
        for s in range(k):
            w = weights[s, verts]
            live = np.flatnonzero(w > 0)
            tri.append(live)
            joint.append(joints[s, verts[live]])
            value.append(w[live])
    tri, joint, value = np.concatenate(tri), np.concatenate(joint), np.concatenate(value)
    unique, inverse = np.unique(tri * joint_count + joint, return_inverse=True)
    mean = np.bincount(inverse, weights=value, minlength=unique.size) / 3.0
    owner = unique // joint_count
    joint = unique % joint_count
    # pairs within each triangle's run of entries (sorted by triangle, then joint)
    starts = np.searchsorted(owner, np.arange(t_count))
    sizes = np.diff(np.append(starts, unique.size))
    place = np.arange(unique.size) - starts[owner]
    partners = sizes[owner] - 1 - place
    first = np.repeat(np.arange(unique.size), partners)
    lead = np.repeat(np.cumsum(partners) - partners, partners)
    second = first + 1 + (np.arange(first.size) - lead)
    return (joint[first] * joint_count + joint[second], owner[first], mean[first], mean[second])
