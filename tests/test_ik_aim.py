"""maniPose_SolveAim: the forward onto the goal by the shortest arc (checked against a
Rodrigues reference), the up toward the pole, the offset line through the goal, shares
splitting the turn, the cone holding and the degenerate goals turning nothing."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime.ik import AimSolve, solve_aim

from ik_fixtures import (angle_between, chain_skeleton, direction_angle, model_rotations, positions,
                         unit)
from runtime_fixtures import hamilton, rotate, rotation_matrix

seeds = st.integers(0, 2 ** 32 - 1)
HEAD = 3


def arc_matrix(u, v):
    """The shortest rotation taking u onto v, by Rodrigues' formula."""
    u, v = unit(u), unit(v)
    axis = np.cross(u, v)
    s, c = np.linalg.norm(axis), np.dot(u, v)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]]) / s
    return np.eye(3) + s * k + (1 - c) * (k @ k)


def problem(seed, spread=0.6):
    rng = np.random.default_rng(seed)
    sk = chain_skeleton(rng, [0.3, 0.3], spread=spread, scale=(0.5, 2.0))
    return rng, sk, rt.Pose(sk)


def forward_of(sk, pose, forward, bone=HEAD):
    return unit(rotate(model_rotations(sk, pose)[bone], forward))


@settings(max_examples=50, deadline=None)
@given(seeds)
def test_one_bone_turns_its_forward_onto_the_goal_by_the_shortest_arc(seed):
    rng, sk, pose = problem(seed)
    forward = tuple(unit(rng.normal(size=3)))
    before = model_rotations(sk, pose)[HEAD]
    origin = positions(sk, pose)[HEAD]
    goal = origin + unit(rng.normal(size=3)) * rng.uniform(0.5, 5)
    f0 = forward_of(sk, pose, forward)
    if direction_angle(f0, goal - origin) > 3.0:
        return                      # the arc's axis is ill-conditioned near a half turn
    assert solve_aim(pose, sk, AimSolve([HEAD], tuple(goal), forward))
    after = model_rotations(sk, pose)[HEAD]
    want = arc_matrix(f0, goal - origin) @ rotation_matrix(before)
    assert np.abs(rotation_matrix(after) - want).max() <= 2e-6
    assert direction_angle(forward_of(sk, pose, forward), goal - origin) <= 2e-6


@settings(max_examples=50, deadline=None)
@given(seeds, st.floats(-3.0, 3.0))
def test_the_up_lies_toward_the_pole_turned_by_the_twist(seed, twist):
    rng, sk, pose = problem(seed)
    forward, up = (0.0, 0.0, 1.0), (0.0, 1.0, 0.0)
    origin = positions(sk, pose)[HEAD]
    goal = origin + unit(rng.normal(size=3)) * 2
    pole = unit(rng.normal(size=3))
    line = unit(goal - origin)
    if np.linalg.norm(np.cross(line, pole)) < 0.1:
        return
    solve_aim(pose, sk, AimSolve([HEAD], tuple(goal), forward, up, tuple(pole), twist=twist))
    u = forward_of(sk, pose, up)
    side = unit(pole - np.dot(pole, line) * line)
    want = math.cos(twist) * side + math.sin(twist) * np.cross(line, side)
    assert np.linalg.norm(u - want) <= 1e-5


@settings(max_examples=50, deadline=None)
@given(seeds)
def test_the_forward_line_from_the_offset_passes_through_the_goal(seed):
    rng, sk, pose = problem(seed)
    forward, offset = (1.0, 0.0, 0.0), tuple(rng.normal(size=3) * 0.2)
    origin = positions(sk, pose)[HEAD]
    reach = np.linalg.norm(pose.model[HEAD, :, :3].astype(np.float64) @ offset)
    goal = origin + unit(rng.normal(size=3)) * reach * rng.uniform(1.5, 5)
    assert solve_aim(pose, sk, AimSolve([HEAD], tuple(goal), forward, offset=offset))
    model = rt.Pose(sk)
    model.locals[...] = pose.locals
    model.compute_model(sk)
    m = model.model[HEAD].astype(np.float64)
    point = m[:, :3] @ offset + m[:, 3]
    f = unit(m[:, :3] @ forward)
    miss = goal - point
    assert np.dot(miss, f) > 0
    assert np.linalg.norm(miss - np.dot(miss, f) * f) <= 1e-4 * np.linalg.norm(miss)


