"""maniAdvanceTrajectory and maniMotionDatabase_ComputeTrajectoryFeatures: the springs in
closed form (one advance of t is n advances of t/n up to binary32 rounding; the velocity and
rotation errors decay as (1 + y t) e^(-y t), y = 2 ln 2 / half-life), the measured
features against hand-worked frames, and every refusal with the trajectory unchanged."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.matching import Trajectory, TrajectoryGoal

from hostile_world import World

WORLD = World()


def _yaw(angle):
    return (0.0, math.sin(angle / 2), 0.0, math.cos(angle / 2))


def _angle_between(a, b):
    """The angle of the turn from a to b (atan2 of the relative turn: exact near 0)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    w = float(np.dot(a, b))
    xyz = a[3] * b[:3] - b[3] * a[:3] - np.cross(a[:3], b[:3])
    return 2 * math.atan2(float(np.linalg.norm(xyz)), abs(w))


# One advance against many: binary32 rounding grows with the number of steps; each step's
# ops round at about 2^-24 of the magnitudes they meet (positions, velocities times the
# time), so n steps stay within n * 2e-6 of that scale (position, velocity, acceleration) and
# n * 2e-6 radians (rotation, the log and exp taken each step).
def _bound(state: Trajectory, goal_velocity, t: float, n: int,
           end: Trajectory | None = None) -> float:
    """n steps' rounding, each a few binary32 ulps of the largest magnitude the state takes
    on the way: the start's, or the end's (a short half-life's spring can take the
    acceleration far past where it started)."""
    speed = float(np.abs(state.velocity).max()) + float(np.abs(goal_velocity).max())
    largest = float(np.abs(state.state[0:9]).max())
    if end is not None:
        largest = max(largest, float(np.abs(end.state[0:9]).max()))
    scale = 1 + largest + t * speed + t * t * float(np.abs(state.acceleration).max())
    return n * 2e-6 * scale


vec = st.lists(st.floats(-300, 300), min_size=3, max_size=3)


@settings(max_examples=60, deadline=None)
@given(vec, vec, vec, vec, st.floats(-3, 3), st.floats(-3, 3), st.floats(0.05, 1.0),
       st.floats(0.05, 1.0), st.floats(0.05, 2.0), st.sampled_from([2, 10, 100]))
def test_one_advance_is_many_shorter_ones(p, v, a, vg, yaw, goal_yaw, hp, hr, t, n):
    start = Trajectory(position=p, velocity=v, acceleration=a, rotation=_yaw(yaw),
                       angular_velocity=(0, yaw / 2, 0))
    goal = TrajectoryGoal(vg, _yaw(goal_yaw), hp, hr)
    once = start.copy()
    capi.maniAdvanceTrajectory(once, goal, t)
    many = start.copy()
    step = float(np.float32(t / n))
    for _ in range(n):
        capi.maniAdvanceTrajectory(many, goal, step)
    t_many = step * n                   # the steps' own total, a rounding from t
    bound = _bound(start, np.array(vg), t, n, once) + abs(t - t_many) * (
        float(np.abs(v).max()) + float(np.abs(vg).max()) + 1)
    assert np.abs(once.state[0:9] - many.state[0:9]).max() <= bound
    assert _angle_between(once.rotation, many.rotation) <= n * 2e-6 + 4e-6
    assert np.abs(once.angular_velocity - many.angular_velocity).max() <= n * 2e-6 * 10 + 1e-5


@pytest.mark.parametrize("half_life", [0.1, 0.3, 1.0])
def test_velocity_and_rotation_approach_the_goal_with_the_half_lifes_decay(half_life):
    v0, vg = np.array([0.0, 0.0, 100.0]), np.array([300.0, 0.0, 0.0])
    start = Trajectory(velocity=v0, rotation=_yaw(0.0))
    goal = TrajectoryGoal(vg, _yaw(1.2), half_life, half_life)
    y = 2 * math.log(2) / (half_life + 1e-5)
    previous = np.inf
    for k in range(1, 12):
        t = k * half_life / 2
        s = start.copy()
        capi.maniAdvanceTrajectory(s, goal, t)
        decay = (1 + y * t) * math.exp(-y * t)
        error = np.linalg.norm(s.velocity - vg)
        assert error == pytest.approx(np.linalg.norm(v0 - vg) * decay, rel=1e-4, abs=1e-3)
        assert _angle_between(s.rotation, _yaw(1.2)) == pytest.approx(1.2 * decay, rel=1e-3,
                                                                       abs=1e-5)
        assert error < previous
        previous = error
    # the half-life's meaning: e^(-y h) is a quarter, so the envelope halves each half of it
    assert math.exp(-y * half_life / 2) == pytest.approx(0.5, rel=1e-4)


