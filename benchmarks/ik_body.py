"""Full-body IK figures (bodyik.h): one solve of a 22-bone part (hips to head, both hands
and both toes of the 80-bone humanoid) with five effectors, each with a rotation weight,
through the Pythonic API, argument checks included; every iteration runs (tolerance 0)."""
import numpy as np
from _figures import emit, median_us

import runtime as rt
from runtime.samples.humanoid import humanoid_source

ENDS = ("head", "hand_l", "hand_r", "toe_l", "toe_r")


def main():
    rng = np.random.default_rng(0)
    skeleton = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(80)))
    pose = rt.Pose(skeleton)
    bone = {skeleton.bone_name(b): b for b in range(skeleton.bone_count)}
    effectors = []
    for name in ENDS:
        goal = pose.model[bone[name], :, 3] + rng.normal(scale=0.1, size=3)
        q = rng.normal(size=4)
        effectors.append(rt.BodyEffector(bone[name], tuple(goal), rotation=tuple(q / np.linalg.norm(q)),
                                         rotation_weight=0.5))
    start = pose.buffer.copy()
    for figure, solver, iterations, target in (
            ("xpbd_22_bones_5_effectors_10_iterations_us", rt.solve_body_xpbd, 10, 250),
            ("sdls_22_bones_5_effectors_4_iterations_us", rt.solve_body_sdls, 4, 1500)):
        solve = rt.BodySolve(top=bone["hips"], effectors=effectors, iterations=iterations, tolerance=0.0)
        scratch = np.zeros(rt.body_ik_scratch_size(skeleton, solve), dtype=np.uint8)

        def run():
            pose.buffer[...] = start
            solver(pose, skeleton, solve, scratch)
        emit(figure, median_us(run, number=50), "us", "lower", target)


if __name__ == "__main__":
    main()
