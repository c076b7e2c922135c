"""maniPose_SolveTwoBone against an independent law-of-cosines reference over random chains:
where the middle and end must land for a goal, a pole and the bones' lengths."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime.ik import TwoBoneSolve, solve_two_bone, solve_two_bone_batch

from ik_fixtures import chain_skeleton, model_rotations, positions, unit

START, MIDDLE, END = 1, 2, 3
seeds = st.integers(0, 2 ** 32 - 1)


def law_of_cosines(s, l1, l2, goal, pole, distance=None):
    """Where the middle and end go: the end on the start-goal line at the distance the
    chain can span, the middle on the pole's side of the line in the goal-pole plane, at the
    angle the law of cosines gives at the start."""
    g = np.asarray(goal) - s
    d = np.linalg.norm(g) if distance is None else distance
    d = min(max(d, abs(l1 - l2)), l1 + l2)
    line = g / np.linalg.norm(g)
    side = unit(pole - np.dot(pole, line) * line)
    cos_start = np.clip((l1 * l1 + d * d - l2 * l2) / (2 * l1 * d), -1, 1) if d > 0 else 1.0
    middle = s + l1 * (cos_start * line + math.sqrt(1 - cos_start ** 2) * side)
    return middle, s + d * line


def random_problem(seed, reach):
    """A chain, its pose at rest, lengths, a goal at `reach` times the chain's span (of the
    range between the bones' difference and sum; a negative one, that fraction of the
    difference), a pole across the goal line."""
    rng = np.random.default_rng(seed)
    sk = chain_skeleton(rng, rng.uniform(0.2, 2.0, 2), scale=(0.5, 2.0))
    pose = rt.Pose(sk)
    p = positions(sk, pose)
    l1, l2 = np.linalg.norm(p[MIDDLE] - p[START]), np.linalg.norm(p[END] - p[MIDDLE])
    low, high = abs(l1 - l2), l1 + l2
    distance = low + reach * (high - low) if reach >= 0 else -reach * low
    line = unit(rng.normal(size=3))
    pole = np.cross(line, unit(rng.normal(size=3)))
    return sk, pose, p, l1, l2, p[START] + distance * line, pole


@settings(max_examples=60, deadline=None)
@given(seeds, st.floats(0.02, 0.98))
def test_a_reachable_goal_lands_where_the_law_of_cosines_says(seed, reach):
    sk, pose, p, l1, l2, goal, pole = random_problem(seed, reach)
    reached = solve_two_bone(pose, sk, TwoBoneSolve(START, MIDDLE, END, tuple(goal), tuple(pole)))
    after = positions(sk, pose)
    middle, end = law_of_cosines(p[START], l1, l2, goal, pole)
    span = l1 + l2
    assert reached
    assert np.linalg.norm(after[END] - goal) <= 1e-5 * span
    assert np.linalg.norm(after[MIDDLE] - middle) <= 1e-5 * span
    assert np.array_equal(after[START], p[START])
    assert not pose.is_model_current


@settings(max_examples=40, deadline=None)
@given(seeds, st.sampled_from([1.5, 3.0, -0.5]))
def test_out_of_reach_straightens_and_too_near_folds(seed, reach):
    sk, pose, p, l1, l2, goal, pole = random_problem(seed, reach)
    reached = solve_two_bone(pose, sk, TwoBoneSolve(START, MIDDLE, END, tuple(goal), tuple(pole)))
    after = positions(sk, pose)
    middle, end = law_of_cosines(p[START], l1, l2, goal, pole)
    assert not reached
    assert np.linalg.norm(after[END] - end) <= 1e-5 * (l1 + l2)
    assert np.linalg.norm(after[MIDDLE] - middle) <= 1e-4 * (l1 + l2)


@settings(max_examples=40, deadline=None)
@given(seeds, st.floats(0.05, 0.95), st.floats(-3.0, 3.0))
def test_the_bend_lies_in_the_goal_pole_plane_turned_by_the_twist(seed, reach, twist):
    sk, pose, p, l1, l2, goal, pole = random_problem(seed, reach)
    solve_two_bone(pose, sk, TwoBoneSolve(START, MIDDLE, END, tuple(goal), tuple(pole),
                                          twist=twist))
    after = positions(sk, pose)
    line = unit(goal - p[START])
    bend = after[MIDDLE] - p[START]
    bend = unit(bend - np.dot(bend, line) * line)
    side = unit(pole - np.dot(pole, line) * line)
    want = math.cos(twist) * side + math.sin(twist) * np.cross(line, side)
    assert np.linalg.norm(bend - want) <= 1e-4


@settings(max_examples=40, deadline=None)
@given(seeds, st.floats(0.05, 0.95))
def test_solving_its_own_result_writes_nothing_bit_for_bit(seed, reach):
    sk, pose, p, l1, l2, goal, pole = random_problem(seed, reach)
    solve = TwoBoneSolve(START, MIDDLE, END, tuple(goal), tuple(pole), twist=0.3)
    solve_two_bone(pose, sk, solve)
    once = pose.locals.copy()
    assert solve_two_bone(pose, sk, solve)
    assert once.tobytes() == pose.locals.tobytes()


@settings(max_examples=30, deadline=None)
@given(seeds, st.floats(1.0, 3.0), st.floats(0.1, 1.0))
def test_soften_closes_on_the_reach_exponentially(seed, reach, soften):
    sk, pose, p, l1, l2, goal, pole = random_problem(seed, 0.5)
    far = l1 + l2
    goal = p[START] + unit(goal - p[START]) * far * reach * 0.9
    solve_two_bone(pose, sk, TwoBoneSolve(START, MIDDLE, END, tuple(goal), tuple(pole),
                                          soften=soften))
    d = np.linalg.norm(goal - p[START])
    knee = (1 - soften) * far
    want = d if d <= knee else knee + (far - knee) * (1 - math.exp(-(d - knee) / (far - knee)))
    _, end = law_of_cosines(p[START], l1, l2, goal, pole, distance=want)
    assert np.linalg.norm(positions(sk, pose)[END] - end) <= 1e-5 * far


def test_a_goal_at_the_start_turns_nothing_at_the_start():
    sk, pose, p, l1, l2, goal, pole = random_problem(7, 0.5)
    before = pose.locals.copy()
    solve_two_bone(pose, sk, TwoBoneSolve(START, MIDDLE, END, tuple(p[START]), tuple(pole)))
    assert pose.locals[START].tobytes() == before[START].tobytes()
    after = positions(sk, pose)
    assert abs(np.linalg.norm(after[END] - after[START]) - abs(l1 - l2)) <= 1e-5 * (l1 + l2)


def test_a_bone_of_no_length_turns_nothing_at_the_middle():
    rng = np.random.default_rng(3)
    sk = chain_skeleton(rng, [0.7, 0.0])
    pose = rt.Pose(sk)
    before = pose.locals.copy()
    p = positions(sk, pose)
    goal = p[START] + np.array([0.1, 0.2, 0.3])
    solve_two_bone(pose, sk, TwoBoneSolve(START, MIDDLE, END, tuple(goal), (0.0, 0.0, 1.0)))
    assert pose.locals[MIDDLE].tobytes() == before[MIDDLE].tobytes()
    after = positions(sk, pose)
    assert np.linalg.norm(unit(after[END] - p[START]) - unit(goal - p[START])) <= 1e-5


def test_a_hinge_in_the_middle_bones_frame_turns_about_that_axis_only():
    sk, pose, p, l1, l2, goal, pole = random_problem(11, 0.4)
    rot = model_rotations(sk, pose)
    # the chain's own bend normal, carried into the middle bone's frame
    from runtime_fixtures import rotate
    normal = unit(np.cross(p[END] - p[MIDDLE], p[START] - p[MIDDLE]))
    conj = rot[MIDDLE] * [-1, -1, -1, 1]
    hinge = rotate(conj, normal)
    a = pose.locals[MIDDLE, 3:7].astype(np.float64)
    solve_two_bone(pose, sk, TwoBoneSolve(START, MIDDLE, END, tuple(goal), tuple(pole),
                                          hinge=hinge))
    b = pose.locals[MIDDLE, 3:7].astype(np.float64)
    from runtime_fixtures import hamilton
    turn = hamilton(a * [-1, -1, -1, 1], b)       # the middle's local correction
    assert np.linalg.norm(np.cross(turn[:3], hinge)) <= 1e-6
    middle, _ = law_of_cosines(p[START], l1, l2, goal, pole)
    assert np.linalg.norm(positions(sk, pose)[MIDDLE] - middle) <= 1e-5 * (l1 + l2)


@pytest.mark.parametrize("weight", [0.0, 0.5])
def test_weight_takes_the_turns_that_fraction_of_the_way(weight):
    sk, pose, p, l1, l2, goal, pole = random_problem(5, 0.3)
    pose.locals[:, 3:7] *= np.float32(0.999)       # rotations a pose may hold, not quite unit
    before = pose.locals.copy()
    full = rt.Pose(sk)
    full.locals[...] = before
    solve_two_bone(full, sk, TwoBoneSolve(START, MIDDLE, END, tuple(goal), tuple(pole)))
    reached = solve_two_bone(pose, sk, TwoBoneSolve(START, MIDDLE, END, tuple(goal), tuple(pole),
                                                    weight=weight))
    assert not reached
    if weight == 0.0:
        assert pose.locals.tobytes() == before.tobytes()
        return
    from ik_fixtures import angle_between
    for b in (START, MIDDLE):
        q0 = before[b, 3:7].astype(np.float64)
        half, whole = angle_between(q0, pose.locals[b, 3:7]), angle_between(q0, full.locals[b, 3:7])
        assert abs(half - 0.5 * whole) <= 1e-5


@pytest.mark.parametrize("count", [20, 300])     # 300: spans of poses on several threads
def test_the_batch_equals_the_single_solves_bit_for_bit(count):
    sk, pose, p, l1, l2, goal, pole = random_problem(9, 0.5)
    rng = np.random.default_rng(0)
    batch = rt.PoseBatch(sk, count)
    batch.locals[...] += rng.normal(scale=1e-2, size=batch.locals.shape).astype(np.float32)
    goals = p[START] + rng.normal(scale=0.5, size=(count, 3)) * (l1 + l2)
    singles = []
    for i in range(count):
        one = rt.Pose(sk)
        one.locals[...] = batch.locals[i]
        singles.append((solve_two_bone(one, sk, TwoBoneSolve(START, MIDDLE, END, tuple(goals[i]),
                                                              tuple(pole))), one.locals.copy()))
    reached = solve_two_bone_batch(batch, sk, TwoBoneSolve(START, MIDDLE, END, (0.0, 0.0, 0.0),
                                                           tuple(pole)), goals)
    for i, (r, locals_) in enumerate(singles):
        assert reached[i] == r
        assert batch.locals[i].tobytes() == locals_.tobytes()
    assert not any(p.is_model_current for p in batch.poses)
    before = batch.buffer.copy()
    with pytest.raises(rt.InvalidError):    # refused by every span, before any writes
        solve_two_bone_batch(batch, sk, TwoBoneSolve(MIDDLE, START, END, (0.0, 0.0, 0.0)), goals,
                             reached)
    assert batch.buffer.tobytes() == before.tobytes()


def test_root_path_lists_the_bones_a_solve_reads():
    from runtime.ik.chain import root_path
    sk, *_ = random_problem(1, 0.5)
    assert root_path(sk, END).tolist() == [0, START, MIDDLE, END]
    with pytest.raises(rt.InvalidError):
        root_path(sk, sk.bone_count)
