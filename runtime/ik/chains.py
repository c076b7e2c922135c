"""Chain IK by CCD and FABRIK (maniPose_SolveCcd, maniPose_SolveFabrik): every bone from a
root down to an end (at most MAX_IK_CHAIN_BONES) bent toward a goal, within joint limits
(joints.py), in at most `iterations` iterations.

CCD sweeps from the end's parent up to the root, each bone turning by the shortest arc that
takes its direction to the end onto its direction to the goal, cut to `step` radians (0: no
cut), then limited; a bone whose origin lies on the end or the goal turns nothing. FABRIK
(Aristidou and Lasenby) places the end on the goal and each joint at its bone's length from
the one below it, back to the root, then from the root turns each bone by the shortest arc
onto its joint's place (its twist kept), limited; with a pole (a model-space direction; CCD
refuses one) the chain first turns about the root-to-goal line so its bend faces the pole.
Either stops early once the end lies within `tolerance` of the goal; then the end bone turns
`rotation_weight` of the way to the wanted model `rotation`, and its limits hold. Weight
takes each bone's turn that fraction of the way from the input.

Reached: the end within the tolerance of the goal."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..core import args
from ..core.errors import InvalidError, LimitError
from . import entry
from .joints import packed
from .kept import Kept
from .kernels import (CCD, CHAIN_TOO_LONG, FABRIK, HINGE_ALONG_BONE, LIMIT_OFF_CHAIN,
                      NOT_ANCESTORS, chain)
from .limits import MAX_IK_CHAIN_BONES, MAX_IK_ITERATIONS

Vector = Sequence[float]

_REFUSALS = {
    NOT_ANCESTORS: (InvalidError, "root is not an ancestor of end"),
    CHAIN_TOO_LONG: (LimitError, f"a chain past MAX_IK_CHAIN_BONES ({MAX_IK_CHAIN_BONES})"),
    LIMIT_OFF_CHAIN: (InvalidError, "a limit's bone is not on the chain"),
    HINGE_ALONG_BONE: (InvalidError, "a hinge limit's axis lies along its bone's axis"),
}


@dataclass
class ChainSolve(Kept):
    """maniChainSolve. Goal, pole and the wanted end rotation (x y z w, any length but 0)
    in the pose's model space; step in radians."""

    root: int
    end: int
    goal: Vector
    limits: Sequence = field(default_factory=list)
    iterations: int = 16
    tolerance: float = 1e-4
    step: float = 0.0
    pole: Vector = (0.0, 0.0, 0.0)
    rotation: Vector = (0.0, 0.0, 0.0, 1.0)
    rotation_weight: float = 0.0
    weight: float = 1.0


def _params(skeleton, solve, mode: int):
    if not isinstance(solve, ChainSolve):
        raise InvalidError("solve is not a ChainSolve")
    kept = solve.kept(skeleton, solve.limits, mode)
    if kept is not None:
        return kept
    root = entry.bone(solve.root, skeleton, "root")
    end = entry.bone(solve.end, skeleton, "end")
    iterations = args.integer(solve.iterations, "iterations")
    if iterations > MAX_IK_ITERATIONS:
        raise LimitError(f"{iterations} iterations past MAX_IK_ITERATIONS ({MAX_IK_ITERATIONS})")
    if iterations < 1:
        raise InvalidError("no iterations")
    limits = packed(skeleton, solve.limits)
    pole = entry.vector(solve.pole, "pole")
    if mode == CCD and any(pole):
        raise InvalidError("pole: CCD takes no pole (it must be zero)")
    rotation = entry.vector(solve.rotation, "rotation", 4)
    size = math.sqrt(sum(v * v for v in rotation))
    if size == 0.0:
        raise InvalidError("rotation of length 0")
    tolerance = entry.number(solve.tolerance, "tolerance")
    if tolerance < 0.0:
        raise InvalidError("tolerance below 0")
    step = entry.number(solve.step, "step")
    if not 0.0 <= step <= math.pi:
        raise InvalidError(f"step {step} outside [0, pi]")
    if mode == FABRIK and step != 0.0:
        raise InvalidError("step: FABRIK takes no step bound (it must be 0)")
    params = np.array(entry.vector(solve.goal, "goal") + pole + [v / size for v in rotation]
                      + [entry.fraction(solve.rotation_weight, "rotation weight"), tolerance,
                         step, entry.fraction(solve.weight, "weight")])
    return solve.keep(skeleton, (solve.limits, mode),
                      (solve.root, solve.end, solve.iterations, solve.tolerance, solve.step,
                       solve.pole, solve.rotation, solve.rotation_weight, solve.weight,
                       solve.goal), (root, end, iterations, limits, params))


def _solve(pose, skeleton, solve, mode: int, iterations_out) -> bool:
    locals_ = entry.target(pose, skeleton)
    root, end, iterations, (kinds, bones, data), params = _params(skeleton, solve, mode)
    if iterations_out is not None:
        args.output(iterations_out, "iu", (1,), "iterations_out")
    report = np.zeros(1, dtype=np.int64)
    code = chain(skeleton.parents, skeleton.rests, locals_, root, end, params, iterations,
                 kinds, bones, data, mode, report)
    if code < 0:
        error, why = _REFUSALS[code]
        raise error(why)
    pose.mark_stale()
    if iterations_out is not None:
        iterations_out[0] = report[0]
    return code == 1


def solve_ccd(pose, skeleton, solve: ChainSolve, iterations_out=None) -> bool:
    """Bends the chain of `pose` toward the goal by CCD; whether the end reached it. The
    iterations run go to iterations_out[0] when given (a (1,) integer array). The turned
    locals are written, the model left stale; a refusal writes nothing."""
    return _solve(pose, skeleton, solve, CCD, iterations_out)


def solve_fabrik(pose, skeleton, solve: ChainSolve, iterations_out=None) -> bool:
    """As solve_ccd, by FABRIK (which takes a pole, and refuses a step)."""
    return _solve(pose, skeleton, solve, FABRIK, iterations_out)
