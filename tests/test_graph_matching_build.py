"""The motion matching node's build refusals (each field, named in `other`), the open's
checks of its data (each word found wrong at its byte) and the binding's: a database binds
its slot only when its clips are the slots the graph lists and its channels take the
node's query parameters."""
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core.errors import BuildReason as R
from runtime.graph.binding import GraphAssets, GraphBinding
from runtime.graph.build.build import build
from runtime.graph.file import Graph
from runtime.graph.format import NODE
from runtime.graph.limits import GRAPH_NONE
from runtime.graph.source import (AssetSlotSource, MatchQueryInput, MotionMatchingNode, NodeKind,
                                  ParameterRef)

import graph_matching_fixtures as F
from test_graph_fixtures import humanoid, standard_clips
from test_graph_open import corrupt, sections

Q = 1 << 16


def _refusal(error=rt.InvalidError, **node):
    with pytest.raises(error) as info:
        build(F.source(**node))
    return info.value


@pytest.mark.parametrize("node, error, reason, other", [
    (dict(period=-0.5), rt.InvalidError, R.Scalar, 3),
    (dict(period=float("nan")), rt.InvalidError, R.Scalar, 3),
    (dict(period=2e6), rt.LimitError, R.Scalar, 3),
    (dict(jump_threshold=-1.0), rt.InvalidError, R.Scalar, 4),
    (dict(end_exclusion=-1.0), rt.InvalidError, R.Scalar, 5),
    (dict(history_time=float("inf")), rt.InvalidError, R.Scalar, 6),
    (dict(continuing_bias=-2e6), rt.LimitError, R.Scalar, 7),
    (dict(transition_cost=3e6), rt.LimitError, R.Scalar, 8),
    (dict(history_count=-1), rt.InvalidError, R.Node, 9),
    (dict(history_count=2.5), rt.InvalidError, R.Node, 9),
    (dict(history_count=65), rt.LimitError, R.Node, 9),
    (dict(required_tags=1 << 32), rt.InvalidError, R.Node, 10),
    (dict(excluded_tags="x"), rt.InvalidError, R.Node, 11),
    (dict(required_tags=ParameterRef(0)), rt.InvalidError, R.Parameter, 10),
    (dict(excluded_tags=ParameterRef(99)), rt.InvalidError, R.Parameter, 11),
    (dict(trigger=4), rt.InvalidError, R.Parameter, 2),
    (dict(duration=-0.1), rt.InvalidError, R.Scalar, 12),
    (dict(query=[MatchQueryInput(2, 3)]), rt.InvalidError, R.Parameter, Q | 0),
    (dict(query=[MatchQueryInput(2, 0), MatchQueryInput(64, 0)]), rt.InvalidError, R.Node, Q | 1),
    (dict(query=[MatchQueryInput(2, 0, 16)]), rt.InvalidError, R.Node, Q | 0),
    (dict(query=[MatchQueryInput(2, 0), MatchQueryInput(2, 1)]), rt.InvalidError, R.Node, Q | 1),
    (dict(query=[(2, 0)]), rt.InvalidError, R.Node, Q | 0),
    (dict(query=[MatchQueryInput(2, 0, t % 16) for t in range(65)]), rt.LimitError, R.Node, 1),
    (dict(query=None), rt.InvalidError, R.Count, 0),
])
def test_each_field_is_refused_by_its_place(node, error, reason, other):
    exc = _refusal(error, **node)
    assert (exc.reason, exc.item, exc.other) == (reason, 0, other)


def test_a_database_slot_past_the_list():
    src = F.source()
    src.nodes[0] = MotionMatchingNode(3)
    with pytest.raises(rt.InvalidError) as info:
        build(src)
    assert (info.value.reason, info.value.item, info.value.other) == (R.Database, 0, 3)


def test_the_file_holds_the_node():
    g = Graph(build(F.source(history_count=3)))
    assert capi.maniGraph_GetNodeKind(g, 0) == NodeKind.motion_matching == 22
    assert capi.maniGraph_GetNodeInputCount(g, 0) == 0
    assert capi.maniGraph_GetDatabaseCount(g) == 1
    assert capi.maniGraph_GetDatabaseIdentity(g, 0) == F.database().identity
    d = g.nodes[0].data
    assert (d.database, d.trigger, d.history_count, d.query) == (0, 3, 3, [(2, 0, 0), (2, 1, 1), (3, 0, 2)])


