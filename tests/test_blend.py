"""blend.h: blending poses, masks, differences and additive layers."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.pose.blend import BlendLayer as L
from runtime.pose.blend import MaskChain as C
from runtime.pose.skeleton import BoneSource as B
from runtime.pose.skeleton import SkeletonSource

from runtime_fixtures import humanoid, open_skeleton, random_locals, random_pose

SK = humanoid(30)
weights = st.floats(0, 1, allow_nan=False)


def same_turn(a, b, atol=2e-6):
    """Quaternions q and -q are one rotation: compare up to the sign of each."""
    sign = np.where(np.einsum("...c,...c->...", a, b) < 0, -1.0, 1.0)[..., None]
    np.testing.assert_allclose(a * sign, b, atol=atol)


def reference_blend(skeleton, layers, threshold):
    """The spec's rule written plainly, bone by bone, in binary64."""
    n = skeleton.bone_count
    rest = skeleton.rests.astype(np.float64)
    if layers and layers[0].pose.is_difference:
        rest = np.tile(rt.IDENTITY.astype(np.float64), (n, 1))
    out = np.empty((n, 10))
    for b in range(n):
        w = [l.weight * (1 if l.bone_weights is None else l.bone_weights[b]) for l in layers]
        total = sum(w)
        div = max(total, threshold)
        share = [x / div for x in w] if div > 0 else [0.0] * len(w)
        rest_share = 1 - sum(share)
        vals = [l.pose.locals[b].astype(np.float64) for l in layers]
        for c in (*range(3), *range(7, 10)):
            out[b, c] = sum(s * v[c] for s, v in zip(share, vals)) + rest_share * rest[b, c]
        q = np.zeros(4)
        for s, v in list(zip(share, vals)) + [(rest_share, rest[b])]:
            q += s * (1 if q @ v[3:7] >= 0 else -1) * v[3:7]
        out[b, 3:7] = q / np.linalg.norm(q) if np.linalg.norm(q) > 0 else rest[b, 3:7]
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.lists(weights, min_size=1, max_size=4), st.floats(0, 1),
       st.booleans())
def test_blend_matches_the_rule(seed, ws, threshold, masked):
    rng = np.random.default_rng(seed)
    layers = [L(random_pose(SK, rng), w, rng.uniform(0, 1, SK.bone_count) if masked else None)
              for w in ws]
    out = rt.Pose(SK)
    capi.maniSkeleton_BlendPoses(SK, layers, threshold, out)
    ref = reference_blend(SK, layers, threshold)
    np.testing.assert_allclose(out.locals[:, [0, 1, 2, 7, 8, 9]], ref[:, [0, 1, 2, 7, 8, 9]], atol=2e-6)
    same_turn(out.locals[:, 3:7], ref[:, 3:7])
    np.testing.assert_allclose(np.linalg.norm(out.locals[:, 3:7], axis=1), 1, atol=1e-6)
    assert not out.is_model_current and not out.is_difference


def test_weights_normalize_and_slide_into_rest_below_the_threshold():
    rng = np.random.default_rng(0)
    a, b = random_pose(SK, rng), random_pose(SK, rng)
    out = rt.Pose(SK)
    capi.maniSkeleton_BlendPoses(SK, [L(a, 0.2), L(b, 0.6)], 0.5, out)
    np.testing.assert_allclose(out.locals[:, :3], (0.2 * a.locals[:, :3] + 0.6 * b.locals[:, :3]) / 0.8,
                               atol=1e-6)
    capi.maniSkeleton_BlendPoses(SK, [L(a, 0.1)], 0.5, out)      # 0.4 of the rest
    np.testing.assert_allclose(out.locals[:, :3], 0.2 * a.locals[:, :3] + 0.8 * SK.rests[:, :3],
                               atol=1e-6)
    capi.maniSkeleton_BlendPoses(SK, [L(a, 0.0)], 0.0, out)      # no weight: the rest as it is
    np.testing.assert_array_equal(out.locals, SK.rests)
    capi.maniSkeleton_BlendPoses(SK, [], 0.5, out)
    np.testing.assert_array_equal(out.locals, SK.rests)


