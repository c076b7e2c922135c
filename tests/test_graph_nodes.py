"""Binding, instances, parameters, and each node kind's update and evaluation against the
blending functions and the clips' own sampling and root motion."""
import math

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.pose.blend import BlendLayer, add_layers, blend_poses
from runtime.graph.file import Graph
from runtime.graph.batch import evaluate_batch, update_batch
from runtime.graph.binding import GraphAssets
from runtime.graph.build.build import build
from runtime.graph.instance import GraphInstance, GraphValue
from runtime.graph.limits import GRAPH_EVENT_THRESHOLD, GRAPH_NONE
from runtime.graph.source import *  # noqa: F403
from runtime.graph.source import ParameterType as T
from runtime.clip.rootmotion import RootMotionSource, blend as blend_moves, get_root_motion

from test_graph_fixtures import (bind, humanoid, instance_of, make_clip, params, slots,
                                 standard_clips)

TOL = 2e-6


def src(nodes, ps=(), names=("a", "b", "c", "d", "e", "f"), **kw):
    return GraphSource(humanoid(), nodes, len(nodes) - 1, params(*ps), slots(*names), **kw)


def sampled(name, t):
    pose = rt.Pose(humanoid())
    standard_clips()[name].sample(humanoid(), t, pose)
    return pose


def evaluated(inst):
    pose = rt.Pose(humanoid())
    capi.maniGraphInstance_Evaluate(inst, None, pose)
    return pose


# ---- bind and instances -------------------------------------------------------------------------------------
def test_bind_by_identity_and_its_refusals():
    g = Graph(build(src([ClipNode(0), ClipNode(1), AdditiveNode(0, 1)], names=("a", "e"))))
    clips = standard_clips()
    sk = humanoid()
    binding, unbound = capi.maniBindGraph(g, GraphAssets(sk, [clips["c"], clips["e"], clips["a"]]))
    assert unbound == GRAPH_NONE and binding.clips == [clips["a"], clips["e"]]
    with pytest.raises(rt.InvalidError):
        capi.maniBindGraph(g, GraphAssets(humanoid(40), list(clips.values())))
    with pytest.raises(rt.InvalidError) as info:
        capi.maniBindGraph(g, GraphAssets(sk, [clips["a"], clips["b"]]))
    assert info.value.unbound == 1                         # slot 1 ("e") binds nothing
    with pytest.raises(rt.InvalidError):
        capi.maniBindGraph(None, GraphAssets(sk, []))
    # root motion naming different bones
    other = make_clip(sk, 7, 1.0)
    other_root = make_clip(sk, 8, 1.0)
    from runtime.clip.build import ChannelPath, ChannelSource, ClipSource, build_clip
    times = np.linspace(0, 1, 3)
    spine = rt.Clip(build_clip(rt.Builder(), ClipSource(sk, [ChannelSource(1, ChannelPath.translation, times,
                                                                             np.outer(times, [1, 0, 0]))],
                                                         root_motion=RootMotionSource(1))))
    two = Graph(build(GraphSource(sk, [ClipNode(0), ClipNode(1), BlendNode([BlendInput(0), BlendInput(1)])], 2,
                                  clips=[ClipSlotSource("x", other), ClipSlotSource("y", spine)])))
    with pytest.raises(rt.InvalidError):
        capi.maniBindGraph(two, GraphAssets(sk, [other, spine]))
    assert other_root is not None


def test_binding_memory_and_sizes():
    g = Graph(build(src([ClipNode(0)])))
    size = capi.maniGraph_GetBindingSize(g)
    with pytest.raises(rt.CapacityError):
        capi.maniBindGraph(g, GraphAssets(humanoid(), list(standard_clips().values())), bytearray(size - 8))
    memory = np.zeros(size, dtype=np.uint8)
    binding, _ = capi.maniBindGraph(g, GraphAssets(humanoid(), list(standard_clips().values())), memory)
    assert memory[:4].tobytes() == b"GBND"
    assert capi.maniGraphBinding_GetInstanceSize(binding) > 64
    assert capi.maniGraphBinding_GetScratchSize(binding) > 0
    assert capi.maniGraphBinding_GetSubsetSize(binding) == 32 + 4 * 80
    for fn in (capi.maniGraphBinding_GetInstanceSize, capi.maniGraphBinding_GetScratchSize,
               capi.maniGraphBinding_GetSubsetSize):
        assert fn(None) == 0


