"""maniBuildGraph: inlining, checks and every refusal reason, order, slots, masks, kinds."""
import math

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core import names
from runtime.pose.blend import MaskChain as BlendChain
from runtime.pose.blend import build_mask
from runtime.core.errors import BuildReason as R
from runtime.graph.file import Graph
from runtime.graph.build.build import assign_slots, build
from runtime.graph.limits import (GRAPH_NONE, LIST_CLIPS, LIST_NODES, LIST_PARAMETERS, LIST_SHIFT,
                                  MAX_GRAPH_CONDITIONS, MAX_GRAPH_DEPTH, MAX_GRAPH_INPUTS,
                                  MAX_GRAPH_PARAMETERS)
from runtime.graph.build.nodes import INPUT_COUNT
from runtime.graph.source import *  # noqa: F403
from runtime.graph.source import ParameterType as T

from test_graph_fixtures import builder, humanoid, make_clip, params, slots, standard_clips


def source(nodes, output=None, **kw):
    kw.setdefault("clips", slots("a", "b", "c", "d", "e"))
    return GraphSource(humanoid(), nodes, len(nodes) - 1 if output is None else output, **kw)


def refusal(src, error=rt.InvalidError):
    b = builder()
    with pytest.raises(error) as info:
        capi.maniBuildGraph(b, src)
    assert capi.maniBuilder_GetMisuse(b) == 0, "a refused source is no misuse"
    return info.value


def check(src, reason, item=None, other=None, error=rt.InvalidError):
    exc = refusal(src, error)
    assert type(exc) is error
    assert exc.reason == reason, str(exc)
    if item is not None:
        assert exc.item == item, str(exc)
    if other is not None:
        assert exc.other == other, str(exc)
    return exc


# ---- builds ---------------------------------------------------------------------------------------------
def test_build_keeps_file_and_is_deterministic():
    src = source([ClipNode(0), ClipNode(1), BlendNode([BlendInput(0), BlendInput(1)])])
    b = builder()
    capi.maniBuildGraph(b, src)
    data = capi.maniBuilder_CopyBuilt(b)
    assert data == build(src) == build(src)
    g = capi.maniOpenGraph(data)
    assert capi.maniGraph_GetNodeCount(g) == 3
    capi.maniBuildGraph(b, source([ClipNode(2)]))
    assert capi.maniBuilder_CopyBuilt(b) != data            # replaced


def test_builder_misuse_is_counted():
    b = builder()
    with pytest.raises(rt.InvalidError):
        capi.maniBuildGraph(b, None)
    with pytest.raises(rt.InvalidError):
        capi.maniBuildGraph(b, GraphSource(None, [ClipNode(0)]))
    assert capi.maniBuilder_GetMisuse(b) == 2
    with pytest.raises(rt.InvalidError):
        capi.maniBuildGraph(None, source([ClipNode(0)]))


def test_order_keeps_the_source_where_it_may():
    ordered = source([ClipNode(0), ClipNode(1), BlendNode([BlendInput(0), BlendInput(1)])])
    g = Graph(build(ordered))
    assert [capi.maniGraph_GetNodeSourcePlace(g, k) for k in range(3)] == [0, 1, 2]
    shuffled = source([BlendNode([BlendInput(2), BlendInput(1)]), ClipNode(1), ClipNode(0),
                       TimeScaleNode(0)], output=3)
    g = Graph(build(shuffled))
    places = [capi.maniGraph_GetNodeSourcePlace(g, k) for k in range(4)]
    assert places == [1, 2, 0, 3]
    assert capi.maniGraph_GetOutputNode(g) == 3
    assert [capi.maniGraph_GetNodeInput(g, 2, i) for i in range(2)] == [1, 0]
    for k in range(4):
        assert all(capi.maniGraph_GetNodeInput(g, k, i) < k
                   for i in range(capi.maniGraph_GetNodeInputCount(g, k)))


