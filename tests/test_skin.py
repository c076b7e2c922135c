"""skin.h and maniBuildSkin: building, opening with every check, the queries and palettes."""
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core import container
from runtime.core.errors import BuildReason
from runtime.deform.skin import Skin, SkinSource

from runtime_fixtures import random_locals
from test_skin_fixtures import build, builder, humanoid, open_skin, rest_inverse_binds


@pytest.fixture(scope="module")
def skeleton():
    return humanoid(30)


def test_joints_in_mesh_order_with_inverse_binds(skeleton):
    bones = [5, 2, 29, 0]
    binds = rest_inverse_binds(skeleton, bones)
    skin = capi.maniOpenSkin(build(capi.maniBuildSkin, SkinSource(skeleton, bones, binds)))
    assert capi.maniSkin_GetJointCount(skin) == 4
    assert [capi.maniSkin_GetJoint(skin, j) for j in range(5)] == bones + [rt.NO_BONE]
    np.testing.assert_array_equal(capi.maniSkin_GetInverseBind(skin, 2), binds[2].astype(np.float32))
    np.testing.assert_array_equal(capi.maniSkin_GetInverseBind(skin, 4), rt.IDENTITY_AFFINE)
    assert capi.maniSkin_GetSkeletonIdentity(skin) == skeleton.identity
    assert capi.maniSkin_GetIdentity(skin) == skin.identity != skeleton.identity
    assert skin.joint_of(29) == 2 and skin.joint_of(1) == rt.NO_BONE
    plain = Skin.open(build(capi.maniBuildSkin, SkinSource(skeleton, [3])))
    np.testing.assert_array_equal(plain.inverse_bind(0), rt.IDENTITY_AFFINE)


def test_views_no_open_wrote_answer_nothing():
    for bad in (None, object()):
        assert capi.maniSkin_GetJointCount(bad) == 0
        assert capi.maniSkin_GetSkeletonIdentity(bad) == 0
        assert capi.maniSkin_GetIdentity(bad) == 0
        assert capi.maniSkin_GetJoint(bad, 0) == rt.NO_BONE
        np.testing.assert_array_equal(capi.maniSkin_GetInverseBind(bad, 0), rt.IDENTITY_AFFINE)


@pytest.mark.parametrize("bones, binds, reason, item, other", [
    ([], None, BuildReason.Count, 0, 0),
    ([0, 30], None, BuildReason.Joint, 1, 30),
    ([0, -1], None, BuildReason.Joint, 1, 0xFFFFFFFF),
    ([0, 1], np.zeros((1, 3, 4)), BuildReason.Count, 1, 0),
    ([0, 1], np.zeros((2, 4, 4)), BuildReason.NotFinite, 0, 0),
    ([0, 1], np.array([np.eye(3, 4), np.full((3, 4), np.nan)]), BuildReason.NotFinite, 1, 0),
])
def test_refusals(skeleton, bones, binds, reason, item, other):
    b = builder()
    with pytest.raises(rt.InvalidError) as e:
        capi.maniBuildSkin(b, SkinSource(skeleton, bones, binds))
    assert (e.value.reason, e.value.item, e.value.other) == (reason, item, other)
    assert capi.maniBuilder_GetMisuse(b) == 0


def test_too_many_joints_is_a_limit_not_a_misuse(skeleton):
    b = builder()
    with pytest.raises(rt.LimitError) as e:
        capi.maniBuildSkin(b, SkinSource(skeleton, [0] * (rt.MAX_BONES + 1)))
    assert e.value.reason == BuildReason.Count
    assert capi.maniBuilder_GetMisuse(b) == 0
    Skin.open(build(capi.maniBuildSkin, SkinSource(skeleton, [0] * rt.MAX_BONES)))


def test_misuse_and_allocator_failure(skeleton):
    b = builder()
    for bad in (None, object(), SkinSource(None, [0]), SkinSource(skeleton, None)):
        with pytest.raises(rt.InvalidError):
            capi.maniBuildSkin(b, bad)
    assert capi.maniBuilder_GetMisuse(b) == 4
    with pytest.raises(rt.InvalidError):
        capi.maniBuildSkin(None, SkinSource(skeleton, [0]))
    d = capi.maniDefaultBuilderDef()
    failing = []
    d.alloc = lambda user, size: None if failing else bytearray(size)
    d.free = lambda user, block: None
    b = capi.maniCreateBuilder(d)
    failing.append(True)
    with pytest.raises(rt.CapacityError):
        capi.maniBuildSkin(b, SkinSource(skeleton, [0, 1]))


def test_the_builder_keeps_the_skin_in_place_of_a_skeleton(skeleton):
    b = builder()
    capi.maniBuildSkeleton(b, __import__("runtime.samples.humanoid", fromlist=["x"]).humanoid_source(5))
    capi.maniBuildSkin(b, SkinSource(skeleton, [1]))
    assert Skin.open(capi.maniBuilder_CopyBuilt(b)).joint_count == 1
    with pytest.raises(rt.InvalidError):
        capi.maniBuilder_CopySkeletonOrder(b)