def test_instance_memory_and_byte_copies():
    g, b, inst = instance_of(src([ClipNode(0)]))
    size = capi.maniGraphBinding_GetInstanceSize(b)
    with pytest.raises(rt.CapacityError):
        capi.maniInitGraphInstance(b, bytearray(size - 1))
    with pytest.raises(rt.InvalidError):
        capi.maniInitGraphInstance(None)
    memory = np.zeros(size + 8, dtype=np.uint8)
    with pytest.raises(rt.InvalidError):
        capi.maniInitGraphInstance(b, memory[1:size + 1])
    mine = capi.maniInitGraphInstance(b, memory)
    capi.maniGraphInstance_Update(mine, 0.3)
    copy = GraphInstance.attach(b, bytearray(mine.buffer.tobytes()))
    for _ in range(5):
        capi.maniGraphInstance_Update(mine, 0.1)
        capi.maniGraphInstance_Update(copy, 0.1)
    assert bytes(copy.buffer) == bytes(mine.buffer)
    with pytest.raises(rt.InvalidError):
        GraphInstance.attach(bind(Graph(build(src([ClipNode(1)])))), bytearray(mine.buffer.tobytes()))


def test_parameters_set_get_and_refusals():
    ps = [("b", T.bool_), ("t", T.trigger), ("i", T.int_, 1, -2, 5), ("f", T.float_, 0.5, 0.0, 1.0),
          ("v2", T.vector2), ("v3", T.vector3), ("v4", T.vector4), ("q", T.quaternion), ("p", T.pose)]
    g, b, inst = instance_of(src([ClipNode(0)], ps))
    get = lambda k: capi.maniGraphInstance_GetParameter(inst, k)                    # noqa: E731
    assert get(2).i == 1 and get(3).f[0] == 0.5 and get(7).f == (0, 0, 0, 1) and not get(8).b
    capi.maniGraphInstance_SetParameter(inst, 0, T.bool_, True)
    capi.maniGraphInstance_SetParameter(inst, 1, T.trigger, GraphValue(b=True))
    capi.maniGraphInstance_SetParameter(inst, 2, T.int_, 99)
    capi.maniGraphInstance_SetParameter(inst, 3, T.float_, -3.0)
    capi.maniGraphInstance_SetParameter(inst, 4, T.vector2, (1.5, 2.5))
    capi.maniGraphInstance_SetParameter(inst, 5, T.vector3, GraphValue(f=(1, 2, 3, 0)))
    capi.maniGraphInstance_SetParameter(inst, 7, T.quaternion, (0, 0, 2, 0))
    assert get(0).b and get(1).b and get(2).i == 5 and get(3).f[0] == 0.0
    assert get(4).f[:2] == (1.5, 2.5) and get(5).f[:3] == (1, 2, 3) and get(7).f == (0, 0, 1, 0)
    capi.maniGraphInstance_SetParameter(inst, 2, T.int_, -99)
    assert get(2).i == -2
    before = bytes(inst.buffer)
    for k, t, v in ((0, T.bool_, 2), (3, T.float_, math.nan), (3, T.float_, math.inf), (4, T.vector2, (1, math.nan)),
                    (7, T.quaternion, (0, 0, 0, 0)), (3, T.int_, 1), (9, T.float_, 0.0), (8, T.pose, None),
                    (2, T.int_, 1.5), (5, T.vector3, (1, 2))):
        with pytest.raises(rt.InvalidError):
            capi.maniGraphInstance_SetParameter(inst, k, t, v)
    with pytest.raises(rt.InvalidError):
        capi.maniGraphInstance_GetParameter(inst, 9)
    with pytest.raises(rt.InvalidError):
        capi.maniGraphInstance_SetParameter(None, 0, T.bool_, True)
    assert bytes(inst.buffer) == before


