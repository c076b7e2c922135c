"""maniPose_SolveBodySdls: the part bent by selectively damped least squares (Buss and Kim)."""
from __future__ import annotations

from ...core.errors import InvalidError
from .description import prepare
from .frames import solve_packed


def solve_body_sdls(pose, skeleton, solve, scratch) -> bool:
    """Bends the solved part of `pose` toward the effectors' goals (kernels.sdls says how);
    every length kept, so a setting with stretch is refused. Writes the locals of the bones
    it turns, leaves the model stale; returns whether every effector of some strength lies
    within the tolerance."""
    p, S, _ = prepare(pose, skeleton, solve, scratch)
    if (p.stretch > 0.0).any():
        raise InvalidError("stretch: SDLS keeps every length")
    reached = solve_packed(p, pose.locals, skeleton, p.goals, p.rots, S, True)
    pose.mark_stale()
    return reached
