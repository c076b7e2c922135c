"""Clip compression (maniCompressClip, maniDefaultCompressOptions) and compressed clips playing
through every clip function.

Measured independently of the compressor: the compressed file is decoded here by a plain
reading of the layout clip/compressed.py documents, the poses composed to model space in
binary64 by a loop of our own, and the six virtual vertices at the shell distance on each
bone's axes compared with the full clip's at every sample. The compressor's own report is
checked against that, never trusted for it."""
from __future__ import annotations

import hashlib
import math
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.clip.build import ChannelPath, ChannelSource, ClipSource, FloatTrackSource
from runtime.clip.clip import KNOWN, ClipEvent, LoopPolicy, sample_times
from runtime.clip.cursor import ClipCursor
from runtime.clip.rootmotion import RootMotionSource
from runtime.core.builder import BuilderDef, default_builder_def
from runtime.core.container import Container, FileKind
from runtime.pose.skeleton import BoneSource, SkeletonSource

from clip_measure import measure, models, poses_at, shell_errors

ROOT = Path(__file__).resolve().parents[1]
MOCAP = ROOT.parent / "shared" / "testdata" / "mocap" / "bandai-namco-2"
RATES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 32]
# Between two samples the compressed clip's shell is within this many precisions of the
# full clip's: each local interpolates as the full clip's does, so the endpoints' errors
# interpolate too, up to the change of the ancestors' lever arms over one sample period.
BETWEEN_SAMPLES = 2.0


