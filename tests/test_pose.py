"""pose.h: poses in caller memory, locals and models, composing, decomposing."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.pose.skeleton import BoneSource as B
from runtime.pose.skeleton import SkeletonSource

from runtime_fixtures import (humanoid, local_matrix, open_skeleton, random_locals, random_pose,
                              reference_model, rotation_matrix)

SK = humanoid(80)


def depths(skeleton) -> np.ndarray:
    """Each bone's depth below its root (parents come first in storage order)."""
    d = np.zeros(skeleton.bone_count, dtype=np.int64)
    for b, p in enumerate(skeleton.parents):
        if p != rt.NO_BONE:
            d[b] = d[p] + 1
    return d


def test_init_pose_in_caller_memory_is_at_rest_and_composed():
    size = capi.maniSkeleton_GetPoseSize(SK)
    assert size == rt.pose_size(80) > 80 * (40 + 48)
    memory = bytearray(size + 64)
    pose = capi.maniInitPose(SK, memory)
    assert capi.maniPose_GetBoneCount(pose) == 80
    assert capi.maniPose_IsModelCurrent(pose) and not capi.maniPose_IsDifference(pose)
    np.testing.assert_array_equal(capi.maniPose_ReadLocals(pose, 0, 80), SK.rests)
    np.testing.assert_allclose(capi.maniPose_ReadModels(pose, 0, 80),
                               reference_model(SK, SK.rests), atol=1e-5)
    # the pose lives in the caller's bytes: a byte copy is the same pose
    twin = rt.Pose.attach(bytearray(memory[:size]))
    np.testing.assert_array_equal(twin.model, pose.model)
    assert twin.of(SK) and twin.is_model_current


def test_init_pose_refusals():
    with pytest.raises(rt.InvalidError):
        capi.maniInitPose(None)
    with pytest.raises(rt.InvalidError):
        capi.maniInitPose(object())
    with pytest.raises(rt.CapacityError):
        capi.maniInitPose(SK, bytearray(capi.maniSkeleton_GetPoseSize(SK) - 1))
    with pytest.raises(rt.InvalidError):
        capi.maniInitPose(SK, np.zeros(capi.maniSkeleton_GetPoseSize(SK) + 8, np.uint8)[1:])
    with pytest.raises(rt.InvalidError):
        capi.maniInitPose(SK, bytes(capi.maniSkeleton_GetPoseSize(SK)))     # read-only
    assert capi.maniSkeleton_GetPoseSize(None) == 0


def test_parent_bytes_changed_after_open_give_format_errors():
    data = np.frombuffer(bytearray(rt.build_skeleton(rt.Builder(), 
        SkeletonSource([B("a"), B("b", 0), B("c", 1)]))), np.uint8)
    sk = capi.maniOpenSkeleton(data)
    pose = capi.maniInitPose(sk)
    at = sk.parents.ctypes.data - data.ctypes.data
    raw = data[at:at + 12].view("<u4")
    raw[2] = 2                                          # bone 2 its own parent
    with pytest.raises(rt.FormatError):
        capi.maniPose_ComputeModel(pose, sk)
    assert not capi.maniPose_IsModelCurrent(pose)
    with pytest.raises(rt.FormatError):
        capi.maniPose_SetRest(pose, sk)
    np.testing.assert_array_equal(pose.locals, sk.rests)     # locals at rest, model stale
    assert not capi.maniPose_IsModelCurrent(pose)
    with pytest.raises(rt.FormatError) as e:
        capi.maniInitPose(sk)
    assert isinstance(e.value.pose, rt.Pose) and not e.value.pose.is_model_current
    raw[2] = 0                                          # a valid change recomposes
    capi.maniPose_ComputeModel(pose, sk)
    assert capi.maniPose_IsModelCurrent(pose)


