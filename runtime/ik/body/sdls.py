"""maniPose_SolveBodySdls: the part bent by selectively damped least squares (Buss and Kim)."""
from __future__ import annotations

from ...core.errors import InvalidError
from . import kernels
from .description import prepare
from .frames import begin


def solve_body_sdls(pose, skeleton, solve, scratch) -> bool:
    """Bends the solved part of `pose` toward the effectors' goals (kernels.sdls says how);
    every length kept, so a setting with stretch is refused. Writes the locals of the bones
    it turns, leaves the model stale; returns whether every effector of some strength lies
    within the tolerance."""
    p, S, common = prepare(pose, skeleton, solve, scratch)
    if (p.stretch > 0.0).any():
        raise InvalidError("stretch: SDLS keeps every length")
    m, n = p.rows, p.col_slot.size
    at = common
    J, A = S[at:at + m * n].reshape(m, n), S[at + m * n:at + 2 * m * n].reshape(m, n)
    at += 2 * m * n
    W = S[at:at + m * m].reshape(m, m)
    at += m * m
    e, sig, phi, rho = S[at:at + m], S[at + m:at + 2 * m], S[at + 2 * m:at + 2 * m + n], \
        S[at + 2 * m + n:at + 2 * m + 2 * n]
    state = begin(pose, skeleton, p, S, common)
    reached, _ = kernels.sdls(pose.locals, skeleton.rests, p.part, p.ppar, p.eff_slot, p.goals,
                              p.rots, p.rot_w, p.strength, p.stiff, p.stretch, p.lkind, p.laxis,
                              p.lrange, p.mode, p.iterations, p.tolerance, p.col_slot, p.col_scale,
                              state, J, A, W, e, sig, phi, rho)
    pose.mark_stale()
    return bool(reached)
