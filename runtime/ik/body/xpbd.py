"""maniPose_SolveBodyXpbd: the part as rigid bodies, bent by XPBD's compliant passes."""
from __future__ import annotations

from . import kernels
from .description import prepare
from .frames import begin


def solve_body_xpbd(pose, skeleton, solve, scratch) -> bool:
    """Bends the solved part of `pose` toward the effectors' goals (kernels.xpbd says how);
    writes the locals of the bones it moves, leaves the model stale; returns whether every
    effector of some strength lies within the tolerance. Refused (the pose unchanged) as
    the spec's Returns line says."""
    p, S, common = prepare(pose, skeleton, solve, scratch)
    state = begin(pose, skeleton, p, S, common)
    k = common + 2 * p.eff_slot.size + 2 * p.part.size
    lam, bodies = S[common:k], S[k:k + 7 * p.part.size].reshape(-1, 7)
    reached, _ = kernels.xpbd(pose.locals, skeleton.rests, p.part, p.ppar, p.eff_slot, p.goals,
                              p.rots, p.rot_w, p.strength, p.stiff, p.stretch, p.lkind, p.laxis,
                              p.lrange, p.mode, p.iterations, p.tolerance, state, lam, bodies)
    pose.mark_stale()
    return bool(reached)
