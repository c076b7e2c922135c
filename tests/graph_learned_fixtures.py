"""What the learned motion matching node's tests share (no tests here): a small model of
random weights over the motion matching node's database, a graph holding it in a model
slot, and the assets that bind it."""
from functools import lru_cache

import numpy as np

import runtime as rt
from runtime import capi
from runtime.graph.binding import GraphAssets
from runtime.graph.build.build import build
from runtime.graph.file import Graph
from runtime.graph.source import (AssetSlotSource, GraphSource, InertializeNode,
                                  LearnedMotionMatchingNode)
from runtime.learned import LearnedModel, LearnedModelSource, LearnedProjector
from runtime.learned.model_build import decompressor_outputs

import graph_matching_fixtures as M
from learned_fixtures import network
from test_graph_fixtures import humanoid, standard_clips

PARAMETERS = M.PARAMETERS
QUERY = M.QUERY


def model_source(seed=0, latent=6) -> LearnedModelSource:
    """Two Projectors (tags 1 and 2), one float track and one event."""
    rng = np.random.default_rng(seed)
    db, sk = M.database(), humanoid()
    f = db.feature_count
    state = f + latent
    outputs = decompressor_outputs(sk.bone_count, 0, 1, 1)
    nets = [network(rng, state, outputs, (16,)), network(rng, state, state, (16,)),
            network(rng, f, state, (16,)), network(rng, f, state, (16,))]
    return LearnedModelSource(sk, db, nets[0], nets[1],
                              [LearnedProjector(nets[2], required=1), LearnedProjector(nets[3], required=2)],
                              latent_count=latent, step_rate=30.0, scaled_bones=[],
                              float_tracks=["smile"], events=["step"])


@lru_cache(maxsize=None)
def model(seed=0) -> LearnedModel:
    b = rt.Builder()
    capi.maniBuildLearnedModel(b, model_source(seed))
    return LearnedModel(bytes(b.copy_built()))


def source(inertialized: bool = True, models=None, **node) -> GraphSource:
    lm = LearnedMotionMatchingNode(0, **{"query": QUERY, "trigger": 3, **node})
    nodes = [lm, InertializeNode(0, duration=0.2)] if inertialized else [lm]
    models = models if models is not None else [AssetSlotSource("brain", model())]
    return GraphSource(humanoid(), nodes, len(nodes) - 1, PARAMETERS, models=models)


def assets(*models) -> GraphAssets:
    return GraphAssets(humanoid(), list(standard_clips().values()),
                       models=list(models) or [model()])


def graph(src: GraphSource | None = None) -> Graph:
    return Graph(build(src or source()))
