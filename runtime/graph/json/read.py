"""maniBuildGraphJson: the graph's JSON text form (graph/json/form.py) read into a source,
then built as maniBuildGraph builds it.

Refusals beyond the build's (whose items are places in the text's lists, as the source's):
BuildReason.Json (item the byte offset) for text that is not JSON; BuildReason.Form with
`other` a GraphForm and item the offset of the offending member's key (or of the value);
VersionError with BuildReason.Form for a "version" other than 1 or a node kind only a later
form has.
"""
from __future__ import annotations

import math

from ...core.builder import Builder, enter_build
from ...core.errors import BuildReason, VersionError
from ..build.build import build as build_source
from ..format import f32 as _f
from .form import (BODY_LIMITS, BODY_SOLVERS, CURVES, ENTRIES, FORM_VERSION, INTERRUPTIONS,
                   LATER_KINDS, LOOPS, METHODS, OPS, TOP_MODES, TYPE_NAMES, name_text)
from ...core.json_text import (MISSING, GraphForm, JsonObject, Value, form_error, parse,
                               text_bytes)
from ..source import (AdditiveNode, AssetSlotSource, Blend1DNode, Blend2DBandedNode,
                      Blend2DTriangulatedNode, BlendInput, BlendNode, ClipLoop, ClipNode,
                      ClipSlotSource, Condition, ConditionKind, Curve, EntryMode, GraphSource,
                      InertializeMethod, InertializeNode, Interruption, MaskChain, MaskNode,
                      MaskSource, OneShotNode, ParameterSource, ParameterType, PoseParameterNode,
                      SeekNode, SelectNode, SpacePoint, StateMachineNode, SubgraphNode,
                      SyncGroupSource, TimeScaleNode, Transition)
from ...pose.skeleton import Skeleton
from ...ik.joints import ConeLimit, HingeLimit, TwistLimit
from ...ik.limits import AIM_MAX_CONE
from ..source import (AimBone, AimIkNode, BodyIkNode, BodySolver, CcdIkNode, FabrikIkNode, MirrorNode,
                      SpringsNode, TwoBoneIkNode, MatchQueryInput, MotionMatchingNode, ParameterRef,
                      LearnedMotionMatchingNode)
from ...ik.body.description import (BodyBone, BodyEffector, BodyLimit, BodyLimitKind, BodySolve,
                                   BodyTopMode)


class GraphNamedAssets:
    """maniGraphNamedAssets: the skeleton a text's graph is built against, and the assets its
    slot names take, each a list of (name, asset) pairs or a dict (the first of equal names
    wins), and the mirror map every graph read takes. `retarget_maps` pairs a clip's name with
    the map the host plays it through (a clip of the map's source skeleton): a clip slot of
    that name takes the clip and its map."""

    def __init__(self, skeleton, clips=(), databases=(), models=(), spring_sets=(), mirror_map=None,
                 retarget_maps=()):
        self.skeleton = skeleton
        self.clips = clips
        self.retarget_maps = retarget_maps
        self.databases = databases
        self.models = models
        self.spring_sets = spring_sets
        self.mirror_map = mirror_map


def _lookup(pairs, name: str):
    items = pairs.items() if isinstance(pairs, dict) else (pairs or ())
    for key, asset in items:
        if name_text(key) == name:
            return asset
    return None


class _Names:
    """A graph's names as the text lists them: the first of equal names is the one found."""

    def __init__(self, names: list, what: str):
        self.index = {}
        for k, n in enumerate(names):
            self.index.setdefault(n, k)
        self.what = what

    def find(self, obj: JsonObject, key: str, optional=False):
        if optional:
            v = obj.maybe(key, "string")
            if v is None:
                return None
            name = v.value
        else:
            name = obj.text(key)
        if name not in self.index:
            raise form_error(GraphForm.name, obj.at(key), f"no {self.what} named {name!r}")
        return self.index[name]


def _place(v: Value, what: str) -> int:
    if v.kind != "number":
        raise form_error(GraphForm.type, v.offset, f"{what} is not a place")
    if v.value != int(v.value) or v.value < 0:
        raise form_error(GraphForm.value, v.offset, f"{what} is not a whole place")
    return int(v.value)


