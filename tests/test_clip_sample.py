"""clip.h's opening, queries, sampling (whole poses, some bones, batches) and cursors."""
import math
import struct
import warnings

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core import container
from runtime.clip.clip import CURSOR_HEADER, Clip, sample_batch
from runtime.clip.cursor import ClipCursor

from test_clip_fixtures import (R, AdditiveBasis, animated_source, build, grid, humanoid, open_clip,
                                rich_source, small_skeleton)


@pytest.fixture(scope="module")
def sk():
    return small_skeleton()


@pytest.fixture(scope="module")
def clip(sk):
    return open_clip(animated_source(sk, np.random.default_rng(1), bones=range(0, 12, 2)))


def sampled(clip, sk, t):
    pose = rt.Pose(sk)
    capi.maniClip_Sample(clip, sk, t, pose)
    return pose.locals.copy()


# ---- sampling -----------------------------------------------------------------------------------
def test_on_the_grid_a_sample_is_what_the_file_holds(sk, clip):
    for k, t in enumerate(grid(clip)):
        got = sampled(clip, sk, t)[clip._bones]
        np.testing.assert_array_equal(got[:, 0:3], clip._samples[k, :, 0:3])
        np.testing.assert_array_equal(got[:, 7:10], clip._samples[k, :, 7:10])
        np.testing.assert_allclose(got[:, 3:7], clip._samples[k, :, 3:7], atol=2e-7)


def test_between_samples_lerp_and_nlerp(sk, clip):
    rng = np.random.default_rng(2)
    g = grid(clip)
    for _ in range(20):
        k = int(rng.integers(len(g) - 1))
        f = rng.uniform()
        got = sampled(clip, sk, g[k] + f * (g[k + 1] - g[k]))[clip._bones].astype(np.float64)
        a, b = clip._samples[k].astype(np.float64), clip._samples[k + 1].astype(np.float64)
        want = a + f * (b - a)
        want[:, 3:7] /= np.linalg.norm(want[:, 3:7], axis=1, keepdims=True)
        np.testing.assert_allclose(got, want, atol=2e-6)


def test_time_is_clamped_and_nan_is_zero(sk, clip):
    first, last = sampled(clip, sk, 0.0), sampled(clip, sk, clip.duration)
    for t, want in ((-3.0, first), (math.nan, first), (-math.inf, first),
                    (clip.duration + 5, last), (math.inf, last)):
        np.testing.assert_array_equal(sampled(clip, sk, t), want)


def test_sampling_is_independent_of_time_order(sk, clip):
    rng = np.random.default_rng(3)
    times = np.concatenate([grid(clip), rng.uniform(-0.5, clip.duration + 0.5, 200)])
    sorted_poses = {t: sampled(clip, sk, t) for t in np.sort(times)}
    shuffled = rng.permutation(times)
    cursor = capi.maniInitClipCursor(None, capi.maniClip_GetCursorSize(clip))
    pose = rt.Pose(sk)
    for t in shuffled:
        np.testing.assert_array_equal(sampled(clip, sk, t), sorted_poses[t])
        capi.maniClipCursor_Sample(cursor, clip, sk, t, pose)
        np.testing.assert_array_equal(pose.locals, sorted_poses[t])


def test_pose_kind_and_stale_model(sk, clip):
    pose = rt.Pose(sk)
    assert pose.is_model_current
    capi.maniClip_Sample(clip, sk, 0.5, pose)
    assert not pose.is_model_current and not pose.is_difference
    src = animated_source(sk, np.random.default_rng(4), bones=[1], additive=AdditiveBasis.rest)
    capi.maniClip_Sample(open_clip(src), sk, 0.5, pose)
    assert pose.is_difference
    capi.maniClip_Sample(clip, sk, 0.5, pose)          # a whole clip makes it a pose again
    assert not pose.is_difference


