"""Checking one source node of each kind into its file data (graph_format's dataclasses).

Refusals name the node by its place (item); `other` says what in it:

    Node       GRAPH_NONE: not a node of a known kind, an option of no such kind, an entry or
               chain limit out of range, a leader outside any sync group; otherwise the
               point, chain, state or final at fault (a point not finite or out of order,
               a bone past the skeleton, a final twice). LimitError: chains or triangles past
               their bounds (other the count)
    Count      a list the node needs not given (other 0)
    Input      an input that is no place of its graph (other the input's position); the
               wrong number of inputs (other INPUT_COUNT | the count). LimitError Node: past
               MAX_GRAPH_INPUTS
    Parameter  a parameter past the list or of a type the node cannot read (other the
               parameter as the node gives it)
    Clip       a clip slot past the list (other the slot as given)
    Scalar     a speed, scale, time, period, duration or half-life out of form (other the
               field: 0 the node's first number, 1 its second, ...); LimitError past
               MAX_GRAPH_TIME_FACTOR or MAX_GRAPH_SECONDS
    Weight     a weight not within 0 to 1 (other the input or chain; GRAPH_NONE the default)
    Transition other the transition: a state past the machine, an option of no such kind,
               a duration, cooldown, parameter or condition out of form; LimitError past
               MAX_GRAPH_TRANSITIONS (other the count) or MAX_GRAPH_CONDITIONS
    Name       a condition's event name (other the transition; LimitError past
               MAX_NAME_BYTES)
    MirrorGraph  a mirror node in a graph without a mirror map (other LIST_NODES)
    SpringSetSlot  a springs node's slot past the list (other the slot as given)

The IK nodes' refusals name the field at fault in `other` by its place among the node's
dataclass fields (0 the input, 1 the next, ...), and an aim bone or a limit at fault as
field << 16 | its place in the list: Node for a bone past the skeleton, bones that are not
each an ancestor of the next, a vector not finite, a forward not of length 1 within a
thousandth, an end rotation of length 0, a share or an angle out of range, shares all 0,
a pole on a CCD chain, a step on a FABRIK chain, a limit of an unknown kind or a hinge
axis of no length; Weight for a weight, soften or rotation weight outside 0 to 1;
Parameter for a goal or pole parameter that is no vector3, a rotation parameter that is
no quaternion, a weight parameter that is no float; LimitError Node for more aim bones
than MAX_AIM_BONES, iterations past MAX_IK_ITERATIONS or limits past MAX_IK_LIMITS (other
the field), a chain past MAX_IK_CHAIN_BONES.
"""
from __future__ import annotations

import numpy as np

from ...core import names
from ...pose.blend import MaskChain as BlendChain
from ...pose.blend import build_mask
from ...core.errors import BuildReason, InvalidError, LimitError
from .check import finite32, whole
from .delaunay import triangulate
from ..format import (ARITY, COMPARABLE_TYPES, AdditiveData, BandedData, BlendData, ClipData,
                      ConditionData, InertializeData, MachineData, MaskData, OneShotData,
                      PoseParameterData, SeekData, SelectData, Space1DData, TimeScaleData,
                      TransitionData, TriangulatedData, MirrorData, banded_fault, triangle_area)
from ..limits import (DEFAULT_GRAPH_CHAIN_LIMIT, GRAPH_NONE, LIST_NODES, MAX_GRAPH_CHAIN_LIMIT,
                      MAX_GRAPH_CONDITIONS, MAX_GRAPH_EVENTS, MAX_GRAPH_SECONDS, MAX_GRAPH_TIME_FACTOR,
                      MAX_GRAPH_TRANSITIONS, MAX_GRAPH_TRIANGLES)
