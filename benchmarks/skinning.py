"""Skinning and morph target figures: linear blend skinning throughput on a 100,000-vertex
humanoid, the other methods' time against it, a rigid Stadium-sized model, and sparse morph
targets.

The big mesh is built like an exported character: tubes around the sample skeleton's bones,
a part's vertices listed together, each vertex weighted to its four nearest bones. The same
mesh with its vertex order shuffled is reported too, since the kernels' fast path relies on
nearby vertices sharing joints. The methods are timed in turn within each repeat (ratios
compare runs under the same load), with plain numpy linear skinning as the baseline. The
centers' values do not change the cost, so the centers file is built without triangles.
Linear skinning, the dual quaternion palette and morph carry issue 23's targets; big jobs run
in spans on both cores, and threads_bit_identical is 1 when every job cut into spans
(skinning, morph, the dual quaternion palette, batched compose and sampling) gives the
same bits on one thread and on two.
"""
import statistics
import time

import numpy as np
from _figures import emit, median_us, on_threads
from clip import animated

import runtime as rt
from runtime import capi
from runtime.clip.build import build_clip
from runtime.clip.clip import Clip
from runtime.deform.influences import CenterSource, InfluenceSource, Influences
from runtime.deform.morph import (MorphJob, MorphSemantic, MorphStream, MorphTargets,
                                  apply_morph_targets)
from runtime.deform.morph_build import (MorphAttribute, MorphChannelSource, MorphSource,
                                        MorphTargetSource)
from runtime.samples.humanoid import humanoid_source
from runtime.deform.skin import Skin, SkinSource
from runtime.deform.skinning import (SkinJob, SkinStream, StreamKind, palette_to_dual_quaternions,
                                     skin_blended, skin_centers, skin_dual_quaternion, skin_linear)


def built(fn, source) -> bytes:
    b = capi.maniCreateBuilder(capi.maniDefaultBuilderDef())
    fn(b, source)
    return capi.maniBuilder_CopyBuilt(b)


def rig(bones: int = 80):
    skeleton = rt.Skeleton.open(built(capi.maniBuildSkeleton, humanoid_source(bones)))
    model = rt.Pose(skeleton).model.astype(np.float64)
    inverse = np.zeros((bones, 3, 4))
    inverse[:, :, :3] = np.linalg.inv(model[:, :, :3])
    inverse[:, :, 3] = -np.einsum("nij,nj->ni", inverse[:, :, :3], model[:, :, 3])
    skin = Skin.open(built(capi.maniBuildSkin, SkinSource(skeleton, range(bones), inverse)))
    return skeleton, skin, model


