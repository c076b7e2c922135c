"""maniBuildMotionDatabase and maniOpenMotionDatabase: a frame's stored features are the
features recomputed from its clip at its time (a scalar reference: the clip sampled, its root
motion restored, the pose composed, then carried into the root's space at the frame), a
mirrored entry's are the mirrored clip's, the normalization is Holden's, and the open
refuses a file whose tree or records are not what the build writes."""
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.clip.rootmotion import move_at
from runtime.mapping import MirrorClipSource
from runtime.matching import MatchChannel, MatchChannelKind, MatchEntry, MatchEntryFlag, MotionDatabaseSource
from runtime.matching.database_build import CHANNEL, ENTRY, HEADER, NODE

from hostile_world import World
from match_fixtures import staged

WORLD = World()
K = MatchChannelKind


def _rotate(q, v):
    q = np.asarray(q, np.float64)
    u, w = q[:3], q[3]
    c = 2 * np.cross(u, v)
    return v + w * c + np.cross(u, c)


def _into_root(root, p):
    """A model-space point in the frame of the move `root`."""
    inv = root[3:7] * [-1, -1, -1, 1]
    return _rotate(inv, np.asarray(p, np.float64) - root[0:3])


def reference_features(db, sk, clip, entry, t):
    """A frame's raw features, one value at a time, for a clamped entry."""
    e = capi.maniMotionDatabase_GetEntry(db, entry)
    root = move_at(clip, t) if clip.has_root_motion else np.array([0, 0, 0, 0, 0, 0, 1.0])
    pose = rt.Pose(sk)

    def world(s, bone):
        capi.maniClip_Sample(clip, sk, s, pose)
        capi.maniClip_RestoreRootMotion(clip, sk, s, pose)
        capi.maniPose_ComputeModel(pose, sk)
        return capi.maniPose_GetModel(pose, bone)[:, 3]

    plane = [a for a in range(3) if a != db.up_axis]
    out = []
    for c in range(db.channel_count):
        ch = capi.maniMotionDatabase_GetChannel(db, c)
        for o in ch.times.astype(np.float64):
            s = min(max(t + o, e.start), e.end)
            if ch.kind == K.bone_position:
                out += list(_into_root(root, world(s, ch.bone)))
            elif ch.kind == K.bone_velocity:
                a = min(max(s - 1 / db.rate, e.start), e.end)
                b = min(max(s + 1 / db.rate, e.start), e.end)
                pa, pb = _into_root(root, world(a, ch.bone)), _into_root(root, world(b, ch.bone))
                out += list((pb - pa) / (b - a) if b > a else np.zeros(3))
            elif ch.kind in (K.trajectory_position, K.trajectory_facing):
                rel = capi.maniClip_GetRootMotion(clip, t, s - t).astype(np.float64)
                if ch.kind == K.trajectory_position:
                    out += list(rel[plane])
                else:
                    axis = np.zeros(3)
                    axis[db.forward_axis] = 1
                    out += list(_rotate(rel[3:7], axis)[plane])
            else:
                track = capi.maniClip_FindFloatTrack(clip, ch.track)
                out.append(float(capi.maniClip_SampleFloats(clip, s)[track]))
    return np.array(out)


def _normalized(db, raw):
    return (raw.astype(np.float32) - db.offsets) / db.scales


def _mirrored_clip(m, sk, clip):
    b = rt.Builder()
    capi.maniBuildMirroredClip(b, MirrorClipSource(m, sk, clip))
    return rt.Clip(capi.maniBuilder_CopyBuilt(b))


def _check_frames(db, sk, clips, frames, mirror_map=None, tolerance=2e-3):
    mirrored = {}
    worst = 0.0
    for f in frames:
        entry, t = capi.maniMotionDatabase_GetFrame(db, f)
        e = capi.maniMotionDatabase_GetEntry(db, entry)
        clip = clips[e.clip]
        if e.flags & MatchEntryFlag.mirrored:
            clip = mirrored.setdefault(e.clip, _mirrored_clip(mirror_map, sk, clip))
        want = _normalized(db, reference_features(db, sk, clip, entry, t))
        got = db.frame_features(f)
        worst = max(worst, float(np.abs(got - want).max()))
    assert worst <= tolerance, worst
    return worst


