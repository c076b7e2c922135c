"""The learned motion matching node's build refusals (each field, named in `other`), the
open's checks of its data (each word found wrong at its byte), the binding's (a model binds
its slot by identity and skeleton, having the node's Projector and query channels), and the
update and evaluation refusing the node while they are PENDING (nothing changed)."""
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core.errors import BuildReason as R
from runtime.graph.binding import GraphBinding
from runtime.graph.build.build import build
from runtime.graph.file import Graph
from runtime.graph.source import AssetSlotSource, LearnedMotionMatchingNode, MatchQueryInput, NodeKind

import graph_learned_fixtures as F
from test_graph_fixtures import humanoid
from test_graph_open import corrupt, sections

Q = 1 << 16


def _refusal(error=rt.InvalidError, **node):
    with pytest.raises(error) as info:
        build(F.source(**node))
    return info.value


@pytest.mark.parametrize("node, error, reason, other", [
    (dict(projector=16), rt.InvalidError, R.Node, 1),
    (dict(projector=-1), rt.InvalidError, R.Node, 1),
    (dict(projector=0.5), rt.InvalidError, R.Node, 1),
    (dict(query=[MatchQueryInput(2, 3)]), rt.InvalidError, R.Parameter, Q | 0),
    (dict(query=[MatchQueryInput(2, 0), MatchQueryInput(64, 0)]), rt.InvalidError, R.Node, Q | 1),
    (dict(query=[MatchQueryInput(2, 0, 16)]), rt.InvalidError, R.Node, Q | 0),
    (dict(query=[MatchQueryInput(2, 0), MatchQueryInput(2, 1)]), rt.InvalidError, R.Node, Q | 1),
    (dict(query=[(2, 0)]), rt.InvalidError, R.Node, Q | 0),
    (dict(query=[MatchQueryInput(2, 0, t % 16) for t in range(65)]), rt.LimitError, R.Node, 2),
    (dict(query=None), rt.InvalidError, R.Count, 0),
    (dict(trigger=4), rt.InvalidError, R.Parameter, 3),
    (dict(trigger=99), rt.InvalidError, R.Parameter, 3),
    (dict(period=-0.5), rt.InvalidError, R.Scalar, 4),
    (dict(period=float("nan")), rt.InvalidError, R.Scalar, 4),
    (dict(period=2e6), rt.LimitError, R.Scalar, 4),
    (dict(duration=-0.1), rt.InvalidError, R.Scalar, 5),
    (dict(duration=float("inf")), rt.InvalidError, R.Scalar, 5),
])
def test_each_field_is_refused_by_its_place(node, error, reason, other):
    exc = _refusal(error, **node)
    assert (exc.reason, exc.item, exc.other) == (reason, 0, other)


@pytest.mark.parametrize("slot", [1, 3, -1, "m", None])
def test_a_model_slot_past_the_list(slot):
    src = F.source()
    src.nodes[0] = LearnedMotionMatchingNode(slot)
    with pytest.raises(rt.InvalidError) as info:
        build(src)
    assert (info.value.reason, info.value.item) == (R.Model, 0)
    if isinstance(slot, int):
        assert info.value.other == slot & 0xFFFFFFFF


def test_the_file_holds_the_node():
    g = F.graph(F.source(projector=1, period=0.25, duration=0.125))
    assert capi.maniGraph_GetNodeKind(g, 0) == NodeKind.learned_motion_matching == 23
    assert capi.maniGraph_GetNodeInputCount(g, 0) == 0
    assert capi.maniGraph_GetModelCount(g) == 1
    assert capi.maniGraph_GetModelIdentity(g, 0) == F.model().identity
    assert capi.maniGraph_GetModelName(g, 0) == "brain"
    d = g.nodes[0].data
    assert (d.model, d.projector, d.trigger, d.period, d.duration, d.query) == \
        (0, 1, 3, 0.25, 0.125, [(2, 0, 0), (2, 1, 1), (3, 0, 2)])
    assert not g.nodes[0].difference
    bare = F.graph(F.source(False, query=[], trigger=None)).nodes[0].data
    assert (bare.trigger, bare.query, bare.period) == (0xFFFFFFFF, [], np.float32(0.1))


def test_a_subgraphs_model_slot_joins_the_hosts_by_name():
    from runtime.graph.source import GraphSource, SubgraphNode
    from test_graph_fixtures import humanoid
    inner = F.source(False)
    host = GraphSource(humanoid(), [SubgraphNode(inner)], 0, F.PARAMETERS,
                       models=[AssetSlotSource("other", F.model(1)), AssetSlotSource("brain", F.model())])
    g = Graph(build(host))
    assert g.model_identities == [F.model(1).identity, F.model().identity]
    kinds = [n.kind for n in g.nodes]
    assert g.nodes[kinds.index(NodeKind.learned_motion_matching)].data.model == 1


