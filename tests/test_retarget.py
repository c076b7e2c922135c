"""Retargeting: what RetargetPose, RetargetRootMotion and a retargeted clip make, checked
against plain numpy (retarget_fixtures: quaternions multiplied along the root paths, model
frames composed as 4x4 matrices, slerp in its acos form)."""
import dataclasses

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.clip.build import ChannelPath, ChannelSource, ClipSource, FloatTrackSource
from runtime.clip.clip import ClipEvent, LoopPolicy
from runtime.clip.rootmotion import RootMotionSource
from runtime.mapping import (RetargetChain, RetargetChainMode, RetargetClipSource, RetargetMap,
                             RetargetMapSource, RetargetPair, RetargetPelvis, RetargetTranslation,
                             build_retarget_map, build_retargeted_clip)

from retarget_fixtures import (as_kept, humanoid, line, model_frames, pose_of, qconj, qmul,
                               random_locals, same_turn, slerp)


def build(source) -> RetargetMap:
    return RetargetMap(build_retarget_map(rt.Builder(), source))


def retarget(m, src, tgt, locals_) -> np.ndarray:
    out = rt.Pose(tgt)
    m.retarget_pose(src, pose_of(src, locals_), tgt, out, bytearray(m.scratch_size))
    assert not out.is_model_current
    return out.locals.astype(np.float64)


def turns(skeleton, locals_, reference):
    """Each bone's model-space turn from the reference: M M_ref^-1."""
    now, _ = model_frames(skeleton, locals_)
    ref, _ = model_frames(skeleton, reference)
    return qmul(now, qconj(ref))


@pytest.fixture(scope="module")
def pair():
    """A 24-bone humanoid onto a 30-bone one of other rests (unit scales), references not
    the rests."""
    src, tgt = humanoid(24, 0, scales=False), humanoid(30, 3, scales=False)
    rng = np.random.default_rng(5)
    return src, tgt, random_locals(src, rng, 0.4, 0.0), random_locals(tgt, rng, 0.4, 0.0)


def test_mapped_bones_turn_in_model_space_as_their_sources(pair):
    """Every bone mapped by name turns, in model space, from its reference as its source
    bone turns from the source's; so each bone's direction to its child is the source's
    turn applied to the target reference's direction."""
    src, tgt, sref, tref = pair
    m = build(RetargetMapSource(src, tgt, sref, tref, match_names=True))
    rng = np.random.default_rng(0)
    for _ in range(5):
        pose = random_locals(src, rng, 1.5, 0.0)
        out = retarget(m, src, tgt, pose)
        got, want = turns(tgt, out, tref), turns(src, pose.astype(np.float32), sref)
        mapped = [b for b in range(tgt.bone_count) if src.find_bone(tgt.bone_name(b)) != rt.NO_BONE]
        assert len(mapped) == 24
        for b in mapped:
            assert same_turn(got[b], want[src.find_bone(tgt.bone_name(b))]) < 1e-10 + 2e-6
        _, now = model_frames(tgt, out)
        _, ref = model_frames(tgt, tref)
        for b in mapped:
            for c in [c for c in range(tgt.bone_count) if tgt.parent(c) == b]:
                d_now = now[c, :3, 3] - now[b, :3, 3]
                d_ref = ref[c, :3, 3] - ref[b, :3, 3]
                a = src.find_bone(tgt.bone_name(b))
                turned = qmul(qmul(want[a], np.append(d_ref, 0.0)), qconj(want[a]))[:3]
                assert np.abs(d_now - turned).max() < 2e-5


def test_the_source_reference_gives_the_target_reference(pair):
    src, tgt, sref, tref = pair
    m = build(RetargetMapSource(src, tgt, sref, tref, match_names=True))
    out = retarget(m, src, tgt, sref)
    assert np.abs(out - tref.astype(np.float32)).max() < 3e-6


