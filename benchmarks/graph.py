"""Graph figures on the 80-bone humanoid: the sample locomotion graph (runtime.samples.locomotion:
a polar blend space of nine clips inside a state machine, an attack one-shot on an upper-body
mask, an additive breath), updated and evaluated for one instance, and for a hundred a frame
(update_batch and evaluate_batch, cut into spans on both cores; the same on one thread
beside it), with issue 23's targets (ozz-animation's 3 samples, 3-layer blend and
local-to-model take 2.6 us on this machine). graph_threads_bit_identical is 1 when the
hundred instances' root moves, poses and state come out the same bits on one thread and on
two."""
import math

import numpy as np

from _figures import emit, median_us, on_threads

import runtime as rt
from runtime.graph.file import Graph
from runtime.graph.batch import evaluate_batch, update_batch
from runtime.graph.binding import GraphAssets, GraphBinding
from runtime.graph.build.build import build
from runtime.graph.instance import GraphInstance
from runtime.samples.locomotion import locomotion_clips, locomotion_source
from runtime.graph.source import ParameterType as T
from runtime.samples.humanoid import humanoid_source

DT = 1 / 60
DIRECTION, SPEED, ATTACK, BREATH = 0, 1, 4, 5


def drive(inst, k: int, frames: int) -> None:
    """Runs an instance some frames into a walk-to-run turn, attacking once, so what is
    measured blends several clips of the space, the breath and, for some, the attack."""
    inst.set_parameter(SPEED, T.float_, 1.0 + 2.5 * ((k * 0.37) % 1.0))
    inst.set_parameter(DIRECTION, T.float_, (k * 0.61) % (2 * math.pi))
    inst.set_parameter(BREATH, T.float_, 0.6)
    for frame in range(frames):
        if frame == frames - 10 and k % 3 == 0:
            inst.set_parameter(ATTACK, T.trigger, True)
        inst.update(DT)


def main():
    skeleton = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(80)))
    clips = locomotion_clips(skeleton)
    graph = Graph(build(locomotion_source(skeleton, clips)))
    binding = GraphBinding(graph, GraphAssets(skeleton, list(clips.values())))

    one = GraphInstance(binding)
    drive(one, 0, 90)
    pose = rt.Pose(skeleton)

    def frame_one():
        one.update(DT)
        one.evaluate(pose)
    emit("graph_locomotion_instance_us", median_us(frame_one, number=100, repeat=15), "us", "lower", 10)

    many = [GraphInstance(binding) for _ in range(100)]
    for k, inst in enumerate(many):
        drive(inst, k, 30 + k % 40)
    batch = rt.PoseBatch(skeleton, len(many))

    def frame_many():
        update_batch(many, DT)
        evaluate_batch(many, batch)
    per_instance = median_us(frame_many, number=3, repeat=9) / len(many)
    emit("graph_locomotion_100_per_instance_us", per_instance, "us", "lower", 2.0)
    alone = on_threads(1, lambda: median_us(frame_many, number=3, repeat=9)) / len(many)
    emit("graph_locomotion_100_per_instance_one_thread_us", alone, "us", "lower")
    emit("graph_threads_bit_identical", float(on_threads(1, lambda: hundred(binding, skeleton)) ==
                                              on_threads(2, lambda: hundred(binding, skeleton))), "bool", "higher", 1)


def hundred(binding, skeleton) -> list:
    """A hundred fresh instances driven 60 frames as a batch: each frame's root moves and
    poses, then the instances' bytes."""
    many = [GraphInstance(binding) for _ in range(100)]
    batch = rt.PoseBatch(skeleton, len(many))
    out = []
    for k, inst in enumerate(many):
        drive(inst, k, 0)
    for frame in range(60):
        if frame == 30:
            for k in range(0, len(many), 3):
                many[k].set_parameter(ATTACK, T.trigger, True)
        moves = [r[2] for r in update_batch(many, DT)]
        evaluate_batch(many, batch)
        out.append(np.concatenate(moves).tobytes() + batch.locals.tobytes())
    return out + [inst.buffer.tobytes() for inst in many]


if __name__ == "__main__":
    main()