def test_header_rewritten_to_another_count_is_not_that_skeleton_pose():
    """The kernels write as many bones as the skeleton has: a pose's arrays must hold them,
    whatever its header's bytes are made to say."""
    small = rt.Pose(humanoid(30))
    memory = bytearray(rt.pose_size(80))
    memory[:small.buffer.size] = small.buffer.tobytes()
    pose = rt.Pose.attach(memory)
    pose.buffer[8:12].view("<u4")[0] = 80
    pose.buffer[16:24].view("<u8")[0] = SK.identity
    assert pose.bone_count == 80 and not pose.of(SK)
    with pytest.raises(rt.InvalidError):
        capi.maniPose_ComputeModel(pose, SK)
    with pytest.raises(rt.InvalidError):
        capi.maniSkeleton_BlendPoses(SK, [], 0.5, pose)


def test_locals_and_staleness():
    pose = capi.maniInitPose(SK)
    t = np.array([1, 2, 3, 0, 0, 0, 1, 2, 2, 2], np.float32)
    capi.maniPose_SetLocal(pose, 5, t)
    assert not capi.maniPose_IsModelCurrent(pose)
    np.testing.assert_array_equal(capi.maniPose_GetLocal(pose, 5), t)
    np.testing.assert_array_equal(capi.maniPose_GetLocal(pose, 80), rt.IDENTITY)
    capi.maniPose_SetLocal(pose, 80, t)                  # ignored
    capi.maniPose_ComputeModel(pose, SK)
    assert capi.maniPose_IsModelCurrent(pose)
    capi.maniPose_WriteLocals(pose, 78, np.stack([t, t]))
    assert not capi.maniPose_IsModelCurrent(pose)
    np.testing.assert_array_equal(capi.maniPose_ReadLocals(pose, 78, 2), [t, t])
    for first, count in ((79, 2), (-1, 1), (0, 81)):
        with pytest.raises(rt.InvalidError):
            capi.maniPose_ReadLocals(pose, first, count)
        with pytest.raises(rt.InvalidError):
            capi.maniPose_ReadModels(pose, first, count)
    with pytest.raises(rt.InvalidError):
        capi.maniPose_WriteLocals(pose, 79, np.stack([t, t]))
    with pytest.raises(rt.InvalidError):
        capi.maniPose_WriteLocals(pose, 0, None)
    with pytest.raises(rt.InvalidError):
        capi.maniPose_ReadLocals(None, 0, 1)
    np.testing.assert_array_equal(capi.maniPose_GetModel(pose, 999), rt.IDENTITY_AFFINE)


def test_other_skeleton_and_difference_refused():
    other = humanoid(80, seed=1)
    pose = capi.maniInitPose(SK)
    for fn in (capi.maniPose_ComputeModel, capi.maniPose_SetRest):
        with pytest.raises(rt.InvalidError):
            fn(pose, other)
        with pytest.raises(rt.InvalidError):
            fn(pose, None)
    pose.mark_kind(True)
    assert capi.maniPose_IsDifference(pose)
    with pytest.raises(rt.InvalidError):
        capi.maniPose_ComputeModel(pose, SK)
    capi.maniPose_SetRest(pose, SK)                      # rest makes it a pose again
    assert not capi.maniPose_IsDifference(pose) and capi.maniPose_IsModelCurrent(pose)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_compute_model_equals_plain_reference(seed, mirror):
    rng = np.random.default_rng(seed)
    pose = random_pose(SK, rng, mirror=mirror)
    capi.maniPose_ComputeModel(pose, SK)
    ref = reference_model(SK, pose.locals.astype(np.float64))
    scale = np.abs(ref).max(axis=(1, 2), keepdims=True) + 1
    assert (np.abs(pose.model - ref) <= 2e-6 * scale * (depths(SK)[:, None, None] + 1)).all()