def test_rotations_follow_the_running_sum_so_order_counts():
    sk = open_skeleton(SkeletonSource([B("a")]))
    quats = [np.array([1, 0, 0, 0.1]), np.array([0.6, 0.8, 0, 0]), np.array([-0.2, 1, 0, 0])]
    poses = []
    for q in quats:
        p = rt.Pose(sk)
        p.set_local(0, [0, 0, 0, *(q / np.linalg.norm(q)), 1, 1, 1])
        poses.append(p)
    out1, out2 = rt.Pose(sk), rt.Pose(sk)
    capi.maniSkeleton_BlendPoses(sk, [L(poses[0]), L(poses[2]), L(poses[1])], 1, out1)
    capi.maniSkeleton_BlendPoses(sk, [L(poses[1]), L(poses[2]), L(poses[0])], 1, out2)
    r1, r2 = out1.locals[0, 3:7], out2.locals[0, 3:7]
    assert abs(abs(r1 @ r2) - 1) > 1e-3          # a different rotation, not just a sign
    for out, order in ((out1, [0, 2, 1]), (out2, [1, 2, 0])):
        ref = reference_blend(sk, [L(poses[i]) for i in order], 1)
        same_turn(out.locals[0, 3:7], ref[0, 3:7], atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.lists(weights, min_size=1, max_size=4), st.floats(0, 1))
def test_translations_never_pass_the_largest_input(seed, ws, threshold):
    rng = np.random.default_rng(seed)
    sk = open_skeleton(SkeletonSource([B("a")]))
    layers = []
    for w in ws:
        p = rt.Pose(sk)
        t = rng.choice([-1.0, 1.0], 3) * rng.uniform(0.9, 1.0, 3) * 2.0**127
        p.set_local(0, [*t, 0, 0, 0, 1, *(rng.uniform(0.9, 1, 3) * 2.0**127)])
        layers.append(L(p, w))
    out = rt.Pose(sk)
    capi.maniSkeleton_BlendPoses(sk, layers, threshold, out)
    largest = np.max([np.abs(l.pose.locals[0]) for l in layers] + [np.abs(sk.rests[0])], axis=0)
    assert np.isfinite(out.locals).all()
    assert (np.abs(out.locals[0, [0, 1, 2, 7, 8, 9]])
            <= largest[[0, 1, 2, 7, 8, 9]] * (1 + 1e-6)).all()


def test_blend_refusals_leave_the_output_unchanged():
    rng = np.random.default_rng(1)
    a, b = random_pose(SK, rng), random_pose(SK, rng)
    other = rt.Pose(humanoid(30, seed=1))
    diff = rt.Pose(SK)
    capi.maniSkeleton_ComputePoseDifference(SK, a, b, diff)
    out = random_pose(SK, rng)
    before = out.buffer.copy()
    bad = [
        (SK, [L(a, 0.5)], 0.5, None), (None, [L(a)], 0.5, out), (SK, None, 0.5, out),
        (SK, [L(other)], 0.5, out), (SK, [L(a), L(diff)], 0.5, out), (SK, [L(out)], 0.5, out),
        (SK, [L(a, 1.5)], 0.5, out), (SK, [L(a, -0.1)], 0.5, out), (SK, [L(a, np.nan)], 0.5, out),
        (SK, [L(a)], 1.5, out), (SK, [L(a)], np.nan, out), (SK, [L(a)], -0.5, out),
        (SK, [L(a, 1, np.full(SK.bone_count, 2.0))], 0.5, out), (SK, [L(a, 1, np.ones(3))], 0.5, out),
    ]
    for args in bad:
        with pytest.raises(rt.InvalidError):
            capi.maniSkeleton_BlendPoses(*args)
        np.testing.assert_array_equal(out.buffer, before)


def test_differences_blend_toward_the_identity():
    rng = np.random.default_rng(2)
    a, b = random_pose(SK, rng), random_pose(SK, rng)
    d = rt.Pose(SK)
    capi.maniSkeleton_ComputePoseDifference(SK, a, b, d)
    out = rt.Pose(SK)
    capi.maniSkeleton_BlendPoses(SK, [L(d, 0.25)], 0.5, out)
    assert out.is_difference
    np.testing.assert_allclose(out.locals[:, :3], 0.5 * d.locals[:, :3], atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31))
