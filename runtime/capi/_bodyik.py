"""bodyik.h."""
from ..core.errors import InvalidError
from ..ik.body import (BodySolve, BodyLimitKind, BodyTopMode, body_ik_scratch_size, solve_body_sdls,
                       solve_body_xpbd)
from ..ik.body import MAX_BODY_IK_BONES as MANI_MAX_BODY_IK_BONES
from ..ik.body import MAX_BODY_IK_EFFECTORS as MANI_MAX_BODY_IK_EFFECTORS

maniBodyTopPinned, maniBodyTopHeld, maniBodyTopFree = (int(m) for m in BodyTopMode)
maniBodyLimitNone, maniBodyLimitHinge, maniBodyLimitCone, maniBodyLimitTwist = (int(k) for k in BodyLimitKind)

__constants__ = ["MANI_MAX_BODY_IK_BONES", "MANI_MAX_BODY_IK_EFFECTORS", "maniBodyTopPinned",
                 "maniBodyTopHeld", "maniBodyTopFree", "maniBodyLimitNone", "maniBodyLimitHinge",
                 "maniBodyLimitCone", "maniBodyLimitTwist"]
__all__ = ["maniSkeleton_GetBodyIkScratchSize", "maniPose_SolveBodyXpbd", "maniPose_SolveBodySdls"]


def maniSkeleton_GetBodyIkScratchSize(skeleton, solve) -> int:
    return body_ik_scratch_size(skeleton, solve)


def _solve(solve) -> BodySolve:
    if not isinstance(solve, BodySolve):
        raise InvalidError("no solve")
    return solve


def maniPose_SolveBodyXpbd(pose, skeleton, solve, scratch) -> bool:
    """reachedOut, returned; `scratch` is the caller's bytes (their length the size)."""
    return solve_body_xpbd(pose, skeleton, _solve(solve), scratch)


def maniPose_SolveBodySdls(pose, skeleton, solve, scratch) -> bool:
    """reachedOut, returned; `scratch` is the caller's bytes (their length the size)."""
    return solve_body_sdls(pose, skeleton, _solve(solve), scratch)