from ..source import (AdditiveNode, Blend1DNode, Blend2DBandedNode, Blend2DTriangulatedNode,
                      BlendInput, BlendNode, ClipLoop, ClipNode, CompareOp, Condition,
                      ConditionKind, Curve, EntryMode, InertializeMethod, InertializeNode,
                      Interruption, MaskChain, MaskNode, MaskSource, MirrorNode, NodeKind, OneShotNode,
                      ParameterType, PoseParameterNode, SeekNode, SelectNode, SpacePoint,
                      StateMachineNode, TimeScaleNode, Transition, node_inputs, node_kind)
from ...core.limits import MAX_BONES

INPUT_COUNT = 0x80000000
FLOAT = (ParameterType.float_,)
TRIGGER = (ParameterType.trigger,)


class Context:
    """What a node is checked against: its graph's parameter, clip slot and sync group
    indices in the host's lists, the skeleton, and the lists the build gathers."""

    def __init__(self, skeleton, parameters, types, clips, syncs, masks, events, mirrored=False,
                 springs=(), databases=(), models=()):
        self.skeleton = skeleton
        self.parameters = parameters        # the node's graph's index -> the host's
        self.types = types                  # the host's parameter types
        self.clips = clips
        self.syncs = syncs
        self.masks = masks                  # gathered mask weights (np.float32 arrays)
        self.events = events                # gathered condition event names (bytes)
        self.mirrored = mirrored            # whether the graph has a mirror map
        self.springs = springs              # the graph's spring set slots -> the host's
        self.databases = databases          # the graph's database slots -> the host's
        self.models = models                # the graph's model slots -> the host's


def _invalid(reason, place, other, message):
    return InvalidError(f"node {place}: {message}", reason=reason, item=place, other=other)


def _index(value, count: int):
    k = whole(value)
    return k if k is not None and 0 <= k < count else None


def _enum(cls, value, place, reason=BuildReason.Node, other=GRAPH_NONE):
    try:
        return cls(value)
    except (ValueError, TypeError):
        raise _invalid(reason, place, other, f"{cls.__name__} {value!r} unknown") from None


def _flag(value, place, reason=BuildReason.Node, other=GRAPH_NONE) -> bool:
    if isinstance(value, (bool, np.bool_)) or value in (0, 1):
        return bool(value)
    raise _invalid(reason, place, other, f"flag {value!r} not a bool")


def _parameter(ctx: Context, value, types, place, optional=False, reason=BuildReason.Parameter,
               other=None) -> int:
    if value is None and optional:
        return GRAPH_NONE
    k = _index(value, len(ctx.parameters))
    if k is None or ctx.types[ctx.parameters[k]] not in types:
        given = whole(value)
        raise _invalid(reason, place, (given & 0xFFFFFFFF if given is not None else GRAPH_NONE)
                       if other is None else other, f"parameter {value!r} missing or of another type")
    return ctx.parameters[k]


def _scalar(value, place, other, lo=0.0, hi=MAX_GRAPH_SECONDS, reason=BuildReason.Scalar) -> float:
    """A binary32 number within [lo, hi]; past hi's magnitude (a time factor or seconds) a
    LimitError, otherwise out of form an InvalidError."""
    v = finite32(value)
    if v is None:
        raise _invalid(reason, place, other, f"{value!r} not a finite number")
    if abs(v) > hi and reason == BuildReason.Scalar and (lo < 0 or v > 0):
        raise LimitError(f"node {place}: {v} past {hi}", reason=reason, item=place, other=other)
    if not lo <= v <= hi:
        raise _invalid(reason, place, other, f"{v} outside {lo} to {hi}")
    return v


def _weight(value, place, other) -> float:
    v = finite32(value)
    if v is None or not 0.0 <= v <= 1.0:
        raise _invalid(BuildReason.Weight, place, other, f"weight {value!r} not within 0 to 1")
    return v


def _items(value, place, what):
    if value is None:
        raise _invalid(BuildReason.Count, place, 0, f"{what} not given")
    try:
        return list(value)
    except TypeError:
        raise _invalid(BuildReason.Count, place, 0, f"{what} not a list") from None