def _places(obj: JsonObject, key: str, default=MISSING) -> list:
    items = obj.items(key, default)
    return [_place(v, f"{obj.what}'s {key!r}") for v in items]


TOP_MEMBERS = {"version", "parameters", "clips", "syncGroups", "databases", "models", "springSets",
               "nodes", "output"}
NODE_MEMBERS = {
    "clip": {"clip", "speed", "loop", "syncGroup", "leader"},
    "blend": {"inputs", "direct"},
    "blend1d": {"parameter", "points", "period"},
    "blend2dBanded": {"xParameter", "yParameter", "points", "polar"},
    "blend2dTriangulated": {"xParameter", "yParameter", "points", "triangles"},
    "mask": {"base", "overlay", "chains", "defaultWeight"},
    "additive": {"base", "layer", "weight", "parameter"},
    "select": {"parameter", "inputs"},
    "timeScale": {"input", "scale", "parameter"},
    "seek": {"input", "trigger", "time"},
    "stateMachine": {"states", "entry", "chainLimit", "transitions", "finals"},
    "oneShot": {"base", "shot", "trigger", "fadeOutTrigger", "abort", "curve", "fadeIn", "fadeOut",
                "mask"},
    "inertialize": {"input", "trigger", "method", "duration", "halfLifeScale", "halfLifeMin",
                    "halfLifeMax"},
    "poseParameter": {"parameter"},
    "motionMatching": {"database", "query", "trigger", "period", "jumpThreshold", "endExclusion",
                       "historyTime", "continuingBias", "transitionCost", "historyCount",
                       "requiredTags", "excludedTags", "duration"},
    "learnedMotionMatching": {"model", "projector", "query", "trigger", "period", "duration"},
    "subgraph": {"graph", "parameters"},
    "mirror": {"input"},
    "bodyIk": {"input", "solver", "top", "topMode", "prePull", "iterations", "tolerance", "effectors",
               "bones"},
    "springs": {"input", "springSet", "positionParameter", "rotationParameter", "force",
                "forceParameter", "reset"},
    "twoBoneIk": {"input", "start", "middle", "end", "goal", "goalParameter", "pole", "poleParameter",
                  "hinge", "twist", "soften", "weight", "weightParameter"},
    "aimIk": {"input", "bones", "goal", "goalParameter", "forward", "up", "pole", "poleParameter",
              "offset", "twist", "cone", "weight", "weightParameter"},
}
NODE_MEMBERS["ccdIk"] = NODE_MEMBERS["fabrikIk"] = {
    "input", "root", "end", "goal", "goalParameter", "limits", "iterations", "tolerance", "step",
    "pole", "poleParameter", "rotation", "rotationParameter", "rotationWeight", "weight",
    "weightParameter"}
LIMIT_MEMBERS = {"hinge": {"kind", "bone", "axis", "min", "max"}, "cone": {"kind", "bone", "max"},
                 "twist": {"kind", "bone", "min", "max"}}