# ---- the independent measurement: clip_measure.py; the decoder ----------------------------------
def reference_decode(data: bytes, skeleton) -> tuple[np.ndarray, np.ndarray]:
    """Every sample's locals (S, n, 10) and float tracks (S, F), read by the documented layout,
    bit by bit, in binary32."""
    buf = np.frombuffer(data, np.uint8)
    c = Container(buf, FileKind.clip, 1, 0, KNOWN)
    s, b, _, _, _, _, basis, encoding, _, f = struct.unpack_from("<IIffQHHHHI", c.raw(b"CLIP").tobytes())
    assert encoding == 1
    g = struct.unpack_from("<I", c.raw(b"CLIP").tobytes(), 56)[0]
    bones = c.array(b"BONE", "<u4", (b, 2))[:, 0]
    kinds = c.raw(b"CKND")
    consts = c.array(b"CCON", "<f4")
    ranges = c.array(b"CRNG", "<f4").reshape(-1, 2)
    starts = c.array(b"CSEG", "<u4")
    widths = [3] * (3 * b) + [1] * f
    ncomp = sum(w for w, k in zip(widths, kinds) if k == 2)
    crat = c.raw(b"CRAT").reshape(g, ncomp)
    csrn = c.raw(b"CSRN").reshape(g, ncomp, 2)
    bits = np.unpackbits(c.raw(b"CBIT"), bitorder="little")
    base = np.tile(rt.IDENTITY, (skeleton.bone_count, 1)) if basis else skeleton.rests.copy()
    out = np.repeat(base[None].astype(np.float32), s, axis=0)
    floats = np.zeros((s, f), np.float32)
    f32 = np.float32
    byte = 0
    for seg in range(g):
        pos = 8 * byte
        for k in range(starts[seg], starts[seg + 1]):
            ci = ri = co = 0
            for t, kind in enumerate(kinds):
                bone, part = (bones[t // 3], t % 3) if t < 3 * b else (None, None)
                col = (0, 3, 7)[part] if part is not None else None
                if kind == 1:
                    n = 4 if part == 1 else 1 if part is None else 3
                    value = consts[co:co + n]
                    co += n
                    if part is None:
                        floats[k, t - 3 * b] = value[0]
                    else:
                        out[k, bone, col:col + n] = value
                    continue
                if kind == 0:
                    continue
                comps = 1 if part is None else 3
                drop = int(crat[seg, ci]) >> 5 if part == 1 else None
                keep = [x for x in range(4) if x != drop] if part == 1 else list(range(comps))
                v = []
                for x in range(comps):
                    nb = RATES[int(crat[seg, ci + x]) & 31]
                    q = int(sum(int(bits[pos + i]) << i for i in range(nb)))
                    pos += nb
                    if nb == 32:
                        v.append(np.array([q], np.uint32).view(np.float32)[0])
                        continue
                    lo, ext = f32(csrn[seg, ci + x, 0]) / f32(255), f32(csrn[seg, ci + x, 1]) / f32(255)
                    n = lo + ext * (f32(q) / f32((1 << nb) - 1)) if nb else lo
                    cmin, cext = ranges[ri + keep[x]]
                    v.append(f32(cmin) + f32(cext) * n)
                ci += comps
                ri += 4 if part == 1 else comps
                if part is None:
                    floats[k, t - 3 * b] = v[0]
                elif part == 1 and all(RATES[int(crat[seg, ci - 3 + x]) & 31] == 32 for x in range(3)):
                    q = int(sum(int(bits[pos + i]) << i for i in range(32)))
                    pos += 32
                    v.insert(drop, np.array([q], np.uint32).view(np.float32)[0])
                    out[k, bone, 3:7] = v
                elif part == 1:
                    ss = v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
                    if ss >= f32(1):
                        r = f32(np.sqrt(np.float64(ss)))
                        v, dropped = [x / r for x in v], f32(0)
                    else:
                        dropped = f32(np.sqrt(np.float64(f32(1) - ss)))
                    v.insert(drop, dropped)
                    out[k, bone, 3:7] = v
                else:
                    out[k, bone, col:col + 3] = v
        byte += (pos - 8 * byte + 7) // 8
    return out, floats


# ---- clips to compress ------------------------------------------------------------------------
def compressed(clip, skeleton, options=None) -> tuple[rt.Clip, rt.CompressReport, bytes]:
    b = rt.Builder()
    report = rt.compress_clip(b, clip, skeleton, options or rt.default_compress_options())
    data = b.built()
    return rt.Clip(data), report, data


def _skeleton(parents, rng, scale_spread=0.3):
    bones = []
    for i, p in enumerate(parents):
        q = rng.normal(size=4)
        bones.append(BoneSource(f"b{i}", p, tuple(rng.uniform(-0.3, 0.3, 3)), tuple(q / np.linalg.norm(q)),
                                tuple(rng.uniform(1 - scale_spread, 1 + scale_spread, 3))))
    return rt.Skeleton.open(rt.build_skeleton(rt.Builder(), SkeletonSource(bones)))


def random_clip(seed: int, bones: int, deep: bool, keys: int = 9, duration: float = 1.3,
                additive: bool = False, root_motion: bool = False):
    """A clip whose channels are each default, constant, gently or wildly moving, with
    non-uniform scales, and float tracks of every kind."""
    rng = np.random.default_rng(seed)
    parents = [-1] + [i - 1 if deep else int(rng.integers(0, i)) for i in range(1, bones)]
    sk = _skeleton(parents, rng)
    times = np.linspace(0, duration, keys)
    channels = []
    for b in range(bones):
        for path, width in ((ChannelPath.translation, 3), (ChannelPath.rotation, 4), (ChannelPath.scale, 3)):
            style = int(rng.integers(4))        # 0 none, 1 constant, 2 gentle, 3 wild
            if style == 0:
                continue
            rest = sk.rests[b, {3: 0, 4: 3}[width] if path != ChannelPath.scale else 7:][:width].astype(np.float64)
            spread = {1: 0.0, 2: 0.05, 3: 1.0}[style]
            v = rest + rng.normal(scale=spread, size=(keys, width)) if style > 1 else np.tile(
                rest + rng.normal(scale=0.1, size=width), (keys, 1))
            if path == ChannelPath.rotation:
                v /= np.linalg.norm(v, axis=1, keepdims=True)
            if path == ChannelPath.scale:
                v = np.clip(np.abs(v), 0.3, 3.0)
            channels.append(ChannelSource(b, path, times, v))
    floats = [FloatTrackSource("zero", times, np.zeros(keys)), FloatTrackSource("flat", times, np.full(keys, 0.25)),
              FloatTrackSource("wild", times, rng.normal(scale=3.0, size=keys))]
    source = ClipSource(sk, channels, floats, [], [ClipEvent("e", 0.2)], [ClipEvent("m", 0.4)],
                        sample_rate=30.0, loop=LoopPolicy.repeat,
                        additive=rt.AdditiveBasis.first_frame if additive else rt.AdditiveBasis.none,
                        root_motion=RootMotionSource(0) if root_motion else None)
    return sk, rt.Clip(rt.build_clip(rt.Builder(), source))


OPTIONS = rt.CompressOptions(precision=0.001, shell_distance=0.05, float_tolerance=0.0001)


def check_bounds(full, packed, sk, options, report=None):
    grid = sample_times(full.sample_count, full.duration, full.sample_rate)
    err = measure(full, packed, sk, options.shell_distance, grid)
    assert err.max() <= options.precision, (err.max(), np.unravel_index(err.argmax(), err.shape))
    fl = np.abs(np.stack([packed.sample_floats(t) for t in grid]).astype(np.float64)
                - np.stack([full.sample_floats(t) for t in grid]))
    assert fl.size == 0 or fl.max() <= options.float_tolerance
    if report is not None:
        assert report.worst_error == pytest.approx(err.max(), rel=1e-6, abs=1e-12)
    return err


# ---- the bound, at every sample ------------------------------------------------------------------
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 31), bones=st.integers(1, 14), deep=st.booleans(),
       keys=st.integers(2, 12), additive=st.booleans())
