"""Mapping figures: mirroring an 80-bone pose through a mirror map; retargeting the Bandai
Namco mocap skeleton onto the trainer, a pose and a clip baked (read from ../shared, those
two figures left out when it is not there); the battle's trainer posed from the baked walk
and skinned into its vertex buffer (also left out without the mocap)."""
import sys
import time
from pathlib import Path

import numpy as np
from _figures import emit, median_us

import runtime as rt
from runtime.mapping import MirrorMap, MirrorMapSource, MirrorRule, RulePlace, build_mirror_map
from runtime.importers.bvh import load_bvh
from runtime.mapping import RetargetClipSource, RetargetMap, build_retarget_map, build_retargeted_clip
from runtime.samples.humanoid import humanoid_source
from runtime.samples.trainer import mocap_reference, mocap_retarget_source, trainer_skeleton_source
from stadium.rig.trainer_model import TrainerRig, trainer_model

MOCAP = Path(__file__).resolve().parents[1].parent / "shared" / "testdata" / "mocap" / "bandai-namco-2"


def main():
    rng = np.random.default_rng(0)
    skeleton = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(80)))
    rules = [MirrorRule("_l", "_r", RulePlace.suffix), MirrorRule("_r", "_l", RulePlace.suffix)]
    mirror = MirrorMap(build_mirror_map(rt.Builder(), MirrorMapSource(skeleton, rules=rules)))
    pose, out = rt.Pose(skeleton), rt.Pose(skeleton)
    n = skeleton.bone_count
    q = rng.normal(size=(n, 4))
    pose.write_locals(0, np.hstack([rng.normal(size=(n, 3)), q / np.linalg.norm(q, axis=1, keepdims=True),
                                    rng.uniform(0.8, 1.2, (n, 3))]))
    emit("mirror_pose_80_us", median_us(lambda: mirror.mirror_pose(skeleton, pose, out), number=500),
         "us", "lower", 8)
    retargeting()


def retargeting():
    walk = MOCAP / "walk_normal_001.bvh"
    if not walk.exists():
        print(f"no mocap at {MOCAP}: the retargeting figures are left out", file=sys.stderr)
        return
    imp = load_bvh(walk)
    mocap = imp.clip_source.skeleton
    clip = rt.Clip.open(rt.build_clip(rt.Builder(), imp.clip_source))
    trainer = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), trainer_skeleton_source()))
    pose, out = rt.Pose(mocap), rt.Pose(trainer)
    clip.sample(mocap, 0.0, pose)
    reference = mocap_reference(mocap, pose.locals, trainer, 11.7)
    m = RetargetMap(build_retarget_map(rt.Builder(), mocap_retarget_source(mocap, reference, trainer)))
    clip.sample(mocap, 2.0, pose)
    emit("retarget_pose_21_to_24_us",            # the BVH's 21 joints below its still root
         median_us(lambda: m.retarget_pose(mocap, pose, trainer, out), number=500),
         "us", "lower", 15)
    source = RetargetClipSource(m, mocap, trainer, clip)
    build_retargeted_clip(rt.Builder(), source)
    runs = []
    for _ in range(7):
        start = time.perf_counter()
        build_retargeted_clip(rt.Builder(), source)
        runs.append(time.perf_counter() - start)
    emit("retargeted_clip_build_per_second_of_motion_ms", float(np.median(runs)) / clip.duration * 1e3,
         "ms", "lower", 20)
    trainer_skinning(rt.Clip.open(build_retargeted_clip(rt.Builder(), source)))


def trainer_skinning(baked):
    """The battle's trainer a frame: the baked walk sampled at a moving time, its model
    space, the palette and the CPU skin into its Voxel3D vertex buffer (with the shade)."""
    model = trainer_model()
    rig, pose = TrainerRig(model), rt.Pose(model.skeleton)
    clock = iter(np.arange(10 ** 6) / 60.0 % baked.duration)

    def frame():
        baked.sample(model.skeleton, next(clock), pose)
        pose.compute_model(model.skeleton)
        rig.skin(pose, 0.5)

    emit("trainer_skin_and_update_us", median_us(frame, number=500), "us", "lower", 150)


if __name__ == "__main__":
    main()
