"""skinning.h's four methods: what each does to positions, normals and directions, and that a
job's bits do not depend on its range, its scratch or its buffers' layout."""
import numpy as np
import pytest

from runtime import capi
from runtime.deform.skinning import (SkinJob, SkinStream, StreamKind, palette_to_dual_quaternions,
                                     skin_blended, skin_centers, skin_dual_quaternion, skin_linear)

from runtime_fixtures import rotation_matrix
from test_skin_fixtures import (axis_angle, humanoid, local, open_influences, open_skin,
                                posed_palette, radius_about_x, random_influences, run, tube)

METHODS = [skin_linear, skin_dual_quaternion, skin_blended, skin_centers]


@pytest.fixture(scope="module")
def tube_rig():
    return tube()


def random_palette(rng, joints, scale=(0.5, 2.0)):
    """Affines of random rotation, positive scale and translation."""
    q = rng.normal(size=(joints, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    x, y, z, w = q.T
    r = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                  2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                  2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], 1)
    p = np.zeros((joints, 3, 4))
    p[:, :, :3] = r.reshape(-1, 3, 3) * rng.uniform(*scale, size=(joints, 1, 3))
    p[:, :, 3] = rng.normal(size=(joints, 3))
    return p.astype(np.float32)


def with_centers(infl, positions, triangles=None):
    from runtime.deform.influences import CenterSource, Influences
    from test_skin_fixtures import build
    tris = np.zeros((0, 3), int) if triangles is None else triangles
    return Influences.open(build(capi.maniBuildCenters, CenterSource(infl, positions, tris)))


def reference_normals(matrices, normals):
    inv_t = np.linalg.inv(matrices[:, :, :3].astype(np.float64)).transpose(0, 2, 1)
    n = np.einsum("nij,nj->ni", inv_t, normals)
    return n / np.linalg.norm(n, axis=1, keepdims=True)


def test_one_influence_is_that_joints_matrix_for_every_method():
    rng = np.random.default_rng(3)
    skin = open_skin(humanoid(40))
    n = 600
    joints = rng.integers(0, 40, (n, 1))
    infl = open_influences(skin, joints, np.ones((n, 1)), dq=rng.random(n))
    palette = random_palette(rng, 40)
    dq = palette_to_dual_quaternions(palette)
    p = rng.normal(size=(n, 3))
    nrm = rng.normal(size=(n, 3))
    d = rng.normal(size=(n, 3))
    m = palette.astype(np.float64)[joints[:, 0]]
    want_p = np.einsum("nij,nj->ni", m[:, :, :3], p) + m[:, :, 3]
    want_n = reference_normals(m, nrm)
    want_d = np.einsum("nij,nj->ni", m[:, :, :3], d)
    want_d /= np.linalg.norm(want_d, axis=1, keepdims=True)
    streams = [(StreamKind.position, p), (StreamKind.normal, nrm), (StreamKind.direction, d)]
    for method in METHODS:
        target = with_centers(infl, p) if method is skin_centers else infl
        op, on, od = run(method, target, palette, dq, streams)
        np.testing.assert_allclose(op, want_p, atol=2e-5 * (1 + np.abs(want_p).max()))
        np.testing.assert_allclose(on, want_n, atol=2e-5)
        np.testing.assert_allclose(od, want_d, atol=2e-5)


@pytest.mark.parametrize("joints", [30, 60])
def test_linear_blends_matrices_and_normals_take_the_blended_inverse_transpose(joints):
    rng = np.random.default_rng(4)
    skin = open_skin(humanoid(joints))
    infl = random_influences(rng, skin, 500, per=3)
    palette = random_palette(rng, joints)
    p = rng.normal(size=(500, 3))
    nrm = rng.normal(size=(500, 3))
    w = np.array(infl.weights, np.float64)
    j = np.array(infl.joints)
    m = np.einsum("kn,knij->nij", w, palette.astype(np.float64)[j])
    op, on = run(skin_linear, infl, palette, None, [(0, p), (1, nrm)])
    np.testing.assert_allclose(op, np.einsum("nij,nj->ni", m[:, :, :3], p) + m[:, :, 3], atol=1e-4)
    np.testing.assert_allclose(on, reference_normals(m, nrm), atol=1e-4)


