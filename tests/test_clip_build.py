"""maniBuildClip and maniBuilder_MeasureClip: glTF interpolation on the grid, the grid itself,
untracked and additive channels, every refusal with its reason and item, and measuring."""
import math

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.clip.clip import MAX_SAMPLES, Clip, sample_count
from runtime.clip.build import ClipReport, build, check
from runtime.core.errors import BuildReason

from test_clip_fixtures import (CUBIC, LINEAR, STEP, AdditiveBasis, ChannelSource, ClipEvent,
                                ClipSource, DiscreteTrackSource, FloatTrackSource, R, S, T,
                                RootMotionSource, animated_source, grid, hermite, humanoid,
                                linear_keys, open_clip, random_quats, rich_source, same_rotation,
                                slerp, small_skeleton)


@pytest.fixture(scope="module")
def sk():
    return small_skeleton()


def locals_at(clip, skeleton, t):
    pose = rt.Pose(skeleton)
    clip.sample(skeleton, t, pose)
    return pose.locals.astype(np.float64)


# ---- interpolation -----------------------------------------------------------------------------
def test_cubic_spline_on_the_grid_is_gltf_hermite(sk):
    rng = np.random.default_rng(3)
    times = np.array([0.05, 0.31, 0.9, 1.37])          # off the grid, starting after 0
    tr = rng.normal(size=(4, 3, 3))
    rot = rng.normal(size=(4, 3, 4))
    src = ClipSource(sk, [ChannelSource(2, T, times, tr, CUBIC),
                          ChannelSource(2, R, times, rot.reshape(12, 4), CUBIC)],  # flat form
                     sample_rate=24, duration=1.5)
    clip = open_clip(src)
    for t in grid(clip):
        got = locals_at(clip, sk, t)[2]
        np.testing.assert_allclose(got[0:3], hermite(times, tr, t), atol=2e-6)
        want = hermite(times, rot, t)
        assert same_rotation(got[3:7], want / np.linalg.norm(want), 2e-6)


def test_linear_rotation_is_slerp_and_translation_lerp(sk):
    rng = np.random.default_rng(4)
    times = np.array([0.0, 0.33, 1.0])
    q = random_quats(rng, (3,))
    tr = rng.normal(size=(3, 3))
    clip = open_clip(ClipSource(sk, [ChannelSource(1, R, times, q), ChannelSource(1, T, times, tr)],
                                sample_rate=10))
    for t in grid(clip):
        got = locals_at(clip, sk, t)[1]
        k = 0 if t < 0.33 else 1
        s = (t - times[k]) / (times[k + 1] - times[k])
        assert same_rotation(got[3:7], slerp(q[k], q[k + 1], s), 2e-6)
        np.testing.assert_allclose(got[0:3], linear_keys(times, tr, t), atol=2e-6)


def test_step_holds_each_key_until_the_next(sk):
    times = np.array([0.0, 0.25, 0.5])           # 0.25 lies on the 20 Hz grid
    values = np.array([[1.0, 2, 3], [4, 5, 6], [7, 8, 9]])
    clip = open_clip(ClipSource(sk, [ChannelSource(0, T, times, values, STEP)], sample_rate=20))
    for t in grid(clip):
        k = int(np.searchsorted(times, t, side="right")) - 1
        np.testing.assert_array_equal(locals_at(clip, sk, t)[0, 0:3], values[k])


def test_rotations_stay_continuous_across_a_hemisphere_flip(sk):
    rng = np.random.default_rng(5)
    q = random_quats(rng, (6,))
    for k in range(1, 6):                         # small steps, every other key negated
        q[k] = q[k - 1] + 0.1 * rng.normal(size=4)
        q[k] /= np.linalg.norm(q[k])
    q[1::2] *= -1
    times = np.linspace(0, 1, 6)
    for mode in (LINEAR, STEP):
        clip = open_clip(ClipSource(sk, [ChannelSource(3, R, times, q, mode)], sample_rate=30))
        stored = clip._samples[:, 0, 3:7].astype(np.float64)
        assert (np.einsum("ij,ij->i", stored[1:], stored[:-1]) > 0).all()
        # and sampling between two samples never takes the long way round
        a, b = locals_at(clip, sk, grid(clip)[7])[3, 3:7], locals_at(clip, sk, grid(clip)[8])[3, 3:7]
        mid = locals_at(clip, sk, 0.5 * (grid(clip)[7] + grid(clip)[8]))[3, 3:7]
        assert abs(mid @ a) > 0.99 * min(1.0, abs(a @ b)) and abs(mid @ b) > 0.99 * abs(a @ b)


