"""Maul Anim: a game-animation runtime in Python and numpy.

The Pythonic API: classes named after the spec's nouns, numpy arrays in and out, `out=`
on hot paths. Graph node sources are in `runtime.graph_source`. Each kind of file is built by a function of its module that takes a Builder
(`build_skeleton(builder, source)`, `build_clip(builder, source)`, ...) and opened in place
by its view class (`Skeleton.open(data)`, `Clip.open(data)`). The spec's C names are in
runtime.capi, a thin layer over this.
"""
from . import graph_source, rootmotion
from .base import VERSION, check_cpu, hash64, result_name, simd_backend
from .blend import BlendLayer, MaskChain, add_layers, blend_poses, build_mask, compute_pose_difference
from .builder import Builder, BuilderDef, default_builder_def
from .clip import AdditiveBasis, Clip, ClipCursor, ClipEvent, LoopPolicy, sample_batch
from .clip_build import (ChannelPath, ChannelSource, ClipReport, ClipSource, DiscreteTrackSource,
                         FloatTrackSource, Interpolation, build_clip, measure_clip)
from .errors import (BuildReason, BusyError, CapacityError, FormatError, InvalidError, LimitError,
                     ManiError, Result, VersionError)
from .graph import Graph
from .graph_batch import evaluate_batch, update_batch
from .graph_binding import GraphAssets, GraphBinding, bind
from .graph_build import build_graph
from .graph_instance import GraphInstance, GraphNodeView, GraphValue
from .graph_json import GraphNamedAssets, build_graph_json, write_graph_json
from .graph_source import GraphSource
from .graph_subset import GraphSubset, evaluate_subset
from .influences import CenterSource, Influences, InfluenceSource, build_centers, build_influences
from .limits import MAX_BONES, MAX_NAME_BYTES, NO_BONE, NO_TRACK
from .morph import (MorphAttribute, MorphChannelSource, MorphJob, MorphSemantic, MorphSource,
                    MorphStream, MorphTargets, MorphTargetSource, apply_morph_targets,
                    build_morph_targets, compute_target_weights)
from .pose import Pose, PoseBatch, pose_size
from .rootmotion import RootAxes, RootMotionSource, RootRotation
from .scratch import Scratch
from .skeleton import BoneSource, Skeleton, SkeletonSource, build_skeleton
from .skin import Skin, SkinSource, build_skin, compute_palette
from .skinning import (SkinJob, SkinStream, StreamKind, palette_to_dual_quaternions, palette_to_rows,
                       skin_blended, skin_centers, skin_dual_quaternion, skin_linear)
from .transform import IDENTITY, IDENTITY_AFFINE, decompose_affine

__all__ = [
    "graph_source", "rootmotion",
    "VERSION", "check_cpu", "hash64", "result_name", "simd_backend",
    "BlendLayer", "MaskChain", "add_layers", "blend_poses", "build_mask", "compute_pose_difference",
    "Builder", "BuilderDef", "default_builder_def",
    "AdditiveBasis", "Clip", "ClipCursor", "ClipEvent", "LoopPolicy", "sample_batch",
    "ChannelPath", "ChannelSource", "ClipReport", "ClipSource", "DiscreteTrackSource",
    "FloatTrackSource", "Interpolation", "build_clip", "measure_clip",
    "BuildReason", "BusyError", "CapacityError", "FormatError", "InvalidError", "LimitError",
    "ManiError", "Result", "VersionError",
    "Graph", "evaluate_batch", "update_batch", "GraphAssets", "GraphBinding", "bind", "build_graph",
    "GraphInstance", "GraphNodeView", "GraphValue", "GraphNamedAssets", "build_graph_json",
    "write_graph_json", "GraphSource", "GraphSubset", "evaluate_subset",
    "CenterSource", "Influences", "InfluenceSource", "build_centers", "build_influences",
    "MAX_BONES", "MAX_NAME_BYTES", "NO_BONE", "NO_TRACK",
    "MorphAttribute", "MorphChannelSource", "MorphJob", "MorphSemantic", "MorphSource",
    "MorphStream", "MorphTargets", "MorphTargetSource", "apply_morph_targets",
    "build_morph_targets", "compute_target_weights",
    "Pose", "PoseBatch", "pose_size",
    "RootAxes", "RootMotionSource", "RootRotation",
    "Scratch",
    "BoneSource", "Skeleton", "SkeletonSource", "build_skeleton",
    "Skin", "SkinSource", "build_skin", "compute_palette",
    "SkinJob", "SkinStream", "StreamKind", "palette_to_dual_quaternions", "palette_to_rows",
    "skin_blended", "skin_centers", "skin_dual_quaternion", "skin_linear",
    "IDENTITY", "IDENTITY_AFFINE", "decompose_affine",
]
