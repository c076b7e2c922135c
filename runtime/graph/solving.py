"""What the evaluation and the subset planner share about the IK nodes: the bones a node
writes (the end's root path from its first turned bone down to the end, the end included)
and the chain's limits as the chain kernel takes them; a body IK node's data as its
BodySolve."""
from __future__ import annotations

import math

import numpy as np

from ..ik.chain import path_to
from ..ik.body.description import (BodyBone, BodyEffector, BodyLimit, BodyLimitKind, BodySolve,
                                   BodyTopMode)
from ..ik.joints import LimitKind
from .source import NodeKind


def solver_bones(skeleton, node) -> tuple[np.ndarray, int]:
    """(the bones an IK node may write, its chain's end): a plan holding none of the first
    does not run the node; one holding any needs the end's whole root path."""
    d = node.data
    if node.kind == NodeKind.two_bone_ik:
        first, end = d.start, d.end
    elif node.kind == NodeKind.aim_ik:
        first, end = d.bones[0], d.bones[-1]
    else:
        first, end = d.root, d.end
    path = path_to(skeleton.parents, end)
    places = np.flatnonzero(path == first)
    return path[places[0]:] if places.size else path[-1:], end


def chain_limits(d) -> tuple:
    """A chain node's limits as ik.joints.packed gives them to the chain kernel: kinds,
    bones, data (the hinge axis normalized in binary64, the angles within pi)."""
    n = len(d.limits)
    kinds, bones, data = np.empty(n, np.int64), np.empty(n, np.int64), np.zeros((n, 5))
    for i, m in enumerate(d.limits):
        kinds[i], bones[i] = int(m.kind), m.bone
        if m.kind == LimitKind.hinge:
            axis = np.array(m.axis)
            data[i, :3] = axis / float(np.sqrt(axis @ axis))
        data[i, 3:] = max(m.low, -math.pi), min(m.high, math.pi)
    return kinds, bones, data


def body_solve(d) -> BodySolve:
    """A body IK node's data as the BodySolve its solvers take (the constants' goals and
    rotations; angles within pi)."""
    def angle(v):
        return min(max(v, -math.pi), math.pi)
    effectors = [BodyEffector(bone, goal, rot, rw, strength, pull)
                 for bone, _, _, goal, rot, rw, strength, pull in d.effectors]
    bones = [BodyBone(bone, stiff, BodyLimit(BodyLimitKind(lk), axis, angle(low), angle(high)), pref, pw,
                      stretch)
             for bone, lk, stiff, stretch, axis, low, high, pref, pw in d.settings]
    return BodySolve(d.top, effectors, bones, BodyTopMode(d.mode), d.pre_pull, d.iterations,
                     d.tolerance)