def test_keys_before_the_first_and_after_the_last_hold(sk):
    clip = open_clip(ClipSource(sk, [ChannelSource(0, T, [0.5, 1.0], [[1, 1, 1], [2, 2, 2]])],
                                sample_rate=10, duration=2.0))
    np.testing.assert_array_equal(locals_at(clip, sk, 0.0)[0, 0:3], [1, 1, 1])
    np.testing.assert_array_equal(locals_at(clip, sk, 2.0)[0, 0:3], [2, 2, 2])


# ---- the grid ----------------------------------------------------------------------------------
@pytest.mark.parametrize("duration, rate, count", [
    (1.0, 30.0, 31), (1.01, 30.0, 32), (0.0, 30.0, 1), (1 / 3, 30.0, 11), (10.0, 30.0, 301),
    (0.5, 0.5, 2), (2.0, 1.0, 3)])
def test_sample_count_and_times(sk, duration, rate, count):
    src = ClipSource(sk, [ChannelSource(0, T, [0.0], [[1, 2, 3]])], sample_rate=rate,
                     duration=duration)
    clip = capi.maniOpenClip(build(src))
    assert capi.maniClip_GetSampleCount(clip) == count
    assert capi.maniClip_GetDuration(clip) == np.float32(duration)
    assert capi.maniClip_GetSampleRate(clip) == np.float32(rate)
    g = grid(clip)
    assert g[0] == 0 and g[-1] == clip.duration
    if count > 2:
        np.testing.assert_allclose(np.diff(g)[:-1], 1 / rate)
        assert 0 < g[-1] - g[-2] <= (1 + 1e-4) / rate


def test_duration_defaults_to_the_latest_key_event_or_marker(sk):
    base = dict(channels=[ChannelSource(0, T, [0.0, 0.7], np.zeros((2, 3)))])
    assert open_clip(ClipSource(sk, **base)).duration == np.float32(0.7)
    assert open_clip(ClipSource(sk, **base, markers=[ClipEvent("m", 1.25)])).duration == 1.25
    assert open_clip(ClipSource(sk, **base, discrete_tracks=[
        DiscreteTrackSource("d", [0.0, 2.5], [1, 2])])).duration == 2.5
    assert open_clip(ClipSource(sk)).duration == 0.0


def test_same_source_same_bytes(sk):
    src = rich_source(sk, np.random.default_rng(1))
    assert build(src) == build(src)


# ---- untracked and additive channels -------------------------------------------------------------
def test_untracked_channels_take_the_rest(sk):
    rng = np.random.default_rng(6)
    clip = open_clip(animated_source(sk, rng, bones=[2, 5], paths=(R,)))
    for t in (0.0, 0.37, 1.9):
        got = locals_at(clip, sk, t)
        others = [b for b in range(sk.bone_count) if b not in (2, 5)]
        np.testing.assert_array_equal(got[others], sk.rests[others])
        np.testing.assert_array_equal(got[[2, 5]][:, 0:3], sk.rests[[2, 5]][:, 0:3])
        np.testing.assert_array_equal(got[[2, 5]][:, 7:10], sk.rests[[2, 5]][:, 7:10])


@pytest.mark.parametrize("basis", [AdditiveBasis.rest, AdditiveBasis.first_frame])
def test_additive_clips_store_differences_from_their_basis(sk, basis):
    rng = np.random.default_rng(7)
    src = animated_source(sk, rng, bones=[1, 4, 7])
    normal = open_clip(src)
    src.additive = basis
    additive = open_clip(src)
    assert capi.maniClip_GetAdditiveBasis(additive) == basis
    base = rt.Pose(sk)
    if basis == AdditiveBasis.first_frame:
        normal.sample(sk, 0.0, base)
    for t in (0.0, 0.61, 1.3, 2.0):
        diff, want, expect = rt.Pose(sk), rt.Pose(sk), rt.Pose(sk)
        additive.sample(sk, t, diff)
        assert diff.is_difference and not diff.is_model_current
        normal.sample(sk, t, want)
        rt.compute_pose_difference(sk, want, base, expect)
        np.testing.assert_allclose(diff.locals, expect.locals, atol=3e-6)
        untracked = [b for b in range(sk.bone_count) if b not in (1, 4, 7)]
        np.testing.assert_array_equal(diff.locals[untracked], np.tile(rt.IDENTITY, (len(untracked), 1)))
        # and the difference put back on its basis gives the pose again
        result = rt.Pose(sk)
        result.copy_from(base)
        rt.add_layers(result, sk, [rt.BlendLayer(diff, 1.0)])
        np.testing.assert_allclose(result.locals[:, 0:3], want.locals[:, 0:3], atol=1e-5)
        np.testing.assert_allclose(result.locals[:, 7:10], want.locals[:, 7:10], atol=1e-5)
        for b in (1, 4, 7):
            assert same_rotation(result.locals[b, 3:7], want.locals[b, 3:7], 1e-5)


