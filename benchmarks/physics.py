"""Spring figures: one step of 64 joints meeting 8 colliders, and their Apply, through the C
names; and how far the tails of one scripted motion drift apart between host rates (24, 30,
60, 144, 240 Hz and irregular deltas), beside VRM's per-frame update on the same motion.
Ragdoll figures: the sample 20-body humanoid's bodies from a pose (with velocities from the
pose before) and a pose from its bodies, through the C names into caller memory."""
import json
import math

import numpy as np
from _figures import emit, median_us

import runtime as rt
from runtime import capi
from runtime.physics import (ColliderShape, ColliderSource, JointSource, SpringSetSource,
                             SpringSource)
from runtime.samples import springs as scene
from runtime.samples.humanoid import humanoid_source
from runtime.samples.ragdoll import humanoid_ragdoll_source

CHAINS, LINKS = 8, 8            # 8 chains of 8 moving joints (and an end each)


def rig():
    """A body with a head and eight tails of nine bones fanned around it."""
    bones = [rt.BoneSource("root"), rt.BoneSource("body", 0, (0, 1, 0)),
             rt.BoneSource("head", 1, (0, 0.5, 0.3))]
    for c in range(CHAINS):
        a = 2 * math.pi * c / CHAINS
        parent = 1
        for k in range(LINKS + 1):
            offset = (0.2 * math.sin(a), 0.0, 0.2 * math.cos(a)) if k == 0 else (0, -0.1, -0.05)
            bones.append(rt.BoneSource(f"tail{c}_{k}", parent, offset))
            parent = len(bones) - 1
    skeleton = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), rt.SkeletonSource(bones)))
    springs = [SpringSource(f"tail{c}", [JointSource(3 + c * (LINKS + 1) + k, 0.02, 0.8, 0.5)
                                         for k in range(LINKS + 1)], [0])
               for c in range(CHAINS)]
    colliders = [ColliderSource(1, ColliderShape.sphere, (0.3 * math.sin(k), -0.2, 0.3 * math.cos(k)),
                                0.1) for k in range(6)]
    colliders += [ColliderSource(2, ColliderShape.capsule, (0, 0, 0), 0.15, (0, 0.2, 0)),
                  ColliderSource(0, ColliderShape.plane, (0, 0, 0), normal=(0, 1, 0))]
    source = SpringSetSource(skeleton, springs, colliders, [list(range(8))], 60.0, 120.0)
    b = rt.Builder()
    capi.maniBuildSpringSet(b, source)
    return skeleton, capi.maniOpenSpringSet(bytes(capi.maniBuilder_CopyBuilt(b)))


def main():
    skeleton, spring_set = rig()
    state = capi.maniInitSpringState(spring_set, skeleton)
    pose, out = rt.Pose(skeleton), rt.Pose(skeleton)
    placement = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], dtype=np.float32)
    step = 1 / capi.maniSpringSet_GetStepRate(spring_set)[0]
    for k in range(60):
        placement[0] = 0.3 * math.sin(k / 7)
        capi.maniSpringState_Step(state, pose, placement, None, step)

    def one_step():
        capi.maniSpringState_Step(state, pose, placement, None, step)   # exactly one step
    emit("spring_step_64_joints_8_colliders_us", median_us(one_step, number=200), "us", "lower", 60)
    emit("spring_apply_64_joints_us",
         median_us(lambda: capi.maniSpringState_Apply(state, out), number=200), "us", "lower", 30)

    tail = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), scene.tail_skeleton_source()))
    tail_set = rt.SpringSet(rt.build_spring_set(rt.Builder(), scene.tail_set_source(tail)))
    rates = (24, 30, 60, 144, 240, None)
    fixed = [scene.play(tail_set, tail, scene.host_times(r)) for r in rates]
    verlet = [scene.play_per_frame(tail, scene.host_times(r)) for r in rates]
    # emit() keeps three decimals, too few for a figure whose target is a thousandth
    for figure, runs, target in (("spring_rate_spread_over_bone_length", fixed, 1e-3),
                                 ("spring_rate_spread_verlet_reference", verlet, None)):
        print(json.dumps({"figure": figure, "value": float(f"{scene.spread_over_length(runs):.4g}"),
                          "unit": "ratio", "better": "lower", "target": target}))

    ragdoll_figures()


def ragdoll_figures():
    skeleton = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(80)))
    b = rt.Builder()
    capi.maniBuildRagdoll(b, humanoid_ragdoll_source(skeleton))
    ragdoll = capi.maniOpenRagdoll(bytes(capi.maniBuilder_CopyBuilt(b)))
    pose, previous, out = rt.Pose(skeleton), rt.Pose(skeleton), rt.Pose(skeleton)
    pose.compute_model(skeleton)
    previous.compute_model(skeleton)
    placement = np.array([0.5, 0, 0.2, 0, 0.2, 0, 0.9797959, 1, 1, 1], dtype=np.float32)
    before = np.array([0.48, 0, 0.2, 0, 0.19, 0, 0.98177, 1, 1, 1], dtype=np.float32)
    bodies = np.zeros((20, 13), np.float32)

    def from_pose():
        capi.maniRagdoll_ComputeBodiesFromPose(ragdoll, pose, placement, previous, before, 1 / 60,
                                               bodies, 20)
    emit("ragdoll_bodies_from_pose_20_bodies_us", median_us(from_pose, number=500), "us", "lower",
         25)
    emit("ragdoll_pose_from_bodies_20_bodies_us",
         median_us(lambda: capi.maniRagdoll_ComputePoseFromBodies(ragdoll, skeleton, bodies,
                                                                  placement, pose, out),
                   number=500), "us", "lower", 25)


if __name__ == "__main__":
    main()