def test_difference_then_add_at_weight_one_gives_the_pose_back(seed):
    rng = np.random.default_rng(seed)
    pose, basis = random_pose(SK, rng), random_pose(SK, rng)
    d = rt.Pose(SK)
    capi.maniSkeleton_ComputePoseDifference(SK, pose, basis, d)
    assert capi.maniPose_IsDifference(d)
    back = rt.Pose(SK)
    back.copy_from(basis)
    capi.maniPose_AddLayers(back, SK, [L(d, 1.0)])
    np.testing.assert_allclose(back.locals[:, :3], pose.locals[:, :3], atol=1e-5)
    np.testing.assert_allclose(back.locals[:, 7:], pose.locals[:, 7:], rtol=1e-5)
    dots = np.abs(np.einsum("ij,ij->i", back.locals[:, 3:7], pose.locals[:, 3:7]))
    np.testing.assert_allclose(dots, 1, atol=1e-6)


def test_difference_in_place_and_its_formula():
    rng = np.random.default_rng(4)
    pose, basis = random_pose(SK, rng), random_pose(SK, rng)
    keep = pose.locals.copy()
    capi.maniSkeleton_ComputePoseDifference(SK, pose, basis, pose)     # output is the pose
    np.testing.assert_allclose(pose.locals[:, :3], keep[:, :3] - basis.locals[:, :3], atol=1e-6)
    np.testing.assert_allclose(pose.locals[:, 7:], keep[:, 7:] / basis.locals[:, 7:], rtol=1e-6)


def test_difference_refusals():
    rng = np.random.default_rng(5)
    a, b = random_pose(SK, rng), random_pose(SK, rng)
    out = random_pose(SK, rng)
    before = out.buffer.copy()
    zero = random_pose(SK, rng)
    zero.locals[3, 8] = 0
    far_a, far_b = random_pose(SK, rng), random_pose(SK, rng)
    far_a.locals[0, 0], far_b.locals[0, 0] = 3e38, -3e38
    d = rt.Pose(SK)
    capi.maniSkeleton_ComputePoseDifference(SK, a, b, d)
    for args in [(None, a, b, out), (SK, None, b, out), (SK, a, None, out), (SK, a, b, None),
                 (SK, rt.Pose(humanoid(30, seed=2)), b, out), (SK, d, b, out), (SK, a, d, out),
                 (SK, a, zero, out), (SK, far_a, far_b, out)]:
        with pytest.raises(rt.InvalidError):
            capi.maniSkeleton_ComputePoseDifference(*args)
        np.testing.assert_array_equal(out.buffer, before)


def test_add_layers_formula_and_refusals():
    sk = open_skeleton(SkeletonSource([B("a")]))
    pose, d = rt.Pose(sk), rt.Pose(sk)
    turn = np.array([0, 0, np.sin(0.5), -np.cos(0.5)])      # the long way round as given
    d.set_local(0, [2, 0, 0, *turn, 3, 1, 0.5])
    d.mark_kind(True)
    capi.maniPose_AddLayers(pose, sk, [L(d, 0.5)])
    got = pose.locals[0]
    np.testing.assert_allclose(got[:3], [1, 0, 0], atol=1e-7)
    np.testing.assert_allclose(got[7:], [2, 1, 0.75], atol=1e-7)
    half = np.array([0, 0, -np.sin(0.5), np.cos(0.5)]) * 0.5 + np.array([0, 0, 0, 0.5])
    half /= np.linalg.norm(half)
    assert abs(got[3:7] @ half) == pytest.approx(1, abs=1e-6)     # the short way: about -0.5 rad
    before = pose.buffer.copy()
    plain = rt.Pose(sk)
    for args in [(None, sk, [L(d)]), (pose, None, [L(d)]), (pose, sk, None), (pose, sk, [L(plain)]),
                 (d, sk, [L(d)]), (pose, sk, [L(d, 2)]), (pose, sk, [L(d, 1, np.array([1.5]))]),
                 (pose, humanoid(4), [L(d)])]:
        with pytest.raises(rt.InvalidError):
            capi.maniPose_AddLayers(*args)
        np.testing.assert_array_equal(pose.buffer, before)


def qmul_plain(a, b):
    """Hamilton product a * b of xyzw quaternions, vector form."""
    va, wa, vb, wb = a[:3], a[3], b[:3], b[3]
    return np.r_[wa * vb + wb * va + np.cross(va, vb), wa * wb - va @ vb]


