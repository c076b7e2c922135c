"""Skinning's compiled kernel: one pass over a job's vertices, each vertex blended, moved and
written on its own, so a vertex's bits never depend on the range or on the other vertices.

A vertex reads its slots from the influences file as they are (a joint past the table
reads row 0), sums its joints' rows of a per-joint table at their weights, makes a 3 x 4
affine [A | t] of the sums, then moves its streams: positions to A p + t, directions to
A d, normals to A's cofactor times n with the sign of A's determinant (the inverse
transpose's direction, without dividing by it); directions and normals renormalized, zero
where they collapse. A vertex of no influences is copied. The arithmetic is binary32, as
the numpy code it replaced was (constants are float32 so nothing promotes), except each
joint's rigid part for centers, worked out in binary64 and rounded once.

Per-joint tables, a row a joint, that the methods sum:
- linear: the palette, three rows of four (A_r0 A_r1 A_r2 t_r);
- dual quaternion: the dual quaternion palette, q 0:4, d 4:8, S 8:20 (three rows of four,
  the fourth 0); q and d summed in the hemisphere of the vertex's first joint, S as is;
- blended: both; a vertex's blend b takes the linear affine where it is 0, the dual
  quaternion one where it is 1, and (1 - b) M_linear + b M_dual between. Each is summed by
  the same operations, in the same order, as by its own method, so b = 0 or 1 gives that
  method's bits;
- centers: the dual quaternion palette's q and S, and each joint's rigid part R_j
  (row-major) and t_j, worked out at the start of the call;
- rigid (linear skinning where every vertex has one joint at weight 1): each joint's A
  (row-major), t, A's cofactors and determinant, worked out at the start of the call: what
  the linear method works out vertex by vertex, the same bits, once a joint.

A call moves one position, one normal and two direction streams at most, each a source
and a target (vertices, 3) float32 array of any row stride, or None where there is none;
it reads every source of a vertex before it writes any target, so a target may be its own
source. Each method has a kernel of its own (SKIN) of one declared signature (PASS: tables
C-contiguous, streams of any stride), compiled once for each mix of streams and tables it
is given (None is compiled as absent, which runtime tests per vertex would cost the rigid
pass 40%), whatever their layouts and flags.

Written for numba's code generation: device functions take scalars and tuples, or arrays
in straight-line code only (numba reference-counts an array handed to a function with
branches, on every call, which cost more than the arithmetic); indices are unsigned (numba
adds a wraparound for negative values to every signed index); sums of different tables go
in loops of their own (all at once, more values than the registers hold spill to memory).
"""
from __future__ import annotations

import math

import numpy as np

from ..core.jit import kernel, reads, scalar, writes

LINEAR, DUAL, BLENDED, CENTERS, RIGID = 0, 1, 2, 3, 4
POSITION, NORMAL, DIRECTION = 0, 1, 2
PALETTE_FLOATS, DUAL_FLOATS = 12, 20
PARTS_FLOATS, RIGID_FLOATS = 12, 22     # the tables a call works out: rigid parts, table

COLLAPSE = np.float32(1e-12)  # a direction or normal shorter than this after skinning becomes 0
_ZERO = np.float32(0.0)
_ONE = np.float32(1.0)
_TWO = np.float32(2.0)
_NEG_ZERO = np.float32(-0.0)  # the empty sum: -0 + x is x bit for bit, -0 included
_ONE_SLOT = np.uint64(1)
_EMPTY12 = (_NEG_ZERO,) * 12
_EMPTY13 = (_NEG_ZERO,) * 13
_EMPTY17 = (_NEG_ZERO,) * 17


# ---- sums of table rows (straight-line: they take the table) ------------------------------

@kernel(inner=True)
def _sum12(acc, w, table, j):
    """acc plus w times table[j, 0:12]."""
    return (acc[0] + w * table[j, 0], acc[1] + w * table[j, 1], acc[2] + w * table[j, 2],
            acc[3] + w * table[j, 3], acc[4] + w * table[j, 4], acc[5] + w * table[j, 5],
            acc[6] + w * table[j, 6], acc[7] + w * table[j, 7], acc[8] + w * table[j, 8],
            acc[9] + w * table[j, 9], acc[10] + w * table[j, 10], acc[11] + w * table[j, 11])


