"""Skeletons (built and opened), poses and pose batches composed to model space, and the
pose arithmetic: blends, masks, differences and additive layers."""
from .blend import BlendLayer, MaskChain, add_layers, blend_poses, build_mask, compute_pose_difference
from .pose import Pose, PoseBatch, pose_size
from .skeleton import BoneSource, Skeleton, SkeletonSource, build_skeleton

__all__ = ["BlendLayer", "MaskChain", "add_layers", "blend_poses", "build_mask",
           "compute_pose_difference", "Pose", "PoseBatch", "pose_size",
           "BoneSource", "Skeleton", "SkeletonSource", "build_skeleton"]