def test_sample_refusals(sk, clip):
    pose = rt.Pose(sk)
    other = humanoid(12, seed=9)
    for args in ((None, sk, 0.1, pose), (object(), sk, 0.1, pose), (clip, None, 0.1, pose),
                 (clip, other, 0.1, pose), (clip, sk, 0.1, None), (clip, sk, 0.1, rt.Pose(other))):
        with pytest.raises(rt.InvalidError):
            capi.maniClip_Sample(*args)
    fewer = humanoid(6)
    with pytest.raises(rt.InvalidError):
        capi.maniClip_Sample(clip, fewer, 0.1, rt.Pose(fewer))


def test_sample_bones_touches_only_those_bones(sk, clip):
    rng = np.random.default_rng(5)
    pose = rt.Pose(sk)
    pose.write_locals(0, rng.normal(size=(12, 10)).astype(np.float32))
    before = pose.locals.copy()
    bones = [1, 2, 7, 10]                          # tracked and untracked ones
    capi.maniClip_SampleBones(clip, sk, 0.77, bones, pose)
    whole = sampled(clip, sk, 0.77)
    np.testing.assert_allclose(pose.locals[bones], whole[bones], atol=2e-7)
    rest = [b for b in range(12) if b not in bones]
    np.testing.assert_array_equal(pose.locals[rest], before[rest])
    assert not pose.is_model_current
    capi.maniClip_SampleBones(clip, sk, 0.77, [], pose)


def test_sample_bones_refusals_leave_the_pose(sk, clip):
    pose = rt.Pose(sk)
    before = pose.buffer.copy()
    for bones in ([2, 1], [3, 3], [12], [-1], None, [[0, "a"]]):
        with pytest.raises(rt.InvalidError):
            capi.maniClip_SampleBones(clip, sk, 0.3, bones, pose)
    diff = rt.Pose(sk)
    rt.compute_pose_difference(sk, pose, pose, diff)
    d_before = diff.buffer.copy()
    with pytest.raises(rt.InvalidError):             # a pose clip into a difference
        capi.maniClip_SampleBones(clip, sk, 0.3, [0], diff)
    additive = open_clip(animated_source(sk, np.random.default_rng(6), bones=[0],
                                         additive=AdditiveBasis.rest))
    with pytest.raises(rt.InvalidError):             # and a difference clip into a pose
        capi.maniClip_SampleBones(additive, sk, 0.3, [0], pose)
    capi.maniClip_SampleBones(additive, sk, 0.3, [0], diff)
    with pytest.raises(rt.InvalidError):
        capi.maniClip_SampleBones(None, sk, 0.3, [0], pose)
    np.testing.assert_array_equal(pose.buffer, before)
    assert not np.array_equal(diff.buffer, d_before)


def test_a_clip_of_every_bone_and_of_none(sk):
    rng = np.random.default_rng(7)
    full = open_clip(animated_source(sk, rng))
    assert full.tracked_bone_count == sk.bone_count
    t = 0.4
    g = grid(full)
    k = int(np.searchsorted(g, t)) - 1
    f = (t - g[k]) / (g[k + 1] - g[k])
    got = sampled(full, sk, t).astype(np.float64)
    want = full._samples[k] + f * (full._samples[k + 1].astype(np.float64) - full._samples[k])
    np.testing.assert_allclose(got[:, 0:3], want[:, 0:3], atol=2e-6)
    empty = open_clip(animated_source(sk, rng, bones=[]))
    np.testing.assert_array_equal(sampled(empty, sk, 0.3), sk.rests)


# ---- batches ----------------------------------------------------------------------------------------
def test_batched_sampling_matches_one_pose_at_a_time(sk, clip):
    rng = np.random.default_rng(8)
    times = np.concatenate([rng.uniform(-0.2, clip.duration + 0.2, 60), grid(clip)[:5], [math.nan]])
    batch = rt.PoseBatch(sk, times.size)
    clip.sample_batch(sk, times, batch)
    for k, t in enumerate(times):
        np.testing.assert_allclose(batch.locals[k], sampled(clip, sk, t), atol=3e-7)
    assert not batch.poses[0].is_model_current and not batch.poses[0].is_difference
    np.testing.assert_array_equal(batch.locals[60:65, clip._bones, 0:3], clip._samples[:5, :, 0:3])


