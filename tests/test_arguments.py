"""The argument boundary (runtime.core.args) and the cases review found escaping it: each
refused with InvalidError naming the argument, or answered as the spec answers."""
import warnings

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core import args
from runtime.pose.blend import BlendLayer, MaskChain
from runtime.pose.skeleton import BoneSource, SkeletonSource

from runtime_fixtures import humanoid


@pytest.fixture(autouse=True)
def warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def refused(call, *words):
    with pytest.raises(rt.InvalidError) as e:
        call()
    for w in words:
        assert w in str(e.value), (w, str(e.value))
    return e.value


# ---- the layer itself ------------------------------------------------------------------------
def test_integers_are_ints_and_integral_numpy_scalars_only():
    assert args.integer(np.int64(3), "bone") == 3 and type(args.integer(np.uint8(3), "b")) is int
    assert args.integer(2 ** 80, "bone") == 2 ** 80
    for bad in (1.0, 1.5, True, np.bool_(True), "1", None, [1], np.array([1])):
        refused(lambda: args.integer(bad, "bone"), "bone")
    refused(lambda: args.count(-1, "count"), "count")


def test_reals_refuse_what_binary64_cannot_hold():
    assert args.real(np.float32(0.5), "time") == 0.5 and args.real(3, "time") == 3.0
    refused(lambda: args.real(10 ** 400, "time"), "time", "float range")
    for bad in ("0.5", None, True, 1j, [0.5]):
        refused(lambda: args.real(bad, "time"), "time")
    refused(lambda: args.finite(float("nan"), "time"), "finite")
    assert args.finite32(3.4028235e38, "w") == 3.4028235e38
    refused(lambda: args.finite32(1e39, "w"), "binary32")


def test_float_arrays_check_shape_kind_and_range():
    assert args.floats([[1, 2], [3, 4]], (-1, 2), "t").dtype == np.float32
    refused(lambda: args.floats([1, 2, 3], (10,), "transform"), "transform", "shape")
    refused(lambda: args.floats([[1, 2], [3]], (2, 2), "t"), "t")
    refused(lambda: args.floats(["a", "b"], (2,), "t"), "t")
    refused(lambda: args.floats([1e39], (1,), "t"), "float32 range")
    refused(lambda: args.floats([np.nan], (1,), "t"), "not finite")
    assert np.isnan(args.floats([np.nan], (1,), "t", allow_nonfinite=True)[0])
    refused(lambda: args.floats([1e39], (1,), "t", allow_nonfinite=True), "range")


def test_names_encode_surrogates_to_bytes_that_name_nothing():
    assert args.name("\ud800") == b"\xed\xa0\x80"
    assert args.name(bytearray(b"hip")) == b"hip"
    refused(lambda: args.name(3, "name"), "name")


# ---- cases from review -----------------------------------------------------------------------
def test_wrong_types_in_index_positions_are_refused_by_name():
    sk = humanoid(12)
    refused(lambda: capi.maniSkeleton_GetParent(sk, 1.5), "bone")
    refused(lambda: capi.maniSkeleton_GetBoneName(sk, "x"), "bone")
    assert capi.maniSkeleton_GetParent(sk, np.int64(1)) == sk.parent(1)
    assert capi.maniSkeleton_GetParent(sk, 2 ** 70) == rt.NO_BONE


def test_names_that_are_not_utf8_find_nothing():
    sk = humanoid(12)
    assert capi.maniSkeleton_FindBone(sk, "\ud800") == rt.NO_BONE
    assert capi.maniSkeleton_FindBone(sk, b"\xff") == rt.NO_BONE
    refused(lambda: capi.maniSkeleton_FindBone(sk, 7), "name")


def test_a_view_no_open_wrote_answers_as_empty_and_is_refused_where_needed():
    blank = rt.Skeleton.__new__(rt.Skeleton)
    assert capi.maniSkeleton_GetBoneCount(blank) == 0
    assert capi.maniSkeleton_GetIdentity(blank) == 0
    assert capi.maniSkeleton_GetParent(blank, 0) == rt.NO_BONE
    assert capi.maniSkeleton_GetSubtreeEnd(blank, 0) == 0
    assert np.array_equal(capi.maniSkeleton_GetRest(blank, 0), rt.IDENTITY)
    assert capi.maniSkeleton_GetBoneName(blank, 0) is None
    assert capi.maniSkeleton_FindBone(blank, "hips") == rt.NO_BONE
    assert capi.maniSkeleton_GetPoseSize(blank) == 0
    refused(lambda: capi.maniInitPose(blank), "skeleton")
    pose = rt.Pose(humanoid(12))
    for call in (lambda: capi.maniPose_SetRest(pose, blank),
                 lambda: capi.maniPose_ComputeModel(pose, blank),
                 lambda: capi.maniSkeleton_BuildMask(blank, [], 0.0),
                 lambda: capi.maniSkeleton_BlendPoses(blank, [], 0.1, pose)):
        refused(call, "skeleton")


