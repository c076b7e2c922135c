"""ik.h."""
from ..core.errors import InvalidError
from ..ik.aim import solve_aim
from ..ik.chains import solve_ccd, solve_fabrik
from ..ik.joints import LimitKind
from ..ik.limits import AIM_MAX_CONE, MAX_AIM_BONES, MAX_IK_CHAIN_BONES, MAX_IK_ITERATIONS
from ..ik.two_bone import solve_two_bone

__all__ = ["maniPose_SolveTwoBone", "maniPose_SolveAim", "maniPose_SolveCcd",
           "maniPose_SolveFabrik"]

MANI_MAX_IK_CHAIN_BONES = MAX_IK_CHAIN_BONES
MANI_MAX_IK_ITERATIONS = MAX_IK_ITERATIONS
MANI_MAX_AIM_BONES = MAX_AIM_BONES
MANI_AIM_MAX_CONE = AIM_MAX_CONE
maniIkLimitHinge = LimitKind.hinge
maniIkLimitCone = LimitKind.cone
maniIkLimitTwist = LimitKind.twist
__constants__ = ["MANI_MAX_IK_CHAIN_BONES", "MANI_MAX_IK_ITERATIONS", "MANI_MAX_AIM_BONES",
                 "MANI_AIM_MAX_CONE", "maniIkLimitHinge", "maniIkLimitCone", "maniIkLimitTwist"]


def _given(value, what: str):
    if value is None:
        raise InvalidError(f"no {what}")
    return value


def maniPose_SolveTwoBone(pose, skeleton, solve) -> bool:
    """reachedOut as the return value; the solve a runtime.ik.TwoBoneSolve."""
    return solve_two_bone(_given(pose, "pose"), _given(skeleton, "skeleton"),
                          _given(solve, "solve"))


def maniPose_SolveAim(pose, skeleton, solve) -> bool:
    """reachedOut as the return value; the solve a runtime.ik.AimSolve."""
    return solve_aim(_given(pose, "pose"), _given(skeleton, "skeleton"),
                     _given(solve, "solve"))


def maniPose_SolveCcd(pose, skeleton, solve) -> bool:
    """reachedOut as the return value; the solve a runtime.ik.ChainSolve."""
    return solve_ccd(_given(pose, "pose"), _given(skeleton, "skeleton"),
                     _given(solve, "solve"))


def maniPose_SolveFabrik(pose, skeleton, solve) -> bool:
    """reachedOut as the return value; the solve a runtime.ik.ChainSolve."""
    return solve_fabrik(_given(pose, "pose"), _given(skeleton, "skeleton"),
                        _given(solve, "solve"))
