"""Maul Anim: a game-animation runtime in Python, its hot loops compiled by numba.

The Pythonic API: classes named after the spec's nouns, numpy arrays in and out, `out=`
on hot paths. Each layer is a package (ARCHITECTURE.md): core, pose, clip, deform, graph.
Each kind of file is built by a function that takes a Builder (`build_skeleton(builder,
source)`, `build_clip(builder, source)`, ...) and opened in place by its view class
(`Skeleton.open(data)`, `Clip.open(data)`). Graph node sources are in
`runtime.graph.source` (also `runtime.graph_source`). The spec's C names are in
runtime.capi, a thin layer over this.
"""
from .clip import (AdditiveBasis, ChannelPath, ChannelSource, Clip, ClipCursor, ClipEvent,
                   ClipReport, ClipSource, DiscreteTrackSource, FloatTrackSource, Interpolation,
                   LoopPolicy, RootAxes, RootMotionSource, RootRotation, build_clip, measure_clip,
                   rootmotion, sample_batch)
from .core import (IDENTITY, IDENTITY_AFFINE, MAX_BONES, MAX_NAME_BYTES, NO_BONE, NO_TRACK, VERSION,
                   Builder, BuilderDef, BuildReason, BusyError, CapacityError, FormatError,
                   InvalidError, LimitError, ManiError, Result, Scratch, VersionError, check_cpu,
                   decompose_affine, default_builder_def, hash64, result_name, simd_backend)
from .deform import (CenterSource, Influences, InfluenceSource, MorphAttribute, MorphChannelSource,
                     MorphJob, MorphSemantic, MorphSource, MorphStream, MorphTargets,
                     MorphTargetSource, Skin, SkinJob, SkinSource, SkinStream, StreamKind,
                     apply_morph_targets, build_centers, build_influences, build_morph_targets,
                     build_skin, compute_palette, compute_target_weights,
                     palette_to_dual_quaternions, palette_to_rows, skin_blended, skin_centers,
                     skin_dual_quaternion, skin_linear)
from .graph import (Graph, GraphAssets, GraphBinding, GraphInstance, GraphNamedAssets, GraphNodeView,
                    GraphSource, GraphSubset, GraphValue, bind, build_graph, build_graph_json,
                    compile_graph_aside,
                    evaluate_batch, evaluate_subset, update_batch, write_graph_json)
from .graph import source as graph_source
from .mapping import (MirrorAxis, MirrorClipSource, MirrorMap, MirrorMapSource, MirrorRule,
                      RulePlace, build_mirror_map, build_mirrored_clip)
from .mapping import (RetargetChain, RetargetChainMode, RetargetClipSource, RetargetMap,
                      RetargetMapSource, RetargetPair, RetargetPelvis, RetargetTranslation,
                      build_retarget_map, build_retarget_map_json, build_retargeted_clip,
                      write_retarget_map_json)
from .ik import (AimSolve, ChainSolve, ConeLimit, HingeLimit, LimitKind, TwistLimit, TwoBoneSolve,
                 solve_aim, solve_ccd, solve_fabrik, solve_two_bone, solve_two_bone_batch)
from .ik.body import (BodyBone, BodyEffector, BodyLimit, BodyLimitKind, BodySolve, BodyTopMode,
                      body_ik_scratch_size, solve_body_sdls, solve_body_xpbd)
from .physics import (ColliderShape, ColliderSource, JointSource, LimitSource, SpringLimitKind,
                      SpringSet, SpringSetSource, SpringSource, SpringState, build_spring_set)
from .physics import (BodySource, Ragdoll, RagdollBody, RagdollGetUp, RagdollGround, RagdollShape,
                      RagdollSource, build_ragdoll)
from .matching import (MatchChannel, MatchChannelKind, MatchEntry, MatchEntryFlag, MatchQuery,
                       MatchResult, MotionDatabase, MotionDatabaseSource, Trajectory,
                       TrajectoryGoal, advance_trajectory, build_motion_database,
                       search_motion_database, trajectory_features)
from .learned import (LearnedLayer, LearnedModel, LearnedModelSource, LearnedNetwork,
                      LearnedOutput, LearnedProjector, LearnedWeightFormat, build_learned_model)
from .learned.train import LearnedTrainer, LearnedTrainerDef, LearnedTrainerOptions, LearnedTrainerProjector, LearnedTrainerReport, LearnedTrainerSource  # noqa: E501
from .clip.compress import CompressOptions, CompressReport, compress_clip, default_compress_options
from .importers.gltf import Gltf, GltfOptions, default_gltf_options, open_gltf
from .pose import (BlendLayer, BoneSource, MaskChain, Pose, PoseBatch, Skeleton, SkeletonSource,
                   add_layers, blend_poses, build_mask, build_skeleton, compute_pose_difference,
                   pose_size)

__all__ = [
    "Gltf", "GltfOptions", "default_gltf_options", "open_gltf",
    "BodyBone", "BodyEffector", "BodyLimit", "BodyLimitKind", "BodySolve", "BodyTopMode",
    "body_ik_scratch_size", "solve_body_sdls", "solve_body_xpbd",
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
    "write_graph_json", "GraphSource", "GraphSubset", "evaluate_subset", "compile_graph_aside",
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
    "MirrorAxis", "MirrorClipSource", "MirrorMap", "MirrorMapSource", "MirrorRule", "RulePlace",
    "build_mirror_map", "build_mirrored_clip",
    "AimSolve", "ChainSolve", "ConeLimit", "HingeLimit", "LimitKind", "TwistLimit", "TwoBoneSolve",
    "solve_aim", "solve_ccd", "solve_fabrik", "solve_two_bone", "solve_two_bone_batch",
    "ColliderShape", "ColliderSource", "JointSource", "SpringLimitKind", "LimitSource", "SpringSet",
    "SpringSetSource", "SpringSource", "SpringState", "build_spring_set",
]
__all__ += ["BodySource", "Ragdoll", "RagdollBody", "RagdollGetUp", "RagdollGround",
            "RagdollShape", "RagdollSource", "build_ragdoll"]
__all__ += ["CompressOptions", "CompressReport", "compress_clip", "default_compress_options"]
__all__ += ["RetargetChain", "RetargetChainMode", "RetargetClipSource", "RetargetMap",
            "RetargetMapSource", "RetargetPair", "RetargetPelvis", "RetargetTranslation",
            "build_retarget_map", "build_retarget_map_json", "build_retargeted_clip",
            "write_retarget_map_json"]
__all__ += ["MatchChannel", "MatchChannelKind", "MatchEntry", "MatchEntryFlag", "MatchQuery",
            "MatchResult", "MotionDatabase", "MotionDatabaseSource", "Trajectory", "TrajectoryGoal",
            "advance_trajectory", "build_motion_database", "search_motion_database",
            "trajectory_features"]
__all__ += ["LearnedLayer", "LearnedModel", "LearnedModelSource", "LearnedNetwork",
            "LearnedOutput", "LearnedProjector", "LearnedWeightFormat", "build_learned_model"]
__all__ += ["LearnedTrainer", "LearnedTrainerDef", "LearnedTrainerOptions", "LearnedTrainerProjector",
            "LearnedTrainerReport", "LearnedTrainerSource"]
