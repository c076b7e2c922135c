"""Sources and clips the clip tests share (no tests of their own): built in code, with known
shapes, and independent reference formulas (glTF's Hermite spline and slerp) in binary64."""
import numpy as np

import runtime as rt
from runtime.clip.clip import AdditiveBasis, Clip, ClipEvent, LoopPolicy
from runtime.clip.build import (ChannelPath, ChannelSource, ClipSource, DiscreteTrackSource,
                                FloatTrackSource, Interpolation, build_clip)
from runtime.clip.rootmotion import RootMotionSource, RootRotation

from runtime_fixtures import humanoid, random_quats

T, R, S = ChannelPath.translation, ChannelPath.rotation, ChannelPath.scale
LINEAR, STEP, CUBIC = Interpolation.linear, Interpolation.step, Interpolation.cubic_spline


def build(source: ClipSource) -> bytes:
    return build_clip(rt.Builder(), source)


def open_clip(source: ClipSource) -> Clip:
    return Clip(build(source))


def animated_source(skeleton, rng, *, keys: int = 9, duration: float = 2.0, rate: float = 30.0,
                    paths=(T, R, S), bones=None, **kw) -> ClipSource:
    """Every listed bone animated on every listed path, LINEAR keys at random times."""
    bones = range(skeleton.bone_count) if bones is None else bones
    times = np.sort(np.concatenate([[0.0, duration], rng.uniform(0, duration, keys - 2)]))
    channels = []
    for b in bones:
        for path in paths:
            if path == R:
                values = random_quats(rng, (keys,))
            elif path == T:
                values = rng.normal(size=(keys, 3))
            else:
                values = rng.uniform(0.5, 1.5, (keys, 3))
            channels.append(ChannelSource(b, path, times, values))
    return ClipSource(skeleton, channels, sample_rate=rate, **kw)


def rich_source(skeleton, rng, **kw) -> ClipSource:
    """A bit of everything: channels of each interpolation, untracked bones, float and
    discrete tracks, repeated event names, markers, root motion on bone 0."""
    times = np.array([0.0, 0.4, 1.1, 1.5])
    channels = [
        ChannelSource(0, T, times, rng.normal(size=(4, 3))),
        ChannelSource(0, R, times, random_quats(rng, (4,))),
        ChannelSource(1, R, times, rng.normal(size=(4, 3, 4)), CUBIC),
        ChannelSource(2, T, times, rng.normal(size=(4, 3)), STEP),
        ChannelSource(3, S, times, rng.uniform(0.5, 2, (4, 3))),
    ]
    floats = [FloatTrackSource("smile", times, rng.uniform(0, 1, 4)),
              FloatTrackSource(b"blink", times, [0, 1, 0, 1], STEP),
              FloatTrackSource("curve", times, rng.normal(size=(4, 3)), CUBIC)]
    discretes = [DiscreteTrackSource("stance", [0.0, 0.5, 1.0], [3, -7, 2 ** 31 - 1]),
                 DiscreteTrackSource("weapon", [0.25], [9])]
    events = [ClipEvent("step", 0.9), ClipEvent("step", 0.3), ClipEvent("swing", 0.3),
              ClipEvent("land", 1.5)]
    markers = [ClipEvent("left", 0.0), ClipEvent("right", 0.75)]
    settings = dict(sample_rate=20.0, loop=LoopPolicy.repeat,
                    root_motion=RootMotionSource(0, 1 | 4, RootRotation.about_y))
    settings.update(kw)
    return ClipSource(skeleton, channels, floats, discretes, events, markers, **settings)


def small_skeleton():
    return humanoid(12)


# ---- independent references (binary64) ------------------------------------------------------------
def hermite(times, keys, t):
    """glTF CUBICSPLINE at time t: keys (k, 3, w) = in-tangent, value, out-tangent."""
    times = np.asarray(times, dtype=np.float64)
    if t <= times[0]:
        return keys[0, 1].copy()
    if t >= times[-1]:
        return keys[-1, 1].copy()
    k = int(np.searchsorted(times, t, side="right")) - 1
    td = times[k + 1] - times[k]
    s = (t - times[k]) / td
    return ((2 * s ** 3 - 3 * s ** 2 + 1) * keys[k, 1] + td * (s ** 3 - 2 * s ** 2 + s) * keys[k, 2]
            + (-2 * s ** 3 + 3 * s ** 2) * keys[k + 1, 1] + td * (s ** 3 - s ** 2) * keys[k + 1, 0])


def slerp(a, b, s):
    """Shortest-arc spherical interpolation of unit quaternions."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a @ b < 0:
        b = -b
    angle = np.arccos(min(1.0, a @ b))
    if angle < 1e-12:
        return a
    return (np.sin((1 - s) * angle) * a + np.sin(s * angle) * b) / np.sin(angle)


def linear_keys(times, values, t):
    times = np.asarray(times, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if t <= times[0]:
        return values[0]
    if t >= times[-1]:
        return values[-1]
    k = int(np.searchsorted(times, t, side="right")) - 1
    s = (t - times[k]) / (times[k + 1] - times[k])
    return (1 - s) * values[k] + s * values[k + 1]


def same_rotation(a, b, atol=1e-6):
    """Whether two quaternions are one rotation (q and -q are)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return min(np.abs(a - b).max(), np.abs(a + b).max()) <= atol


def grid(clip: Clip) -> np.ndarray:
    from runtime.clip.clip import sample_times
    return sample_times(clip.sample_count, clip.duration, clip.sample_rate)


__all__ = ["T", "R", "S", "LINEAR", "STEP", "CUBIC", "build", "open_clip", "animated_source",
           "rich_source", "small_skeleton", "hermite", "slerp", "linear_keys", "same_rotation",
           "grid", "AdditiveBasis", "LoopPolicy", "ClipEvent", "ChannelSource", "ClipSource",
           "FloatTrackSource", "DiscreteTrackSource", "Interpolation", "RootMotionSource",
           "RootRotation", "humanoid", "random_quats"]