def _points(node, place, cls=SpacePoint) -> list:
    out = []
    for k, p in enumerate(_items(node.points, place, "points")):
        if not isinstance(p, cls):
            raise _invalid(BuildReason.Node, place, k, "a point that is not a SpacePoint")
        x, y = finite32(p.x), finite32(p.y)
        if x is None or y is None:
            raise _invalid(BuildReason.Node, place, k, "a point not finite")
        out.append((x, y))
    return out


def _mask(ctx: Context, chains, default, place) -> int:
    """Makes a mask's bone weights (maniSkeleton_BuildMask) and gathers them; its index."""
    chains = _items(chains, place, "chains")
    if len(chains) > MAX_BONES:
        raise LimitError(f"node {place}: {len(chains)} chains", reason=BuildReason.Node,
                         item=place, other=len(chains))
    n = ctx.skeleton.bone_count
    made = []
    for k, c in enumerate(chains):
        if not isinstance(c, MaskChain):
            raise _invalid(BuildReason.Node, place, k, "a chain that is not a MaskChain")
        bone = _index(c.bone, n)
        if bone is None:
            raise _invalid(BuildReason.Node, place, k, f"bone {c.bone!r} past the skeleton")
        made.append(BlendChain(bone, _weight(c.weight, place, k), _flag(c.subtree, place, other=k)))
    weights = build_mask(ctx.skeleton, made, _weight(default, place, GRAPH_NONE))
    ctx.masks.append(weights.astype(np.float32))
    return len(ctx.masks) - 1


def check_node(node, place: int, ctx: Context):
    """(kind, local inputs, data) of one source node; refusals as the module's table says."""
    kind = node_kind(node)
    if kind is None:
        raise _invalid(BuildReason.Node, place, GRAPH_NONE, "not a node of a known kind")
    inputs = node_inputs(_lists_given(node, place))
    least, most = ARITY[kind]
    if len(inputs) > most and most > 2:
        raise LimitError(f"node {place}: {len(inputs)} inputs", reason=BuildReason.Node,
                         item=place, other=len(inputs))
    if not least <= len(inputs) <= most:
        raise _invalid(BuildReason.Input, place, INPUT_COUNT | len(inputs),
                       f"{len(inputs)} inputs for a {kind.name}")
    return kind, inputs, _CHECKS[kind](node, place, ctx)


def _lists_given(node, place):
    """Refuses (Count) a node list that is None before the inputs are read from it."""
    for attr in ("inputs", "points", "states", "transitions", "finals", "chains", "bones",
                 "limits"):
        if hasattr(node, attr):
            _items(getattr(node, attr), place, attr)
    return node


def _clip(node: ClipNode, place, ctx):
    slot = _index(node.clip, len(ctx.clips))
    if slot is None:
        given = whole(node.clip)
        raise _invalid(BuildReason.Clip, place, given & 0xFFFFFFFF if given is not None else GRAPH_NONE,
                       f"clip slot {node.clip!r} past the list")
    speed = _scalar(node.speed, place, 0, -MAX_GRAPH_TIME_FACTOR, MAX_GRAPH_TIME_FACTOR)
    loop = _enum(ClipLoop, node.loop, place)
    sync = GRAPH_NONE
    if node.sync_group is not None:
        k = _index(node.sync_group, len(ctx.syncs))
        if k is None:
            raise _invalid(BuildReason.Node, place, GRAPH_NONE, "sync group past the list")
        sync = ctx.syncs[k]
    leader = _flag(node.leader, place)
    if leader and sync == GRAPH_NONE:
        raise _invalid(BuildReason.Node, place, GRAPH_NONE, "a leader outside any sync group")
    return ClipData(ctx.clips[slot], sync, leader, loop, speed)