def reference_difference(pose, basis):
    a, b = pose.locals.astype(np.float64), basis.locals.astype(np.float64)
    out = np.empty_like(a)
    for i in range(len(a)):
        q = qmul_plain(b[i, 3:7] * [-1, -1, -1, 1], a[i, 3:7])
        out[i] = np.r_[a[i, :3] - b[i, :3], q / np.linalg.norm(q), a[i, 7:] / b[i, 7:]]
    return out


def reference_add(pose, layers):
    out = pose.locals.astype(np.float64)
    for b in range(len(out)):
        for l in layers:
            w = l.weight * (1.0 if l.bone_weights is None else l.bone_weights[b])
            d = l.pose.locals[b].astype(np.float64)
            turn = (-w if np.signbit(d[6]) else w) * d[3:7] + [0, 0, 0, 1 - w]
            q = qmul_plain(out[b, 3:7], turn)
            out[b] = np.r_[out[b, :3] + w * d[:3], q / np.linalg.norm(q), out[b, 7:] * (1 + w * (d[7:] - 1))]
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31))
def test_difference_matches_the_formula_in_place_or_not(seed):
    rng = np.random.default_rng(seed)
    pose, basis = random_pose(SK, rng, mirror=True), random_pose(SK, rng)
    out = rt.Pose(SK)
    capi.maniSkeleton_ComputePoseDifference(SK, pose, basis, out)
    ref = reference_difference(pose, basis)
    np.testing.assert_allclose(out.locals[:, :3], ref[:, :3], atol=1e-6)
    np.testing.assert_allclose(out.locals[:, 3:7], ref[:, 3:7], atol=1e-6)
    np.testing.assert_allclose(out.locals[:, 7:], ref[:, 7:], rtol=1e-6)
    for target in (pose, basis):                 # the output may be either input
        copy = rt.Pose(SK)
        copy.copy_from(target)
        args = (copy, basis) if target is pose else (pose, copy)
        capi.maniSkeleton_ComputePoseDifference(SK, *args, copy)
        np.testing.assert_array_equal(copy.locals, out.locals)


def test_difference_refused_in_place_leaves_the_pose_unchanged():
    """Only the last bone's difference is not finite: the bones before it stay unwritten too."""
    rng = np.random.default_rng(6)
    last = SK.bone_count - 1
    for component, value, in_basis in ((9, 0.0, True), (4, np.nan, False), (0, np.inf, False)):
        pose, basis = random_pose(SK, rng), random_pose(SK, rng)
        (basis if in_basis else pose).locals[last, component] = value
        before = pose.buffer.copy()
        with pytest.raises(rt.InvalidError, match=f"bone {last}"):
            capi.maniSkeleton_ComputePoseDifference(SK, pose, basis, pose)
        np.testing.assert_array_equal(pose.buffer, before)


def first_not_finite(pose, basis):
    """The first bone whose difference, normalized then rounded to binary32, has a part that
    is not finite (the spec's refusal), by numpy in binary64; -1 for none."""
    a, b = pose.locals.astype(np.float64), basis.locals.astype(np.float64)
    ax, ay, az, aw = a[:, 3:7].T
    bx, by, bz, bw = -b[:, 3], -b[:, 4], -b[:, 5], b[:, 6]
    with np.errstate(all="ignore"):
        q = np.stack([bw * ax + bx * aw + by * az - bz * ay, bw * ay - bx * az + by * aw + bz * ax,
                      bw * az + bx * ay - by * ax + bz * aw, bw * aw - bx * ax - by * ay - bz * az], 1)
        d = np.hstack([a[:, :3] - b[:, :3], q / np.sqrt((q * q).sum(1))[:, None], a[:, 7:] / b[:, 7:]])
        bad = np.flatnonzero(~np.isfinite(d.astype(np.float32)).all(1))
    return int(bad[0]) if bad.size else -1


