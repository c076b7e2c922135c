"""Clips: built offline (build), opened in place and sampled (clip), played by cursors, and
the root motion taken out of them (rootmotion)."""
from . import rootmotion
from .build import (ChannelPath, ChannelSource, ClipReport, ClipSource, DiscreteTrackSource,
                    FloatTrackSource, Interpolation, build_clip, measure_clip)
from .clip import AdditiveBasis, Clip, ClipCursor, ClipEvent, LoopPolicy, sample_batch
from .rootmotion import RootAxes, RootMotionSource, RootRotation

__all__ = ["rootmotion", "ChannelPath", "ChannelSource", "ClipReport", "ClipSource",
           "DiscreteTrackSource", "FloatTrackSource", "Interpolation", "build_clip",
           "measure_clip", "AdditiveBasis", "Clip", "ClipCursor", "ClipEvent", "LoopPolicy",
           "sample_batch", "RootAxes", "RootMotionSource", "RootRotation"]
