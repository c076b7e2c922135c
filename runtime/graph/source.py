"""maniGraphSource: what a graph is built from, as dataclasses.

A source names its parameters, clip slots (opened clips, each under a name), sync groups and
the later kinds' slots, and lists its nodes; a node names its inputs by their place in the
list, parameters, clip slots and sync groups by their index, and mask chains' bones by their
skeleton index (the JSON text form names all of these by name). A subgraph node carries a
whole source whose nodes are inlined at build, its parameters mapped to the host's by name.

The enums are the file's codes and the C API's: their values are frozen with the format.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Sequence, Union

from ..ik.limits import AIM_MAX_CONE


class NodeKind(IntEnum):
    """maniGraphNodeKind (0 answers a query on no graph)."""

    clip = 1
    blend = 2
    blend_1d = 3
    blend_2d_banded = 4
    blend_2d_triangulated = 5
    mask = 6
    additive = 7
    select = 8
    time_scale = 9
    seek = 10
    state_machine = 11
    one_shot = 12
    inertialize = 13
    pose_parameter = 14
    mirror = 15
    two_bone_ik = 16
    aim_ik = 17
    ccd_ik = 18
    fabrik_ik = 19
    springs = 20
    body_ik = 21
    motion_matching = 22
    learned_motion_matching = 23


class BodySolver(IntEnum):
    """Which full-body solver a body IK node runs (bodyik.h)."""

    xpbd = 0
    sdls = 1


class ParameterType(IntEnum):
    """maniGraphParameterType."""

    bool_ = 1
    trigger = 2
    int_ = 3
    float_ = 4
    vector2 = 5
    vector3 = 6
    vector4 = 7
    quaternion = 8
    pose = 9


# floats a value of each type holds (bool, trigger and int hold one whole number)
VALUE_WIDTH = {ParameterType.bool_: 1, ParameterType.trigger: 1, ParameterType.int_: 1,
               ParameterType.float_: 1, ParameterType.vector2: 2, ParameterType.vector3: 3,
               ParameterType.vector4: 4, ParameterType.quaternion: 4, ParameterType.pose: 0}


class ClipLoop(IntEnum):
    """What a clip node's playhead does at the clip's ends: as the clip's loop policy says,
    or repeat, or clamp, whatever the clip says."""

    clip = 0
    repeat = 1
    clamp = 2


class Interruption(IntEnum):
    """Which transitions may cut in while a transition is under way: none; those from its
    source state; those from its destination; or both, one set looked at before the other."""

    none = 0
    source = 1
    destination = 2
    source_then_destination = 3
    destination_then_source = 4


class EntryMode(IntEnum):
    """What a transition's destination does on entry: start over, or continue from where
    its nodes last were."""

    restart = 0
    continue_ = 1


class Curve(IntEnum):
    """Fade shapes over a fade's progress t in [0, 1]: t, t^2 (3 - 2t), t^2, 1 - (1 - t)^2."""

    linear = 0
    smooth = 1
    ease_in = 2
    ease_out = 3


class ConditionKind(IntEnum):
    """What a transition's condition looks at: a parameter compared with a value, a trigger
    set, an event the source state listed in the update before, the time spent in the
    current state (at least the value), or the source state finished (a machine in a final
    state, a clamped clip at its end)."""

    parameter = 0
    trigger = 1
    event = 2
    state_time = 3
    finished = 4


class CompareOp(IntEnum):
    eq = 0
    ne = 1
    lt = 2
    le = 3
    gt = 4
    ge = 5


class InertializeMethod(IntEnum):
    """Inertialization (the old pose's offset from the new one decays by a quintic over the
    duration) or dead blending (the old pose extrapolated with its decaying velocity and
    cross-faded into the new one)."""

    inertialization = 0
    dead_blending = 1


# ---- the graph's lists -------------------------------------------------------------------------
@dataclass
class ParameterSource:
    """A parameter: its name, type and default (None: the type's off value: false, 0, the
    zero vector, the identity quaternion; a pose parameter's is always none, the rest pose).
    Bounds, for int and float parameters only, both or neither."""

    name: str | bytes
    type: ParameterType
    default: Any = None
    minimum: float | int | None = None
    maximum: float | int | None = None


