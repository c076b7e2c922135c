"""rootmotion.h: moves, a clip's root motion across wraps, restoring it, and what is taken."""
import math

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.clip.rootmotion import MAX_PERIODS, RootAxes

from runtime_fixtures import hamilton, rotate
from test_clip_fixtures import (AdditiveBasis, ChannelSource, ClipSource, LoopPolicy, R,
                                RootMotionSource, RootRotation, T, grid, open_clip, random_quats,
                                rich_source, same_rotation, small_skeleton)


@pytest.fixture(scope="module")
def sk():
    return small_skeleton()


def compose_py(a, b):
    """Plain-Python binary64 composition: a, then b from where a ends."""
    t = rotate(a[3:], b[:3])
    q = hamilton(a[3:], b[3:])
    n = math.sqrt(sum(c * c for c in q))
    return (a[0] + t[0], a[1] + t[1], a[2] + t[2]) + tuple(c / n for c in q)


def walking(sk, loop=LoopPolicy.repeat, rate=30.0, **root):
    """Bone 0 walks forward along z and turns about y, bobbing in y, over one second."""
    times = np.linspace(0, 1, 11)
    yaw = 0.3 * times
    trans = np.stack([0.1 * np.sin(2 * np.pi * times), 0.05 * np.cos(4 * np.pi * times), 1.4 * times], 1)
    rot = np.stack([np.zeros(11), np.sin(yaw / 2), np.zeros(11), np.cos(yaw / 2)], 1)
    tilt = np.array([math.sin(0.1), 0, 0, math.cos(0.1)])
    rot = np.array([hamilton(r, tilt) for r in rot])          # a little pitch the root motion leaves
    root = dict(bone=0, axes=RootAxes.x | RootAxes.z, rotation=RootRotation.about_y) | root
    return ClipSource(sk, [ChannelSource(0, T, times, trans), ChannelSource(0, R, times, rot),
                           ChannelSource(3, R, times, random_quats(np.random.default_rng(0), (11,)))],
                      sample_rate=rate, loop=loop, root_motion=RootMotionSource(**root))


# ---- moves ----------------------------------------------------------------------------------------
def test_identity_compose_and_blend():
    ident = capi.maniMakeRootMoveIdentity()
    np.testing.assert_array_equal(ident, [0, 0, 0, 0, 0, 0, 1])
    rng = np.random.default_rng(1)
    a = np.concatenate([rng.normal(size=3), random_quats(rng, ())])
    b = np.concatenate([rng.normal(size=3), random_quats(rng, ())])
    np.testing.assert_allclose(capi.maniComposeRootMotion(ident, a), a, atol=1e-6)
    np.testing.assert_allclose(capi.maniComposeRootMotion(a, b), compose_py(a, b), atol=1e-6)
    # blending: weights normalized, zero weights nothing, rotations into the first weighted one's hemisphere
    flipped = b.copy()
    flipped[3:] *= -1
    m = capi.maniBlendRootMotion([a, b, flipped], [0.0, 1.0, 3.0])
    np.testing.assert_allclose(m[:3], b[:3], atol=1e-6)
    assert same_rotation(m[3:], b[3:])
    m = capi.maniBlendRootMotion([a, b], [1.0, 1.0])
    np.testing.assert_allclose(m[:3], (a[:3] + b[:3]) / 2, atol=1e-6)
    q = a[3:] + (b[3:] if a[3:] @ b[3:] >= 0 else -b[3:])
    assert same_rotation(m[3:], q / np.linalg.norm(q))
    assert m[3:] @ a[3:] > 0
    np.testing.assert_array_equal(capi.maniBlendRootMotion([a, b], [0, 0]), ident)
    np.testing.assert_array_equal(capi.maniBlendRootMotion([], []), ident)
    np.testing.assert_allclose(capi.maniBlendRootMotion([a, b], [1e308, 1e308])[:3], (a[:3] + b[:3]) / 2, atol=1e-6)