def test_subgraphs_inline_breadth_first_with_parameters_by_name():
    inner = GraphSource(humanoid(), [ClipNode(0), TimeScaleNode(0, 2.0, parameter=0)], 1,
                        params(("rate", T.float_)), slots("c"))
    middle = GraphSource(humanoid(), [ClipNode(0), SubgraphNode(inner, {"rate": "speed"}),
                                      BlendNode([BlendInput(0, parameter=0), BlendInput(1)])], 2,
                         params(("speed", T.float_)), slots("a"))
    host = source([ClipNode(1), SubgraphNode(middle), BlendNode([BlendInput(0), BlendInput(1)])],
                  parameters=params(("speed", T.float_, 0.5)), clips=slots("a", "b"))
    g = Graph(build(host))
    # host places 0-2, middle's 3-5, inner's 6-7; subgraph nodes (1, 4) are not in the file
    assert sorted(capi.maniGraph_GetNodeSourcePlace(g, k) for k in range(g.node_count)) == [0, 2, 3, 5, 6, 7]
    assert capi.maniGraph_GetClipCount(g) == 3                  # a, b, then the inner c
    assert [capi.maniGraph_GetClipName(g, k) for k in range(3)] == ["a", "b", "c"]
    assert capi.maniGraph_GetParameterCount(g) == 1
    scale = next(n for n in g.nodes if n.kind == NodeKind.time_scale)
    assert scale.data.parameter == 0                           # inner "rate" -> host "speed"
    assert capi.maniGraph_GetNodeSourcePlace(g, g.output_node) == 2


def test_slots_are_reused_after_their_last_reader():
    assert assign_slots([[], [], [0, 1], [], [2, 3]]) == [0, 1, 2, 0, 1]
    chain = [ClipNode(0)] + [TimeScaleNode(k) for k in range(30)]
    g = Graph(build(source(chain)))
    assert g.slot_count == 2
    inputs = [n.inputs for n in g.nodes]
    assert [n.slot for n in g.nodes] == assign_slots(inputs)


def test_masks_difference_marks_and_delaunay():
    sk = humanoid()
    spine = sk.find_bone("spine1")
    arm = sk.find_bone("arm_l")
    src = source([ClipNode(0), ClipNode(1),
                  MaskNode(0, 1, [MaskChain(spine, 0.75, True), MaskChain(arm, 0.25)], 0.1),
                  ClipNode(4), AdditiveNode(2, 3, 0.5)])
    g = Graph(build(src))
    want = build_mask(sk, [BlendChain(spine, 0.75, True), BlendChain(arm, 0.25, False)], 0.1)
    np.testing.assert_array_equal(g.masks[0], want)
    kinds = {n.place: n.difference for n in g.nodes}
    assert kinds == {0: False, 1: False, 2: False, 3: True, 4: False}
    points = [SpacePoint(k, x, y) for k, (x, y) in enumerate([(0, 0), (1, 0), (0, 1), (1, 1), (0.5, 0.5)])]
    tri = source([ClipNode(0), ClipNode(1), ClipNode(2), ClipNode(0), ClipNode(1),
                  Blend2DTriangulatedNode(0, 1, points)], parameters=params(("x", T.float_), ("y", T.float_)))
    g = Graph(build(tri))
    assert len(g.nodes[-1].data.triangles) == 4


# ---- refusals, reason by reason ----------------------------------------------------------------------------
def test_count():
    check(source([]), R.Count, 0, LIST_NODES)
    check(source([ClipNode(0)], parameters=None), R.Count, 0, LIST_PARAMETERS)
    check(source([BlendNode(None)]), R.Count, 0)
    sub = GraphSource(humanoid(), [], 0)
    check(source([ClipNode(0), SubgraphNode(sub)], output=0), R.Count, 1, LIST_NODES)
    too_many = params(*[(f"p{k}", T.float_) for k in range(MAX_GRAPH_PARAMETERS + 1)])
    check(source([ClipNode(0)], parameters=too_many), R.Count, MAX_GRAPH_PARAMETERS + 1,
          LIST_PARAMETERS, error=rt.LimitError)
    nested = GraphSource(humanoid(), [ClipNode(0)], 0, clips=slots("a"))
    for _ in range(MAX_GRAPH_DEPTH + 1):
        nested = GraphSource(humanoid(), [SubgraphNode(nested)], 0)
    check(source([SubgraphNode(nested)]), R.Count, error=rt.LimitError)


