"""Per-frame curves for authoring tracks: looping waves and eased keyframes."""
from __future__ import annotations

import numpy as np


def wave(frames: int, amplitude: float, cycles: float = 1.0, phase: float = 0.0,
         start: int = 0) -> np.ndarray:
    """A sine over ``start..frames`` that joins its own beginning when it loops back
    to ``start`` (whole ``cycles``). Before ``start`` it eases in from zero, the way a
    standby with a loop start settles from the bind pose into its loop.

    ``phase`` is in cycles, so 0.25 leads by a quarter beat.
    """
    f = np.arange(frames, dtype=np.float64)
    span = frames - start
    out = amplitude * np.sin(2 * np.pi * (cycles * (f - start) / span + phase))
    if start > 0:
        out[:start] = out[start] * _ease(f[:start] / start)
    return out


def keys(frames: int, *points) -> np.ndarray:
    """Eased (smoothstep) segments through ``(frame, value)`` points, in frame order;
    held before the first point and after the last."""
    f = np.arange(frames, dtype=np.float64)
    out = np.full(frames, float(points[0][1]))
    for (f0, v0), (f1, v1) in zip(points, points[1:]):
        inside = (f >= f0) & (f <= f1)
        out[inside] = v0 + (v1 - v0) * _ease((f[inside] - f0) / (f1 - f0))
    out[f > points[-1][0]] = points[-1][1]
    return out


def steps(frames: int, *points) -> np.ndarray:
    """Held values: each ``(frame, value)`` holds until the next point's frame."""
    out = np.zeros(frames)
    for f0, v in points:
        out[f0:] = v
    return out


def _ease(t: np.ndarray) -> np.ndarray:
    return t * t * (3 - 2 * t)