def scalar_model(skeleton, locals_) -> np.ndarray:
    """The compose formula in numpy binary32 scalars, bone by bone, each sum in its order:
    the local's block (homogeneous rotation, column j times s_j), then row i of the parent
    times it, ((a0 l0j + a1 l1j) + a2 l2j) (+ a3 for the translation)."""
    f = np.float32
    two = f(2)
    model = np.zeros((len(locals_), 3, 4), np.float32)
    with np.errstate(all="ignore"):
        for b, row in enumerate(locals_):
            tx, ty, tz, x, y, z, w, sx, sy, sz = (f(v) for v in row)
            xx, yy, zz, ww = x * x, y * y, z * z, w * w
            block = np.array([[(ww + xx - yy - zz) * sx, two * (x * y - z * w) * sy,
                               two * (x * z + y * w) * sz, tx],
                              [two * (x * y + z * w) * sx, (ww - xx + yy - zz) * sy,
                               two * (y * z - x * w) * sz, ty],
                              [two * (x * z - y * w) * sx, two * (y * z + x * w) * sy,
                               (ww - xx - yy + zz) * sz, tz]], np.float32)
            p = skeleton.parents[b]
            if p == rt.NO_BONE:
                model[b] = block
                continue
            for i in range(3):
                a0, a1, a2, a3 = (f(v) for v in model[p, i])
                for j in range(4):
                    model[b, i, j] = a0 * block[0, j] + a1 * block[1, j] + a2 * block[2, j]
                model[b, i, 3] = model[b, i, 3] + a3
    return model


@pytest.mark.parametrize("seed", range(6))
def test_compose_gives_the_scalar_formulas_bits(seed):
    """The kernel's rows in binary32 lanes (pose/lanes.py) give the scalar sums' bits, signed
    zeros, infinities and NaN included, for a pose and a batch's."""
    rng = np.random.default_rng(seed)
    locals_ = random_locals(rng, 80, mirror=True)
    hit = rng.uniform(size=locals_.shape) < 0.03
    locals_[hit] = rng.choice(np.array([0.0, -0.0, np.inf, np.nan, 1e-45], np.float32), hit.sum())
    locals_[5, 3:7] = -0.0
    want = scalar_model(SK, locals_)
    nan = np.isnan(want)            # a NaN made here is numpy's, whose sign may differ
    pose = rt.Pose(SK)
    pose.write_locals(0, locals_)
    pose.compute_model(SK)
    batch = rt.PoseBatch(SK, 3)
    batch.locals[1] = locals_
    batch.compute_model(SK)
    for got in (pose.model, batch.model[1]):
        np.testing.assert_array_equal(np.isnan(got), nan)
        np.testing.assert_array_equal(got.view(np.uint32)[~nan], want.view(np.uint32)[~nan])


def test_batch_composes_as_single_poses():
    rng = np.random.default_rng(5)
    batch = rt.PoseBatch(SK, 64)
    batch.locals[...] = np.stack([random_locals(rng, 80) for _ in range(64)])
    batch.compute_model(SK)
    for i in (0, 17, 63):
        single = rt.Pose(SK)
        single.write_locals(0, batch.locals[i])
        single.compute_model(SK)
        np.testing.assert_allclose(batch.model[i], single.model, rtol=1e-5, atol=1e-5)
        assert batch.poses[i].is_model_current and batch.poses[i].of(SK)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 9))
def test_batch_poses_equal_single_poses_bit_for_bit(seed, count):
    """The batch composes each pose by the single pose's operations, whatever the count."""
    rng = np.random.default_rng(seed)
    batch = rt.PoseBatch(SK, count)
    batch.locals[...] = np.stack([random_locals(rng, 80, mirror=True) for _ in range(count)])
    batch.compute_model(SK)
    for i in range(count):
        single = rt.Pose(SK)
        single.write_locals(0, batch.locals[i])
        single.compute_model(SK)
        np.testing.assert_array_equal(batch.model[i], single.model)


def test_compose_keeps_what_is_not_finite_inside_its_subtree():
    rng = np.random.default_rng(7)
    pose = random_pose(SK, rng)
    bone = next(b for b in range(80) if SK.subtree_end(b) - b > 3 and SK.parent(b) != rt.NO_BONE)
    end = SK.subtree_end(bone)
    for bad in (np.nan, np.inf, -np.inf, 1e37):
        locals_ = random_locals(rng, 80)
        locals_[bone, 0] = bad
        pose.write_locals(0, locals_)
        capi.maniPose_ComputeModel(pose, SK)
        with np.errstate(all="ignore"):
            ref = reference_model(SK, locals_.astype(np.float64))
        within = np.isfinite(ref).all(axis=(1, 2))
        assert within.all() == np.isfinite(bad)
        assert (within[:bone] & within[end:]).all()          # only the bone's subtree
        assert not np.isfinite(pose.model[~within]).all(axis=(1, 2)).any()
        scale = np.abs(ref[within]).max(axis=(1, 2), keepdims=True) + 1
        depth = depths(SK)[within, None, None] + 1
        assert (np.abs(pose.model[within] - ref[within]) <= 2e-6 * scale * depth).all()


