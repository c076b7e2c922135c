"""A sample graph to try the runtime with: a humanoid's locomotion, as tests and benchmarks
drive it, so their figures describe the same graph.

Clips (built here on any skeleton with the humanoid's bone names, runtime.samples.humanoid):
nine locomotion clips (idle; walk and run forward, back, left, right), repeating, in one
sync group by their "L" and "R" foot markers, with "footL" and "footR" events and root
motion on the hips; a clamped jump with a "land" event; a repeating fall; a clamped attack
with a "hit" event; an additive, repeating breath.

The graph: a polar banded blend space (direction, speed) of the nine inside a state
machine (locomotion, jump, fall), an attack one-shot over it on an upper-body mask, and
the breath added on top at the "breath" parameter's weight.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.builder import Builder
from ..clip.clip import AdditiveBasis, Clip, ClipEvent, LoopPolicy
from ..clip.build import ChannelPath, ChannelSource, ClipSource, build_clip
from ..graph.source import (AdditiveNode, Blend2DBandedNode, ClipNode, ClipSlotSource, CompareOp,
                            Condition, ConditionKind, Curve, GraphSource, Interruption, MaskChain,
                            MaskSource, OneShotNode, ParameterSource, ParameterType, SpacePoint,
                            StateMachineNode, SyncGroupSource, Transition)
from ..clip.rootmotion import RootMotionSource

WALK, RUN = 1.5, 4.0
DIRECTIONS = {"f": 0.0, "r": 0.5 * math.pi, "b": math.pi, "l": 1.5 * math.pi}


def _clip(skeleton, seed: int, duration: float, *, velocity=(0.0, 0.0), loop=LoopPolicy.repeat,
          events=(), markers=(), additive=False, keys: int = 5) -> Clip:
    rng = np.random.default_rng(seed)
    n = skeleton.bone_count
    times = np.linspace(0.0, duration, keys)
    channels = []
    for b in range(n):
        q = skeleton.rests[b, 3:7].astype(np.float64) + rng.normal(scale=0.08, size=(keys, 4))
        if loop == LoopPolicy.repeat:
            q[-1] = q[0]
        channels.append(ChannelSource(b, ChannelPath.rotation, times, q / np.linalg.norm(q, axis=1, keepdims=True)))
    hips = skeleton.rests[0, 0:3].astype(np.float64)
    path = np.outer(times, [velocity[0], 0.0, velocity[1]]) + hips
    path[:, 1] += 0.02 * np.sin(times / max(duration, 1e-6) * 4 * math.pi)
    channels.append(ChannelSource(0, ChannelPath.translation, times, path))
    source = ClipSource(skeleton, channels, events=[ClipEvent(*e) for e in events],
                        markers=[ClipEvent(*m) for m in markers], sample_rate=30.0, loop=loop,
                        additive=AdditiveBasis.first_frame if additive else AdditiveBasis.none,
                        root_motion=None if additive else RootMotionSource(0))
    return Clip(build_clip(Builder(), source))


def locomotion_clips(skeleton) -> dict:
    """The sample's clips by name."""
    clips = {}
    feet = dict(events=[("footL", 0.1), ("footR", 0.5)], markers=[("L", 0.1), ("R", 0.5)])
    clips["idle"] = _clip(skeleton, 1, 2.0, markers=[("L", 0.2), ("R", 1.0)])
    for speed_name, speed, duration in (("walk", WALK, 0.8), ("run", RUN, 0.6)):
        for d, angle in DIRECTIONS.items():
            v = (speed * math.sin(angle), speed * math.cos(angle))
            scale = duration / 0.8
            evs = [(name, t * scale) for name, t in feet["events"]]
            mks = [(name, t * scale) for name, t in feet["markers"]]
            clips[f"{speed_name}_{d}"] = _clip(skeleton, 10 + len(clips), duration, velocity=v,
                                               events=evs, markers=mks)
    clips["jump"] = _clip(skeleton, 40, 0.8, velocity=(0.0, 1.0), loop=LoopPolicy.clamp,
                          events=[("land", 0.7)])
    clips["fall"] = _clip(skeleton, 41, 0.5)
    clips["attack"] = _clip(skeleton, 42, 0.6, loop=LoopPolicy.clamp, events=[("hit", 0.3)])
    clips["breath"] = _clip(skeleton, 43, 2.0, additive=True)
    return clips


LOCOMOTION = ["idle", "walk_f", "walk_r", "walk_b", "walk_l", "run_f", "run_r", "run_b", "run_l"]


def locomotion_source(skeleton, clips: dict) -> GraphSource:
    """The sample graph over the clips locomotion_clips makes (see the module's text)."""
    names = LOCOMOTION + ["jump", "fall", "attack", "breath"]
    slots = [ClipSlotSource(name, clips[name]) for name in names]
    P = {name: k for k, name in enumerate(["direction", "speed", "jump", "grounded", "attack",
                                           "breath", "stop"])}
    parameters = [
        ParameterSource("direction", ParameterType.float_),
        ParameterSource("speed", ParameterType.float_, 0.0, 0.0, RUN),
        ParameterSource("jump", ParameterType.trigger),
        ParameterSource("grounded", ParameterType.bool_, True),
        ParameterSource("attack", ParameterType.trigger),
        ParameterSource("breath", ParameterType.float_, 1.0, 0.0, 1.0),
        ParameterSource("stop", ParameterType.trigger),
    ]
    nodes = [ClipNode(k, sync_group=0, leader=(k == 0)) for k in range(9)]          # 0-8
    points = [SpacePoint(0, 0.0, 0.0)]
    for k, name in enumerate(LOCOMOTION[1:], start=1):
        speed_name, d = name.split("_")
        points.append(SpacePoint(k, DIRECTIONS[d], WALK if speed_name == "walk" else RUN))
    nodes.append(Blend2DBandedNode(P["direction"], P["speed"], points, polar=True))    # 9
    nodes.append(ClipNode(9))                                                           # 10 jump
    nodes.append(ClipNode(10))                                                          # 11 fall
    transitions = [
        Transition(0, 1, priority=1, duration=0.15, cooldown=1.5,
                   conditions=[Condition(ConditionKind.trigger, P["jump"])]),
        Transition(None, 2, priority=2, duration=0.1, interruption=Interruption.destination,
                   conditions=[Condition(ConditionKind.parameter, P["grounded"], CompareOp.eq, 0)]),
        Transition(1, 0, duration=0.2, fade=Curve.smooth,
                   conditions=[Condition(ConditionKind.event, event="land")]),
        Transition(2, 0, duration=0.2, interruption=Interruption.source,
                   conditions=[Condition(ConditionKind.parameter, P["grounded"], CompareOp.eq, 1)]),
    ]
    nodes.append(StateMachineNode([9, 10, 11], transitions))                            # 12
    nodes.append(ClipNode(11))                                                          # 13 attack
    upper = MaskSource([MaskChain(skeleton.find_bone("spine1"), 1.0, True),
                        MaskChain(skeleton.find_bone("neck"), 0.5, True)], 0.0)
    nodes.append(OneShotNode(12, 13, P["attack"], fade_out_trigger=P["stop"], fade_in=0.1,
                             fade_out=0.2, curve=Curve.smooth, mask=upper))             # 14
    nodes.append(ClipNode(12))                                                          # 15 breath
    nodes.append(AdditiveNode(14, 15, 1.0, P["breath"]))                                # 16
    return GraphSource(skeleton, nodes, 16, parameters, slots, [SyncGroupSource("feet")])