def test_names():
    check(source([ClipNode(0)], parameters=params(("", T.float_))), R.Name, 0,
          LIST_PARAMETERS << LIST_SHIFT)
    check(source([ClipNode(0)], parameters=params(("x" * 256, T.float_))), R.Name, 0,
          error=rt.LimitError)
    clips = standard_clips()
    dup = [ClipSlotSource("a", clips["a"]), ClipSlotSource("a", clips["b"])]
    check(source([ClipNode(0)], clips=dup), R.DuplicateName, 1, LIST_CLIPS << LIST_SHIFT | 0)
    check(source([ClipNode(0)], sync_groups=[SyncGroupSource(b"\xff")]), R.Name, 0)


def test_name_hash(monkeypatch):
    monkeypatch.setattr(names, "hash_name", lambda raw: 7)
    check(source([ClipNode(0)], parameters=params(("x", T.float_), ("y", T.float_))), R.NameHash, 1,
          LIST_PARAMETERS << LIST_SHIFT | 0)


def test_parameters():
    F = 0x80000000
    check(source([ClipNode(0)], parameters=[ParameterSource("p", 99)]), R.Parameter, 0, F | 0)
    check(source([ClipNode(0)], parameters=params(("p", T.float_, 2.0, 0.0, 1.0))), R.Parameter, 0, F | 1)
    check(source([ClipNode(0)], parameters=params(("p", T.bool_, False, 0, 1))), R.Parameter, 0, F | 2)
    check(source([ClipNode(0)], parameters=params(("p", T.int_, 0, 0.5, 3))), R.Parameter, 0, F | 2)
    check(source([ClipNode(0)], parameters=params(("p", T.quaternion, (0, 0, 0, 0)))), R.Parameter, 0, F | 1)
    check(source([ClipNode(0)], parameters=params(("p", T.bool_, 2))), R.Parameter, 0, F | 1)
    check(source([ClipNode(0)], parameters=params(("p", T.pose, 1))), R.Parameter, 0, F | 1)
    # nodes reading a parameter of the wrong type or past the list
    ps = params(("t", T.trigger), ("f", T.float_))
    check(source([ClipNode(0), Blend1DNode(0, [SpacePoint(0, 0.0)])], parameters=ps), R.Parameter, 1, 0)
    check(source([ClipNode(0), SeekNode(0, 5)], parameters=ps), R.Parameter, 1, 5)
    # a subgraph parameter the host lacks, or has of another type
    sub = GraphSource(humanoid(), [ClipNode(0)], 0, params(("rate", T.float_)), slots("a"))
    check(source([SubgraphNode(sub)], parameters=ps), R.Parameter, 0, LIST_PARAMETERS << LIST_SHIFT | 0)
    check(source([SubgraphNode(sub, {"rate": "t"})], parameters=ps), R.Parameter, 0,
          LIST_PARAMETERS << LIST_SHIFT | 0)
    for not_a_mapping in (["rate", "t"], [("rate", "t")], "rate"):
        check(source([SubgraphNode(sub, not_a_mapping)], parameters=ps), R.Parameter, 0,
              LIST_PARAMETERS << LIST_SHIFT | 0xFFFFFF)


def test_clips():
    F = 0x80000000
    check(source([ClipNode(0)], clips=[ClipSlotSource("a", None)]), R.Clip, 0, F | 1)
    other = make_clip(humanoid(40), 9, 0.5)
    check(source([ClipNode(0)], clips=[ClipSlotSource("a", other)]), R.Clip, 0, F | 2)
    check(source([ClipNode(0)], clips=["a"]), R.Clip, 0, F | 0)
    check(source([ClipNode(7)]), R.Clip, 0, 7)
    sub = GraphSource(humanoid(), [ClipNode(0)], 0, clips=[ClipSlotSource("a", standard_clips()["b"])])
    check(source([SubgraphNode(sub)]), R.Clip, 0, LIST_CLIPS << LIST_SHIFT | 0)


