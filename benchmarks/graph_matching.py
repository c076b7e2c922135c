"""The graph's motion matching node on the staged database (Bandai Namco's walks, runs and
turns at 60 Hz with mirrored entries, Holden's 27 features): one instance's frame (update
and evaluation) of a motion matching node under an inertialize node, searching every 0.1 s
for a trajectory that turns, and the frames that search alone.

    python benchmarks/graph_matching.py
"""
import math
import statistics
import time

from _figures import emit

import runtime as rt
from runtime.graph.binding import GraphAssets, GraphBinding
from runtime.graph.build.build import build
from runtime.graph.file import Graph
from runtime.graph.instance import GraphInstance
from runtime.graph.source import (AssetSlotSource, ClipSlotSource, GraphSource, InertializeNode,
                                  MatchQueryInput, MotionMatchingNode, ParameterSource)
from runtime.graph.source import ParameterType as T
from runtime.samples import mocap

DT = 1 / 60
FRAMES = 600


def main() -> None:
    if not mocap.available():
        raise SystemExit("the staged mocap is not here")
    staged = mocap.staged_database()
    db, sk = staged.database, staged.skeleton
    times = len(mocap.FUTURE)
    parameters = [ParameterSource(f"{kind}{t}", T.vector2) for kind in ("position", "facing")
                  for t in range(times)]
    query = [MatchQueryInput(5 + c, c * times + t, t) for c in range(2) for t in range(times)]
    source = GraphSource(sk, [MotionMatchingNode(0, query, history_count=4, history_time=0.5,
                                                 jump_threshold=0.1), InertializeNode(0, duration=0.2)], 1,
                         parameters, [ClipSlotSource(n, c) for n, c in zip(staged.names, staged.clips)],
                         databases=[AssetSlotSource("db", db, clips=tuple(range(len(staged.clips))))],
                         mirror_map=staged.mirror_map)
    binding = GraphBinding(Graph(build(source)), GraphAssets(sk, staged.clips, databases=[db],
                                                             mirror_map=staged.mirror_map))
    inst = GraphInstance(binding)
    pose = rt.Pose(sk)
    at = binding.layout.nodes[0] + 5           # time since the node's last search
    frames, searching = [], []
    for frame in range(FRAMES + 60):
        heading = 1.5 * math.sin(frame / 120)
        for t, ahead in enumerate(mocap.FUTURE):
            d = 150.0 * ahead
            inst.set_parameter(t, T.vector2, (d * math.sin(heading * ahead), d * math.cos(heading * ahead)))
            inst.set_parameter(times + t, T.vector2, (math.sin(heading * ahead), math.cos(heading * ahead)))
        start = time.perf_counter()
        inst.update(DT)
        inst.evaluate(pose)
        spent = (time.perf_counter() - start) * 1e6
        if frame >= 60:                         # the first ones compile
            frames.append(spent)
            if inst.scalars[at] == 0.0:
                searching.append(spent)
    assert inst.scalars[at - 3] == 1.0, "the node found no frame to play"
    emit("graph_matching_frame_us", statistics.median(frames), "us", "lower", 1000)
    emit("graph_matching_search_frame_us", statistics.median(searching), "us", "lower", None)


if __name__ == "__main__":
    main()
