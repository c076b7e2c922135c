"""maniPose_SolveCcd and maniPose_SolveFabrik: convergence on reachable goals, every limit
kind never exceeded (measured by a plain swing-twist reference), FABRIK's pole, the end
rotation's weight, CCD's step bound."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime.ik import ChainSolve, ConeLimit, HingeLimit, TwistLimit, solve_ccd, solve_fabrik

from ik_fixtures import (angle_between, chain_skeleton, direction_angle, model_rotations,
                         positions, random_unit_quat, unit)
from runtime_fixtures import hamilton, rotate

seeds = st.integers(0, 2 ** 32 - 1)
SOLVERS = [solve_ccd, solve_fabrik]
ROOT = 1


def chain_problem(seed, bones=5, spread=1.0):
    """A chain of `bones` bones (places ROOT..ROOT + bones - 1, the end last) and a goal
    its end reaches in some other pose of the same bones' rotations."""
    rng = np.random.default_rng(seed)
    sk = chain_skeleton(rng, rng.uniform(0.2, 1.0, bones - 1))
    end = ROOT + bones - 1
    other = rt.Pose(sk)
    for b in range(ROOT, end):
        other.locals[b, 3:7] = hamilton(other.locals[b, 3:7].astype(np.float64),
                                        random_unit_quat(rng, spread))
    span = sum(np.linalg.norm(np.diff(positions(sk, rt.Pose(sk))[ROOT:end + 1], axis=0), axis=1))
    return rng, sk, rt.Pose(sk), end, positions(sk, other)[end], span


@pytest.mark.parametrize("solver", SOLVERS)
@settings(max_examples=30, deadline=None)
@given(seed=seeds)
def test_a_reachable_goal_is_reached_within_the_tolerance(solver, seed):
    rng, sk, pose, end, goal, span = chain_problem(seed)
    tolerance = 1e-3 * span
    used = np.zeros(1, np.int64)
    solve = ChainSolve(ROOT, end, tuple(goal), iterations=256, tolerance=tolerance)
    assert solver(pose, sk, solve, iterations_out=used)
    assert np.linalg.norm(positions(sk, pose)[end] - goal) <= tolerance * (1 + 1e-6)
    assert 1 <= used[0] <= 256
    assert not pose.is_model_current


@pytest.mark.parametrize("solver", SOLVERS)
def test_an_unreachable_goal_straightens_the_chain_toward_it(solver):
    rng, sk, pose, end, goal, span = chain_problem(3)
    root = positions(sk, pose)[ROOT]
    far = root + unit(goal - root) * span * 3
    assert not solver(pose, sk, ChainSolve(ROOT, end, tuple(far), iterations=200, tolerance=1e-4))
    after = positions(sk, pose)
    assert direction_angle(after[end] - root, far - root) <= 1e-3
    assert np.linalg.norm(after[end] - root) >= span * (1 - 1e-3)


def bone_axis(sk, path, i):
    """The reference bone axis: toward the next chain bone at rest, or the end's own line."""
    if i < len(path) - 1:
        return unit(sk.rests[path[i + 1], 0:3])
    q = sk.rests[path[i], 3:7].astype(np.float64)
    return unit(rotate(q * [-1, -1, -1, 1], sk.rests[path[i], 0:3]))


def measured(sk, pose, bone, limit, axis_of_bone):
    """What a limit bounds, measured on the solved pose: the rest-relative turn's hinge
    angle and its angle off the hinge axis, the twist about the bone's axis, or the swing of
    the bone's axis."""
    rest = sk.rests[bone, 3:7].astype(np.float64)
    q = pose.locals[bone, 3:7].astype(np.float64)
    delta = np.array(hamilton(rest * [-1, -1, -1, 1], q / np.linalg.norm(q)))
    if delta[3] < 0:
        delta = -delta
    if isinstance(limit, HingeLimit):
        a = unit(limit.axis)
        angle = 2 * math.atan2(np.dot(delta[:3], a), delta[3])
        return angle, np.linalg.norm(np.cross(delta[:3], a))
    if isinstance(limit, TwistLimit):
        t = 2 * math.atan2(np.dot(delta[:3], axis_of_bone), delta[3])
        return math.atan2(math.sin(t), math.cos(t)), 0.0
    return direction_angle(axis_of_bone, rotate(delta, axis_of_bone)), 0.0