def from_json(v: Value, assets: GraphNamedAssets, top: bool = True) -> GraphSource:
    """A graph source from the form's value: members checked, names looked up, defaults
    filled in. What the build refuses is left to the build."""
    g = JsonObject(v, TOP_MEMBERS if top else TOP_MEMBERS - {"version"}, "the graph")
    if top:
        g.check_form(FORM_VERSION)
    sk = assets.skeleton
    parameters = [_parameter(p) for p in g.items("parameters", [])]
    clips = []
    for c in g.items("clips", []):
        o = JsonObject(c, {"name", "allEvents"}, "a clip slot")
        name = o.text("name")
        clip = _lookup(assets.clips, name)
        if clip is None:
            raise form_error(GraphForm.name, o.at("name"), f"no clip named {name!r} among the assets")
        clips.append(ClipSlotSource(name, clip, o.flag("allEvents"), _lookup(assets.retarget_maps, name)))
    syncs = []
    for s in g.items("syncGroups", []):
        if s.kind != "string":
            raise form_error(GraphForm.type, s.offset, "a sync group is not a name")
        syncs.append(SyncGroupSource(s.value))
    P = _Names([p.name for p in parameters], "parameter")
    C = _Names([c.name for c in clips], "clip slot")
    Y = _Names([s.name for s in syncs], "sync group")
    slots = {}
    for key, table in (("databases", assets.databases), ("models", assets.models),
                       ("springSets", assets.spring_sets)):
        out = []
        for s in g.items(key, []):
            o = JsonObject(s, {"name", "clips"} if key == "databases" else {"name"}, f"a {key} slot")
            name = o.text("name")
            asset = _lookup(table, name)
            if asset is None:
                raise form_error(GraphForm.name, o.at("name"), f"no asset named {name!r} in {key}")
            listed = []
            for c in o.items("clips", []):
                if c.kind != "string" or c.value not in C.index:
                    raise form_error(GraphForm.name, c.offset, "a database clip naming no clip slot")
                listed.append(C.index[c.value])
            out.append(AssetSlotSource(name, asset, tuple(listed)))
        slots[key] = out
    S = _Names([s.name for s in slots["springSets"]], "spring set slot")
    D = _Names([s.name for s in slots["databases"]], "database slot")
    M = _Names([s.name for s in slots["models"]], "model slot")
    nodes = [_node(n, P, C, Y, parameters, sk, assets, S, D, M) for n in g.items("nodes")]
    output = _place(g.get("output", ("number",)), "the output")
    return GraphSource(sk, nodes, output, parameters, clips, syncs, slots["databases"], slots["models"],
                       slots["springSets"], assets.mirror_map)


def _parameter(v: Value) -> ParameterSource:
    o = JsonObject(v, {"name", "type", "default", "min", "max"}, "a parameter")
    name = o.text("name")
    kind = o.option("type", TYPE_NAMES, None)
    if kind is None:
        raise form_error(GraphForm.missing, o.offset, "a parameter lacks 'type'")
    default = None
    if "default" in o.members:
        at, d = o.members["default"]
        if kind in (ParameterType.bool_, ParameterType.trigger):
            if d.kind != "bool":
                raise form_error(GraphForm.type, at, "a bool default is not true or false")
            default = d.value
        elif kind in (ParameterType.int_, ParameterType.float_):
            default = o.number("default")
        elif kind == ParameterType.pose:
            if d.kind != "null":
                raise form_error(GraphForm.type, at, "a pose parameter's default is none (null)")
        else:
            items = o.items("default")
            if any(x.kind != "number" for x in items):
                raise form_error(GraphForm.type, at, "a vector default of other than numbers")
            default = [x.value for x in items]
    if ("min" in o.members) != ("max" in o.members):
        key = "min" if "min" in o.members else "max"
        raise form_error(GraphForm.missing, o.at(key), "bounds are both or neither")
    lo, hi = o.number("min", None), o.number("max", None)
    return ParameterSource(name, kind, default, lo, hi)


def _mask(o: JsonObject, sk) -> tuple:
    chains = []
    for c in o.items("chains", []):
        co = JsonObject(c, {"bone", "weight", "subtree"}, "a chain")
        bone_name = co.text("bone")
        bone = sk.find_bone(bone_name) if isinstance(sk, Skeleton) else None
        if bone is None or bone >= sk.bone_count:
            raise form_error(GraphForm.name, co.at("bone"), f"no bone named {bone_name!r}")
        chains.append(MaskChain(bone, co.number("weight"), co.flag("subtree")))
    return chains, o.number("defaultWeight", 0.0)


def _points(o: JsonObject) -> list:
    out = []
    for p in o.items("points"):
        po = JsonObject(p, {"node", "x", "y"}, "a point")
        out.append(SpacePoint(_place(po.get("node", ("number",)), "a point's node"),
                              po.number("x"), po.number("y", 0.0)))
    return out


