"""Many instances of one binding a frame: their updates, then one evaluation for all.

The update and the evaluation run each node once for all the instances, as lanes of one
compiled loop (graph/update/driver.py, graph/evaluate/eval.py): a hundred instances cost the calls of one.
Each instance's update and pose are bit for bit what it alone gives.
"""
from __future__ import annotations

from itertools import repeat
from operator import attrgetter

from ..core.errors import InvalidError
from .evaluate.eval import evaluate_lanes
from .instance import GraphInstance
from .update.driver import update_many
from ..pose.pose import PoseBatch


def _check(instances) -> list:
    """The instances as a list, all of one binding (looked at without a Python step per
    instance: a batch's checks are paid each frame)."""
    insts = list(instances or ())
    if not insts or not all(map(isinstance, insts, repeat(GraphInstance))):
        raise InvalidError("no instances")
    if len(set(map(_binding, insts))) != 1:
        raise InvalidError("instances of different bindings")
    return insts


_binding = attrgetter("binding")


def update_batch(instances, delta, capacity=None) -> list:
    """Each instance's update: a list of (events, event count, root move), each as the
    instance's own update gives it (their root motion worked out together)."""
    insts = _check(instances)
    return update_many(insts, delta, capacity)


def evaluate_batch(instances, out: PoseBatch, scratch=None) -> None:
    """Instance k's pose into pose k of a batch of the graph's skeleton."""
    insts = _check(instances)
    sk = insts[0].binding.skeleton
    if not isinstance(out, PoseBatch) or out.skeleton_identity != sk.identity or \
            out.locals.shape[:2] != (len(insts), sk.bone_count):
        raise InvalidError("not a batch of the graph's skeleton, one pose an instance")
    evaluate_lanes(insts, out.locals, scratch)
    out.mark_kind(False)
