"""Mapping figures: mirroring an 80-bone pose through a mirror map."""
import numpy as np
from _figures import emit, median_us

import runtime as rt
from runtime.mapping import MirrorMap, MirrorMapSource, MirrorRule, RulePlace, build_mirror_map
from runtime.samples.humanoid import humanoid_source


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


if __name__ == "__main__":
    main()