@kernel(inner=True)
def _sum_dual(acc, w, turned, dual, j):
    """acc (q 4, d 4, S 9 row-major) plus dual quaternion row j: q and d at `turned` (the
    weight, negated out of the first joint's hemisphere), S at w."""
    return (acc[0] + turned * dual[j, 0], acc[1] + turned * dual[j, 1],
            acc[2] + turned * dual[j, 2], acc[3] + turned * dual[j, 3],
            acc[4] + turned * dual[j, 4], acc[5] + turned * dual[j, 5],
            acc[6] + turned * dual[j, 6], acc[7] + turned * dual[j, 7],
            acc[8] + w * dual[j, 8], acc[9] + w * dual[j, 9], acc[10] + w * dual[j, 10],
            acc[11] + w * dual[j, 12], acc[12] + w * dual[j, 13], acc[13] + w * dual[j, 14],
            acc[14] + w * dual[j, 16], acc[15] + w * dual[j, 17], acc[16] + w * dual[j, 18])


@kernel(inner=True)
def _sum_rotation(acc, w, turned, dual, j):
    """_sum_dual without the dual part, which centers do not read: acc (q 4, S 9)."""
    return (acc[0] + turned * dual[j, 0], acc[1] + turned * dual[j, 1],
            acc[2] + turned * dual[j, 2], acc[3] + turned * dual[j, 3],
            acc[4] + w * dual[j, 8], acc[5] + w * dual[j, 9], acc[6] + w * dual[j, 10],
            acc[7] + w * dual[j, 12], acc[8] + w * dual[j, 13], acc[9] + w * dual[j, 14],
            acc[10] + w * dual[j, 16], acc[11] + w * dual[j, 17], acc[12] + w * dual[j, 18])


@kernel(inner=True)
def _row(joints, s, v, rows):
    """Slot s's joint of vertex v as a table row, unsigned: 0 for one past the table."""
    j = np.uint64(joints[s, v])
    return j * np.uint64(j < rows)


@kernel(inner=True)
def _quaternion(dual, j):
    """Dual quaternion row j's rotation quaternion."""
    return dual[j, 0], dual[j, 1], dual[j, 2], dual[j, 3]


@kernel(inner=True)
def _turned(w, dual, j, lead):
    """w, negated when row j's quaternion points away from `lead` (the first joint's)."""
    dot = ((dual[j, 0] * lead[0] + dual[j, 1] * lead[1])
           + dual[j, 2] * lead[2]) + dual[j, 3] * lead[3]
    return -w if dot < _ZERO else w


# ---- affines from the sums ---------------------------------------------------------------

@kernel(inner=True)
def _apply(a, x, y, z):
    """a (3 x 3, row-major) times (x, y, z)."""
    return ((a[0] * x + a[1] * y) + a[2] * z, (a[3] * x + a[4] * y) + a[5] * z,
            (a[6] * x + a[7] * y) + a[8] * z)


@kernel(inner=True)
def _times(r, s):
    """r s, 3 x 3 row-major each."""
    return ((r[0] * s[0] + r[1] * s[3]) + r[2] * s[6], (r[0] * s[1] + r[1] * s[4]) + r[2] * s[7],
            (r[0] * s[2] + r[1] * s[5]) + r[2] * s[8],
            (r[3] * s[0] + r[4] * s[3]) + r[5] * s[6], (r[3] * s[1] + r[4] * s[4]) + r[5] * s[7],
            (r[3] * s[2] + r[4] * s[5]) + r[5] * s[8],
            (r[6] * s[0] + r[7] * s[3]) + r[8] * s[6], (r[6] * s[1] + r[7] * s[4]) + r[8] * s[7],
            (r[6] * s[2] + r[7] * s[5]) + r[8] * s[8])


@kernel(inner=True)
def _rotation(x, y, z, w):
    """R(q) of an unnormalized quaternion, row-major, and 1 / |q|^2:
    (2 (q_i q_j +- w q_k), and 2 (q_i^2 + w^2) - |q|^2 on the diagonal) / |q|^2, one
    division for the lot."""
    norm = ((x * x + y * y) + z * z) + w * w
    inverse = _ONE / norm
    ww = w * w
    return ((_TWO * (x * x + ww) - norm) * inverse, _TWO * (x * y - z * w) * inverse,
            _TWO * (x * z + y * w) * inverse,
            _TWO * (x * y + z * w) * inverse, (_TWO * (y * y + ww) - norm) * inverse,
            _TWO * (y * z - x * w) * inverse,
            _TWO * (x * z - y * w) * inverse, _TWO * (y * z + x * w) * inverse,
            (_TWO * (z * z + ww) - norm) * inverse), inverse