def test_every_sample_within_the_precision(seed, bones, deep, keys, additive):
    sk, full = random_clip(seed, bones, deep, keys, additive=additive)
    packed, report, _ = compressed(full, sk, OPTIONS)
    assert packed.is_compressed and capi.maniClip_IsCompressed(packed)
    check_bounds(full, packed, sk, OPTIONS, report)


def test_a_deep_chain_wildly_moving_with_the_defaults():
    sk, full = random_clip(3, 40, True, keys=30, duration=3.0)
    options = rt.default_compress_options()
    packed, report, _ = compressed(full, sk, options)
    check_bounds(full, packed, sk, options, report)
    assert report.segments == round(full.sample_count / 16)


def test_the_report_adds_up():
    sk, full = random_clip(5, 12, False, keys=20, duration=2.0)
    packed, report, data = compressed(full, sk, OPTIONS)
    assert report.compressed_bytes == len(data) < report.full_bytes == full.data.size
    assert report.raw_bytes == (40 * sk.bone_count + 4 * full.float_track_count) * full.sample_count
    assert report.histogram.sum() == report.segments * sum(
        1 if t >= 3 * full.tracked_bone_count else 3
        for t, k in enumerate(packed._stream.meta[packed._stream.meta[6]:][:3 * full.tracked_bone_count + 3])
        if k == 2)
    assert report.default_tracks + report.constant_tracks + report.animated_tracks == \
        3 * full.tracked_bone_count + full.float_track_count
    assert report.worst_float_track in (0, 1, 2) and report.worst_float_error <= OPTIONS.float_tolerance


def test_between_samples_within_the_stated_bound():
    for seed, deep in ((1, True), (2, False), (4, True)):
        sk, full = random_clip(seed, 16, deep, keys=12)
        packed, _, _ = compressed(full, sk, OPTIONS)
        grid = sample_times(full.sample_count, full.duration, full.sample_rate)
        between = np.concatenate([grid[:-1] + f * np.diff(grid) for f in (0.25, 0.5, 0.75)])
        err = measure(full, packed, sk, OPTIONS.shell_distance, between)
        assert err.max() <= BETWEEN_SAMPLES * OPTIONS.precision


def test_a_sample_time_decodes_exactly_what_the_file_holds():
    for seed, additive in ((7, False), (8, True)):
        sk, full = random_clip(seed, 9, False, keys=10, additive=additive)
        packed, _, data = compressed(full, sk, OPTIONS)
        want, floats = reference_decode(data, sk)
        grid = sample_times(full.sample_count, full.duration, full.sample_rate)
        got = poses_at(packed, sk, grid)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
        assert np.array_equal(np.stack([packed.sample_floats(t) for t in grid]), floats)


FINE = rt.CompressOptions(precision=1e-7, shell_distance=0.05, float_tolerance=1e-8)   # raw values


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 31), bones=st.integers(1, 12), deep=st.booleans(),
       additive=st.booleans(), fine=st.booleans())