def test_an_unmapped_bone_keeps_its_reference_local_bit_for_bit(pair):
    src, tgt, sref, tref = pair
    m = build(RetargetMapSource(src, tgt, sref, tref, match_names=True))
    out = retarget(m, src, tgt, random_locals(src, np.random.default_rng(1), 1.0, 0.2))
    unmapped = [b for b in range(tgt.bone_count) if src.find_bone(tgt.bone_name(b)) == rt.NO_BONE]
    assert unmapped and all(m.plan(b)[0] == 0 for b in unmapped)
    given = as_kept(tref)
    assert np.array_equal(out[unmapped].astype(np.float32).view(np.uint32), given[unmapped].view(np.uint32))


def test_weights_slerp_from_no_turn(pair):
    src, tgt, sref, tref = pair
    w = 0.3
    m = build(RetargetMapSource(src, tgt, sref, tref, pairs=[RetargetPair(0, 0, w), RetargetPair(1, 1, 1.0)]))
    pose = random_locals(src, np.random.default_rng(2), 1.5, 0.0)
    got, want = turns(tgt, retarget(m, src, tgt, pose), tref), turns(src, pose.astype(np.float32), sref)
    assert same_turn(got[0], slerp([0, 0, 0, 1.0], want[0], w)) < 2e-6
    assert same_turn(got[1], want[1]) < 2e-6


# ---- chains ------------------------------------------------------------------------------
def _expected_chain(mode, m_len, n_len, want_turns, k):
    """The turn target bone k of m takes from a source chain's turns (n of them)."""
    if mode == RetargetChainMode.one_to_one:
        return want_turns[min(k, n_len - 1)]
    if mode == RetargetChainMode.one_to_one_reversed:
        return want_turns[max(0, k - (m_len - n_len))]
    x = k * (n_len - 1) / (m_len - 1)
    i = min(int(np.floor(x)), n_len - 1)
    if i == n_len - 1:
        return want_turns[i]
    return slerp(want_turns[i], want_turns[i + 1], x - i)


@pytest.mark.parametrize("n_len,m_len", [(3, 2), (2, 4)])
@pytest.mark.parametrize("mode", list(RetargetChainMode))
def test_a_chain_of_n_source_bones_onto_m_target_bones(n_len, m_len, mode):
    src, tgt = line(n_len, "s", 1), line(m_len, "t", 2, step=(0.1, 0.25, 0.0))
    rng = np.random.default_rng(n_len * 10 + int(mode))
    sref, tref = random_locals(src, rng, 0.5, 0.0), random_locals(tgt, rng, 0.5, 0.0)
    m = build(RetargetMapSource(src, tgt, sref, tref, pairs=[RetargetPair(0, 0)],
                                chains=[RetargetChain(1, n_len, 1, m_len, mode)]))
    pose = random_locals(src, rng, 1.2, 0.0)
    out = retarget(m, src, tgt, pose)
    got, want = turns(tgt, out, tref), turns(src, pose.astype(np.float32), sref)
    if mode == RetargetChainMode.none:
        assert np.array_equal(out[1:].astype(np.float32), as_kept(tref)[1:])
        return
    for k in range(m_len):
        assert same_turn(got[1 + k], _expected_chain(mode, m_len, n_len, want[1:], k)) < 3e-6, k


def test_chain_plans_name_their_sources():
    src, tgt = line(3, "s", 1), line(4, "t", 2)
    m = build(RetargetMapSource(src, tgt, chains=[RetargetChain(1, 3, 1, 4)]))
    assert [m.plan(b)[:4] for b in range(1, 5)] == [(1, 1, 0, 0.0), (2, 1, 2, pytest.approx(2 / 3)),
                                                    (2, 2, 3, pytest.approx(1 / 3)), (1, 3, 0, 0.0)]
    m = build(RetargetMapSource(src, tgt, chains=[RetargetChain(1, 3, 1, 4, RetargetChainMode.one_to_one_reversed)]))
    assert [m.plan(b)[1] for b in range(1, 5)] == [1, 1, 2, 3]