@kernel(inner=True)
def _linear_affine(m):
    """[A | t] of a palette row's layout."""
    return (m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]), (m[3], m[7], m[11])


@kernel(inner=True)
def _dual_affine(dq):
    """From the sums (q, d, S): A = R(q) S, t the dual part's translation
    2 (w d_v - d_w v + v x d_v) / |q|^2."""
    x, y, z, w, dx, dy, dz, dw = dq[0], dq[1], dq[2], dq[3], dq[4], dq[5], dq[6], dq[7]
    r, inverse = _rotation(x, y, z, w)
    return _times(r, dq[8:17]), (_TWO * (((dx * w - dw * x) + dz * y) - dy * z) * inverse,
                                 _TWO * (((dy * w - dw * y) + dx * z) - dz * x) * inverse,
                                 _TWO * (((dz * w - dw * z) + dy * x) - dx * y) * inverse)


@kernel(inner=True)
def _centers_affine(qs, rigid, cx, cy, cz):
    """From the sums (q, S) and (sum w_j R_j, sum w_j t_j): A = R(q) S, and t carrying the
    scaled center S c where the joints' rigid parts, blended linearly, take it, less R S c:
    v' = R (S v - S c) + sum w_j (R_j S c + t_j), t = (sum w_j R_j - R) S c + sum w_j t_j."""
    r, _ = _rotation(qs[0], qs[1], qs[2], qs[3])
    s = qs[4:13]
    sx, sy, sz = _apply(s, cx, cy, cz)
    m = rigid
    x, y, z = _apply((m[0] - r[0], m[1] - r[1], m[2] - r[2], m[3] - r[3], m[4] - r[4],
                      m[5] - r[5], m[6] - r[6], m[7] - r[7], m[8] - r[8]), sx, sy, sz)
    return _times(r, s), (x + m[9], y + m[10], z + m[11])


@kernel(inner=True)
def _mix(a, t, a2, t2, b):
    """(1 - b) [a | t] + b [a2 | t2]."""
    rest = _ONE - b
    return ((a[0] * rest + a2[0] * b, a[1] * rest + a2[1] * b, a[2] * rest + a2[2] * b,
             a[3] * rest + a2[3] * b, a[4] * rest + a2[4] * b, a[5] * rest + a2[5] * b,
             a[6] * rest + a2[6] * b, a[7] * rest + a2[7] * b, a[8] * rest + a2[8] * b),
            (t[0] * rest + t2[0] * b, t[1] * rest + t2[1] * b, t[2] * rest + t2[2] * b))


@kernel(inner=True)
def _cofactors(a):
    """A's cofactors C_rc = A[r+1][c+1] A[r+2][c+2] - A[r+1][c+2] A[r+2][c+1] (indices mod
    3), row-major, and its determinant (A's row 0 against C's)."""
    c = (a[4] * a[8] - a[5] * a[7], a[5] * a[6] - a[3] * a[8], a[3] * a[7] - a[4] * a[6],
         a[7] * a[2] - a[8] * a[1], a[8] * a[0] - a[6] * a[2], a[6] * a[1] - a[7] * a[0],
         a[1] * a[5] - a[2] * a[4], a[2] * a[3] - a[0] * a[5], a[0] * a[4] - a[1] * a[3])
    return c, (a[0] * c[0] + a[1] * c[1]) + a[2] * c[2]


@kernel(inner=True)
def _unit(x, y, z, flip):
    """(x, y, z) times the reciprocal of its length (negated when `flip`): one division,
    not three; zero when it collapses."""
    length = np.sqrt((x * x + y * y) + z * z)
    if length <= COLLAPSE:                      # NaN goes on to the division, and stays
        return _ZERO, _ZERO, _ZERO
    inverse = (-_ONE if flip else _ONE) / length
    return x * inverse, y * inverse, z * inverse


