"""The skinning kernels (skinning_kernels) against a plain reference, vertex by vertex: every
method's documented operations in binary32 scalars, in the documented order, bit for bit, on
random influences and palettes with weightless vertices, zero weights, collapsed, mirrored,
huge and NaN entries; a rigid file's own path against the general linear sums; and jobs of
any number of streams against one stream at a time."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime import capi
from runtime.deform.influences import CenterSource, Influences
from runtime.deform.skinning import (SkinJob, SkinStream, StreamKind, palette_to_dual_quaternions,
                                     skin_blended, skin_centers, skin_dual_quaternion, skin_linear)

from test_skin_fixtures import build, humanoid, open_influences, open_skin

F = np.float32
JOINTS = 12
METHODS = {"linear": skin_linear, "dual": skin_dual_quaternion, "blended": skin_blended,
           "centers": skin_centers}


@pytest.fixture(scope="module")
def skin():
    return open_skin(humanoid(JOINTS))


# ---- the reference ----------------------------------------------------------------------

def apply3(a, x):
    """a (3 x 3 row-major) times x, each row ((a0 x0 + a1 x1) + a2 x2)."""
    return [F(F(F(a[3 * r] * x[0]) + F(a[3 * r + 1] * x[1])) + F(a[3 * r + 2] * x[2]))
            for r in range(3)]


def times3(r, s):
    return [F(F(F(r[3 * i] * s[c]) + F(r[3 * i + 1] * s[3 + c])) + F(r[3 * i + 2] * s[6 + c]))
            for i in range(3) for c in range(3)]


def rotation(q):
    """R(q) / |q|^2 by one reciprocal, and the reciprocal."""
    x, y, z, w = q
    norm = F(F(F(F(x * x) + F(y * y)) + F(z * z)) + F(w * w))
    inv = F(F(1) / norm)
    ww = F(w * w)

    def off(a, b, c, d):              # 2 (a b -+ c d) / |q|^2
        return F(F(2) * F(F(a * b) + F(c * d))) * inv
    diag = [F(F(F(2) * F(F(v * v) + ww)) - norm) * inv for v in (x, y, z)]
    return [diag[0], off(x, y, -z, w), off(x, z, y, w),
            off(x, y, z, w), diag[1], off(y, z, -x, w),
            off(x, z, -y, w), off(y, z, x, w), diag[2]], inv


def slots(infl, v, rows):
    count = min(int(infl.counts[v]), infl.per_vertex)
    joints = [int(infl.joints[s, v]) for s in range(count)]
    return [j if j < rows else 0 for j in joints], [F(infl.weights[s, v]) for s in range(count)]


def summed(table, joints, weights, columns, signed=None, q_at=0):
    """Each column's sum from -0 in slot order; the `signed` columns at the weight negated
    where the joint's quaternion (at q_at) points away from the first's."""
    acc = [F(-0.0)] * len(columns)
    lead = table[joints[0], q_at:q_at + 4]
    for s, (j, w) in enumerate(zip(joints, weights)):
        turned = w
        if s > 0 and signed:
            q = table[j, q_at:q_at + 4]
            dot = F(F(F(F(q[0] * lead[0]) + F(q[1] * lead[1])) + F(q[2] * lead[2]))
                    + F(q[3] * lead[3]))
            turned = -w if dot < 0 else w
        acc = [F(a + F((turned if signed and c in signed else w) * table[j, c]))
               for a, c in zip(acc, columns)]
    return acc


def linear_affine(palette, joints, weights):
    m = summed(palette.reshape(-1, 12), joints, weights, range(12))
    return [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]], [m[3], m[7], m[11]]


S_COLUMNS = [8, 9, 10, 12, 13, 14, 16, 17, 18]


def dual_affine(dq, joints, weights):
    sums = summed(dq, joints, weights, list(range(8)) + S_COLUMNS, signed=range(8))
    q, d, s = sums[0:4], sums[4:8], sums[8:17]
    r, inv = rotation(q)
    x, y, z, w = q
    dx, dy, dz, dw = d
    t = [F(F(2) * F(F(F(F(a * w) - F(dw * b)) + F(c * e)) - F(f * g))) * inv
         for a, b, c, e, f, g in ((dx, x, dz, y, dy, z), (dy, y, dx, z, dz, x),
                                  (dz, z, dy, x, dx, y))]
    return times3(r, s), t


def rigid_parts(dq):
    """Each joint's R_j (row-major) and t_j in binary64, rounded once."""
    out = np.zeros((dq.shape[0], 12), F)
    for j, row in enumerate(dq.astype(np.float64)):
        x, y, z, w, dx, dy, dz, dw = row[:8]
        out[j] = [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                  2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                  2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
                  2 * ((w * dx - dw * x) + (y * dz - z * dy)),
                  2 * ((w * dy - dw * y) + (z * dx - x * dz)),
                  2 * ((w * dz - dw * z) + (x * dy - y * dx))]
    return out