@pytest.mark.parametrize("seed", range(40))
def test_difference_refuses_the_first_bone_not_finite_whatever_the_parts(seed):
    """The kernel's check before normalizing (by the rotation's squared length) refuses the
    bones the normalized difference would leave not finite, and no other: rotations of 0,
    tiny, huge, infinite or NaN parts, scales of 0 and translations far apart."""
    rng = np.random.default_rng(seed)
    pose, basis = random_pose(SK, rng), random_pose(SK, rng)
    specials = [0.0, -0.0, 1e-45, -1e-45, 1e-38, 3e38, -3e38, np.inf, -np.inf, np.nan]
    for _ in range(rng.integers(1, 4)):
        row, col = rng.integers(SK.bone_count), rng.integers(10)
        which = pose if rng.integers(2) else basis
        which.locals[row, col] = rng.choice(specials)
        if rng.integers(3) == 0:        # a whole rotation of specials, or of zeros
            which.locals[row, 3:7] = rng.choice(specials, 4) if rng.integers(2) else 0.0
    want = first_not_finite(pose, basis)
    out = rt.Pose(SK)
    before = out.buffer.copy()
    if want < 0:
        capi.maniSkeleton_ComputePoseDifference(SK, pose, basis, out)
        assert np.isfinite(out.locals).all()
    else:
        with pytest.raises(rt.InvalidError, match=f"bone {want}:"):
            capi.maniSkeleton_ComputePoseDifference(SK, pose, basis, out)
        np.testing.assert_array_equal(out.buffer, before)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.lists(st.sampled_from([0.0, 1.0, 0.3]) | weights, min_size=1, max_size=3),
       st.booleans())
def test_add_layers_match_the_formula(seed, ws, masked):
    rng = np.random.default_rng(seed)
    pose = random_pose(SK, rng)
    layers = []
    for w in ws:
        d = rt.Pose(SK)
        capi.maniSkeleton_ComputePoseDifference(SK, random_pose(SK, rng), random_pose(SK, rng), d)
        mask = rng.choice([0.0, 1.0, 0.5], SK.bone_count) if masked else None
        layers.append(L(d, w, mask))
    ref = reference_add(pose, layers)
    capi.maniPose_AddLayers(pose, SK, layers)
    np.testing.assert_allclose(pose.locals[:, :3], ref[:, :3], atol=1e-5)
    np.testing.assert_allclose(pose.locals[:, 3:7], ref[:, 3:7], atol=1e-6)
    np.testing.assert_allclose(pose.locals[:, 7:], ref[:, 7:], rtol=1e-5)
    assert not pose.is_model_current and not pose.is_difference


def test_add_layers_past_binary32_range_stores_infinity():
    sk = open_skeleton(SkeletonSource([B("a")]))
    pose, d = rt.Pose(sk), rt.Pose(sk)
    pose.set_local(0, [3e38, 0, 0, 0, 0, 0, 1, 3e38, 1, 1])
    d.set_local(0, [3e38, 0, 0, 0, 0, 0, 1, 4, 1, 1])
    d.mark_kind(True)
    capi.maniPose_AddLayers(pose, sk, [L(d, 1.0)])
    np.testing.assert_array_equal(pose.locals[0], [np.inf, 0, 0, 0, 0, 0, 1, np.inf, 1, 1])


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.lists(weights, min_size=1, max_size=4), st.floats(0, 1))
def test_each_bone_blends_on_its_own_bit_for_bit(seed, ws, threshold):
    """A masked blend's bone is the unmasked blend at that bone's weights, whatever the rest."""
    rng = np.random.default_rng(seed)
    poses = [random_pose(SK, rng) for _ in ws]
    masks = [rng.choice([0.0, 1.0, rng.uniform()], SK.bone_count) for _ in ws]
    out, one = rt.Pose(SK), rt.Pose(SK)
    capi.maniSkeleton_BlendPoses(SK, [L(p, w, m) for p, w, m in zip(poses, ws, masks)], threshold, out)
    for b in rng.choice(SK.bone_count, 4, replace=False):
        capi.maniSkeleton_BlendPoses(SK, [L(p, w * m[b]) for p, w, m in zip(poses, ws, masks)],
                                     threshold, one)
        np.testing.assert_array_equal(out.locals[b], one.locals[b])


def test_blend_of_a_rotation_not_finite_takes_the_rest_rotation():
    rng = np.random.default_rng(8)
    a, b = random_pose(SK, rng), random_pose(SK, rng)
    good = rt.Pose(SK)
    capi.maniSkeleton_BlendPoses(SK, [L(a, 0.5), L(b, 0.5)], 0.0, good)
    a.locals[4, 5] = np.nan
    a.locals[4, 1] = np.inf
    out = rt.Pose(SK)
    capi.maniSkeleton_BlendPoses(SK, [L(a, 0.5), L(b, 0.5)], 0.0, out)
    np.testing.assert_array_equal(out.locals[4, 3:7], SK.rests[4, 3:7])
    assert out.locals[4, 1] == np.inf
    others = np.arange(SK.bone_count) != 4
    np.testing.assert_array_equal(out.locals[others], good.locals[others])


