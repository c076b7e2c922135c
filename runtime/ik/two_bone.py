"""Two-bone IK (maniPose_SolveTwoBone): a start, middle and end bone (each an ancestor of the
next, other bones between them allowed) bent so the end reaches a goal.

The middle turns about its hinge until the start-to-end distance is the goal's (a goal out of
reach straightens the chain, one nearer than the bones' difference folds it); the chain
bends the way a positive turn about the hinge takes it from straight. A hinge of zero turns
about the chain's own bend (a straight chain then cannot bend). Then the start turns the
end onto the goal by the shortest arc and about the start-goal line so the middle lies
toward the pole, then by the twist: the twist is measured from the pole, so without one (a
pole of zero, or along the line) the bend stays where the arc put it and the twist turns it
from there. Soften is the part of the reach over which the chain closes on straight
exponentially instead of snapping (0: none). Weight takes each turn that fraction of the way.

Reached: the end within REACH (1e-5) of the chain's length from the goal. The solve on its
own result writes nothing, bit for bit (at weight 1, with a pole or no twist): the turns it
finds are rounding, under KEEP_ANGLE."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..core import threads
from ..core.errors import InvalidError
from ..pose.pose import DIFFERENCE, SPAN_POSES, PoseBatch
from ..pose.skeleton import opened
from . import entry
from .kept import Kept
from .kernels import NOT_ANCESTORS, two_bone, two_bone_batch, within32

Vector = Sequence[float]


@dataclass
class TwoBoneSolve(Kept):
    """maniTwoBoneSolve. Goal and pole in the pose's model space (the pole a direction);
    the hinge an axis in the middle bone's local frame; twist in radians."""

    kernels = (two_bone,)   # what solve_two_bone runs, of one declared signature (jit.compile_aside)

    start: int
    middle: int
    end: int
    goal: Vector
    pole: Vector = (0.0, 0.0, 0.0)
    hinge: Vector = (0.0, 0.0, 0.0)
    twist: float = 0.0
    soften: float = 0.0
    weight: float = 1.0


def _converted(skeleton, solve) -> tuple:
    if not isinstance(solve, TwoBoneSolve):
        raise InvalidError("solve is not a TwoBoneSolve")
    kept = solve.kept(skeleton)
    if kept is not None:
        return kept
    bones = (entry.bone(solve.start, skeleton, "start"),
             entry.bone(solve.middle, skeleton, "middle"), entry.bone(solve.end, skeleton, "end"))
    params = np.array(entry.vector(solve.goal, "goal") + entry.vector(solve.pole, "pole")
                      + entry.vector(solve.hinge, "hinge")
                      + [entry.number(solve.twist, "twist"), entry.fraction(solve.soften, "soften"),
                         entry.fraction(solve.weight, "weight")])
    return solve.keep(skeleton, (), (solve.start, solve.middle, solve.end, solve.goal, solve.pole,
                                     solve.hinge, solve.twist, solve.soften, solve.weight),
                      (bones, params))


def _refused(code: int) -> None:
    if code == NOT_ANCESTORS:
        raise InvalidError("start, middle and end are not each an ancestor of the next")


def solve_two_bone(pose, skeleton, solve: TwoBoneSolve) -> bool:
    """Bends the chain of `pose` toward the goal; whether the end reached it. The turned
    locals are written, the model left stale; a refusal writes nothing."""
    locals_ = entry.target(pose, skeleton)
    (start, middle, end), params = _converted(skeleton, solve)
    code = two_bone(skeleton.parents, locals_, start, middle, end, params)
    _refused(code)
    pose.mark_stale()
    return code == 1


def solve_two_bone_batch(batch: PoseBatch, skeleton, solve: TwoBoneSolve, goals=None,
                         reached=None) -> np.ndarray:
    """The solve on every pose of a batch in one call, pose i toward goals[i] ((poses, 3),
    the solve's goal for all when None); `reached` ((poses,) bool, or new) says which
    reached. Each pose's result equals the single solve's bit for bit, on any number of
    threads (a big batch is cut into spans of poses, one a core: core.threads)."""
    opened(skeleton)
    if not isinstance(batch, PoseBatch):
        raise InvalidError("batch is not a PoseBatch")
    if batch.skeleton_identity != skeleton.identity:
        raise InvalidError("a batch of another skeleton")
    count = batch.locals.shape[0]
    if (batch._head[:, 1] & DIFFERENCE).any():       # the batch's header words, one row a pose
        raise InvalidError("a pose of the batch is a difference")
    bones, params = _converted(skeleton, solve)
    goals, step = _goals(goals, params, count)
    if reached is not None:
        entry.args.output(reached, "b", (count,), "reached")
    skeleton.check_parents()
    found = reached if _direct(reached) else np.empty(count, dtype=np.bool_)
    parents, locals_, codes = skeleton.parents, batch.locals, [0]

    def span(lo, hi):     # each pose on its own: the same bits on any thread count
        code = two_bone_batch(parents, locals_[lo:hi], *bones, params,
                              goals[lo:hi] if step else goals, step, found[lo:hi])
        codes.append(code)  # a refusal is the skeleton's: every span refuses before it writes
    threads.run_spans(span, 0, count, SPAN_POSES)
    _refused(min(codes))
    batch.mark_kind(False)          # none was a difference: every model now stale
    if reached is None or found is reached:
        return found
    reached[...] = found
    return reached


def _goals(goals, params, count: int) -> tuple:
    """The batch's goals as the kernel reads them, and the step from one pose's to the
    next's: the solve's own goal for all (step 0) when None. An array already of the
    kernel's type is checked in place, any other converted (args.floats, which words
    every refusal)."""
    if goals is None:
        return params[:3].reshape(1, 3), 0
    if not (type(goals) is np.ndarray and goals.dtype == np.float64 and goals.shape == (count, 3)
            and goals.flags.c_contiguous and within32(goals)):
        goals = entry.args.floats(goals, (count, 3), "goals", dtype=np.float64, within=np.float32)
    return goals, 1


def _direct(reached) -> bool:
    """Whether the kernel can write `reached` itself (a C-contiguous bool array)."""
    return reached is not None and reached.dtype == np.bool_ and reached.flags.c_contiguous