# ---- refusals ----------------------------------------------------------------------------------
def refused(sk, **changes):
    src = rich_source(sk, np.random.default_rng(2))
    for name, value in changes.items():
        setattr(src, name, value)
    with pytest.raises(rt.ManiError) as e:
        build(src)
    return e.value


def channel(bone=0, path=T, times=(0.0, 1.0), values=((0, 0, 0), (1, 1, 1)), mode=LINEAR):
    return ChannelSource(bone, path, list(times), np.asarray(values, dtype=float), mode)


@pytest.mark.parametrize("changes, error, reason, item, other", [
    (dict(sample_rate=0.0), rt.InvalidError, BuildReason.Timing, 0, 0),
    (dict(sample_rate=math.nan), rt.InvalidError, BuildReason.Timing, 0, 0),
    (dict(sample_rate=1e39), rt.InvalidError, BuildReason.Timing, 0, 0),
    (dict(duration=-1.0), rt.InvalidError, BuildReason.Timing, 0, 1),
    (dict(duration=math.inf), rt.InvalidError, BuildReason.Timing, 0, 1),
    (dict(duration=10.0, sample_rate=MAX_SAMPLES / 10 + 1), rt.LimitError, BuildReason.Timing, 0, 2),
    (dict(loop=7), rt.InvalidError, BuildReason.Option, 0, 0),
    (dict(additive=3), rt.InvalidError, BuildReason.Option, 1, 0),
    (dict(channels=[channel(), channel(bone=12)]), rt.InvalidError, BuildReason.Joint, 1, 12),
    (dict(channels=[channel(bone=-1)]), rt.InvalidError, BuildReason.Joint, 0, rt.NO_BONE),
    (dict(channels=[channel(times=(), values=np.zeros((0, 3)))]), rt.InvalidError, BuildReason.Channel, 0, 0),
    (dict(channels=[channel(times=(0.0,), values=np.zeros((1, 3, 3)), mode=CUBIC)]), rt.InvalidError, BuildReason.Channel, 0, 0),
    (dict(channels=[channel(values=np.zeros((2, 4)))]), rt.InvalidError, BuildReason.Channel, 0, 1),
    (dict(channels=[channel(times=(1.0, 1.0))]), rt.InvalidError, BuildReason.Channel, 0, 2),
    (dict(channels=[channel(times=(-1.0, 1.0))]), rt.InvalidError, BuildReason.Channel, 0, 2),
    (dict(channels=[channel(times=(0.0, math.nan))]), rt.InvalidError, BuildReason.Channel, 0, 2),
    (dict(channels=[channel(path=5)]), rt.InvalidError, BuildReason.Channel, 0, 3),
    (dict(channels=[channel(mode=9)]), rt.InvalidError, BuildReason.Channel, 0, 3),
    (dict(channels=["not a channel"]), rt.InvalidError, BuildReason.Channel, 0, 3),
    (dict(channels=[channel(), channel(bone=1), channel()]), rt.InvalidError, BuildReason.Channel, 2, 4),
    (dict(channels=[channel(values=((0, 0, 0), (1, math.inf, 1)))]), rt.InvalidError, BuildReason.NotFinite, 0, 1),
    (dict(channels=[channel(values=((0, 0, 0), (1, 2.0 ** 127, 1)))]), rt.InvalidError, BuildReason.NotFinite, 0, 1),
    (dict(channels=[channel(path=R, values=((0, 0, 0, 1), (0, 0, 0, 0)))]), rt.InvalidError, BuildReason.NotFinite, 0, 1),
])
def test_refusals_with_reason_and_item(sk, changes, error, reason, item, other):
    e = refused(sk, **changes)
    assert type(e) is error
    assert (e.reason, e.item, e.other) == (reason, item, other), str(e)


