"""What the retargeting tests share: skeletons built in code, random poses, and a plain numpy
reference (quaternions and model frames composed as 4x4 matrices) to check the runtime by."""
from __future__ import annotations

import dataclasses

import numpy as np

import runtime as rt
from runtime.pose.skeleton import BoneSource, SkeletonSource
from runtime.samples.humanoid import humanoid_source


def open_skeleton(source) -> rt.Skeleton:
    return rt.Skeleton.open(rt.build_skeleton(rt.Builder(), source))


def unit_scaled(source: SkeletonSource) -> SkeletonSource:
    return SkeletonSource([dataclasses.replace(b, scale=(1.0, 1.0, 1.0)) for b in source.bones])


def humanoid(bones: int, seed: int = 0, scales: bool = True) -> rt.Skeleton:
    source = humanoid_source(bones, seed)
    return open_skeleton(source if scales else unit_scaled(source))


def line(n: int, name: str, seed: int, step=(0.0, 0.3, 0.0)) -> rt.Skeleton:
    """A root and a chain of n bones below it, each turned a little at rest."""
    rng = np.random.default_rng(seed)
    bones = [BoneSource(f"{name}_root", -1, (0.0, 1.0, 0.0))]
    for i in range(n):
        q = np.append(rng.normal(scale=0.3, size=3), 1.0)
        bones.append(BoneSource(f"{name}{i}", i, step, tuple(q / np.linalg.norm(q))))
    return open_skeleton(SkeletonSource(bones))


def random_locals(skeleton: rt.Skeleton, rng, turn: float = 0.6, move: float = 0.1,
                  scale=(1.0, 1.0)) -> np.ndarray:
    """(n, 10) locals: the rests turned, moved and scaled at random."""
    n = skeleton.bone_count
    out = np.array(skeleton.rests, dtype=np.float64)
    out[:, 0:3] += rng.normal(scale=move, size=(n, 3))
    out[:, 3:7] = qmul(out[:, 3:7], axis_angle(rng.normal(size=(n, 3)), rng.uniform(0, turn, n)))
    out[:, 7:10] *= rng.uniform(*scale, size=(n, 3))
    return out


def as_kept(locals_) -> np.ndarray:
    """A reference as a map keeps it: binary32, its rotations normalized in binary64."""
    out = np.asarray(locals_, dtype=np.float32).astype(np.float64)
    out[:, 3:7] /= np.linalg.norm(out[:, 3:7], axis=1, keepdims=True)
    return out.astype(np.float32)


def pose_of(skeleton: rt.Skeleton, locals_) -> rt.Pose:
    p = rt.Pose(skeleton)
    p.write_locals(0, np.asarray(locals_, dtype=np.float32))
    return p


# ---- plain numpy -------------------------------------------------------------------------
def qmul(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    av, aw, bv, bw = a[..., :3], a[..., 3:], b[..., :3], b[..., 3:]
    return np.concatenate([aw * bv + bw * av + np.cross(av, bv),
                           aw * bw - np.sum(av * bv, axis=-1, keepdims=True)], axis=-1)


def qconj(q):
    return np.asarray(q, float) * [-1, -1, -1, 1]


def axis_angle(axis, angle):
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis, axis=-1, keepdims=True)
    half = np.asarray(angle, float)[..., None] / 2
    return np.concatenate([axis * np.sin(half), np.cos(half)], axis=-1)


def slerp(a, b, t):
    """The turn t of the way from a to b, the short way (acos form)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = float(a @ b)
    if d < 0:
        b, d = -b, -d
    if d > 1 - 1e-12:
        return a
    th = np.arccos(min(d, 1.0))
    return (np.sin((1 - t) * th) * a + np.sin(t * th) * b) / np.sin(th)


def matrix(q):
    x, y, z, w = np.asarray(q, float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def model_frames(skeleton: rt.Skeleton, locals_):
    """Model rotations (n, 4) as products of the root paths' local rotations, and model
    matrices (n, 4, 4) composed as parent @ T R S."""
    locals_ = np.asarray(locals_, float)
    n = skeleton.bone_count
    rot, mat = np.zeros((n, 4)), np.zeros((n, 4, 4))
    for b in range(n):
        local = np.eye(4)
        local[:3, :3] = matrix(locals_[b, 3:7]) * locals_[b, 7:10]
        local[:3, 3] = locals_[b, 0:3]
        p = skeleton.parent(b)
        rot[b] = locals_[b, 3:7] if p == rt.NO_BONE else qmul(rot[p], locals_[b, 3:7])
        mat[b] = local if p == rt.NO_BONE else mat[p] @ local
    return rot, mat


def same_turn(a, b) -> float:
    """How far apart two turns are: 1 - |a . b| over unit quaternions (0 when the same)."""
    a = np.asarray(a, float) / np.linalg.norm(a, axis=-1, keepdims=True)
    b = np.asarray(b, float) / np.linalg.norm(b, axis=-1, keepdims=True)
    return float(np.max(1 - np.abs(np.sum(a * b, axis=-1))))
