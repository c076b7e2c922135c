"""A motion matching node's source checked into its file data (graph/format.py's MatchingData).

Refusals name the node (item) and, in `other`, the field at fault by its place among
MotionMatchingNode's fields (0 database, 1 query, 2 trigger, ... 12 duration), a query input
as 1 << 16 | its place in the list:

    Database   the database slot past the graph's list (other the slot as given)
    Parameter  a trigger that is no trigger, tags' parameter that is no int, a query input's
               parameter that is no float, vector2 or vector3
    Scalar     a period, end exclusion, history time or duration not finite or below 0, a
               threshold, bias or cost not finite (a threshold below 0); LimitError past
               MAX_GRAPH_SECONDS or MAX_GRAPH_MATCH_COST
    Node       a history count or tags not a whole uint32, a query input that is no
               MatchQueryInput, its channel or time past MAX_MATCH_CHANNELS or MAX_MATCH_TIMES,
               a channel time queried twice; LimitError for a history count past
               MAX_MATCH_HISTORY (other 9) or queries past MAX_GRAPH_MATCH_QUERIES (other 1)

Whether the database's channel takes the parameter (its width) is the binding's to check:
the build has the database slot's asset, the binding the database it binds.
"""
from __future__ import annotations

from ...core.errors import BuildReason, LimitError
from ...matching.limits import MAX_MATCH_CHANNELS, MAX_MATCH_HISTORY, MAX_MATCH_TIMES
from ..format import QUERY_TYPES, TAG_TYPES, MatchingData
from ..limits import GRAPH_NONE, MAX_GRAPH_MATCH_COST, MAX_GRAPH_MATCH_QUERIES, MAX_GRAPH_SECONDS
from ..source import MatchQueryInput, ParameterRef
from .check import whole
from .nodes import TRIGGER, _index, _invalid, _items, _parameter, _scalar

QUERY = 1 << 16


def query_data(inputs, place, ctx, field: int) -> list:
    """A (learned) motion matching node's query inputs checked: (channel, time, parameter);
    `field` is the query's place among the node's fields (a LimitError's other)."""
    query = []
    inputs = _items(inputs, place, "query")
    if len(inputs) > MAX_GRAPH_MATCH_QUERIES:
        raise LimitError(f"node {place}: {len(inputs)} query inputs", reason=BuildReason.Node,
                         item=place, other=field)
    for k, q in enumerate(inputs):
        if not isinstance(q, MatchQueryInput):
            raise _invalid(BuildReason.Node, place, QUERY | k, "a query input that is no MatchQueryInput")
        channel, time = _index(q.channel, MAX_MATCH_CHANNELS), _index(q.time, MAX_MATCH_TIMES)
        if channel is None or time is None:
            raise _invalid(BuildReason.Node, place, QUERY | k, "a query channel or time past the limits")
        if any(c == channel and t == time for c, t, _ in query):
            raise _invalid(BuildReason.Node, place, QUERY | k, "a channel time queried twice")
        query.append((channel, time, _parameter(ctx, q.parameter, QUERY_TYPES, place, other=QUERY | k)))
    return query


def matching_data(node, place, ctx) -> MatchingData:
    slot = whole(node.database)
    if slot is None or not 0 <= slot < len(ctx.databases):
        raise _invalid(BuildReason.Database, place, slot & 0xFFFFFFFF if slot is not None
                       else GRAPH_NONE, f"database slot {node.database!r} past the list")
    query = query_data(node.query, place, ctx, 1)
    trigger = _parameter(ctx, node.trigger, TRIGGER, place, optional=True, other=2)
    S, C = MAX_GRAPH_SECONDS, MAX_GRAPH_MATCH_COST
    period, threshold = _scalar(node.period, place, 3, 0.0, S), _scalar(node.jump_threshold, place, 4, 0.0, C)
    exclusion, history = _scalar(node.end_exclusion, place, 5, 0.0, S), _scalar(node.history_time, place, 6, 0.0, S)
    bias, cost = _scalar(node.continuing_bias, place, 7, -C, C), _scalar(node.transition_cost, place, 8, -C, C)
    count = whole(node.history_count)
    if count is None or count < 0:
        raise _invalid(BuildReason.Node, place, 9, f"history count {node.history_count!r} not a count")
    if count > MAX_MATCH_HISTORY:
        raise LimitError(f"node {place}: history count {count} past MAX_MATCH_HISTORY",
                         reason=BuildReason.Node, item=place, other=9)
    tags = []
    for field, value in ((10, node.required_tags), (11, node.excluded_tags)):
        if isinstance(value, ParameterRef):
            tags += [0, _parameter(ctx, value.parameter, TAG_TYPES, place, other=field)]
            continue
        bits = whole(value)
        if bits is None or not 0 <= bits < 1 << 32:
            raise _invalid(BuildReason.Node, place, field, f"tags {value!r} not a uint32")
        tags += [bits, GRAPH_NONE]
    return MatchingData(ctx.databases[slot], trigger, period, threshold, exclusion, history, bias,
                        cost, count, *tags, _scalar(node.duration, place, 12, 0.0, S), query)