def test_track_event_and_name_refusals_count_places_over_the_lists(sk):
    src = rich_source(sk, np.random.default_rng(2))
    c, f, d, ev = len(src.channels), len(src.float_tracks), len(src.discrete_tracks), len(src.events)
    cases = [
        (dict(float_tracks=src.float_tracks + [FloatTrackSource("smile", [0.0], [1.0])]),
         rt.InvalidError, BuildReason.DuplicateName, c + f, c),
        (dict(float_tracks=[FloatTrackSource("x" * 256, [0.0], [1.0])]),
         rt.LimitError, BuildReason.Name, c, 0),
        (dict(float_tracks=[FloatTrackSource("", [0.0], [1.0])]), rt.InvalidError, BuildReason.Name, c, 0),
        (dict(float_tracks=[FloatTrackSource("a", [0.0, 1.0], [1.0])]), rt.InvalidError, BuildReason.Channel, c, 1),
        (dict(discrete_tracks=[DiscreteTrackSource("d", [0.0], [1.5])]), rt.InvalidError, BuildReason.Channel, c + f, 1),
        (dict(discrete_tracks=[DiscreteTrackSource("d", [0.0], [2 ** 31])]), rt.InvalidError, BuildReason.Channel, c + f, 1),
        (dict(discrete_tracks=[DiscreteTrackSource("d", [], [])]), rt.InvalidError, BuildReason.Channel, c + f, 0),
        (dict(discrete_tracks=[DiscreteTrackSource("d", [0.0], [1]), DiscreteTrackSource("d", [0.0], [2])]),
         rt.InvalidError, BuildReason.DuplicateName, c + f + 1, c + f),
        (dict(events=[ClipEvent("e", math.nan)]), rt.InvalidError, BuildReason.Event, c + f + d, 0),
        (dict(events=[ClipEvent("e", 0.5), ClipEvent("e", 9.0)], duration=2.0), rt.InvalidError, BuildReason.Event, c + f + d + 1, 0),
        (dict(markers=[ClipEvent(None, 0.5)]), rt.InvalidError, BuildReason.Name, c + f + d + ev, 0),
        (dict(markers=["neither"]), rt.InvalidError, BuildReason.Event, c + f + d + ev, 0),
        (dict(root_motion=RootMotionSource(5)), rt.InvalidError, BuildReason.RootMotion, 5, 0),   # no channel
        (dict(root_motion=RootMotionSource(99)), rt.InvalidError, BuildReason.RootMotion, 99, 0),
        (dict(root_motion=RootMotionSource(0, 8)), rt.InvalidError, BuildReason.RootMotion, 0, 1),
        (dict(root_motion=RootMotionSource(0, 1, 5)), rt.InvalidError, BuildReason.RootMotion, 0, 2),
    ]
    for changes, error, reason, item, other in cases:
        e = refused(sk, **changes)
        assert type(e) is error and (e.reason, e.item, e.other) == (reason, item, other), (changes, str(e))
    where = src.locate(c + f + 1)
    assert where == ("discrete track", 1)


def test_basis_refusal_names_the_bone(sk):
    src = ClipSource(sk, [ChannelSource(4, S, [0.0, 1.0], [[0, 1, 1], [1, 1, 1]])],
                     additive=AdditiveBasis.first_frame)
    with pytest.raises(rt.InvalidError) as e:
        build(src)
    assert (e.value.reason, e.value.item) == (BuildReason.Basis, 4)


def test_builder_calls_misuse_and_keep(sk):
    builder = capi.maniCreateBuilder(capi.maniDefaultBuilderDef())
    for bad in (None, "source", ClipSource(None)):
        with pytest.raises(rt.InvalidError):
            capi.maniBuildClip(builder, bad)
    assert capi.maniBuilder_GetMisuse(builder) == 3
    with pytest.raises(rt.LimitError):
        capi.maniBuildClip(builder, ClipSource(sk, sample_rate=2 * MAX_SAMPLES, duration=1.0))
    with pytest.raises(rt.InvalidError):
        capi.maniBuildClip(builder, ClipSource(sk, sample_rate=-1))
    assert capi.maniBuilder_GetMisuse(builder) == 3          # refused sources are no misuse
    with pytest.raises(rt.InvalidError):
        capi.maniBuildClip(None, ClipSource(sk))
    src = rich_source(sk, np.random.default_rng(8))
    capi.maniBuildClip(builder, src)
    data = capi.maniBuilder_CopyBuilt(builder)
    assert data == build(src)
    clip = capi.maniOpenClip(data)
    assert capi.maniClip_GetSkeletonIdentity(clip) == sk.identity
    assert capi.maniClip_GetIdentity(clip) == rt.hash64(2 | 1 << 16, data[32:])   # kind 2, version 1
    assert not capi.maniClip_IsCompressed(clip)
    assert capi.maniClip_GetLoopPolicy(clip) == capi.maniClip_GetLoopPolicy(clip).repeat


