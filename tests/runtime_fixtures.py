"""Inputs the runtime tests build in code: skeletons and poses with known shapes."""
import numpy as np

import runtime as rt
from runtime.samples.humanoid import humanoid_source


def open_skeleton(source) -> rt.Skeleton:
    return rt.Skeleton.open(rt.build_skeleton(rt.Builder(), source))


def humanoid(bones: int = 80, seed: int = 0) -> rt.Skeleton:
    return open_skeleton(humanoid_source(bones, seed))


def random_quats(rng, shape) -> np.ndarray:
    q = rng.normal(size=tuple(shape) + (4,))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def random_locals(rng, n: int, *, scale=(0.5, 2.0), mirror=False) -> np.ndarray:
    t = np.empty((n, 10))
    t[:, 0:3] = rng.normal(size=(n, 3))
    t[:, 3:7] = random_quats(rng, (n,))
    t[:, 7:10] = rng.uniform(*scale, size=(n, 3))
    if mirror:
        t[:, 7] *= rng.choice([-1.0, 1.0], size=n)
    return t.astype(np.float32)


def random_pose(skeleton: rt.Skeleton, rng, **kw) -> rt.Pose:
    pose = rt.Pose(skeleton)
    pose.write_locals(0, random_locals(rng, skeleton.bone_count, **kw))
    return pose


def rotation_matrix(q) -> np.ndarray:
    """A unit quaternion's (x y z w) rotation matrix, the textbook formula in binary64."""
    x, y, z, w = np.asarray(q, dtype=np.float64)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def local_matrix(transform) -> np.ndarray:
    """A transform's 4 x 4 matrix in binary64: scale, then rotation, then translation."""
    t = np.asarray(transform, dtype=np.float64)
    out = np.eye(4)
    out[:3, :3] = rotation_matrix(t[3:7]) * t[7:]
    out[:3, 3] = t[:3]
    return out


def reference_model(skeleton: rt.Skeleton, locals_: np.ndarray) -> np.ndarray:
    """The plain per-bone walk in binary64: parent's matrix times the local's (S, then R, then T)."""
    n = skeleton.bone_count
    out = np.zeros((n, 4, 4))
    for b in range(n):
        local = local_matrix(locals_[b])
        p = skeleton.parent(b)
        out[b] = local if p == rt.NO_BONE else out[p] @ local
    return out[:, :3]


def hamilton(p, q):
    """The Hamilton product p q of two xyzw quaternions, written out in binary64."""
    (px, py, pz, pw), (qx, qy, qz, qw) = p, q
    return (pw * qx + px * qw + py * qz - pz * qy, pw * qy - px * qz + py * qw + pz * qx,
            pw * qz + px * qy - py * qx + pz * qw, pw * qw - px * qx - py * qy - pz * qz)


def rotate(q, v):
    """v turned by the unit quaternion q: q v q*."""
    x, y, z, _ = hamilton(hamilton(q, (*v, 0.0)), (-q[0], -q[1], -q[2], q[3]))
    return (x, y, z)
