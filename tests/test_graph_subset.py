"""Subset plans: the planned bones are the listed ones and their ancestors, and evaluating
them gives exactly what a full evaluation gives them, bit for bit; the rest is untouched."""
import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.graph.binding import GraphAssets
from runtime.graph.source import *  # noqa: F403
from runtime.graph.source import ParameterType as T

from test_graph_fixtures import humanoid, instance_of, locomotion, params, pose_bits, slots
from test_graph_locomotion import DT, script


def test_plan_bones_are_the_listed_and_their_ancestors():
    sk, clips, source, graph = locomotion()
    binding, _ = capi.maniBindGraph(graph, GraphAssets(sk, list(clips.values())))
    hand = sk.find_bone("hand_l")
    toe = sk.find_bone("toe_r")
    plan = capi.maniPlanGraphSubset(binding, [hand, toe])
    bones = capi.maniGraphSubset_GetBones(plan)
    want = set()
    for b in (hand, toe):
        while b != rt.NO_BONE:
            want.add(b)
            b = sk.parent(b)
    assert bones.tolist() == sorted(want) and bones.dtype == np.uint32
    assert capi.maniGraphSubset_GetBones(None) is None
    for bad in ([toe, hand], [5, 5], [-1], [sk.bone_count], None):
        with pytest.raises(rt.InvalidError):
            capi.maniPlanGraphSubset(binding, bad)
    size = capi.maniGraphBinding_GetSubsetSize(binding)
    with pytest.raises(rt.CapacityError):
        capi.maniPlanGraphSubset(binding, [hand], bytearray(size - 4))
    memory = np.zeros(size, dtype=np.uint8)
    capi.maniPlanGraphSubset(binding, [hand], memory)
    assert memory[:4].tobytes() == b"GSUB"
    assert capi.maniPlanGraphSubset(binding, []).get_bones().size == 0


def test_subset_evaluation_is_bit_for_bit_the_full_one():
    sk, clips, source, graph = locomotion()
    binding, _ = capi.maniBindGraph(graph, GraphAssets(sk, list(clips.values())))
    full = capi.maniInitGraphInstance(binding)
    part = capi.maniInitGraphInstance(binding)
    plan = capi.maniPlanGraphSubset(binding, sorted(sk.find_bone(n) for n in ("head", "hand_r", "foot_l", "face3")))
    bones = capi.maniGraphSubset_GetBones(plan).astype(np.intp)
    others = np.setdiff1d(np.arange(sk.bone_count), bones)
    a, b = rt.Pose(sk), rt.Pose(sk)
    b.locals[...] = 7.0
    for frame in range(300):
        for inst in (full, part):
            script(frame, inst)
            capi.maniGraphInstance_Update(inst, DT)
        capi.maniGraphInstance_Evaluate(full, None, a)
        capi.maniGraphInstance_EvaluateSubset(part, plan, None, b)
        assert np.array_equal(pose_bits(a)[bones], pose_bits(b)[bones]), frame
        assert (b.locals[others] == 7.0).all()


def test_subsets_with_inertialization_and_partial_clips():
    sk = humanoid()
    nodes = [ClipNode(0), ClipNode(5), ClipNode(1), SelectNode(0, [0, 1, 2]),
             InertializeNode(3, duration=0.3), ClipNode(4), AdditiveNode(4, 5, 0.5)]
    g, binding, full = instance_of(GraphSource(sk, nodes, 6, params(("i", T.int_)), slots("a", "b", "c", "d", "e", "f")))
    part = capi.maniInitGraphInstance(binding)
    plan = capi.maniPlanGraphSubset(binding, [7, 12, 30])
    bones = plan.bones
    a, b = rt.Pose(sk), rt.Pose(sk)
    for frame in range(40):
        for inst in (full, part):
            if frame in (8, 20):
                capi.maniGraphInstance_SetParameter(inst, 0, T.int_, frame // 8)
            capi.maniGraphInstance_Update(inst, 1 / 30)
        capi.maniGraphInstance_Evaluate(full, None, a)
        capi.maniGraphInstance_EvaluateSubset(part, plan, None, b)
        assert np.array_equal(pose_bits(a)[bones], pose_bits(b)[bones]), frame


def test_subset_refusals():
    g, binding, inst = instance_of(GraphSource(humanoid(), [ClipNode(0)], 0, clips=slots("a")))
    g2, binding2, inst2 = instance_of(GraphSource(humanoid(), [ClipNode(0)], 0, clips=slots("a")))
    plan = capi.maniPlanGraphSubset(binding2, [3])
    with pytest.raises(rt.InvalidError):
        capi.maniGraphInstance_EvaluateSubset(inst, plan, None, rt.Pose(humanoid()))
    with pytest.raises(rt.InvalidError):
        capi.maniGraphInstance_EvaluateSubset(inst, None, None, rt.Pose(humanoid()))
    with pytest.raises(rt.InvalidError):
        capi.maniGraphInstance_EvaluateSubset(inst2, plan, None, rt.Pose(humanoid(40)))