def test_normals_under_nonuniform_scale_follow_the_inverse_transpose_even_mirrored():
    rng = np.random.default_rng(5)
    skin = open_skin(humanoid(8))
    n = 200
    infl = open_influences(skin, rng.integers(0, 8, (n, 1)), np.ones((n, 1)))
    palette = random_palette(rng, 8, scale=(0.2, 3.0))
    palette[::2, :, 0] *= -1                       # mirrored joints: det < 0
    nrm = rng.normal(size=(n, 3))
    (on,) = run(skin_linear, infl, palette, None, [(StreamKind.normal, nrm)])
    m = palette.astype(np.float64)[np.array(infl.joints)[0]]
    np.testing.assert_allclose(on, reference_normals(m, nrm), atol=3e-5)
    # the plain matrix would be wrong: the check can fail
    plain = np.einsum("nij,nj->ni", m[:, :, :3], nrm)
    plain /= np.linalg.norm(plain, axis=1, keepdims=True)
    assert np.abs(plain - on).max() > 0.1


def test_collapsed_directions_and_normals_become_zero():
    skin = open_skin(humanoid(4))
    infl = open_influences(skin, np.zeros((4, 1), int), np.ones((4, 1)))
    palette = np.zeros((4, 3, 4), np.float32)
    palette[:, :, :3] = np.diag([1.0, 1.0, 0.0])          # z flattened away
    d = np.array([[0, 0, 1], [0, 0, -3], [1, 0, 0], [0, 1, 1]], np.float32)
    od, on = run(skin_linear, infl, palette, None, [(StreamKind.direction, d), (StreamKind.normal, d)])
    np.testing.assert_array_equal(od[:2], 0)
    np.testing.assert_allclose(od[2:], [[1, 0, 0], [0, 1, 0]], atol=1e-7)
    # the flattened surface faces along z: normals with a z part turn to it, others vanish
    np.testing.assert_allclose(on, [[0, 0, 1], [0, 0, -1], [0, 0, 0], [0, 0, 1]], atol=1e-7)
    palette[:] = 0                                        # everything collapses
    od, on = run(skin_linear, infl, palette, None, [(StreamKind.direction, d), (StreamKind.normal, d)])
    np.testing.assert_array_equal(np.abs(od), 0)
    np.testing.assert_array_equal(np.abs(on), 0)


def test_candy_wrapper_linear_collapses_dual_quaternion_and_centers_keep_the_radius(tube_rig):
    skeleton, skin, positions, normals, tris, infl, centers = tube_rig
    middle = np.abs(positions[:, 0] - 1.0) < 1e-9
    palette, dq = posed_palette(skeleton, skin, {1: local((1, 0, 0), axis_angle((1, 0, 0), 180))})
    radius = {}
    for method, target in ((skin_linear, infl), (skin_dual_quaternion, infl), (skin_centers, centers)):
        (out,) = run(method, target, palette, dq, [(StreamKind.position, positions)])
        radius[method.__name__] = radius_about_x(out[middle]).mean()
    assert radius["skin_linear"] < 0.1 * 0.2
    assert radius["skin_dual_quaternion"] >= 0.9 * 0.2
    assert radius["skin_centers"] >= 0.9 * 0.2


def distance_to_bent_axis(points):
    """Distance from the centerline bent 90 degrees at x = 1: (0,0,0)-(1,0,0)-(1,1,0)."""
    def segment(p, a, b):
        a, b = np.asarray(a, float), np.asarray(b, float)
        t = np.clip((p - a) @ (b - a) / ((b - a) @ (b - a)), 0, 1)
        return np.linalg.norm(p - (a + t[:, None] * (b - a)), axis=1)
    return np.minimum(segment(points, (0, 0, 0), (1, 0, 0)), segment(points, (1, 0, 0), (1, 1, 0)))


