"""Maul Anim: a game-animation runtime in Python and numpy.

The Pythonic API: classes named after the spec's nouns, numpy arrays in and out, `out=`
on hot paths. Graph node sources are in `runtime.graph.source`. Each kind of file is built by a function of its module that takes a Builder
(`build_skeleton(builder, source)`, `build_clip(builder, source)`, ...) and opened in place
by its view class (`Skeleton.open(data)`, `Clip.open(data)`). The spec's C names are in
runtime.capi, a thin layer over this.
"""
from .graph import source as graph_source
from .clip import rootmotion
from .core.base import VERSION, check_cpu, hash64, result_name, simd_backend
from .pose.blend import (BlendLayer, MaskChain, add_layers, blend_poses, build_mask,
                         compute_pose_difference)
from .core.builder import Builder, BuilderDef, default_builder_def
from .clip.clip import AdditiveBasis, Clip, ClipCursor, ClipEvent, LoopPolicy, sample_batch
from .clip.build import (ChannelPath, ChannelSource, ClipReport, ClipSource, DiscreteTrackSource,
                         FloatTrackSource, Interpolation, build_clip, measure_clip)
from .core.errors import (BuildReason, BusyError, CapacityError, FormatError, InvalidError,
                          LimitError, ManiError, Result, VersionError)
from .graph.file import Graph
from .graph.batch import evaluate_batch, update_batch
from .graph.binding import GraphAssets, GraphBinding, bind
from .graph.build.build import build_graph
from .graph.instance import GraphInstance, GraphNodeView, GraphValue
from .graph.json.read import GraphNamedAssets, build_graph_json, write_graph_json
from .graph.source import GraphSource
from .graph.subset import GraphSubset, evaluate_subset
from .deform.influences import (CenterSource, Influences, InfluenceSource, build_centers,
                                build_influences)
from .core.limits import MAX_BONES, MAX_NAME_BYTES, NO_BONE, NO_TRACK
from .deform.morph import (MorphAttribute, MorphChannelSource, MorphJob, MorphSemantic, MorphSource,
                           MorphStream, MorphTargets, MorphTargetSource, apply_morph_targets,
                           build_morph_targets, compute_target_weights)
from .pose.pose import Pose, PoseBatch, pose_size
from .clip.rootmotion import RootAxes, RootMotionSource, RootRotation
from .core.scratch import Scratch
from .pose.skeleton import BoneSource, Skeleton, SkeletonSource, build_skeleton
from .deform.skin import Skin, SkinSource, build_skin, compute_palette
from .deform.skinning import (SkinJob, SkinStream, StreamKind, palette_to_dual_quaternions,
                              palette_to_rows, skin_blended, skin_centers, skin_dual_quaternion,
                              skin_linear)
from .core.transform import IDENTITY, IDENTITY_AFFINE, decompose_affine

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