def test_pose_parameters():
    g, b, inst = instance_of(src([PoseParameterNode(0)], [("p", T.pose), ("f", T.float_)]))
    sk = humanoid()
    out = rt.Pose(sk)
    capi.maniGraphInstance_GetPose(inst, 0, out)
    np.testing.assert_array_equal(out.locals, sk.rests)
    target = sampled("b", 0.2)
    capi.maniGraphInstance_SetPose(inst, 0, target)
    capi.maniGraphInstance_Update(inst, 0.1)
    np.testing.assert_array_equal(evaluated(inst).locals, target.locals)
    capi.maniGraphInstance_GetPose(inst, 0, out)
    np.testing.assert_array_equal(out.locals, target.locals)
    diff = rt.Pose(sk)
    rt.compute_pose_difference(sk, target, sampled("a", 0.1), diff)
    for args in ((0, diff), (1, target), (0, rt.Pose(humanoid(40))), (5, target)):
        with pytest.raises(rt.InvalidError):
            capi.maniGraphInstance_SetPose(inst, *args)
    with pytest.raises(rt.InvalidError):
        capi.maniGraphInstance_GetPose(inst, 1, out)


def test_rest_before_the_first_update_and_inspection():
    g, b, inst = instance_of(src([ClipNode(0), ClipNode(1), BlendNode([BlendInput(0), BlendInput(1)])]))
    np.testing.assert_array_equal(evaluated(inst).locals, humanoid().rests)
    view = capi.maniGraphInstance_InspectNode(inst, 2)
    assert view.kind == NodeKind.blend and view.weight == 0.0 and not view.failed
    capi.maniGraphInstance_Update(inst, 0.25)
    v0, v2 = (capi.maniGraphInstance_InspectNode(inst, k) for k in (0, 2))
    assert v2.weight == 1.0 and v0.weight == 0.5 and v0.playhead == pytest.approx(0.25)
    assert v0.state == GRAPH_NONE and v0.transition == GRAPH_NONE
    with pytest.raises(rt.InvalidError):
        capi.maniGraphInstance_InspectNode(inst, 3)


# ---- nodes ------------------------------------------------------------------------------------------------------
def test_clip_node_samples_at_its_playhead_and_moves_by_speed():
    g, b, inst = instance_of(src([ClipNode(0, speed=0.5)]))
    capi.maniGraphInstance_Update(inst, 0.5)
    assert capi.maniGraphInstance_InspectNode(inst, 0).playhead == pytest.approx(0.25)
    np.testing.assert_allclose(evaluated(inst).locals, sampled("a", 0.25).locals, atol=TOL)
    # a clip tracking some bones leaves the others at rest
    g, b, inst = instance_of(src([ClipNode(5)]))
    capi.maniGraphInstance_Update(inst, 0.4)
    np.testing.assert_allclose(evaluated(inst).locals, sampled("f", 0.4).locals, atol=TOL)


def test_loop_modes_and_clamping():
    g, b, inst = instance_of(src([ClipNode(0, loop=ClipLoop.clamp), ClipNode(3, loop=ClipLoop.repeat),
                                  ClipNode(3), BlendNode([BlendInput(0), BlendInput(1), BlendInput(2)])]))
    for _ in range(3):
        capi.maniGraphInstance_Update(inst, 0.5)
    heads = [capi.maniGraphInstance_InspectNode(inst, k).playhead for k in range(3)]
    assert heads[0] == pytest.approx(1.0)                  # a repeating clip held at its end
    assert heads[1] == pytest.approx(1.5 - 0.8)            # a clamped clip made to repeat
    assert heads[2] == pytest.approx(0.8)                  # the clamped clip as it is


def test_normalized_and_direct_blends():
    ps = [("w", T.float_, 0.0, 0.0, 1.0)]
    g, b, inst = instance_of(src([ClipNode(0), ClipNode(1), BlendNode([BlendInput(0, 1.0), BlendInput(1, 0.5, 0)])], ps))
    capi.maniGraphInstance_SetParameter(inst, 0, T.float_, 0.5)
    capi.maniGraphInstance_Update(inst, 0.1)
    w = [capi.maniGraphInstance_InspectNode(inst, k).weight for k in range(2)]
    assert w == pytest.approx([0.8, 0.2])
    want = rt.Pose(humanoid())
    blend_poses(humanoid(), [BlendLayer(sampled("a", 0.1), 0.8), BlendLayer(sampled("b", 0.1), 0.2)], 0.0, want)
    np.testing.assert_allclose(evaluated(inst).locals, want.locals, atol=1e-5)
    g, b, inst = instance_of(src([ClipNode(0), BlendNode([BlendInput(0, 0.25)], direct=True)]))
    capi.maniGraphInstance_Update(inst, 0.1)
    assert capi.maniGraphInstance_InspectNode(inst, 0).weight == pytest.approx(0.25)
    blend_poses(humanoid(), [BlendLayer(sampled("a", 0.1), 0.25)], 1.0, want)
    np.testing.assert_allclose(evaluated(inst).locals, want.locals, atol=1e-5)


