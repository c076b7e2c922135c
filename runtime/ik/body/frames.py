"""The passes both solvers run over a packed description, from the part's frames set up in
the caller's scratch: what maniPose_SolveBodyXpbd and _SolveBodySdls do once their front
door has checked the call, and what a graph's body IK node does with its own goals."""
from __future__ import annotations

import numpy as np

from . import kernels
from .description import Packed, common_floats


def begin(locals_, skeleton, p: Packed, S: np.ndarray, common: int, goals) -> np.ndarray:
    """Frames from the locals, then preferred angles, pre-pull and pull chains; returns the
    scratch's common block (the kernels' S)."""
    state = S[:common]
    kernels.setup(locals_, skeleton.parents, p.part, p.ppar, state)
    kernels.first_steps(locals_, skeleton.rests, p.part, p.ppar, p.eff_slot, goals, p.strength, p.pull,
                        p.stiff, p.pref, p.pref_w, p.mode, p.pre_pull, state)
    return state


def solve_packed(p: Packed, locals_, skeleton, goals, rots, S: np.ndarray, sdls: bool) -> bool:
    """One solve of (n, 10) binary32 locals in place toward goals and rotations ((effectors,
    3) and unit (effectors, 4), binary64), S the float64 scratch (at least scratch_size's
    bytes); whether every effector of some strength lies within the tolerance."""
    common = common_floats(p)
    state = begin(locals_, skeleton, p, S, common, goals)
    if not sdls:
        k = common + 2 * p.eff_slot.size + 2 * p.part.size
        lam, bodies = S[common:k], S[k:k + 7 * p.part.size].reshape(-1, 7)
        reached, _ = kernels.xpbd(locals_, skeleton.rests, p.part, p.ppar, p.eff_slot, goals,
                                  rots, p.rot_w, p.strength, p.stiff, p.stretch, p.lkind, p.laxis,
                                  p.lrange, p.mode, p.iterations, p.tolerance, state, lam, bodies)
        return bool(reached)
    m, n = p.rows, p.col_slot.size
    at = common
    J, A = S[at:at + m * n].reshape(m, n), S[at + m * n:at + 2 * m * n].reshape(m, n)
    at += 2 * m * n
    W = S[at:at + m * m].reshape(m, m)
    at += m * m
    e, sig, phi, rho = S[at:at + m], S[at + m:at + 2 * m], S[at + 2 * m:at + 2 * m + n], \
        S[at + 2 * m + n:at + 2 * m + 2 * n]
    reached, _ = kernels.sdls(locals_, skeleton.rests, p.part, p.ppar, p.eff_slot, goals, rots,
                              p.rot_w, p.strength, p.stiff, p.stretch, p.lkind, p.laxis,
                              p.lrange, p.mode, p.iterations, p.tolerance, p.col_slot, p.col_scale,
                              state, J, A, W, e, sig, phi, rho)
    return bool(reached)