def test_nodes():
    check(source(["not a node"]), R.Node, 0, GRAPH_NONE)
    check(source([ClipNode(0)], output=3), R.Node, 3, GRAPH_NONE)
    check(source([ClipNode(0, leader=True)]), R.Node, 0, GRAPH_NONE)
    check(source([ClipNode(0, loop=7)]), R.Node, 0, GRAPH_NONE)
    check(source([ClipNode(0, sync_group=0)]), R.Node, 0, GRAPH_NONE)
    ps = params(("x", T.float_), ("y", T.float_))
    check(source([ClipNode(0), ClipNode(1), Blend1DNode(0, [SpacePoint(0, 1.0), SpacePoint(1, 0.5)])],
                 parameters=ps), R.Node, 2, 1)
    check(source([ClipNode(0), Blend1DNode(0, [SpacePoint(0, 7.0)], period=6.0)], parameters=ps),
          R.Node, 1, 0)
    check(source([ClipNode(0), ClipNode(1), Blend2DBandedNode(0, 1, [SpacePoint(0, 0, 1), SpacePoint(1, 0, 0)])],
                 parameters=ps), R.Node, 2, 1)
    line = [SpacePoint(k % 2, float(k), float(k)) for k in range(3)]
    check(source([ClipNode(0), ClipNode(1), Blend2DTriangulatedNode(0, 1, line)], parameters=ps),
          R.Node, 2, GRAPH_NONE)
    check(source([ClipNode(0), ClipNode(1), MaskNode(0, 1, [MaskChain(999, 1.0)])]), R.Node, 2, 0)
    check(source([ClipNode(0), StateMachineNode([0], entry=2)]), R.Node, 1, GRAPH_NONE)
    check(source([ClipNode(0), StateMachineNode([0], finals=[0, 0])]), R.Node, 1, 1)
    many = [ClipNode(0)] + [BlendNode([BlendInput(0)] * (MAX_GRAPH_INPUTS + 1))]
    check(source(many), R.Node, 1, MAX_GRAPH_INPUTS + 1, error=rt.LimitError)
    check(source([ClipNode(0), SubgraphNode("graph")]), R.Node, 1, GRAPH_NONE)


def test_inputs_cycles_unreachable():
    check(source([ClipNode(0), BlendNode([BlendInput(0), BlendInput(5)])]), R.Input, 1, 1)
    check(source([ClipNode(0), BlendNode([])]), R.Input, 1, INPUT_COUNT | 0)
    check(source([ClipNode(0), TimeScaleNode(2), TimeScaleNode(1)]), R.Cycle, 1, 2)
    check(source([ClipNode(0), TimeScaleNode(1)]), R.Cycle, 1, 1)
    check(source([ClipNode(0), ClipNode(1), TimeScaleNode(0)]), R.Unreachable, 1)


def test_scalars_and_weights():
    check(source([ClipNode(0, speed=math.nan)]), R.Scalar, 0, 0)
    check(source([ClipNode(0, speed=100.0)]), R.Scalar, 0, 0, error=rt.LimitError)
    check(source([ClipNode(0), TimeScaleNode(0, -65.0)]), R.Scalar, 1, 0, error=rt.LimitError)
    ps = params(("t", T.trigger))
    check(source([ClipNode(0), ClipNode(1), OneShotNode(0, 1, 0, fade_in=-1.0)], parameters=ps), R.Scalar, 2, 0)
    check(source([ClipNode(0), InertializeNode(0, half_life_min=2.0, half_life_max=1.0)]), R.Scalar, 1, 2)
    check(source([ClipNode(0), SeekNode(0, 0, time=2e6)], parameters=ps), R.Scalar, 1, 0, error=rt.LimitError)
    check(source([ClipNode(0), BlendNode([BlendInput(0, 1.5)])]), R.Weight, 1, 0)
    check(source([ClipNode(0), ClipNode(1), MaskNode(0, 1, [MaskChain(0, -0.1)])]), R.Weight, 2, 0)
    check(source([ClipNode(0), ClipNode(1), MaskNode(0, 1, [], 2.0)]), R.Weight, 2, GRAPH_NONE)
    check(source([ClipNode(0), ClipNode(4), AdditiveNode(0, 1, math.inf)]), R.Weight, 2, 0)


