"""Clips: built offline (build, from a source that source checks), opened in place (clip) and
sampled (sampling, its search and root-motion maths compiled in kernels), played by cursors
(cursor), the root motion taken out of them (rootmotion), and compressed (compress, the
view's side in compressed, the compiled code in compress_kernels)."""
from . import rootmotion
from .build import (ChannelPath, ChannelSource, ClipReport, ClipSource, DiscreteTrackSource,
                    FloatTrackSource, Interpolation, build_clip, measure_clip)
from .clip import AdditiveBasis, Clip, ClipEvent, LoopPolicy, sample_batch
from .compress import CompressOptions, CompressReport, compress_clip, default_compress_options
from .cursor import ClipCursor
from .rootmotion import RootAxes, RootMotionSource, RootRotation

__all__ = ["rootmotion", "ChannelPath", "ChannelSource", "ClipReport", "ClipSource",
           "DiscreteTrackSource", "FloatTrackSource", "Interpolation", "build_clip",
           "measure_clip", "AdditiveBasis", "Clip", "ClipCursor", "ClipEvent", "LoopPolicy",
           "sample_batch", "RootAxes", "RootMotionSource", "RootRotation", "CompressOptions",
           "CompressReport", "compress_clip", "default_compress_options"]