@kernel(inner=True)
def _rigid_parts(dual, out):
    """out (joints, 12): each joint's rigid part, from its unit quaternion q and dual part d
    in binary64, rounded once: R(q) row-major, then t = 2 (w d_v - d_w v + v x d_v)."""
    for j in range(dual.shape[0]):
        x, y, z, w = (np.float64(dual[j, 0]), np.float64(dual[j, 1]), np.float64(dual[j, 2]),
                      np.float64(dual[j, 3]))
        dx, dy, dz, dw = (np.float64(dual[j, 4]), np.float64(dual[j, 5]),
                          np.float64(dual[j, 6]), np.float64(dual[j, 7]))
        out[j, 0] = 1.0 - 2.0 * (y * y + z * z)
        out[j, 1] = 2.0 * (x * y - w * z)
        out[j, 2] = 2.0 * (x * z + w * y)
        out[j, 3] = 2.0 * (x * y + w * z)
        out[j, 4] = 1.0 - 2.0 * (x * x + z * z)
        out[j, 5] = 2.0 * (y * z - w * x)
        out[j, 6] = 2.0 * (x * z - w * y)
        out[j, 7] = 2.0 * (y * z + w * x)
        out[j, 8] = 1.0 - 2.0 * (x * x + y * y)
        out[j, 9] = 2.0 * ((w * dx - dw * x) + (y * dz - z * dy))
        out[j, 10] = 2.0 * ((w * dy - dw * y) + (z * dx - x * dz))
        out[j, 11] = 2.0 * ((w * dz - dw * z) + (x * dy - y * dx))


@kernel(inner=True)
def _rigid_table(palette, out):
    """out (joints, 22): each palette row's A, t, A's cofactors and determinant."""
    for j in range(palette.shape[0]):
        a, t = _linear_affine(_sum12(_EMPTY12, _ONE, palette, j))
        c, det = _cofactors(a)
        for i in range(9):
            out[j, i] = a[i]
            out[j, 12 + i] = c[i]
        for i in range(3):
            out[j, 9 + i] = t[i]
        out[j, 21] = det


@kernel(inner=True)
def _rigid_row(table, j):
    """A, t, A's cofactors and determinant from row j of a rigid table."""
    return ((table[j, 0], table[j, 1], table[j, 2], table[j, 3], table[j, 4], table[j, 5],
             table[j, 6], table[j, 7], table[j, 8]), (table[j, 9], table[j, 10], table[j, 11]),
            (table[j, 12], table[j, 13], table[j, 14], table[j, 15], table[j, 16], table[j, 17],
             table[j, 18], table[j, 19], table[j, 20]), table[j, 21])


# ---- the pass ----------------------------------------------------------------------------

_TABLE, _SOURCE, _TARGET = reads(np.float32, 2), reads(np.float32, 2, "A"), writes(np.float32, 2, "A")
PASS = (scalar(np.int64), scalar(np.int64), reads(np.uint16, 2), _TABLE, reads(np.uint8, 1),
        _TABLE, _TABLE, writes(np.float32, 2), _TABLE, reads(np.float32, 1),
        *(_SOURCE, _TARGET) * 4)