def test_the_whole_decode_is_what_the_file_holds_bit_for_bit(seed, bones, deep, additive, fine):
    """A graph's decode of every sample at once (numpy) against the documented layout read
    bit by bit, and against the sampler's own per-sample kernel: the same bits, each
    rotation in the previous sample's hemisphere."""
    sk, full = random_clip(seed, bones, deep, keys=7, duration=2.1, additive=additive)
    packed, _, data = compressed(full, sk, FINE if fine else OPTIONS)
    samples, dots = packed.decoded(sk)
    want, _ = reference_decode(data, sk)
    want = want[:, packed.tracked_bones]
    big = np.abs(want[..., 3:7]).argmax(axis=-1)[..., None]
    turned = np.take_along_axis(np.signbit(samples[..., 3:7]) != np.signbit(want[..., 3:7]),
                                big, axis=-1)                    # a whole quaternion turns
    assert np.array_equal(samples[..., [0, 1, 2, 7, 8, 9]].view(np.uint32),
                          want[..., [0, 1, 2, 7, 8, 9]].view(np.uint32))
    back = np.where(turned, -samples[..., 3:7], samples[..., 3:7])
    assert np.array_equal(back.view(np.uint32), want[..., 3:7].view(np.uint32))
    q = samples[..., 3:7]
    raw = np.einsum("skc,skc->sk", q[1:], q[:-1], dtype=np.float32)
    assert (raw >= 0).all() and np.allclose(dots, raw, atol=1e-6)
    stream, bound = packed._stream, packed._skeleton(sk)
    rows = np.arange(packed.tracked_bone_count, dtype=np.int64)
    a = np.empty((packed.tracked_bone_count, 10), np.float32)
    for k in range(1, packed.sample_count):
        b, pair = np.empty_like(a), np.empty(packed.tracked_bone_count, np.float32)
        stream.bones_pair(bound[4], k - 1, k, rows, a, b, pair)
        assert np.array_equal(np.abs(pair), dots[k - 1])         # the sampler's own dots


def test_a_raw_value_changed_is_refused_near_its_byte():
    sk, full = random_clip(3, 6, True, keys=9)
    packed, _, data = compressed(full, sk, FINE)
    at, n = _section(data, b"CBIT")
    refused = 0
    for where in range(at, at + min(n - 8, 96)):
        bad = bytearray(data)
        bad[where] = 0xFF                      # a raw binary32's top byte: a NaN
        try:
            rt.Clip(_reseal(bad))
        except rt.FormatError as e:
            refused += 1
            # a raw value (not byte-aligned) spans at most 5 bytes; a rotation whose length
            # is wrong is named at its fourth, at most 12 bytes after its first
            assert where - 4 <= e.offset <= where + 12, (where, e.offset)
    assert refused >= 96 // 4


# ---- the same bytes ---------------------------------------------------------------------------
def test_the_same_bytes_twice_and_in_another_process():
    sk, full = random_clip(11, 10, False, keys=15)
    a = compressed(full, sk, OPTIONS)[2]
    b = compressed(full, sk, OPTIONS)[2]
    assert a == b
    code = ("import sys; sys.path.insert(0, 'tests'); import hashlib, runtime as rt;"
            "from test_clip_compress import random_clip, compressed, OPTIONS;"
            "sk, full = random_clip(11, 10, False, keys=15);"
            "print(hashlib.sha256(compressed(full, sk, OPTIONS)[2]).hexdigest())")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == hashlib.sha256(a).hexdigest()


# ---- every clip function on a compressed clip ------------------------------------------------
@pytest.fixture(scope="module")
def pair():
    sk, full = random_clip(21, 12, False, keys=14, duration=1.6, root_motion=True)
    packed, _, _ = compressed(full, sk, OPTIONS)
    return sk, full, packed


def test_the_getters_events_markers_discretes_and_root_motion_are_the_full_clips(pair):
    sk, full, packed = pair
    for name in ("duration", "sample_rate", "sample_count", "loop_policy", "additive_basis",
                 "skeleton_identity", "float_track_count", "discrete_track_count", "event_count",
                 "marker_count"):
        assert getattr(packed, name) == getattr(full, name), name
    assert packed.identity != full.identity
    assert packed.event(0) == full.event(0) and packed.marker(0) == full.marker(0)
    assert packed.event_range(0.0, 1.0) == full.event_range(0.0, 1.0)
    assert packed.find_float_track("wild") == full.find_float_track("wild") == 2
    assert packed.float_track_name(2) == "wild"
    for t in (0.0, 0.37, 1.6):
        assert np.array_equal(rt.rootmotion.move_at(packed, t), rt.rootmotion.move_at(full, t))


