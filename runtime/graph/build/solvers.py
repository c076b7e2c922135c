"""Checking the IK nodes (two-bone, aim, CCD, FABRIK) into their file data, as their solvers'
front doors check a description (runtime/ik), with the build's reasons (graph/build/nodes.py's
table: `other` the field at fault by its place in the node's dataclass, an aim bone or a
limit as field << 16 | its place).

The checks only the skeleton can answer (a chain's ancestry and length, a limit's bone on
the chain, a hinge along its bone) are the solvers' own: their kernels run once on the rest
pose and their refusal codes are turned into the build's.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ...core.errors import BuildReason, LimitError
from ...ik.joints import KINDS as LIMIT_KINDS, LimitKind
from ...ik.kernels import (CCD, CHAIN_TOO_LONG, FABRIK, HINGE_ALONG_BONE, LIMIT_OFF_CHAIN,
                           NOT_ANCESTORS, chain)
from ...ik.limits import MAX_AIM_BONES, MAX_IK_ITERATIONS
from ...core.limits import NO_BONE
from .check import finite32, whole
from ..format import (AXIS_LENGTH, FORWARD_TOLERANCE, MAX_IK_LIMITS, PI32, AimData, ChainData,
                      BodyData, LimitData, SpringsData, TwoBoneData)
from ..solving import body_solve
from ...core.errors import InvalidError
from ...ik.body.description import BodySolve, pack
from ..source import (AimBone, AimIkNode, BodyIkNode, BodySolver, CcdIkNode, NodeKind,
                      ParameterType, SpringsNode,
                      TwoBoneIkNode, node_kind)
from .nodes import _invalid, _items, _parameter, _weight
from ..solving import chain_limits

VECTOR3 = (ParameterType.vector3,)
QUATERNION = (ParameterType.quaternion,)
FLOAT = (ParameterType.float_,)


def _fields(cls) -> dict:
    return {f.name: k for k, f in enumerate(dataclasses.fields(cls))}


TWO_BONE, AIM, CHAIN = _fields(TwoBoneIkNode), _fields(AimIkNode), _fields(CcdIkNode)
SPRINGS, BODY = _fields(SpringsNode), _fields(BodyIkNode)


class _Node:
    """One node's fields read with its refusals."""

    def __init__(self, node, place, ctx, fields):
        self.node, self.place, self.ctx, self.fields = node, place, ctx, fields

    def bad(self, name, message, reason=BuildReason.Node, item=None):
        other = self.fields[name] if item is None else self.fields[name] << 16 | item
        return _invalid(reason, self.place, other, message)

    def bone(self, name, value=None, item=None) -> int:
        value = getattr(self.node, name) if value is None else value
        k = whole(value)
        if k is None or not 0 <= k < self.ctx.skeleton.bone_count:
            raise self.bad(name, f"{name} {value!r} past the skeleton", item=item)
        return k

    def vector(self, name, n=3, value=None, item=None) -> tuple:
        value = getattr(self.node, name) if value is None else value
        try:
            out = tuple(finite32(v) for v in value)
        except TypeError:
            out = ()
        if len(out) != n or None in out:
            raise self.bad(name, f"{name} is not {n} finite numbers", item=item)
        return out

    def number(self, name, lo=-math.inf, hi=math.inf, value=None, item=None) -> float:
        value = getattr(self.node, name) if value is None else value
        v = finite32(value)
        if v is None or not lo <= v <= hi:
            raise self.bad(name, f"{name} {value!r} out of range", item=item)
        return v

    def fraction(self, name) -> float:
        return _weight(getattr(self.node, name), self.place, self.fields[name])

    def parameter(self, name, types) -> int:
        return _parameter(self.ctx, getattr(self.node, name), types, self.place, optional=True,
                          other=self.fields[name])


def _ancestor(skeleton, upper: int, lower: int) -> bool:
    """Whether upper is a strict ancestor of lower."""
    b = skeleton.parent(lower)
    while b != NO_BONE:
        if b == upper:
            return True
        b = skeleton.parent(b)
    return False


def solver_data(node, place, ctx):
    kind = node_kind(node)
    if kind == NodeKind.springs:
        return _springs(_Node(node, place, ctx, SPRINGS))
    if kind == NodeKind.body_ik:
        return _body(_Node(node, place, ctx, BODY))
    if kind == NodeKind.two_bone_ik:
        return _two_bone(_Node(node, place, ctx, TWO_BONE))
    if kind == NodeKind.aim_ik:
        return _aim(_Node(node, place, ctx, AIM))
    return _chain(_Node(node, place, ctx, CHAIN), kind)


