"""Skinning: meshes following poses by linear blend, dual quaternion, blended and centers of
rotation skinning, in jobs over the caller's vertex buffers.

A job names a vertex range of one influences file and its streams: positions, normals and
directions (tangents, bitangents), each a source and a target (vertices, 3) float32 array
of any row stride, so a target can be three columns of the interleaved vertex buffer a
renderer uploads. Rows are vertex indices: a job over [first, first + count) reads and
writes those rows. A target may be its own source (skinning in place); a chunk's sources
are all read before any of its targets is written.

Work goes in chunks of up to CHUNK vertices laid out component by component (a contiguous
row per component), where numpy's elementwise loops run fastest. Every per-vertex step is
an elementwise ufunc, whose bits do not depend on where in an array a value sits, and the
blends of dense blocks always cover whole blocks (influence_plan), so jobs over disjoint
ranges give the same bits as one job over all.

Every method makes each vertex's affine M = [A | t], then applies it:
- linear: the weighted sum of its joints' palette matrices;
- dual quaternion, in two phases (Kavan et al. 2008): S the weighted sum of the joints'
  scale-and-shear parts, (q, d) their dual quaternions summed in the hemisphere of the first
  joint's and normalized: A = R(q) S and t the dual part's translation;
- blended (FBX): (1 - b) M_linear + b M_dual, exactly one of the two where b is 0 or 1;
- centers of rotation (Le and Hodgins 2016): A = R(q) S and t = sum w_j (R_j S c + t_j) -
  R S c, c the vertex's center, so v' = R (S v - S c) + sum w_j (R_j S c + t_j).
Positions become A v + t and directions A d; normals take A's cofactor times the sign of
its determinant (the inverse transpose's direction, without dividing by it); directions and
normals are renormalized, zero where they collapse. A vertex without weight is copied.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Sequence

import numpy as np

from .errors import InvalidError
from .influence_plan import BLOCK
from .influences import Influences
from .scratch import Scratch, thread_scratch, vertex_range
from .transform import quats_from_matrices, quat_mul

CHUNK_BLOCKS = 8
CHUNK = CHUNK_BLOCKS * BLOCK
COLLAPSE = 1e-12          # a direction or normal shorter than this after skinning becomes 0
FLOOR = 1e-30             # added to squared lengths, so a zero vector's length is not 0
SIGN_BIT = np.int32(-2 ** 31)
DUAL_QUATERNION_FLOATS = 20


class StreamKind(IntEnum):
    """What a skin stream holds, which decides how it moves."""

    position = 0
    normal = 1
    direction = 2      # tangents, bitangents: moved by A, renormalized


@dataclass
class SkinStream:
    """One attribute of the vertices: `source` read, `target` written, each a (vertices, 3)
    float32 array with components side by side (a column view of an interleaved buffer)."""

    kind: int
    source: np.ndarray
    target: np.ndarray


@dataclass
class SkinJob:
    """maniSkinJob: a vertex range of one influences file, the palette it is skinned with
    ((joints, 3, 4) affines for linear and blended skinning; (joints, 20) dual quaternions
    from palette_to_dual_quaternions for dual quaternion, blended and centers), the streams,
    and optionally the scratch to work in (else the calling thread's own).

    `count` None runs to the last vertex."""

    influences: Influences
    palette: np.ndarray | None = None
    dual_quaternions: np.ndarray | None = None
    streams: Sequence[SkinStream] = field(default_factory=list)
    first: int = 0
    count: int | None = None
    scratch: Scratch | None = None


def _scratch(job: SkinJob) -> Scratch:
    if job.scratch is None:
        return thread_scratch()
    if not isinstance(job.scratch, Scratch):
        raise InvalidError("scratch is not a Scratch")
    return job.scratch


# ---- checks ------------------------------------------------------------------------------

def _float32_rows(value, shape: tuple, what: str) -> np.ndarray:
    if value is None:
        raise InvalidError(f"no {what}")
    if not (isinstance(value, np.ndarray) and value.dtype == np.float32):
        try:
            value = np.asarray(value, dtype=np.float32)
        except (TypeError, ValueError):
            raise InvalidError(f"{what} is not numbers") from None
    if value.shape != shape:
        raise InvalidError(f"{what} of shape {value.shape}, expected {shape} "
                           "(one entry per joint of the influences)")
    return value


def _check_stream_array(a, end: int, what: str, writable: bool) -> None:
    if not isinstance(a, np.ndarray):
        raise InvalidError(f"{what} is not an array")
    if a.dtype != np.float32 or a.ndim != 2 or a.shape[1] != 3:
        raise InvalidError(f"{what} is not a (vertices, 3) float32 array")
    if a.strides[1] != 4 or a.strides[0] < 12:
        raise InvalidError(f"{what} has a stride too small (rows of 3 floats side by side)")
    if a.shape[0] < end:
        raise InvalidError(f"{what} holds {a.shape[0]} vertices, the range ends at {end}")
    if writable and not a.flags.writeable:
        raise InvalidError(f"{what} is read-only")


def _checked(job, palette: bool, dual: bool, centers: bool):
    if not isinstance(job, SkinJob):
        raise InvalidError("not a skin job")
    inf = job.influences
    if not isinstance(inf, Influences):
        raise InvalidError("the job has no opened influences")
    joints = inf.joint_count
    pal = _float32_rows(job.palette, (joints, 3, 4), "palette") if palette else None
    dq = _float32_rows(job.dual_quaternions, (joints, DUAL_QUATERNION_FLOATS),
                       "dual quaternion palette") if dual else None
    if centers and inf.centers is None:
        raise InvalidError("influences without centers (build them with build_centers)")
    n = inf.vertex_count
    first, end = vertex_range(job.first, job.count, n)
    streams = job.streams
    if streams is None:
        raise InvalidError("no streams")
    checked = []
    for i, s in enumerate(streams):
        if not isinstance(s, SkinStream):
            raise InvalidError(f"stream {i} is not a SkinStream")
        try:
            kind = StreamKind(s.kind)
        except ValueError:
            raise InvalidError(f"stream {i}: unknown kind {s.kind!r}") from None
        _check_stream_array(s.source, end, f"stream {i}'s source", False)
        _check_stream_array(s.target, end, f"stream {i}'s target", True)
        checked.append((kind, s.source, s.target))
    return inf, pal, dq, first, end, checked, _scratch(job)


# ---- per-joint tables --------------------------------------------------------------------
# Each method blends rows of a (rows, joints + 1) table; the extra column repeats joint 0's,
# so a joint index past the joints (bytes changed after the open) reads entry 0.

# dual quaternion palette layout: q 0:4, d 4:8, S rows 8:20 (three rows of four)
_S_COLUMNS = np.array([8, 9, 10, 12, 13, 14, 16, 17, 18])
_DQ_COLUMNS = np.concatenate([_S_COLUMNS, np.arange(8)])       # S 9, q 4, d 4


def _table(ws: Scratch, name: str, rows: np.ndarray) -> np.ndarray:
    """rows (joints, r) into a (r, joints + 1) table with the sentinel column."""
    joints, r = rows.shape
    t = ws.rows(name, r, joints + 1)
    np.copyto(t[:, :joints], rows.T)
    t[:, joints] = t[:, 0]
    return t


# the per-vertex affine's rows: t (3), then A row by row (9), then, when normals need them,
# A's cofactors (9); A and its cofactors side by side take positions and normals in one step
_T, _A, _C = slice(0, 3), slice(3, 12), slice(12, 21)
_LINEAR_COLUMNS = np.array([3, 7, 11, 0, 1, 2, 4, 5, 6, 8, 9, 10])     # palette rows to t, A


def _linear_table(ws, palette):
    return _table(ws, "table.linear", palette.reshape(palette.shape[0], 12)[:, _LINEAR_COLUMNS])


def _dual_table(ws, dq):
    return _table(ws, "table.dual", dq[:, _DQ_COLUMNS])


def _centers_table(ws, dq):
    """S 9, q 4, then each joint's rigid part: R_j 9 (row-major) and t_j 3."""
    joints = dq.shape[0]
    rows = ws.rows("table.centers.rows", joints, 25)
    rows[:, :13] = dq[:, _DQ_COLUMNS[:13]]
    q = dq[:, 0:4].astype(np.float64)
    x, y, z, w = q.T
    rows[:, 13:22] = np.stack([
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=1)
    conj = q * np.array([-1.0, -1.0, -1.0, 1.0])
    rows[:, 22:25] = 2.0 * quat_mul(dq[:, 4:8].astype(np.float64), conj)[:, :3]
    return _table(ws, "table.centers", rows)


# ---- blending ----------------------------------------------------------------------------

def _blend(ws: Scratch, inf: Influences, table: np.ndarray, a: int, b: int,
           out: np.ndarray, signed: slice | None = None, flips=None) -> None:
    """out (rows, b - a) = each vertex's table columns summed at its weights; the `signed`
    rows at the weights negated for the flipped influences (vertex, slot, place) given."""
    plan = inf.plan
    first_block, last_block = a // BLOCK, (b - 1) // BLOCK + 1
    lo_joint, hi_joint = plan.local_at[first_block], plan.local_at[last_block]
    local = ws.rows("blend.local", table.shape[0], hi_joint - lo_joint)
    np.take(table, plan.local_all[lo_joint:hi_joint], axis=1, out=local)
    sparse_from = None
    for block in range(first_block, last_block):
        lo, hi = max(a, block * BLOCK), min(b, (block + 1) * BLOCK)
        if plan.dense[block]:
            if sparse_from is not None:
                _blend_sparse(ws, inf, table, sparse_from, lo, out[:, sparse_from - a:lo - a],
                              signed, _within(flips, sparse_from, lo))
                sparse_from = None
            mine = _within(flips, block * BLOCK, (block + 1) * BLOCK)
            at, to = plan.local_at[block] - lo_joint, plan.local_at[block + 1] - lo_joint
            _blend_dense(ws, plan, local[:, at:to], block, lo, hi, out[:, lo - a:hi - a],
                         signed, None if mine is None else mine[2])
        elif sparse_from is None:
            sparse_from = lo
    if sparse_from is not None:
        _blend_sparse(ws, inf, table, sparse_from, b, out[:, sparse_from - a:], signed,
                      _within(flips, sparse_from, b))


def _within(flips, lo: int, hi: int):
    if flips is None:
        return None
    vertex = flips[0]
    i, j = np.searchsorted(vertex, (lo, hi))
    return None if i == j else tuple(x[i:j] for x in flips)


def _blend_dense(ws, plan, local, block, lo, hi, out, signed, flipped_places):
    """A dense block by matrix products: its joints' table columns (`local`) times its
    weights, the `signed` rows times the weights with the flipped places negated. The whole
    block every time; a range cutting it takes its part."""
    weights = plan.block_weights[block]
    if local.shape[1] == 0:
        out[...] = 0
        return
    rows = local.shape[0]
    start = block * BLOCK
    whole = lo == start and hi == start + weights.shape[1]
    dst = out if whole else ws.rows("blend.block", rows, weights.shape[1])
    step = int(plan.product_rows[block])
    if flipped_places is None:
        groups = ((0, rows, weights),)
    else:
        turned = ws.rows("blend.turned", weights.shape[0], weights.shape[1])
        np.copyto(turned, weights)
        flat = turned.reshape(-1)
        flat[flipped_places] = -flat[flipped_places]
        groups = ((0, signed.start, weights), (signed.start, signed.stop, turned),
                  (signed.stop, rows, weights))
    for first, last, w in groups:
        for r in range(first, last, step):
            e = min(r + step, last)
            np.matmul(local[r:e], w, out=dst[r:e])
    if not whole:
        out[...] = dst[:, lo - start:hi - start]


def _blend_sparse(ws, inf, table, lo, hi, out, signed, flips):
    """Vertices [lo, hi) slot by slot: each one's joint column gathered and added at its
    weight read from the file (a joint past the table reads the sentinel, entry 0's); the
    `signed` rows at the weight negated for the flipped (vertex, slot)s."""
    active = inf.plan.active
    if active == 0:
        out[...] = 0
        return
    joints, weights = inf.joints, inf.weights
    np.take(table, joints[0, lo:hi], axis=1, out=out, mode="clip")
    np.multiply(out, weights[0, lo:hi], out=out)
    if active == 1:
        return
    term = ws.rows("blend.term", table.shape[0], hi - lo)
    for s in range(1, active):
        np.take(table, joints[s, lo:hi], axis=1, out=term, mode="clip")
        w = weights[s, lo:hi]
        turn = None if flips is None else flips[0][flips[1] == s] - lo
        if turn is None or not turn.size:
            np.multiply(term, w, out=term)
        else:
            turned = ws.rows("blend.signs", 1, hi - lo)[0]
            np.copyto(turned, w)
            turned[turn] = -turned[turn]
            np.multiply(term[:signed.start], w, out=term[:signed.start])
            np.multiply(term[signed], turned, out=term[signed])
            np.multiply(term[signed.stop:], w, out=term[signed.stop:])
        np.add(out, term, out=out)


def _pair_flips(inf: Influences, table: np.ndarray, q_row: int):
    """Which (first joint, joint) pairs' quaternions point apart, or None if none do."""
    plan = inf.plan
    if not plan.pair_first.size:
        return None
    q = table[q_row:q_row + 4]
    dots = np.einsum("ij,ij->j", q[:, plan.pair_first], q[:, plan.pair_other])
    flipped = dots < 0
    return flipped if flipped.any() else None


# ---- per-vertex affines ------------------------------------------------------------------

# R(q) |q|^2, row-major, from the outer product q q^T (flat 4 x 4, x y z w): each entry is
# 2 (first + sign * second), less |q|^2 on the diagonal
_R_FIRST = np.array([0, 1, 2, 1, 5, 6, 2, 6, 10])       # x x, x y, x z, ...
_R_SECOND = np.array([15, 11, 7, 11, 15, 3, 7, 3, 15])  # w w, z w, y w, ...
_R_SIGN = np.array([1, -1, 1, 1, 1, -1, -1, 1, 1], dtype=np.float32)[:, None]
# the dual part's translation 2 (w d_v - d_w v + v x d_v), component by component, as four
# signed entries each of the outer product d q^T (flat 4 x 4)
_T_TERMS = np.array([[3, 12, 9, 6], [7, 13, 2, 8], [11, 14, 4, 1]])
_T_SIGNS = np.array([2, -2, 2, -2], dtype=np.float32)[None, :, None]


def _rotations(ws, q: np.ndarray, m: int) -> np.ndarray:
    """(3, 3, m) rotation of each (unnormalized) quaternion q (4, m): R(q) / |q|^2, from
    2 (q_i q_j +- w q_k) and 2 (q_i^2 + w^2) - |q|^2 on the diagonal."""
    outer = ws.rows("rot.outer", 16, m)
    np.multiply(q[:, None, :], q[None, :, :], out=outer.reshape(4, 4, m))
    norm = ws.rows("rot.norm", 1, m)[0]
    np.add.reduce(outer[0::5], axis=0, out=norm)                  # |q|^2
    first = ws.rows("rot.first", 9, m)
    second = ws.rows("rot.second", 9, m)
    np.take(outer, _R_FIRST, axis=0, out=first)
    np.take(outer, _R_SECOND, axis=0, out=second)
    np.multiply(second, _R_SIGN, out=second)
    np.add(first, second, out=first)
    np.add(first, first, out=first)
    np.subtract(first[0::4], norm, out=first[0::4])
    np.divide(first, norm, out=first)          # 0 / 0 only for weightless vertices, copied
    return first.reshape(3, 3, m)


def _product(ws, left: np.ndarray, right: np.ndarray, out: np.ndarray, m: int) -> None:
    """out (3, 3, m) = left @ right per vertex, by elementwise products and a sum."""
    terms = ws.rows("product.terms", 27, m).reshape(3, 3, 3, m)
    np.multiply(left[:, :, None, :], right[None, :, :, :], out=terms)
    np.add.reduce(terms, axis=1, out=out)


def _apply_to(ws, matrix: np.ndarray, vectors: np.ndarray, out: np.ndarray, m: int) -> None:
    """out (3, m) = matrix (3, 3, m) @ vectors (3, m) per vertex."""
    terms = ws.rows("apply.terms", 9, m).reshape(3, 3, m)
    np.multiply(matrix, vectors[None, :, :], out=terms)
    np.add.reduce(terms, axis=1, out=out)


def _dual_affines(ws, blended: np.ndarray, affine: np.ndarray, m: int) -> None:
    """From blended S (9), q (4), d (4) rows: A = R(q) S and the dual part's translation
    2 (w d_v - d_w v + v x d_v) / |q|^2."""
    q, d = blended[9:13], blended[13:17]
    rot = _rotations(ws, q, m)
    _product(ws, rot, blended[0:9].reshape(3, 3, m), affine[_A].reshape(3, 3, m), m)
    norm = ws.rows("rot.norm", 1, m)[0]              # |q|^2, from _rotations
    outer = ws.rows("dual.outer", 16, m)
    np.multiply(d[:, None, :], q[None, :, :], out=outer.reshape(4, 4, m))
    terms = ws.rows("dual.terms", 12, m).reshape(3, 4, m)
    np.take(outer, _T_TERMS, axis=0, out=terms)
    np.multiply(terms, _T_SIGNS, out=terms)
    t = affine[_T]
    np.add.reduce(terms, axis=1, out=t)
    np.divide(t, norm, out=t)


def _linear(ws, inf, tables, flips, a, b, m):
    affine = ws.rows("affine", 21, m)
    _blend(ws, inf, tables, a, b, affine[0:12])
    return affine


def _flipped(inf, pair_flipped, a, b):
    return None if pair_flipped is None else inf.plan.flipped(pair_flipped, a, b)


def _dual(ws, inf, table, pair_flipped, a, b, m):
    blended = ws.rows("dual.blend", 17, m)
    _blend(ws, inf, table, a, b, blended, slice(9, 17), _flipped(inf, pair_flipped, a, b))
    affine = ws.rows("affine", 21, m)
    _dual_affines(ws, blended, affine, m)
    return affine


def _blended(ws, inf, tables, flips, a, b, m):
    """(1 - b) M_linear + b M_dual, and exactly M_linear or M_dual where b is 0 or 1."""
    if inf.dq_weights is None:                 # every b is 0: linear skinning's bits
        return _linear(ws, inf, tables[0], flips, a, b, m)
    affine = _dual(ws, inf, tables[1], flips, a, b, m)
    dual = ws.rows("blended.dual", 12, m)
    np.copyto(dual, affine[0:12])
    linear = ws.rows("blended.linear", 12, m)
    _blend(ws, inf, tables[0], a, b, linear)
    weight = inf.dq_weights[a:b]
    mix = affine[0:12]
    term = ws.rows("blended.term", 12, m)
    rest = ws.rows("blended.rest", 1, m)[0]
    np.subtract(1, weight, out=rest)
    np.multiply(linear, rest, out=mix)
    np.multiply(dual, weight, out=term)
    np.add(mix, term, out=mix)
    np.copyto(mix, linear, where=weight == 0)
    np.copyto(mix, dual, where=weight == 1)
    return affine


def _centers(ws, inf, table, pair_flipped, a, b, m):
    blended = ws.rows("centers.blend", 25, m)
    _blend(ws, inf, table, a, b, blended, slice(9, 13), _flipped(inf, pair_flipped, a, b))
    affine = ws.rows("affine", 21, m)
    rot = _rotations(ws, blended[9:13], m)
    scale = blended[0:9].reshape(3, 3, m)
    _product(ws, rot, scale, affine[_A].reshape(3, 3, m), m)
    center = ws.rows("centers.c", 3, m)
    np.copyto(center, inf.centers[a:b].T)
    scaled = ws.rows("centers.sc", 3, m)
    _apply_to(ws, scale, center, scaled, m)                 # S c
    t = affine[_T]
    _apply_to(ws, blended[13:22].reshape(3, 3, m), scaled, t, m)
    np.add(t, blended[22:25], out=t)                        # sum w_j (R_j S c + t_j)
    _apply_to(ws, rot, scaled, center, m)                   # R S c
    np.subtract(t, center, out=t)
    return affine


# ---- applying the affines ----------------------------------------------------------------

# A's entries with rows and columns extended cyclically (4 x 4), so each cofactor
# C_rc = E[r][c] E[r+1][c+1] - E[r][c+1] E[r+1][c] reads shifted slices
_CYCLIC9 = np.array([3 * ((r + 1) % 3) + (c + 1) % 3 for r in range(4) for c in range(4)])


def _cofactors(ws, block: np.ndarray, out: np.ndarray, count: int) -> np.ndarray:
    """out (9, count) = the cofactors of each A in block (9, count); returns each det."""
    ext = ws.rows("cof.ext", 16, count)
    np.take(block, _CYCLIC9, axis=0, out=ext)
    e = ext.reshape(4, 4, count)
    cof = out.reshape(3, 3, count)
    term = ws.rows("cof.term", 9, count).reshape(3, 3, count)
    np.multiply(e[:3, :3], e[1:, 1:], out=cof)
    np.multiply(e[:3, 1:], e[1:, :3], out=term)
    np.subtract(cof, term, out=cof)
    det = ws.rows("cof.det", 1, count)[0]
    np.multiply(block[0:3], cof[0], out=term[0])
    np.add.reduce(term[0], axis=0, out=det)
    return det


def _normalize(ws, vectors: np.ndarray, out: np.ndarray, m: int, sign=None) -> None:
    """out = vectors / |vectors| (negated where sign < 0), zero where |vectors| <= COLLAPSE.

    Masks cost numpy more than arithmetic, so the collapse is arithmetic too: the length
    (its square summed from FLOOR, so never 0) divided by 1 or 0 leaves it or makes it
    infinite, and a vector over an infinite length is a zero; the sign is the determinant's
    sign bit xored into the length.
    """
    squares = ws.rows("norm.sq", 3, m)
    np.multiply(vectors, vectors, out=squares)
    length = ws.rows("norm.len", 1, m)[0]
    np.add.reduce(squares, axis=0, out=length, initial=FLOOR)
    np.sqrt(length, out=length)
    keep = ws.rows("norm.keep", 1, m)[0]
    np.greater(length, COLLAPSE, out=keep)
    np.divide(length, keep, out=length)
    if sign is not None:
        bits = ws.rows("norm.bits", 1, m)[0].view(np.int32)
        np.bitwise_and(sign.view(np.int32), SIGN_BIT, out=bits)
        np.bitwise_xor(length.view(np.int32), bits, out=length.view(np.int32))
    np.divide(vectors, length, out=out)


def _apply(ws, affine: np.ndarray, streams, inputs: np.ndarray, a: int, b: int, m: int,
           signed: bool = False) -> None:
    """Writes every stream's range [a, b) from the affines (21, m) and the saved inputs.

    Normals take the cofactors in affine[12:21], worked out here (with the determinant's
    sign applied at the normalization) unless `signed` says they are there, sign included.
    A position stream followed by a normal one, the usual pair, goes in one product."""
    t = affine[_T]
    det = None
    if not signed and any(kind == StreamKind.normal for kind, _, _ in streams):
        det = _cofactors(ws, affine[_A], affine[_C], m)
    result = ws.rows("apply.result", 6, m)
    k = 0
    while k < len(streams):
        kind, _, target = streams[k]
        if (kind == StreamKind.position and k + 1 < len(streams)
                and streams[k + 1][0] == StreamKind.normal):
            terms = ws.rows("apply.terms", 18, m).reshape(2, 3, 3, m)
            both = inputs[3 * k:3 * k + 6].reshape(2, 1, 3, m)
            np.multiply(affine[3:21].reshape(2, 3, 3, m), both, out=terms)
            np.add.reduce(terms, axis=2, out=result.reshape(2, 3, m))
            np.add(result[0:3], t, out=target[a:b].T)
            _normalize(ws, result[3:6], streams[k + 1][2][a:b].T, m, det)
            k += 2
            continue
        source = inputs[3 * k:3 * k + 3]
        out = target[a:b].T
        if kind == StreamKind.position:
            _apply_to(ws, affine[_A].reshape(3, 3, m), source, result[0:3], m)
            np.add(result[0:3], t, out=out)
        elif kind == StreamKind.direction:
            _apply_to(ws, affine[_A].reshape(3, 3, m), source, result[0:3], m)
            _normalize(ws, result[0:3], out, m)
        else:
            _apply_to(ws, affine[_C].reshape(3, 3, m), source, result[0:3], m)
            _normalize(ws, result[0:3], out, m, det)
        k += 1


def _read(ws, streams, a: int, b: int, m: int) -> np.ndarray:
    """Every stream's sources of [a, b), three rows a stream, read before anything is written."""
    inputs = ws.rows("in", 3 * len(streams), m)
    for i, (_, source, _) in enumerate(streams):
        np.copyto(inputs[3 * i:3 * i + 3], source[a:b].T)
    return inputs


def _copy_weightless(plan, streams, inputs, a: int, b: int) -> None:
    weightless = plan.weightless
    if not weightless.size:
        return
    lo, hi = np.searchsorted(weightless, (a, b))
    if lo == hi:
        return
    rows = weightless[lo:hi]
    for i, (_, _, target) in enumerate(streams):
        target[rows] = inputs[3 * i:3 * i + 3, rows - a].T


def _run(job, palette: bool, dual: bool, centers: bool, make_tables, affines) -> None:
    inf, pal, dq, first, end, streams, ws = _checked(job, palette, dual, centers)
    if end == first or not streams:
        return
    if affines is _linear and inf.plan.rigid:
        with np.errstate(all="ignore"):
            _rigid(ws, inf, pal, streams, first, end)
        return
    with np.errstate(all="ignore"):
        tables, flips = make_tables(ws, inf, pal, dq)
        a = first
        while a < end:
            b = min(end, (a // BLOCK + CHUNK_BLOCKS) * BLOCK)
            m = b - a
            inputs = _read(ws, streams, a, b, m)
            affine = affines(ws, inf, tables, flips, a, b, m)
            _apply(ws, affine, streams, inputs, a, b, m)
            _copy_weightless(inf.plan, streams, inputs, a, b)
            a = b


# ---- rigid files: one joint a vertex ---------------------------------------------------
# Every vertex moves by its joint's matrix as it is, so each joint's normal matrix (its
# cofactor times its determinant's sign) is worked out once per call, not once per vertex,
# and a small job is a handful of numpy calls.

def _rigid_table(ws, palette: np.ndarray) -> np.ndarray:
    """(21, joints + 1) in the affine's rows: t, A, A's cofactors times its determinant's
    sign, and the sentinel column. Joint by joint in rows, so every step is one numpy call
    over all the joints."""
    joints = palette.shape[0]
    table = ws.rows("rigid.table", 21, joints + 1)
    np.copyto(table[0:12, :joints], palette.reshape(joints, 12)[:, _LINEAR_COLUMNS].T)
    det = _cofactors(ws, table[_A, :joints], table[_C, :joints], joints)
    np.copysign(1.0, det, out=det)
    np.multiply(table[_C, :joints], det, out=table[_C, :joints])
    table[:, joints] = table[:, 0]
    return table


def _rigid(ws, inf: Influences, palette: np.ndarray, streams, first: int, end: int) -> None:
    """Linear skinning of a rigid file: each vertex's rows of the joint table, copied run by
    run where a part's vertices come together (numpy.repeat, which allocates the copy:
    faster than gathering vertex by vertex), else gathered."""
    plan = inf.plan
    table = _rigid_table(ws, palette)
    a = first
    while a < end:
        b = min(end, a + CHUNK)
        m = b - a
        if plan.runs_pay:
            lo = int(np.searchsorted(plan.run_start, a, side="right")) - 1
            hi = int(np.searchsorted(plan.run_start, b, side="left"))
            lengths = plan.run_length[lo:hi]
            if plan.run_start[lo] != a or plan.run_start[hi] != b:
                lengths = lengths.copy()
                lengths[0] -= a - plan.run_start[lo]
                lengths[-1] -= plan.run_start[hi] - b
            affine = np.repeat(table[:, plan.run_joint[lo:hi]], lengths, axis=1)
        else:
            affine = ws.rows("rigid.gathered", 21, m)
            np.take(table, inf.joints[0, a:b], axis=1, out=affine, mode="clip")
        inputs = _read(ws, streams, a, b, m)
        _apply(ws, affine, streams, inputs, a, b, m, signed=True)
        _copy_weightless(plan, streams, inputs, a, b)
        a = b


def _linear_tables(ws, inf, pal, dq):
    return _linear_table(ws, pal), None


def _dual_tables(ws, inf, pal, dq):
    table = _dual_table(ws, dq)
    return table, _pair_flips(inf, table, 9)


def _blended_tables(ws, inf, pal, dq):
    dual = _dual_table(ws, dq)
    return (_linear_table(ws, pal), dual), _pair_flips(inf, dual, 9)


def _centers_tables(ws, inf, pal, dq):
    table = _centers_table(ws, dq)
    return table, _pair_flips(inf, table, 9)


def skin_linear(job: SkinJob) -> None:
    """maniSkinLinear: each vertex moved by the weighted sum of its joints' palette matrices."""
    _run(job, True, False, False, _linear_tables, _linear)


def skin_dual_quaternion(job: SkinJob) -> None:
    """maniSkinDualQuaternion: scale and shear blended and applied first, then the joints'
    dual quaternions blended in the first's hemisphere and normalized."""
    _run(job, False, True, False, _dual_tables, _dual)


def skin_blended(job: SkinJob) -> None:
    """maniSkinBlended: FBX's per-vertex mix of linear and dual quaternion skinning; needs
    both the palette and the dual quaternion palette."""
    _run(job, True, True, False, _blended_tables, _blended)


def skin_centers(job: SkinJob) -> None:
    """maniSkinCenters: optimized centers of rotation (Le and Hodgins 2016)."""
    _run(job, False, True, True, _centers_tables, _centers)


# ---- palettes for shaders ----------------------------------------------------------------

def _palette64(palette) -> np.ndarray:
    if palette is None:
        raise InvalidError("no palette")
    try:
        p = np.asarray(palette, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidError("the palette is not numbers") from None
    if p.ndim != 3 or p.shape[1:] != (3, 4):
        raise InvalidError(f"a palette of shape {p.shape}, not (joints, 3, 4)")
    return p


def _out(out, shape: tuple) -> np.ndarray:
    if out is None:
        return np.empty(shape, dtype=np.float32)
    if not (isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == shape):
        raise InvalidError(f"the output is not a {shape} float32 array")
    if not out.flags.writeable:
        raise InvalidError("the output is read-only")
    return out


def palette_to_dual_quaternions(palette, out=None) -> np.ndarray:
    """maniConvertPaletteToDualQuaternions: each A = R S (R the rotation of its polar
    decomposition, S = R^T A carrying scale, shear and mirror) as 20 floats: R's quaternion
    x y z w with w >= 0, the dual part (half the translation times it), then S as three rows
    of four (the fourth 0). (joints, 20) float32; `out` unchanged on failure."""
    p = _palette64(palette)
    if not np.isfinite(p).all():
        raise InvalidError("a palette matrix not finite")
    result = _out(out, (p.shape[0], DUAL_QUATERNION_FLOATS))
    block = p[:, :, :3]
    u, _, vt = np.linalg.svd(block)
    turn = np.linalg.det(np.matmul(u, vt)) < 0
    u[turn, :, 2] = -u[turn, :, 2]                  # a proper rotation; S keeps the mirror
    rot = np.matmul(u, vt)
    q = quats_from_matrices(rot)
    t = np.zeros((p.shape[0], 4))
    t[:, :3] = p[:, :, 3]
    values = np.zeros((p.shape[0], DUAL_QUATERNION_FLOATS))
    values[:, 0:4] = q
    values[:, 4:8] = 0.5 * quat_mul(t, q)
    scale = np.zeros((p.shape[0], 3, 4))
    scale[:, :, :3] = np.matmul(np.swapaxes(rot, 1, 2), block)
    values[:, 8:20] = scale.reshape(-1, 12)
    result[...] = values
    return result


def palette_to_rows(palette, out=None) -> np.ndarray:
    """maniConvertPaletteToRows: each matrix as three rows of four floats, (joints, 12)."""
    p = _palette64(palette)
    result = _out(out, (p.shape[0], 12))
    with np.errstate(all="ignore"):
        result[...] = p.reshape(p.shape[0], 12)
    return result