def test_sample_bones_cursors_and_batches_agree_with_sample(pair):
    sk, _, packed = pair
    times = np.array([0.0, 0.05, 0.37, 0.81, 1.2, 1.6, 0.9, 0.33, 0.0])     # forward, then back
    want = poses_at(packed, sk, times)
    cursor = ClipCursor.for_clip(packed)
    assert cursor.size == packed.cursor_size
    pose = rt.Pose(sk)
    for k, t in enumerate(times):
        cursor.sample(packed, sk, t, pose)
        assert np.array_equal(pose.locals, want[k])
        assert np.array_equal(cursor.sample_floats(packed, t), packed.sample_floats(t))
    bones = [0, 3, 4, 9]
    for k, t in enumerate(times):
        pose.set_rest(sk)
        packed.sample_bones(sk, t, bones, pose)
        assert np.array_equal(pose.locals[bones], want[k][bones])
        others = np.setdiff1d(np.arange(sk.bone_count), bones)
        assert np.array_equal(pose.locals[others], sk.rests[others])
    batch = rt.PoseBatch(sk, times.size)
    packed.sample_batch(sk, times, batch)
    assert np.allclose(batch.locals, want, atol=2e-7)
    assert np.allclose(packed.sample_floats_batch(times), np.stack([packed.sample_floats(t) for t in times]))


def test_decoded_samples_interpolate_as_sampling_does(pair):
    sk, _, packed = pair
    samples, dots = packed.decoded(sk)
    assert samples.shape == (packed.sample_count, packed.tracked_bone_count, 10)
    q = samples[..., 3:7].astype(np.float64)
    assert (np.einsum("skc,skc->sk", q[1:], q[:-1]) > 0).all()          # one hemisphere
    assert np.allclose(dots, np.einsum("skc,skc->sk", q[1:], q[:-1]), atol=1e-6)
    with pytest.raises(rt.InvalidError):
        packed.samples


def test_a_graph_plays_a_compressed_clip_as_the_full_one():
    from runtime.graph.source import ClipNode, ClipSlotSource, GraphSource
    sk, full = random_clip(31, 10, False, keys=10)
    packed, _, _ = compressed(full, sk, OPTIONS)
    frames = []
    for clip in (full, packed):
        b = rt.Builder()
        capi.maniBuildGraph(b, GraphSource(sk, clips=[ClipSlotSource("walk", clip)],
                                           nodes=[ClipNode(0)], output=0))
        graph = capi.maniOpenGraph(b.built())
        binding = capi.maniBindGraph(graph, rt.GraphAssets(sk, [clip]))[0]
        inst = capi.maniInitGraphInstance(binding)
        scratch = bytearray(capi.maniGraphBinding_GetScratchSize(binding))
        out, pose = [], rt.Pose(sk)
        for _ in range(50):
            capi.maniGraphInstance_Update(inst, 1 / 45)
            capi.maniGraphInstance_Evaluate(inst, scratch, pose)
            out.append(pose.locals.copy())
        frames.append(np.stack(out))
    err = shell_errors(models(sk.parents, frames[1]), models(sk.parents, frames[0]), OPTIONS.shell_distance)
    assert 0 < err.max() <= BETWEEN_SAMPLES * OPTIONS.precision


# ---- species clips ------------------------------------------------------------------------------
# ---- refusals --------------------------------------------------------------------------------
def test_refusals_and_their_misuse_counts(pair):
    sk, full, packed = pair
    good = rt.default_compress_options()
    assert (good.precision, good.shell_distance, good.float_tolerance) == (0.0001, 0.03, 0.00001)
    assert capi.maniDefaultCompressOptions() == good
    with pytest.raises(rt.InvalidError):
        capi.maniCompressClip(None, full, sk, good)
    b = rt.Builder()
    capi.maniCompressClip(b, full, sk, good)
    kept = b.built()
    cases = [((None, sk, good), 1), ((full, None, good), 1), ((full, sk, None), 1), ((b"clip", sk, good), 1)]
    for field in ("precision", "shell_distance", "float_tolerance"):
        for bad in (0.0, -1.0, math.nan, math.inf, "x"):
            cases.append(((full, sk, rt.CompressOptions(**{field: bad})), 1))
    other = _skeleton([-1, 0, 1], np.random.default_rng(0))
    cases += [((packed, sk, good), 0), ((full, other, good), 0)]
    for arguments, counted in cases:
        before = b.misuse
        with pytest.raises(rt.InvalidError):
            capi.maniCompressClip(b, *arguments)
        assert b.misuse == before + counted, arguments
        assert b.built() == kept


def test_a_failing_allocator_is_a_capacity_error(pair):
    sk, full, _ = pair
    calls = []

    def alloc(user, size):
        calls.append(size)
        return bytearray(size) if len(calls) == 1 else None
    d = default_builder_def()
    b = rt.Builder(BuilderDef(d.cookie, d.version, alloc, lambda u, blk: None))
    with pytest.raises(rt.CapacityError):
        capi.maniCompressClip(b, full, sk, rt.default_compress_options())


