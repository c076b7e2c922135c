"""solve_two_bone_batch's front door and the two-bone kernel's pieces: the same bits on one
thread and two, the solve's own goal for all, goals checked in place and refused with the
batch unchanged, reached written in place; the KEEP_ANGLE decision made without the
arctangent agrees with it, and the turn built from an angle's cosine and sine is that turn."""
import math

import numba
import numpy as np
import pytest

import runtime as rt
from runtime.ik import TwoBoneSolve, solve_two_bone, solve_two_bone_batch
from runtime.ik.chain import rounding
from runtime.ik.kernels import _about
from runtime.ik.limits import KEEP_ANGLE
from runtime.pose.pose import SPAN_POSES

from test_ik_two_bone import END, MIDDLE, START, random_problem
from test_threads import on_threads


def jittered_batch(count, seed=0):
    sk, pose, p, l1, l2, goal, pole = random_problem(seed, 0.5)
    rng = np.random.default_rng(seed)
    batch = rt.PoseBatch(sk, count)
    q = batch.locals[..., 3:7] + rng.normal(scale=3e-2, size=batch.locals[..., 3:7].shape)
    batch.locals[..., 3:7] = q / np.linalg.norm(q, axis=-1, keepdims=True)   # scales uniform
    goals = p[START] + rng.normal(scale=0.5, size=(count, 3)) * (l1 + l2)
    return sk, batch, goals, tuple(goal), tuple(pole)


def test_the_batch_is_the_same_bits_on_one_thread_and_two():
    count = 4 * SPAN_POSES + 3
    sk, batch, goals, _, pole = jittered_batch(count, 3)
    start = batch.locals.copy()

    def run():
        batch.locals[...] = start
        reached = solve_two_bone_batch(batch, sk, TwoBoneSolve(START, MIDDLE, END, (0.0,) * 3,
                                                               pole), goals)
        return batch.locals.copy(), reached
    (one, r1), (two, r2) = on_threads(1, run), on_threads(2, run)
    assert one.tobytes() == two.tobytes() and r1.tobytes() == r2.tobytes()
    assert not np.array_equal(one, start) and r1.any() and not r1.all()


def test_without_goals_every_pose_takes_the_solves_goal():
    sk, batch, _, goal, pole = jittered_batch(2 * SPAN_POSES + 1, 4)
    solve = TwoBoneSolve(START, MIDDLE, END, goal, pole)
    singles = []
    for i in range(len(batch.poses)):
        one = rt.Pose(sk)
        one.locals[...] = batch.locals[i]
        singles.append((solve_two_bone(one, sk, solve), one.locals.copy()))
    reached = solve_two_bone_batch(batch, sk, solve)
    for i, (r, locals_) in enumerate(singles):
        assert reached[i] == r and batch.locals[i].tobytes() == locals_.tobytes()


@pytest.mark.parametrize("bad", [math.nan, math.inf, -1e39])
@pytest.mark.parametrize("as_list", [False, True])
def test_goals_not_finite_in_binary32_are_refused_with_the_batch_unchanged(bad, as_list):
    count = 2 * SPAN_POSES + 5
    sk, batch, goals, _, pole = jittered_batch(count, 5)
    goals[count - 1, 2] = bad           # the last pose's, in the second span
    reached = np.ones(count, dtype=np.bool_)
    before = batch.buffer.copy()
    with pytest.raises(rt.InvalidError, match="goals"):
        solve_two_bone_batch(batch, sk, TwoBoneSolve(START, MIDDLE, END, (0.0,) * 3, pole),
                             goals.tolist() if as_list else goals, reached)
    assert batch.buffer.tobytes() == before.tobytes() and reached.all()


def test_a_goal_that_rounds_into_binary32_is_taken():
    sk, batch, goals, _, pole = jittered_batch(3, 6)
    goals[1, 0] = float(np.finfo(np.float32).max) * (1 + 2.0 ** -26)   # rounds down to F32_MAX
    solve_two_bone_batch(batch, sk, TwoBoneSolve(START, MIDDLE, END, (0.0,) * 3, pole), goals)


def test_reached_is_written_in_place_or_through_a_view():
    count = 2 * SPAN_POSES + 7
    sk, batch, goals, _, pole = jittered_batch(count, 7)
    start = batch.locals.copy()
    solve = TwoBoneSolve(START, MIDDLE, END, (0.0,) * 3, pole)
    want = solve_two_bone_batch(batch, sk, solve, goals)
    assert want.any() and not want.all()
    batch.locals[...] = start
    reached = np.zeros(count, dtype=np.bool_)
    assert solve_two_bone_batch(batch, sk, solve, goals, reached) is reached
    assert np.array_equal(reached, want)
    batch.locals[...] = start
    wide = np.zeros(2 * count, dtype=np.bool_)
    assert solve_two_bone_batch(batch, sk, solve, goals, wide[::2]).base is wide
    assert np.array_equal(wide[::2], want) and not wide[1::2].any()


@numba.njit
def _rounding_of(c):
    return rounding((c[0], c[1], c[2], c[3]))


@numba.njit
def _about_of(axis, c, s):
    return _about((axis[0], axis[1], axis[2]), c, s)


def test_the_keep_angle_decision_is_the_arctangents():
    rng = np.random.default_rng(8)
    for scale in (0.3, 0.49, 0.5, 0.51, 0.7, 1.0, 2.0, 1e3):
        for _ in range(400):
            half = 0.5 * KEEP_ANGLE * scale * rng.uniform(0.97, 1.03)
            axis = rng.normal(size=3)
            axis /= np.linalg.norm(axis)
            c = np.append(axis * math.sin(half), math.cos(half) * rng.choice([-1.0, 1.0]))
            c *= rng.uniform(0.5, 2.0)     # the decision is the angle's, at any length
            want = 2.0 * np.arctan2(np.linalg.norm(c[:3]), abs(c[3])) < KEEP_ANGLE
            assert _rounding_of(c) == want
    for c in ([0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0],
              [0.0, 0.0, 0.0, math.inf], [0.0, 0.0, 0.0, math.nan], [math.nan, 0, 0, 1.0],
              [math.inf, 0.0, 0.0, 1.0]):
        c = np.array(c)
        with np.errstate(invalid="ignore"):
            angle = 2.0 * np.arctan2(np.linalg.norm(c[:3]), abs(c[3]))
        assert _rounding_of(c) == (angle < KEEP_ANGLE or not math.isfinite(c[3]))


def test_the_turn_of_a_cosine_and_sine_is_that_angles():
    rng = np.random.default_rng(9)
    angles = np.concatenate([rng.uniform(-math.pi, math.pi, 2000),
                             [0.0, 1e-12, -1e-9, math.pi, -math.pi, math.pi - 1e-9,
                              -math.pi + 1e-12, 0.5 * math.pi, -0.5 * math.pi]])
    for a in angles:
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        want = np.append(axis * math.sin(a / 2), math.cos(a / 2))
        got = np.array(_about_of(axis, math.cos(a), math.sin(a)))
        assert got[3] >= 0.0
        assert min(np.abs(got - want).max(), np.abs(got + want).max()) <= 1e-15
