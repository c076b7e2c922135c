"""Inputs the skinning and morph tests build in code: skins over test skeletons, cylinders,
influences, and float64 references. (No tests here; the other test modules import it.)"""
import numpy as np

import runtime as rt
from runtime import capi
from runtime.influences import CenterSource, InfluenceSource, Influences
from runtime.skeleton import BoneSource, SkeletonSource
from runtime.skin import Skin, SkinSource
from runtime.skinning import SkinJob, SkinStream

from runtime.samples import humanoid_source


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



# ---- corrupting files ----------------------------------------------------------------------

def section_fields(data: bytes):
    """(offset, width) of the section count and every section's offset and size, and a map
    from each tag to its section's (offset, size)."""
    import struct
    from runtime import container
    out = [(10, 2)]
    sections = {}
    for i in range(struct.unpack_from("<H", data, 10)[0]):
        base = 32 + 24 * i
        tag, _, _, off, size = container.ENTRY.unpack_from(data, base)
        out += [(base + 8, 8), (base + 16, 8)]
        sections[tag] = (off, size)
    return out, sections


def corrupt(good: bytes, rng, kind: int) -> bytes:
    data = bytearray(good)
    if kind == 0:                                   # flips
        for _ in range(rng.integers(1, 4)):
            data[rng.integers(len(data))] ^= 1 << int(rng.integers(8))
    elif kind == 1:                                 # truncation
        del data[rng.integers(len(data)):]
    else:                                           # insertion
        at = rng.integers(len(data) + 1)
        data[at:at] = rng.integers(0, 256, rng.integers(1, 9), dtype=np.uint8).tobytes()
    return bytes(data)


def check_random_corruption(good: bytes, opener, trials: int = 3000, seed: int = 1234):
    """Flips, truncations and insertions: each refused with one of the library's errors."""
    import time
    rng = np.random.default_rng(seed)
    refused = 0
    slowest = 0.0
    for trial in range(trials):
        data = corrupt(good, rng, trial % 3)
        start = time.perf_counter()
        try:
            opener(data)
        except rt.ManiError:
            refused += 1
        slowest = max(slowest, time.perf_counter() - start)
    assert refused == trials
    assert slowest < 5.0                            # nothing close to a hang


def check_fields_blamed(good: bytes, fields, opener, seed: int = 99):
    """Each count or offset field set to wrong values is reported inside that field."""
    rng = np.random.default_rng(seed)
    for at, width in fields:
        original = int.from_bytes(good[at:at + width], "little")
        values = {original ^ (1 << int(b)) for b in rng.integers(0, 8 * width, 6)}
        values |= {original + 1, original + 16, max(original - 1, 0), 0, (1 << (8 * width)) - 1}
        values.discard(original)
        for value in values:
            data = bytearray(good)
            data[at:at + width] = value.to_bytes(width, "little")
            try:
                opener(bytes(data))
            except rt.FormatError as e:
                assert at <= e.offset < at + width, (at, width, original, value, str(e))
            else:
                raise AssertionError(f"field at {at} set to {value} (was {original}) opened")