def character(skeleton, model, n: int, per: int, rng):
    """Tubes around the bones, part by part; weights to the `per` nearest bones."""
    bones = skeleton.bone_count
    heads = model[:, :, 3]
    tails = heads + 0.05 * model[:, :, 1]
    for b in range(1, bones):
        p = skeleton.parent(b)
        if np.allclose(tails[p], heads[p] + 0.05 * model[p, :, 1]):
            tails[p] = heads[b]
    counts = np.full(bones, n // bones)
    counts[:n - counts.sum()] += 1
    bone = np.repeat(np.arange(bones), counts)
    along = np.concatenate([np.sort(rng.random(c)) for c in counts])
    angle = rng.random(n) * 2 * np.pi
    axis = tails[bone] - heads[bone]
    unit = axis / (np.linalg.norm(axis, axis=1, keepdims=True) + 1e-9)
    side = np.where(np.abs(unit[:, 1:2]) < 0.9, [[0.0, 1, 0]], [[1.0, 0, 0]])
    e1 = np.cross(unit, side)
    e1 /= np.linalg.norm(e1, axis=1, keepdims=True)
    e2 = np.cross(unit, e1)
    normals = np.cos(angle)[:, None] * e1 + np.sin(angle)[:, None] * e2
    positions = heads[bone] + along[:, None] * axis + (0.03 + 0.02 * rng.random((n, 1))) * normals
    distance = np.empty((n, bones))
    for b in range(bones):
        seg = tails[b] - heads[b]
        t = np.clip((positions - heads[b]) @ seg / (seg @ seg + 1e-12), 0, 1)
        distance[:, b] = np.linalg.norm(positions - (heads[b] + t[:, None] * seg), axis=1)
    near = np.argsort(distance, axis=1)[:, :per]
    weights = 1 / (np.take_along_axis(distance, near, 1) + 0.01) ** 2
    return positions.astype(np.float32), normals.astype(np.float32), near, weights


def posed(skeleton, skin, rng):
    pose = rt.Pose(skeleton)
    q = rng.normal(size=(skeleton.bone_count, 4)) * 0.3
    q[:, 3] = 1
    pose.locals[:, 3:7] = q / np.linalg.norm(q, axis=1, keepdims=True)
    pose.mark_stale()
    pose.compute_model(skeleton)
    palette = skin.compute_palette(pose, skeleton)
    return palette, palette_to_dual_quaternions(palette)


def vertex_job(infl, palette, dq, positions, normals):
    """Positions and normals from one interleaved buffer into another (x y z nx ny nz u v)."""
    n = positions.shape[0]
    source = np.zeros((n, 8), np.float32)
    source[:, 0:3], source[:, 3:6] = positions, normals
    target = np.zeros((n, 8), np.float32)
    return SkinJob(infl, palette, dq, [
        SkinStream(StreamKind.position, source[:, 0:3], target[:, 0:3]),
        SkinStream(StreamKind.normal, source[:, 3:6], target[:, 3:6])])


def plain_linear(palette, joints, weights, source, target):
    """Linear blend skinning as plain numpy writes it: the baseline, timed in the same process
    (joints and weights (n, 4), the buffers interleaved x y z nx ny nz u v)."""
    m = np.einsum("nk,nkc->nc", weights, palette.reshape(-1, 12)[joints]).reshape(-1, 3, 4)
    target[:, 0:3] = np.einsum("nij,nj->ni", m[:, :, :3], source[:, 0:3]) + m[:, :, 3]
    a = m[:, :, :3]
    cof = np.stack([np.cross(a[:, 1], a[:, 2]), np.cross(a[:, 2], a[:, 0]),
                    np.cross(a[:, 0], a[:, 1])], axis=1)
    n = np.einsum("nij,nj->ni", cof, source[:, 3:6])
    n *= np.sign(np.einsum("ij,ij->i", a[:, 0], cof[:, 0]))[:, None]
    target[:, 3:6] = n / np.linalg.norm(n, axis=1, keepdims=True)


def interleaved_us(fns: dict, *, number: int = 2, repeat: int = 21) -> dict:
    """Each function timed in turn within every repeat, so a ratio compares runs taken under
    the same load: the median time of each, and the median of each's ratio to the first."""
    for fn in fns.values():
        fn()
    times = {k: [] for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            start = time.perf_counter()
            for _ in range(number):
                fn()
            times[k].append((time.perf_counter() - start) / number * 1e6)
    first = next(iter(fns))
    return {k: (statistics.median(v), statistics.median(x / y for x, y in zip(v, times[first])))
            for k, v in times.items()}


def skinning_figures(rng):
    skeleton, skin, model = rig(80)
    n = 100_000
    positions, normals, near, weights = character(skeleton, model, n, 4, rng)
    blend = rng.random(n)
    infl = Influences.open(built(capi.maniBuildInfluences,
                                 InfluenceSource.from_dense(skin, near, weights, blend)))
    centers = Influences.open(built(capi.maniBuildCenters,
                                    CenterSource(infl, positions, np.zeros((0, 3), int))))
    palette, dq = posed(skeleton, skin, rng)
    job = vertex_job(infl, palette, dq, positions, normals)
    centers_job = vertex_job(centers, palette, dq, positions, normals)
    joints, stored = np.array(infl.joints).T.copy(), np.array(infl.weights).T.copy()
    source, target = job.streams[0].source.base, job.streams[0].target.base
    timed = interleaved_us({
        "lbs": lambda: skin_linear(job),
        "dqs": lambda: skin_dual_quaternion(job),
        "centers": lambda: skin_centers(centers_job),
        "blended": lambda: skin_blended(job),
        "plain": lambda: plain_linear(palette, joints, stored, source, target)})
    emit("lbs_mverts_per_s", n / timed["lbs"][0], "Mverts/s", "higher", 150)
    emit("dqs_vs_lbs_x", timed["dqs"][1], "x", "lower", 3)
    emit("centers_vs_lbs_x", timed["centers"][1], "x", "lower", 3)
    emit("blended_vs_lbs_x", timed["blended"][1], "x", "lower", None)
    emit("lbs_vs_plain_numpy_x", timed["plain"][1], "x", "higher", None)

    order = rng.permutation(n)
    shuffled = Influences.open(built(capi.maniBuildInfluences, InfluenceSource.from_dense(
        skin, near[order], weights[order])))
    shuffled_job = vertex_job(shuffled, palette, dq, positions[order], normals[order])
    emit("lbs_shuffled_mverts_per_s",
         n / median_us(lambda: skin_linear(shuffled_job), number=3, repeat=15), "Mverts/s",
         "higher", None)
    emit("dual_quaternion_palette_80_us",
         median_us(lambda: palette_to_dual_quaternions(palette), number=50), "us", "lower", 10)
    return job


def rigid_figure(rng):
    """A Stadium-sized model: 1,311 vertices, each on one of 30 bones, a part's together."""
    skeleton, skin, model = rig(30)
    n = 1311
    bone = np.sort(rng.integers(0, 30, n))
    infl = Influences.open(built(capi.maniBuildInfluences,
                                 InfluenceSource.from_dense(skin, bone[:, None], np.ones((n, 1)))))
    palette, dq = posed(skeleton, skin, rng)
    normals = rng.normal(size=(n, 3))
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    job = vertex_job(infl, palette, dq, rng.normal(size=(n, 3)), normals)
    emit("rigid_1311_us", median_us(lambda: skin_linear(job), number=100), "us", "lower", 40)


def morph_figure(rng):
    """64 sparse targets over 20,000 vertices, each moving a region's positions and normals."""
    n = 20_000
    attrs = [MorphAttribute(MorphSemantic.position), MorphAttribute(MorphSemantic.normal)]
    channels = []
    for t in range(64):
        start = int(rng.integers(0, n - 3000))
        idx = start + np.flatnonzero(rng.random(3000) < 0.5)
        deltas = [rng.normal(size=(idx.size, 3)) * 0.01, rng.normal(size=(idx.size, 3)) * 0.1]
        channels.append(MorphChannelSource(f"shape{t}", [MorphTargetSource(1.0, deltas, idx)]))
    targets = MorphTargets.open(built(capi.maniBuildMorphTargets, MorphSource(n, attrs, channels)))
    weights = targets.compute_target_weights(rng.random(64))
    source = rng.normal(size=(n, 8)).astype(np.float32)
    target = np.zeros((n, 8), np.float32)
    job = MorphJob(targets, weights, [
        MorphStream(MorphSemantic.position, 0, source[:, 0:3], target[:, 0:3]),
        MorphStream(MorphSemantic.normal, 0, source[:, 3:6], target[:, 3:6])])
    emit("morph_64_sparse_20k_us", median_us(lambda: apply_morph_targets(job), number=5),
         "us", "lower", 150)
    return job


def threads_figure(skin_job, morph_job, rng):
    """1 when each job cut into spans gives the same bits on one thread and on two."""
    palette = skin_job.palette
    skeleton = rt.Skeleton.open(built(capi.maniBuildSkeleton, humanoid_source(80)))
    batch = rt.PoseBatch(skeleton, 1000)
    times = rng.uniform(0, 10, 1000)
    clip = Clip(build_clip(rt.Builder(), animated(skeleton, rng)))
    streams = skin_job.streams + morph_job.streams

    def run():
        skin_linear(skin_job)
        skin_dual_quaternion(skin_job)
        apply_morph_targets(morph_job)
        clip.sample_batch(skeleton, times, batch)
        batch.compute_model(skeleton)
        return [palette_to_dual_quaternions(palette).tobytes(), batch.buffer.tobytes(),
                *(s.target.tobytes() for s in streams)]
    emit("threads_bit_identical", float(on_threads(1, run) == on_threads(2, run)), "bool",
         "higher", 1)


def main():
    rng = np.random.default_rng(0)
    skin_job = skinning_figures(rng)
    rigid_figure(rng)
    morph_job = morph_figure(rng)
    threads_figure(skin_job, morph_job, rng)


if __name__ == "__main__":
    main()