# ---- translations and scale --------------------------------------------------------------
def test_translations_own_scaled_absolute_and_scale_carrying():
    src, tgt = humanoid(12, 0), humanoid(12, 4)
    rng = np.random.default_rng(3)
    sref, tref = random_locals(src, rng, 0.3, 0.05, (0.9, 1.1)), random_locals(tgt, rng, 0.3, 0.05, (0.9, 1.1))
    pelvis = RetargetPelvis(0, 0)
    m = build(RetargetMapSource(src, tgt, sref, tref, pelvis=pelvis, pairs=[
        RetargetPair(3, 3, 1.0, RetargetTranslation.own, True),
        RetargetPair(4, 4, 1.0, RetargetTranslation.scaled),
        RetargetPair(5, 5, 1.0, RetargetTranslation.absolute, True)]))
    pose = random_locals(src, rng, 0.8, 0.2, (0.5, 2.0)).astype(np.float32).astype(np.float64)
    out = retarget(m, src, tgt, pose)
    s_rot, _ = model_frames(src, sref.astype(np.float32))
    t_rot, _ = model_frames(tgt, tref.astype(np.float32))
    _, s_mat = model_frames(src, sref)
    _, t_mat = model_frames(tgt, tref)
    ratio = t_mat[0, 1, 3] / s_mat[0, 1, 3]
    assert m.height_ratio == pytest.approx(ratio, rel=1e-6)

    def carried(b, v):
        turn = qmul(qconj(t_rot[tgt.parent(b)]), s_rot[src.parent(b)])
        return qmul(qmul(turn, np.append(v, 0.0)), qconj(turn))[:3]
    tref32 = tref.astype(np.float32).astype(np.float64)
    sref32 = sref.astype(np.float32).astype(np.float64)
    assert np.abs(out[3, 0:3] - tref32[3, 0:3]).max() < 1e-6
    assert np.abs(out[4, 0:3] - (tref32[4, 0:3] + ratio * carried(4, pose[4, 0:3] - sref32[4, 0:3]))).max() < 1e-5
    assert np.abs(out[5, 0:3] - carried(5, pose[5, 0:3])).max() < 1e-5
    for b in (3, 5):
        assert np.abs(out[b, 7:10] - tref32[b, 7:10] * pose[b, 7:10] / sref32[b, 7:10]).max() < 1e-6
    assert np.array_equal(out[4, 7:10], tref32[4, 7:10])


# ---- the pelvis --------------------------------------------------------------------------
@pytest.mark.parametrize("absolute,to_source,weight", [((0, 0, 0), (0, 0, 0), 1.0),
                                                        ((1, 0.5, 0), (0, 0, 0.25), 0.7)])
def test_the_pelvis_rule(absolute, to_source, weight):
    """The target pelvis's model position: its reference's plus the source's change, the
    horizontal and vertical parts scaled by the ratio times the factors, blended per axis
    toward the unscaled change, then toward the source's position, weighted from the
    reference; under a parent that moved too."""
    src, tgt = humanoid(12, 0, scales=False), humanoid(12, 6)
    rng = np.random.default_rng(8)
    up = np.array([0.1, 1.0, 0.2]) / np.linalg.norm([0.1, 1.0, 0.2])
    hips = src.find_bone("spine0")          # a pelvis below another bone on both sides
    m = build(RetargetMapSource(src, tgt, pairs=[RetargetPair(0, 0, 1.0, RetargetTranslation.absolute)],
                                pelvis=RetargetPelvis(hips, hips, up, 0.8, 1.3, absolute, to_source, weight)))
    pose = random_locals(src, rng, 0.5, 0.3)
    out = retarget(m, src, tgt, pose)
    _, s_now = model_frames(src, pose.astype(np.float32))
    _, s_ref = model_frames(src, src.rests)
    _, t_ref = model_frames(tgt, tgt.rests)
    _, t_now = model_frames(tgt, out)
    ratio = (t_ref[hips, :3, 3] @ up) / (s_ref[hips, :3, 3] @ up)
    d = s_now[hips, :3, 3] - s_ref[hips, :3, 3]
    vertical = (d @ up) * up
    scaled = 0.8 * ratio * (d - vertical) + 1.3 * ratio * vertical
    change = scaled + np.asarray(absolute) * (d - scaled)
    x = t_ref[hips, :3, 3] + change
    x = x + np.asarray(to_source) * (s_now[hips, :3, 3] - x)
    want = t_ref[hips, :3, 3] + weight * (x - t_ref[hips, :3, 3])
    assert np.abs(t_now[hips, :3, 3] - want).max() < 2e-5
    assert np.abs(t_now[0, :3, 3] - t_ref[0, :3, 3]).max() > 0.05      # the parent moved


