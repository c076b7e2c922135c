"""The graph file's layout, and each node kind's data: encoded by the build, decoded and
checked by the open, so the two can never disagree about a word.

The graph file (container kind 7, format version 1), every number little-endian:

    GRPH  header, 64 bytes:
            0  u64  identity of the skeleton the graph was built against
            8  u64  identity of the mirror map (0: none)
           16  u32  bones of that skeleton
           20  u32  nodes N (1 to MAX_GRAPH_NODES), the output the last
           24  u32  parameters, clip slots, sync groups, database slots, model slots,
                    spring set slots, retargeting map slots (seven counts)
           52  u32  pose slots (1 to N)
           56  u32  condition event names
           60  u32  masks
    PARM  per parameter 32 bytes: u32 type, u32 flags (1 bounded), the default as four
          32-bit words (f32, or i32 for bool, trigger and int), the bounds (two words)
    P...  parameter names (core/names.py: POFF PNAM PHSH PSRT)
    CLPS  per clip slot 24 bytes: u64 clip identity, u32 map slot (NO_TRACK: none), u32
          flags (1 additive clip, 2 all events), u32 reserved 0 twice
    C...  clip slot names;  Y...  sync group names
    DBSL  per database slot 16 bytes: u64 identity, u32 first and u32 count in DBCL
    DBCL  u32[]: the clip slots each database slot lists
    MDSL  u64 per model slot;  SPSL  u64 per spring set slot
    D..., M..., S...  their names
    RMAP  per retargeting map slot 16 bytes: u64 map identity, u64 source skeleton identity
    NODE  per node 32 bytes: u32 kind, u32 flags (1 gives a difference, 2 mirrored), u32
          place in the source, u32 first input and u32 input count (in INPT), u32 first word
          and u32 word count (in NDAT), u32 pose slot
    INPT  u32[]: every node's inputs, each an earlier node
    NDAT  32-bit words: each node's data, as the table below lays it out
    MASK  f32[masks, bones]: mask weights, 0 to 1
    E...  the names transition conditions wait for as events

Node data (NONE = GRAPH_NONE / NO_PARAMETER; f: f32, i: i32, others u32):

    clip          slot, sync group or NONE, leader 0/1, loop (ClipLoop), f speed
    blend         direct 0/1, then per input: f weight, float parameter or NONE
    blend_1d      float parameter, f period, then f x per point
    banded        x parameter, y parameter, polar 0/1, then f x, f y per point
    triangulated  x parameter, y parameter, triangle count T, then f x, f y per point,
                  then three point indices per triangle
    mask          mask
    additive      f weight, float parameter or NONE
    select        int or bool parameter
    time_scale    f scale, float parameter or NONE
    seek          f time, trigger
    state_machine entry state, chain limit (1 to MAX_GRAPH_CHAIN_LIMIT), transitions T,
                  finals F, F final states, then per transition: source state or NONE,
                  target state, i priority, interruption, entry mode, fade curve,
                  f duration, f cooldown, conditions C, then per condition: kind, parameter
                  or event name or NONE, compare op, value (f, or i for int and bool)
    one_shot      trigger, fade-out trigger or NONE, abort trigger or NONE, curve,
                  f fade in, f fade out, mask or NONE
    inertialize   trigger or NONE, method, f duration, f half-life scale, f half-life min,
                  f half-life max
    pose_param    pose parameter
    mirror        nothing (the header's mirror map)
    two_bone_ik   start, middle, end, goal, pole and weight parameters or NONE, then f goal 3,
                  f pole 3, f hinge 3, f twist, f soften, f weight
    aim_ik        bones M (1 to MAX_AIM_BONES), goal, pole and weight parameters or NONE,
                  then f goal 3, f forward 3 (unit), f up 3, f pole 3, f offset 3, f twist,
                  f cone, f weight, then per bone: bone, f share
    ccd_ik,       root, end, goal, pole, rotation and weight parameters or NONE, iterations,
    fabrik_ik     limits L, then f goal 3, f pole 3, f rotation 4, f rotation weight,
                  f tolerance, f step, f weight, then per limit: kind (ik.LimitKind), bone,
                  f axis 3, f low, f high

    springs       spring set slot, position (vector3), rotation (quaternion) and force
                  (vector3) parameters or NONE, reset trigger or NONE, f force 3

    motion_match  database slot, trigger or NONE, f period, f jump threshold, f end
                  exclusion, f history time, f continuing bias, f transition cost, history
                  count (0 to MAX_MATCH_HISTORY), required tags, required tags' int
                  parameter or NONE (then tags 0), excluded tags, its parameter or NONE,
                  f duration, queries Q, then per query: channel, time, parameter (float,
                  vector2 or vector3; the binding checks the database's channel takes it)

    learned_match model slot, projector (below MAX_LEARNED_PROJECTORS; the binding checks the
                  model has it), trigger or NONE, f period, f duration, queries Q, then per
                  query: channel, time, parameter (float, vector2 or vector3; the binding
                  checks the model's channel takes it)

    body_ik       top, top mode, solver (BodySolver), iterations, effectors E, settings B,
                  f pre-pull, f tolerance, then per effector: bone, goal (vector3) and
                  rotation (quaternion) parameters or NONE, f goal 3, f rotation 4,
                  f rotation weight, f strength, f pull chain; then per setting: bone,
                  limit kind (BodyLimitKind), f stiffness, f stretch, f axis 3, f low,
                  f high, f preferred 3, f preferred weight (the skeleton's checks, a part
                  below the top, are the binding's: ik.body's pack)

Angles are binary32 and may be pi rounded up (PI32); the evaluation clamps them to pi.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import FormatError
from .limits import (GRAPH_NONE, MAX_GRAPH_MATCH_COST, MAX_GRAPH_MATCH_QUERIES, MAX_GRAPH_CHAIN_LIMIT, MAX_GRAPH_CONDITIONS, MAX_GRAPH_INPUTS,
                     MAX_GRAPH_SECONDS, MAX_GRAPH_TIME_FACTOR, MAX_GRAPH_TRANSITIONS,
                     MAX_GRAPH_TRIANGLES)
from .source import (ClipLoop, CompareOp, ConditionKind, Curve, EntryMode, InertializeMethod,
                     Interruption, NodeKind, ParameterType)
from ..ik.joints import LimitKind
from ..ik.limits import MAX_AIM_BONES, MAX_IK_CHAIN_BONES, MAX_IK_ITERATIONS
from ..ik.body.description import MAX_BODY_IK_BONES, MAX_BODY_IK_EFFECTORS
from ..matching.limits import MAX_MATCH_CHANNELS, MAX_MATCH_HISTORY, MAX_MATCH_TIMES
from ..learned.limits import MAX_LEARNED_PROJECTORS

FORMAT_VERSION = 1
FORMAT_MINOR = 0
HEADER = struct.Struct("<QQIIIIIIIIIIII")
PARAMETER = struct.Struct("<II4I2I")
CLIP_SLOT = struct.Struct("<QIIII")
DATABASE_SLOT = struct.Struct("<QII")
MAP_SLOT = struct.Struct("<QQ")
NODE = struct.Struct("<8I")

AT_SKELETON, AT_MIRROR, AT_BONES, AT_NODES, AT_PARAMETERS, AT_CLIPS, AT_SYNC, AT_DATABASES, \
    AT_MODELS, AT_SPRINGS, AT_MAPS, AT_SLOTS, AT_EVENTS, AT_MASKS = \
    0, 8, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60

FLAG_DIFFERENCE = 1
FLAG_MIRRORED = 2       # beneath an odd number of mirror nodes (the parity the build marks)
PARAMETER_BOUNDED = 1
CLIP_ADDITIVE = 1
CLIP_ALL_EVENTS = 2

FLOAT_TYPES = (ParameterType.float_,)
SELECT_TYPES = (ParameterType.int_, ParameterType.bool_)
COMPARABLE_TYPES = (ParameterType.bool_, ParameterType.int_, ParameterType.float_)
VECTOR3_TYPES = (ParameterType.vector3,)
QUATERNION_TYPES = (ParameterType.quaternion,)
PI32 = 3.1415927410125732       # pi as binary32 holds it (rounded up)
FORWARD_TOLERANCE = 1e-3        # an aim's forward is of length 1 within this (as ik.aim's)
AXIS_LENGTH = 1e-6              # a hinge limit's axis is longer than this (as ik.joints')
MAX_IK_LIMITS = 3 * MAX_IK_CHAIN_BONES      # one of each kind on every bone of a chain
SOLVER_KINDS = (NodeKind.two_bone_ik, NodeKind.aim_ik, NodeKind.ccd_ik, NodeKind.fabrik_ik)

# inputs each kind takes: (least, most)
ARITY = {NodeKind.clip: (0, 0), NodeKind.pose_parameter: (0, 0), NodeKind.mask: (2, 2),
         NodeKind.additive: (2, 2), NodeKind.one_shot: (2, 2), NodeKind.time_scale: (1, 1),
         NodeKind.seek: (1, 1), NodeKind.inertialize: (1, 1), NodeKind.blend: (1, MAX_GRAPH_INPUTS),
         NodeKind.blend_1d: (1, MAX_GRAPH_INPUTS), NodeKind.blend_2d_banded: (1, MAX_GRAPH_INPUTS),
         NodeKind.blend_2d_triangulated: (3, MAX_GRAPH_INPUTS), NodeKind.select: (1, MAX_GRAPH_INPUTS),
         NodeKind.state_machine: (1, MAX_GRAPH_INPUTS), NodeKind.mirror: (1, 1),
         NodeKind.two_bone_ik: (1, 1), NodeKind.aim_ik: (1, 1), NodeKind.ccd_ik: (1, 1),
         NodeKind.fabrik_ik: (1, 1), NodeKind.springs: (1, 1), NodeKind.body_ik: (1, 1),
         NodeKind.motion_matching: (0, 0), NodeKind.learned_motion_matching: (0, 0)}
QUERY_TYPES = (ParameterType.float_, ParameterType.vector2, ParameterType.vector3)
TAG_TYPES = (ParameterType.int_,)


def f32(x: float) -> float:
    """x as binary32 holds it (past its range: infinite)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def f32_word(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def word_f32(w: int) -> float:
    return struct.unpack("<f", struct.pack("<I", w))[0]


def word_i32(w: int) -> int:
    return w - (1 << 32) if w & 0x80000000 else w


# ---- decoded node data -------------------------------------------------------------------------
@dataclass
class ClipData:
    slot: int
    sync: int
    leader: bool
    loop: ClipLoop
    speed: float


@dataclass
class BlendData:
    direct: bool
    weights: list
    parameters: list


@dataclass
class Space1DData:
    parameter: int
    period: float
    xs: list


@dataclass
class BandedData:
    x_parameter: int
    y_parameter: int
    polar: bool
    points: list            # (x, y)


@dataclass
class TriangulatedData:
    x_parameter: int
    y_parameter: int
    points: list
    triangles: list         # (a, b, c)


@dataclass
class MaskData:
    mask: int


@dataclass
class AdditiveData:
    weight: float
    parameter: int


@dataclass
class SelectData:
    parameter: int


@dataclass
class TimeScaleData:
    scale: float
    parameter: int


@dataclass
class SeekData:
    time: float
    trigger: int


@dataclass
class ConditionData:
    kind: ConditionKind
    ref: int                # the parameter, the event name, or NONE
    op: CompareOp
    value: float            # an int parameter's and a bool's value is whole


@dataclass
class TransitionData:
    source: int
    target: int
    priority: int
    interruption: Interruption
    entry: EntryMode
    fade: Curve
    duration: float
    cooldown: float
    conditions: list = field(default_factory=list)


@dataclass
class MachineData:
    entry: int
    chain_limit: int
    finals: list
    transitions: list


@dataclass
class OneShotData:
    trigger: int
    fade_out_trigger: int
    abort: int
    curve: Curve
    fade_in: float
    fade_out: float
    mask: int


@dataclass
class InertializeData:
    trigger: int
    method: InertializeMethod
    duration: float
    half_life_scale: float
    half_life_min: float
    half_life_max: float


@dataclass
class PoseParameterData:
    parameter: int


@dataclass
class MirrorData:
    pass


@dataclass
class TwoBoneData:
    start: int
    middle: int
    end: int
    goal_parameter: int
    pole_parameter: int
    weight_parameter: int
    goal: tuple
    pole: tuple
    hinge: tuple
    twist: float
    soften: float
    weight: float


@dataclass
class AimData:
    bones: list
    shares: list
    goal_parameter: int
    pole_parameter: int
    weight_parameter: int
    goal: tuple
    forward: tuple
    up: tuple
    pole: tuple
    offset: tuple
    twist: float
    cone: float
    weight: float


@dataclass
class SpringsData:
    slot: int
    position_parameter: int
    rotation_parameter: int
    force_parameter: int
    reset: int
    force: tuple


@dataclass
class BodyData:
    top: int
    mode: int
    solver: int
    iterations: int
    pre_pull: float
    tolerance: float
    effectors: list         # (bone, goal parameter, rotation parameter, goal, rotation,
                            #  rotation weight, strength, pull chain)
    settings: list          # (bone, kind, stiffness, stretch, axis, low, high, preferred,
                            #  preferred weight)


@dataclass
class MatchingData:
    database: int
    trigger: int
    period: float
    jump_threshold: float
    end_exclusion: float
    history_time: float
    continuing_bias: float
    transition_cost: float
    history_count: int
    required_tags: int
    required_parameter: int
    excluded_tags: int
    excluded_parameter: int
    duration: float
    query: list             # (channel, time, parameter)


@dataclass
class LearnedData:
    model: int
    projector: int
    trigger: int
    period: float
    duration: float
    query: list             # (channel, time, parameter)


@dataclass
class LimitData:
    kind: LimitKind
    bone: int
    axis: tuple             # (0, 0, 0) but for a hinge
    low: float              # 0 for a cone
    high: float


@dataclass
class ChainData:
    root: int
    end: int
    goal_parameter: int
    pole_parameter: int
    rotation_parameter: int
    weight_parameter: int
    iterations: int
    limits: list
    goal: tuple
    pole: tuple
    rotation: tuple
    rotation_weight: float
    tolerance: float
    step: float
    weight: float


# ---- encoding ------------------------------------------------------------------------------------
def encode(kind: NodeKind, d, parameter_types: list) -> list[int]:
    """A node's data as 32-bit words (see the module's table)."""
    F = f32_word
    if kind == NodeKind.clip:
        return [d.slot, d.sync, int(d.leader), int(d.loop), F(d.speed)]
    if kind == NodeKind.blend:
        out = [int(d.direct)]
        for w, p in zip(d.weights, d.parameters):
            out += [F(w), p]
        return out
    if kind == NodeKind.blend_1d:
        return [d.parameter, F(d.period)] + [F(x) for x in d.xs]
    if kind == NodeKind.blend_2d_banded:
        return [d.x_parameter, d.y_parameter, int(d.polar)] + [F(v) for p in d.points for v in p]
    if kind == NodeKind.blend_2d_triangulated:
        return ([d.x_parameter, d.y_parameter, len(d.triangles)]
                + [F(v) for p in d.points for v in p] + [i for t in d.triangles for i in t])
    if kind == NodeKind.mask:
        return [d.mask]
    if kind == NodeKind.additive:
        return [F(d.weight), d.parameter]
    if kind == NodeKind.select:
        return [d.parameter]
    if kind == NodeKind.time_scale:
        return [F(d.scale), d.parameter]
    if kind == NodeKind.seek:
        return [F(d.time), d.trigger]
    if kind == NodeKind.state_machine:
        out = [d.entry, d.chain_limit, len(d.transitions), len(d.finals)] + list(d.finals)
        for t in d.transitions:
            out += [t.source, t.target, t.priority & 0xFFFFFFFF, int(t.interruption), int(t.entry),
                    int(t.fade), F(t.duration), F(t.cooldown), len(t.conditions)]
            for c in t.conditions:
                whole = c.kind == ConditionKind.parameter and \
                    parameter_types[c.ref] != ParameterType.float_
                value = int(c.value) & 0xFFFFFFFF if whole else F(c.value)
                out += [int(c.kind), c.ref, int(c.op), value]
        return out
    if kind == NodeKind.one_shot:
        return [d.trigger, d.fade_out_trigger, d.abort, int(d.curve), F(d.fade_in), F(d.fade_out),
                d.mask]
    if kind == NodeKind.inertialize:
        return [d.trigger, int(d.method), F(d.duration), F(d.half_life_scale), F(d.half_life_min),
                F(d.half_life_max)]
    if kind == NodeKind.pose_parameter:
        return [d.parameter]
    if kind == NodeKind.mirror:
        return []
    if kind == NodeKind.two_bone_ik:
        return ([d.start, d.middle, d.end, d.goal_parameter, d.pole_parameter, d.weight_parameter]
                + [F(v) for v in (*d.goal, *d.pole, *d.hinge, d.twist, d.soften, d.weight)])
    if kind == NodeKind.aim_ik:
        out = [len(d.bones), d.goal_parameter, d.pole_parameter, d.weight_parameter]
        out += [F(v) for v in (*d.goal, *d.forward, *d.up, *d.pole, *d.offset, d.twist, d.cone,
                               d.weight)]
        for bone, share in zip(d.bones, d.shares):
            out += [bone, F(share)]
        return out
    if kind == NodeKind.body_ik:
        out = [d.top, d.mode, d.solver, d.iterations, len(d.effectors), len(d.settings),
               F(d.pre_pull), F(d.tolerance)]
        for bone, gp, rp, goal, rot, rw, strength, pull in d.effectors:
            out += [bone, gp, rp] + [F(v) for v in (*goal, *rot, rw, strength, pull)]
        for bone, lk, stiff, stretch, axis, low, high, pref, pw in d.settings:
            out += [bone, lk] + [F(v) for v in (stiff, stretch, *axis, low, high, *pref, pw)]
        return out
    if kind == NodeKind.motion_matching:
        out = [d.database, d.trigger] + [F(v) for v in (
            d.period, d.jump_threshold, d.end_exclusion, d.history_time, d.continuing_bias,
            d.transition_cost)]
        out += [d.history_count, d.required_tags, d.required_parameter, d.excluded_tags,
                d.excluded_parameter, F(d.duration), len(d.query)]
        for channel, time, parameter in d.query:
            out += [channel, time, parameter]
        return out
    if kind == NodeKind.learned_motion_matching:
        out = [d.model, d.projector, d.trigger, F(d.period), F(d.duration), len(d.query)]
        for channel, time, parameter in d.query:
            out += [channel, time, parameter]
        return out
    if kind == NodeKind.springs:
        return [d.slot, d.position_parameter, d.rotation_parameter, d.force_parameter, d.reset] + \
            [F(v) for v in d.force]
    if kind in (NodeKind.ccd_ik, NodeKind.fabrik_ik):
        out = [d.root, d.end, d.goal_parameter, d.pole_parameter, d.rotation_parameter,
               d.weight_parameter, d.iterations, len(d.limits)]
        out += [F(v) for v in (*d.goal, *d.pole, *d.rotation, d.rotation_weight, d.tolerance,
                               d.step, d.weight)]
        for m in d.limits:
            out += [int(m.kind), m.bone] + [F(v) for v in (*m.axis, m.low, m.high)]
        return out
    raise AssertionError(kind)


# ---- decoding, with the open's checks -------------------------------------------------------------
@dataclass
class Facts:
    """What a node's data is checked against."""

    parameter_types: list
    clips: int
    syncs: int
    masks: int
    events: int
    bones: int = 0
    springs: int = 0
    databases: int = 0
    models: int = 0


class _Reader:
    """Reads one node's words in order; every fault names the word it is in."""

    def __init__(self, words: np.ndarray, at: int):
        self.words = words
        self.at = at
        self.i = 0

    def fail(self, message: str, back: int = 1):
        raise FormatError(message, self.at + 4 * (self.i - back))

    def u(self) -> int:
        if self.i >= self.words.size:
            raise FormatError("node data shorter than its kind needs", self.at + 4 * self.i)
        w = int(self.words[self.i])
        self.i += 1
        return w

    def index(self, count: int, none: bool = False, what: str = "index") -> int:
        w = self.u()
        if not (w < count or (none and w == GRAPH_NONE)):
            self.fail(f"{what} {w} out of range")
        return w

    def enum(self, cls, what: str):
        w = self.u()
        try:
            return cls(w)
        except ValueError:
            self.fail(f"{what} {w} unknown")

    def flag(self) -> bool:
        w = self.u()
        if w > 1:
            self.fail("flag not 0 or 1")
        return bool(w)

    def f(self, lo: float = -math.inf, hi: float = math.inf, what: str = "value") -> float:
        v = word_f32(self.u())
        if not (math.isfinite(v) and lo <= v <= hi):
            self.fail(f"{what} {v} not finite or out of range")
        return v

    def parameter(self, facts: Facts, types, none: bool = False) -> int:
        w = self.u()
        if none and w == GRAPH_NONE:
            return w
        if w >= len(facts.parameter_types) or facts.parameter_types[w] not in types:
            self.fail(f"parameter {w} missing or of another type")
        return w

    def done(self) -> None:
        if self.i != self.words.size:
            raise FormatError("node data longer than its kind needs", self.at + 4 * self.i)


def decode(kind: NodeKind, words: np.ndarray, at: int, inputs: int, facts: Facts):
    """A node's data from its words, checked; FormatError at the first wrong word."""
    r = _Reader(words, at)
    T = MAX_GRAPH_TIME_FACTOR
    if kind == NodeKind.clip:
        slot = r.index(facts.clips, what="clip slot")
        sync = r.index(facts.syncs, none=True, what="sync group")
        leader = r.flag()
        if leader and sync == GRAPH_NONE:
            r.fail("a leader outside any sync group")
        d = ClipData(slot, sync, leader, r.enum(ClipLoop, "loop"), r.f(-T, T, "speed"))
    elif kind == NodeKind.blend:
        direct = r.flag()
        weights, params = [], []
        for _ in range(inputs):
            weights.append(r.f(0.0, 1.0, "weight"))
            params.append(r.parameter(facts, FLOAT_TYPES, none=True))
        d = BlendData(direct, weights, params)
    elif kind in (NodeKind.blend_1d, NodeKind.blend_2d_banded, NodeKind.blend_2d_triangulated):
        d = _decode_space(kind, r, inputs, facts)
    elif kind == NodeKind.mask:
        d = MaskData(r.index(facts.masks, what="mask"))
    elif kind == NodeKind.additive:
        d = AdditiveData(r.f(0.0, 1.0, "weight"), r.parameter(facts, FLOAT_TYPES, none=True))
    elif kind == NodeKind.select:
        d = SelectData(r.parameter(facts, SELECT_TYPES))
    elif kind == NodeKind.time_scale:
        d = TimeScaleData(r.f(-T, T, "scale"), r.parameter(facts, FLOAT_TYPES, none=True))
    elif kind == NodeKind.seek:
        d = SeekData(r.f(0.0, MAX_GRAPH_SECONDS, "time"), r.parameter(facts, (ParameterType.trigger,)))
    elif kind == NodeKind.state_machine:
        d = _decode_machine(r, inputs, facts)
    elif kind == NodeKind.one_shot:
        trig = (ParameterType.trigger,)
        d = OneShotData(r.parameter(facts, trig), r.parameter(facts, trig, none=True),
                        r.parameter(facts, trig, none=True), r.enum(Curve, "curve"),
                        r.f(0.0, MAX_GRAPH_SECONDS, "fade in"), r.f(0.0, MAX_GRAPH_SECONDS, "fade out"),
                        r.index(facts.masks, none=True, what="mask"))
    elif kind == NodeKind.inertialize:
        trigger = r.parameter(facts, (ParameterType.trigger,), none=True)
        method = r.enum(InertializeMethod, "method")
        duration = r.f(0.0, MAX_GRAPH_SECONDS, "duration")
        scale = r.f(0.0, MAX_GRAPH_SECONDS, "half-life scale")
        lo = r.f(0.0, MAX_GRAPH_SECONDS, "half-life min")
        hi = r.f(lo, MAX_GRAPH_SECONDS, "half-life max")
        if not (scale > 0 and lo > 0):
            r.fail("half-lives must be above 0", 3)
        d = InertializeData(trigger, method, duration, scale, lo, hi)
    elif kind == NodeKind.pose_parameter:
        d = PoseParameterData(r.parameter(facts, (ParameterType.pose,)))
    elif kind == NodeKind.mirror:
        d = MirrorData()
    elif kind == NodeKind.springs:
        d = SpringsData(r.index(facts.springs, what="spring set slot"),
                        r.parameter(facts, VECTOR3_TYPES, True), r.parameter(facts, QUATERNION_TYPES, True),
                        r.parameter(facts, VECTOR3_TYPES, True),
                        r.parameter(facts, (ParameterType.trigger,), True),
                        tuple(r.f(what="force") for _ in range(3)))
    elif kind == NodeKind.motion_matching:
        d = _decode_matching(r, facts)
    elif kind == NodeKind.learned_motion_matching:
        d = _decode_learned(r, facts)
    elif kind in SOLVER_KINDS:
        d = _decode_solver(kind, r, facts)
    elif kind == NodeKind.body_ik:
        d = _decode_body(r, facts)
    else:
        raise AssertionError(kind)
    r.done()
    return d


def _decode_space(kind: NodeKind, r: _Reader, inputs: int, facts: Facts):
    """A 1D, banded or triangulated space's data: its parameters and points, checked."""
    if kind == NodeKind.blend_1d:
        p = r.parameter(facts, FLOAT_TYPES)
        period = r.f(0.0, MAX_GRAPH_SECONDS, "period")
        xs = [r.f(what="position") for _ in range(inputs)]
        for k in range(1, inputs):
            if not xs[k] > xs[k - 1]:
                r.fail("positions not increasing", inputs - k)
        if period > 0 and not (xs[0] >= 0 and xs[-1] < period):
            r.fail("a position outside the period")
        return Space1DData(p, period, xs)
    px = r.parameter(facts, FLOAT_TYPES)
    py = r.parameter(facts, FLOAT_TYPES)
    if kind == NodeKind.blend_2d_banded:
        polar = r.flag()
        points = [(r.f(what="x"), r.f(what="y")) for _ in range(inputs)]
        fault = banded_fault(points, polar)
        if fault is not None:
            r.i = 3 + 2 * fault
            r.fail("points not in bands of increasing x", 0)
        r.i = 3 + 2 * inputs
        return BandedData(px, py, polar, points)
    count = r.u()
    if not 1 <= count <= MAX_GRAPH_TRIANGLES:
        r.fail("triangle count out of range")
    points = [(r.f(what="x"), r.f(what="y")) for _ in range(inputs)]
    triangles = []
    for _ in range(count):
        t = tuple(r.index(inputs, what="triangle corner") for _ in range(3))
        if len(set(t)) < 3 or triangle_area(points, t) == 0.0:
            r.fail("a degenerate triangle")
        triangles.append(t)
    return TriangulatedData(px, py, points, triangles)


def _decode_machine(r: _Reader, states: int, facts: Facts) -> MachineData:
    entry = r.index(states, what="entry state")
    limit = r.u()
    if not 1 <= limit <= MAX_GRAPH_CHAIN_LIMIT:
        r.fail("chain limit out of range")
    count = r.u()
    if count > MAX_GRAPH_TRANSITIONS:
        r.fail("too many transitions")
    nfinals = r.u()
    if nfinals > states:
        r.fail("more finals than states")
    finals = []
    for _ in range(nfinals):
        s = r.index(states, what="final state")
        if s in finals:
            r.fail("a final state twice")
        finals.append(s)
    transitions = []
    for _ in range(count):
        source = r.index(states, none=True, what="source state")
        target = r.index(states, what="target state")
        priority = word_i32(r.u())
        t = TransitionData(source, target, priority, r.enum(Interruption, "interruption"),
                           r.enum(EntryMode, "entry"), r.enum(Curve, "fade"),
                           r.f(0.0, MAX_GRAPH_SECONDS, "duration"),
                           r.f(0.0, MAX_GRAPH_SECONDS, "cooldown"))
        nconditions = r.u()
        if nconditions > MAX_GRAPH_CONDITIONS:
            r.fail("too many conditions")
        for _ in range(nconditions):
            kind = r.enum(ConditionKind, "condition kind")
            types = facts.parameter_types
            if kind == ConditionKind.parameter:
                ref = r.parameter(facts, COMPARABLE_TYPES)
            elif kind == ConditionKind.trigger:
                ref = r.parameter(facts, (ParameterType.trigger,))
            elif kind == ConditionKind.event:
                ref = r.index(facts.events, what="event name")
            else:
                ref = r.u()
                if ref != GRAPH_NONE:
                    r.fail("a condition that names nothing names something")
            op = r.enum(CompareOp, "compare op")
            if kind == ConditionKind.parameter and types[ref] != ParameterType.float_:
                value = float(word_i32(r.u()))
                if types[ref] == ParameterType.bool_ and (value not in (0.0, 1.0) or op > CompareOp.ne):
                    r.fail("a bool compared other than by == or != with 0 or 1")
            elif kind == ConditionKind.state_time:
                value = r.f(0.0, MAX_GRAPH_SECONDS, "state time")
            elif kind == ConditionKind.parameter:
                value = r.f(what="compared value")
            else:
                value = r.f(0.0, 0.0, "value of a condition that compares nothing")
            if kind != ConditionKind.parameter and op != CompareOp.ge:
                r.fail("a compare op on a condition that compares nothing", 2)
            t.conditions.append(ConditionData(kind, ref, op, value))
        transitions.append(t)
    return MachineData(entry, limit, finals, transitions)


def _decode_matching(r: _Reader, facts: Facts) -> MatchingData:
    S, C = MAX_GRAPH_SECONDS, MAX_GRAPH_MATCH_COST
    database = r.index(facts.databases, what="database slot")
    trigger = r.parameter(facts, (ParameterType.trigger,), none=True)
    period, threshold = r.f(0.0, S, "period"), r.f(0.0, C, "jump threshold")
    exclusion, history = r.f(0.0, S, "end exclusion"), r.f(0.0, S, "history time")
    bias, cost = r.f(-C, C, "continuing bias"), r.f(-C, C, "transition cost")
    count = r.u()
    if count > MAX_MATCH_HISTORY:
        r.fail("history count past MAX_MATCH_HISTORY")
    tags = []
    for _ in range(2):
        bits = r.u()
        parameter = r.parameter(facts, TAG_TYPES, none=True)
        if parameter != GRAPH_NONE and bits:
            r.fail("tags both given and a parameter's", 2)
        tags += [bits, parameter]
    duration = r.f(0.0, S, "duration")
    return MatchingData(database, trigger, period, threshold, exclusion, history, bias, cost,
                        count, *tags, duration, _decode_query(r, facts))


def _decode_query(r: _Reader, facts: Facts) -> list:
    """A (learned) motion matching node's query inputs: (channel, time, parameter)."""
    queries = r.u()
    if queries > MAX_GRAPH_MATCH_QUERIES:
        r.fail("too many query inputs")
    query = []
    for _ in range(queries):
        channel = r.index(MAX_MATCH_CHANNELS, what="channel")
        time = r.index(MAX_MATCH_TIMES, what="channel time")
        if any(q[:2] == (channel, time) for q in query):
            r.fail("a channel time queried twice", 2)
        query.append((channel, time, r.parameter(facts, QUERY_TYPES)))
    return query


def _decode_learned(r: _Reader, facts: Facts) -> LearnedData:
    model = r.index(facts.models, what="model slot")
    projector = r.index(MAX_LEARNED_PROJECTORS, what="projector")
    trigger = r.parameter(facts, (ParameterType.trigger,), none=True)
    period = r.f(0.0, MAX_GRAPH_SECONDS, "period")
    duration = r.f(0.0, MAX_GRAPH_SECONDS, "duration")
    return LearnedData(model, projector, trigger, period, duration, _decode_query(r, facts))


def _decode_solver(kind: NodeKind, r: _Reader, facts: Facts):
    """An IK node's data, checked as its solver's front door checks its description."""
    V, Q, F = VECTOR3_TYPES, QUATERNION_TYPES, FLOAT_TYPES

    def vec(n=3, what="vector"):
        return tuple(r.f(what=what) for _ in range(n))
    if kind == NodeKind.two_bone_ik:
        bones = [r.index(facts.bones, what="bone") for _ in range(3)]
        ps = [r.parameter(facts, V, True), r.parameter(facts, V, True), r.parameter(facts, F, True)]
        return TwoBoneData(*bones, *ps, vec(), vec(), vec(), r.f(what="twist"),
                           r.f(0.0, 1.0, "soften"), r.f(0.0, 1.0, "weight"))
    if kind == NodeKind.aim_ik:
        count = r.u()
        if not 1 <= count <= MAX_AIM_BONES:
            r.fail("aim bone count out of range")
        ps = [r.parameter(facts, V, True), r.parameter(facts, V, True), r.parameter(facts, F, True)]
        goal, forward = vec(), vec()
        if abs(math.sqrt(sum(v * v for v in forward)) - 1.0) > FORWARD_TOLERANCE:
            r.fail("forward not of length 1", 1)
        up, pole, offset = vec(), vec(), vec()
        twist, cone, weight = r.f(what="twist"), r.f(0.0, PI32, "cone"), r.f(0.0, 1.0, "weight")
        bones, shares = [], []
        for _ in range(count):
            bones.append(r.index(facts.bones, what="bone"))
            shares.append(r.f(0.0, what="share"))
        if max(shares) == 0.0:
            r.fail("every share 0")
        return AimData(bones, shares, *ps, goal, forward, up, pole, offset, twist, cone, weight)
    root = r.index(facts.bones, what="root")
    end = r.index(facts.bones, what="end")
    ps = [r.parameter(facts, V, True), r.parameter(facts, V, True), r.parameter(facts, Q, True),
          r.parameter(facts, F, True)]
    if kind == NodeKind.ccd_ik and ps[1] != GRAPH_NONE:
        r.fail("a pole parameter on a CCD chain", 3)
    iterations = r.u()
    if not 1 <= iterations <= MAX_IK_ITERATIONS:
        r.fail("iterations out of range")
    count = r.u()
    if count > MAX_IK_LIMITS:
        r.fail("too many limits")
    goal, pole = vec(), vec()
    if kind == NodeKind.ccd_ik and any(pole):
        r.fail("a pole on a CCD chain")
    rotation = vec(4)
    if not any(rotation):
        r.fail("an end rotation of length 0")
    share, tolerance = r.f(0.0, 1.0, "rotation weight"), r.f(0.0, what="tolerance")
    step = r.f(0.0, PI32, "step")
    if kind == NodeKind.fabrik_ik and step != 0.0:
        r.fail("a step on a FABRIK chain")
    weight = r.f(0.0, 1.0, "weight")
    limits = []
    for _ in range(count):
        limit_kind = r.enum(LimitKind, "limit kind")
        bone = r.index(facts.bones, what="limit bone")
        axis = vec()
        if limit_kind == LimitKind.hinge:
            if not math.sqrt(sum(v * v for v in axis)) > AXIS_LENGTH:
                r.fail("a hinge axis of no length")
        elif any(axis):
            r.fail("an axis on a limit other than a hinge")
        low = r.f(0.0 if limit_kind == LimitKind.cone else -PI32,
                  0.0 if limit_kind == LimitKind.cone else PI32, "low")
        limits.append(LimitData(limit_kind, bone, axis, low, r.f(low, PI32, "high")))
    return ChainData(root, end, *ps, iterations, limits, goal, pole, rotation, share, tolerance,
                     step, weight)


def _decode_body(r: _Reader, facts: Facts) -> BodyData:
    """A body IK node's data, every number checked as ik.body's pack checks it (the part
    below the top is the binding's)."""
    top = r.index(facts.bones, what="top")
    mode = r.u()
    if mode > 2:
        r.fail("top mode unknown")
    solver = r.u()
    if solver > 1:
        r.fail("solver unknown")
    iterations = r.u()
    if not 1 <= iterations <= MAX_IK_ITERATIONS:
        r.fail("iterations out of range")
    ne, nb = r.u(), r.u()
    if not 1 <= ne <= MAX_BODY_IK_EFFECTORS:
        r.fail("effector count out of range", 2)
    if nb > MAX_BODY_IK_BONES:
        r.fail("setting count out of range")
    pre_pull, tolerance = r.f(0.0, 1.0, "pre-pull"), r.f(0.0, what="tolerance")
    effectors, settings, seen = [], [], set()
    for _ in range(ne):
        bone = r.index(facts.bones, what="effector")
        if bone in seen:
            r.fail("an effector twice")
        seen.add(bone)
        gp = r.parameter(facts, VECTOR3_TYPES, True)
        rp = r.parameter(facts, QUATERNION_TYPES, True)
        goal = tuple(r.f(what="goal") for _ in range(3))
        rot = tuple(r.f(what="rotation") for _ in range(4))
        if not any(rot):
            r.fail("a rotation of length 0")
        effectors.append((bone, gp, rp, goal, rot, r.f(0.0, 1.0, "rotation weight"),
                          r.f(0.0, 1.0, "strength"), r.f(0.0, 1.0, "pull chain")))
    seen = set()
    for _ in range(nb):
        bone = r.index(facts.bones, what="setting")
        if bone in seen:
            r.fail("a setting twice")
        seen.add(bone)
        lk = r.u()
        if lk > 3:
            r.fail("limit kind unknown")
        stiff, stretch = r.f(0.0, 1.0, "stiffness"), r.f(0.0, 1.0, "stretch")
        axis = tuple(r.f(what="axis") for _ in range(3))
        if lk and abs(math.sqrt(sum(v * v for v in axis)) - 1.0) > FORWARD_TOLERANCE:
            r.fail("a limit axis not of length 1", 1)
        low = r.f(0.0 if lk == 2 else -PI32, 0.0 if lk == 2 else PI32, "low") if lk else r.f(what="low")
        high = r.f(low, PI32, "high") if lk else r.f(what="high")
        pref = tuple(r.f(what="preferred") for _ in range(3))
        settings.append((bone, lk, stiff, stretch, axis, low, high, pref,
                         r.f(0.0, 1.0, "preferred weight")))
    return BodyData(top, mode, solver, iterations, pre_pull, tolerance, effectors, settings)


def banded_fault(points: list, polar: bool) -> int | None:
    """The first point out of band order: bands by increasing y, x increasing within a band
    (in a polar space spanning less than a turn, radii at least 0); None when in order."""
    for k, (x, y) in enumerate(points):
        if polar and y < 0:
            return k
        if k == 0:
            continue
        px, py = points[k - 1]
        if y < py or (y == py and not x > px):
            return k
        if polar and y == py:
            first = next(j for j in range(k + 1) if points[j][1] == y)
            if x - points[first][0] >= 2 * math.pi:
                return k
    return None


def triangle_area(points: list, t) -> float:
    """Twice the signed area of a triangle of points, binary64."""
    (ax, ay), (bx, by), (cx, cy) = (points[i] for i in t)
    return (bx - ax) * (cy - ay) - (cx - ax) * (by - ay)