def test_shares_split_the_turn_over_the_chain_and_the_forward_ends_on_the_goal():
    rng = np.random.default_rng(4)
    sk = chain_skeleton(rng, [0.01, 0.01], spread=0.2)
    pose = rt.Pose(sk)
    before = model_rotations(sk, pose)
    origin = positions(sk, pose)[HEAD]
    forward = (1.0, 0.0, 0.0)
    f0 = forward_of(sk, pose, forward)
    turn = 1.2
    axis = unit(np.cross(f0, rng.normal(size=3)))
    half = (*(axis * math.sin(turn / 2)), math.cos(turn / 2))
    goal = origin + 1000.0 * np.array(rotate(half, f0))
    shares = [1.0, 2.0, 3.0]
    assert solve_aim(pose, sk, AimSolve([1, 2, 3], tuple(goal), forward, shares=shares))
    after = model_rotations(sk, pose)
    # each bone's own turn (in model space, not counting its parent's) by its share
    own = []
    for b in (1, 2, 3):
        parent_turn = (hamilton(after[b - 1], before[b - 1] * [-1, -1, -1, 1]) if b > 1
                       else (0, 0, 0, 1))
        mine = hamilton(after[b], before[b] * [-1, -1, -1, 1])
        own.append(angle_between(parent_turn, mine))
    assert np.allclose(own, [turn * s / 6 for s in shares], atol=2e-3)
    assert direction_angle(forward_of(sk, pose, forward), goal - positions(sk, pose)[HEAD]) <= 1e-5


@settings(max_examples=40, deadline=None)
@given(seeds, st.floats(0.05, 1.5))
def test_the_cone_holds_the_forward_at_its_edge(seed, cone):
    rng, sk, pose = problem(seed)
    forward = (0.0, 1.0, 0.0)
    f0 = forward_of(sk, pose, forward)
    origin = positions(sk, pose)[HEAD]
    goal = origin + unit(rng.normal(size=3)) * 3
    wanted = direction_angle(f0, goal - origin)
    if abs(wanted - cone) < 1e-3 or wanted > 3.0:
        return
    reached = solve_aim(pose, sk, AimSolve([HEAD], tuple(goal), forward, cone=cone))
    turned = direction_angle(f0, forward_of(sk, pose, forward))
    assert reached == (wanted < cone)
    assert turned <= min(wanted, cone) + 1e-5
    assert abs(turned - min(wanted, cone)) <= 1e-5


@pytest.mark.parametrize("where", ["at the bone", "nearer than the offset"])
def test_degenerate_goals_turn_nothing(where):
    rng, sk, pose = problem(2)
    origin = positions(sk, pose)[HEAD]
    offset = (0.0, 0.5, 0.0)
    goal = origin if where == "at the bone" else origin + np.array([0.1, 0.1, 0.0])
    before = pose.locals.tobytes()
    assert not solve_aim(pose, sk, AimSolve([1, 2, HEAD], tuple(goal), offset=offset))
    assert pose.locals.tobytes() == before


def test_weight_zero_turns_nothing_and_its_own_result_writes_nothing():
    rng, sk, pose = problem(6)
    goal = tuple(positions(sk, pose)[HEAD] + np.array([1.0, 2.0, 0.5]))
    before = pose.locals.tobytes()
    assert not solve_aim(pose, sk, AimSolve([2, HEAD], goal, weight=0.0))
    assert pose.locals.tobytes() == before
    solve = AimSolve([2, HEAD], goal, pole=(0.0, 1.0, 0.0), twist=0.4)
    assert solve_aim(pose, sk, solve)
    once = pose.locals.tobytes()
    assert solve_aim(pose, sk, solve)
    assert pose.locals.tobytes() == once