def test_batched_sampling_of_several_clips_and_rows(sk, clip):
    rng = np.random.default_rng(9)
    other = open_clip(animated_source(sk, rng))
    additive = open_clip(animated_source(sk, rng, bones=[3], additive=AdditiveBasis.rest))
    times = rng.uniform(0, 2, 30)
    index = rng.integers(0, 3, 30)
    batch = rt.PoseBatch(sk, 30)
    sample_batch(sk, [clip, other, additive], times, batch, index)
    for k in range(30):
        c = (clip, other, additive)[index[k]]
        np.testing.assert_allclose(batch.locals[k], sampled(c, sk, times[k]), atol=3e-7)
        assert batch.poses[k].is_difference == (index[k] == 2)
    before = batch.locals.copy()
    clip.sample_batch(sk, [0.1, 0.2], batch, rows=[4, 9])
    np.testing.assert_allclose(batch.locals[[4, 9]], [sampled(clip, sk, 0.1), sampled(clip, sk, 0.2)],
                               atol=3e-7)
    keep = [k for k in range(30) if k not in (4, 9)]
    np.testing.assert_array_equal(batch.locals[keep], before[keep])


def test_batched_refusals(sk, clip):
    batch = rt.PoseBatch(sk, 4)
    with pytest.raises(rt.InvalidError):
        clip.sample_batch(sk, [0.1] * 3, batch)
    with pytest.raises(rt.InvalidError):
        clip.sample_batch(sk, [0.1], batch, rows=[4])
    with pytest.raises(rt.InvalidError):
        clip.sample_batch(humanoid(12, seed=3), [0.1] * 4, batch)
    with pytest.raises(rt.InvalidError):
        sample_batch(sk, [clip], [0.1] * 4, batch, [0, 0, 1, 0])
    with pytest.raises(rt.InvalidError):
        sample_batch(sk, [clip, None], [0.1] * 4, batch, [0, 0, 1, 0])


# ---- cursors ------------------------------------------------------------------------------------
def test_cursor_sizes_and_init(sk, clip):
    size = capi.maniClip_GetCursorSize(clip)
    assert size == capi.maniClip_GetCursorCompactSize(clip)      # the scalar backend
    assert size == CURSOR_HEADER + 8 * 10 * clip.tracked_bone_count
    assert capi.maniClip_GetCursorSize(None) == capi.maniClip_GetCursorCompactSize(object()) == 0
    with pytest.raises(rt.InvalidError):
        capi.maniInitClipCursor(None)
    with pytest.raises(rt.InvalidError):
        capi.maniInitClipCursor(bytes(256))                   # read-only
    with pytest.raises(rt.InvalidError):
        capi.maniInitClipCursor(np.zeros(300, np.uint8)[1:])   # misaligned
    with pytest.raises(rt.CapacityError):
        capi.maniInitClipCursor(np.zeros(CURSOR_HEADER - 8, np.uint8))
    with pytest.raises(rt.CapacityError):
        capi.maniInitClipCursor(np.zeros(256, np.uint8), CURSOR_HEADER - 1)
    with pytest.raises(rt.InvalidError):
        capi.maniInitClipCursor(np.zeros(256, np.uint8), 257)
    cursor = capi.maniInitClipCursor(bytearray(size))
    pose = rt.Pose(sk)
    capi.maniClipCursor_Sample(cursor, clip, sk, 0.25, pose)
    np.testing.assert_array_equal(pose.locals, sampled(clip, sk, 0.25))


def test_cursor_too_small_leaves_cursor_and_pose(sk, clip):
    big = open_clip(animated_source(sk, np.random.default_rng(10)))
    cursor = ClipCursor.for_clip(clip)
    pose = rt.Pose(sk)
    capi.maniClipCursor_Sample(cursor, clip, sk, 0.5, pose)
    before_cursor, before_pose = cursor.buffer.copy(), pose.buffer.copy()
    with pytest.raises(rt.CapacityError) as e:
        capi.maniClipCursor_Sample(cursor, big, sk, 0.5, pose)
    assert e.value.size == big.cursor_size
    np.testing.assert_array_equal(cursor.buffer, before_cursor)
    np.testing.assert_array_equal(pose.buffer, before_pose)
    with pytest.raises(rt.InvalidError):
        capi.maniClipCursor_Sample(None, clip, sk, 0.5, pose)
    with pytest.raises(rt.InvalidError):
        capi.maniClipCursor_Sample(cursor, None, sk, 0.5, pose)
    # a cursor made for the big clip plays the small one too
    roomy = ClipCursor.for_clip(big)
    capi.maniClipCursor_Sample(roomy, clip, sk, 0.5, pose)
    np.testing.assert_array_equal(pose.locals, sampled(clip, sk, 0.5))