def test_world_frames_are_their_clips_features_mirrored_ones_the_mirrored_clips():
    db = WORLD.database
    sk = WORLD.skeleton
    _check_frames(db, sk, [WORLD.match_clip], range(db.frame_count), WORLD.mirror_map, 1e-4)
    assert capi.maniMotionDatabase_GetMirrorMapIdentity(db) == WORLD.mirror_map.identity
    assert capi.maniMotionDatabase_GetSkeletonIdentity(db) == sk.identity
    assert capi.maniMotionDatabase_GetClipIdentity(db, 0) == WORLD.match_clip.identity
    assert capi.maniMotionDatabase_GetClipIdentity(db, 1) == 0
    assert capi.maniMotionDatabase_GetChannelName(db, 4) == "smile"
    assert capi.maniMotionDatabase_GetChannelName(db, 0) is None


def test_mirrored_features_differ_from_the_originals():
    db = WORLD.database
    first, count = db.entry_frames(1)
    assert capi.maniMotionDatabase_GetEntry(db, 1).flags & MatchEntryFlag.mirrored
    assert not np.allclose(db.frame_features(5), db.frame_features(first + 5))


def test_staged_frames_are_their_clips_features():
    s = staged()
    db = s.database
    rng = np.random.default_rng(0)
    ends = [f for e in range(db.entry_count) for f in (db.entry_frames(e)[0],
                                                       sum(db.entry_frames(e)) - 1)]
    frames = sorted(set(rng.integers(db.frame_count, size=150).tolist() + ends[:40]))
    _check_frames(db, s.skeleton, s.clips, frames, s.mirror_map)


def test_staged_mirrored_walks_mirror_the_feet():
    """The staged map mirrors across x: a mirrored entry's left foot is its original's right
    foot reflected, to within the capture's asymmetry."""
    s = staged()
    db = s.database
    first0, n = db.entry_frames(0)
    first1, _ = db.entry_frames(1)
    assert capi.maniMotionDatabase_GetEntry(db, 1).flags & MatchEntryFlag.mirrored
    raw = lambda f: db.frame_features(f) * db.scales + db.offsets     # noqa: E731
    for k in range(0, n, 17):
        a, b = raw(first0 + k), raw(first1 + k)
        assert np.allclose(b[0:3], a[3:6] * [-1, 1, 1], atol=3.0)


def test_normalization_is_holdens():
    """Per feature the mean comes off; each channel's features share one scale, their pooled
    deviation over the channel's weight."""
    db = staged().database
    features = np.stack([db.frame_features(f) for f in range(db.frame_count)]).astype(np.float64)
    offsets, scales = np.zeros(27, np.float32), np.zeros(27, np.float32)
    assert capi.maniMotionDatabase_GetNormalization(db, offsets, scales, 27) == 27
    assert np.abs(features.mean(axis=0)).max() < 1e-3
    for c in range(db.channel_count):
        ch = capi.maniMotionDatabase_GetChannel(db, c)
        at = db.channel_first_feature(c)
        width = {0: 3, 1: 3, 2: 2, 3: 2, 4: 1}[int(ch.kind)] * ch.times.size
        block = features[:, at:at + width]
        assert np.allclose(np.sqrt(block.var(axis=0).mean()), ch.weight, rtol=1e-3)
        assert (scales[at:at + width] == scales[at]).all()


def test_frames_follow_from_the_spans_and_the_rate():
    db = WORLD.database
    for e in range(db.entry_count):
        entry = capi.maniMotionDatabase_GetEntry(db, e)
        first, count = db.entry_frames(e)
        assert count == int(np.floor((entry.end - entry.start) * db.rate + 1e-4)) + 1
        for k in (0, count - 1):
            assert capi.maniMotionDatabase_GetFrame(db, first + k) == \
                (e, float(np.float32(entry.start + k / db.rate)))


