"""The graph's public entries take their arguments through runtime.core.args: an integral
numpy scalar is an integer everywhere, a float however whole is not an index, and every
other wrong value is refused with InvalidError naming the argument."""
import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.graph.source import NodeKind, ParameterType

from hostile_world import World

W = World()


@pytest.mark.parametrize("k", [1, np.int64(1), np.uint8(1), np.int32(1)])
def test_an_integral_numpy_scalar_is_an_integer_in_the_getters(k):
    g = W.graph
    assert capi.maniGraph_GetParameterType(g, k) == ParameterType.pose
    assert capi.maniGraph_GetParameterName(g, k) == "look"
    assert capi.maniGraph_GetNodeKind(g, k - 1) == NodeKind.clip
    assert capi.maniGraph_GetNodeSourcePlace(g, k - 1) == 0
    assert capi.maniGraph_GetClipIdentity(g, k - 1) == W.clip.identity
    assert capi.maniGraph_GetClipName(g, k - 1) == "walk"


@pytest.mark.parametrize("call, what", [
    (lambda g, v: capi.maniGraph_GetParameterType(g, v), "parameter"),
    (lambda g, v: capi.maniGraph_GetParameterName(g, v), "parameter"),
    (lambda g, v: capi.maniGraph_GetNodeKind(g, v), "node"),
    (lambda g, v: capi.maniGraph_GetNodeInputCount(g, v), "node"),
    (lambda g, v: capi.maniGraph_GetNodeInput(g, 0, v), "input"),
    (lambda g, v: capi.maniGraph_GetNodeSourcePlace(g, v), "node"),
    (lambda g, v: capi.maniGraph_GetClipIdentity(g, v), "clip"),
    (lambda g, v: capi.maniGraph_GetClipName(g, v), "clip"),
    (lambda g, v: capi.maniGraph_GetClipRetargetMap(g, v), "clip"),
    (lambda g, v: capi.maniGraph_GetDatabaseName(g, v), "database"),
    (lambda g, v: capi.maniGraph_GetModelIdentity(g, v), "model"),
    (lambda g, v: capi.maniGraph_GetSpringSetName(g, v), "slot"),
])
@pytest.mark.parametrize("value", [0.0, 1.5, "0", None, True])
def test_a_getter_refuses_what_is_not_an_index(call, what, value):
    with pytest.raises(rt.InvalidError, match=f"^{what} must be an integer"):
        call(W.graph, value)


@pytest.mark.parametrize("call, what", [
    (lambda i, v: capi.maniGraphInstance_GetParameter(i, v), "parameter"),
    (lambda i, v: capi.maniGraphInstance_SetParameter(i, v, ParameterType.float_, 1.0), "parameter"),
    (lambda i, v: capi.maniGraphInstance_GetPose(i, v, W.pose()), "parameter"),
    (lambda i, v: capi.maniGraphInstance_InspectNode(i, v), "node"),
    (lambda i, v: i.playhead(v), "node"),
])
@pytest.mark.parametrize("value", [0.0, 0.5, float("inf"), "0", True])
def test_an_instance_call_refuses_what_is_not_an_index(call, what, value):
    """2.5 was node 2 (int() of it) and inf an OverflowError."""
    inst = W.instance()
    before = bytes(inst.buffer)
    with pytest.raises(rt.InvalidError, match=f"^{what} must be an integer"):
        call(inst, value)
    assert bytes(inst.buffer) == before


def test_numbers_the_instance_takes():
    inst = W.instance()
    capi.maniGraphInstance_SetParameter(inst, np.int64(0), np.int64(ParameterType.float_), np.float32(0.5))
    assert capi.maniGraphInstance_GetParameter(inst, np.int16(0)).f[0] == 0.5
    before = bytes(inst.buffer)
    for value, says in ((10 ** 400, "value is past the float range"), ("2", "value must be a number"),
                        (float("nan"), "value must be finite")):
        with pytest.raises(rt.InvalidError, match=says):
            capi.maniGraphInstance_SetParameter(inst, 0, ParameterType.float_, value)
    with pytest.raises(rt.InvalidError, match="type must be an integer"):
        capi.maniGraphInstance_SetParameter(inst, 0, 3.0, 1.0)
    for delta, says in ((10 ** 400, "delta is past the float range"), ("0.1", "delta must be a number"),
                        (float("inf"), "delta must be finite")):
        with pytest.raises(rt.InvalidError, match=says):
            capi.maniGraphInstance_Update(inst, delta)
    for capacity in (1.5, -1, "2"):
        with pytest.raises(rt.InvalidError, match="capacity"):
            capi.maniGraphInstance_Update(inst, 0.1, [], capacity)
    for events in ((), "x", np.zeros(4)):
        with pytest.raises(rt.InvalidError, match="eventsOut must be a list"):
            capi.maniGraphInstance_Update(inst, 0.1, events)
    assert bytes(inst.buffer) == before
    assert capi.maniGraphInstance_Update(inst, np.float32(0.25), [], np.int64(4))[1] >= 0


def test_subset_bones():
    b = W.binding
    same = capi.maniPlanGraphSubset(b, [np.int64(0), np.uint16(1)]).get_bones()
    assert same.tolist() == capi.maniPlanGraphSubset(b, np.array([0, 1], np.uint8)).get_bones().tolist()
    for bones, says in (([0, 1.0], r"bones\[1\] must be an integer"), ([0, 2 ** 64], "out of range"),
                        (np.zeros((1, 2), int), "flat"), ("01", "bones must be a list"),
                        ({0, 1}, "bones must be a list"), (None, "bones must be a list")):
        with pytest.raises(rt.InvalidError, match=says):
            capi.maniPlanGraphSubset(b, bones)


def test_sizes_and_asset_lists():
    memory = np.zeros(1 << 16, np.uint8)
    for size in (1.5, "64", -1):
        with pytest.raises(rt.InvalidError, match="size"):
            capi.maniInitGraphInstance(W.binding, memory, size)
        with pytest.raises(rt.InvalidError, match="size"):
            capi.maniBindGraph(W.graph, W.assets, memory, size)
        with pytest.raises(rt.InvalidError, match="size"):
            capi.maniPlanGraphSubset(W.binding, [0], memory, size)
    from runtime.graph.binding import GraphAssets
    with pytest.raises(rt.InvalidError, match="asset list"):
        capi.maniBindGraph(W.graph, GraphAssets(W.skeleton, 5))
    assert capi.maniBindGraph(W.graph, GraphAssets(W.skeleton, (W.clip,)))[1] == capi.MANI_GRAPH_NONE


def test_json_text_with_a_lone_surrogate_is_refused_as_not_utf8():
    text = W.graph_text.decode().replace('"speed"', '"sp\ud800"')
    with pytest.raises(rt.InvalidError) as info:
        capi.maniBuildGraphJson(rt.Builder(), text, W.named_assets)
    assert info.value.item == W.graph_text.index(b'"speed"') + 3
    with pytest.raises(rt.InvalidError, match="text must be bytes-like"):
        capi.maniBuildGraphJson(rt.Builder(), 12, W.named_assets)
