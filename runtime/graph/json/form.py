"""The graph's JSON text form, as both directions take it: maniWriteGraphJson
(graph/json/write.py) writes exactly what maniBuildGraphJson (graph/json/read.py) reads.

The text is one object: {"version": 1, "parameters": [...], "clips": [...], "syncGroups":
[...], ("databases", "models", "springSets" when the graph has any,) "nodes": [...],
"output": place}. Parameters, clip slots, sync groups, asset slots and mask chains' bones
are named; nodes and the output are places in the source's list; a subgraph is a nested
graph object (without "version") with its parameters mapped by name. A retargeted clip
slot is written as any other: its map travels with the host's clip of its name
(GraphNamedAssets.retarget_maps), as the spec's "the host's clip of that name (and its map)". Numbers are binary32,
written as the shortest text that reads back to the same value (core/json_text.py's number).

The writer leaves out every member at its off value, and the reader takes each as left
out: the spec's list (a parameter's default; bounds "min" and "max", both or neither; a
clip slot's "allEvents"; a clip node's "syncGroup", "speed", "loop", "leader"; a blend's
"direct"; a mask's "chains" and "defaultWeight"; a chain's "subtree"; a seek's "time";
"period" of a 1D space, "polar" of a banded one, "triangles" of a triangulated one, a
point's "y"; a machine's "entry", "chainLimit", "transitions", "finals"; a transition's
"priority", "interruption", "entry", "fade", "duration", "cooldown", "conditions"; a
one-shot's "fadeOutTrigger", "abort", "curve", "fadeIn", "fadeOut", "mask"; an inertialize
node's "trigger", "method", "duration", "halfLifeScale", "halfLifeMin", "halfLifeMax"; the
graph's lists) and ours: a blend input's "weight" 1 and "parameter" null, an additive
layer's "weight" 1 and "parameter" null, a time scale's "scale" 1 and "parameter" null, a
subgraph's "parameters" {} and a database slot's "clips" [].

The mirror and IK nodes ("mirror", "twoBoneIk", "aimIk", "ccdIk", "fabrikIk") name their
bones by name and their goal, pole, rotation and weight parameters by name; their off
values, left out: "goal", "pole", "hinge" and "offset" [0, 0, 0], "forward" [1, 0, 0], "up"
[0, 1, 0], "rotation" [0, 0, 0, 1], every "...Parameter" null, "twist", "soften", "step" and
"rotationWeight" 0, "weight" 1, "cone" pi, "iterations" 16, "tolerance" 1e-4, "limits" []
and an aim bone's "share" 1; a limit is {"kind": "hinge"|"cone"|"twist", "bone", with "axis"
[0, 0, 1], "min" -pi and "max" pi its off values (a cone takes "max" alone). A springs node
names its spring set slot ("springSet") and its parameters ("positionParameter",
"rotationParameter", "forceParameter", "reset": null when left out), "force" [0, 0, 0]. A
"bodyIk" node: "solver" "xpbd" (or "sdls"), "top" (a bone), "topMode" "pinned", "prePull" 0,
"iterations" 10, "tolerance" 1e-3, "effectors" [{"bone", "goal" [0, 0, 0], "goalParameter",
"rotation" [0, 0, 0, 1], "rotationParameter", "rotationWeight" 0, "strength" 1,
"pullChain" 0}], "bones" [] ({"bone", "stiffness" 0, "limit" {"kind" "none", "axis"
[1, 0, 0], "low" 0, "high" 0}, "preferred" [0, 0, 0], "preferredWeight" 0, "stretch" 0}).
A "motionMatching" node names its database slot ("database") and its trigger; its "query"
is a list of {"channel", "time" 0, "parameter" (a name)}; the spec's off values are left
out, tags a whole number or {"parameter": name}. A "learnedMotionMatching" node names its
model slot ("model"), its "projector" 0, "query" as a motion matching node's, "trigger" none,
"period" 0.1 and "duration" 0.
"""
from __future__ import annotations

