"""maniWriteGraphJson: a graph source as the JSON text form (graph/json/form.py), each member
at its off value left out, numbers as the shortest text that reads back to the same
binary32.
"""
from __future__ import annotations

import math

from ...core.builder import Builder, enter_build
from ...pose.skeleton import Skeleton
from ..build.build import build as build_source
from ..build.check import parameter_value
from ..format import f32 as _f
from .form import (BODY_LIMITS, BODY_SOLVERS, CURVES, ENTRIES, FORM_VERSION, INTERRUPTIONS, KINDS,
                   LIMIT_KINDS, LOOPS, METHODS, OPS, TOP_MODES, TYPE_NAMES, name_text)
from ...ik.body.description import BodyLimitKind, BodyTopMode
from ...ik.joints import KINDS as LIMIT_OF
from ...core.json_text import dump
from ..source import (AdditiveNode, Blend1DNode, Blend2DBandedNode, Blend2DTriangulatedNode,
                      BlendNode, ClipLoop, ClipNode, CompareOp, Condition, ConditionKind, Curve,
                      EntryMode, GraphSource, InertializeMethod, InertializeNode, Interruption,
                      MaskNode, OneShotNode, ParameterSource, ParameterType, PoseParameterNode,
                      SeekNode, SelectNode, StateMachineNode, SubgraphNode, TimeScaleNode,
                      Transition, MirrorNode, TwoBoneIkNode, AimIkNode, ChainIkNode, SpringsNode,
                      BodyIkNode, BodySolver, MotionMatchingNode, ParameterRef,
                      LearnedMotionMatchingNode)


def to_json(source: GraphSource, top: bool = True) -> dict:
    """A source as the form's members (dicts in member order), defaults left out. The
    source is one the build accepts."""
    sk = source.skeleton
    params = [name_text(p.name) for p in source.parameters]
    clips = [name_text(c.name) for c in source.clips]
    syncs = [name_text(g.name) for g in source.sync_groups]
    out = {"version": FORM_VERSION} if top else {}
    out["parameters"] = [_parameter_json(p) for p in source.parameters]
    out["clips"] = [dict(name=name_text(c.name), **({"allEvents": True} if c.all_events else {}))
                    for c in source.clips]
    out["syncGroups"] = syncs
    for key, slots in (("databases", source.databases), ("models", source.models),
                       ("springSets", source.spring_sets)):
        if slots:
            out[key] = [dict(name=name_text(s.name), **({"clips": [clips[c] for c in s.clips]}
                                                     if key == "databases" and s.clips else {}))
                        for s in slots]
    springs = [name_text(s.name) for s in source.spring_sets]
    databases = [name_text(s.name) for s in source.databases]
    models = [name_text(s.name) for s in source.models]
    out["nodes"] = [_node_json(n, params, clips, syncs, sk, source.parameters, springs, databases,
                               models) for n in source.nodes]
    out["output"] = int(source.output)
    return out


def _opt(out: dict, key: str, value, default) -> None:
    if value is not None and not _same(value, default):
        out[key] = value


