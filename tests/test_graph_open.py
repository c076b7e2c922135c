"""maniOpenGraph and the graph queries: every check names the byte it found wrong."""
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core import container
from runtime.core.base import hash64
from runtime.graph.file import Graph
from runtime.graph.build.build import build
from runtime.graph.format import FORMAT_VERSION, NODE
from runtime.graph.limits import GRAPH_NONE, NO_PARAMETER
from runtime.graph.source import *  # noqa: F403
from runtime.graph.source import ParameterType as T

from test_graph_fixtures import humanoid, params, slots, standard_clips


@pytest.fixture(scope="module")
def data():
    ps = params(("speed", T.float_, 0.5, 0.0, 2.0), ("go", T.trigger), ("n", T.int_, 3, -5, 5),
                ("q", T.quaternion, (0, 0, 1, 1)), ("pose", T.pose))
    sk = humanoid()
    nodes = [ClipNode(0), ClipNode(1, speed=2.0), Blend1DNode(0, [SpacePoint(0, 0.0), SpacePoint(1, 1.0)]),
             ClipNode(2), MaskNode(2, 3, [MaskChain(sk.find_bone("spine0"), 1.0, True)]),
             StateMachineNode([4, 0], [Transition(0, 1, conditions=[Condition(ConditionKind.trigger, 1),
                                                                   Condition(ConditionKind.event, event="stepA")])]),
             PoseParameterNode(4), BlendNode([BlendInput(5), BlendInput(6, 0.5)])]
    return build(GraphSource(sk, nodes, 7, ps, slots("a", "b", "c"), [SyncGroupSource("feet")]))


def sections(data):
    count = struct.unpack_from("<H", data, 10)[0]
    out = {}
    for i in range(count):
        tag, _, _, off, size = container.ENTRY.unpack_from(data, 32 + 24 * i)
        out[tag] = (off, size, 32 + 24 * i)
    return out


def restamp(data: bytearray) -> bytes:
    """The identity made right again, so the open reaches the field a test changed."""
    kind, version, minor = struct.unpack_from("<HHH", data, 4)
    seed = kind | version << 16 | minor << 32
    struct.pack_into("<Q", data, 16, hash64(seed, bytes(data[32:])))
    return bytes(data)


def corrupt(data, tag, at, fmt, value):
    d = bytearray(data)
    off = sections(data)[tag][0] + at
    struct.pack_into(fmt, d, off, value)
    return restamp(d), off


def test_queries(data):
    g = capi.maniOpenGraph(data)
    sk = humanoid()
    assert capi.maniGraph_GetIdentity(g) == struct.unpack_from("<Q", data, 16)[0] != 0
    assert capi.maniGraph_GetSkeletonIdentity(g) == sk.identity
    assert capi.maniGraph_GetNodeCount(g) == 8
    assert capi.maniGraph_GetParameterCount(g) == 5
    assert capi.maniGraph_FindParameter(g, "go") == 1
    assert capi.maniGraph_FindParameter(g, b"speed") == 0
    assert capi.maniGraph_FindParameter(g, "nope") == NO_PARAMETER
    assert capi.maniGraph_GetParameterType(g, 3) == T.quaternion
    with pytest.raises(rt.InvalidError):
        capi.maniGraph_GetParameterType(g, 5)
    with pytest.raises(rt.InvalidError):
        capi.maniGraph_GetParameterType(None, 0)
    assert capi.maniGraph_GetParameterName(g, 2) == "n"
    assert capi.maniGraph_GetParameterName(g, 9) is None
    clips = standard_clips()
    assert capi.maniGraph_GetClipCount(g) == 3
    assert [capi.maniGraph_GetClipIdentity(g, k) for k in range(4)] == [clips["a"].identity,
                                                                        clips["b"].identity,
                                                                        clips["c"].identity, 0]
    assert capi.maniGraph_GetClipName(g, 1) == "b" and capi.maniGraph_GetClipName(g, 3) is None
    assert capi.maniGraph_GetClipRetargetMap(g, 0) == rt.NO_TRACK
    assert capi.maniGraph_GetClipRetargetMap(g, 9) == rt.NO_TRACK
    for fn in (capi.maniGraph_GetDatabaseCount, capi.maniGraph_GetModelCount,
               capi.maniGraph_GetSpringSetCount, capi.maniGraph_GetRetargetMapCount,
               capi.maniGraph_GetMirrorMapIdentity):
        assert fn(g) == 0
    for fn in (capi.maniGraph_GetDatabaseIdentity, capi.maniGraph_GetModelIdentity,
               capi.maniGraph_GetSpringSetIdentity, capi.maniGraph_GetRetargetMapIdentity,
               capi.maniGraph_GetRetargetMapSourceIdentity):
        assert fn(g, 0) == 0
    for fn in (capi.maniGraph_GetDatabaseName, capi.maniGraph_GetModelName, capi.maniGraph_GetSpringSetName):
        assert fn(g, 0) is None
    kinds = [capi.maniGraph_GetNodeKind(g, k) for k in range(8)]
    assert kinds[-1] == NodeKind.blend and kinds.count(NodeKind.clip) == 3
    assert capi.maniGraph_GetNodeKind(g, 8) == 0
    assert capi.maniGraph_GetOutputNode(g) == 7
    assert capi.maniGraph_GetNodeInputCount(g, 7) == 2
    machine = kinds.index(NodeKind.state_machine)
    assert capi.maniGraph_GetNodeInputCount(g, machine) == 2
    assert capi.maniGraph_GetNodeInput(g, 7, 2) == GRAPH_NONE
    assert capi.maniGraph_GetNodeInput(g, 9, 0) == GRAPH_NONE
    assert capi.maniGraph_GetNodeSourcePlace(g, 8) == GRAPH_NONE
    assert capi.maniGraph_GetBindingSize(g) > 0