def test_at_a_right_angle_bend_centers_bulge_less_than_dual_quaternions(tube_rig):
    skeleton, skin, positions, normals, tris, infl, centers = tube_rig
    palette, dq = posed_palette(skeleton, skin, {1: local((1, 0, 0), axis_angle((0, 0, 1), 90))})
    (dual,) = run(skin_dual_quaternion, infl, palette, dq, [(StreamKind.position, positions)])
    (cor,) = run(skin_centers, centers, palette, dq, [(StreamKind.position, positions)])
    bulge_dq = distance_to_bent_axis(dual.astype(float)).max() - 0.2
    bulge_cor = distance_to_bent_axis(cor.astype(float)).max() - 0.2
    assert bulge_dq > 0.02                       # the dual quaternion bulge is there to measure
    assert bulge_cor < 0.75 * bulge_dq


@pytest.mark.parametrize("dense", [False, True])
def test_dual_quaternion_matches_a_float64_reference_with_hemispheres(dense):
    """Phase one: the blended scale-shear S; phase two: dual quaternions turned to the first's
    hemisphere, blended and normalized. Joints shared by nearby vertices, or scattered."""
    from runtime.core.transform import quat_mul
    rng = np.random.default_rng(6)
    skin = open_skin(humanoid(60))
    if dense:
        joints = np.argsort(rng.random((400, 6)), axis=1)[:, :4] + 3
        infl = open_influences(skin, joints, rng.random((400, 4)) + 0.05)
    else:
        infl = random_influences(rng, skin, 400, per=4)
    palette = random_palette(rng, 60, scale=(0.7, 1.4))
    dq = palette_to_dual_quaternions(palette).astype(np.float64)
    p = rng.normal(size=(400, 3))
    (out,) = run(skin_dual_quaternion, infl, palette, dq.astype(np.float32), [(0, p)])
    j = np.array(infl.joints).T
    w = np.array(infl.weights, np.float64).T
    q, d = dq[j, 0:4], dq[j, 4:8]
    s = dq[j, 8:20].reshape(400, 4, 3, 4)[:, :, :, :3]
    sign = np.where(np.einsum("nkc,nc->nk", q, q[:, 0]) < 0, -1.0, 1.0)
    assert (sign < 0).any()                      # some influences do turn hemisphere
    qb = np.einsum("nk,nkc->nc", w * sign, q)
    db = np.einsum("nk,nkc->nc", w * sign, d)
    sb = np.einsum("nk,nkij->nij", w, s)
    length = np.linalg.norm(qb, axis=1, keepdims=True)
    qb, db = qb / length, db / length
    t = 2 * quat_mul(db, qb * [-1, -1, -1, 1])[:, :3]
    x, y, z, ww = qb.T
    r = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - ww * z), 2 * (x * z + ww * y),
                  2 * (x * y + ww * z), 1 - 2 * (x * x + z * z), 2 * (y * z - ww * x),
                  2 * (x * z - ww * y), 2 * (y * z + ww * x), 1 - 2 * (x * x + y * y)], 1)
    want = np.einsum("nij,nj->ni", r.reshape(-1, 3, 3), np.einsum("nij,nj->ni", sb, p)) + t
    np.testing.assert_allclose(out, want, atol=5e-5)