def _same(a, b) -> bool:
    """Equal as the file holds them: -0.0 is not 0 (its sign survives the text)."""
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b) \
            and all(map(_same, a, b))
    if isinstance(a, float) or isinstance(b, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


def _num(v) -> float:
    """A source number as the text writes it: binary32."""
    return _f(float(v))


def _parameter_json(p: ParameterSource) -> dict:
    kind = ParameterType(p.type)
    out = {"name": name_text(p.name), "type": TYPE_NAMES[kind]}
    if p.default is not None:
        v = parameter_value(kind, p.default)
        off = parameter_value(kind, None)
        raw = p.default
        if not _same(v, off):
            if kind in (ParameterType.bool_, ParameterType.trigger):
                out["default"] = bool(v[0])
            elif kind == ParameterType.int_:
                out["default"] = int(v[0])
            elif kind == ParameterType.float_:
                out["default"] = _num(v[0])
            else:
                out["default"] = [_num(x) for x in list(raw)]
    if p.minimum is not None:
        whole = kind == ParameterType.int_
        out["min"] = int(p.minimum) if whole else _num(p.minimum)
        out["max"] = int(p.maximum) if whole else _num(p.maximum)
    return out


def _mask_json(chains, default, sk) -> dict:
    out = {}
    if chains:
        out["chains"] = [dict(bone=sk.bone_name(int(c.bone)), weight=_num(c.weight),
                              **({"subtree": True} if c.subtree else {})) for c in chains]
    _opt(out, "defaultWeight", _num(default), 0.0)
    return out


def _node_json(n, params, clips, syncs, sk, parameters, springs=(), databases=(),
               models=()) -> dict:
    out = {"kind": KINDS[type(n)]}
    P = lambda k: None if k is None else params[int(k)]       # noqa: E731
    if isinstance(n, ClipNode):
        out["clip"] = clips[int(n.clip)]
        _opt(out, "speed", _num(n.speed), 1.0)
        _opt(out, "loop", LOOPS[ClipLoop(n.loop)], "clip")
        _opt(out, "syncGroup", None if n.sync_group is None else syncs[int(n.sync_group)], None)
        _opt(out, "leader", bool(n.leader), False)
    elif isinstance(n, BlendNode):
        items = []
        for i in n.inputs:
            item = {"node": int(i.node)}
            _opt(item, "weight", _num(i.weight), 1.0)
            _opt(item, "parameter", P(i.parameter), None)
            items.append(item)
        out["inputs"] = items
        _opt(out, "direct", bool(n.direct), False)
    elif isinstance(n, (Blend1DNode, Blend2DBandedNode, Blend2DTriangulatedNode)):
        _space_json(out, n, P)
    elif isinstance(n, MaskNode):
        out["base"] = int(n.base)
        out["overlay"] = int(n.overlay)
        out.update(_mask_json(n.chains, n.default_weight, sk))
    elif isinstance(n, AdditiveNode):
        out["base"] = int(n.base)
        out["layer"] = int(n.layer)
        _opt(out, "weight", _num(n.weight), 1.0)
        _opt(out, "parameter", P(n.parameter), None)
    elif isinstance(n, SelectNode):
        out["parameter"] = P(n.parameter)
        out["inputs"] = [int(i) for i in n.inputs]
    elif isinstance(n, TimeScaleNode):
        out["input"] = int(n.input)
        _opt(out, "scale", _num(n.scale), 1.0)
        _opt(out, "parameter", P(n.parameter), None)
    elif isinstance(n, SeekNode):
        out["input"] = int(n.input)
        out["trigger"] = P(n.trigger)
        _opt(out, "time", _num(n.time), 0.0)
    elif isinstance(n, StateMachineNode):
        out["states"] = [int(s) for s in n.states]
        _opt(out, "entry", int(n.entry), 0)
        _opt(out, "chainLimit", int(n.chain_limit), 0)
        if n.transitions:
            typed = [(name, p.type) for name, p in zip(params, parameters)]
            out["transitions"] = [_transition_json(t, typed) for t in n.transitions]
        if n.finals:
            out["finals"] = [int(f) for f in n.finals]
    elif isinstance(n, OneShotNode):
        _one_shot_json(out, n, P, sk)
    elif isinstance(n, InertializeNode):
        _inertialize_json(out, n, P)
    elif isinstance(n, PoseParameterNode):
        out["parameter"] = P(n.parameter)
    elif isinstance(n, MirrorNode):
        out["input"] = int(n.input)
    elif isinstance(n, BodyIkNode):
        _body_json(out, n, P, sk)
    elif isinstance(n, SpringsNode):
        out["input"] = int(n.input)
        out["springSet"] = springs[int(n.spring_set)]
        _opt(out, "positionParameter", P(n.position_parameter), None)
        _opt(out, "rotationParameter", P(n.rotation_parameter), None)
        _opt(out, "force", _vec(n.force), [0.0, 0.0, 0.0])
        _opt(out, "forceParameter", P(n.force_parameter), None)
        _opt(out, "reset", P(n.reset), None)
    elif isinstance(n, (TwoBoneIkNode, AimIkNode, ChainIkNode)):
        _solver_json(out, n, P, sk)
    elif isinstance(n, MotionMatchingNode):
        _matching_json(out, n, P, databases)
    elif isinstance(n, LearnedMotionMatchingNode):
        out["model"] = models[int(n.model)]
        _opt(out, "projector", int(n.projector), 0)
        _query_json(out, n.query, P)
        _opt(out, "trigger", P(n.trigger), None)
        _opt(out, "period", _num(n.period), _f(0.1))
        _opt(out, "duration", _num(n.duration), 0.0)
    elif isinstance(n, SubgraphNode):
        out["graph"] = to_json(n.graph, top=False)
        if n.parameters:
            out["parameters"] = {name_text(k): name_text(v) for k, v in n.parameters.items()}
    return out


def _vec(v) -> list:
    return [_num(x) for x in v]


def _solver_json(out: dict, n, P, sk) -> None:
    """An IK node's members, off values left out (graph/json/form.py)."""
    bone = lambda b: sk.bone_name(int(b))       # noqa: E731
    zero = [0.0, 0.0, 0.0]
    out["input"] = int(n.input)
    if isinstance(n, TwoBoneIkNode):
        out.update(start=bone(n.start), middle=bone(n.middle), end=bone(n.end))
    elif isinstance(n, AimIkNode):
        items = []
        for a in n.bones:
            item = {"bone": bone(a.bone)}
            _opt(item, "share", _num(a.share), 1.0)
            items.append(item)
        out["bones"] = items
    else:
        out.update(root=bone(n.root), end=bone(n.end))
    _opt(out, "goal", _vec(n.goal), zero)
    _opt(out, "goalParameter", P(n.goal_parameter), None)
    if isinstance(n, AimIkNode):
        _opt(out, "forward", _vec(n.forward), [1.0, 0.0, 0.0])
        _opt(out, "up", _vec(n.up), [0.0, 1.0, 0.0])
    if isinstance(n, ChainIkNode):
        if n.limits:
            out["limits"] = [_limit_json(m, bone) for m in n.limits]
        _opt(out, "iterations", int(n.iterations), 16)
        _opt(out, "tolerance", _num(n.tolerance), _f(1e-4))
        _opt(out, "step", _num(n.step), 0.0)
    _opt(out, "pole", _vec(n.pole), zero)
    _opt(out, "poleParameter", P(n.pole_parameter), None)
    if isinstance(n, TwoBoneIkNode):
        _opt(out, "hinge", _vec(n.hinge), zero)
    if isinstance(n, AimIkNode):
        _opt(out, "offset", _vec(n.offset), zero)
    if isinstance(n, ChainIkNode):
        _opt(out, "rotation", _vec(n.rotation), [0.0, 0.0, 0.0, 1.0])
        _opt(out, "rotationParameter", P(n.rotation_parameter), None)
        _opt(out, "rotationWeight", _num(n.rotation_weight), 0.0)
    else:
        _opt(out, "twist", _num(n.twist), 0.0)
    if isinstance(n, TwoBoneIkNode):
        _opt(out, "soften", _num(n.soften), 0.0)
    if isinstance(n, AimIkNode):
        _opt(out, "cone", _num(n.cone), _f(math.pi))
    _opt(out, "weight", _num(n.weight), 1.0)
    _opt(out, "weightParameter", P(n.weight_parameter), None)


def _body_json(out: dict, n: BodyIkNode, P, sk) -> None:
    s = n.solve
    bone = lambda b: sk.bone_name(int(b))       # noqa: E731
    out["input"] = int(n.input)
    _opt(out, "solver", BODY_SOLVERS[BodySolver(n.solver)], "xpbd")
    out["top"] = bone(s.top)
    _opt(out, "topMode", TOP_MODES[BodyTopMode(s.top_mode)], "pinned")
    _opt(out, "prePull", _num(s.pre_pull), 0.0)
    _opt(out, "iterations", int(s.iterations), 10)
    _opt(out, "tolerance", _num(s.tolerance), _f(1e-3))
    goals, rots = list(n.goal_parameters), list(n.rotation_parameters)
    effectors = []
    for k, e in enumerate(s.effectors):
        item = {"bone": bone(e.bone)}
        _opt(item, "goal", _vec(e.goal), [0.0, 0.0, 0.0])
        _opt(item, "goalParameter", P(goals[k]) if k < len(goals) else None, None)
        _opt(item, "rotation", _vec(e.rotation), [0.0, 0.0, 0.0, 1.0])
        _opt(item, "rotationParameter", P(rots[k]) if k < len(rots) else None, None)
        _opt(item, "rotationWeight", _num(e.rotation_weight), 0.0)
        _opt(item, "strength", _num(e.strength), 1.0)
        _opt(item, "pullChain", _num(e.pull_chain), 0.0)
        effectors.append(item)
    out["effectors"] = effectors
    bones = []
    for b in s.bones:
        item = {"bone": bone(b.bone)}
        _opt(item, "stiffness", _num(b.stiffness), 0.0)
        m, limit = b.limit, {}
        _opt(limit, "kind", BODY_LIMITS[BodyLimitKind(m.kind)], "none")
        _opt(limit, "axis", _vec(m.axis), [1.0, 0.0, 0.0])
        _opt(limit, "low", _num(m.low), 0.0)
        _opt(limit, "high", _num(m.high), 0.0)
        if limit:
            item["limit"] = limit
        _opt(item, "preferred", _vec(b.preferred), [0.0, 0.0, 0.0])
        _opt(item, "preferredWeight", _num(b.preferred_weight), 0.0)
        _opt(item, "stretch", _num(b.stretch), 0.0)
        bones.append(item)
    if bones:
        out["bones"] = bones


def _limit_json(m, bone) -> dict:
    kind = LIMIT_KINDS[LIMIT_OF[type(m)]]
    out = {"kind": kind, "bone": bone(m.bone)}
    if kind == "hinge":
        _opt(out, "axis", _vec(m.axis), [0.0, 0.0, 1.0])
    if kind != "cone":
        _opt(out, "min", _num(m.minimum), _f(-math.pi))
    _opt(out, "max", _num(m.maximum), _f(math.pi))
    return out


def _space_json(out: dict, n, P) -> None:
    """A 1D, banded or triangulated space's members."""
    if isinstance(n, Blend1DNode):
        out["parameter"] = P(n.parameter)
    else:
        out["xParameter"] = P(n.x_parameter)
        out["yParameter"] = P(n.y_parameter)
    points = []
    for p in n.points:
        item = {"node": int(p.node), "x": _num(p.x)}
        _opt(item, "y", _num(p.y), 0.0)
        points.append(item)
    out["points"] = points
    if isinstance(n, Blend1DNode):
        _opt(out, "period", _num(n.period), 0.0)
    elif isinstance(n, Blend2DBandedNode):
        _opt(out, "polar", bool(n.polar), False)
    elif n.triangles is not None:
        out["triangles"] = [[int(c) for c in t] for t in n.triangles]


def _one_shot_json(out: dict, n: OneShotNode, P, sk) -> None:
    out["base"] = int(n.base)
    out["shot"] = int(n.shot)
    out["trigger"] = P(n.trigger)
    _opt(out, "fadeOutTrigger", P(n.fade_out_trigger), None)
    _opt(out, "abort", P(n.abort), None)
    _opt(out, "curve", CURVES[Curve(n.curve)], "linear")
    _opt(out, "fadeIn", _num(n.fade_in), 0.0)
    _opt(out, "fadeOut", _num(n.fade_out), 0.0)
    if n.mask is not None:
        out["mask"] = _mask_json(n.mask.chains, n.mask.default_weight, sk)


def _inertialize_json(out: dict, n: InertializeNode, P) -> None:
    out["input"] = int(n.input)
    _opt(out, "trigger", P(n.trigger), None)
    _opt(out, "method", METHODS[InertializeMethod(n.method)], "inertialization")
    _opt(out, "duration", _num(n.duration), 0.0)
    _opt(out, "halfLifeScale", _num(n.half_life_scale), _f(0.3))
    _opt(out, "halfLifeMin", _num(n.half_life_min), _f(0.1))
    _opt(out, "halfLifeMax", _num(n.half_life_max), 1.0)


def _query_json(out: dict, inputs, P) -> None:
    query = []
    for q in inputs:
        item = {"channel": int(q.channel)}
        _opt(item, "time", int(q.time), 0)
        item["parameter"] = P(q.parameter)
        query.append(item)
    if query:
        out["query"] = query


def _matching_json(out: dict, n: MotionMatchingNode, P, databases) -> None:
    out["database"] = databases[int(n.database)]
    _query_json(out, n.query, P)
    _opt(out, "trigger", P(n.trigger), None)
    _opt(out, "period", _num(n.period), _f(0.1))
    for key, field in (("jumpThreshold", "jump_threshold"), ("endExclusion", "end_exclusion"),
                       ("historyTime", "history_time"), ("continuingBias", "continuing_bias"),
                       ("transitionCost", "transition_cost")):
        _opt(out, key, _num(getattr(n, field)), 0.0)
    _opt(out, "historyCount", int(n.history_count), 0)
    for key, tags in (("requiredTags", n.required_tags), ("excludedTags", n.excluded_tags)):
        if isinstance(tags, ParameterRef):
            out[key] = {"parameter": P(tags.parameter)}
        else:
            _opt(out, key, int(tags), 0)
    _opt(out, "duration", _num(n.duration), 0.0)


def _transition_json(t: Transition, params) -> dict:
    out = {"from": None if t.source is None else int(t.source), "to": int(t.target)}
    _opt(out, "priority", int(t.priority), 0)
    _opt(out, "interruption", INTERRUPTIONS[Interruption(t.interruption)], "none")
    _opt(out, "entry", ENTRIES[EntryMode(t.entry)], "restart")
    _opt(out, "fade", CURVES[Curve(t.fade)], "linear")
    _opt(out, "duration", _num(t.duration), 0.0)
    _opt(out, "cooldown", _num(t.cooldown), 0.0)
    if t.conditions:
        out["conditions"] = [_condition_json(c, params) for c in t.conditions]
    return out


def _condition_json(c: Condition, params) -> dict:
    kind = ConditionKind(c.kind)
    if kind == ConditionKind.parameter:
        name, ptype = params[int(c.parameter)]
        value = bool(c.value) if ptype == ParameterType.bool_ else \
            int(c.value) if ptype == ParameterType.int_ else _num(c.value)
        return {"parameter": name, "op": OPS[CompareOp(c.op)], "value": value}
    if kind == ConditionKind.trigger:
        return {"trigger": params[int(c.parameter)][0]}
    if kind == ConditionKind.event:
        return {"event": name_text(c.event)}
    if kind == ConditionKind.state_time:
        return {"stateTime": _num(c.value)}
    return {"finished": True}


def write_text(source: GraphSource) -> str:
    """maniWriteGraphJson's work: built first (refused as the build refuses), then written."""
    build_source(source)
    return dump(to_json(source)) + "\n"


def write_graph_json(builder: Builder, source: GraphSource) -> str:
    """maniWriteGraphJson: the text kept in the builder (kind "text"), for CopyBuilt."""
    enter_build(builder, source, GraphSource, skeleton=Skeleton)
    text = write_text(source)
    builder.keep(text.encode("utf-8"), "text")
    return text