def centers_affine(dq, joints, weights, c):
    sums = summed(dq, joints, weights, list(range(4)) + S_COLUMNS, signed=range(4))
    q, s = sums[0:4], sums[4:13]
    m = summed(rigid_parts(dq), joints, weights, range(12))
    r, _ = rotation(q)
    sc = apply3(s, c)
    x = apply3([F(m[i] - r[i]) for i in range(9)], sc)
    return times3(r, s), [F(x[i] + m[9 + i]) for i in range(3)]


def mixed_affine(palette, dq, joints, weights, b):
    if b == 0:
        return linear_affine(palette, joints, weights)
    a2, t2 = dual_affine(dq, joints, weights)
    if b == 1:
        return a2, t2
    a, t = linear_affine(palette, joints, weights)
    rest = F(F(1) - b)
    return ([F(F(x * rest) + F(y * b)) for x, y in zip(a, a2)],
            [F(F(x * rest) + F(y * b)) for x, y in zip(t, t2)])


def cofactors(a):
    c = []
    for r in range(3):
        r1, r2 = 3 * ((r + 1) % 3), 3 * ((r + 2) % 3)
        for k in range(3):
            k1, k2 = (k + 1) % 3, (k + 2) % 3
            c.append(F(F(a[r1 + k1] * a[r2 + k2]) - F(a[r1 + k2] * a[r2 + k1])))
    return c, F(F(F(a[0] * c[0]) + F(a[1] * c[1])) + F(a[2] * c[2]))


def unit(x, flip):
    length = np.sqrt(F(F(F(x[0] * x[0]) + F(x[1] * x[1])) + F(x[2] * x[2])))
    if length <= F(1e-12):
        return [F(0)] * 3
    inverse = F(F(-1 if flip else 1) / length)
    return [F(v * inverse) for v in x]


def reference(method, infl, palette, dq, streams):
    """Every stream's targets, vertex by vertex, as the kernels document them."""
    outs = [np.array(src, F) for _, src in streams]
    rows = infl.joint_count
    with np.errstate(all="ignore"):
        for v in range(infl.vertex_count):
            joints, weights = slots(infl, v, rows)
            if not joints:
                continue                        # copied
            if method == "linear":
                a, t = linear_affine(palette, joints, weights)
            elif method == "dual":
                a, t = dual_affine(dq, joints, weights)
            elif method == "blended":
                b = F(0) if infl.dq_weights is None else F(infl.dq_weights[v])
                a, t = mixed_affine(palette, dq, joints, weights, b)
            else:
                a, t = centers_affine(dq, joints, weights, [F(x) for x in infl.centers[v]])
            c, det = cofactors(a)
            for (kind, src), out in zip(streams, outs):
                x = [F(e) for e in src[v]]
                if kind == StreamKind.position:
                    out[v] = [F(p + q) for p, q in zip(apply3(a, x), t)]
                elif kind == StreamKind.normal:
                    out[v] = unit(apply3(c, x), det < 0)
                else:
                    out[v] = unit(apply3(a, x), False)
    return outs


# ---- the data ---------------------------------------------------------------------------

def random_palette(rng, special):
    p = rng.normal(size=(JOINTS, 3, 4)).astype(F)
    if special:
        p[1, :, :3] = 0                                 # collapsed
        p[2, :, :3] = np.diag([1, 1, 0])                # flattened along z
        p[3, :, 0] *= -1                                # mirrored
        p[4] *= F(3e30)                                 # huge
        p[5, 1, 2] = np.nan
    return p


def random_dual(rng, palette, special):
    good = np.where(np.isfinite(palette).all(axis=(1, 2))[:, None, None], palette, 1)
    dq = palette_to_dual_quaternions(good)
    if special:
        dq[4, 4:8] = F(3e30)                            # a huge translation
        dq[5, 9] = np.nan                               # a NaN in S
        dq[6, 0:4] = 0                                  # a zero quaternion
        dq[7, 0:4] *= -1                                # the other hemisphere's
    return dq


def random_influences(rng, skin, n, per, special):
    joints = np.argsort(rng.random((n, JOINTS)), axis=1)[:, :per]
    weights = rng.random((n, per)) + 0.01
    weights[rng.random(n) < 0.2] = 0                    # weightless vertices
    weights[rng.random((n, per)) < 0.3] = 0             # zero weights in between
    if special:
        joints[0] = np.roll(np.arange(JOINTS), -5)[:per]   # the NaN joint first
        weights[0, 0] = 1
    return open_influences(skin, joints, weights, dq=rng.choice([0.0, 1.0, 0.25], size=n))


