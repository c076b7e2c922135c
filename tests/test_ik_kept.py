"""A solve description is converted once and kept (runtime/ik/kept.py): every way of changing
it afterwards (a field set, a list or a record edited in place, another skeleton) must
solve exactly as a description never solved before does, refusals included. The reference
is that fresh copy, built from the same values and solved on the same pose."""
import copy

import numpy as np
import pytest

import runtime as rt
from runtime.core.errors import InvalidError

from runtime_fixtures import humanoid

SK = humanoid()
B = {SK.bone_name(b): b for b in range(SK.bone_count)}
REST = rt.Pose(SK)


def fresh(solve):
    """The same description, never kept: every record copied, nothing kept carried over."""
    copied = copy.deepcopy(solve)
    copied.__dict__.pop("_kept", None)
    return copied


def kept(solve) -> bool:
    return solve.__dict__.get("_kept") is not None


def solved(solver, solve, *extra, skeleton=SK):
    pose = rt.Pose(skeleton)
    if skeleton is SK:
        pose.buffer[...] = REST.buffer
    reached = solver(pose, skeleton, solve, *extra)
    return pose.locals.copy(), reached


def same(solver, solve, *extra, skeleton=SK):
    """The kept description solves as a fresh copy of it does, bit for bit."""
    reference = fresh(solve)
    got, reached = solved(solver, solve, *extra, skeleton=skeleton)
    want, want_reached = solved(solver, reference, *extra, skeleton=skeleton)
    assert reached == want_reached
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def hip():
    return REST.model[B["upleg_l"], :, 3].astype(float)


def test_two_bone_follows_a_set_goal_and_an_edited_list():
    goal = tuple(hip() + [0.05, -0.6, 0.15])
    solve = rt.TwoBoneSolve(B["upleg_l"], B["leg_l"], B["foot_l"], goal, pole=(0.0, 0.0, 1.0))
    same(rt.solve_two_bone, solve)
    assert kept(solve)
    solve.goal = tuple(hip() + [-0.2, -0.4, 0.3])
    same(rt.solve_two_bone, solve)
    solve.goal = list(solve.goal)
    same(rt.solve_two_bone, solve)
    solve.goal[1] -= 0.3                # in place: a list is never kept
    same(rt.solve_two_bone, solve)
    solve.goal[0] = float("nan")
    with pytest.raises(InvalidError):
        solved(rt.solve_two_bone, solve)


def test_two_bone_kept_for_one_skeleton_is_checked_again_for_another():
    solve = rt.TwoBoneSolve(B["upleg_l"], B["leg_l"], B["foot_l"], tuple(hip() + [0.0, -0.5, 0.1]))
    same(rt.solve_two_bone, solve)
    small = humanoid(20)
    with pytest.raises(InvalidError):
        solved(rt.solve_two_bone, solve, skeleton=small)


def test_aim_follows_its_bones_and_shares_edited_in_place():
    eyes = REST.model[B["head"], :, 3].astype(float)
    solve = rt.AimSolve([B["spine2"], B["neck"], B["head"]], tuple(eyes + [1.0, 0.2, 2.0]),
                        (0.0, 0.0, 1.0), shares=[0.2, 0.3, 0.5], cone=1.2)
    same(rt.solve_aim, solve)
    solve.shares[0] = 0.9
    same(rt.solve_aim, solve)
    solve.bones[0] = B["spine1"] if "spine1" in B else B["spine"]
    same(rt.solve_aim, solve)
    solve.shares.append(0.1)            # now one share too many: refused
    with pytest.raises(InvalidError):
        solved(rt.solve_aim, solve)
    solve.shares.pop()
    solve.cone = 0.3
    same(rt.solve_aim, solve)


@pytest.mark.parametrize("solver", [rt.solve_ccd, rt.solve_fabrik])
def test_chains_follow_their_limits_edited_in_place(solver):
    knee = B["leg_l"]
    goal = tuple(hip() + [0.3, -0.5, 0.2])
    solve = rt.ChainSolve(B["upleg_l"], B["foot_l"], goal, iterations=8, tolerance=0.0)
    same(solver, solve)
    assert kept(solve)
    solve.limits.append(rt.HingeLimit(knee, (1.0, 0.0, 0.0), -0.5, 0.5))
    same(solver, solve)
    solve.limits[0].maximum = 0.1
    same(solver, solve)
    solve.limits[0].axis = [0.0, 0.0, 1.0]
    same(solver, solve)
    solve.limits[0].axis[2] = 0.0       # a list in a record, edited in place: no length now
    with pytest.raises(InvalidError):
        solved(solver, solve)
    solve.limits[0] = rt.ConeLimit(knee, 0.4)
    same(solver, solve)


def test_a_ccd_solve_kept_is_checked_again_as_fabrik_and_back():
    solve = rt.ChainSolve(B["upleg_l"], B["foot_l"], tuple(hip() + [0.3, -0.5, 0.2]), step=0.2)
    same(rt.solve_ccd, solve)
    with pytest.raises(InvalidError):     # FABRIK takes no step bound
        solved(rt.solve_fabrik, solve)
    same(rt.solve_ccd, solve)


@pytest.mark.parametrize("solver", [rt.solve_body_xpbd, rt.solve_body_sdls])
def test_body_follows_its_effectors_and_settings_edited_in_place(solver):
    effectors = [rt.BodyEffector(B[n], tuple(REST.model[B[n], :, 3] + [0.1, 0.05, -0.1]),
                                 rotation_weight=0.5) for n in ("hand_l", "toe_r")]
    solve = rt.BodySolve(top=B["hips"], effectors=effectors, iterations=4, tolerance=0.0)
    scratch = np.zeros(200_000, dtype=np.uint8)
    same(solver, solve, scratch)
    assert kept(solve)
    solve.effectors[0].goal = tuple(REST.model[B["hand_l"], :, 3] + [-0.2, 0.1, 0.0])
    same(solver, solve, scratch)
    solve.effectors.append(rt.BodyEffector(B["head"], tuple(REST.model[B["head"], :, 3] + 0.1)))
    same(solver, solve, scratch)
    solve.bones.append(rt.BodyBone(B["spine"] if "spine" in B else B["spine1"], stiffness=0.5))
    same(solver, solve, scratch)
    solve.bones[0].limit.kind = rt.BodyLimitKind.cone
    solve.bones[0].limit.high = 0.2
    same(solver, solve, scratch)
    solve.effectors[1].strength = 2.0   # out of [0, 1]: refused
    with pytest.raises(InvalidError):
        solved(solver, solve, scratch)


class Unequal:
    """An item whose comparison raises: a kept description meeting it converts anew."""

    def __eq__(self, other):
        raise ValueError("no comparison")

    __hash__ = None


def test_an_item_that_cannot_be_compared_is_refused_not_raised():
    eyes = REST.model[B["head"], :, 3].astype(float)
    solve = rt.AimSolve([B["neck"], B["head"]], tuple(eyes + [1.0, 0.2, 2.0]))
    same(rt.solve_aim, solve)
    assert kept(solve)
    for odd in (Unequal(), np.arange(3.0)):
        solve.bones[0] = odd
        with pytest.raises(InvalidError):
            solved(rt.solve_aim, solve)
        solve.bones[0] = B["neck"]
        same(rt.solve_aim, solve)