def _words(data):
    """The learned node's data: (its offset in the file, its word count)."""
    off, _, _ = sections(data)[b"NDAT"]
    first, count = struct.unpack_from("<II", data, sections(data)[b"NODE"][0] + 20)
    return off + 4 * first, count


@pytest.mark.parametrize("word, value, found", [
    (0, 1, 0),                    # model slot past the slots
    (1, 16, 1),                   # projector past MAX_LEARNED_PROJECTORS
    (2, 0, 2),                    # a trigger that is a vector2
    (2, 4, 2),                    # a trigger that is an int
    (3, 0xBF800000, 3),           # period -1
    (3, 0x7FC00000, 3),           # period NaN
    (4, 0x4B189680, 4),           # duration 1e7, past MAX_GRAPH_SECONDS
    (5, 65, 5),                   # too many queries
    (6, 64, 6),                   # a channel past MAX_MATCH_CHANNELS
    (7, 16, 7),                   # a channel time past MAX_MATCH_TIMES
    (8, 3, 8),                    # a query parameter that is a trigger
    (10, 0, 9),                   # the second query's channel time the first's: at its channel
])
def test_the_open_finds_each_wrong_word(word, value, found):
    data = build(F.source())
    at, count = _words(data)
    assert count == 6 + 3 * 3
    bad, _ = corrupt(data, b"NDAT", at - sections(data)[b"NDAT"][0] + 4 * word, "<I", value)
    with pytest.raises(rt.FormatError) as info:
        Graph(bad)
    assert info.value.offset == at + 4 * found, info.value


def test_the_open_refuses_short_data_and_inputs_on_the_node():
    data = build(F.source())
    bad, off = corrupt(data, b"NODE", 16, "<I", 1)
    with pytest.raises(rt.FormatError) as info:
        Graph(bad)
    assert info.value.offset == off
    at, count = _words(data)
    bad, off = corrupt(data, b"NODE", 24, "<I", count - 1)       # its data a word short
    with pytest.raises(rt.FormatError):
        Graph(bad)


# ---- the binding ---------------------------------------------------------------------------------
def _unbound(src, assets):
    g = Graph(build(src))
    with pytest.raises(rt.InvalidError) as info:
        GraphBinding(g, assets)
    return info.value


def test_the_model_of_the_slots_identity_binds():
    b = GraphBinding(F.graph(), F.assets(None, 7, F.model(1), F.model()))   # the others passed over
    assert b.graph.model_identities == [F.model().identity]
    assert _unbound(F.source(), F.assets(F.model(1))).unbound == 0
    assert _unbound(F.source(), F.assets(7)).unbound == 0


def test_a_model_of_another_skeleton_does_not_bind():
    """The build refuses a slot's model of another skeleton; the binding checks the asset it
    is given (here the slot's model opened again, told it is of another skeleton)."""
    import learned_fixtures as LF
    from hostile_world import World
    with pytest.raises(rt.InvalidError) as info:
        build(F.source(False, query=[], models=[AssetSlotSource("brain", LF.model(World()))]))
    assert info.value.reason == R.Model
    from runtime.learned import LearnedModel
    again = LearnedModel(bytes(F.model().data))
    GraphBinding(F.graph(), F.assets(again))
    again.skeleton_identity = again.skeleton_identity ^ 1
    assert _unbound(F.source(), F.assets(again)).unbound == 0


def test_a_model_without_the_nodes_projector_or_channels_does_not_bind():
    GraphBinding(F.graph(F.source(projector=1)), F.assets())
    for node in (dict(projector=2),                   # the model has two Projectors
                 dict(query=[MatchQueryInput(0, 0)]),      # a bone position (vector3) from a vector2
                 dict(query=[MatchQueryInput(3, 2, 1)]),   # a time the facing channel does not sample
                 dict(query=[MatchQueryInput(4, 0)])):     # no such channel
        assert _unbound(F.source(**node), F.assets()).unbound == 0, node


def test_capi_bind_names_the_unbound_model_slot():
    g = capi.maniOpenGraph(build(F.source()))
    with pytest.raises(rt.InvalidError) as info:
        capi.maniBindGraph(g, F.assets(F.model(2)))
    assert info.value.unbound == 0
    binding, _ = capi.maniBindGraph(g, F.assets())
    assert capi.maniGraphBinding_GetInstanceSize(binding) > 0