def test_palette_is_model_times_inverse_bind(skeleton):
    rng = np.random.default_rng(2)
    bones = [4, 0, 17, 4]
    binds = rng.normal(size=(4, 3, 4))
    skin = Skin.open(build(capi.maniBuildSkin, SkinSource(skeleton, bones, binds)))
    pose = rt.Pose(skeleton)
    pose.write_locals(0, random_locals(rng, 30))
    capi.maniPose_ComputeModel(pose, skeleton)
    palette = capi.maniPose_ComputePalette(pose, skeleton, skin)
    assert palette.shape == (4, 3, 4) and palette.dtype == np.float32
    model = pose.model.astype(np.float64)[bones]
    ib = skin.inverse_binds.astype(np.float64)
    want = np.einsum("jik,jkl->jil", model[:, :, :3], ib)
    want[:, :, 3] += model[:, :, 3]
    np.testing.assert_allclose(palette, want, rtol=1e-5, atol=1e-5)
    out = np.full((6, 3, 4), 9.0, np.float32)
    assert capi.maniPose_ComputePalette(pose, skeleton, skin, out) is out
    np.testing.assert_array_equal(out[:4], palette)
    np.testing.assert_array_equal(out[4:], 9.0)


def test_at_rest_the_palette_is_the_identity(skeleton):
    skin = open_skin(skeleton)
    palette = capi.maniPose_ComputePalette(rt.Pose(skeleton), skeleton, skin)
    np.testing.assert_allclose(palette, np.broadcast_to(rt.IDENTITY_AFFINE, palette.shape), atol=2e-5)


def test_palette_errors_leave_the_output(skeleton):
    skin = open_skin(skeleton, bones=range(5))
    pose = rt.Pose(skeleton)
    short = np.full((4, 3, 4), 9.0, np.float32)
    with pytest.raises(rt.CapacityError) as e:
        capi.maniPose_ComputePalette(pose, skeleton, skin, short)
    assert e.value.count == 5
    np.testing.assert_array_equal(short, 9.0)
    other = humanoid(31)
    stale = rt.Pose(skeleton)
    stale.set_local(0, rt.IDENTITY)
    difference = rt.Pose(skeleton)
    rt.compute_pose_difference(skeleton, pose, pose, difference)
    out = np.full((5, 3, 4), 9.0, np.float32)
    for args in [(pose, skeleton, None), (pose, skeleton, object()), (None, skeleton, skin),
                 (pose, None, skin), (pose, other, skin), (rt.Pose(other), other, skin),
                 (stale, skeleton, skin), (difference, skeleton, skin)]:
        with pytest.raises(rt.InvalidError):
            capi.maniPose_ComputePalette(*args, out)
        np.testing.assert_array_equal(out, 9.0)
    with pytest.raises(rt.InvalidError):
        capi.maniPose_ComputePalette(pose, skeleton, skin, np.zeros((5, 3, 4)))


def test_a_bone_changed_after_the_open_reads_the_roots_model(skeleton):
    data = bytearray(build(capi.maniBuildSkin, SkinSource(skeleton, [3, 7])))
    skin = Skin.open(data)
    rng = np.random.default_rng(3)
    pose = rt.Pose(skeleton)
    pose.write_locals(0, random_locals(rng, 30))
    pose.compute_model(skeleton)
    skin.joints[1] = 1000
    assert capi.maniSkin_GetJoint(skin, 1) == rt.NO_BONE
    palette = capi.maniPose_ComputePalette(pose, skeleton, skin)
    np.testing.assert_allclose(palette[1], pose.model[0], atol=1e-6)


def test_open_refuses_null_misaligned_versions_later_tags_and_bad_content(skeleton):
    good = build(capi.maniBuildSkin, SkinSource(skeleton, [1, 2], rest_inverse_binds(skeleton, [1, 2])))
    with pytest.raises(rt.InvalidError):
        capi.maniOpenSkin(None)
    shifted = bytearray(len(good) + 4)
    shifted[4:] = good
    with pytest.raises(rt.InvalidError):
        capi.maniOpenSkin(memoryview(shifted)[4:])
    data = bytearray(good)
    struct.pack_into("<H", data, 6, 9)
    with pytest.raises(rt.VersionError):
        capi.maniOpenSkin(bytes(data))
    data = bytearray(good)
    struct.pack_into("<H", data, 32 + 24 + 4, 3)
    with pytest.raises(rt.VersionError):
        capi.maniOpenSkin(bytes(data))
    offsets = {container.ENTRY.unpack_from(good, 32 + 24 * i)[0]: container.ENTRY.unpack_from(good, 32 + 24 * i)[3]
               for i in range(5)}
    for tag, byte, value, fmt in ((b"JNTS", 4, 30, "<I"), (b"IBND", 52, np.nan, "<f"),
                                  (b"BONE", 8, 0, "<I"), (b"BCNT", 2, 3, "<H")):
        data = bytearray(good)
        struct.pack_into(fmt, data, offsets[tag] + byte, value)
        with pytest.raises(rt.FormatError) as e:
            capi.maniOpenSkin(bytes(data))
        assert e.value.offset == offsets[tag] + byte, (tag, str(e.value))