def test_get_model_transform_splits_the_model():
    rng = np.random.default_rng(3)
    sk = open_skeleton(SkeletonSource([B("a"), B("b", 0)]))
    pose = capi.maniInitPose(sk)
    local = random_locals(rng, 2, mirror=True)
    local[0] = rt.IDENTITY
    capi.maniPose_WriteLocals(pose, 0, local)
    capi.maniPose_ComputeModel(pose, sk)
    got = capi.maniPose_GetModelTransform(pose, 1)
    expect = local[1].copy()
    if expect[6] < 0:
        expect[3:7] *= -1
    if expect[7] < 0:          # a mirror is a negative x scale, the rotation adjusted to match
        assert got[7] < 0
    np.testing.assert_allclose(pose.model[1], compose(got), atol=1e-5)
    np.testing.assert_array_equal(capi.maniPose_GetModelTransform(pose, 2), rt.IDENTITY)
    pose.model[1, 0, 0] = np.nan
    np.testing.assert_array_equal(capi.maniPose_GetModelTransform(pose, 1), rt.IDENTITY)


def compose(t):
    return local_matrix(t)[:3]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_decompose_round_trips_compose(seed, mirror):
    rng = np.random.default_rng(seed)
    t = random_locals(rng, 1, mirror=mirror)[0]
    got = capi.maniDecomposeAffine(compose(t))
    assert got[6] >= 0
    assert abs(np.linalg.norm(got[3:7]) - 1) < 1e-6
    np.testing.assert_allclose(compose(got), compose(t), atol=2e-5)
    np.testing.assert_allclose(got[:3], t[:3], atol=1e-6)
    expect_s = t[7:].copy()
    if mirror and np.prod(np.sign(expect_s)) < 0:
        # a mirror is a negative x scale: |s| kept, the sign moved to x
        assert got[7] < 0 and (got[8:] > 0).all()
        np.testing.assert_allclose(np.abs(got[7:]), np.abs(expect_s), rtol=1e-5)
    else:
        np.testing.assert_allclose(np.abs(got[7:]), np.abs(expect_s), rtol=1e-5)


def test_decompose_flat_and_zero_axes():
    flat = np.array([[2, 0, 0, 1], [0, 3, 0, 2], [0, 0, 0, 3]], np.float32)
    got = capi.maniDecomposeAffine(flat)
    np.testing.assert_allclose(got, [1, 2, 3, 0, 0, 0, 1, 2, 3, 0], atol=1e-6)
    turn = compose([0, 0, 0, 0, 0, np.sin(0.4), np.cos(0.4), 1, 1, 1])
    turn[:, 1] = 0                                        # the y axis collapses
    got = capi.maniDecomposeAffine(turn)
    np.testing.assert_allclose(got[3:7], [0, 0, np.sin(0.4), np.cos(0.4)], atol=1e-6)
    np.testing.assert_allclose(got[7:], [1, 0, 1], atol=1e-6)
    got = capi.maniDecomposeAffine(np.zeros((3, 4)))
    np.testing.assert_allclose(got[3:], [0, 0, 0, 1, 0, 0, 0], atol=1e-6)
    with pytest.raises(rt.InvalidError):
        capi.maniDecomposeAffine(None)
    with pytest.raises(rt.InvalidError):
        capi.maniDecomposeAffine(np.full((3, 4), np.inf))


def test_shear_gives_the_nearest_rotation():
    shear = np.array([[1, 0.3, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], np.float64)
    got = capi.maniDecomposeAffine(shear)
    u, _, vt = np.linalg.svd(shear[:, :3])
    nearest = u @ vt
    np.testing.assert_allclose(rotation_matrix(got[3:7]), nearest, atol=1e-6)