def test_differences():
    check(source([ClipNode(0), ClipNode(1), AdditiveNode(0, 1)]), R.Difference, 2, 1)
    check(source([ClipNode(4), ClipNode(4), AdditiveNode(0, 1)]), R.Difference, 2, 0)
    check(source([ClipNode(0), ClipNode(4), BlendNode([BlendInput(0), BlendInput(1)])]), R.Difference, 2, 1)
    check(source([ClipNode(4)]), R.Difference, 0, GRAPH_NONE)
    check(source([ClipNode(4), InertializeNode(0)]), R.Difference, 1, 0)


def test_transitions():
    ps = params(("t", T.trigger), ("f", T.float_), ("v", T.vector2))
    machine = lambda *ts: source([ClipNode(0), ClipNode(1), StateMachineNode([0, 1], list(ts))],  # noqa: E731
                                 parameters=ps)
    check(machine(Transition(0, 5)), R.Transition, 2, 0)
    check(machine(Transition(0, 1), Transition(0, 1, cooldown=-1.0)), R.Transition, 2, 1)
    check(machine(Transition(0, 1, interruption=9)), R.Transition, 2, 0)
    check(machine(Transition(0, 1, conditions=[Condition(ConditionKind.parameter, 2)])), R.Transition, 2, 0)
    check(machine(Transition(0, 1, conditions=[Condition(ConditionKind.trigger, 1)])), R.Transition, 2, 0)
    conditions = [Condition(ConditionKind.trigger, 0)] * (MAX_GRAPH_CONDITIONS + 1)
    check(machine(Transition(0, 1, conditions=conditions)), R.Transition, 2, 0, error=rt.LimitError)
    long = [Condition(ConditionKind.event, event="e" * 300)]
    check(machine(Transition(0, 1), Transition(1, 0, conditions=long)), R.Name, 2, 1, error=rt.LimitError)


class _Asset:
    def __init__(self, identity, skeleton_identity):
        self.identity = identity
        self.skeleton_identity = skeleton_identity


def test_later_kinds_slots():
    sk = humanoid()
    F = 0x80000000
    check(source([ClipNode(0)], databases=[AssetSlotSource("db", _Asset(1, 5))]), R.Database, 0, F | 2)
    check(source([ClipNode(0)], models=[AssetSlotSource("m", object())]), R.Model, 0, F | 1)
    check(source([ClipNode(0)], spring_sets=[AssetSlotSource("s", _Asset(1, 5))]), R.SpringSetSlot, 0, F | 2)
    check(source([ClipNode(0)], databases=[AssetSlotSource("db", _Asset(1, sk.identity), [9])]),
          R.Database, 0, F | 3)
    check(source([ClipNode(0)], mirror_map=_Asset(3, 5)), R.MirrorGraph, 0)
    g = Graph(build(source([ClipNode(0)], databases=[AssetSlotSource("db", _Asset(11, sk.identity), [0, 1])],
                           models=[AssetSlotSource("m", _Asset(12, sk.identity))],
                           spring_sets=[AssetSlotSource("s", _Asset(13, sk.identity))],
                           mirror_map=_Asset(14, sk.identity))))
    assert capi.maniGraph_GetDatabaseCount(g) == 1 and capi.maniGraph_GetDatabaseIdentity(g, 0) == 11
    assert capi.maniGraph_GetDatabaseName(g, 0) == "db" and g.database_clips == [[0, 1]]
    assert capi.maniGraph_GetModelIdentity(g, 0) == 12 and capi.maniGraph_GetModelName(g, 0) == "m"
    assert capi.maniGraph_GetSpringSetIdentity(g, 0) == 13 and capi.maniGraph_GetSpringSetName(g, 0) == "s"
    assert capi.maniGraph_GetMirrorMapIdentity(g) == 14


def _chain(count: int) -> list:
    """A clip node and time scales on it: `count` nodes, each read by the next."""
    return [ClipNode(0)] + [TimeScaleNode(i, 1.0) for i in range(count - 1)]


