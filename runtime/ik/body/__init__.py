"""Full-body inverse kinematics (bodyik.h): one description, two solvers over it, XPBD
rigid bodies and selectively damped least squares, in caller scratch."""
from .description import (MAX_BODY_IK_BONES, MAX_BODY_IK_EFFECTORS, BodyBone, BodyEffector,
                          BodyLimit, BodySolve, BodyLimitKind, BodyTopMode, body_ik_scratch_size)
from .sdls import solve_body_sdls
from .xpbd import solve_body_xpbd

__all__ = ["MAX_BODY_IK_BONES", "MAX_BODY_IK_EFFECTORS", "BodyBone", "BodyEffector", "BodyLimit",
           "BodySolve", "BodyLimitKind", "BodyTopMode", "body_ik_scratch_size", "solve_body_sdls",
           "solve_body_xpbd"]
