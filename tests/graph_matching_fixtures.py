"""What the motion matching node's tests share (no tests here): a small database over the
graph tests' clips (plain and mirrored entries, a no-jump one), a graph playing it, and an
independent reference: a plain loop calling MotionDatabase.search and sampling the clip."""
from functools import lru_cache

import numpy as np

import runtime as rt
from runtime.graph.binding import GraphAssets, GraphBinding
from runtime.graph.build.build import build
from runtime.graph.file import Graph
from runtime.graph.instance import GraphInstance
from runtime.graph.source import (AssetSlotSource, GraphSource, InertializeNode, MatchQueryInput,
                                  MotionMatchingNode, ParameterSource, ParameterType as T)
from runtime.matching import (MatchChannel, MatchChannelKind as K, MatchEntry, MatchEntryFlag,
                              MotionDatabase, MotionDatabaseSource, build_motion_database)

from graph_solver_fixtures import mirror_map
from test_graph_fixtures import humanoid, slots, standard_clips

CLIPS = ("a", "b", "c", "d")


@lru_cache(maxsize=None)
def database() -> MotionDatabase:
    clips = standard_clips()
    F = MatchEntryFlag
    source = MotionDatabaseSource(
        humanoid(), [clips[n] for n in CLIPS],
        [MatchEntry(0, 0.0, 1.0, tags=1), MatchEntry(1, 0.0, 0.5, tags=2),
         MatchEntry(2, 0.0, 2.0, tags=1, flags=F.mirrored), MatchEntry(3, 0.0, 0.8, tags=4),
         MatchEntry(2, 0.5, 1.5, tags=1, cost_bias=0.25, flags=F.no_jump)],
        [MatchChannel(K.bone_position, 7), MatchChannel(K.bone_velocity, 7),
         MatchChannel(K.trajectory_position, 0, (0.2, 0.4)),
         MatchChannel(K.trajectory_facing, 0, (0.4,))],
        rate=30.0, mirror_map=mirror_map(), leaf_size=4)
    return MotionDatabase(build_motion_database(rt.Builder(), source))


PARAMETERS = [ParameterSource("near", T.vector2), ParameterSource("far", T.vector2),
              ParameterSource("facing", T.vector2, (0.0, 1.0)), ParameterSource("search", T.trigger),
              ParameterSource("tags", T.int_, 1)]
QUERY = [MatchQueryInput(2, 0, 0), MatchQueryInput(2, 1, 1), MatchQueryInput(3, 2, 0)]


def source(inertialized: bool = True, **node) -> GraphSource:
    mm = MotionMatchingNode(0, **{"query": QUERY, "trigger": 3, **node})
    nodes = [mm, InertializeNode(0, duration=0.2)] if inertialized else [mm]
    return GraphSource(humanoid(), nodes, len(nodes) - 1, PARAMETERS, slots(*CLIPS),
                       databases=[AssetSlotSource("db", database(), clips=(0, 1, 2, 3))],
                       mirror_map=mirror_map())


def assets() -> GraphAssets:
    return GraphAssets(humanoid(), list(standard_clips().values()), databases=[database()],
                       mirror_map=mirror_map())


def instance(src: GraphSource | None = None) -> GraphInstance:
    return GraphInstance(GraphBinding(Graph(build(src or source())), assets()))