def test_pose_writes_take_exactly_ten_numbers_in_binary32_range():
    sk = humanoid(12)
    pose = rt.Pose(sk)
    before = pose.buffer.copy()
    refused(lambda: capi.maniPose_SetLocal(pose, 1, [0, 0, 0]), "transform")
    refused(lambda: capi.maniPose_WriteLocals(pose, 0, [0.0] * 7), "transforms")
    refused(lambda: capi.maniPose_SetLocal(pose, 1, [1e39, 0, 0, 0, 0, 0, 1, 1, 1, 1]), "range")
    refused(lambda: capi.maniPose_WriteLocals(pose, 0, [[1e39] + [0.0] * 9]), "range")
    refused(lambda: capi.maniPose_ReadLocals(pose, 0.0, 1), "first")
    assert np.array_equal(pose.buffer, before)


def test_blend_arguments_are_layers_and_numbers():
    sk = humanoid(12)
    pose, out = rt.Pose(sk), rt.Pose(sk)
    refused(lambda: capi.maniSkeleton_BlendPoses(sk, [pose], 0.1, out), "layers[0]", "BlendLayer")
    refused(lambda: capi.maniSkeleton_BlendPoses(sk, [BlendLayer(pose, "x")], 0.1, out), "weight")
    refused(lambda: capi.maniSkeleton_BlendPoses(sk, pose, 0.1, out), "layers")
    refused(lambda: capi.maniSkeleton_BuildMask(sk, [MaskChain(1, 1e39)], 0.0), "binary32")
    refused(lambda: capi.maniSkeleton_BuildMask(sk, [], 1e39), "binary32")
    refused(lambda: capi.maniSkeleton_BuildMask(sk, [MaskChain(1.0, 0.5)], 0.0), "bone")


def test_decompose_affine_refuses_what_a_binary32_matrix_cannot_hold():
    refused(lambda: capi.maniDecomposeAffine("abc"), "matrix")
    big = np.eye(4)[:3].copy()
    big[0, 3] = 1e39
    refused(lambda: capi.maniDecomposeAffine(big), "range")
    big[0, 3] = 1e300
    refused(lambda: capi.maniDecomposeAffine(big), "range")
    huge = np.zeros((3, 4), np.float32)
    huge[0, 0] = huge[1, 0] = huge[1, 1] = huge[2, 2] = 3e38     # x axis 4.2e38 long
    t = capi.maniDecomposeAffine(huge)
    assert np.isinf(t[7:]).any() and np.isfinite(t[:7]).all()


def test_hash_takes_contiguous_bytes_and_a_uint64_seed():
    strided = np.arange(16, dtype=np.uint8)[::2]
    refused(lambda: capi.maniHash64(0, strided), "contiguous")
    refused(lambda: capi.maniHash64(-1, b""), "seed")
    refused(lambda: capi.maniHash64(1.5, b""), "seed")
    assert capi.maniHash64(np.uint64(2 ** 64 - 1), b"x") == capi.maniHash64(2 ** 64 - 1, b"x")


def test_skeleton_build_refuses_rests_past_binary32_at_their_bone():
    source = SkeletonSource([BoneSource("root"), BoneSource("tip", 0, translation=(1e39, 0, 0))])
    e = refused(lambda: rt.build_skeleton(rt.Builder(), source), "bone 1")
    assert (e.reason, e.item, e.other) == (rt.BuildReason.NotFinite, 1, 0)
    source = SkeletonSource([BoneSource("root"), BoneSource("tip", 0.0)])
    assert refused(lambda: rt.build_skeleton(rt.Builder(), source)).reason == rt.BuildReason.Joint


def test_destroying_something_that_is_not_a_builder_is_refused():
    capi.maniDestroyBuilder(None)
    refused(lambda: capi.maniDestroyBuilder(3), "builder")


def test_graph_save_measures_with_no_buffer_and_capacity_zero():
    from test_graph_fixtures import bind, locomotion
    from runtime.graph.instance import GraphInstance
    inst = GraphInstance(bind(locomotion()[3], locomotion()[1]))
    state = capi.maniGraphInstance_Save(inst)
    assert capi.maniGraphInstance_Save(inst, None, 0) == len(state)
    out = bytearray(len(state))
    assert capi.maniGraphInstance_Save(inst, out, len(out)) == len(state) and bytes(out) == state
    refused(lambda: capi.maniGraphInstance_Save(inst, None, 10), "capacity")
    refused(lambda: capi.maniGraphInstance_Save(inst, [0] * 10, 10), "bytesOut")