def test_cursor_rebinds_on_another_identity_or_view(sk, clip):
    data = build(animated_source(sk, np.random.default_rng(1), bones=range(0, 12, 2)))
    twin = Clip(data)                                  # same identity, another view
    assert twin.identity == clip.identity
    other = open_clip(animated_source(sk, np.random.default_rng(11), bones=range(0, 12, 2)))
    cursor = ClipCursor.for_clip(clip)
    pose = rt.Pose(sk)
    for c in (clip, other, twin, clip):
        capi.maniClipCursor_Sample(cursor, c, sk, 0.3, pose)
        np.testing.assert_array_equal(pose.locals, sampled(c, sk, 0.3))
        assert int(cursor.buffer[24:32].view("<u8")[0]) == id(c)
    # a byte copy of a cursor is a cursor, holding what it held
    copy = ClipCursor.attach(bytearray(cursor.buffer.tobytes()))
    capi.maniClipCursor_Sample(copy, clip, sk, 0.31, pose)
    np.testing.assert_array_equal(pose.locals, sampled(clip, sk, 0.31))
    with pytest.raises(rt.InvalidError):
        ClipCursor.attach(bytearray(128))


# ---- opening and queries --------------------------------------------------------------------------
def test_queries_and_views_no_open_wrote(sk):
    src = rich_source(sk, np.random.default_rng(12))
    clip = capi.maniOpenClip(build(src))
    assert capi.maniClip_GetFloatTrackCount(clip) == 3
    assert capi.maniClip_GetDiscreteTrackCount(clip) == 2
    assert capi.maniClip_GetEventCount(clip) == 4 and capi.maniClip_GetMarkerCount(clip) == 2
    for bad in (None, object(), Clip.__new__(Clip)):
        assert not capi.maniClip_IsCompressed(bad)
        assert capi.maniClip_GetDuration(bad) == capi.maniClip_GetSampleRate(bad) == 0
        assert capi.maniClip_GetSampleCount(bad) == 0
        assert capi.maniClip_GetLoopPolicy(bad) == 0 and capi.maniClip_GetAdditiveBasis(bad) == 0
        assert capi.maniClip_GetIdentity(bad) == capi.maniClip_GetSkeletonIdentity(bad) == 0
        assert capi.maniClip_GetFloatTrackCount(bad) == capi.maniClip_GetDiscreteTrackCount(bad) == 0
        assert capi.maniClip_GetEventCount(bad) == capi.maniClip_GetMarkerCount(bad) == 0
        assert capi.maniClip_GetFloatTrackName(bad, 0) is None
        assert capi.maniClip_FindFloatTrack(bad, "smile") == rt.NO_TRACK


def test_open_refusals(sk):
    data = build(rich_source(sk, np.random.default_rng(13)))
    with pytest.raises(rt.InvalidError):
        capi.maniOpenClip(None)
    with pytest.raises(rt.InvalidError):
        capi.maniOpenClip(np.frombuffer(b"\0" + data + b"\0" * 7, np.uint8)[1:1 + len(data)])
    newer = bytearray(data)
    newer[6:8] = struct.pack("<H", 2)                 # another format version
    with pytest.raises(rt.VersionError):
        capi.maniOpenClip(bytes(newer))
    later = bytearray(data)
    struct.pack_into("<H", later, 32 + 4, 1)          # the first section from a later minor
    with pytest.raises(rt.VersionError):
        capi.maniOpenClip(bytes(later))
    skeleton_file = bytes(sk.data)
    with pytest.raises(rt.FormatError) as e:
        capi.maniOpenClip(skeleton_file)
    assert e.value.offset == 4                        # the kind