def _weights(inst, nodes):
    return [capi.maniGraphInstance_InspectNode(inst, k).weight for k in nodes]


def test_blend_spaces():
    ps = [("x", T.float_), ("y", T.float_)]
    one = src([ClipNode(0), ClipNode(1), ClipNode(2),
               Blend1DNode(0, [SpacePoint(0, 0.0), SpacePoint(1, 2.0), SpacePoint(2, 4.0)], period=6.0)], ps)
    g, b, inst = instance_of(one)
    for x, want in ((1.0, [0.5, 0.5, 0]), (5.0, [0.5, 0, 0.5]), (-1.0, [0.5, 0, 0.5]), (13.0, [0.5, 0.5, 0])):
        capi.maniGraphInstance_SetParameter(inst, 0, T.float_, x)
        capi.maniGraphInstance_Update(inst, 0.01)
        assert _weights(inst, range(3)) == pytest.approx(want), x
    polar = src([ClipNode(0), ClipNode(1), ClipNode(2), ClipNode(0),
                 Blend2DBandedNode(0, 1, [SpacePoint(0, 0.0, 0.0), SpacePoint(1, 0.0, 2.0),
                                          SpacePoint(2, math.pi / 2, 2.0), SpacePoint(3, math.pi, 2.0)], polar=True)], ps)
    g, b, inst = instance_of(polar)
    capi.maniGraphInstance_SetParameter(inst, 0, T.float_, math.pi / 4)
    capi.maniGraphInstance_SetParameter(inst, 1, T.float_, 1.0)
    capi.maniGraphInstance_Update(inst, 0.01)
    assert _weights(inst, range(4)) == pytest.approx([0.5, 0.25, 0.25, 0.0])
    capi.maniGraphInstance_SetParameter(inst, 0, T.float_, -math.pi / 2)          # between pi and 0 the long way
    capi.maniGraphInstance_SetParameter(inst, 1, T.float_, 3.0)
    capi.maniGraphInstance_Update(inst, 0.01)
    assert _weights(inst, range(4)) == pytest.approx([0.0, 0.5, 0.0, 0.5])
    corners = [SpacePoint(k, x, y) for k, (x, y) in enumerate([(0, 0), (2, 0), (0, 2)])]
    tri = src([ClipNode(0), ClipNode(1), ClipNode(2), Blend2DTriangulatedNode(0, 1, corners)], ps)
    g, b, inst = instance_of(tri)
    for (x, y), want in (((0.5, 0.5), [0.5, 0.25, 0.25]), ((2, 2), [0, 0.5, 0.5]), ((-1, 1), [0.5, 0, 0.5])):
        capi.maniGraphInstance_SetParameter(inst, 0, T.float_, x)
        capi.maniGraphInstance_SetParameter(inst, 1, T.float_, y)
        capi.maniGraphInstance_Update(inst, 0.01)
        assert _weights(inst, range(3)) == pytest.approx(want), (x, y)


def test_mask_and_one_root_motion_bone_weight():
    sk = humanoid()
    spine = sk.find_bone("spine0")
    g, b, inst = instance_of(src([ClipNode(0), ClipNode(1), MaskNode(0, 1, [MaskChain(spine, 1.0, True)], 0.25)]))
    _, _, moves = capi.maniGraphInstance_Update(inst, 0.2)
    m = g.masks[0]
    assert _weights(inst, range(2)) == pytest.approx([0.75, 1.0])
    assert capi.maniGraphInstance_InspectNode(inst, 0).root_weight == pytest.approx(0.75)
    want = rt.Pose(sk)
    blend_poses(sk, [BlendLayer(sampled("a", 0.2), 1.0, 1.0 - m), BlendLayer(sampled("b", 0.2), 1.0, m)], 0.0, want)
    np.testing.assert_allclose(evaluated(inst).locals, want.locals, atol=1e-5)
    clips = standard_clips()
    ref = blend_moves([get_root_motion(clips["a"], 0.0, 0.2), get_root_motion(clips["b"], 0.0, 0.2)], [0.75, 0.25])
    np.testing.assert_allclose(moves, ref, atol=1e-6)