def _node_object(v: Value) -> tuple:
    """A node's kind (one this form has) and its members, checked against the kind's."""
    if v.kind != "object":
        raise form_error(GraphForm.type, v.offset, "a node is not an object")
    kind_at = next((at for key, at, _ in v.value if key == "kind"), None)
    kind_v = next((val for key, _, val in v.value if key == "kind"), None)
    if kind_v is None:
        raise form_error(GraphForm.missing, v.offset, "a node lacks 'kind'")
    if kind_v.kind != "string":
        raise form_error(GraphForm.type, kind_at, "a node's kind is not a name")
    kind = kind_v.value
    if kind in LATER_KINDS:
        raise VersionError(f"node kind {kind!r} is of a later form", reason=BuildReason.Form,
                           item=kind_at, other=int(GraphForm.version))
    if kind not in NODE_MEMBERS:
        raise form_error(GraphForm.value, kind_at, f"no node kind {kind!r}")
    return kind, JsonObject(v, NODE_MEMBERS[kind] | {"kind"}, f"a {kind} node")


def _node(v: Value, P: _Names, C: _Names, Y: _Names, parameters, sk, assets, S=None, D=None,
          M=None):
    kind, o = _node_object(v)
    one = lambda key: _place(o.get(key, ("number",)), f"a {kind} node's {key!r}")   # noqa: E731
    if kind == "clip":
        return ClipNode(C.find(o, "clip"), o.number("speed", 1.0), o.option("loop", LOOPS, ClipLoop.clip),
                        Y.find(o, "syncGroup", optional=True), o.flag("leader"))
    if kind == "blend":
        inputs = []
        for i in o.items("inputs"):
            io = JsonObject(i, {"node", "weight", "parameter"}, "a blend input")
            inputs.append(BlendInput(_place(io.get("node", ("number",)), "a blend input's node"),
                                     io.number("weight", 1.0), P.find(io, "parameter", optional=True)))
        return BlendNode(inputs, o.flag("direct"))
    if kind == "blend1d":
        return Blend1DNode(P.find(o, "parameter"), _points(o), o.number("period", 0.0))
    if kind == "blend2dBanded":
        return Blend2DBandedNode(P.find(o, "xParameter"), P.find(o, "yParameter"), _points(o),
                                 o.flag("polar"))
    if kind == "blend2dTriangulated":
        return Blend2DTriangulatedNode(P.find(o, "xParameter"), P.find(o, "yParameter"), _points(o),
                                       _triangles(o))
    if kind == "mask":
        chains, default = _mask(o, sk)
        return MaskNode(one("base"), one("overlay"), chains, default)
    if kind == "additive":
        return AdditiveNode(one("base"), one("layer"), o.number("weight", 1.0),
                            P.find(o, "parameter", optional=True))
    if kind == "select":
        return SelectNode(P.find(o, "parameter"), _places(o, "inputs"))
    if kind == "timeScale":
        return TimeScaleNode(one("input"), o.number("scale", 1.0), P.find(o, "parameter", optional=True))
    if kind == "seek":
        return SeekNode(one("input"), P.find(o, "trigger"), o.number("time", 0.0))
    if kind == "stateMachine":
        transitions = [_transition(t, P, parameters) for t in o.items("transitions", [])]
        return StateMachineNode(_places(o, "states"), transitions, o.whole("entry", 0, least=0),
                                o.whole("chainLimit", 0, least=0), _places(o, "finals", []))
    if kind == "oneShot":
        mask = o.maybe("mask", "object")
        if mask is not None:
            mask = MaskSource(*_mask(JsonObject(mask, {"chains", "defaultWeight"}, "a mask"), sk))
        return OneShotNode(one("base"), one("shot"), P.find(o, "trigger"),
                           P.find(o, "fadeOutTrigger", optional=True), P.find(o, "abort", optional=True),
                           o.option("curve", CURVES, Curve.linear), o.number("fadeIn", 0.0),
                           o.number("fadeOut", 0.0), mask)
    if kind == "inertialize":
        return InertializeNode(one("input"), P.find(o, "trigger", optional=True),
                               o.option("method", METHODS, InertializeMethod.inertialization),
                               o.number("duration", 0.0), o.number("halfLifeScale", _f(0.3)),
                               o.number("halfLifeMin", _f(0.1)), o.number("halfLifeMax", 1.0))
    if kind == "poseParameter":
        return PoseParameterNode(P.find(o, "parameter"))
    if kind == "mirror":
        return MirrorNode(one("input"))
    if kind == "bodyIk":
        return _body(o, one("input"), P, sk)
    if kind == "springs":
        return SpringsNode(one("input"), S.find(o, "springSet"), P.find(o, "positionParameter", optional=True),
                           P.find(o, "rotationParameter", optional=True), _vector(o, "force", (0.0, 0.0, 0.0)),
                           P.find(o, "forceParameter", optional=True), P.find(o, "reset", optional=True))
    if kind in ("twoBoneIk", "aimIk", "ccdIk", "fabrikIk"):
        return _solver(kind, o, one("input"), P, sk)
    if kind == "motionMatching":
        return _matching(o, P, D)
    if kind == "learnedMotionMatching":
        return LearnedMotionMatchingNode(M.find(o, "model"), o.whole("projector", 0, least=0),
                                         _query(o, P), P.find(o, "trigger", optional=True),
                                         o.number("period", _f(0.1)), o.number("duration", 0.0))
    return _subgraph(o, assets)