def write(data: bytes, tag: bytes, byte: int, raw: bytes) -> tuple[bytearray, int]:
    """The file with `raw` written at a byte of a section, and that byte's file offset."""
    out = bytearray(data)
    count = struct.unpack_from("<H", data, 10)[0]
    for i in range(count):
        t, _, _, off, size = container.ENTRY.unpack_from(data, 32 + 24 * i)
        if t == tag:
            out[off + byte:off + byte + len(raw)] = raw
            return out, off + byte
    raise KeyError(tag)


@pytest.mark.parametrize("tag, byte, raw", [
    (b"SAMP", 4 * 13, struct.pack("<f", math.nan)),          # a translation not finite
    (b"SAMP", 4 * 3, struct.pack("<f", 0.3)),                # a rotation not unit (its x)
    (b"SAMP", 4 * 0, struct.pack("<f", 2.0 ** 127)),         # past MAX_MAGNITUDE
    (b"FSMP", 4, struct.pack("<f", math.inf)),
    (b"FMOD", 0, struct.pack("<I", 2)),
    (b"KTIM", 4, struct.pack("<f", 0.0)),                    # key times not increasing
    (b"KTRK", 0, struct.pack("<I", 1)),
    (b"ETIM", 0, struct.pack("<f", 99.0)),                   # past the duration
    (b"EIDX", 4, struct.pack("<I", 7)),
    (b"BONE", 4, struct.pack("<I", 0)),                      # no parts
    (b"BONE", 8, struct.pack("<I", 0)),                      # bones not increasing
    (b"ROOT", 8, struct.pack("<I", 5)),
    (b"RMOV", 12, struct.pack("<f", 3.0)),
    (b"CLIP", 24, struct.pack("<H", 2)),                     # loop policy
    (b"CLIP", 28, struct.pack("<H", 1)),                     # an encoding its sections are not
    (b"CLIP", 12, struct.pack("<f", 0.9)),                   # duration and count disagree
])
def test_open_reports_the_first_wrong_byte(sk, tag, byte, raw):
    data = build(rich_source(sk, np.random.default_rng(14)))
    bad, at = write(data, tag, byte, raw)
    with pytest.raises(rt.FormatError) as e:
        capi.maniOpenClip(bytes(bad))
    assert at <= e.value.offset < at + len(raw), str(e.value)


def test_a_part_no_channel_animates_must_not_change(sk):
    data = build(animated_source(sk, np.random.default_rng(15), bones=[1], paths=(R,)))
    bad, at = write(data, b"SAMP", 40 + 0, struct.pack("<f", 0.5))   # sample 1's translation
    with pytest.raises(rt.FormatError) as e:
        capi.maniOpenClip(bytes(bad))
    assert e.value.offset == at


def test_bytes_changed_after_the_open_sample_to_some_pose_without_warnings(sk):
    data = bytearray(build(rich_source(sk, np.random.default_rng(16))))
    buf = np.frombuffer(data, np.uint8)
    clip = capi.maniOpenClip(buf)
    pose = rt.Pose(sk)
    cursor = ClipCursor.for_clip(clip)
    rng = np.random.default_rng(17)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for trial in range(40):
            at = int(rng.integers(32, len(data) - 4))
            data[at:at + 4] = struct.pack("<f", [math.nan, math.inf, -math.inf, 3e38, 0.0][trial % 5])
            for t in (0.0, 0.33, 1.2, math.nan):
                capi.maniClip_Sample(clip, sk, t, pose)
                capi.maniClipCursor_Sample(cursor, clip, sk, t, pose)
                capi.maniClip_SampleFloats(clip, t)
                capi.maniClip_GetDiscreteValue(clip, 0, t)
                capi.maniClip_GetEventRange(clip, 0, t)
                capi.maniClip_GetEvent(clip, 1)
                if not math.isnan(t):
                    capi.maniClip_GetRootMotion(clip, t, 0.5)
                capi.maniClip_RestoreRootMotion(clip, sk, t, pose)
            clip.sample_batch(sk, [0.1, 0.7], rt.PoseBatch(sk, 2))