def _blend(node: BlendNode, place, ctx):
    weights, params = [], []
    for k, i in enumerate(node.inputs):
        if not isinstance(i, BlendInput):
            raise _invalid(BuildReason.Input, place, k, "an input that is not a BlendInput")
        weights.append(_weight(i.weight, place, k))
        params.append(_parameter(ctx, i.parameter, FLOAT, place, optional=True))
    return BlendData(_flag(node.direct, place), weights, params)


def _space_1d(node: Blend1DNode, place, ctx):
    p = _parameter(ctx, node.parameter, FLOAT, place)
    period = _scalar(node.period, place, 0)
    points = _points(node, place)
    for k, (x, y) in enumerate(points):
        if y != 0.0 or (k and not x > points[k - 1][0]) or (period > 0 and not 0 <= x < period):
            raise _invalid(BuildReason.Node, place, k, "a position out of order or off the line")
    return Space1DData(p, period, [x for x, _ in points])


def _banded(node: Blend2DBandedNode, place, ctx):
    px = _parameter(ctx, node.x_parameter, FLOAT, place)
    py = _parameter(ctx, node.y_parameter, FLOAT, place)
    polar = _flag(node.polar, place)
    points = _points(node, place)
    fault = banded_fault(points, polar)
    if fault is not None:
        raise _invalid(BuildReason.Node, place, fault, "points not in bands of increasing x")
    return BandedData(px, py, polar, points)


def _triangulated(node: Blend2DTriangulatedNode, place, ctx):
    px = _parameter(ctx, node.x_parameter, FLOAT, place)
    py = _parameter(ctx, node.y_parameter, FLOAT, place)
    points = _points(node, place)
    if node.triangles is None:
        triangles = triangulate(points)
        if not triangles:
            raise _invalid(BuildReason.Node, place, GRAPH_NONE,
                           "points repeated or on one line: no triangulation")
    else:
        given = _items(node.triangles, place, "triangles")
        if len(given) > MAX_GRAPH_TRIANGLES:
            raise LimitError(f"node {place}: {len(given)} triangles", reason=BuildReason.Node,
                             item=place, other=len(given))
        if not given:
            raise _invalid(BuildReason.Count, place, 0, "no triangles")
        triangles = []
        for k, t in enumerate(given):
            try:
                corners = tuple(_index(c, len(points)) for c in t)
            except TypeError:
                corners = ()
            if len(corners) != 3 or None in corners or len(set(corners)) < 3 or \
                    triangle_area(points, corners) == 0.0:
                raise _invalid(BuildReason.Node, place, k, "a triangle out of form or flat")
            triangles.append(corners)
    if len(triangles) > MAX_GRAPH_TRIANGLES:
        raise LimitError(f"node {place}: {len(triangles)} triangles", reason=BuildReason.Node,
                         item=place, other=len(triangles))
    return TriangulatedData(px, py, points, triangles)


def _mask_node(node: MaskNode, place, ctx):
    return MaskData(_mask(ctx, node.chains, node.default_weight, place))


def _additive(node: AdditiveNode, place, ctx):
    return AdditiveData(_weight(node.weight, place, 0),
                        _parameter(ctx, node.parameter, FLOAT, place, optional=True))


def _select(node: SelectNode, place, ctx):
    return SelectData(_parameter(ctx, node.parameter, (ParameterType.int_, ParameterType.bool_), place))


def _time_scale(node: TimeScaleNode, place, ctx):
    return TimeScaleData(_scalar(node.scale, place, 0, -MAX_GRAPH_TIME_FACTOR, MAX_GRAPH_TIME_FACTOR),
                         _parameter(ctx, node.parameter, FLOAT, place, optional=True))


def _seek(node: SeekNode, place, ctx):
    return SeekData(_scalar(node.time, place, 0), _parameter(ctx, node.trigger, TRIGGER, place))