def _pass(method):
    """The pass, compiled for one method: numba takes `method`, a closure's constant, as a
    constant, so each kernel holds its own method's code (others' values kept live across
    the loop would cost linear skinning 40%), as it takes an absent stream's None."""

    @kernel(signature=PASS)
    def skin(first, end, joints, weights, counts, palette, dual, work, centers, blend,
             ps, pt, ns, nt, ds0, dt0, ds1, dt1):
        """Skins vertices [first, end) with the method's per-joint tables: the palette's
        rows (joints, 12) and the dual quaternion palette (joints, 20), and `work`, the
        rigid table (joints, 22) or the rigid parts (joints, 12) the call works out first;
        and with centers (vertices, 3) and blend (vertices,); each None where the method
        does not read it. Positions go from ps to pt, normals from ns to nt, directions
        from ds0 to dt0 and ds1 to dt1, each pair None when absent. A vertex's bits come
        from its own rows and the tables alone, so ranges cut anywhere (spans on several
        threads) give the bits of the whole range."""
        if method == RIGID:
            _rigid_table(palette, work)
        if method == CENTERS:
            _rigid_parts(dual, work)
        slots = np.uint64(joints.shape[0])
        rows = np.uint64((dual if palette is None else palette).shape[0])
        for v in range(np.uint64(first), np.uint64(end)):   # unsigned: no wraparound
            if ps is not None:                  # every source before any target
                px, py, pz = ps[v, 0], ps[v, 1], ps[v, 2]
            if ns is not None:
                nx, ny, nz = ns[v, 0], ns[v, 1], ns[v, 2]
            if ds0 is not None:
                ax, ay, az = ds0[v, 0], ds0[v, 1], ds0[v, 2]
            if ds1 is not None:
                bx, by, bz = ds1[v, 0], ds1[v, 1], ds1[v, 2]
            count = min(np.uint64(counts[v]), slots)
            if count == 0:
                if ps is not None:
                    pt[v, 0], pt[v, 1], pt[v, 2] = px, py, pz
                if ns is not None:
                    nt[v, 0], nt[v, 1], nt[v, 2] = nx, ny, nz
                if ds0 is not None:
                    dt0[v, 0], dt0[v, 1], dt0[v, 2] = ax, ay, az
                if ds1 is not None:
                    dt1[v, 0], dt1[v, 1], dt1[v, 2] = bx, by, bz
                continue
            lead = _row(joints, 0, v, rows)
            if method == RIGID:
                a, t, c, det = _rigid_row(work, lead)
            else:
                # the joints' rows summed at their weights, a loop for a few sums; the
                # first joint is in its own hemisphere
                linear, sums, turn, rigid = _EMPTY12, _EMPTY17, _EMPTY13, _EMPTY12
                if method == LINEAR or method == BLENDED:
                    for s in range(count):
                        linear = _sum12(linear, weights[s, v], palette, _row(joints, s, v, rows))
                if method == DUAL or method == BLENDED:
                    q, w = _quaternion(dual, lead), weights[0, v]
                    sums = _sum_dual(sums, w, w, dual, lead)
                    for s in range(_ONE_SLOT, count):
                        j, w = _row(joints, s, v, rows), weights[s, v]
                        sums = _sum_dual(sums, w, _turned(w, dual, j, q), dual, j)
                if method == CENTERS:
                    q, w = _quaternion(dual, lead), weights[0, v]
                    turn = _sum_rotation(turn, w, w, dual, lead)
                    for s in range(_ONE_SLOT, count):
                        j, w = _row(joints, s, v, rows), weights[s, v]
                        turn = _sum_rotation(turn, w, _turned(w, dual, j, q), dual, j)
                    for s in range(count):
                        rigid = _sum12(rigid, weights[s, v], work, _row(joints, s, v, rows))
                # the affine [a | t]
                if method == DUAL:
                    a, t = _dual_affine(sums)
                elif method == CENTERS:
                    a, t = _centers_affine(turn, rigid, centers[v, 0], centers[v, 1],
                                           centers[v, 2])
                else:
                    a, t = _linear_affine(linear)
                    b = blend[v] if method == BLENDED else _ZERO
                    if b == _ONE:
                        a, t = _dual_affine(sums)
                    elif b != _ZERO:
                        a_dual, t_dual = _dual_affine(sums)
                        a, t = _mix(a, t, a_dual, t_dual, b)
                if ns is not None:
                    c, det = _cofactors(a)
            # the streams
            if ps is not None:
                x, y, z = _apply(a, px, py, pz)
                pt[v, 0], pt[v, 1], pt[v, 2] = x + t[0], y + t[1], z + t[2]
            if ns is not None:
                x, y, z = _apply(c, nx, ny, nz)
                nt[v, 0], nt[v, 1], nt[v, 2] = _unit(x, y, z, det < _ZERO)
            if ds0 is not None:
                x, y, z = _apply(a, ax, ay, az)
                dt0[v, 0], dt0[v, 1], dt0[v, 2] = _unit(x, y, z, False)
            if ds1 is not None:
                x, y, z = _apply(a, bx, by, bz)
                dt1[v, 0], dt1[v, 1], dt1[v, 2] = _unit(x, y, z, False)

    return skin


SKIN = {method: _pass(method) for method in (LINEAR, DUAL, BLENDED, CENTERS, RIGID)}


# ---- the dual quaternion palette ---------------------------------------------------------