def test_blended_at_0_and_1_gives_the_bits_of_linear_and_dual_quaternion():
    rng = np.random.default_rng(7)
    skin = open_skin(humanoid(30))
    n = 900
    b = rng.choice([0.0, 1.0, 0.25, 0.5], size=n)
    infl = random_influences(rng, skin, n, per=4, dq=b)
    palette = random_palette(rng, 30)
    dq = palette_to_dual_quaternions(palette)
    streams = [(0, rng.normal(size=(n, 3))), (1, rng.normal(size=(n, 3))), (2, rng.normal(size=(n, 3)))]
    lin = run(skin_linear, infl, palette, dq, streams)
    dual = run(skin_dual_quaternion, infl, palette, dq, streams)
    mixed = run(skin_blended, infl, palette, dq, streams)
    stored = np.array(infl.dq_weights)
    for lo, du, mi in zip(lin, dual, mixed):
        np.testing.assert_array_equal(mi[stored == 0].view(np.uint32), lo[stored == 0].view(np.uint32))
        np.testing.assert_array_equal(mi[stored == 1].view(np.uint32), du[stored == 1].view(np.uint32))
        half = stored == 0.5
        assert np.abs(mi[half] - lo[half]).max() > 1e-3 and np.abs(mi[half] - du[half]).max() > 1e-3
    # positions at b = 0.25 are the mix of the two methods' (linear in the matrix)
    quarter = stored == 0.25
    np.testing.assert_allclose(mixed[0][quarter], 0.75 * lin[0][quarter] + 0.25 * dual[0][quarter],
                               atol=2e-5 * (1 + np.abs(lin[0]).max()))


def test_blended_without_dual_quaternion_weights_is_linear():
    rng = np.random.default_rng(8)
    skin = open_skin(humanoid(10))
    infl = random_influences(rng, skin, 300, per=2)
    palette = random_palette(rng, 10)
    dq = palette_to_dual_quaternions(palette)
    streams = [(0, rng.normal(size=(300, 3)))]
    np.testing.assert_array_equal(run(skin_blended, infl, palette, dq, streams)[0],
                                  run(skin_linear, infl, palette, dq, streams)[0])


@pytest.mark.parametrize("joints", [12, 60])
def test_centers_formula_against_a_direct_evaluation(joints):
    """v' = R (S v - S c) + sum_j w_j (R_j S c + t_j), from the dual quaternion palette."""
    rng = np.random.default_rng(9)
    skin = open_skin(humanoid(joints))
    n = 300
    base = random_influences(rng, skin, n, per=3)
    p = rng.normal(size=(n, 3))
    infl = with_centers(base, p, rng.integers(0, n, (200, 3)))
    palette = random_palette(rng, joints, scale=(0.8, 1.3))
    dq64 = palette_to_dual_quaternions(palette).astype(np.float64)
    (out,) = run(skin_centers, infl, palette, dq64.astype(np.float32), [(0, p)])
    from runtime.core.transform import quat_mul
    j = np.array(infl.joints).T
    w = np.array(infl.weights, np.float64).T
    c = np.array(infl.centers, np.float64)
    q = dq64[j, 0:4]
    s = dq64[j, 8:20].reshape(n, -1, 3, 4)[:, :, :, :3]
    sign = np.where(np.einsum("nkc,nc->nk", q, q[:, 0]) < 0, -1.0, 1.0)
    qb = np.einsum("nk,nkc->nc", w * sign, q)
    qb /= np.linalg.norm(qb, axis=1, keepdims=True)

    def rot(qq):
        x, y, z, ww = np.moveaxis(qq, -1, 0)
        return np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - ww * z), 2 * (x * z + ww * y),
                         2 * (x * y + ww * z), 1 - 2 * (x * x + z * z), 2 * (y * z - ww * x),
                         2 * (x * z - ww * y), 2 * (y * z + ww * x), 1 - 2 * (x * x + y * y)],
                        -1).reshape(qq.shape[:-1] + (3, 3))
    sb = np.einsum("nk,nkij->nij", w, s)
    sc = np.einsum("nij,nj->ni", sb, c)
    tj = 2 * quat_mul(dq64[j, 4:8], q * [-1, -1, -1, 1])[..., :3]
    rigid = np.einsum("nk,nkij,nj->ni", w, rot(q), sc) + np.einsum("nk,nkc->nc", w, tj)
    r = rot(qb)
    want = np.einsum("nij,nj->ni", r, np.einsum("nij,nj->ni", sb, p) - sc) + rigid
    np.testing.assert_allclose(out, want, atol=5e-5)