def _springs(r: _Node) -> SpringsData:
    slot = whole(r.node.spring_set)
    if slot is None or not 0 <= slot < len(r.ctx.springs):
        raise _invalid(BuildReason.SpringSetSlot, r.place, slot & 0xFFFFFFFF if slot is not None
                       else 0xFFFFFFFF, f"spring set slot {r.node.spring_set!r} past the list")
    return SpringsData(r.ctx.springs[slot], r.parameter("position_parameter", VECTOR3),
                       r.parameter("rotation_parameter", QUATERNION),
                       r.parameter("force_parameter", VECTOR3),
                       r.parameter("reset", (ParameterType.trigger,)), r.vector("force"))


def _body(r: _Node) -> BodyData:
    """A body IK node: its solve as binary32 numbers, checked by ik.body's own pack (Node,
    other the solve field; a LimitError past its bounds); its parameters by effector."""
    solve = r.node.solve
    solver = r.node.solver
    if solver not in (BodySolver.xpbd, BodySolver.sdls) or isinstance(solver, bool):
        raise r.bad("solver", "an unknown solver")
    if not isinstance(solve, BodySolve):
        raise r.bad("solve", "not a BodySolve")
    try:
        pack(r.ctx.skeleton, solve)
        effs, sets = list(solve.effectors), list(solve.bones)
        d = BodyData(int(solve.top), int(solve.top_mode), int(solver), int(solve.iterations),
                     r.number("solve", 0.0, 1.0, solve.pre_pull), r.number("solve", 0.0, value=solve.tolerance),
                     [], [])
        params = []
        for name, types in (("goal_parameters", VECTOR3), ("rotation_parameters", QUATERNION)):
            given = _items(getattr(r.node, name), r.place, name)
            if len(given) > len(effs):
                raise r.bad(name, f"more {name} than effectors")
            params.append([_parameter(r.ctx, p, types, r.place, optional=True,
                                      other=BODY[name] << 16 | k)
                           for k, p in enumerate(given)] + [0xFFFFFFFF] * (len(effs) - len(given)))
        for k, e in enumerate(effs):
            d.effectors.append((int(e.bone), params[0][k], params[1][k], r.vector("solve", 3, e.goal),
                                r.vector("solve", 4, e.rotation), r.number("solve", value=e.rotation_weight),
                                r.number("solve", value=e.strength), r.number("solve", value=e.pull_chain)))
        for s in sets:
            m = s.limit
            d.settings.append((int(s.bone), int(m.kind), r.number("solve", value=s.stiffness),
                               r.number("solve", value=s.stretch), r.vector("solve", 3, m.axis),
                               r.number("solve", value=m.low), r.number("solve", value=m.high),
                               r.vector("solve", 3, s.preferred), r.number("solve", value=s.preferred_weight)))
        pack(r.ctx.skeleton, body_solve(d))     # as the file holds it
        if solver == BodySolver.sdls and any(s[3] > 0.0 for s in d.settings):
            raise InvalidError("stretch: SDLS keeps every length")
    except LimitError as exc:
        raise LimitError(f"node {r.place}: {exc}", reason=BuildReason.Node, item=r.place,
                         other=BODY["solve"]) from None
    except InvalidError as exc:
        if exc.reason is not None and exc.reason != BuildReason.None_:
            raise
        raise r.bad("solve", str(exc)) from None
    return d


def _two_bone(r: _Node) -> TwoBoneData:
    start, middle, end = r.bone("start"), r.bone("middle"), r.bone("end")
    sk = r.ctx.skeleton
    if not _ancestor(sk, start, middle):
        raise r.bad("middle", "start is not an ancestor of middle")
    if not _ancestor(sk, middle, end):
        raise r.bad("end", "middle is not an ancestor of end")
    return TwoBoneData(start, middle, end, r.parameter("goal_parameter", VECTOR3),
                       r.parameter("pole_parameter", VECTOR3),
                       r.parameter("weight_parameter", FLOAT), r.vector("goal"), r.vector("pole"),
                       r.vector("hinge"), r.number("twist"), r.fraction("soften"),
                       r.fraction("weight"))


