"""Every refusal the Returns lines of ik.h list, through the C names, each leaving the pose
unchanged bit for bit."""
import math
from dataclasses import replace

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.ik import AimSolve, ChainSolve, ConeLimit, HingeLimit, TwistLimit, TwoBoneSolve
from runtime.pose.skeleton import BoneSource, SkeletonSource

from runtime_fixtures import humanoid, open_skeleton

SK = humanoid(12)           # 3 spine2, 4 neck, 5 head; 6 shoulder, 7 arm, 9 forearm, 11 hand
LONG = open_skeleton(SkeletonSource([BoneSource(f"b{i}", i - 1, (0.0, 0.1, 0.0))
                                     for i in range(capi.MANI_MAX_IK_CHAIN_BONES + 2)]))
BAD = [float("nan"), float("inf"), 1e39]

TWO = TwoBoneSolve(7, 9, 11, (0.3, 1.2, 0.2), (0.0, 0.0, -1.0), (0.0, 0.0, 1.0))
AIM = AimSolve([3, 4, 5], (0.0, 1.6, 1.0), (0.0, 0.0, 1.0), pole=(0.0, 1.0, 0.0))
CHAIN = ChainSolve(6, 11, (0.3, 1.2, 0.2), [ConeLimit(7, 1.0)], iterations=8)


def _vectors(solve, field, n=3):
    return [replace(solve, **{field: tuple([v] + [0.0] * (n - 1))}) for v in BAD]


TWO_BONE = {
    "start out of range": [replace(TWO, start=12), replace(TWO, start=-1)],
    "middle out of range": [replace(TWO, middle=99)],
    "end out of range": [replace(TWO, end=2 ** 40)],
    "not each an ancestor": [replace(TWO, start=9, middle=7), replace(TWO, middle=8),
                             replace(TWO, start=9), replace(TWO, end=9), replace(TWO, start=5)],
    "goal": _vectors(TWO, "goal"), "pole": _vectors(TWO, "pole"), "hinge": _vectors(TWO, "hinge"),
    "twist": [replace(TWO, twist=v) for v in BAD],
    "soften": [replace(TWO, soften=v) for v in (-0.1, 1.5, float("nan"))],
    "weight": [replace(TWO, weight=v) for v in (-1e-9, 1.0001, float("nan"))],
}
AIM_BAD = {
    "count of 0": [replace(AIM, bones=[])],
    "bones out of range": [replace(AIM, bones=[3, 12]), replace(AIM, bones=[-1, 5])],
    "not each an ancestor": [replace(AIM, bones=[5, 4]), replace(AIM, bones=[4, 4]),
                             replace(AIM, bones=[7, 5])],
    "shares": [replace(AIM, shares=s) for s in ([1.0, -1.0, 1.0], [0.0, 0.0, 0.0],
                                                [1.0, float("nan"), 1.0], [1.0, 1.0])],
    "forward not of length 1": [replace(AIM, forward=(0.0, 0.0, 1.002)),
                                replace(AIM, forward=(0.0, 0.0, 0.0))] + _vectors(AIM, "forward"),
    "goal": _vectors(AIM, "goal"), "pole": _vectors(AIM, "pole"), "offset": _vectors(AIM, "offset"),
    "up": _vectors(AIM, "up"), "twist": [replace(AIM, twist=v) for v in BAD],
    "cone": [replace(AIM, cone=v) for v in (-0.01, math.pi + 1e-6, float("nan"))],
    "weight": [replace(AIM, weight=v) for v in (-0.5, 2.0)],
}
CHAIN_BAD = {
    "bones out of range": [replace(CHAIN, root=12), replace(CHAIN, end=-3),
                           replace(CHAIN, limits=[ConeLimit(40, 1.0)])],
    "root not an ancestor of the end": [replace(CHAIN, root=11), replace(CHAIN, root=4),
                                        replace(CHAIN, root=9, end=7)],
    "a limit off the chain": [replace(CHAIN, limits=[ConeLimit(4, 1.0)]),
                              replace(CHAIN, limits=[TwistLimit(3)])],
    "a limit of an unknown kind": [replace(CHAIN, limits=[object()]),
                                   replace(CHAIN, limits=[(7, 1.0)]), replace(CHAIN, limits=7)],
    "a limit out of range": [replace(CHAIN, limits=[ConeLimit(7, -0.1)]),
                             replace(CHAIN, limits=[ConeLimit(7, 4.0)]),
                             replace(CHAIN, limits=[TwistLimit(7, 1.0, 0.5)]),
                             replace(CHAIN, limits=[TwistLimit(7, -4.0, 0.5)]),
                             replace(CHAIN, limits=[HingeLimit(9, (0.0, 0.0, 1.0), -1.0, 3.5)]),
                             replace(CHAIN, limits=[HingeLimit(9, (0.0, 0.0, 0.0))]),
                             replace(CHAIN, limits=[HingeLimit(9, (float("nan"), 0.0, 1.0))]),
                             replace(CHAIN, limits=[ConeLimit(7, float("nan"))])],
    "a hinge along its bone's axis": [replace(CHAIN, limits=[HingeLimit(
        9, tuple(SK.rests[11, 0:3].astype(float)))])],
    "goal": _vectors(CHAIN, "goal"),
    "rotation": _vectors(CHAIN, "rotation", 4) + [replace(CHAIN, rotation=(0.0, 0.0, 0.0, 0.0))],
    "no iterations": [replace(CHAIN, iterations=0), replace(CHAIN, iterations=-5)],
    "tolerance": [replace(CHAIN, tolerance=v) for v in (-1e-9, float("inf"), float("nan"))],
    "step": [replace(CHAIN, step=v) for v in (-0.1, math.pi + 0.01, float("nan"))],
    "rotation weight": [replace(CHAIN, rotation_weight=v) for v in (-0.1, 1.1)],
    "weight": [replace(CHAIN, weight=v) for v in (-0.1, 1.1, float("nan"))],
}
CCD_BAD = {**CHAIN_BAD, "pole": _vectors(CHAIN, "pole") + [replace(CHAIN, pole=(0.0, 1.0, 0.0))]}
FABRIK_BAD = {**CHAIN_BAD, "pole": _vectors(CHAIN, "pole"),
              "step": CHAIN_BAD["step"] + [replace(CHAIN, step=0.1)]}