def _query(o: JsonObject, P: _Names) -> list:
    query = []
    for q in o.items("query", []):
        qo = JsonObject(q, {"channel", "time", "parameter"}, "a query input")
        query.append(MatchQueryInput(qo.whole("channel", least=0), P.find(qo, "parameter"),
                                     qo.whole("time", 0, least=0)))
    return query


def _matching(o: JsonObject, P: _Names, D: _Names) -> MotionMatchingNode:
    query = _query(o, P)

    def tags(key: str):
        v = o.get(key, ("number", "object"), None)
        if v is None or v.kind == "number":
            return o.whole(key, 0, least=0)
        return ParameterRef(P.find(JsonObject(v, {"parameter"}, f"{key!r}"), "parameter"))
    return MotionMatchingNode(D.find(o, "database"), query, P.find(o, "trigger", optional=True),
                              o.number("period", _f(0.1)), o.number("jumpThreshold", 0.0),
                              o.number("endExclusion", 0.0), o.number("historyTime", 0.0),
                              o.number("continuingBias", 0.0), o.number("transitionCost", 0.0),
                              o.whole("historyCount", 0, least=0), tags("requiredTags"),
                              tags("excludedTags"), o.number("duration", 0.0))


def _bone(o: JsonObject, key: str, sk) -> int:
    name = o.text(key)
    bone = sk.find_bone(name) if isinstance(sk, Skeleton) else None
    if bone is None or bone >= sk.bone_count:
        raise form_error(GraphForm.name, o.at(key), f"no bone named {name!r}")
    return bone


def _vector(o: JsonObject, key: str, default: tuple) -> tuple:
    items = o.items(key, None)
    if items is None:
        return default
    if len(items) != len(default) or any(v.kind != "number" for v in items):
        raise form_error(GraphForm.value, o.at(key), f"{o.what}'s {key!r} is not {len(default)} numbers")
    return tuple(v.value for v in items)


def _solver(kind: str, o: JsonObject, input_: int, P: _Names, sk):
    """An IK node of the form (graph/json/form.py's off values for what is left out)."""
    goal = _vector(o, "goal", (0.0, 0.0, 0.0)), P.find(o, "goalParameter", optional=True)
    pole = _vector(o, "pole", (0.0, 0.0, 0.0)), P.find(o, "poleParameter", optional=True)
    weight = o.number("weight", 1.0), P.find(o, "weightParameter", optional=True)
    if kind == "twoBoneIk":
        return TwoBoneIkNode(input_, _bone(o, "start", sk), _bone(o, "middle", sk), _bone(o, "end", sk),
                             *goal, *pole, _vector(o, "hinge", (0.0, 0.0, 0.0)), o.number("twist", 0.0),
                             o.number("soften", 0.0), *weight)
    if kind == "aimIk":
        bones = []
        for v in o.items("bones"):
            bo = JsonObject(v, {"bone", "share"}, "an aim bone")
            bones.append(AimBone(_bone(bo, "bone", sk), bo.number("share", 1.0)))
        return AimIkNode(input_, bones, *goal, _vector(o, "forward", (1.0, 0.0, 0.0)),
                         _vector(o, "up", (0.0, 1.0, 0.0)), *pole, _vector(o, "offset", (0.0, 0.0, 0.0)),
                         o.number("twist", 0.0), o.number("cone", AIM_MAX_CONE), *weight)
    limits = [_limit(v, sk) for v in o.items("limits", [])]
    cls = CcdIkNode if kind == "ccdIk" else FabrikIkNode
    return cls(input_, _bone(o, "root", sk), _bone(o, "end", sk), *goal, limits,
               o.whole("iterations", 16), o.number("tolerance", 1e-4), o.number("step", 0.0), *pole,
               _vector(o, "rotation", (0.0, 0.0, 0.0, 1.0)), P.find(o, "rotationParameter", optional=True),
               o.number("rotationWeight", 0.0), *weight)