@pytest.mark.parametrize("moves, weights", [
    (None, [1.0]), ([[0, 0, 0, 0, 0, 0, 1]], None), ([[0, 0, 0, 0, 0, 0, 1]], [-1.0]),
    ([[0, 0, 0, 0, 0, 0, 1]], [math.nan]), ([[0, 0, 0, 0, 0, 0, 1]], [math.inf]),
    ([[math.nan, 0, 0, 0, 0, 0, 1]], [1.0]), ([[0, 0, 0, 0, 0, 0, 1]], [1.0, 2.0]),
    ([[0, 0, 0]], [1.0])])
def test_blend_refusals(moves, weights):
    with pytest.raises(rt.InvalidError):
        capi.maniBlendRootMotion(moves, weights)


# ---- a clip's root motion ---------------------------------------------------------------------------
def test_taken_out_the_clip_plays_in_place(sk):
    clip = open_clip(walking(sk))
    ok, source = capi.maniClip_GetRootMotionSource(clip)
    assert ok and source == RootMotionSource(0, RootAxes.x | RootAxes.z, RootRotation.about_y)
    assert capi.maniClip_GetRootMotionSource(open_clip(ClipSource(sk))) == (False, None)
    assert capi.maniClip_GetRootMotionSource(None) == (False, None)
    pose = rt.Pose(sk)
    for t in grid(clip):
        capi.maniClip_Sample(clip, sk, t, pose)
        local = pose.locals[0]
        assert abs(local[0]) < 1e-6 and abs(local[2]) < 1e-6          # x and z are out
        assert abs(local[1] - 0.05 * math.cos(4 * math.pi * t)) < 1e-2  # the bob stays
        # the yaw is out and the pitch stays
        assert same_rotation(local[3:7], [math.sin(0.1), 0, 0, math.cos(0.1)], 1e-5)


def test_restore_after_sample_puts_the_bone_where_the_source_had_it(sk):
    src = walking(sk)
    clip = open_clip(src)
    plain = open_clip(ClipSource(sk, src.channels, sample_rate=30))
    pose, want = rt.Pose(sk), rt.Pose(sk)
    for t in list(grid(clip)) + [0.123, 0.5, 0.987, -1.0, 3.0, math.nan]:
        capi.maniClip_Sample(clip, sk, t, pose)
        capi.maniClip_RestoreRootMotion(clip, sk, t, pose)
        assert not pose.is_model_current
        capi.maniClip_Sample(plain, sk, t, want)
        np.testing.assert_allclose(pose.locals[0, 0:3], want.locals[0, 0:3], atol=2e-4)
        assert same_rotation(pose.locals[0, 3:7], want.locals[0, 3:7], 2e-4)
        np.testing.assert_array_equal(pose.locals[1:], want.locals[1:])
    for t in grid(clip):                                   # on the grid, to storage rounding
        capi.maniClip_Sample(clip, sk, t, pose)
        capi.maniClip_RestoreRootMotion(clip, sk, t, pose)
        capi.maniClip_Sample(plain, sk, t, want)
        np.testing.assert_allclose(pose.locals[0], want.locals[0], atol=2e-6)


def test_restore_refusals_and_clips_without_root_motion(sk):
    clip = open_clip(walking(sk))
    pose = rt.Pose(sk)
    before = pose.buffer.copy()
    diff = rt.Pose(sk)
    rt.compute_pose_difference(sk, pose, pose, diff)
    other = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), rt.SkeletonSource([rt.BoneSource("a")])))
    for args in ((None, sk, 0.1, pose), (clip, None, 0.1, pose), (clip, sk, 0.1, None),
                 (clip, other, 0.1, pose), (clip, sk, 0.1, diff), (clip, sk, 0.1, rt.Pose(other))):
        with pytest.raises(rt.InvalidError):
            capi.maniClip_RestoreRootMotion(*args)
    np.testing.assert_array_equal(pose.buffer, before)
    plain = open_clip(ClipSource(sk, walking(sk).channels))
    capi.maniClip_RestoreRootMotion(plain, sk, 0.5, pose)
    np.testing.assert_array_equal(pose.buffer, before)        # unchanged, model still current
    np.testing.assert_array_equal(capi.maniClip_GetRootMotion(plain, 0.2, 0.5), [0, 0, 0, 0, 0, 0, 1])