def mixed_influences(rng, skin, n):
    """Vertices in runs that use few joints and scattered ones, some weightless, some with
    fewer influences, some with dual quaternion weights."""
    joints = np.argsort(rng.random((n, skin.joint_count)), axis=1)[:, :4]
    coherent = np.arange(n) < n // 2
    local_set = np.argsort(rng.random((n, 6)), axis=1)[:, :4] + (np.arange(n)[:, None] // 700) % 10
    joints = np.where(coherent[:, None], local_set, joints)
    weights = rng.random((n, 4)) + 0.01
    weights[rng.random(n) < 0.03] = 0                  # weightless vertices
    weights[:, 2:][rng.random(n) < 0.3] = 0           # fewer influences here and there
    return open_influences(skin, joints, weights, dq=rng.random(n).round(1))


@pytest.mark.parametrize("method", METHODS)
def test_split_ranges_give_the_bits_of_one_job(method):
    rng = np.random.default_rng(10)
    skin = open_skin(humanoid(40))
    n = 7000
    base = mixed_influences(rng, skin, n)
    assert (np.array(base.counts) == 0).any()
    p = rng.normal(size=(n, 3)).astype(np.float32)
    infl = with_centers(base, p, rng.integers(0, n, (500, 3))) if method is skin_centers else base
    palette = random_palette(rng, 40)
    dq = palette_to_dual_quaternions(palette)
    streams = [(0, p), (1, rng.normal(size=(n, 3))), (2, rng.normal(size=(n, 3)))]
    whole = run(method, infl, palette, dq, streams)
    cuts = np.sort(rng.choice(np.arange(1, n), 6, replace=False))
    parts = [np.empty((n, 3), np.float32) for _ in streams]
    for a, b in zip(np.r_[0, cuts], np.r_[cuts, n]):
        job = SkinJob(infl, palette, dq, [SkinStream(k, np.ascontiguousarray(s, np.float32), o)
                                          for (k, s), o in zip(streams, parts)], int(a), int(b - a))
        method(job)
    for w, p_ in zip(whole, parts):
        np.testing.assert_array_equal(w.view(np.uint32), p_.view(np.uint32))


def test_weightless_vertices_are_copied_bit_for_bit_even_in_place():
    rng = np.random.default_rng(11)
    skin = open_skin(humanoid(10))
    n = 50
    joints = rng.integers(0, 10, (n, 1))
    weights = np.ones((n, 1))
    weights[::3] = 0
    infl = open_influences(skin, joints, weights)
    palette = random_palette(rng, 10)
    buffer = rng.normal(size=(n, 8)).astype(np.float32)
    buffer[0, 3:6] = [3, 0, 0]                      # copied as is, not renormalized
    before = buffer.copy()
    job = SkinJob(infl, palette, None, [SkinStream(0, buffer[:, 0:3], buffer[:, 0:3]),
                                        SkinStream(1, buffer[:, 3:6], buffer[:, 3:6])])
    skin_linear(job)
    np.testing.assert_array_equal(buffer[::3], before[::3])
    assert not np.array_equal(buffer[1::3, :6], before[1::3, :6])
    np.testing.assert_array_equal(buffer[:, 6:], before[:, 6:])   # the uv columns untouched


def test_jobs_write_straight_into_an_interleaved_vertex_buffer():
    rng = np.random.default_rng(12)
    skin = open_skin(humanoid(20))
    infl = random_influences(rng, skin, 400, per=2)
    palette = random_palette(rng, 20)
    source = rng.normal(size=(400, 8)).astype(np.float32)
    target = np.full((400, 8), 7.0, np.float32)
    job = SkinJob(infl, palette, None, [SkinStream(0, source[:, 0:3], target[:, 0:3]),
                                        SkinStream(1, source[:, 3:6], target[:, 3:6])])
    skin_linear(job)
    want_p, want_n = run(skin_linear, infl, palette, None, [(0, source[:, 0:3]), (1, source[:, 3:6])])
    np.testing.assert_array_equal(target[:, 0:3], want_p)
    np.testing.assert_array_equal(target[:, 3:6], want_n)
    np.testing.assert_array_equal(target[:, 6:], 7.0)


def test_a_given_scratch_gives_the_same_bits():
    """The per-joint tables a call works out (rigid files' and centers') in the job's scratch
    or the thread's own."""
    from runtime.core.scratch import Scratch
    rng = np.random.default_rng(13)
    skin = open_skin(humanoid(20))
    p = rng.normal(size=(300, 3)).astype(np.float32)
    rigid = open_influences(skin, rng.integers(0, 20, (300, 1)), np.ones((300, 1)))
    assert rigid.rigid
    centers = with_centers(random_influences(rng, skin, 300, per=3), p)
    palette = random_palette(rng, 20)
    dq = palette_to_dual_quaternions(palette)
    for method, infl in ((skin_linear, rigid), (skin_centers, centers)):
        a, b = np.empty_like(p), np.empty_like(p)
        method(SkinJob(infl, palette, dq, [SkinStream(0, p, a)]))
        method(SkinJob(infl, palette, dq, [SkinStream(0, p, b)], scratch=Scratch()))
        np.testing.assert_array_equal(a, b)


def test_palette_to_dual_quaternions_splits_rotation_and_scale():
    rng = np.random.default_rng(14)
    palette = random_palette(rng, 12, scale=(0.3, 2.0))
    palette[3, :, 1] *= -1                                     # a mirror goes to S
    palette[4, :, :3] = np.array([[1, 0.5, 0], [0, 1, 0], [0, 0, 1]])     # a shear
    out = capi.maniConvertPaletteToDualQuaternions(palette)
    assert out.shape == (12, 20) and out.dtype == np.float32
    q, d, s = out[:, 0:4].astype(float), out[:, 4:8].astype(float), out[:, 8:20].reshape(12, 3, 4)
    assert (q[:, 3] >= 0).all()
    np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1, atol=1e-6)
    np.testing.assert_array_equal(s[:, :, 3], 0)
    from runtime.core.transform import quat_mul
    r = np.array([rotation_matrix(row) for row in q])
    np.testing.assert_allclose(np.linalg.det(r), 1, atol=1e-5)
    np.testing.assert_allclose(r @ s[:, :, :3], palette[:, :, :3], atol=1e-5)
    t = 2 * quat_mul(d, q * [-1, -1, -1, 1])[:, :3]
    np.testing.assert_allclose(t, palette[:, :, 3], atol=1e-5)
    assert np.linalg.det(s[3, :, :3]) < 0


