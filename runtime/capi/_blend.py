"""blend.h."""
from ..pose.blend import add_layers, blend_poses, build_mask, compute_pose_difference
from ..core.errors import InvalidError

__all__ = ["maniSkeleton_BlendPoses", "maniSkeleton_BuildMask",
           "maniSkeleton_ComputePoseDifference", "maniPose_AddLayers"]


def _layers(layers):
    if layers is None:
        raise InvalidError("no layers")
    return layers


def maniSkeleton_BlendPoses(skeleton, layers, threshold: float, poseOut) -> None:
    blend_poses(skeleton, _layers(layers), threshold, poseOut)


def maniSkeleton_BuildMask(skeleton, chains, defaultWeight: float, weightsOut=None):
    """The per-bone weights; into weightsOut when given (CapacityError with .count = the bone
    count when it is short, nothing written)."""
    return build_mask(skeleton, chains, defaultWeight, weightsOut)


def maniSkeleton_ComputePoseDifference(skeleton, pose, basis, differenceOut) -> None:
    compute_pose_difference(skeleton, pose, basis, differenceOut)


def maniPose_AddLayers(pose, skeleton, layers) -> None:
    add_layers(pose, skeleton, _layers(layers))
