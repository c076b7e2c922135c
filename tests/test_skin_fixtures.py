"""Inputs the skinning and morph tests build in code: skins over test skeletons, cylinders,
influences, and float64 references. (No tests here; the other test modules import it.)"""
import numpy as np

import runtime as rt
from runtime import capi
from runtime.deform.influences import CenterSource, InfluenceSource, Influences
from runtime.pose.skeleton import BoneSource, SkeletonSource
from runtime.deform.skin import Skin, SkinSource
from runtime.deform.skinning import SkinJob, SkinStream

from runtime.samples.humanoid import humanoid_source


def open_skeleton(source) -> rt.Skeleton:
    b = builder()
    capi.maniBuildSkeleton(b, source)
    return rt.Skeleton.open(capi.maniBuilder_CopyBuilt(b))


def humanoid(bones: int = 80, seed: int = 0) -> rt.Skeleton:
    return open_skeleton(humanoid_source(bones, seed))


def builder():
    return capi.maniCreateBuilder(capi.maniDefaultBuilderDef())


def build(fn, source) -> bytes:
    b = builder()
    fn(b, source)
    return capi.maniBuilder_CopyBuilt(b)


def rest_inverse_binds(skeleton: rt.Skeleton, bones) -> np.ndarray:
    """Each joint's inverse bind: the inverse of its bone's rest model matrix."""
    pose = rt.Pose(skeleton)
    model = pose.model.astype(np.float64)[list(bones)]
    out = np.zeros((len(bones), 3, 4))
    inv = np.linalg.inv(model[:, :, :3])
    out[:, :, :3] = inv
    out[:, :, 3] = -np.einsum("nij,nj->ni", inv, model[:, :, 3])
    return out


def open_skin(skeleton: rt.Skeleton, bones=None, inverse_binds="rest") -> Skin:
    bones = list(range(skeleton.bone_count)) if bones is None else list(bones)
    binds = rest_inverse_binds(skeleton, bones) if isinstance(inverse_binds, str) else inverse_binds
    return Skin.open(build(capi.maniBuildSkin, SkinSource(skeleton, bones, binds)))


def open_influences(skin, joints, weights, dq=None) -> Influences:
    return Influences.open(build(capi.maniBuildInfluences,
                                 InfluenceSource.from_dense(skin, joints, weights, dq)))


def random_influences(rng, skin, n, per=4, dq=None):
    joints = np.argsort(rng.random((n, skin.joint_count)), axis=1)[:, :per]
    weights = rng.random((n, per)) + 0.05
    return open_influences(skin, joints, weights, dq)


def two_bone_skeleton(length: float = 2.0) -> rt.Skeleton:
    """A root at the origin and a child halfway along +x, both unrotated."""
    return open_skeleton(SkeletonSource([BoneSource("root"),
                                         BoneSource("child", 0, (length / 2, 0, 0))]))


def cylinder(length=2.0, radius=0.2, rings=41, segments=24):
    """A tube along +x from 0 to length: positions, outward normals, triangles."""
    x = np.linspace(0, length, rings)
    a = np.linspace(0, 2 * np.pi, segments, endpoint=False)
    xx, aa = np.meshgrid(x, a, indexing="ij")
    normals = np.stack([np.zeros_like(aa), np.cos(aa), np.sin(aa)], -1).reshape(-1, 3)
    positions = np.stack([xx, radius * np.cos(aa), radius * np.sin(aa)], -1).reshape(-1, 3)
    tris = []
    for r in range(rings - 1):
        for s in range(segments):
            i0, i1 = r * segments + s, r * segments + (s + 1) % segments
            j0, j1 = i0 + segments, i1 + segments
            tris += [(i0, j0, i1), (i1, j0, j1)]
    return positions, normals, np.array(tris)


def tube_weights(x, length=2.0, soft=0.35):
    """The child's weight rising smoothly across the middle of the tube."""
    u = np.clip((x / length - 0.5) / soft + 0.5, 0, 1)
    child = u * u * (3 - 2 * u)
    return np.stack([np.zeros_like(x, dtype=int), np.ones_like(x, dtype=int)], 1), \
        np.stack([1 - child, child], 1)


def tube(sigma=0.1, length=2.0, **kw):
    """The two-bone skeleton, its skin, the tube and its influences with centers."""
    skeleton = two_bone_skeleton(length)
    skin = open_skin(skeleton)
    positions, normals, tris = cylinder(length, **kw)
    joints, weights = tube_weights(positions[:, 0], length)
    infl = open_influences(skin, joints, weights)
    centers = Influences.open(build(capi.maniBuildCenters,
                                    CenterSource(infl, positions, tris, sigma)))
    return skeleton, skin, positions, normals, tris, infl, centers


def posed_palette(skeleton, skin, locals_by_bone):
    pose = rt.Pose(skeleton)
    for bone, t in locals_by_bone.items():
        pose.set_local(bone, t)
    pose.compute_model(skeleton)
    palette = capi.maniPose_ComputePalette(pose, skeleton, skin)
    return palette, capi.maniConvertPaletteToDualQuaternions(palette)


def axis_angle(axis, degrees):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    h = np.radians(degrees) / 2
    return np.append(axis * np.sin(h), np.cos(h))


def local(translation=(0, 0, 0), rotation=(0, 0, 0, 1), scale=(1, 1, 1)):
    return np.array([*translation, *rotation, *scale], dtype=np.float32)


def run(method, infl, palette, dq, streams, first=0, count=None):
    """Runs a skinning method over (kind, source) pairs into fresh targets; returns them."""
    outs = [np.full(src.shape, np.nan, dtype=np.float32) for _, src in streams]
    job = SkinJob(infl, palette, dq, [SkinStream(k, np.ascontiguousarray(src, np.float32), o)
                                      for (k, src), o in zip(streams, outs)], first, count)
    method(job)
    return outs


def radius_about_x(points):
    return np.linalg.norm(points[:, 1:], axis=1)