@pytest.mark.parametrize("solver", SOLVERS)
@settings(max_examples=40, deadline=None)
@given(seed=seeds)
def test_no_limit_is_ever_exceeded(solver, seed):
    rng, sk, pose, end, goal, span = chain_problem(seed)
    path = list(range(ROOT, end + 1))
    limits = []
    for i, b in enumerate(path):
        kind = rng.integers(3)
        if kind == 0:
            axis = np.cross(bone_axis(sk, path, i), rng.normal(size=3))
            low = rng.uniform(-2.5, 0.5)
            limits.append(HingeLimit(b, tuple(axis), low, low + rng.uniform(0.0, 2.0)))
        elif kind == 1:
            limits.append(ConeLimit(b, rng.uniform(0.0, 1.5)))
        else:
            low = rng.uniform(-2.0, 0.5)
            limits.append(TwistLimit(b, low, low + rng.uniform(0.0, 1.5)))
    pole = tuple(rng.normal(size=3)) if solver is solve_fabrik else (0.0, 0.0, 0.0)
    solver(pose, sk, ChainSolve(ROOT, end, tuple(goal), limits, iterations=20, pole=pole,
                                rotation=random_unit_quat(rng), rotation_weight=0.7))
    for i, (b, limit) in enumerate(zip(path, limits)):
        value, off_axis = measured(sk, pose, b, limit, bone_axis(sk, path, i))
        low = 0.0 if isinstance(limit, ConeLimit) else limit.minimum
        assert low - 1e-5 <= value <= limit.maximum + 1e-5, (b, limit, value)
        assert off_axis <= 1e-6


@pytest.mark.parametrize("side", [1.0, -1.0])
def test_a_pole_turns_fabriks_bend_toward_it(side):
    rng = np.random.default_rng(8)
    sk = chain_skeleton(rng, [0.5, 0.5, 0.5], spread=0.3)
    pose = rt.Pose(sk)
    p = positions(sk, pose)
    end = 4
    line = unit(p[end] - p[ROOT])
    goal = p[ROOT] + line * 0.6 * 1.5
    pole = side * unit(np.cross(line, rng.normal(size=3)))
    assert solve_fabrik(pose, sk, ChainSolve(ROOT, end, tuple(goal), iterations=100,
                                             tolerance=1e-5, pole=tuple(pole)))
    after = positions(sk, pose)
    to_goal = unit(goal - after[ROOT])
    bend = sum(after[b] - after[ROOT] - np.dot(after[b] - after[ROOT], to_goal) * to_goal
               for b in (2, 3))
    assert np.dot(unit(bend), pole) > 0.5       # FABRIK's passes then bend it in 3D


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("share", [0.0, 0.5, 1.0])
def test_the_end_turns_toward_the_wanted_rotation_by_its_weight(solver, share):
    rng, sk, pose, end, goal, span = chain_problem(12)
    wanted = np.array(random_unit_quat(rng))
    plain = rt.Pose(sk)
    solver(plain, sk, ChainSolve(ROOT, end, tuple(goal), iterations=30))
    solver(pose, sk, ChainSolve(ROOT, end, tuple(goal), iterations=30, rotation=tuple(wanted * 3),
                                rotation_weight=share))
    before, after = model_rotations(sk, plain)[end], model_rotations(sk, pose)[end]
    whole = angle_between(before, wanted)
    assert abs(angle_between(before, after) - share * whole) <= 1e-5
    assert abs(angle_between(after, wanted) - (1 - share) * whole) <= 1e-5
    assert np.array_equal(positions(sk, pose)[end], positions(sk, plain)[end])


@settings(max_examples=30, deadline=None)
@given(seeds, st.floats(0.01, 0.5))
def test_ccd_turns_no_bone_more_than_the_step_an_iteration(seed, step):
    rng, sk, pose, end, goal, span = chain_problem(seed, spread=2.5)
    before = pose.locals.copy()
    solve_ccd(pose, sk, ChainSolve(ROOT, end, tuple(goal), iterations=1, step=step))
    turns = [angle_between(before[b, 3:7], pose.locals[b, 3:7]) for b in range(ROOT, end)]
    assert max(turns) <= step + 2e-7        # binary32 quaternions: a few 1e-8 rad
    assert max(turns) > 0


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_goal_within_the_tolerance_runs_no_iteration_and_writes_nothing(solver):
    rng, sk, pose, end, goal, span = chain_problem(5)
    at = positions(sk, pose)[end]
    before = pose.locals.tobytes()
    used = np.full(1, 99, np.int64)
    assert solver(pose, sk, ChainSolve(ROOT, end, tuple(at + 1e-5), tolerance=1e-3), used)
    assert used[0] == 0 and pose.locals.tobytes() == before


@pytest.mark.parametrize("solver", SOLVERS)
def test_weight_zero_writes_nothing(solver):
    rng, sk, pose, end, goal, span = chain_problem(6)
    pose.locals[:, 3:7] *= np.float32(1.001)       # rotations a pose may hold, not quite unit
    before = pose.locals.tobytes()
    assert not solver(pose, sk, ChainSolve(ROOT, end, tuple(goal), weight=0.0))
    assert pose.locals.tobytes() == before