def test_getters_and_their_refusals():
    db = WORLD.database
    n = db.feature_count
    assert capi.maniMotionDatabase_GetFeatures(db, 0) == n
    out = np.full(n, 7, np.float32)
    with pytest.raises(rt.CapacityError) as e:
        capi.maniMotionDatabase_GetFeatures(db, 0, out, n - 1)
    assert e.value.count == n and (out == 7).all()
    with pytest.raises(rt.InvalidError):
        capi.maniMotionDatabase_GetFeatures(db, 0, None, 4)
    with pytest.raises(rt.InvalidError):
        capi.maniMotionDatabase_GetFeatures(db, db.frame_count, out, n)
    with pytest.raises(rt.InvalidError):
        capi.maniMotionDatabase_GetFeatures(None, 0, out, n)
    assert (out == 7).all()
    assert capi.maniMotionDatabase_GetNormalization(db) == n
    off, sc = np.full(n, 7, np.float32), np.full(n, 7, np.float32)
    with pytest.raises(rt.CapacityError) as e:
        capi.maniMotionDatabase_GetNormalization(db, off, sc, n - 1)
    assert e.value.count == n and (off == 7).all() and (sc == 7).all()
    with pytest.raises(rt.InvalidError):
        capi.maniMotionDatabase_GetNormalization(db, None, None, 3)
    with pytest.raises(rt.InvalidError):
        capi.maniMotionDatabase_GetNormalization(None, off, sc, n)
    assert capi.maniMotionDatabase_GetNormalization(db, off, None, n) == n and (sc == 7).all()
    for fn, bound in ((capi.maniMotionDatabase_GetChannel, db.channel_count),
                      (capi.maniMotionDatabase_GetEntry, db.entry_count),
                      (capi.maniMotionDatabase_GetFrame, db.frame_count)):
        with pytest.raises(rt.InvalidError):
            fn(db, bound)
        with pytest.raises(rt.InvalidError):
            fn(None, 0)
    for fn in (capi.maniMotionDatabase_GetIdentity, capi.maniMotionDatabase_GetMirrorMapIdentity,
               capi.maniMotionDatabase_GetSkeletonIdentity):
        assert fn(None) == 0 and fn(db) != 0
    assert capi.maniMotionDatabase_GetChannelName(None, 4) is None
    assert capi.maniMotionDatabase_GetChannelName(db, 99) is None


def test_no_mirrored_entry_no_mirror_identity():
    source = WORLD.match_source
    b = rt.Builder()
    capi.maniBuildMotionDatabase(b, type(source)(**{**source.__dict__,
                                                    "entries": [source.entries[0]]}))
    db = capi.maniOpenMotionDatabase(capi.maniBuilder_CopyBuilt(b))
    assert capi.maniMotionDatabase_GetMirrorMapIdentity(db) == 0


# ---- the open's checks ----------------------------------------------------------------------------
def _sections(data):
    count = struct.unpack_from("<H", data, 10)[0]
    out = {}
    for i in range(count):
        tag, _, _, off, size = struct.unpack_from("<4sHHQQ", data, 32 + 24 * i)
        out[tag] = (off, size)
    return out


def _corrupt(data, at, fmt, value):
    from fuzz_files import reseal
    raw = bytearray(data)
    struct.pack_into(fmt, raw, at, value)
    return reseal(raw)


def _refused_at(data, at):
    with pytest.raises(rt.FormatError) as e:
        capi.maniOpenMotionDatabase(data)
    assert e.value.offset == at, (e.value, at)