def test_palette_to_rows():
    palette = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    rows = capi.maniConvertPaletteToRows(palette)
    np.testing.assert_array_equal(rows, palette.reshape(2, 12))
    out = np.zeros((2, 12), np.float32)
    assert capi.maniConvertPaletteToRows(palette, out) is out
    np.testing.assert_array_equal(out, rows)
    assert capi.maniConvertPaletteToRows(np.zeros((0, 3, 4))).shape == (0, 12)


def test_jobs_over_disjoint_ranges_run_at_once_on_threads():
    import threading
    rng = np.random.default_rng(15)
    skin = open_skin(humanoid(40))
    n = 20000
    infl = mixed_influences(rng, skin, n)
    palette = random_palette(rng, 40)
    dq = palette_to_dual_quaternions(palette)
    p = rng.normal(size=(n, 3)).astype(np.float32)
    nrm = rng.normal(size=(n, 3)).astype(np.float32)
    for method in (skin_linear, skin_dual_quaternion):
        whole = run(method, infl, palette, dq, [(0, p), (1, nrm)])
        outs = [np.empty_like(p), np.empty_like(nrm)]
        cuts = [0, 4321, 9000, 15000, n]
        workers = [threading.Thread(target=method, args=(SkinJob(
            infl, palette, dq, [SkinStream(0, p, outs[0]), SkinStream(1, nrm, outs[1])],
            a, b - a),)) for a, b in zip(cuts, cuts[1:])]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        for w, o in zip(whole, outs):
            np.testing.assert_array_equal(w.view(np.uint32), o.view(np.uint32))