def test_a_skeleton_whose_composed_model_overflows_answers_as_the_spec_says():
    """Rests finite in binary32 can compose past it: the model holds the IEEE infinities, and
    GetModelTransform answers the identity its entry gives for a matrix not finite."""
    big = (3.4e38, 3.4e38, 3.4e38)
    source = SkeletonSource([BoneSource("root", scale=big), BoneSource("tip", 0, scale=big,
                                                                        translation=(1, 0, 0))])
    sk = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), source))
    pose = capi.maniInitPose(sk)
    assert not np.isfinite(capi.maniPose_GetModel(pose, 1)).all()
    assert np.array_equal(capi.maniPose_GetModelTransform(pose, 1), rt.IDENTITY)
    assert np.isfinite(capi.maniPose_GetModelTransform(pose, 0)).all()


def test_a_target_at_exactly_its_full_weight_weighs_one_even_first_and_negative():
    """maniMorphTargets_ComputeTargetWeights at a channel's first full weight, negative or
    not: the mesh is that target, not the base."""
    from runtime.deform.morph_build import (MorphAttribute, MorphChannelSource, MorphSemantic,
                                            MorphSource, MorphTargetSource)
    rng = np.random.default_rng(3)
    for fulls in ([-1.0], [-2.0, -1.0], [-1.0, 1.0], [-0.5, 0.5, 1.0], [0.5, 1.0]):
        source = MorphSource(4, [MorphAttribute(MorphSemantic.position)], [MorphChannelSource(
            "c", [MorphTargetSource(f, [rng.normal(size=(4, 3))]) for f in fulls])])
        targets = rt.MorphTargets.open(rt.build_morph_targets(rt.Builder(), source))
        for k, f in enumerate(fulls):
            w = capi.maniMorphTargets_ComputeTargetWeights(targets, [f])
            expected = np.zeros(len(fulls), np.float32)
            expected[k] = 1.0
            assert np.array_equal(w, expected), (fulls, f, w)


def test_builders_refuse_values_past_binary32_at_their_item():
    """Inverse binds and center positions are stored in binary32: 1e39 is not finite there."""
    from hostile_world import World
    import dataclasses
    from runtime.deform.skin import SkinSource
    w = World()
    binds = np.tile(np.eye(4)[:3], (2, 1, 1))
    binds[1, 0, 3] = 1e39
    e = refused(lambda: rt.build_skin(rt.Builder(), SkinSource(w.skeleton, [0, 1], binds)), "joint 1")
    assert (e.reason, e.item) == (rt.BuildReason.NotFinite, 1)
    positions = w.positions.astype(np.float64)
    positions[4, 2] = -1e39
    source = dataclasses.replace(w.center_source, positions=positions)
    e = refused(lambda: rt.build_centers(rt.Builder(), source), "vertex 4")
    assert (e.reason, e.item) == (rt.BuildReason.NotFinite, 4)
    source = dataclasses.replace(w.center_source, sigma=10 ** 400)
    assert refused(lambda: rt.build_centers(rt.Builder(), source), "sigma").reason == rt.BuildReason.Option


def test_a_skin_whose_palette_overflows_gives_infinities_and_no_warning():
    from hostile_world import World
    from runtime.deform.skin import SkinSource
    w = World()
    binds = np.tile(np.eye(4)[:3], (2, 1, 1)).astype(np.float32)
    binds[0] = 3e38
    skin = rt.Skin.open(rt.build_skin(rt.Builder(), SkinSource(w.skeleton, [0, 1], binds)))
    palette = capi.maniPose_ComputePalette(w.model_pose(), w.skeleton, skin)
    assert not np.isfinite(palette[0]).all() and np.isfinite(palette[1]).all()
    refused(lambda: capi.maniConvertPaletteToDualQuaternions(palette), "not finite")


def test_root_moves_are_binary32_and_their_composition_overflows_to_infinity():
    move = [1e39, 0, 0, 0, 0, 0, 1]
    refused(lambda: capi.maniBlendRootMotion([move], [1.0]), "moves", "float32 range")
    refused(lambda: capi.maniComposeRootMotion(move, move), "first", "float32 range")
    big = [3e38, 0, 0, 0, 0, 0, 1]
    out = capi.maniComposeRootMotion(big, big)
    assert np.isinf(out[0]) and np.array_equal(out[3:], [0, 0, 0, 1])