_SWEEPS = 32                 # Jacobi sweeps at most (a handful converge)
_CONVERGED = 1e-36           # off-diagonal mass, relative to K's, taken as converged


@kernel(inner=True)          # the rare case's: not inlined, so it does not crowd the common
def _rotation_quaternion(a, k, e):
    """The unit quaternion (x, y, z, w), w >= 0, of the rotation R maximizing tr(R^T A),
    A = a[:, :3]: the polar decomposition's rotation, or, where det A < 0, the rotation
    nearest it (an SVD's U diag(1, 1, -1) V^T), the mirror left to S. That R's quaternion is
    the eigenvector of the 4 x 4 symmetric K with q^T K q = tr(R(q)^T A) for the largest
    eigenvalue (Davenport's q-method), found by cyclic Jacobi rotations in binary64. k and
    e are 4 x 4 work: K, then its eigenvectors in e's columns, order w x y z."""
    k[0, 0] = a[0, 0] + a[1, 1] + a[2, 2]
    k[1, 1] = a[0, 0] - a[1, 1] - a[2, 2]
    k[2, 2] = -a[0, 0] + a[1, 1] - a[2, 2]
    k[3, 3] = -a[0, 0] - a[1, 1] + a[2, 2]
    k[0, 1] = k[1, 0] = a[2, 1] - a[1, 2]
    k[0, 2] = k[2, 0] = a[0, 2] - a[2, 0]
    k[0, 3] = k[3, 0] = a[1, 0] - a[0, 1]
    k[1, 2] = k[2, 1] = a[0, 1] + a[1, 0]
    k[1, 3] = k[3, 1] = a[0, 2] + a[2, 0]
    k[2, 3] = k[3, 2] = a[1, 2] + a[2, 1]
    scale = 0.0
    for i in range(4):
        for j in range(4):
            e[i, j] = 1.0 if i == j else 0.0
            scale += k[i, j] * k[i, j]
    for _ in range(_SWEEPS):
        off = 0.0
        for p in range(3):
            for q in range(p + 1, 4):
                off += k[p, q] * k[p, q]
        if off <= _CONVERGED * scale:       # quadratic convergence: a sweep or two past this
            break
        for p in range(3):
            for q in range(p + 1, 4):
                if k[p, q] == 0.0:
                    continue
                theta = (k[q, q] - k[p, p]) / (2.0 * k[p, q])
                t = (1.0 if theta >= 0 else -1.0) / (abs(theta) + np.sqrt(theta * theta + 1.0))
                c = 1.0 / np.sqrt(t * t + 1.0)
                s = t * c
                for r in range(4):          # K J, then J^T (K J), and E J
                    kp, kq = k[r, p], k[r, q]
                    k[r, p], k[r, q] = c * kp - s * kq, s * kp + c * kq
                for r in range(4):
                    kp, kq = k[p, r], k[q, r]
                    k[p, r], k[q, r] = c * kp - s * kq, s * kp + c * kq
                    ep, eq = e[r, p], e[r, q]
                    e[r, p], e[r, q] = c * ep - s * eq, s * ep + c * eq
    best = 0
    for i in range(1, 4):
        if k[i, i] > k[best, best]:
            best = i
    w, x, y, z = e[0, best], e[1, best], e[2, best], e[3, best]
    length = np.sqrt(((w * w + x * x) + y * y) + z * z)
    sign = -1.0 if w < 0 else 1.0
    return sign * x / length, sign * y / length, sign * z / length, sign * w / length


_NEWTON_STEPS = 40           # scaled Newton steps at most (well-conditioned A: 5 to 8)
_NEWTON_CONVERGED = 1e-20    # squared change of a step, relative to 3 (R's F-norm squared)


