"""Inverse kinematics on a pose (ik.h): two-bone chains, aim chains, and longer chains by
CCD and FABRIK within joint limits. Each solver reads the pose's locals, composes the frames
of its bones' root path itself (chain.py; the pose's model need not be current), writes the
locals it turns and leaves the model stale; stateless (a description converted once is kept
on it while unchanged: kept.py). The full-body solvers, XPBD and SDLS over one description,
are in `body`."""
from . import body
from .aim import AimSolve, solve_aim
from .chain import root_path
from .chains import ChainSolve, solve_ccd, solve_fabrik
from .joints import ConeLimit, HingeLimit, LimitKind, TwistLimit
from .limits import AIM_MAX_CONE, MAX_AIM_BONES, MAX_IK_CHAIN_BONES, MAX_IK_ITERATIONS
from .two_bone import TwoBoneSolve, solve_two_bone, solve_two_bone_batch

__all__ = ["body", "AimSolve", "solve_aim", "ChainSolve", "solve_ccd", "solve_fabrik",
           "ConeLimit", "HingeLimit", "LimitKind", "TwistLimit",
           "AIM_MAX_CONE", "MAX_AIM_BONES", "MAX_IK_CHAIN_BONES", "MAX_IK_ITERATIONS",
           "TwoBoneSolve", "solve_two_bone", "solve_two_bone_batch", "root_path"]