def test_clamped_clip_moves_between_clamped_times(sk):
    clip = open_clip(walking(sk, loop=LoopPolicy.clamp))
    whole = capi.maniClip_GetRootMotion(clip, 0.0, 1.0)
    np.testing.assert_allclose(whole[:3], [0, 0, 1.4], atol=1e-5)
    assert same_rotation(whole[3:], [0, math.sin(0.15), 0, math.cos(0.15)], 1e-6)
    np.testing.assert_allclose(capi.maniClip_GetRootMotion(clip, -5.0, 100.0), whole, atol=1e-6)
    np.testing.assert_allclose(capi.maniClip_GetRootMotion(clip, 2.0, 3.0), [0, 0, 0, 0, 0, 0, 1], atol=1e-7)
    half = capi.maniClip_GetRootMotion(clip, 0.0, 0.5)
    rest = capi.maniClip_GetRootMotion(clip, 0.5, 0.5)
    np.testing.assert_allclose(capi.maniComposeRootMotion(half, rest), whole, atol=1e-6)
    for bad in ((math.nan, 0.1), (0.1, math.inf), (math.inf, 0.0)):
        with pytest.raises(rt.InvalidError):
            capi.maniClip_GetRootMotion(clip, *bad)
    with pytest.raises(rt.InvalidError):
        capi.maniClip_GetRootMotion(None, 0.0, 0.1)


def compose_n_times(move, n):
    """`move` composed with itself n times, one composition at a time (binary64, plain Python;
    the rotation renormalized now and then)."""
    px, py, pz, rx, ry, rz, rw = move
    tx = ty = tz = qx = qy = qz = 0.0
    qw = 1.0
    for k in range(n):
        cx, cy, cz = 2 * (qy * pz - qz * py), 2 * (qz * px - qx * pz), 2 * (qx * py - qy * px)
        tx += px + qw * cx + qy * cz - qz * cy
        ty += py + qw * cy + qz * cx - qx * cz
        tz += pz + qw * cz + qx * cy - qy * cx
        qx, qy, qz, qw = (qw * rx + qx * rw + qy * rz - qz * ry, qw * ry - qx * rz + qy * rw + qz * rx,
                          qw * rz + qx * ry - qy * rx + qz * rw, qw * rw - qx * rx - qy * ry - qz * rz)
        if k % 4096 == 0:
            length = math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
            qx, qy, qz, qw = qx / length, qy / length, qz / length, qw / length
    return (tx, ty, tz, qx, qy, qz, qw)


def test_a_million_periods_by_squaring_equal_the_period_composed_a_million_times(sk):
    clip = open_clip(walking(sk))
    n = 10 ** 6
    by_squaring = capi.maniClip_GetRootMotion(clip, 0.0, float(n))
    # the period in binary64 from the clip's own pieces, not the binary32 move it returns
    from runtime.clip.kernels import compose_moves, inverse_move
    from runtime.clip.rootmotion import _move_at
    period = compose_moves(inverse_move(_move_at(clip, 0.0)), _move_at(clip, 1.0))
    np.testing.assert_allclose(capi.maniClip_GetRootMotion(clip, 0.0, 1.0), period, atol=1e-6)
    assert compose_n_times(period, 3) == pytest.approx(compose_py(compose_py(period, period), period))
    move = compose_n_times(period, n)
    np.testing.assert_allclose(by_squaring[:3], move[:3], rtol=1e-5, atol=1e-4)
    assert same_rotation(by_squaring[3:], move[3:], 1e-5)
    # the walk turns 0.15 rad a period: a million periods go round many times, and stay bounded
    assert np.linalg.norm(by_squaring[:3]) < 20


