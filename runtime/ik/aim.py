"""Aim IK (maniPose_SolveAim): a bone, or a chain of up to MAX_AIM_BONES sharing the turn
(a look-at over spine, neck and head), aimed at a goal.

The aiming bone (the last) has a forward axis, an up axis and an offset point in its own
frame. Its forward line from the offset point is turned onto the goal by the shortest arc,
then about the line to the goal so the up lies in the plane of that line and the pole
(a model-space direction), on the pole's side, then by the twist. Without a pole across the
line (zero, or along it) the up stays as the arc put it and the twist turns from there. A
cone (radians) bounds how far the forward may turn from where the input pose points it: at
the edge the forward stops and the goal is not reached. A goal at the aiming bone, or nearer
to it than the offset point lies from the forward line, turns nothing.

With several bones (root first, each an ancestor of the next) each takes its share of what
remains of the aim when its turn comes, the last bone with a share all of it, so the shares
split the turn over the chain and the forward still ends on the goal. Shares None: equal.
Weight takes each bone's turn that fraction of the way from the input.

Reached: the forward line passes within REACH of the goal's distance from the goal, ahead,
and the cone did not cut it."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..core.errors import InvalidError, LimitError
from . import entry
from .kept import Kept
from .kernels import NOT_ANCESTORS, aim
from .limits import AIM_MAX_CONE, MAX_AIM_BONES

Vector = Sequence[float]
UNIT_TOLERANCE = 1e-3       # a forward of length 1 within a thousandth


@dataclass
class AimSolve(Kept):
    """maniAimSolve. Goal and pole in the pose's model space; forward, up and offset in the
    aiming bone's local frame; twist and cone in radians."""

    kernels = (aim,)    # what solve_aim runs, of one declared signature (jit.compile_aside)

    bones: Sequence[int]
    goal: Vector
    forward: Vector = (1.0, 0.0, 0.0)
    up: Vector = (0.0, 1.0, 0.0)
    pole: Vector = (0.0, 0.0, 0.0)
    offset: Vector = (0.0, 0.0, 0.0)
    shares: Sequence[float] | None = None
    twist: float = 0.0
    cone: float = AIM_MAX_CONE
    weight: float = 1.0


def _bones(skeleton, value) -> np.ndarray:
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        value = [value]
    if not isinstance(value, (list, tuple, np.ndarray)):
        raise InvalidError(f"bones must be a list of bones, not {type(value).__name__}")
    if len(value) == 0:
        raise InvalidError("bones: a count of 0")
    if len(value) > MAX_AIM_BONES:
        raise LimitError(f"{len(value)} bones past MAX_AIM_BONES ({MAX_AIM_BONES})")
    return np.array([entry.bone(b, skeleton, f"bones[{i}]") for i, b in enumerate(value)],
                    dtype=np.int64)


def _shares(value, count: int) -> np.ndarray:
    if value is None:
        return np.ones(count)
    shares = entry.vectors(value, "shares")
    if len(shares) != count:
        raise InvalidError(f"shares: {len(shares)} for {count} bones")
    if min(shares) < 0.0:
        raise InvalidError("shares: a share is negative")
    if max(shares) == 0.0:
        raise InvalidError("shares: all are 0")
    return np.array(shares)


def _converted(skeleton, solve: AimSolve) -> tuple:
    """The bones, shares and params the kernel takes, kept on the solve when it allows."""
    bones = _bones(skeleton, solve.bones)
    shares = _shares(solve.shares, len(bones))
    forward = entry.vector(solve.forward, "forward")
    x, y, z = forward
    if abs(math.sqrt(x * x + y * y + z * z) - 1.0) > UNIT_TOLERANCE:
        raise InvalidError("forward is not of length 1 within a thousandth")
    cone = entry.number(solve.cone, "cone")
    if not 0.0 <= cone <= AIM_MAX_CONE:
        raise InvalidError(f"cone {cone} outside [0, AIM_MAX_CONE]")
    params = np.array(entry.vector(solve.goal, "goal") + forward + entry.vector(solve.up, "up")
                      + entry.vector(solve.pole, "pole") + entry.vector(solve.offset, "offset")
                      + [entry.number(solve.twist, "twist"), cone,
                         entry.fraction(solve.weight, "weight")])
    return solve.keep(skeleton, (solve.bones, solve.shares),
                      (solve.goal, solve.forward, solve.up, solve.pole, solve.offset, solve.twist,
                       solve.cone, solve.weight), (bones, shares, params))


def solve_aim(pose, skeleton, solve: AimSolve) -> bool:
    """Aims the bones of `pose` at the goal; whether the forward reached it. The turned
    locals are written, the model left stale; a refusal writes nothing."""
    locals_ = entry.target(pose, skeleton)
    if not isinstance(solve, AimSolve):
        raise InvalidError("solve is not an AimSolve")
    converted = solve.kept(skeleton, solve.bones, solve.shares) or _converted(skeleton, solve)
    code = aim(skeleton.parents, locals_, *converted)
    if code == NOT_ANCESTORS:
        raise InvalidError("bones are not each an ancestor of the next")
    pose.mark_stale()
    return code == 1