def test_additive_layer():
    ps = [("w", T.float_, 1.0, 0.0, 1.0)]
    g, b, inst = instance_of(src([ClipNode(0), ClipNode(4), AdditiveNode(0, 1, 0.5, 0)], ps))
    capi.maniGraphInstance_SetParameter(inst, 0, T.float_, 0.5)
    _, _, move = capi.maniGraphInstance_Update(inst, 0.3)
    assert _weights(inst, range(2)) == pytest.approx([1.0, 0.25])
    assert capi.maniGraphInstance_InspectNode(inst, 1).root_weight == 0.0
    sk = humanoid()
    want = sampled("a", 0.3)
    add_layers(want, sk, [BlendLayer(sampled("e", 0.3), 0.25)])
    np.testing.assert_allclose(evaluated(inst).locals, want.locals, atol=1e-5)
    np.testing.assert_allclose(move, get_root_motion(standard_clips()["a"], 0.0, 0.3), atol=1e-6)


def test_select_time_scale_and_seek():
    ps = [("i", T.int_), ("b", T.bool_), ("s", T.float_, 1.0), ("go", T.trigger)]
    g, b, inst = instance_of(src([ClipNode(0), ClipNode(1), ClipNode(2), SelectNode(0, [0, 1, 2]),
                                  SelectNode(1, [3, 2]), TimeScaleNode(4, 2.0, 2), SeekNode(5, 3, 0.75)], ps))
    capi.maniGraphInstance_SetParameter(inst, 0, T.int_, 7)
    capi.maniGraphInstance_Update(inst, 0.1)
    assert _weights(inst, range(3)) == [0.0, 0.0, 1.0]
    assert capi.maniGraphInstance_InspectNode(inst, 2).playhead == pytest.approx(0.2)
    capi.maniGraphInstance_SetParameter(inst, 1, T.bool_, True)
    capi.maniGraphInstance_SetParameter(inst, 2, T.float_, -0.5)
    capi.maniGraphInstance_Update(inst, 0.1)
    assert capi.maniGraphInstance_InspectNode(inst, 2).playhead == pytest.approx(0.1)   # backwards
    capi.maniGraphInstance_SetParameter(inst, 3, T.trigger, True)
    events, count, _ = capi.maniGraphInstance_Update(inst, 0.1)
    assert capi.maniGraphInstance_InspectNode(inst, 2).playhead == pytest.approx(0.75)
    assert count == 0 and not capi.maniGraphInstance_GetParameter(inst, 3).b        # consumed
    capi.maniGraphInstance_SetParameter(inst, 1, T.bool_, False)
    capi.maniGraphInstance_SetParameter(inst, 0, T.int_, -4)
    capi.maniGraphInstance_Update(inst, 0.1)
    assert _weights(inst, range(3)) == [1.0, 0.0, 0.0]
    np.testing.assert_allclose(evaluated(inst).locals, sampled("a", 0.2 * 0.5 * 0 + 0.1 * 2 * -0.5 % 1.0).locals,
                               atol=TOL)


def test_events_threshold_order_and_direction():
    ps = [("w", T.float_, 0.0, 0.0, 1.0)]
    g, b, inst = instance_of(src([ClipNode(0), ClipNode(2, speed=2.0), Blend1DNode(0, [SpacePoint(0, 0.0), SpacePoint(1, 1.0)])], ps))
    capi.maniGraphInstance_SetParameter(inst, 0, T.float_, 0.95)
    events, count, _ = capi.maniGraphInstance_Update(inst, 0.6)
    names = [e.name for e in events]
    assert names == ["stepC"] and events[0].node == 1 and events[0].clip == 2     # a below the threshold
    assert 0.05 <= GRAPH_EVENT_THRESHOLD
    capi.maniGraphInstance_SetParameter(inst, 0, T.float_, 0.5)
    events, count, _ = capi.maniGraphInstance_Update(inst, 0.5)    # a 0.6 -> 1.1 (wraps), c 1.2 -> 0.2
    assert [(e.node, e.name) for e in events] == [(0, "stepA2")]
    events, count, _ = capi.maniGraphInstance_Update(inst, 0.3)    # a 0.1 -> 0.4, c 0.2 -> 0.8
    assert [e.name for e in events] == ["stepA"]
    assert events[0].weight == pytest.approx(0.5) and events[0].time == pytest.approx(0.25)
    out = []
    listed, count, _ = capi.maniGraphInstance_Update(inst, 0.5, out, 0)   # a 0.4 -> 0.9, c 0.8 -> 1.8
    assert listed == out == [] and count == 2
    with pytest.raises(rt.InvalidError):
        capi.maniGraphInstance_Update(inst, 0.1, None, 3)
    before = bytes(inst.buffer)
    for bad in (math.nan, math.inf):
        with pytest.raises(rt.InvalidError):
            capi.maniGraphInstance_Update(inst, bad)
    assert bytes(inst.buffer) == before
    # backwards, an event passed going back is listed
    capi.maniGraphInstance_SetParameter(inst, 0, T.float_, 0.0)
    events, _, _ = capi.maniGraphInstance_Update(inst, -0.7)      # a 0.9 -> 0.2, backwards
    assert [e.name for e in events] == ["stepA2", "stepA"]


