"""A learned motion matching node's source checked into its file data (graph/format.py's
LearnedData).

Refusals name the node (item) and, in `other`, the field at fault by its place among
LearnedMotionMatchingNode's fields (0 model, 1 projector, 2 query, 3 trigger, 4 period,
5 duration), a query input as 1 << 16 | its place in the list (build/matching.py's checks):

    Model      the model slot past the graph's list (other the slot as given)
    Node       a projector not below MAX_LEARNED_PROJECTORS, a query input as a motion
               matching node's; LimitError for queries past MAX_GRAPH_MATCH_QUERIES (other 2)
    Parameter  a trigger that is no trigger, a query parameter no float, vector2 or vector3
    Scalar     a period or duration not finite or below 0; LimitError past MAX_GRAPH_SECONDS

Whether the model has the Projector and the query's channels (their widths) is the
binding's to check: the build keeps the slot's identity, the binding has the model.
"""
from __future__ import annotations

from ...core.errors import BuildReason
from ...learned.limits import MAX_LEARNED_PROJECTORS
from ..format import LearnedData
from ..limits import GRAPH_NONE
from .check import whole
from .matching import query_data
from .nodes import TRIGGER, _index, _invalid, _parameter, _scalar


def learned_data(node, place, ctx) -> LearnedData:
    slot = whole(node.model)
    if slot is None or not 0 <= slot < len(ctx.models):
        raise _invalid(BuildReason.Model, place, slot & 0xFFFFFFFF if slot is not None
                       else GRAPH_NONE, f"model slot {node.model!r} past the list")
    projector = _index(node.projector, MAX_LEARNED_PROJECTORS)
    if projector is None:
        raise _invalid(BuildReason.Node, place, 1, f"projector {node.projector!r} past the limit")
    query = query_data(node.query, place, ctx, 2)
    trigger = _parameter(ctx, node.trigger, TRIGGER, place, optional=True, other=3)
    return LearnedData(ctx.models[slot], projector, trigger, _scalar(node.period, place, 4),
                       _scalar(node.duration, place, 5), query)