# ---- measuring ------------------------------------------------------------------------------------
def test_measure_is_zero_for_motion_the_grid_holds_exactly(sk):
    rng = np.random.default_rng(9)
    times = np.arange(0, 31) / 30.0                 # keys on the 30 Hz grid: lerp is exact
    src = ClipSource(sk, [ChannelSource(b, T, times, rng.normal(size=(31, 3))) for b in range(4)]
                     + [ChannelSource(5, S, times, rng.uniform(0.5, 2, (31, 3)))]
                     + [ChannelSource(6, R, [0.0, 1.0], [[0, 0, 0, 1], [0, 0, 0, 1]])],
                     [FloatTrackSource("f", times, rng.normal(size=31))], sample_rate=30)
    report = capi.maniBuilder_MeasureClip(rt.Builder(), src, open_clip(src))
    assert isinstance(report, ClipReport) and report.times == 61
    assert report.translation_max < 2e-6 and report.scale_max < 2e-6
    assert report.rotation_max < 1e-6 and report.float_max < 2e-6
    assert report.translation_bone in range(4) and report.float_track == 0


def test_measure_at_samples_is_storage_rounding_and_between_is_the_midpoint_error(sk):
    rng = np.random.default_rng(10)
    times = np.array([0.0, 0.52, 1.0])
    keys = rng.normal(size=(3, 3, 3))
    src = ClipSource(sk, [ChannelSource(2, T, times, keys, CUBIC)], sample_rate=10)
    clip = open_clip(src)
    g = grid(clip)
    # the error a lerp between exact samples makes at each midpoint, worked out here
    mid_err = [np.linalg.norm(0.5 * (hermite(times, keys, a) + hermite(times, keys, b))
                              - hermite(times, keys, 0.5 * (a + b))) for a, b in zip(g[:-1], g[1:])]
    report = capi.maniBuilder_MeasureClip(rt.Builder(), src, clip)
    assert report.translation_max == pytest.approx(max(mid_err), abs=3e-6)
    k = int(np.argmax(mid_err))
    assert report.translation_time == pytest.approx(0.5 * (g[k] + g[k + 1]))
    assert report.translation_bone == 2
    # at the samples alone the clip is its source to storage rounding
    at_samples = max(np.linalg.norm(locals_at(clip, sk, t)[2, 0:3] - hermite(times, keys, t))
                     for t in g)
    assert at_samples < 2e-6
    assert report.rotation_max == 0 and report.rotation_bone == rt.NO_BONE


def test_measure_rotation_by_angle_and_step_floats(sk):
    q = np.array([[0, 0, 0, 1.0], [0, 0, math.sin(1.2), math.cos(1.2)]])   # 2.4 rad in 1 s
    src = ClipSource(sk, [ChannelSource(1, R, [0.0, 1.0], q)],
                     [FloatTrackSource("s", [0.0, 0.33], [0.0, 1.0], STEP)], sample_rate=4)
    report = capi.maniBuilder_MeasureClip(rt.Builder(), src, open_clip(src))
    # nlerp between samples 0.6 rad apart against slerp: the angle error at the midpoint is 0
    # (symmetric); the largest lies elsewhere and is small but positive
    assert 0 < report.rotation_max < 0.01 and report.rotation_bone == 1
    # the step key at 0.33 lies between samples 0.25 and 0.5: the clip holds 0 until 0.5
    assert report.float_max == 1.0 and 0.33 <= report.float_time < 0.5