@dataclass
class ClipSlotSource:
    """A clip slot: the opened clip a graph plays under a name. With all_events its clip
    nodes list their events at any weight above 0, not only past GRAPH_EVENT_THRESHOLD.
    With a retarget_map (an opened RetargetMap made for the graph's skeleton) the clip is one
    of the map's source skeleton, sampled on it and carried through the map as it plays;
    the build gives each distinct map a map slot."""

    name: str | bytes
    clip: Any
    all_events: bool = False
    retarget_map: Any = None


@dataclass
class SyncGroupSource:
    name: str | bytes


@dataclass
class AssetSlotSource:
    """A slot for a later kind of asset (motion database, learned model, spring set): its
    name and the asset, anything with `identity` and `skeleton_identity`. A database slot
    lists the clip slots its database was built from."""

    name: str | bytes
    asset: Any
    clips: Sequence[int] = ()


# ---- nodes ----------------------------------------------------------------------------------------
@dataclass
class ClipNode:
    clip: int
    speed: float = 1.0
    loop: ClipLoop = ClipLoop.clip
    sync_group: int | None = None
    leader: bool = False


@dataclass
class BlendInput:
    """An input of a blend, at weight times the float parameter's value (clamped to 0..1)
    when one is named."""

    node: int
    weight: float = 1.0
    parameter: int | None = None


@dataclass
class BlendNode:
    """Normalized: the inputs' weights divided by their sum. Direct: the weights as they
    are, the rest pose taking whatever they leave below 1."""

    inputs: list[BlendInput] = field(default_factory=list)
    direct: bool = False


@dataclass
class SpacePoint:
    """A blend space's input at a position (y is 0 in a 1D space)."""

    node: int
    x: float
    y: float = 0.0


@dataclass
class Blend1DNode:
    """Points along one float parameter, increasing. With a period above 0 the positions and
    the parameter wrap (angles), positions within [0, period)."""

    parameter: int
    points: list[SpacePoint] = field(default_factory=list)
    period: float = 0.0


@dataclass
class Blend2DBandedNode:
    """Points in bands of equal y, each band's x increasing: blended along x within the two
    bands around the parameter's y, then between them. Polar: x is an angle in radians
    (wrapping) and y a radius, for direction and speed."""

    x_parameter: int
    y_parameter: int
    points: list[SpacePoint] = field(default_factory=list)
    polar: bool = False


@dataclass
class Blend2DTriangulatedNode:
    """Points joined into triangles (given as index triples, or None for the points'
    Delaunay triangulation): blended by the barycentric weights of the triangle holding the
    parameters, or of the nearest point of the triangulation outside it."""

    x_parameter: int
    y_parameter: int
    points: list[SpacePoint] = field(default_factory=list)
    triangles: Sequence[Sequence[int]] | None = None


@dataclass
class MaskChain:
    """A weight on a bone (a skeleton index here, a name in the JSON form), or on its whole
    subtree."""

    bone: int
    weight: float
    subtree: bool = False


@dataclass
class MaskSource:
    """Per-bone weights from chains: as maniSkeleton_BuildMask makes them."""

    chains: list[MaskChain] = field(default_factory=list)
    default_weight: float = 0.0


@dataclass
class MaskNode:
    """The overlay over the base, bone by bone at the mask's weight (0 the base, 1 the
    overlay)."""

    base: int
    overlay: int
    chains: list[MaskChain] = field(default_factory=list)
    default_weight: float = 0.0


@dataclass
class AdditiveNode:
    """A difference added onto the base at weight times the float parameter's value."""

    base: int
    layer: int
    weight: float = 1.0
    parameter: int | None = None


@dataclass
class SelectNode:
    """One input, by an int parameter (clamped to the inputs) or a bool parameter."""

    parameter: int
    inputs: list[int] = field(default_factory=list)


@dataclass
class TimeScaleNode:
    """Playheads beneath move at scale times the float parameter's value (when named)."""

    input: int
    scale: float = 1.0
    parameter: int | None = None


@dataclass
class SeekNode:
    """When its trigger is set, every playhead beneath moves to the time instead of playing."""

    input: int
    trigger: int
    time: float = 0.0


@dataclass
class Condition:
    kind: ConditionKind
    parameter: int | None = None
    op: CompareOp = CompareOp.ge
    value: float = 0.0
    event: str | bytes | None = None