def test_wraps_forward_and_backward(sk):
    clip = open_clip(walking(sk))
    rng = np.random.default_rng(2)
    for _ in range(30):
        t, step = rng.uniform(-3, 3), rng.uniform(-4, 4)
        fwd = capi.maniClip_GetRootMotion(clip, t, step)
        back = capi.maniClip_GetRootMotion(clip, t + step, -step)
        # a backward step undoes the forward one
        undone = capi.maniComposeRootMotion(fwd, back)
        np.testing.assert_allclose(undone[:3], 0, atol=2e-5)
        assert same_rotation(undone[3:], [0, 0, 0, 1], 1e-5)
        # and a step split in two composes
        k = rng.uniform()
        first = capi.maniClip_GetRootMotion(clip, t, k * step)
        then = capi.maniClip_GetRootMotion(clip, t + k * step, (1 - k) * step)
        both = capi.maniComposeRootMotion(first, then)
        np.testing.assert_allclose(both[:3], fwd[:3], atol=5e-5)
        assert same_rotation(both[3:], fwd[3:], 1e-5)
    # a step of whole periods from any phase is the period's move seen from that phase
    np.testing.assert_allclose(capi.maniClip_GetRootMotion(clip, 0.25, 0.0), [0, 0, 0, 0, 0, 0, 1], atol=1e-7)
    two = capi.maniClip_GetRootMotion(clip, 0.0, 2.0)
    one = capi.maniClip_GetRootMotion(clip, 0.0, 1.0)
    np.testing.assert_allclose(two, capi.maniComposeRootMotion(one, one), atol=1e-5)


def test_periods_past_the_bound_are_held_at_it(sk):
    clip = open_clip(walking(sk, rotation=RootRotation.none))
    far = capi.maniClip_GetRootMotion(clip, 0.0, 1e30)
    assert np.isfinite(far).all()
    np.testing.assert_allclose(far[2], 1.4 * MAX_PERIODS, rtol=1e-5)
    back = capi.maniClip_GetRootMotion(clip, 0.0, -1e30)
    np.testing.assert_allclose(back[2], -1.4 * MAX_PERIODS, rtol=1e-5)


@pytest.mark.parametrize("rotation, axes", [(RootRotation.whole, 7), (RootRotation.about_x, 2),
                                            (RootRotation.about_z, 0), (RootRotation.none, 1)])
def test_every_way_of_taking_it_restores(sk, rotation, axes):
    src = walking(sk, rotation=rotation, axes=axes)
    clip = open_clip(src)
    plain = open_clip(ClipSource(sk, src.channels, sample_rate=30))
    pose, want = rt.Pose(sk), rt.Pose(sk)
    for t in grid(clip)[::3]:
        capi.maniClip_Sample(clip, sk, t, pose)
        if rotation == RootRotation.whole:
            assert same_rotation(pose.locals[0, 3:7], [0, 0, 0, 1], 1e-6)
        capi.maniClip_RestoreRootMotion(clip, sk, t, pose)
        capi.maniClip_Sample(plain, sk, t, want)
        np.testing.assert_allclose(pose.locals[0, 0:3], want.locals[0, 0:3], atol=2e-6)
        assert same_rotation(pose.locals[0, 3:7], want.locals[0, 3:7], 2e-6)


def test_additive_clips_keep_root_motion_too(sk):
    src = walking(sk)
    src.additive = AdditiveBasis.first_frame
    clip = open_clip(src)
    move = capi.maniClip_GetRootMotion(clip, 0.0, 1.0)
    np.testing.assert_allclose(move[:3], [0, 0, 1.4], atol=1e-5)
    pose = rt.Pose(sk)
    capi.maniClip_Sample(clip, sk, 0.5, pose)
    with pytest.raises(rt.InvalidError):
        capi.maniClip_RestoreRootMotion(clip, sk, 0.5, pose)
    src = rich_source(sk, np.random.default_rng(3))
    assert capi.maniClip_GetRootMotionSource(open_clip(src))[0]