def test_queries_on_no_graph():
    for fn in (capi.maniGraph_GetIdentity, capi.maniGraph_GetSkeletonIdentity, capi.maniGraph_GetNodeCount,
               capi.maniGraph_GetParameterCount, capi.maniGraph_GetClipCount,
               capi.maniGraph_GetDatabaseCount, capi.maniGraph_GetModelCount,
               capi.maniGraph_GetSpringSetCount, capi.maniGraph_GetRetargetMapCount,
               capi.maniGraph_GetMirrorMapIdentity, capi.maniGraph_GetBindingSize):
        assert fn(None) == 0
    assert capi.maniGraph_GetOutputNode(None) == GRAPH_NONE
    assert capi.maniGraph_FindParameter(None, "x") == NO_PARAMETER
    assert capi.maniGraph_GetNodeKind(None, 0) == 0
    assert capi.maniGraph_GetNodeInputCount(None, 0) == 0
    assert capi.maniGraph_GetNodeInput(None, 0, 0) == GRAPH_NONE
    assert capi.maniGraph_GetNodeSourcePlace(None, 0) == GRAPH_NONE
    assert capi.maniGraph_GetClipName(None, 0) is None
    assert capi.maniGraph_GetParameterName(None, 0) is None
    assert capi.maniGraph_GetClipRetargetMap(None, 0) == rt.NO_TRACK


def test_open_refuses_null_misaligned_and_other_versions(data):
    with pytest.raises(rt.InvalidError):
        capi.maniOpenGraph(None)
    raw = np.zeros(len(data) + 1, dtype=np.uint8)
    raw[1:] = np.frombuffer(data, dtype=np.uint8)
    with pytest.raises(rt.InvalidError):
        capi.maniOpenGraph(raw[1:])
    d = bytearray(data)
    struct.pack_into("<H", d, 6, FORMAT_VERSION + 1)
    with pytest.raises(rt.VersionError):
        capi.maniOpenGraph(restamp(d))
    d = bytearray(data)
    struct.pack_into("<HH", d, 32 + 4, 1, 0)             # the first section from a later minor
    with pytest.raises(rt.VersionError):
        capi.maniOpenGraph(restamp(d))


@pytest.mark.parametrize("tag,at,fmt,value", [
    (b"GRPH", 20, "<I", 0),                     # no nodes
    (b"GRPH", 52, "<I", 99),                    # slots past the nodes
    (b"PARM", 0, "<I", 77),                     # a parameter type
    (b"PARM", 4, "<I", 3),                      # parameter flags
    (b"PARM", 8, "<f", 9.0),                    # a default outside its bounds
    (b"CLPS", 12, "<I", 8),                     # clip slot flags
    (b"NODE", 0, "<I", 99),                     # a node kind
    (b"NODE", 4, "<I", 4),                      # node flags
    (b"NODE", NODE.size + 8, "<I", 0),          # a place twice
    (b"NODE", 28, "<I", 77),                    # a slot past the slots
    (b"MASK", 8, "<f", 1.5),                    # a mask weight
])
def test_corruption_is_found_at_its_byte(data, tag, at, fmt, value):
    bad, off = corrupt(data, tag, at, fmt, value)
    with pytest.raises(rt.FormatError) as info:
        Graph(bad)
    if tag == b"GRPH" and at == 20:
        assert info.value.offset in (off, sections(data)[b"NODE"][2] + 16)
    else:
        assert info.value.offset == off


def test_node_data_and_structure_checks(data):
    g = Graph(data)
    s = sections(data)
    ndat = s[b"NDAT"][0]
    # the first node is a clip: slot, sync, leader, loop, speed
    for word, value, fmt in ((0, 9, "<I"), (2, 1, "<I"), (3, 9, "<I"), (4, float("nan"), "<f"), (4, 100.0, "<f")):
        bad, off = corrupt(data, b"NDAT", 4 * word, fmt, value)
        with pytest.raises(rt.FormatError) as info:
            Graph(bad)
        assert info.value.offset == off, word
    # an input at or after its reader
    inputs = s[b"INPT"][0]
    bad, off = corrupt(data, b"INPT", 0, "<I", 7)
    with pytest.raises(rt.FormatError) as info:
        Graph(bad)
    assert info.value.offset == off
    # a difference flag where the kinds give a pose
    bad, off = corrupt(data, b"NODE", NODE.size * 7 + 4, "<I", 1)
    with pytest.raises(rt.FormatError) as info:
        Graph(bad)
    assert info.value.offset == off
    # a reader writing the slot of the input it reads
    reader = max(k for k, n in enumerate(g.nodes) if 0 in n.inputs)
    bad, off = corrupt(data, b"NODE", NODE.size * reader + 28, "<I", g.nodes[0].slot)
    with pytest.raises(rt.FormatError) as info:
        Graph(bad)
    assert info.value.offset == off
    assert ndat and inputs


def test_any_other_change_is_caught_by_the_identity(data):
    d = bytearray(data)
    d[sections(data)[b"PNAM"][0]] ^= 0x01           # a name's byte, hashes left as they were
    with pytest.raises(rt.FormatError):
        Graph(bytes(d))
    d = bytearray(data)
    d[-1] ^= 0x10
    with pytest.raises(rt.FormatError) as info:
        Graph(bytes(d))
    assert info.value.offset in (16, len(data) - 1) or info.value.offset > 0
