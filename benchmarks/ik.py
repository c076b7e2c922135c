"""IK figures: a two-bone leg (one pose, and a batch of 1,000 poses of one skeleton in one
call), a three-bone look-at, and ten-bone CCD and FABRIK chains at ten iterations, each
through the Pythonic API (argument conversion included). The 80-bone sample humanoid
carries the leg and the look-at; the chains hang off a root of their own. Each solve
alternates between two goals, so every call moves the bones."""
import itertools

import numpy as np
from _figures import emit, median_us

import runtime as rt
from runtime.pose.skeleton import BoneSource, SkeletonSource
from runtime.samples.humanoid import humanoid_source


def alternating(solve, field, a, b):
    """Solves that take goal a, then b, then a..."""
    from dataclasses import replace
    return itertools.cycle([replace(solve, **{field: a}), replace(solve, **{field: b})])


def main():
    skeleton = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(80)))
    upleg, leg, foot = (skeleton.find_bone(n) for n in ("upleg_l", "leg_l", "foot_l"))
    pose = rt.Pose(skeleton)
    hip = pose.model[upleg, :, 3].astype(float)
    g1, g2 = tuple(hip + [0.05, -0.6, 0.15]), tuple(hip + [-0.05, -0.55, 0.2])
    legs = alternating(rt.TwoBoneSolve(upleg, leg, foot, g1, pole=(0.0, 0.0, 1.0)), "goal", g1, g2)
    emit("two_bone_us", median_us(lambda: rt.solve_two_bone(pose, skeleton, next(legs)),
                                  number=2000), "us", "lower", 5)

    batch = rt.PoseBatch(skeleton, 1000)
    rng = np.random.default_rng(0)
    goals = [hip + rng.normal(scale=0.1, size=(1000, 3)) + [0.0, -0.55, 0.1] for _ in range(2)]
    one = rt.TwoBoneSolve(upleg, leg, foot, g1, pole=(0.0, 0.0, 1.0))
    flip = itertools.cycle(goals)
    per_pose = median_us(lambda: rt.solve_two_bone_batch(batch, skeleton, one, next(flip)),
                         number=5, repeat=9) / 1000
    emit("two_bone_batched_per_pose_us", per_pose, "us", "lower", 0.3)

    spine, neck, head = (skeleton.find_bone(n) for n in ("spine2", "neck", "head"))
    eyes = pose.model[head, :, 3].astype(float)
    a1, a2 = tuple(eyes + [1.0, 0.2, 2.0]), tuple(eyes + [-1.0, -0.1, 2.0])
    looks = alternating(rt.AimSolve([spine, neck, head], a1, (0.0, 0.0, 1.0), pole=(0.0, 1.0, 0.0),
                                    shares=[0.2, 0.3, 0.5], cone=1.2), "goal", a1, a2)
    emit("aim_chain_3_us", median_us(lambda: rt.solve_aim(pose, skeleton, next(looks)),
                                     number=2000), "us", "lower", 6)

    tail = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), SkeletonSource(
        [BoneSource("root", -1)] + [BoneSource(f"t{i}", i, (0.0, 0.1, 0.0)) for i in range(10)])))
    chain_pose = rt.Pose(tail)
    c1, c2 = (0.4, 0.5, 0.2), (-0.3, 0.6, 0.3)
    for name, solver in (("ccd", rt.solve_ccd), ("fabrik", rt.solve_fabrik)):
        solves = alternating(rt.ChainSolve(1, 10, c1, iterations=10, tolerance=0.0), "goal", c1, c2)
        cost = median_us(lambda: solver(chain_pose, tail, next(solves)), number=500)
        emit(f"{name}_10_bones_10_iterations_us", cost, "us", "lower", 30)


if __name__ == "__main__":
    main()