@kernel(inner=True, inline=True)
def _newton_rotation(a):
    """The polar decomposition's rotation R of A = a[:, :3] where det A > 0, by Newton's
    iteration X <- (g X + X^-T / g) / 2 with Higham's scaling g (the F-norms' ratio, cut at
    a change below 1e-3), as a quaternion (x, y, z, w), w >= 0, from R's largest diagonal
    sum (Shepperd); ok False where det A <= 0 or it does not converge (the caller then takes
    Davenport's q-method). Far fewer operations than Jacobi rotations, in binary64."""
    m00, m01, m02 = a[0, 0], a[0, 1], a[0, 2]
    m10, m11, m12 = a[1, 0], a[1, 1], a[1, 2]
    m20, m21, m22 = a[2, 0], a[2, 1], a[2, 2]
    det = m00 * (m11 * m22 - m12 * m21) - m01 * (m10 * m22 - m12 * m20) + m02 * (m10 * m21 - m11 * m20)
    ok = det > 0.0
    scaled = True
    converged = False
    for _ in range(_NEWTON_STEPS):
        if not ok:
            break
        c00, c01, c02 = m11 * m22 - m12 * m21, m12 * m20 - m10 * m22, m10 * m21 - m11 * m20
        c10, c11, c12 = m02 * m21 - m01 * m22, m00 * m22 - m02 * m20, m01 * m20 - m00 * m21
        c20, c21, c22 = m01 * m12 - m02 * m11, m02 * m10 - m00 * m12, m00 * m11 - m01 * m10
        det = m00 * c00 + m01 * c01 + m02 * c02       # X^-T = C / det
        if not det > 0.0:
            ok = False
            break
        g = 1.0
        if scaled and abs(det - 1.0) > 1e-3:       # near R, g is 1 to within the change
            nx = (m00 * m00 + m01 * m01 + m02 * m02 + m10 * m10 + m11 * m11 + m12 * m12
                  + m20 * m20 + m21 * m21 + m22 * m22)
            nc = (c00 * c00 + c01 * c01 + c02 * c02 + c10 * c10 + c11 * c11 + c12 * c12
                  + c20 * c20 + c21 * c21 + c22 * c22)
            g = math.sqrt(math.sqrt(nc / nx) / det)
        h, k = 0.5 * g, 0.5 / (g * det)
        n00, n01, n02 = h * m00 + k * c00, h * m01 + k * c01, h * m02 + k * c02
        n10, n11, n12 = h * m10 + k * c10, h * m11 + k * c11, h * m12 + k * c12
        n20, n21, n22 = h * m20 + k * c20, h * m21 + k * c21, h * m22 + k * c22
        d0, d1, d2, d3, d4 = n00 - m00, n01 - m01, n02 - m02, n10 - m10, n11 - m11
        d5, d6, d7, d8 = n12 - m12, n20 - m20, n21 - m21, n22 - m22
        change = (d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3 + d4 * d4 + d5 * d5 + d6 * d6
                  + d7 * d7 + d8 * d8)
        m00, m01, m02, m10, m11, m12, m20, m21, m22 = n00, n01, n02, n10, n11, n12, n20, n21, n22
        if change < 1e-6:
            scaled = False          # near R: plain steps converge quadratically
        if change <= 3.0 * _NEWTON_CONVERGED:
            converged = True
            break
    if not (ok and converged):
        return False, 0.0, 0.0, 0.0, 1.0
    trace = m00 + m11 + m22
    if trace >= m00 and trace >= m11 and trace >= m22:
        w = 0.5 * math.sqrt(1.0 + trace)
        f = 0.25 / w
        x, y, z = (m21 - m12) * f, (m02 - m20) * f, (m10 - m01) * f
    elif m00 >= m11 and m00 >= m22:
        x = 0.5 * math.sqrt(1.0 + m00 - m11 - m22)
        f = 0.25 / x
        y, z, w = (m01 + m10) * f, (m02 + m20) * f, (m21 - m12) * f
    elif m11 >= m22:
        y = 0.5 * math.sqrt(1.0 - m00 + m11 - m22)
        f = 0.25 / y
        x, z, w = (m01 + m10) * f, (m12 + m21) * f, (m02 - m20) * f
    else:
        z = 0.5 * math.sqrt(1.0 - m00 - m11 + m22)
        f = 0.25 / z
        x, y, w = (m02 + m20) * f, (m12 + m21) * f, (m10 - m01) * f
    f = (-1.0 if w < 0 else 1.0) / math.sqrt(((w * w + x * x) + y * y) + z * z)
    return True, f * x, f * y, f * z, f * w


