"""Graph node figures: one evaluation of a small graph (a pose parameter, then the node)
through the Pythonic API, for each mirror, IK and full-body node kind, on the 80-bone
sample humanoid, the pose parameter alone first; and one update and evaluation of the
springs node on the swaying tail (its steps run in the evaluation)."""
import sys
from pathlib import Path

from _figures import emit, median_us

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import runtime as rt  # noqa: E402
from runtime.graph.binding import GraphAssets, GraphBinding  # noqa: E402
from runtime.graph.build.build import build  # noqa: E402
from runtime.graph.file import Graph  # noqa: E402
from runtime.graph.instance import GraphInstance  # noqa: E402
from runtime.graph.source import *  # noqa: E402,F403
from runtime.graph.source import ParameterType as T  # noqa: E402
from runtime.physics.spring import SpringSet  # noqa: E402
from runtime.physics.spring_build import build_spring_set  # noqa: E402
from runtime.samples.springs import pose_at, tail_set_source, tail_skeleton_source  # noqa: E402

from graph_solver_fixtures import mirror_map, solver_nodes, solver_parameters  # noqa: E402
from test_graph_fixtures import humanoid  # noqa: E402
from test_graph_ik import body_node  # noqa: E402


def timed(skeleton, node, parameters, stepped=False, **lists):
    src = GraphSource(skeleton, [PoseParameterNode(0)] + ([node] if node else []), 1 if node else 0,
                      parameters, **lists)
    assets = GraphAssets(skeleton, mirror_map=lists.get("mirror_map"),
                         spring_sets=[s.asset for s in lists.get("spring_sets", [])])
    inst = GraphInstance(GraphBinding(Graph(build(src)), assets))
    inst.set_pose(0, pose_at(skeleton, 0.3) if "spring_sets" in lists else rt.Pose(skeleton))
    out = rt.Pose(skeleton)

    if len(parameters) > 1:
        inst.set_parameter(1, T.vector3, (0.25, 0.9, 0.3))
    inst.update(1 / 60)

    def once():
        if stepped:
            inst.update(1 / 60)
        inst.evaluate(out)
    return median_us(once, number=200)


def main():
    sk = humanoid()
    ps = solver_parameters()
    emit("graph_pose_parameter_evaluate_us", timed(sk, None, ps), "us", "lower")
    nodes = solver_nodes()
    for name, node in (("mirror", MirrorNode(0)), ("two_bone", nodes[1]), ("aim_3", nodes[2]),
                       ("ccd_3_bones", nodes[3]), ("fabrik_3_bones", nodes[4]),
                       ("body_xpbd_3_effectors", body_node()),
                       ("body_sdls_3_effectors", body_node(solver=BodySolver.sdls))):
        node.input = 0
        lists = {"mirror_map": mirror_map()} if name == "mirror" else {}
        emit(f"graph_{name}_evaluate_us", timed(sk, node, ps, **lists), "us", "lower")
    tail = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), tail_skeleton_source()))
    s = SpringSet(build_spring_set(rt.Builder(), tail_set_source(tail)))
    tps = [ParameterSource("pose", T.pose)]
    emit("graph_springs_tail_4_joints_update_evaluate_us",
         timed(tail, SpringsNode(0, 0), tps, True, spring_sets=[AssetSlotSource("tail", s)]), "us", "lower")


if __name__ == "__main__":
    main()