def test_measure_with_root_motion_restores_it(sk):
    rng = np.random.default_rng(11)
    src = rich_source(sk, rng)
    src.channels = src.channels[:2]             # bone 0 alone, whose motion is taken out
    src.channels[0].values *= 5
    clip = open_clip(src)
    stored = np.abs(clip._samples[:, 0, [0, 2]]).max()
    assert stored < 1e-6                        # x and z are out of the bone ...
    report = capi.maniBuilder_MeasureClip(rt.Builder(), src, clip)
    assert report.translation_bone == 0 and report.translation_max < 0.1   # ... and measured back
    grid_only = ClipSource(sk, [ChannelSource(0, T, [0.0, 1.0], [[0, 0, 0], [3, 1, 2]])],
                           sample_rate=10, root_motion=RootMotionSource(0, 7, 0))
    assert capi.maniBuilder_MeasureClip(rt.Builder(), grid_only, open_clip(grid_only)).translation_max < 1e-6


def test_measure_refusals(sk):
    src = rich_source(sk, np.random.default_rng(12))
    clip = open_clip(src)
    builder = rt.Builder()
    for args in ((None, clip), (src, None)):
        with pytest.raises(rt.InvalidError):
            capi.maniBuilder_MeasureClip(builder, *args)
    with pytest.raises(rt.InvalidError):
        capi.maniBuilder_MeasureClip(None, src, clip)
    bad = rich_source(sk, np.random.default_rng(12), sample_rate=0)
    with pytest.raises(rt.InvalidError) as e:
        capi.maniBuilder_MeasureClip(builder, bad, clip)
    assert e.value.reason == BuildReason.Timing
    big = rich_source(sk, np.random.default_rng(12), sample_rate=2 * MAX_SAMPLES)
    with pytest.raises(rt.InvalidError):               # a limit the build hits refuses here
        capi.maniBuilder_MeasureClip(builder, big, clip)
    other = rich_source(humanoid(12, seed=5), np.random.default_rng(12))
    with pytest.raises(rt.InvalidError):
        capi.maniBuilder_MeasureClip(builder, other, clip)
    extra = rich_source(sk, np.random.default_rng(12))
    extra.float_tracks.append(FloatTrackSource("absent", [0.0], [1.0]))
    with pytest.raises(rt.InvalidError):
        capi.maniBuilder_MeasureClip(builder, extra, clip)
    assert isinstance(capi.maniBuilder_MeasureClip(builder, src, clip), ClipReport)


def test_check_accepts_what_build_builds(sk):
    src = rich_source(sk, np.random.default_rng(13))
    ch = check(src)
    assert ch.count == sample_count(ch.duration, ch.rate) == Clip(build(src)).sample_count


def test_a_spline_overshooting_binary32_is_refused_at_its_sample(sk):
    keys = np.zeros((2, 3, 3))
    keys[0, 2] = 8e37                                   # an out-tangent just inside the bound
    src = ClipSource(sk, [ChannelSource(0, T, [0.0, 100.0], keys, CUBIC)], sample_rate=1)
    with pytest.raises(rt.InvalidError) as e:
        build(src)
    s = np.arange(101) / 100.0
    first = int(np.flatnonzero(100 * (s ** 3 - 2 * s ** 2 + s) * 8e37 >= 2.0 ** 126)[0])
    assert (e.value.reason, e.value.item, e.value.other) == (BuildReason.NotFinite, 0, first)


@pytest.mark.parametrize("basis", [AdditiveBasis.rest, AdditiveBasis.first_frame])
def test_measure_an_additive_clip_against_its_differences(sk, basis):
    rng = np.random.default_rng(14)
    times = np.arange(0, 11) / 10.0                 # on the 10 Hz grid
    src = ClipSource(sk, [ChannelSource(2, T, times, rng.normal(size=(11, 3))),
                          ChannelSource(3, S, times, rng.uniform(0.5, 2, (11, 3)))],
                     sample_rate=10, additive=basis)
    report = capi.maniBuilder_MeasureClip(rt.Builder(), src, open_clip(src))
    assert report.translation_max < 2e-6 and report.scale_max < 2e-6
    assert report.translation_bone == 2 and report.scale_bone == 3


def test_capacity_when_the_allocator_fails(sk):
    from runtime.core.builder import BUILDER_BLOCK_BYTES
    definition = capi.maniDefaultBuilderDef()
    definition.alloc = lambda user, size: bytearray(size) if size <= BUILDER_BLOCK_BYTES else None
    definition.free = lambda user, block: None
    builder = capi.maniCreateBuilder(definition)
    with pytest.raises(rt.CapacityError):
        capi.maniBuildClip(builder, rich_source(sk, np.random.default_rng(15)))
    assert capi.maniBuilder_GetMisuse(builder) == 0