def _body(o: JsonObject, input_: int, P: _Names, sk) -> BodyIkNode:
    effectors, goals, rots = [], [], []
    for v in o.items("effectors"):
        eo = JsonObject(v, {"bone", "goal", "goalParameter", "rotation", "rotationParameter",
                            "rotationWeight", "strength", "pullChain"}, "an effector")
        effectors.append(BodyEffector(_bone(eo, "bone", sk), _vector(eo, "goal", (0.0, 0.0, 0.0)),
                                      _vector(eo, "rotation", (0.0, 0.0, 0.0, 1.0)),
                                      eo.number("rotationWeight", 0.0), eo.number("strength", 1.0),
                                      eo.number("pullChain", 0.0)))
        goals.append(P.find(eo, "goalParameter", optional=True))
        rots.append(P.find(eo, "rotationParameter", optional=True))
    bones = []
    for v in o.items("bones", []):
        bo = JsonObject(v, {"bone", "stiffness", "limit", "preferred", "preferredWeight", "stretch"},
                        "a bone setting")
        limit = BodyLimit()
        lv = bo.maybe("limit", "object")
        if lv is not None:
            lo = JsonObject(lv, {"kind", "axis", "low", "high"}, "a limit")
            limit = BodyLimit(lo.option("kind", BODY_LIMITS, BodyLimitKind.none),
                              _vector(lo, "axis", (1.0, 0.0, 0.0)), lo.number("low", 0.0),
                              lo.number("high", 0.0))
        bones.append(BodyBone(_bone(bo, "bone", sk), bo.number("stiffness", 0.0), limit,
                              _vector(bo, "preferred", (0.0, 0.0, 0.0)), bo.number("preferredWeight", 0.0),
                              bo.number("stretch", 0.0)))
    solve = BodySolve(_bone(o, "top", sk), effectors, bones, o.option("topMode", TOP_MODES, BodyTopMode.pinned),
                      o.number("prePull", 0.0), o.whole("iterations", 10), o.number("tolerance", 1e-3))
    return BodyIkNode(input_, solve, o.option("solver", BODY_SOLVERS, BodySolver.xpbd), goals, rots)


def _limit(v: Value, sk):
    if v.kind != "object":
        raise form_error(GraphForm.type, v.offset, "a limit is not an object")
    kind_v = next((val for key, _, val in v.value if key == "kind"), None)
    kind_at = next((at for key, at, _ in v.value if key == "kind"), v.offset)
    if kind_v is None:
        raise form_error(GraphForm.missing, v.offset, "a limit lacks 'kind'")
    if kind_v.kind != "string" or kind_v.value not in LIMIT_MEMBERS:
        raise form_error(GraphForm.value, kind_at, "a limit of no kind the form has")
    o = JsonObject(v, LIMIT_MEMBERS[kind_v.value], f"a {kind_v.value} limit")
    bone = _bone(o, "bone", sk)
    if kind_v.value == "cone":
        return ConeLimit(bone, o.number("max", math.pi))
    low, high = o.number("min", -math.pi), o.number("max", math.pi)
    if kind_v.value == "hinge":
        return HingeLimit(bone, _vector(o, "axis", (0.0, 0.0, 1.0)), low, high)
    return TwistLimit(bone, low, high)