def test_the_open_checks_the_tree_and_the_records():
    data = bytes(WORLD.match_bytes)
    s = _sections(data)
    width = WORLD.database.feature_count
    nodes = WORLD.database.node_links
    leaf = int(np.flatnonzero(nodes[:, 2] == 0xFFFFFFFF)[0])
    inner = 0
    box = s[b"DBOX"][0] + 4 * ((leaf * 2) * width + 3)
    _refused_at(_corrupt(data, box, "<f", 123.0), box)
    root_hi = s[b"DBOX"][0] + 4 * (1 * width + 2)         # the root's greatest, feature 2
    _refused_at(_corrupt(data, root_hi, "<f", 1e30), root_hi)
    _refused_at(_corrupt(data, s[b"DNOD"][0] + 16, "<I", 3), s[b"DNOD"][0] + 16)
    node = s[b"DNOD"][0] + NODE.itemsize * leaf
    _refused_at(_corrupt(data, node + 16, "<I", int(nodes[leaf, 4]) + 1), node + 16)
    _refused_at(_corrupt(data, node + 20, "<f", -9.0), node + 20)
    _refused_at(_corrupt(data, s[b"DNOD"][0] + NODE.itemsize * inner + 8, "<I", 5),
                s[b"DNOD"][0] + NODE.itemsize * inner + 8)
    slots = s[b"DSLT"][0]
    first = struct.unpack_from("<I", data, slots)[0]
    _refused_at(_corrupt(data, slots + 8, "<I", first), slots + 8)
    _refused_at(_corrupt(data, slots + 4, "<I", 2), slots + 4)
    feat = s[b"DFEA"][0] + 4 * 7
    _refused_at(_corrupt(data, feat, "<f", float("nan")), feat)
    entry = s[b"DENT"][0] + ENTRY.itemsize * 2
    _refused_at(_corrupt(data, entry + 28, "<I", 17), entry + 28)
    _refused_at(_corrupt(data, entry + 20, "<f", 0.7), entry + 28)
    chan = s[b"DCHN"][0] + CHANNEL.itemsize
    _refused_at(_corrupt(data, chan + 20, "<f", 0.0), chan + 20)
    _refused_at(_corrupt(data, chan, "<I", 9), chan)
    norm = s[b"DNRM"][0] + 4 * (width + 2)
    _refused_at(_corrupt(data, norm, "<f", 0.0), norm)
    header = s[b"DHDR"][0]
    _refused_at(_corrupt(data, header + 48, "<I", 2), header + 48)
    assert HEADER.size == 64
    with pytest.raises(rt.VersionError):
        capi.maniOpenMotionDatabase(_corrupt(data, 6, "<H", 2))
    with pytest.raises(rt.InvalidError):
        capi.maniOpenMotionDatabase(None)
    with pytest.raises(rt.InvalidError):
        capi.maniOpenMotionDatabase(memoryview(bytearray(data) + b"\0")[1:])


def test_a_looping_entry_wraps_its_times_and_carries_the_root_across():
    """WORLD.clip repeats and its root walks at 1 a second (along x turned by the root's
    constant yaw): over the whole clip an entry loops, so half a second ahead is always the
    same 0.5 away; a clamped entry stops at its end."""
    source = MotionDatabaseSource(WORLD.skeleton, [WORLD.clip],
                                  [MatchEntry(0, 0.0, 1.0), MatchEntry(0, 0.0, 0.9)],
                                  [MatchChannel(K.trajectory_position, 0, (0.5,))], rate=20.0)
    db = rt.MotionDatabase(rt.build_motion_database(rt.Builder(), source))
    assert capi.maniMotionDatabase_GetEntry(db, 0).flags & MatchEntryFlag.loops
    assert not capi.maniMotionDatabase_GetEntry(db, 1).flags & MatchEntryFlag.loops
    raw = lambda f: db.frame_features(f).astype(np.float64) * db.scales + db.offsets  # noqa: E731
    first, count = db.entry_frames(0)
    ahead = raw(first)
    assert np.linalg.norm(ahead) == pytest.approx(0.5, abs=1e-5)
    for f in range(first, first + count):
        assert np.allclose(raw(f), ahead, atol=1e-5), (f, raw(f))
    first, count = db.entry_frames(1)
    last = first + count - 1
    assert db.frame(last)[1] == pytest.approx(0.9)
    assert np.allclose(raw(last), [0.0, 0.0], atol=1e-5)
    assert np.allclose(raw(last - 4), ahead * (0.9 - db.frame(last - 4)[1]) / 0.5, atol=1e-5)
