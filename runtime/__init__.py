"""Maul Anim: a game-animation runtime in Python and numpy.

The Pythonic API: classes named after the spec's nouns, numpy arrays in and out. The spec's
C names are in runtime.capi, a thin layer over this.
"""
from .base import VERSION, check_cpu, hash64, result_name, simd_backend
from .blend import BlendLayer, MaskChain, add_layers, blend_poses, build_mask, compute_pose_difference
from .builder import Builder, BuilderDef, default_builder_def
from .errors import (BuildReason, BusyError, CapacityError, FormatError, InvalidError, LimitError,
                     ManiError, Result, VersionError)
from .limits import MAX_BONES, MAX_NAME_BYTES, NO_BONE, NO_TRACK
from .pose import Pose, PoseBatch, pose_size
from .skeleton import BoneSource, Skeleton, SkeletonSource
from .transform import IDENTITY, IDENTITY_AFFINE, decompose_affine

__all__ = [
    "VERSION", "check_cpu", "hash64", "result_name", "simd_backend",
    "BlendLayer", "MaskChain", "add_layers", "blend_poses", "build_mask", "compute_pose_difference",
    "Builder", "BuilderDef", "default_builder_def",
    "BuildReason", "BusyError", "CapacityError", "FormatError", "InvalidError", "LimitError",
    "ManiError", "Result", "VersionError",
    "MAX_BONES", "MAX_NAME_BYTES", "NO_BONE", "NO_TRACK",
    "Pose", "PoseBatch", "pose_size",
    "BoneSource", "Skeleton", "SkeletonSource",
    "IDENTITY", "IDENTITY_AFFINE", "decompose_affine",
]