def _triangles(o: JsonObject):
    """A triangulated space's triangles, or None to have the build triangulate."""
    given = o.maybe("triangles", "array")
    if given is None:
        return None
    triangles = []
    for t in given.value:
        if t.kind != "array":
            raise form_error(GraphForm.type, t.offset, "a triangle is not a list")
        triangles.append([_place(c, "a triangle's corner") for c in t.value])
    return triangles


def _subgraph(o: JsonObject, assets) -> SubgraphNode:
    graph = from_json(o.get("graph", ("object",)), assets, top=False)
    mapping = {}
    if "parameters" in o.members:
        mv = o.get("parameters", ("object",))
        for key, at, value in mv.value:
            if value.kind != "string":
                raise form_error(GraphForm.type, at, "a parameter mapping to other than a name")
            if key in mapping:
                raise form_error(GraphForm.duplicate, at, f"mapping {key!r} given twice")
            mapping[key] = value.value
    return SubgraphNode(graph, mapping)


def _transition(v: Value, P: _Names, parameters) -> Transition:
    o = JsonObject(v, {"from", "to", "priority", "interruption", "entry", "fade", "duration", "cooldown",
                 "conditions"}, "a transition")
    source = o.get("from", ("number", "null"))
    t = Transition(None if source.kind == "null" else _place(source, "a transition's from"),
                   _place(o.get("to", ("number",)), "a transition's to"), o.whole("priority", 0),
                   o.option("interruption", INTERRUPTIONS, Interruption.none),
                   o.option("entry", ENTRIES, EntryMode.restart), o.option("fade", CURVES, Curve.linear),
                   o.number("duration", 0.0), o.number("cooldown", 0.0))
    for c in o.items("conditions", []):
        if c.kind != "object":
            raise form_error(GraphForm.type, c.offset, "a condition is not an object")
        keys = [key for key, _, _ in c.value]
        kind_key = next((k for k in ("parameter", "trigger", "event", "stateTime", "finished")
                         if k in keys), None)
        if kind_key is None:
            if keys:
                raise form_error(GraphForm.member, c.value[0][1], f"a condition takes no {keys[0]!r} first")
            raise form_error(GraphForm.missing, c.offset, "a condition of no kind")
        takes = {"parameter": {"parameter", "op", "value"}}.get(kind_key, {kind_key})
        co = JsonObject(c, takes, "a condition")
        if kind_key == "parameter":
            p = P.find(co, "parameter")
            op = co.option("op", OPS, None)
            if op is None:
                raise form_error(GraphForm.missing, co.offset, "a condition lacks 'op'")
            value = co.get("value", ("number", "bool"))
            if value.kind == "bool" and parameters[p].type != ParameterType.bool_:
                raise form_error(GraphForm.type, co.at("value"), "a bool value for a number parameter")
            t.conditions.append(Condition(ConditionKind.parameter, p, op, float(value.value)))
        elif kind_key == "trigger":
            t.conditions.append(Condition(ConditionKind.trigger, P.find(co, "trigger")))
        elif kind_key == "event":
            t.conditions.append(Condition(ConditionKind.event, event=co.text("event")))
        elif kind_key == "stateTime":
            t.conditions.append(Condition(ConditionKind.state_time, value=co.number("stateTime")))
        else:
            if co.get("finished", ("bool",)).value is not True:
                raise form_error(GraphForm.value, co.at("finished"), "'finished' is true or absent")
            t.conditions.append(Condition(ConditionKind.finished))
    return t


def read_text(text, assets: GraphNamedAssets) -> GraphSource:
    """The source a text holds (refusals: the module's table)."""
    if isinstance(text, str):
        text = text.encode("utf-8")
    return from_json(parse(text), assets)


def build_graph_json(builder: Builder, text, assets: GraphNamedAssets) -> bytes:
    """maniBuildGraphJson: the text read, then built as maniBuildGraph builds it, the file kept.
    A missing builder, text or assets (or assets without an opened skeleton) is a misuse."""
    enter_build(builder, assets, GraphNamedAssets, skeleton=Skeleton)
    raw = text_bytes(builder, text)
    data = build_source(read_text(raw, assets))
    builder.keep(data, "graph")
    return data

