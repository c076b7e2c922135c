"""Whether a learned model binds a graph's model slot.

A model binds a slot when it is an opened learned model of the slot's identity and the
graph's skeleton, and every learned motion matching node reading the slot names a
Projector it has and queries channels it has (its database's), at times they sample, with
parameters as wide as they (a float for a float track, a vector2 for a trajectory position
or facing, a vector3 for a bone's position or velocity): the Projector's query is laid out
as the model's database's features.
"""
from __future__ import annotations

from ..core.errors import InvalidError
from ..learned.model import LearnedModel
from ..matching.database_build import DIMENSIONS, MatchChannelKind
from .source import VALUE_WIDTH, NodeKind


def model_fits(graph, slot: int, model, skeleton) -> bool:
    """Whether `model` binds model slot `slot` of the graph (the module's rules)."""
    if not isinstance(model, LearnedModel) or not model.is_open or \
            model.identity != graph.model_identities[slot] or model.skeleton_identity != skeleton.identity:
        return False
    types = [p.type for p in graph.parameters]
    for node in graph.nodes:
        if node.kind != NodeKind.learned_motion_matching or node.data.model != slot:
            continue
        if node.data.projector >= model.projector_count:
            return False
        for channel, time, parameter in node.data.query:
            if channel >= model.channel_count:
                return False
            c = model.channel(channel)
            if time >= len(c.times) or VALUE_WIDTH[types[parameter]] != DIMENSIONS[MatchChannelKind(c.kind)]:
                return False
    return True


def refuse_learned_nodes(graph, what: str) -> None:
    """An update or evaluation of a graph holding a learned motion matching node refused
    (InvalidError, nothing changed): their steps, projections and decompression are not
    built yet (capi's PENDING entries for maniGraphInstance_Update and _Evaluate)."""
    for k, node in enumerate(graph.nodes):
        if node.kind == NodeKind.learned_motion_matching:
            raise InvalidError(f"node {k}: learned motion matching nodes are not yet {what}")