@dataclass
class Transition:
    """From a state (None: from any state) to a state when every condition holds, the highest
    priority first (ties in source order), fading over duration seconds, then not again
    until its cooldown has passed."""

    source: int | None
    target: int
    priority: int = 0
    interruption: Interruption = Interruption.none
    entry: EntryMode = EntryMode.restart
    fade: Curve = Curve.linear
    duration: float = 0.0
    cooldown: float = 0.0
    conditions: list[Condition] = field(default_factory=list)


@dataclass
class StateMachineNode:
    """States are nodes; the machine starts in `entry`. A final state ends the machine: no
    transition leaves it. chain_limit 0 means DEFAULT_GRAPH_CHAIN_LIMIT."""

    states: list[int] = field(default_factory=list)
    transitions: list[Transition] = field(default_factory=list)
    entry: int = 0
    chain_limit: int = 0
    finals: list[int] = field(default_factory=list)


@dataclass
class OneShotNode:
    """The shot over the base while it plays: started by its trigger, faded in, faded out
    before its end (or when fade_out_trigger is set), cut by abort; over the whole body or
    through a mask."""

    base: int
    shot: int
    trigger: int
    fade_out_trigger: int | None = None
    abort: int | None = None
    curve: Curve = Curve.linear
    fade_in: float = 0.0
    fade_out: float = 0.0
    mask: MaskSource | None = None


@dataclass
class InertializeNode:
    """Smooths the switches beneath it (a machine's transitions, a select's change, its own
    trigger) by inertialization or dead blending over the duration (0: the duration of the
    transition that switched). A dead blend's velocity decays with a half-life of
    half_life_scale times the duration, clamped to [half_life_min, half_life_max]."""

    input: int
    trigger: int | None = None
    method: InertializeMethod = InertializeMethod.inertialization
    duration: float = 0.0
    half_life_scale: float = 0.3
    half_life_min: float = 0.1
    half_life_max: float = 1.0


@dataclass
class PoseParameterNode:
    """A pose parameter's pose (the rest pose until one is set)."""

    parameter: int


@dataclass
class MirrorNode:
    """Its input mirrored through the graph's mirror map (maniMirrorMap_MirrorPose): each
    bone from its partner's local. The nodes beneath it are marked mirrored (odd parity)."""

    input: int


# The IK nodes solve on their input pose (ik.h) and pass the result on. A goal, a pole and an
# end rotation are the node's constant, or a vector3 (quaternion) parameter's value when one
# is named; the weight is the node's times a float parameter's value (clamped to 0..1) when
# one is named. Bones are skeleton indices (names in the JSON form).
@dataclass
class TwoBoneIkNode:
    """maniPose_SolveTwoBone on the input: start, middle and end each an ancestor of the
    next; goal and pole in model space, the hinge in the middle bone's frame."""

    input: int
    start: int
    middle: int
    end: int
    goal: Sequence[float] = (0.0, 0.0, 0.0)
    goal_parameter: int | None = None
    pole: Sequence[float] = (0.0, 0.0, 0.0)
    pole_parameter: int | None = None
    hinge: Sequence[float] = (0.0, 0.0, 0.0)
    twist: float = 0.0
    soften: float = 0.0
    weight: float = 1.0
    weight_parameter: int | None = None


@dataclass
class AimBone:
    """A bone of an aim chain and its share of the turn."""

    bone: int
    share: float = 1.0


@dataclass
class AimIkNode:
    """maniPose_SolveAim on the input: bones root first, the aiming bone last; forward, up
    and offset in the aiming bone's frame, twist and cone in radians."""

    input: int
    bones: list = field(default_factory=list)
    goal: Sequence[float] = (0.0, 0.0, 0.0)
    goal_parameter: int | None = None
    forward: Sequence[float] = (1.0, 0.0, 0.0)
    up: Sequence[float] = (0.0, 1.0, 0.0)
    pole: Sequence[float] = (0.0, 0.0, 0.0)
    pole_parameter: int | None = None
    offset: Sequence[float] = (0.0, 0.0, 0.0)
    twist: float = 0.0
    cone: float = AIM_MAX_CONE
    weight: float = 1.0
    weight_parameter: int | None = None


