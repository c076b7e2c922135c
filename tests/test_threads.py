"""Work cut into spans on several threads (core.threads): one thread and two give the same
bits, for every job that is cut (skinning, morph targets, the dual quaternion palette,
batched compose and sampling), and a span never sees another's writes."""
import numba
import numpy as np
import pytest

import runtime as rt
from runtime.core import threads
from runtime.clip.build import ChannelPath, ChannelSource, ClipSource, build_clip
from runtime.clip.clip import Clip
from runtime.deform.morph import MorphJob, MorphSemantic, MorphStream, apply_morph_targets
from runtime.deform.skinning import (SPAN_JOINTS, SPAN_VERTICES, SkinJob, SkinStream, StreamKind,
                                     palette_to_dual_quaternions, skin_blended,
                                     skin_dual_quaternion, skin_linear)

from test_morph import dense_and_sparse
from test_skin_fixtures import humanoid, open_skin, random_influences
from test_skinning import random_palette


def on_threads(count, fn):
    """fn() with numba's thread count set to `count` (the spans follow it)."""
    before = numba.get_num_threads()
    numba.set_num_threads(count)
    try:
        return fn()
    finally:
        numba.set_num_threads(before)


def same_on_one_and_two(fn):
    one, two = on_threads(1, fn), on_threads(2, fn)
    assert len(one) == len(two)
    for a, b in zip(one, two):
        assert a.tobytes() == b.tobytes()


@pytest.fixture(scope="module")
def skinned():
    rng = np.random.default_rng(7)
    skin = open_skin(humanoid(40))
    n = 2 * SPAN_VERTICES + 123
    infl = random_influences(rng, skin, n, dq=rng.random(n))
    palette = random_palette(rng, 40)
    source = rng.normal(size=(n, 8)).astype(np.float32)
    return infl, palette, palette_to_dual_quaternions(palette), source


def test_spans_follow_the_thread_count():
    assert on_threads(1, lambda: threads.spans(0, 1000, 100)) == [(0, 1000)]
    assert on_threads(2, lambda: threads.spans(0, 1000, 100)) == [(0, 500), (500, 1000)]
    assert on_threads(2, lambda: threads.spans(5, 150, 100)) == [(5, 150)]


@pytest.mark.parametrize("method", [skin_linear, skin_dual_quaternion, skin_blended])
def test_skinning_in_place_and_interleaved(skinned, method):
    infl, palette, dq, source = skinned

    def run():
        into = np.zeros_like(source)
        inplace = source.copy()
        method(SkinJob(infl, palette, dq, [
            SkinStream(StreamKind.position, source[:, 0:3], into[:, 0:3]),
            SkinStream(StreamKind.normal, source[:, 3:6], into[:, 3:6])]))
        method(SkinJob(infl, palette, dq, [
            SkinStream(StreamKind.position, inplace[:, 0:3], inplace[:, 0:3]),
            SkinStream(StreamKind.normal, inplace[:, 3:6], inplace[:, 3:6])]))
        return into, inplace
    same_on_one_and_two(run)
    into, inplace = on_threads(2, run)
    assert into[:, :6].tobytes() == inplace[:, :6].tobytes()


def test_a_target_overlapping_its_source_by_a_row_runs_as_one_span(skinned):
    infl, palette, dq, source = skinned
    n = source.shape[0]
    flat = np.zeros((n + 1) * 3, np.float32)
    flat[3:] = source[:, 0:3].reshape(-1)
    src, dst = flat[3:].reshape(n, 3), flat[:-3].reshape(n, 3)
    parts = on_threads(2, lambda: threads.spans(0, n, SPAN_VERTICES))
    assert len(parts) == 2 and not threads.apart(parts, [dst], [src, dst])
    assert threads.apart(parts, [src], [src])

    def run():
        buf = flat.copy()
        s, d = buf[3:].reshape(n, 3), buf[:-3].reshape(n, 3)
        skin_linear(SkinJob(infl, palette, dq, [SkinStream(StreamKind.position, s, d)]))
        return (buf,)
    same_on_one_and_two(run)


def test_palette_to_dual_quaternions():
    """Enough joints for two spans, every third mirrored (the q-method's, the others Newton's)."""
    palette = random_palette(np.random.default_rng(2), 2 * SPAN_JOINTS + 37)
    palette[::3, :, 0] *= -1
    assert len(on_threads(2, lambda: threads.spans(0, len(palette), SPAN_JOINTS))) == 2
    same_on_one_and_two(lambda: (palette_to_dual_quaternions(palette),))


def test_morph_targets():
    rng = np.random.default_rng(5)
    _, sparse = dense_and_sparse(rng, n=9000, targets=6)
    weights = sparse.compute_target_weights(rng.random(6))
    source = rng.normal(size=(9000, 8)).astype(np.float32)

    def run():
        target = np.zeros_like(source)
        inplace = source.copy()
        for s, t in ((source, target), (inplace, inplace)):
            apply_morph_targets(MorphJob(sparse, weights, [
                MorphStream(MorphSemantic.position, 0, s[:, 0:3], t[:, 0:3]),
                MorphStream(MorphSemantic.normal, 0, s[:, 3:6], t[:, 3:6])]))
        return target, inplace
    same_on_one_and_two(run)


def test_batched_compose_and_sampling():
    rng = np.random.default_rng(9)
    builder = rt.Builder()
    from runtime.samples.humanoid import humanoid_source
    skeleton = rt.Skeleton.open(rt.build_skeleton(builder, humanoid_source(30)))
    times = np.array([0.0, 0.5, 1.0, 2.0])
    channels = []
    for b in range(skeleton.bone_count):
        q = rng.normal(size=(4, 4))
        channels += [ChannelSource(b, ChannelPath.translation, times, rng.normal(size=(4, 3))),
                     ChannelSource(b, ChannelPath.rotation, times,
                                   q / np.linalg.norm(q, axis=1, keepdims=True))]
    clip = Clip(build_clip(builder, ClipSource(skeleton, channels, [], sample_rate=30.0)))
    at = rng.uniform(-0.5, 2.5, 700)

    def run():
        batch = rt.PoseBatch(skeleton, 700)
        clip.sample_batch(skeleton, at, batch)
        batch.compute_model(skeleton)
        return batch.buffer.copy(),
    same_on_one_and_two(run)
    (buffer,) = on_threads(2, run)
    pose = rt.Pose(skeleton)
    for k in (0, 349, 350, 699):        # each pose as composed alone
        pose.buffer[...] = buffer[k]
        pose.mark_stale()
        pose.compute_model(skeleton)
        assert buffer[k].tobytes() == pose.buffer.tobytes()