def test_all_events_slots_list_at_any_weight():
    clips = standard_clips()
    ps = [("w", T.float_, 0.99, 0.0, 1.0)]
    source = GraphSource(humanoid(), [ClipNode(0), ClipNode(1), Blend1DNode(0, [SpacePoint(0, 0.0), SpacePoint(1, 1.0)])],
                         2, params(*ps), [ClipSlotSource("a", clips["a"], all_events=True), ClipSlotSource("b", clips["b"])])
    g, b, inst = instance_of(source)
    events, _, _ = capi.maniGraphInstance_Update(inst, 0.3)
    assert [e.name for e in events] == ["stepA", "stepB"]


def test_root_motion_across_wraps():
    g, b, inst = instance_of(src([ClipNode(1)]))
    clip = standard_clips()["b"]
    t = 0.0
    for step in (0.2, 0.2, 0.35, 1.3):
        _, _, move = capi.maniGraphInstance_Update(inst, step)
        np.testing.assert_allclose(move, get_root_motion(clip, t, step), atol=2e-6)
        t += step


def test_batches_agree_with_instances_alone():
    ps = [("w", T.float_, 0.0, 0.0, 1.0), ("go", T.trigger)]
    sk = humanoid()
    source = src([ClipNode(0), ClipNode(1), ClipNode(4), Blend1DNode(0, [SpacePoint(0, 0.0), SpacePoint(1, 1.0)]),
                  AdditiveNode(3, 2, 0.7), ClipNode(5), MaskNode(4, 5, [MaskChain(sk.find_bone("arm_l"), 1.0, True)])], ps)
    g = Graph(build(source))
    binding = bind(g)
    insts = [GraphInstance(binding) for _ in range(7)]
    alone = [GraphInstance(binding) for _ in range(7)]
    batch = rt.PoseBatch(sk, 7)
    pose = rt.Pose(sk)
    for frame in range(12):
        for k, (a, c) in enumerate(zip(insts, alone)):
            w = ((k * 0.3 + frame * 0.07) % 1.3)
            for inst in (a, c):
                capi.maniGraphInstance_SetParameter(inst, 0, T.float_, min(w, 1.0))
        results = update_batch(insts, 1 / 30)
        evaluate_batch(insts, batch)
        for k, c in enumerate(alone):
            events, count, move = capi.maniGraphInstance_Update(c, 1 / 30)
            assert results[k][1] == count and np.array_equal(results[k][2], move)
            capi.maniGraphInstance_Evaluate(c, None, pose)
            assert np.array_equal(batch.locals[k], pose.locals), (frame, k)


def test_evaluate_refusals_and_caller_scratch():
    g, b, inst = instance_of(src([ClipNode(0), ClipNode(1), BlendNode([BlendInput(0), BlendInput(1)])]))
    capi.maniGraphInstance_Update(inst, 0.2)
    with pytest.raises(rt.InvalidError):
        capi.maniGraphInstance_Evaluate(inst, None, rt.Pose(humanoid(40)))
    with pytest.raises(rt.InvalidError):
        capi.maniGraphInstance_Evaluate(None, None, rt.Pose(humanoid()))
    size = capi.maniGraphBinding_GetScratchSize(b)
    with pytest.raises(rt.CapacityError):
        capi.maniGraphInstance_Evaluate(inst, bytearray(size - 4), rt.Pose(humanoid()))
    scratch = np.full(size, 0xFF, dtype=np.uint8)
    mine = rt.Pose(humanoid())
    capi.maniGraphInstance_Evaluate(inst, scratch, mine)
    assert np.array_equal(mine.locals, evaluated(inst).locals)
