"""Pose figures: composing the model (one pose, a batch), blending, difference and add.

Targets are issue 23's (ozz-animation's figures on this machine beside them): a single call
is bounded by Python's per-call cost, a batch runs in spans on both cores (core.threads)."""
import numpy as np
from _figures import emit, median_us

import runtime as rt
from runtime.samples.humanoid import humanoid_source


def random_pose(skeleton, rng):
    pose = rt.Pose(skeleton)
    n = skeleton.bone_count
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    pose.write_locals(0, np.hstack([rng.normal(size=(n, 3)), q, rng.uniform(0.8, 1.2, (n, 3))]))
    return pose


def loop_compose(skeleton, locals_, model):
    """The plain per-bone Python walk the compiled path replaces."""
    for b in range(skeleton.bone_count):
        t, (x, y, z, w), s = locals_[b, :3], locals_[b, 3:7], locals_[b, 7:]
        m = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), t[0]],
                      [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), t[1]],
                      [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), t[2]]])
        m[:, :3] *= s
        p = skeleton.parent(b)
        if p == rt.NO_BONE:
            model[b] = m
        else:
            model[b, :, :3] = model[p, :, :3] @ m[:, :3]
            model[b, :, 3] = model[p, :, :3] @ m[:, 3] + model[p, :, 3]


def main():
    rng = np.random.default_rng(0)
    skeleton = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(80)))
    pose = random_pose(skeleton, rng)
    compose = median_us(lambda: pose.compute_model(skeleton), number=200)
    emit("compose_model_80_us", compose, "us", "lower", 0.9)

    batch = rt.PoseBatch(skeleton, 1000)
    batch.locals[...] = np.stack([random_pose(skeleton, rng).locals for _ in range(1000)])
    per_pose = median_us(lambda: batch.compute_model(skeleton), number=3, repeat=9) / 1000
    emit("compose_model_batched_80_us", per_pose, "us", "lower", 0.4)

    layers = [rt.BlendLayer(random_pose(skeleton, rng), w) for w in (0.1, 0.2, 0.3, 0.4)]
    out = rt.Pose(skeleton)
    emit("blend_4x80_us", median_us(lambda: rt.blend_poses(skeleton, layers, 0.5, out)),
         "us", "lower", 3)

    a, b, target, diff = (random_pose(skeleton, rng) for _ in range(4))
    additive = [rt.BlendLayer(diff, 0.7)]

    def difference_add():
        rt.compute_pose_difference(skeleton, a, b, diff)
        rt.add_layers(target, skeleton, additive)
    emit("difference_add_80_us", median_us(difference_add), "us", "lower", 2)

    model = np.empty((80, 3, 4))
    loop = median_us(lambda: loop_compose(skeleton, pose.locals, model), number=20, repeat=7)
    emit("compose_model_vs_loop_x", loop / compose, "x", "higher", None)


if __name__ == "__main__":
    main()