@dataclass
class ChainIkNode:
    """maniPose_SolveCcd (CcdIkNode) or maniPose_SolveFabrik (FabrikIkNode) on the input:
    the chain from root to end within its limits (runtime.ik's HingeLimit, ConeLimit and
    TwistLimit); CCD takes no pole, FABRIK no step."""

    input: int
    root: int
    end: int
    goal: Sequence[float] = (0.0, 0.0, 0.0)
    goal_parameter: int | None = None
    limits: list = field(default_factory=list)
    iterations: int = 16
    tolerance: float = 1e-4
    step: float = 0.0
    pole: Sequence[float] = (0.0, 0.0, 0.0)
    pole_parameter: int | None = None
    rotation: Sequence[float] = (0.0, 0.0, 0.0, 1.0)
    rotation_parameter: int | None = None
    rotation_weight: float = 0.0
    weight: float = 1.0
    weight_parameter: int | None = None


class CcdIkNode(ChainIkNode):
    """A chain solved by CCD."""


class FabrikIkNode(ChainIkNode):
    """A chain solved by FABRIK."""


@dataclass
class BodyIkNode:
    """maniPose_SolveBodyXpbd or _SolveBodySdls on the input: `solve` a runtime.ik.body
    BodySolve (its effectors' goals and rotations the constants); goal_parameters and
    rotation_parameters, one per effector (None: the constant), take an effector's goal
    from a vector3 parameter and its rotation from a quaternion parameter. Lists shorter
    than the effectors name none for the rest."""

    input: int
    solve: Any
    solver: BodySolver = BodySolver.xpbd
    goal_parameters: list = field(default_factory=list)
    rotation_parameters: list = field(default_factory=list)


@dataclass
class SpringsNode:
    """A spring set slot's springs (spring.h) on the input: stepped in the evaluation
    after each update by the update's delta (the steps due, the rest kept), then applied;
    the character's placement in the world from a vector3 (position) and a quaternion
    (rotation) parameter when named (the identity otherwise), an external force (the
    constant plus a vector3 parameter), and a trigger that resets the springs (a teleport).
    Its state lives in the instance, saved and restored with it."""

    input: int
    spring_set: int
    position_parameter: int | None = None
    rotation_parameter: int | None = None
    force: Sequence[float] = (0.0, 0.0, 0.0)
    force_parameter: int | None = None
    reset: int | None = None


@dataclass
class ParameterRef:
    """A value an int parameter gives instead of a constant (a motion matching node's tags:
    the parameter's bits as a uint32)."""

    parameter: int


@dataclass
class MatchQueryInput:
    """Where a motion matching node's query takes a parameter: the database channel and
    the place among its times whose values it gives (a float for a float track, a vector2
    for a trajectory position or facing, a vector3 for a bone position or velocity), raw as
    the channel measures them (maniMotionDatabase_ComputeTrajectoryFeatures gives a
    trajectory's)."""

    channel: int
    parameter: int
    time: int = 0


@dataclass
class MotionMatchingNode:
    """Plays a motion database slot's clips, searching them (maniMotionDatabase_Search)
    every `period` seconds or when its trigger is set, from the playing frame's features
    with the query's parameters in their places; it jumps only when another frame beats the
    playing one by `jump_threshold`, its switch blended by the inertialize node above over
    that node's duration, or this `duration` when it gives 0 (graph/update/matching.py). Tags
    are uint32 bits, or a ParameterRef to an int parameter."""

    database: int
    query: list = field(default_factory=list)
    trigger: int | None = None
    period: float = 0.1
    jump_threshold: float = 0.0
    end_exclusion: float = 0.0
    history_time: float = 0.0
    continuing_bias: float = 0.0
    transition_cost: float = 0.0
    history_count: int = 0
    required_tags: Any = 0
    excluded_tags: Any = 0
    duration: float = 0.0


@dataclass
class LearnedMotionMatchingNode:
    """Plays a learned model slot (Holden's learned motion matching): its state projected
    by the model's Projector `projector` from the query (the parameters in their channel
    places, as a motion matching node's) every `period` seconds or when its trigger is set,
    stepped at the model's rate in between, and decompressed into the pose, root motion,
    float tracks and events; a projection's jump blended by the inertialize node above over
    that node's duration, or this `duration` when it gives 0."""

    model: int
    projector: int = 0
    query: list = field(default_factory=list)
    trigger: int | None = None
    period: float = 0.1
    duration: float = 0.0