def _machine(node: StateMachineNode, place, ctx):
    states = len(node.states)
    entry = _index(node.entry, states)
    limit = whole(node.chain_limit)
    if entry is None or limit is None or limit < 0:
        raise _invalid(BuildReason.Node, place, GRAPH_NONE, "entry state or chain limit out of range")
    if limit > MAX_GRAPH_CHAIN_LIMIT:
        raise LimitError(f"node {place}: chain limit {limit}", reason=BuildReason.Node, item=place,
                         other=limit)
    finals = []
    for k, f in enumerate(node.finals):
        s = _index(f, states)
        if s is None or s in finals:
            raise _invalid(BuildReason.Node, place, k, "a final state past the states or twice")
        finals.append(s)
    transitions = list(node.transitions)
    if len(transitions) > MAX_GRAPH_TRANSITIONS:
        raise LimitError(f"node {place}: {len(transitions)} transitions", reason=BuildReason.Node,
                         item=place, other=len(transitions))
    out = [_transition(t, k, states, place, ctx) for k, t in enumerate(transitions)]
    return MachineData(entry, limit or DEFAULT_GRAPH_CHAIN_LIMIT, finals, out)


def _transition(t, k: int, states: int, place, ctx) -> TransitionData:
    R = BuildReason.Transition

    def bad(message):
        return _invalid(R, place, k, f"transition {k}: {message}")
    if not isinstance(t, Transition):
        raise bad("not a Transition")
    source = GRAPH_NONE if t.source is None else _index(t.source, states)
    target = _index(t.target, states)
    priority = whole(t.priority)
    if source is None or target is None or priority is None:
        raise bad("a state past the machine or a priority not a whole int32")
    seconds = []
    for value in (t.duration, t.cooldown):
        v = finite32(value)
        if v is None or v < 0:
            raise bad("a duration or cooldown out of form")
        if v > MAX_GRAPH_SECONDS:
            raise LimitError(f"node {place}: transition {k} past MAX_GRAPH_SECONDS", reason=R,
                             item=place, other=k)
        seconds.append(v)
    out = TransitionData(source, target, priority, _enum(Interruption, t.interruption, place, R, k),
                         _enum(EntryMode, t.entry, place, R, k), _enum(Curve, t.fade, place, R, k),
                         seconds[0], seconds[1])
    conditions = _items(t.conditions, place, "conditions")
    if len(conditions) > MAX_GRAPH_CONDITIONS:
        raise LimitError(f"node {place}: transition {k} has {len(conditions)} conditions",
                         reason=R, item=place, other=k)
    for c in conditions:
        out.conditions.append(_condition(c, k, place, ctx))
    return out


def _condition(c, k: int, place, ctx) -> ConditionData:
    R = BuildReason.Transition
    if not isinstance(c, Condition):
        raise _invalid(R, place, k, "a condition that is not a Condition")
    kind = _enum(ConditionKind, c.kind, place, R, k)
    if kind == ConditionKind.parameter:
        ref = _parameter(ctx, c.parameter, COMPARABLE_TYPES, place, reason=R, other=k)
        op = _enum(CompareOp, c.op, place, R, k)
        ptype = ctx.types[ref]
        value = finite32(c.value) if ptype == ParameterType.float_ else whole(c.value)
        if value is None or (ptype == ParameterType.bool_ and (value not in (0, 1) or op > CompareOp.ne)):
            raise _invalid(R, place, k, "a compared value out of form")
        return ConditionData(kind, ref, op, float(value))
    if kind == ConditionKind.trigger:
        return ConditionData(kind, _parameter(ctx, c.parameter, TRIGGER, place, reason=R, other=k),
                             CompareOp.ge, 0.0)
    if kind == ConditionKind.event:
        raw = names.name_bytes(c.event, "event", place, reason_other=k)
        if raw not in ctx.events:
            if len(ctx.events) == MAX_GRAPH_EVENTS:
                raise LimitError(f"node {place}: event names past MAX_GRAPH_EVENTS", reason=BuildReason.Count,
                                 item=MAX_GRAPH_EVENTS + 1, other=0)
            ctx.events.append(raw)
        return ConditionData(kind, ctx.events.index(raw), CompareOp.ge, 0.0)
    if kind == ConditionKind.state_time:
        v = finite32(c.value)
        if v is None or not 0 <= v <= MAX_GRAPH_SECONDS:
            raise _invalid(R, place, k, "a state time out of form")
        return ConditionData(kind, GRAPH_NONE, CompareOp.ge, v)
    return ConditionData(kind, GRAPH_NONE, CompareOp.ge, 0.0)


