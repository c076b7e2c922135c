"""What the graph tests share (no tests here): a humanoid, clips made on it, builds, binds."""
from functools import lru_cache

import numpy as np

import runtime as rt
from runtime import capi
from runtime.clip.clip import AdditiveBasis, Clip, ClipEvent, LoopPolicy
from runtime.clip.build import ChannelPath, ChannelSource, ClipSource, build_clip
from runtime.graph.file import Graph
from runtime.graph.binding import GraphAssets, GraphBinding
from runtime.graph.build.build import build
from runtime.graph.instance import GraphInstance
from runtime.samples.locomotion import locomotion_clips, locomotion_source
from runtime.graph.source import ClipSlotSource, GraphSource, ParameterSource
from runtime.clip.rootmotion import RootMotionSource
from runtime.samples.humanoid import humanoid_source


@lru_cache(maxsize=None)
def humanoid(bones: int = 80) -> rt.Skeleton:
    return rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(bones)))


def make_clip(sk, seed: int, duration: float = 1.0, *, loop=LoopPolicy.repeat, events=(),
              markers=(), additive=False, root=True, bones=None, velocity=(1.0, 0.0)) -> Clip:
    """A clip turning `bones` (all by default) through random keys, the hips moving along
    `velocity` (taken as root motion unless root is False)."""
    rng = np.random.default_rng(seed)
    times = np.linspace(0.0, duration, 4)
    channels = []
    for b in (range(sk.bone_count) if bones is None else bones):
        q = sk.rests[b, 3:7].astype(np.float64) + rng.normal(scale=0.2, size=(4, 4))
        channels.append(ChannelSource(b, ChannelPath.rotation, times,
                                      q / np.linalg.norm(q, axis=1, keepdims=True)))
    path = np.outer(times, [velocity[0], 0.0, velocity[1]]) + sk.rests[0, 0:3]
    channels.append(ChannelSource(0, ChannelPath.translation, times, path))
    source = ClipSource(sk, channels, events=[ClipEvent(*e) for e in events],
                        markers=[ClipEvent(*m) for m in markers], loop=loop,
                        additive=AdditiveBasis.rest if additive else AdditiveBasis.none,
                        root_motion=RootMotionSource(0) if root and not additive else None)
    return Clip(build_clip(rt.Builder(), source))


@lru_cache(maxsize=None)
def standard_clips():
    """Clips most tests use: a, b, c (repeating, events at 0.25 and 0.75), d (clamped),
    an additive e and f tracking only the arms."""
    sk = humanoid()
    return {
        "a": make_clip(sk, 1, 1.0, events=[("stepA", 0.25), ("stepA2", 0.75)],
                       markers=[("L", 0.0), ("R", 0.5)]),
        "b": make_clip(sk, 2, 0.5, events=[("stepB", 0.25)], markers=[("L", 0.1), ("R", 0.3)],
                       velocity=(0.0, 2.0)),
        "c": make_clip(sk, 3, 2.0, events=[("stepC", 1.0)], velocity=(-1.0, 1.0)),
        "d": make_clip(sk, 4, 0.8, loop=LoopPolicy.clamp, events=[("end", 0.7)]),
        "e": make_clip(sk, 5, 1.5, additive=True),
        "f": make_clip(sk, 6, 1.0, bones=range(6, 20), root=False),
    }


def slots(*names):
    clips = standard_clips()
    return [ClipSlotSource(n, clips[n]) for n in names]


def graph_of(source: GraphSource) -> Graph:
    return Graph(build(source))


def bind(graph: Graph, clips=None) -> GraphBinding:
    return GraphBinding(graph, GraphAssets(humanoid(), list((clips or standard_clips()).values())))


def instance_of(source: GraphSource, clips=None):
    g = graph_of(source)
    b = bind(g, clips)
    return g, b, GraphInstance(b)


def builder():
    return capi.maniCreateBuilder(capi.maniDefaultBuilderDef())


@lru_cache(maxsize=None)
def locomotion():
    sk = humanoid()
    clips = locomotion_clips(sk)
    source = locomotion_source(sk, clips)
    return sk, clips, source, Graph(build(source))


def params(*specs):
    return [ParameterSource(*s) for s in specs]


def pose_bits(pose) -> np.ndarray:
    return pose.locals.view(np.uint32).copy()