def _words(data):
    """The motion matching node's data: (its offset in the file, its words)."""
    off, _, _ = sections(data)[b"NDAT"]
    first, count = struct.unpack_from("<II", data, sections(data)[b"NODE"][0] + 20)
    return off + 4 * first, count


@pytest.mark.parametrize("word, value, found", [
    (0, 1, 0),                    # database slot past the slots
    (1, 0, 1),                    # a trigger that is a vector2
    (2, 0xBF800000, 2),           # period -1
    (3, 0x7FC00000, 3),           # jump threshold NaN
    (6, 0x4B189680, 6),           # continuing bias 1e7
    (8, 65, 8),                   # history count past MAX_MATCH_HISTORY
    (10, 0, 10),                  # a tags parameter that is a vector2
    (12, 3, 12),                  # excluded tags' parameter a trigger
    (13, 0xBF800000, 13),         # duration -1
    (14, 65, 14),                 # too many queries
    (15, 64, 15),                 # a channel past MAX_MATCH_CHANNELS
    (16, 16, 16),                 # a channel time past MAX_MATCH_TIMES
    (17, 3, 17),                  # a query parameter that is a trigger
    (19, 0, 18),                  # the second query's channel time the first's: at its channel
])
def test_the_open_finds_each_wrong_word(word, value, found):
    data = build(F.source(required_tags=ParameterRef(4)))
    at, count = _words(data)
    assert count == 15 + 3 * 3
    bad, _ = corrupt(data, b"NDAT", at - sections(data)[b"NDAT"][0] + 4 * word, "<I", value)
    with pytest.raises(rt.FormatError) as info:
        Graph(bad)
    assert info.value.offset == at + 4 * found, info.value


def test_tags_both_given_and_a_parameters_are_refused():
    data = build(F.source(required_tags=ParameterRef(4)))
    at, _ = _words(data)
    bad, off = corrupt(data, b"NDAT", at - sections(data)[b"NDAT"][0] + 4 * 9, "<I", 5)
    with pytest.raises(rt.FormatError) as info:
        Graph(bad)
    assert info.value.offset == off


def test_the_file_refuses_inputs_on_the_node():
    data = build(F.source())
    bad, off = corrupt(data, b"NODE", 16, "<I", 1)
    with pytest.raises(rt.FormatError) as info:
        Graph(bad)
    assert info.value.offset == off


# ---- the binding ---------------------------------------------------------------------------------
def _unbound(src, assets):
    g = Graph(build(src))
    with pytest.raises(rt.InvalidError) as info:
        GraphBinding(g, assets)
    return info.value


def test_a_database_whose_clips_are_not_the_slots_listed_does_not_bind():
    clips = standard_clips()
    src = F.source()
    src.databases = [AssetSlotSource("db", F.database(), clips=(1, 0, 2, 3))]     # in another order
    assert _unbound(src, F.assets()).unbound == 4
    src.databases = [AssetSlotSource("db", F.database(), clips=(0, 1, 2))]
    assert _unbound(src, F.assets()).unbound == 4


def test_a_database_whose_channels_do_not_take_the_query_does_not_bind():
    for query in ([MatchQueryInput(2, 2)],        # a vector2 channel from... a vector2: binds
                  [MatchQueryInput(0, 0)],        # a bone position (vector3) from a vector2
                  [MatchQueryInput(3, 2, 1)],     # a time the facing channel does not sample
                  [MatchQueryInput(4, 0)]):       # no such channel
        src = F.source(query=query)
        if query[0].channel == 2:
            GraphBinding(Graph(build(src)), F.assets())
            continue
        assert _unbound(src, F.assets()).unbound == 4


def test_a_database_needs_its_mirror_map_and_its_skeleton():
    a = F.assets()
    a.mirror_map = None
    src = F.source()
    src.mirror_map = None
    assert _unbound(src, a).unbound == 4
    a = F.assets()
    a.databases = [None, 7, F.database()]
    GraphBinding(Graph(build(F.source())), a)          # the third binds, the others are passed over
    a.databases = [7]
    assert _unbound(F.source(), a).unbound == 4


def test_capi_bind_names_the_unbound_database_slot():
    g = capi.maniOpenGraph(build(F.source()))
    a = F.assets()
    a.databases = []
    with pytest.raises(rt.InvalidError) as info:
        capi.maniBindGraph(g, a)
    assert info.value.unbound == 4
    binding, _ = capi.maniBindGraph(g, F.assets())
    assert capi.maniGraphBinding_GetInstanceSize(binding) > 0