def _one_shot(node: OneShotNode, place, ctx):
    mask = GRAPH_NONE
    if node.mask is not None:
        if not isinstance(node.mask, MaskSource):
            raise _invalid(BuildReason.Node, place, GRAPH_NONE, "a mask that is not a MaskSource")
        mask = _mask(ctx, node.mask.chains, node.mask.default_weight, place)
    return OneShotData(_parameter(ctx, node.trigger, TRIGGER, place),
                       _parameter(ctx, node.fade_out_trigger, TRIGGER, place, optional=True),
                       _parameter(ctx, node.abort, TRIGGER, place, optional=True),
                       _enum(Curve, node.curve, place),
                       _scalar(node.fade_in, place, 0), _scalar(node.fade_out, place, 1), mask)


def _inertialize(node: InertializeNode, place, ctx):
    trigger = _parameter(ctx, node.trigger, TRIGGER, place, optional=True)
    method = _enum(InertializeMethod, node.method, place)
    duration = _scalar(node.duration, place, 0)
    scale = _scalar(node.half_life_scale, place, 1)
    lo = _scalar(node.half_life_min, place, 2)
    hi = _scalar(node.half_life_max, place, 3)
    if not scale > 0:
        raise _invalid(BuildReason.Scalar, place, 1, "a half-life scale of 0")
    if not 0 < lo <= hi:
        raise _invalid(BuildReason.Scalar, place, 2, "half-life bounds out of order")
    return InertializeData(trigger, method, duration, scale, lo, hi)


def _pose_parameter(node: PoseParameterNode, place, ctx):
    return PoseParameterData(_parameter(ctx, node.parameter, (ParameterType.pose,), place))


def _mirror(node: MirrorNode, place, ctx):
    if not ctx.mirrored:
        raise _invalid(BuildReason.MirrorGraph, place, LIST_NODES,
                       "a mirror node in a graph without a mirror map")
    return MirrorData()


def _solver(node, place, ctx):
    """An IK node's data, refused as the module's table says (build/solvers.py, which reads
    this module's helpers)."""
    from .solvers import solver_data
    return solver_data(node, place, ctx)


def _matching(node, place, ctx):
    """A motion matching node's data (build/matching.py, which reads this module's helpers)."""
    from .matching import matching_data
    return matching_data(node, place, ctx)


def _learned(node, place, ctx):
    """A learned motion matching node's data (build/learned.py)."""
    from .learned import learned_data
    return learned_data(node, place, ctx)


_CHECKS = {NodeKind.clip: _clip, NodeKind.blend: _blend, NodeKind.blend_1d: _space_1d,
           NodeKind.blend_2d_banded: _banded, NodeKind.blend_2d_triangulated: _triangulated,
           NodeKind.mask: _mask_node, NodeKind.additive: _additive, NodeKind.select: _select,
           NodeKind.time_scale: _time_scale, NodeKind.seek: _seek,
           NodeKind.state_machine: _machine, NodeKind.one_shot: _one_shot,
           NodeKind.inertialize: _inertialize, NodeKind.pose_parameter: _pose_parameter,
           NodeKind.mirror: _mirror, NodeKind.two_bone_ik: _solver, NodeKind.aim_ik: _solver,
           NodeKind.ccd_ik: _solver, NodeKind.fabrik_ik: _solver, NodeKind.springs: _solver,
           NodeKind.body_ik: _solver, NodeKind.motion_matching: _matching,
           NodeKind.learned_motion_matching: _learned}