def _aim(r: _Node) -> AimData:
    items = _items(r.node.bones, r.place, "bones")
    if len(items) > MAX_AIM_BONES:
        raise LimitError(f"node {r.place}: {len(items)} aim bones", reason=BuildReason.Node,
                         item=r.place, other=AIM["bones"])
    if not items:
        raise r.bad("bones", "no aim bones", BuildReason.Count)
    bones, shares = [], []
    for k, item in enumerate(items):
        if not isinstance(item, AimBone):
            raise r.bad("bones", "an aim bone that is not an AimBone", item=k)
        bones.append(r.bone("bones", item.bone, k))
        shares.append(r.number("bones", 0.0, value=item.share, item=k))
        if k and not _ancestor(r.ctx.skeleton, bones[k - 1], bones[k]):
            raise r.bad("bones", "aim bones not each an ancestor of the next", item=k)
    if max(shares) == 0.0:
        raise r.bad("bones", "every share 0")
    forward = r.vector("forward")
    if abs(math.sqrt(sum(v * v for v in forward)) - 1.0) > FORWARD_TOLERANCE:
        raise r.bad("forward", "forward not of length 1 within a thousandth")
    return AimData(bones, shares, r.parameter("goal_parameter", VECTOR3),
                   r.parameter("pole_parameter", VECTOR3), r.parameter("weight_parameter", FLOAT),
                   r.vector("goal"), forward, r.vector("up"), r.vector("pole"), r.vector("offset"),
                   r.number("twist"), r.number("cone", 0.0, PI32), r.fraction("weight"))


def _chain(r: _Node, kind: NodeKind) -> ChainData:
    ccd = kind == NodeKind.ccd_ik
    root, end = r.bone("root"), r.bone("end")
    iterations = whole(r.node.iterations)
    if iterations is None or iterations < 1:
        raise r.bad("iterations", "no iterations")
    if iterations > MAX_IK_ITERATIONS:
        raise LimitError(f"node {r.place}: {iterations} iterations", reason=BuildReason.Node,
                         item=r.place, other=CHAIN["iterations"])
    given = _items(r.node.limits, r.place, "limits")
    if len(given) > MAX_IK_LIMITS:
        raise LimitError(f"node {r.place}: {len(given)} limits", reason=BuildReason.Node,
                         item=r.place, other=CHAIN["limits"])
    limits = [_limit(r, m, k) for k, m in enumerate(given)]
    pole, pole_parameter = r.vector("pole"), r.parameter("pole_parameter", VECTOR3)
    if ccd and (any(pole) or pole_parameter != 0xFFFFFFFF):
        raise r.bad("pole" if any(pole) else "pole_parameter", "CCD takes no pole")
    step = r.number("step", 0.0, PI32)
    if not ccd and step != 0.0:
        raise r.bad("step", "FABRIK takes no step bound")
    rotation = r.vector("rotation", 4)
    if not any(rotation):
        raise r.bad("rotation", "an end rotation of length 0")
    d = ChainData(root, end, r.parameter("goal_parameter", VECTOR3), pole_parameter,
                  r.parameter("rotation_parameter", QUATERNION),
                  r.parameter("weight_parameter", FLOAT), iterations, limits, r.vector("goal"),
                  pole, rotation, r.fraction("rotation_weight"),
                  r.number("tolerance", 0.0), step, r.fraction("weight"))
    _chain_on_skeleton(r, d, CCD if ccd else FABRIK)
    return d


def _limit(r: _Node, m, k: int) -> LimitData:
    kind = LIMIT_KINDS.get(type(m))
    if kind is None:
        raise r.bad("limits", "a limit of an unknown kind", item=k)
    bone = r.bone("limits", m.bone, k)
    if kind == LimitKind.cone:
        return LimitData(kind, bone, (0.0, 0.0, 0.0), 0.0,
                         r.number("limits", 0.0, PI32, m.maximum, k))
    axis = (0.0, 0.0, 0.0)
    if kind == LimitKind.hinge:
        axis = r.vector("limits", 3, m.axis, k)
        if not math.sqrt(sum(v * v for v in axis)) > AXIS_LENGTH:
            raise r.bad("limits", "a hinge axis of no length", item=k)
    low = r.number("limits", -PI32, PI32, m.minimum, k)
    return LimitData(kind, bone, axis, low, r.number("limits", low, PI32, m.maximum, k))


def _chain_on_skeleton(r: _Node, d: ChainData, mode: int) -> None:
    """The solver's own refusals on the rest pose: root not an ancestor of end, a chain too
    long, a limit off the chain, a hinge along its bone."""
    sk = r.ctx.skeleton
    kinds, bones, data = chain_limits(d)
    params = np.zeros(14)
    params[9] = 1.0
    code = chain(sk.parents, sk.rests, sk.rests.astype(np.float32), d.root, d.end, params, 1,
                 kinds, bones, data, mode, np.zeros(1, dtype=np.int64))
    if code == NOT_ANCESTORS:
        raise r.bad("end", "root is not an ancestor of end")
    if code == CHAIN_TOO_LONG:
        raise LimitError(f"node {r.place}: a chain past MAX_IK_CHAIN_BONES",
                         reason=BuildReason.Node, item=r.place, other=CHAIN["end"])
    if code in (LIMIT_OFF_CHAIN, HINGE_ALONG_BONE):
        raise r.bad("limits", "a limit off the chain or a hinge along its bone")