@kernel(signature=(reads(np.float64, 3, "A"), writes(np.float32, 2, "A")))
def dual_quaternions(palette, out):
    """out (joints, 20) from palette (joints, 3, 4), binary64 then rounded: each A = R S as
    R's quaternion q (w >= 0), the dual part q_t q / 2 (q_t the translation as a pure
    quaternion), and S = R^T A, three rows of four (the fourth 0). R by Newton's iteration
    where det A > 0 (_newton_rotation), else by Davenport's q-method (_rotation_quaternion).
    Each joint on its own:
    spans of joints on several threads give the bits of one call."""
    k = np.empty((4, 4))
    e = np.empty((4, 4))
    for j in range(palette.shape[0]):
        a = palette[j]
        ok, x, y, z, w = _newton_rotation(a)
        if not ok:              # a mirror, a singular or an ill-conditioned A
            x, y, z, w = _rotation_quaternion(a, k, e)
        r0, r1, r2 = 1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)
        r3, r4, r5 = 2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)
        r6, r7, r8 = 2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)
        tx, ty, tz = a[0, 3], a[1, 3], a[2, 3]
        o = out[j]
        o[0], o[1], o[2], o[3] = x, y, z, w
        o[4] = 0.5 * (w * tx + (ty * z - tz * y))
        o[5] = 0.5 * (w * ty + (tz * x - tx * z))
        o[6] = 0.5 * (w * tz + (tx * y - ty * x))
        o[7] = -0.5 * ((tx * x + ty * y) + tz * z)
        for col in range(3):                # S = R^T A, written out: R's rows by column
            a0, a1, a2 = a[0, col], a[1, col], a[2, col]
            o[8 + col] = (r0 * a0 + r3 * a1) + r6 * a2
            o[12 + col] = (r1 * a0 + r4 * a1) + r7 * a2
            o[16 + col] = (r2 * a0 + r5 * a1) + r8 * a2
        o[11], o[15], o[19] = 0.0, 0.0, 0.0


# ---- morph targets ---------------------------------------------------------------------------
MORPH_FLOOR = np.float32(1e-30)     # added to squared lengths: a zero normal stays zero


@kernel
def morph(source, target, first, end, moves, weights, deltas, indices, renormalize):
    """target rows [first, end) = source's plus each move's deltas at its target's weight,
    target by target (none at weight 0), a sparse target's through its vertices within the
    range; then, to `renormalize`, each row over its length (zero kept zero). binary32, as
    the numpy code it replaced: each delta times its weight, added. A row's bits come from
    its own source row and its deltas in move order alone, so ranges cut anywhere (spans on
    several threads) give the bits of the whole range."""
    width = np.uint64(target.shape[1])
    one, two, three = np.uint64(1), np.uint64(2), np.uint64(3)
    begin, stop = np.uint64(first), np.uint64(end)       # unsigned: no index wraparound
    for v in range(begin, stop):
        for c in range(width):
            target[v, c] = source[v, c]
    for m in range(moves.shape[0]):
        w = weights[moves[m, 0]]
        if w == 0:
            continue
        at, rows = np.uint64(moves[m, 1]), np.uint64(moves[m, 2])
        if moves[m, 3] == 0:
            for v in range(begin, stop):
                if width == three:      # written out: a loop of 3 costs the adds' time again
                    o = at + v * three
                    target[v, 0] += deltas[o] * w
                    target[v, 1] += deltas[o + one] * w
                    target[v, 2] += deltas[o + two] * w
                else:
                    for c in range(width):
                        target[v, c] += deltas[at + v * width + c] * w
        else:
            lo = np.uint64(moves[m, 4])
            mine = indices[lo:lo + rows]
            for k in range(np.uint64(np.searchsorted(mine, first)),
                           np.uint64(np.searchsorted(mine, end))):
                v = np.uint64(mine[k])
                if width == three:
                    o = at + k * three
                    target[v, 0] += deltas[o] * w
                    target[v, 1] += deltas[o + one] * w
                    target[v, 2] += deltas[o + two] * w
                else:
                    for c in range(width):
                        target[v, c] += deltas[at + k * width + c] * w
    if renormalize:
        for v in range(begin, stop):
            x, y, z = target[v, 0], target[v, 1], target[v, 2]
            length = np.sqrt(((x * x + y * y) + z * z) + MORPH_FLOOR)
            target[v, 0], target[v, 1], target[v, 2] = x / length, y / length, z / length
