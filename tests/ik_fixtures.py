"""Chains the IK tests build in code, and the plain references they measure results by:
positions from runtime_fixtures.reference_model (binary64), model rotations as the product
of the locals' unit rotations, angles by the textbook formulas."""
import numpy as np

import runtime as rt
from runtime.pose.skeleton import BoneSource, SkeletonSource

from runtime_fixtures import hamilton, open_skeleton, reference_model


def unit(v):
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


def random_unit_quat(rng, spread=None):
    """A random unit rotation; with `spread`, one of about that many radians."""
    if spread is None:
        q = rng.normal(size=4)
    else:
        axis = unit(rng.normal(size=3))
        angle = rng.uniform(-spread, spread)
        q = np.append(axis * np.sin(angle / 2), np.cos(angle / 2))
    return tuple(q / np.linalg.norm(q))


def chain_skeleton(rng, lengths, *, spread=0.6, scale=(1.0, 1.0)) -> rt.Skeleton:
    """A base bone (bone 0, somewhere), then the chain: bone 1 a random step from the base,
    and bone j + 2 `lengths[j]` from bone j + 1 along a random direction of its frame; rests
    turned by about `spread` radians, uniform scales drawn from `scale` (bones' lengths in
    model space are then scaled by their parents')."""
    bones = [BoneSource("base", -1, tuple(rng.normal(size=3)), random_unit_quat(rng),
                        (rng.uniform(*scale),) * 3),
             BoneSource("c0", 0, tuple(rng.normal(size=3) * 0.3), random_unit_quat(rng, spread),
                        (rng.uniform(*scale),) * 3)]
    for j, length in enumerate(lengths):
        bones.append(BoneSource(f"c{j + 1}", j + 1, tuple(unit(rng.normal(size=3)) * length),
                                random_unit_quat(rng, spread), (rng.uniform(*scale),) * 3))
    return open_skeleton(SkeletonSource(bones))


def positions(skeleton, pose) -> np.ndarray:
    return reference_model(skeleton, pose.locals)[:, :, 3]


def model_rotations(skeleton, pose) -> np.ndarray:
    """Each bone's model rotation: the product of the unit local rotations from the root."""
    out = np.zeros((skeleton.bone_count, 4))
    for b in range(skeleton.bone_count):
        q = pose.locals[b, 3:7].astype(np.float64)
        q /= np.linalg.norm(q)
        p = skeleton.parent(b)
        out[b] = q if p == rt.NO_BONE else hamilton(out[p], q)
    return out


def angle_between(q, r) -> float:
    """The angle of the turn from unit quaternion q to r."""
    q, r = unit(q), unit(r)
    rel = hamilton((-q[0], -q[1], -q[2], q[3]), r)
    return 2.0 * float(np.arctan2(np.linalg.norm(rel[:3]), abs(rel[3])))


def direction_angle(u, v) -> float:
    u, v = unit(u), unit(v)
    return float(np.arctan2(np.linalg.norm(np.cross(u, v)), np.dot(u, v)))


def rest_pose(skeleton) -> rt.Pose:
    return rt.Pose(skeleton)