def test_the_build_refuses_every_node_count_the_open_refuses():
    """4,097 nodes built (the limit was checked only while inlining subgraphs) and the open
    then refused the file at its node count."""
    sk = humanoid()
    graph = Graph(build(GraphSource(sk, _chain(4096), 4095, clips=slots("a"))))
    assert graph.node_count == 4096
    with pytest.raises(rt.LimitError) as info:
        capi.maniBuildGraph(builder(), GraphSource(sk, _chain(4097), 4096, clips=slots("a")))
    assert (info.value.reason, info.value.item, info.value.other) == (R.Count, 4097, LIST_NODES)
    # a subgraph node is replaced by its nodes: 4,000 + 97 places, 4,096 nodes in the file
    inner = GraphSource(sk, _chain(96), 95, clips=slots("a"))
    outer = _chain(3999) + [SubgraphNode(inner, {})]
    outer.append(BlendNode([BlendInput(3998), BlendInput(3999)]))
    assert Graph(build(GraphSource(sk, outer, 4000, clips=slots("a")))).node_count == 4096
    inner = GraphSource(sk, _chain(97), 96, clips=slots("a"))
    with pytest.raises(rt.LimitError) as info:
        build(GraphSource(sk, outer[:3999] + [SubgraphNode(inner, {}), outer[-1]], 4000, clips=slots("a")))
    assert (info.value.reason, info.value.item) == (R.Count, 4097)


def test_the_build_refuses_more_event_names_than_the_open_takes():
    from runtime.graph.limits import MAX_GRAPH_EVENTS, MAX_GRAPH_TRANSITIONS
    sk = humanoid()
    names_needed = MAX_GRAPH_EVENTS + 1
    per_machine = MAX_GRAPH_TRANSITIONS * 8
    nodes, machines, event = [ClipNode(0), ClipNode(0)], [], 0
    while event < names_needed:
        transitions = []
        for _ in range(MAX_GRAPH_TRANSITIONS):
            transitions.append(Transition(0, 1, conditions=[
                Condition(ConditionKind.event, event=f"e{event + j}") for j in range(8)]))
            event += 8
        machines.append(len(nodes))
        nodes.append(StateMachineNode([0, 1], transitions))
    nodes.append(BlendNode([BlendInput(m) for m in machines]))
    with pytest.raises(rt.LimitError) as info:
        build(GraphSource(sk, nodes, len(nodes) - 1, clips=slots("a")))
    assert (info.value.reason, info.value.item) == (R.Count, MAX_GRAPH_EVENTS + 1)
    assert per_machine * len(machines) >= names_needed


@pytest.mark.parametrize("value", [1e39, -1e39, 3.5e38, 10 ** 39, 10 ** 400])
def test_values_finite_in_binary64_but_not_in_binary32_are_refused(value):
    """Each stored binary32 value past its range is refused with the reason the spec names
    for the item (maniBuildGraph lists no NotFinite), with no numpy warning or OverflowError."""
    import warnings
    sk = humanoid()
    cases = [
        (GraphSource(sk, [ClipNode(0)], 0, params(("s", T.float_, value)), slots("a")), R.Parameter, 0),
        (GraphSource(sk, [ClipNode(0)], 0, params(("s", T.float_, 0.0, -1.0, value)), slots("a")), R.Parameter, 0),
        (GraphSource(sk, [ClipNode(0)], 0, params(("v", T.vector3, (0, value, 0))), slots("a")), R.Parameter, 0),
        (GraphSource(sk, [ClipNode(0), BlendNode([BlendInput(0, value)])], 1, clips=slots("a")), R.Weight, 1),
        (GraphSource(sk, [ClipNode(0), SeekNode(0, 0, value)], 1, params(("go", T.trigger)), slots("a")),
         R.Scalar, 1),
        (GraphSource(sk, [ClipNode(0), ClipNode(0), Blend1DNode(0, [SpacePoint(0, 0.0), SpacePoint(1, value)])],
                     2, params(("x", T.float_)), slots("a")), R.Node, 2),
    ]
    for source, reason, item in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(rt.ManiError) as info:
                capi.maniBuildGraph(builder(), source)
        assert (info.value.reason, info.value.item) == (reason, item), source
