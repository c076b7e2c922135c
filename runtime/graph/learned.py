"""Whether a learned model binds a graph's model slot, and what a learned node's update
(update/learned.py) and evaluation read of it (LearnedRun).

A model binds a slot when it is an opened learned model of the slot's identity and the
graph's skeleton, and every learned motion matching node reading the slot names a
Projector it has and queries channels it has (its database's), at times they sample, with
parameters as wide as they (a float for a float track, a vector2 for a trajectory position
or facing, a vector3 for a bone's position or velocity): the Projector's query is laid out
as the model's database's features.
"""
from __future__ import annotations

import numpy as np

from ..learned.model import LearnedModel
from ..matching.database_build import DIMENSIONS, MatchChannelKind
from .limits import GRAPH_NONE
from .matching import query_fits
from .source import NodeKind


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
        if not query_fits(node.data.query, model, types):
            return False
    return True


def learned_values(model) -> tuple[int, int]:
    """What a learned node keeps of its bound model in an instance's scalars: (state count,
    event count) (graph/layout.py)."""
    return model.state_count, model.event_count


class LearnedRun:
    """A learned motion matching node as an update and an evaluation read it: its model, where
    its entries are (graph/layout.py), where each query input's parameter goes in the
    Projector's query (as its database lays out the features) and how it is normalized."""

    def __init__(self, b, k: int, node):
        d = node.data
        self.node, self.base, self.data = k, b.layout.nodes[k], d
        self.model = m = b.models[d.model]
        self.slot = d.model
        n, e = m.state_count, m.event_count
        at = self.base + 2
        self.has, self.since, self.due, self.failed, self.cached = at, at + 1, at + 2, at + 3, at + 4
        self.above = at + 5
        self.state = self.above + e
        self.cache_state = self.state + n
        self.pose = b.layout.learned_poses[k]
        firsts, first = [], 0
        for c in range(m.channel_count):
            ch = m.channel(c)
            firsts.append(first)
            first += len(ch.times) * DIMENSIONS[MatchChannelKind(ch.kind)]
        pb = b.parameter_base
        self.query = []
        for c, t, p in d.query:
            width = DIMENSIONS[MatchChannelKind(m.channel(c).kind)]
            self.query.append((firsts[c] + t * width, width, pb + 4 * p))
        offsets, scales = m.normalization()
        self.offsets, self.scales = offsets.astype(np.float64), scales.astype(np.float64)
        self.trigger = -1 if d.trigger == GRAPH_NONE else pb + 4 * d.trigger
        self.event_names = [m.event_name(i) for i in range(e)]
        # the graph's mirror map's axis when the node is beneath an odd number of mirror nodes
        self.node_axis = int(b.mirror_map._axis) if node.mirrored else -1