CASES = [(capi.maniPose_SolveTwoBone, TWO, TWO_BONE), (capi.maniPose_SolveAim, AIM, AIM_BAD),
         (capi.maniPose_SolveCcd, CHAIN, CCD_BAD), (capi.maniPose_SolveFabrik, CHAIN, FABRIK_BAD)]
LIMITS = {capi.maniPose_SolveAim: [replace(AIM, bones=[0, 1, 2, 3, 4, 5, 7, 9, 11])],
          capi.maniPose_SolveCcd: [replace(CHAIN, iterations=capi.MANI_MAX_IK_ITERATIONS + 1)],
          capi.maniPose_SolveFabrik: [replace(CHAIN, iterations=10 ** 6)]}


def _posed():
    pose = rt.Pose(SK)
    pose.locals[:, 3:7] = np.random.default_rng(0).normal(size=(12, 4)).astype(np.float32)
    pose.locals[:, 3:7] /= np.linalg.norm(pose.locals[:, 3:7], axis=1, keepdims=True)
    pose.mark_stale()
    return pose


def _refused(fn, pose, skeleton, solve, error):
    before = pose.buffer.tobytes()
    with pytest.raises(error):
        fn(pose, skeleton, solve)
    assert pose.buffer.tobytes() == before


@pytest.mark.parametrize("fn,good,bad", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_every_invalid_solve_is_refused_with_the_pose_unchanged(fn, good, bad):
    assert fn(_posed(), SK, good) in (True, False)
    for why, solves in bad.items():
        for solve in solves:
            _refused(fn, _posed(), SK, solve, rt.InvalidError)


@pytest.mark.parametrize("fn,good,bad", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_null_arguments_other_skeletons_and_differences_are_refused(fn, good, bad):
    _refused(fn, _posed(), None, good, rt.InvalidError)
    _refused(fn, _posed(), SK, None, rt.InvalidError)
    with pytest.raises(rt.InvalidError):
        fn(None, SK, good)
    _refused(fn, _posed(), humanoid(12, seed=1), good, rt.InvalidError)
    _refused(fn, rt.Pose(humanoid(14)), SK, good, rt.InvalidError)
    difference = _posed()
    capi.maniSkeleton_ComputePoseDifference(SK, _posed(), _posed(), difference)
    _refused(fn, difference, SK, good, rt.InvalidError)
    locked = rt.Pose.attach(bytes(_posed().buffer))
    _refused(fn, locked, SK, good, rt.InvalidError)
    other = {TwoBoneSolve: AIM, AimSolve: CHAIN, ChainSolve: TWO}[type(good)]
    _refused(fn, _posed(), SK, other, rt.InvalidError)


@pytest.mark.parametrize("fn", list(LIMITS), ids=lambda f: f.__name__)
def test_counts_past_the_limits_are_limit_errors(fn):
    for solve in LIMITS[fn]:
        _refused(fn, _posed(), SK, solve, rt.LimitError)


@pytest.mark.parametrize("fn", [capi.maniPose_SolveCcd, capi.maniPose_SolveFabrik],
                         ids=lambda f: f.__name__)
def test_a_chain_past_the_bone_limit_is_a_limit_error(fn):
    most = capi.MANI_MAX_IK_CHAIN_BONES
    pose = rt.Pose(LONG)
    assert fn(pose, LONG, ChainSolve(1, most, (0.0, 1.0, 1.0))) in (True, False)
    _refused(fn, rt.Pose(LONG), LONG, ChainSolve(0, most, (0.0, 1.0, 1.0)), rt.LimitError)


def test_the_constants_are_documented_values():
    assert capi.MANI_MAX_AIM_BONES == 8 and capi.MANI_MAX_IK_CHAIN_BONES == 32
    assert capi.MANI_MAX_IK_ITERATIONS == 256 and capi.MANI_AIM_MAX_CONE == math.pi
    assert "maniPose_SolveTwoBone" in capi.__all__ and "maniPose_SolveFabrik" not in capi.PENDING
