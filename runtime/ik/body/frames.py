"""The part's frames set up in the caller's scratch: the step both solvers begin with."""
from __future__ import annotations

import numpy as np

from . import kernels
from .description import Packed


def begin(pose, skeleton, p: Packed, S: np.ndarray, common: int) -> np.ndarray:
    """Frames from the pose's locals, then preferred angles, pre-pull and pull chains;
    returns the scratch's common block (the kernels' S)."""
    state = S[:common]
    kernels.setup(pose.locals, skeleton.parents, p.part, p.ppar, state)
    kernels.first_steps(pose.locals, skeleton.rests, p.part, p.ppar, p.eff_slot, p.goals, p.strength, p.pull,
                        p.stiff, p.pref, p.pref_w, p.mode, p.pre_pull, state)
    return state