def random_streams(rng, n, special):
    kinds = rng.choice([0, 1, 2], size=int(rng.integers(1, 7)))
    streams = []
    for kind in kinds:
        x = rng.normal(size=(n, 3)).astype(F)
        if special:
            x[1::3] = [F(3e30), 0, 1]
            x[2::3] = 0
        streams.append((StreamKind(int(kind)), x))
    return streams


def run_interleaved(method, infl, palette, dq, streams):
    """The streams as columns of one interleaved buffer each way, one job."""
    width = 3 * len(streams) + 2
    source = np.zeros((infl.vertex_count, width), F)
    target = np.full((infl.vertex_count, width), 7.0, F)
    for i, (_, x) in enumerate(streams):
        source[:, 3 * i:3 * i + 3] = x
    method(SkinJob(infl, palette, dq, [SkinStream(k, source[:, 3 * i:3 * i + 3],
                                                  target[:, 3 * i:3 * i + 3])
                                       for i, (k, _) in enumerate(streams)]))
    np.testing.assert_array_equal(target[:, -2:], 7.0)
    return [target[:, 3 * i:3 * i + 3] for i in range(len(streams))]


def assert_bits(got, want):
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(1, 40), per=st.integers(1, 8),
       special=st.booleans(), method=st.sampled_from(sorted(METHODS)))
def test_every_method_is_its_reference_bit_for_bit(skin, seed, n, per, special, method):
    rng = np.random.default_rng(seed)
    infl = random_influences(rng, skin, n, per, special)
    if method == "centers":
        infl = Influences.open(build(capi.maniBuildCenters, CenterSource(
            infl, rng.normal(size=(n, 3)), np.zeros((0, 3), int))))
    palette = random_palette(rng, special)
    dq = random_dual(rng, palette, special)
    streams = random_streams(rng, n, special)
    got = run_interleaved(METHODS[method], infl, palette, dq, streams)
    for g, w in zip(got, reference(method, infl, palette, dq, streams)):
        assert_bits(g, w)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(1, 300), special=st.booleans())
def test_a_rigid_file_gives_the_bits_of_the_general_linear_sums(skin, seed, n, special):
    """One joint at weight 1 a vertex: linear skinning takes each joint's matrix, cofactors
    and determinant once a call; blended skinning at b = 0 sums them vertex by vertex."""
    rng = np.random.default_rng(seed)
    joints = np.sort(rng.integers(0, JOINTS, (n, 1)), axis=0)
    weights = (rng.random((n, 1)) > 0.1).astype(float)
    infl = open_influences(skin, joints, weights, dq=np.zeros(n))
    assert infl.rigid
    palette = random_palette(rng, special)
    dq = random_dual(rng, palette, special)
    streams = [(StreamKind(k), rng.normal(size=(n, 3)).astype(F)) for k in (0, 1, 2, 2)]
    rigid = run_interleaved(skin_linear, infl, palette, dq, streams)
    general = run_interleaved(skin_blended, infl, palette, dq, streams)
    for r, g in zip(rigid, general):
        assert_bits(r, g)
    cut = int(rng.integers(0, n + 1))             # and split ranges give the same bits
    parts = [np.empty((n, 3), F) for _ in streams]
    for a, b in ((0, cut), (cut, n)):
        skin_linear(SkinJob(infl, palette, None, [SkinStream(k, x, o) for (k, x), o
                                                  in zip(streams, parts)], a, b - a))
    for r, p in zip(rigid, parts):
        assert_bits(p, r)


@pytest.mark.parametrize("method", sorted(METHODS))
def test_many_streams_give_the_bits_of_one_stream_at_a_time(skin, method):
    """Seven streams (three positions, a normal, three directions) take three passes of the
    kernel; each stream's bits are those of a job of it alone."""
    rng = np.random.default_rng(3)
    n = 200
    infl = random_influences(rng, skin, n, 4, False)
    if method == "centers":
        infl = Influences.open(build(capi.maniBuildCenters, CenterSource(
            infl, rng.normal(size=(n, 3)), np.zeros((0, 3), int))))
    palette = random_palette(rng, False)
    dq = random_dual(rng, palette, False)
    streams = [(StreamKind(k), rng.normal(size=(n, 3)).astype(F)) for k in (2, 0, 1, 0, 2, 2, 0)]
    together = run_interleaved(METHODS[method], infl, palette, dq, streams)
    for stream, got in zip(streams, together):
        (alone,) = run_interleaved(METHODS[method], infl, palette, dq, [stream])
        assert_bits(got, alone)