def test_root_motion_scaled_along_and_across_the_up_axis():
    src, tgt = humanoid(12, 0), humanoid(12, 6)
    up = np.array([0.0, 0.6, 0.8])
    m = build(RetargetMapSource(src, tgt, pelvis=RetargetPelvis(0, 0, up, 2.0, 3.0)))
    r = m.height_ratio
    d = np.array([1.0, 2.0, -3.0])
    along = (d @ up) * up
    want = 2.0 * r * (d - along) + 3.0 * r * along
    assert np.abs(capi.maniRetargetMap_RetargetRootMotion(m, d) - want).max() < 1e-5
    plain = build(RetargetMapSource(src, tgt))
    assert np.array_equal(capi.maniRetargetMap_RetargetRootMotion(plain, d), d.astype(np.float32))


# ---- clips -------------------------------------------------------------------------------
def _clip_of(src, rng, **kw) -> rt.Clip:
    times = np.linspace(0.0, 1.0, 31)
    channels = []
    for b in range(src.bone_count):
        q = np.array([random_locals(src, rng, 0.7, 0.0)[b, 3:7] for _ in times])
        q *= np.sign(q @ q[0])[:, None]
        channels.append(ChannelSource(b, ChannelPath.rotation, times, q))
    path = src.rests[0, 0:3] + np.outer(times, [0.5, 0.05, 1.0])
    channels.append(ChannelSource(0, ChannelPath.translation, times, path))
    return rt.Clip.open(rt.build_clip(rt.Builder(), ClipSource(
        src, channels, [FloatTrackSource("smile", times[:3], [0.0, 1.0, 0.5])], [],
        [ClipEvent("step", 0.25)], [ClipEvent("left", 0.0)], sample_rate=30.0, loop=LoopPolicy.repeat,
        **kw)))


def test_a_retargeted_clip_equals_retarget_pose_at_every_sample(pair):
    src, tgt, sref, tref = pair
    m = build(RetargetMapSource(src, tgt, sref, tref, match_names=True, pelvis=RetargetPelvis(0, 0)))
    clip = _clip_of(src, np.random.default_rng(4))
    out = rt.Clip.open(build_retargeted_clip(rt.Builder(), RetargetClipSource(m, src, tgt, clip)))
    assert (out.sample_rate, out.duration, out.loop_policy, out.sample_count) == \
        (clip.sample_rate, clip.duration, clip.loop_policy, clip.sample_count)
    assert out.event(0).name == "step" and out.marker(0).name == "left"
    assert out.float_track_name(0) == "smile"
    p, want, got = rt.Pose(src), rt.Pose(tgt), rt.Pose(tgt)
    for k in range(clip.sample_count):
        t = min(k / clip.sample_rate, clip.duration)
        clip.sample(src, t, p)
        m.retarget_pose(src, p, tgt, want)
        out.sample(tgt, t, got)
        assert np.abs(got.locals - want.locals).max() <= 1.2e-7, k
    # bones at the target's rest in every sample get no channel: the unmapped ones where
    # the target's reference is its rest
    m = build(RetargetMapSource(src, tgt, sref, None, match_names=True))
    out = rt.Clip.open(build_retargeted_clip(rt.Builder(), RetargetClipSource(m, src, tgt, clip)))
    unmapped = [b for b in range(tgt.bone_count) if m.plan(b)[0] == 0]
    assert len(unmapped) == 6 and not set(unmapped) & set(out.tracked_bones.tolist())


