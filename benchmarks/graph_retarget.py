"""Retargeted clip figures: one evaluation of a graph of one clip node on the 24-bone
humanoid, its clip of the 80-bone one carried through a map, beside the same graph playing
a clip of its own skeleton (what the transfer adds: the source's sampling and RetargetPose)."""
import sys
from pathlib import Path

from _figures import emit, median_us

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import runtime as rt  # noqa: E402
from runtime.graph.binding import GraphAssets, GraphBinding  # noqa: E402
from runtime.graph.build.build import build  # noqa: E402
from runtime.graph.file import Graph  # noqa: E402
from runtime.graph.instance import GraphInstance  # noqa: E402

from test_graph_fixtures import humanoid, make_clip  # noqa: E402
from test_graph_retarget import retargeted, small_map, target  # noqa: E402


def timed(clips, maps, assets) -> float:
    binding = GraphBinding(Graph(build(retargeted(clips, maps))), assets)
    inst = GraphInstance(binding)
    inst.update(0.3)
    out, scratch = rt.Pose(target()), bytearray(binding.scratch_bytes)
    return median_us(lambda: inst.evaluate(out, scratch), number=200)


def main():
    clip, native, m = make_clip(humanoid(), 1, 1.0), make_clip(target(), 9, 0.7), small_map()
    emit("graph_clip_24_evaluate_us", timed({"n": native}, {}, GraphAssets(target(), [native])),
         "us", "lower")
    emit("graph_retargeted_clip_80_to_24_evaluate_us",
         timed({"a": clip}, {"a": m}, GraphAssets(target(), [clip], [m], [humanoid()])), "us", "lower")


if __name__ == "__main__":
    main()