def test_outputs_over_read_only_bytes_refused():
    rng = np.random.default_rng(9)
    a, b = random_pose(SK, rng), random_pose(SK, rng)
    d = rt.Pose(SK)
    capi.maniSkeleton_ComputePoseDifference(SK, a, b, d)
    frozen = rt.Pose.attach(bytes(a.buffer))
    for call in (lambda: capi.maniSkeleton_BlendPoses(SK, [L(b)], 0.5, frozen),
                 lambda: capi.maniSkeleton_ComputePoseDifference(SK, a, b, frozen),
                 lambda: capi.maniPose_AddLayers(frozen, SK, [L(d)])):
        with pytest.raises(rt.InvalidError, match="read-only"):
            call()


# ---- masks ----------------------------------------------------------------------------

def mask_reference(skeleton, chains, default):
    n = skeleton.bone_count
    out = np.full(n, default, np.float64)
    for b in range(n):
        alone = [c.weight for c in chains if c.bone == b and not c.subtree]
        if alone:
            out[b] = alone[-1]
            continue
        a = b
        while a != rt.NO_BONE:
            sub = [c.weight for c in chains if c.bone == a and c.subtree]
            if sub:
                out[b] = sub[-1]
                break
            a = skeleton.parent(a)
    return out


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 29), st.floats(0, 2), st.booleans()), max_size=8),
       st.floats(0, 1))
def test_build_mask_precedence(chains, default):
    chains = [C(b, w, s) for b, w, s in chains]
    got = capi.maniSkeleton_BuildMask(SK, chains, default)
    np.testing.assert_array_equal(got, mask_reference(SK, chains, default).astype(np.float32))


def test_build_mask_capacity_and_refusals():
    out = np.full(10, 7.0, np.float32)
    with pytest.raises(rt.CapacityError) as e:
        capi.maniSkeleton_BuildMask(SK, [C(1, 0.5)], 1.0, out)
    assert e.value.count == SK.bone_count
    assert (out == 7).all()
    big = np.zeros(40, np.float32)
    capi.maniSkeleton_BuildMask(SK, [C(0, 0.25)], 1.0, big)
    assert (big[:30] == 0.25).all() and (big[30:] == 0).all()
    for args in [(None, [], 1.0), (SK, None, 1.0), (SK, [C(30, 1)], 1.0), (SK, [C(0, -1)], 1.0),
                 (SK, [C(0, np.inf)], 1.0), (SK, [], np.nan), (SK, [], -0.5)]:
        with pytest.raises(rt.InvalidError):
            capi.maniSkeleton_BuildMask(*args)


def test_a_bone_without_weight_takes_its_rest_bit_for_bit():
    """'With no weight on a bone it takes its rest as it is': no renormalising on the way
    (about one rest in a hundred would move by an ulp if renormalised)."""
    rng = np.random.default_rng(5)
    quats = rng.normal(size=(300, 4))
    sk = open_skeleton(SkeletonSource([B(f"b{i}", i - 1, rotation=q) for i, q in enumerate(quats)]))
    out = rt.Pose(sk)
    out.write_locals(0, random_locals(rng, sk.bone_count))
    for layers in ([], [rt.BlendLayer(random_pose(sk, rng), 0.0)],
                   [rt.BlendLayer(random_pose(sk, rng), 1.0, np.zeros(sk.bone_count))]):
        capi.maniSkeleton_BlendPoses(sk, layers, 0.0, out)
        assert np.array_equal(out.locals.view(np.uint32), sk.rests.view(np.uint32))
    half = np.zeros(sk.bone_count)
    half[::2] = 1.0
    capi.maniSkeleton_BlendPoses(sk, [rt.BlendLayer(random_pose(sk, rng), 1.0, half)], 0.0, out)
    assert np.array_equal(out.locals[1::2].view(np.uint32), sk.rests[1::2].view(np.uint32))