def test_a_retargeted_clip_carries_root_motion_scaled():
    src, tgt = humanoid(12, 0), humanoid(12, 6)
    m = build(RetargetMapSource(src, tgt, match_names=True, pelvis=RetargetPelvis(0, 0, (0, 1, 0), 1.5, 0.5)))
    clip = _clip_of(src, np.random.default_rng(9), root_motion=RootMotionSource(0))
    out = rt.Clip.open(build_retargeted_clip(rt.Builder(), RetargetClipSource(m, src, tgt, clip)))
    assert out.root_motion_fields[0] == 0
    move, moved = capi.maniClip_GetRootMotion(clip, 0.0, 0.9), capi.maniClip_GetRootMotion(out, 0.0, 0.9)
    s_rot, _ = model_frames(src, src.rests)
    t_rot, _ = model_frames(tgt, tgt.rests)
    # roots: the parents' frames are the model's, so the move's translation is scaled as root motion
    want = capi.maniRetargetMap_RetargetRootMotion(m, move[0:3])
    assert np.abs(moved[0:3] - want).max() < 1e-4 * max(1, np.abs(want).max())


def test_without_scratch_each_thread_uses_its_own(pair):
    """scratch=None gives the same bits as the caller's scratch, from several threads at once."""
    from concurrent.futures import ThreadPoolExecutor
    src, tgt, sref, tref = pair
    m = build(RetargetMapSource(src, tgt, sref, tref, match_names=True, pelvis=RetargetPelvis(0, 0)))
    rng = np.random.default_rng(12)
    poses = [pose_of(src, random_locals(src, rng, 1.0, 0.2)) for _ in range(8)]
    want = []
    for p in poses:
        out = rt.Pose(tgt)
        m.retarget_pose(src, p, tgt, out, bytearray(m.scratch_size))
        want.append(out.locals.copy())

    def run(k):
        out = rt.Pose(tgt)
        for _ in range(50):
            m.retarget_pose(src, poses[k], tgt, out)
        return out.locals.copy()
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(run, range(8)))
    for g, w in zip(got, want):
        assert np.array_equal(g.view(np.uint32), w.view(np.uint32))


def test_an_additive_clip_carries_its_differences_through_the_source_rest(pair):
    """At each sample: the retargeted clip's difference added to the source's rest carried is
    the source's difference added to its rest, carried."""
    from runtime.clip.clip import AdditiveBasis
    src, tgt, sref, tref = pair
    m = build(RetargetMapSource(src, tgt, sref, tref, match_names=True))
    clip = _clip_of(src, np.random.default_rng(13), additive=AdditiveBasis.rest)
    out = rt.Clip.open(build_retargeted_clip(rt.Builder(), RetargetClipSource(m, src, tgt, clip)))
    assert out.is_additive and out.additive_basis == AdditiveBasis.rest
    rest, carried_rest = rt.Pose(src), rt.Pose(tgt)
    m.retarget_pose(src, rest, tgt, carried_rest)
    diff_s, diff_t, full, want, got = rt.Pose(src), rt.Pose(tgt), rt.Pose(src), rt.Pose(tgt), rt.Pose(tgt)
    for k in (0, 7, 30):
        t = min(k / clip.sample_rate, clip.duration)
        clip.sample(src, t, diff_s)
        full.set_rest(src)
        rt.add_layers(full, src, [rt.BlendLayer(diff_s, 1.0)])
        m.retarget_pose(src, full, tgt, want)
        out.sample(tgt, t, diff_t)
        got.copy_from(carried_rest)
        rt.add_layers(got, tgt, [rt.BlendLayer(diff_t, 1.0)])
        assert np.abs(got.locals - want.locals).max() < 2e-5, k