def test_a_target_may_be_its_own_source_and_another_streams(skin):
    """Every source of a vertex is read before any of its targets is written: a normal
    stream reading the rows a position stream writes reads them as they were."""
    rng = np.random.default_rng(4)
    n = 100
    infl = random_influences(rng, skin, n, 3, False)
    palette = random_palette(rng, False)
    other = np.empty((n, 3), F)
    source = rng.normal(size=(n, 3)).astype(F)
    want_p, want_n = reference("linear", infl, palette, None,
                               [(StreamKind.position, source), (StreamKind.normal, source)])
    skin_linear(SkinJob(infl, palette, None, [SkinStream(0, source, source),
                                              SkinStream(1, source, other)]))
    assert_bits(source, want_p)
    assert_bits(other, want_n)


def svd_dual_quaternions(palette):
    """The conversion by an SVD per matrix (numpy, binary64): R = U V^T with U's last column
    turned where that would mirror, q its quaternion (w >= 0), S = R^T A."""
    from runtime.core.transform import quat_mul, quats_from_matrices
    p = palette.astype(np.float64)
    u, _, vt = np.linalg.svd(p[:, :, :3])
    turn = np.linalg.det(u @ vt) < 0
    u[turn, :, 2] *= -1
    r = u @ vt
    q = quats_from_matrices(r)
    t = np.zeros((len(p), 4))
    t[:, :3] = p[:, :, 3]
    s = np.zeros((len(p), 3, 4))
    s[:, :, :3] = np.swapaxes(r, 1, 2) @ p[:, :, :3]
    return np.hstack([q, 0.5 * quat_mul(t, q), s.reshape(-1, 12)])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), shear=st.booleans(), mirror=st.booleans())
def test_the_dual_quaternion_palette_is_the_svds_polar_decomposition(seed, shear, mirror):
    """The compiled conversion (Newton's polar iteration, Davenport's q-method by Jacobi
    rotations for mirrors) against an SVD per matrix: rotations, scales, shears, mirrors
    and translations."""
    rng = np.random.default_rng(seed)
    n = 30
    q = rng.normal(size=(n, 4))
    x, y, z, w = (q / np.linalg.norm(q, axis=1, keepdims=True)).T
    r = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                  2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                  2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
                 1).reshape(-1, 3, 3)
    s = np.eye(3) * rng.uniform(0.1, 4.0, size=(n, 1, 3))
    if shear:
        s = s + rng.normal(scale=0.3, size=(n, 3, 3))
    p = np.zeros((n, 3, 4))
    p[:, :, :3] = r @ s
    if mirror:
        p[::2, :, int(rng.integers(0, 3))] *= -1
    p[:, :, 3] = rng.normal(size=(n, 3)) * 10
    p = p.astype(F)
    got = palette_to_dual_quaternions(p).astype(np.float64)
    want = svd_dual_quaternions(p)
    flip = np.where(np.sign(got[:, 3]) * np.sign(want[:, 3]) < 0, -1.0, 1.0)   # w at 0
    got[:, :8] *= flip[:, None]
    np.testing.assert_allclose(got, want, atol=2e-6 * (1 + np.abs(want).max()))


@pytest.mark.parametrize("scales", [(1e-4, 1, 1e4), (1e-20, 1, 1e20), (1e30, 1e30, 1e-30),
                                    (1e-37, 1e-37, 1e-37), (3e38, 1, 1)])
def test_ill_conditioned_and_extreme_palettes_are_the_svds_rotation(scales):
    """Newton's iteration (rotation times scales times a rotation, det > 0) where the scales
    span up to 40 decades or lie near binary32's ends: the SVD's rotation to within rounding."""
    rng = np.random.default_rng(3)
    n = 40
    u = np.linalg.qr(rng.normal(size=(n, 3, 3)))[0]
    v = np.linalg.qr(rng.normal(size=(n, 3, 3)))[0]
    u *= np.sign(np.linalg.det(u))[:, None, None]
    v *= np.sign(np.linalg.det(v))[:, None, None]
    p = np.zeros((n, 3, 4))
    p[:, :, :3] = u @ (np.array(scales)[None, :, None] * v)
    p = p.astype(F)
    got = palette_to_dual_quaternions(p).astype(np.float64)[:, :4]
    want = svd_dual_quaternions(p)[:, :4]
    err = np.minimum(np.abs(got - want).max(1), np.abs(got + want).max(1))
    assert err.max() < 1e-6