from ...ik.body.description import BodyLimitKind, BodyTopMode
from ..source import (AimIkNode, BodyIkNode, BodySolver, CcdIkNode, FabrikIkNode, MirrorNode,
                      SpringsNode, TwoBoneIkNode, MotionMatchingNode, LearnedMotionMatchingNode,
                      AdditiveNode, Blend1DNode, Blend2DBandedNode, Blend2DTriangulatedNode,
                      BlendNode, ClipLoop, ClipNode, CompareOp, Curve, EntryMode,
                      InertializeMethod, InertializeNode, Interruption, MaskNode, OneShotNode,
                      ParameterType, PoseParameterNode, SeekNode, SelectNode, StateMachineNode,
                      SubgraphNode, TimeScaleNode)

from ...ik.joints import LimitKind

FORM_VERSION = 1
"""The form's version: the "version" member of a top-level graph."""

# each option's name in the text
TYPE_NAMES = {ParameterType.bool_: "bool", ParameterType.trigger: "trigger", ParameterType.int_: "int",
              ParameterType.float_: "float", ParameterType.vector2: "vector2",
              ParameterType.vector3: "vector3", ParameterType.vector4: "vector4",
              ParameterType.quaternion: "quaternion", ParameterType.pose: "pose"}
LOOPS = {ClipLoop.clip: "clip", ClipLoop.repeat: "repeat", ClipLoop.clamp: "clamp"}
INTERRUPTIONS = {Interruption.none: "none", Interruption.source: "source",
                 Interruption.destination: "destination",
                 Interruption.source_then_destination: "sourceThenDestination",
                 Interruption.destination_then_source: "destinationThenSource"}
ENTRIES = {EntryMode.restart: "restart", EntryMode.continue_: "continue"}
CURVES = {Curve.linear: "linear", Curve.smooth: "smooth", Curve.ease_in: "easeIn",
          Curve.ease_out: "easeOut"}
METHODS = {InertializeMethod.inertialization: "inertialization",
           InertializeMethod.dead_blending: "deadBlending"}
OPS = {CompareOp.eq: "==", CompareOp.ne: "!=", CompareOp.lt: "<", CompareOp.le: "<=",
       CompareOp.gt: ">", CompareOp.ge: ">="}
KINDS = {ClipNode: "clip", BlendNode: "blend", Blend1DNode: "blend1d",
         Blend2DBandedNode: "blend2dBanded", Blend2DTriangulatedNode: "blend2dTriangulated",
         MaskNode: "mask", AdditiveNode: "additive", SelectNode: "select",
         TimeScaleNode: "timeScale", SeekNode: "seek", StateMachineNode: "stateMachine",
         OneShotNode: "oneShot", InertializeNode: "inertialize",
         PoseParameterNode: "poseParameter", SubgraphNode: "subgraph", MirrorNode: "mirror",
         TwoBoneIkNode: "twoBoneIk", AimIkNode: "aimIk", CcdIkNode: "ccdIk",
         FabrikIkNode: "fabrikIk", SpringsNode: "springs", BodyIkNode: "bodyIk",
         MotionMatchingNode: "motionMatching", LearnedMotionMatchingNode: "learnedMotionMatching"}
LATER_KINDS = {"ik", "turnLimit", "retarget", "lookAt"}
BODY_SOLVERS = {BodySolver.xpbd: "xpbd", BodySolver.sdls: "sdls"}
TOP_MODES = {BodyTopMode.pinned: "pinned", BodyTopMode.held: "held", BodyTopMode.free: "free"}
BODY_LIMITS = {BodyLimitKind.none: "none", BodyLimitKind.hinge: "hinge", BodyLimitKind.cone: "cone",
               BodyLimitKind.twist: "twist"}
LIMIT_KINDS = {LimitKind.hinge: "hinge", LimitKind.cone: "cone", LimitKind.twist: "twist"}


def name_text(raw) -> str:
    """A source's name (bytes or text) as the text writes it."""
    return raw.decode("utf-8") if isinstance(raw, (bytes, bytearray)) else str(raw)
