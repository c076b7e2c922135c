"""What the mirror, IK and spring node tests share (no tests here): the humanoid's mirror
map, a graph holding every one of those kinds, and evaluation helpers."""
from functools import lru_cache

import numpy as np

import runtime as rt
from runtime.graph.binding import GraphAssets, GraphBinding
from runtime.graph.build.build import build
from runtime.graph.file import Graph
from runtime.graph.instance import GraphInstance
from runtime.graph.source import *  # noqa: F403
from runtime.graph.source import ParameterType as T
from runtime.ik import ConeLimit, HingeLimit, TwistLimit
from runtime.mapping import MirrorMap, MirrorMapSource, MirrorRule, RulePlace, build_mirror_map

from test_graph_fixtures import humanoid, params, standard_clips

SIDES = [MirrorRule("_l", "_r", RulePlace.suffix), MirrorRule("_r", "_l", RulePlace.suffix)]


@lru_cache(maxsize=None)
def mirror_map() -> MirrorMap:
    return MirrorMap(build_mirror_map(rt.Builder(), MirrorMapSource(humanoid(), rules=SIDES)))


def bone(name: str) -> int:
    return humanoid().find_bone(name)


def solver_parameters():
    """pose, goal, pole, weight, rotation, look (the parameters solver_nodes reads)."""
    return params(("pose", T.pose), ("goal", T.vector3), ("pole", T.vector3), ("weight", T.float_),
                  ("rotation", T.quaternion), ("look", T.vector3))


def solver_nodes():
    """A pose parameter through one node of each IK kind, then mirrored."""
    b = bone
    return [
        PoseParameterNode(0),                                                              # 0
        TwoBoneIkNode(0, b("arm_l"), b("forearm_l"), b("hand_l"), goal_parameter=1,
                      pole_parameter=2, hinge=(0.0, 0.0, 1.0), twist=0.25, soften=0.125,
                      weight=0.75, weight_parameter=3),                                    # 1
        AimIkNode(1, [AimBone(b("spine2"), 0.5), AimBone(b("neck")), AimBone(b("head"), 2.0)],
                  goal_parameter=5, up=(0.0, 0.0, 1.0), offset=(0.0, 0.1, 0.0), cone=1.0),  # 2
        CcdIkNode(2, b("upleg_l"), b("foot_l"), goal=(0.2, 0.1, 0.1), iterations=12,
                  limits=[HingeLimit(b("leg_l"), (1.0, 0.0, 0.0), -2.0, 0.0),
                          ConeLimit(b("upleg_l"), 1.5)], step=0.5, weight_parameter=3),   # 3
        FabrikIkNode(3, b("upleg_r"), b("foot_r"), goal_parameter=1, pole=(0.0, 0.0, 1.0),
                     rotation_parameter=4, rotation_weight=0.5, tolerance=1e-3,
                     limits=[TwistLimit(b("leg_r"), -1.0, 1.0)]),                          # 4
        MirrorNode(4),                                                                     # 5
    ]


def solver_source(mirror=True) -> GraphSource:
    nodes = solver_nodes()
    if not mirror:
        nodes = nodes[:-1]
    return GraphSource(humanoid(), nodes, len(nodes) - 1, solver_parameters(),
                       mirror_map=mirror_map() if mirror else None)


def bound(source: GraphSource) -> GraphBinding:
    return GraphBinding(Graph(build(source)), GraphAssets(humanoid(), list(standard_clips().values()),
                                                          mirror_map=mirror_map()))


def evaluated(inst: GraphInstance, plan=None) -> rt.Pose:
    out = rt.Pose(humanoid())
    if plan is None:
        inst.evaluate(out)
    else:
        inst.evaluate_subset(plan, out)
    return out


def bits(pose) -> np.ndarray:
    return pose.locals.view(np.uint32).copy()


def f32_vector(rng, n=3, scale=1.0) -> tuple:
    return tuple(float(v) for v in np.float32(rng.normal(scale=scale, size=n)))