def test_a_call_from_the_allocator_is_busy(pair):
    sk, full, _ = pair
    seen = []

    def alloc(user, size):
        if seen:
            try:
                capi.maniCompressClip(seen[0], full, sk, rt.default_compress_options())
            except rt.BusyError:
                seen.append("busy")
        return bytearray(size)
    d = default_builder_def()
    b = rt.Builder(BuilderDef(d.cookie, d.version, alloc, lambda u, blk: None))
    seen.append(b)
    capi.maniCompressClip(b, full, sk, rt.default_compress_options())
    assert "busy" in seen and b.misuse == 1


# ---- the open's checks ----------------------------------------------------------------------------
def _reseal(data: bytearray) -> bytes:
    kind, version, minor = struct.unpack_from("<HHH", data, 4)
    struct.pack_into("<Q", data, 16, rt.hash64(kind | version << 16 | minor << 32, bytes(data[32:])))
    return bytes(data)


def _section(data: bytes, tag: bytes) -> tuple[int, int]:
    c = Container(np.frombuffer(data, np.uint8), FileKind.clip, 1, 0, KNOWN)
    return c.sections[tag]


def test_the_open_refuses_each_corrupted_section_at_its_byte(pair):
    sk, full, packed = pair
    data = bytes(packed.data)
    cases = []
    at, _ = _section(data, b"CKND")
    cases.append((at, 7))                                       # a kind past animated
    at, n = _section(data, b"CRAT")
    cases.append((at, 25))                                      # a rate past the table
    cases.append((at + 1, 0x80 | 3))                            # bit 7
    at, _ = _section(data, b"CSRN")
    cases.append((at, b"\x01\xff"))                             # min + extent past 255
    at, _ = _section(data, b"CSEG")
    cases.append((at, 1))                                       # not from sample 0
    at, n = _section(data, b"CBIT")
    cases.append((at + n - 1, 1))                               # padding
    for where, value in cases:
        bad = bytearray(data)
        value = bytes([value]) if isinstance(value, int) else value
        bad[where:where + len(value)] = value
        with pytest.raises(rt.FormatError) as e:
            rt.Clip(_reseal(bad))
        assert where - 1 <= e.value.offset <= where + 1, (where, e.value.offset)
    at, _ = _section(data, b"CRNG")
    bad = bytearray(data)
    struct.pack_into("<f", bad, at, math.nan)
    with pytest.raises(rt.FormatError) as e:
        rt.Clip(_reseal(bad))
    assert e.value.offset == at
    at, _ = _section(data, b"CLIP")
    bad = bytearray(data)
    struct.pack_into("<H", bad, at + 28, 0)                     # a full clip without SAMP
    with pytest.raises(rt.FormatError):
        rt.Clip(_reseal(bad))
    bad = bytearray(data)
    struct.pack_into("<I", bad, at + 56, 999)                   # the segment count
    with pytest.raises(rt.FormatError) as e:
        rt.Clip(_reseal(bad))
    assert e.value.offset == at + 56


# ---- real motion capture -----------------------------------------------------------------------
def _bvh():
    bvh = pytest.importorskip("runtime.importers.bvh", reason="the BVH reader (runtime.importers.bvh) is not here")
    if not MOCAP.is_dir():
        pytest.skip(f"{MOCAP} is absent")
    return bvh


def test_every_staged_mocap_clip_within_the_precision():
    bvh = _bvh()
    options = rt.CompressOptions(precision=0.01, shell_distance=3.0)     # the files are in cm
    for path in sorted(MOCAP.glob("*.bvh")):
        source = bvh.load_bvh(path).clip_source
        sk = source.skeleton
        full = rt.Clip(rt.build_clip(rt.Builder(), source))
        packed, report, _ = compressed(full, sk, options)
        check_bounds(full, packed, sk, options, report)


def test_bytes_changed_after_the_open_sample_within_the_file(pair):
    sk, _, packed = pair
    data = bytearray(bytes(packed.data))
    clip = rt.Clip(np.frombuffer(data, np.uint8))
    for tag in (b"CRAT", b"CSRN", b"CKND", b"CSEG", b"CRNG", b"CBIT"):
        at, n = _section(bytes(data), tag)
        data[at:at + n] = b"\xff" * n
    pose = rt.Pose(sk)
    for t in (0.0, 0.4, 1.6):
        clip.sample(sk, t, pose)
        clip.sample_floats(t)
        clip.sample_bones(sk, t, [1, 5], pose)
