"""maniPose_SolveBodyXpbd: the part as rigid bodies, bent by XPBD's compliant passes."""
from __future__ import annotations

from .description import prepare
from .frames import solve_packed


def solve_body_xpbd(pose, skeleton, solve, scratch) -> bool:
    """Bends the solved part of `pose` toward the effectors' goals (kernels.xpbd says how);
    writes the locals of the bones it moves, leaves the model stale; returns whether every
    effector of some strength lies within the tolerance. Refused (the pose unchanged) as
    the spec's Returns line says."""
    p, S, _ = prepare(pose, skeleton, solve, scratch)
    reached = solve_packed(p, pose.locals, skeleton, p.goals, p.rots, S, False)
    pose.mark_stale()
    return reached