@dataclass
class SubgraphNode:
    """A whole graph inlined in place of this node. Each of its parameters takes the host's
    parameter named by `parameters` (its name -> the host's), else the host's of its own
    name. Its clip slots and sync groups join the host's by name."""

    graph: "GraphSource"
    parameters: dict = field(default_factory=dict)


Node = Union[ClipNode, BlendNode, Blend1DNode, Blend2DBandedNode, Blend2DTriangulatedNode,
             MaskNode, AdditiveNode, SelectNode, TimeScaleNode, SeekNode, StateMachineNode,
             OneShotNode, InertializeNode, PoseParameterNode, MirrorNode, TwoBoneIkNode,
             AimIkNode, CcdIkNode, FabrikIkNode, BodyIkNode, SpringsNode, MotionMatchingNode,
             LearnedMotionMatchingNode, SubgraphNode]


@dataclass
class GraphSource:
    """maniGraphSource: a graph against one opened skeleton; `output` is the place of the
    node whose pose the graph gives. The mirror map (an opened MirrorMap of the skeleton)
    is what its mirror nodes mirror through."""

    skeleton: Any
    nodes: list = field(default_factory=list)
    output: int = 0
    parameters: list[ParameterSource] = field(default_factory=list)
    clips: list[ClipSlotSource] = field(default_factory=list)
    sync_groups: list[SyncGroupSource] = field(default_factory=list)
    databases: list[AssetSlotSource] = field(default_factory=list)
    models: list[AssetSlotSource] = field(default_factory=list)
    spring_sets: list[AssetSlotSource] = field(default_factory=list)
    mirror_map: Any = None


def node_kind(node) -> NodeKind | None:
    """The kind a source node builds into (None for a subgraph or anything else)."""
    return _KIND_OF.get(type(node))


_KIND_OF = {ClipNode: NodeKind.clip, BlendNode: NodeKind.blend, Blend1DNode: NodeKind.blend_1d,
            Blend2DBandedNode: NodeKind.blend_2d_banded,
            Blend2DTriangulatedNode: NodeKind.blend_2d_triangulated, MaskNode: NodeKind.mask,
            AdditiveNode: NodeKind.additive, SelectNode: NodeKind.select,
            TimeScaleNode: NodeKind.time_scale, SeekNode: NodeKind.seek,
            StateMachineNode: NodeKind.state_machine, OneShotNode: NodeKind.one_shot,
            InertializeNode: NodeKind.inertialize, PoseParameterNode: NodeKind.pose_parameter,
            MirrorNode: NodeKind.mirror, TwoBoneIkNode: NodeKind.two_bone_ik,
            AimIkNode: NodeKind.aim_ik, CcdIkNode: NodeKind.ccd_ik, FabrikIkNode: NodeKind.fabrik_ik,
            SpringsNode: NodeKind.springs, BodyIkNode: NodeKind.body_ik,
            MotionMatchingNode: NodeKind.motion_matching,
            LearnedMotionMatchingNode: NodeKind.learned_motion_matching}
PASS_ON_KINDS = (NodeKind.mirror, NodeKind.two_bone_ik, NodeKind.aim_ik, NodeKind.ccd_ik,
                 NodeKind.fabrik_ik, NodeKind.springs, NodeKind.body_ik)
"""Kinds of one input, a pose, that the update passes its weight on to whole (their work is
the evaluation's; a springs node's update also counts the time its springs are due)."""


def node_inputs(node) -> list[int]:
    """A source node's inputs in the order the file keeps them (raw, unchecked)."""
    if isinstance(node, BlendNode):
        return [getattr(i, "node", None) for i in node.inputs]
    if isinstance(node, (Blend1DNode, Blend2DBandedNode, Blend2DTriangulatedNode)):
        return [getattr(p, "node", None) for p in node.points]
    if isinstance(node, MaskNode):
        return [node.base, node.overlay]
    if isinstance(node, AdditiveNode):
        return [node.base, node.layer]
    if isinstance(node, SelectNode):
        return list(node.inputs)
    if isinstance(node, (TimeScaleNode, SeekNode, InertializeNode, MirrorNode, TwoBoneIkNode,
                         AimIkNode, ChainIkNode, SpringsNode, BodyIkNode)):
        return [node.input]
    if isinstance(node, StateMachineNode):
        return list(node.states)
    if isinstance(node, OneShotNode):
        return [node.base, node.shot]
    return []