def test_the_position_integrates_the_velocity():
    s = Trajectory(position=(1, 2, 3))
    goal = TrajectoryGoal((100, 0, 0), _yaw(0), 0.2, 0.2)
    capi.maniAdvanceTrajectory(s, goal, 10.0)
    # long after the spring settles it moves at the goal's speed: lag = the spring's 2 / y
    y = 2 * math.log(2) / (0.2 + 1e-5)
    assert s.position[0] == pytest.approx(1 + 100 * (10 - 2 / y), rel=1e-5)
    assert s.position[1] == 2 and s.position[2] == 3
    assert np.allclose(s.velocity, [100, 0, 0], atol=1e-3)


def test_zero_seconds_and_zero_half_lives():
    s = Trajectory(position=(1, 2, 3), velocity=(4, 0, 0))
    before = s.state.copy()
    capi.maniAdvanceTrajectory(s, TrajectoryGoal((0, 0, 0), _yaw(0.5), 0.2, 0.2), 0.0)
    assert np.allclose(s.state, before, atol=1e-6)
    capi.maniAdvanceTrajectory(s, TrajectoryGoal((9, 0, 0), _yaw(0.5), 0.0, 0.0), 1.0)
    assert np.allclose(s.velocity, [9, 0, 0]) and _angle_between(s.rotation, _yaw(0.5)) < 1e-5


def test_trajectory_features_in_the_roots_frame():
    db = WORLD.database          # y up, forward z: the ground plane is x, z
    root = Trajectory(position=(10, 5, 0), rotation=_yaw(math.pi / 2))   # facing +x
    sample = Trajectory(position=(13, 7, 0), rotation=_yaw(math.pi))    # 3 ahead, facing -z
    position, facing = capi.maniMotionDatabase_ComputeTrajectoryFeatures(db, root, sample)
    assert position.dtype == np.float32 and np.allclose(position, [0, 3], atol=1e-6)
    assert np.allclose(facing, [1, 0], atol=1e-6)       # -z is the root's +x (its right)


def test_trajectory_features_measure_as_the_database_does():
    """A root moving along the clip's own path gives the clip's trajectory features."""
    db = WORLD.database
    clip = WORLD.match_clip
    for t, o in ((0.1, 0.2), (0.3, 0.4)):
        a = capi.maniClip_GetRootMotion(clip, 0.0, t)
        b = capi.maniClip_GetRootMotion(clip, 0.0, t + o)
        root = Trajectory(position=a[0:3], rotation=a[3:7])
        sample = Trajectory(position=b[0:3], rotation=b[3:7])
        position, facing = capi.maniMotionDatabase_ComputeTrajectoryFeatures(db, root, sample)
        rel = capi.maniClip_GetRootMotion(clip, t, o)
        assert np.allclose(position, rel[[0, 2]], atol=1e-5)


def test_refusals_leave_the_trajectory_unchanged():
    good = TrajectoryGoal((1, 0, 0), _yaw(0.3), 0.2, 0.2)
    s = Trajectory(velocity=(1, 2, 3))
    before = s.state.copy()
    bad_goals = [TrajectoryGoal((np.nan, 0, 0)), TrajectoryGoal((0, 0, 0), (0, 0, 0, 2)),
                 TrajectoryGoal((0, 0, 0), _yaw(0), -0.1), TrajectoryGoal((0, 0, 0), _yaw(0), 0.2, np.inf),
                 TrajectoryGoal((1e39, 0, 0)), TrajectoryGoal((0, 0), _yaw(0))]
    for g in bad_goals:
        with pytest.raises(rt.InvalidError):
            capi.maniAdvanceTrajectory(s, g, 0.1)
    for seconds in (-0.1, float("nan"), float("inf"), 1e39, "1"):
        with pytest.raises(rt.InvalidError):
            capi.maniAdvanceTrajectory(s, good, seconds)
    for args in ((None, good, 0.1), (s, None, 0.1), (before, good, 0.1)):
        with pytest.raises(rt.InvalidError):
            capi.maniAdvanceTrajectory(*args)
    assert np.array_equal(s.state, before)
    # a state made wrong in place, and a motion past binary32
    s.rotation[...] = (0, 0, 0, 3)
    with pytest.raises(rt.InvalidError):
        capi.maniAdvanceTrajectory(s, good, 0.1)
    fast = Trajectory(velocity=(3e38, 0, 0))
    kept = fast.state.copy()
    with pytest.raises(rt.InvalidError):
        capi.maniAdvanceTrajectory(fast, TrajectoryGoal((3e38, 0, 0)), 100.0)
    assert np.array_equal(fast.state, kept)
    with pytest.raises(rt.InvalidError):
        Trajectory(rotation=(0, 0, 0, 0))
    for args in ((None, s, s), (WORLD.database, None, s), (WORLD.database, s, "x")):
        with pytest.raises(rt.InvalidError):
            capi.maniMotionDatabase_ComputeTrajectoryFeatures(*args)
