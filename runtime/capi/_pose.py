"""pose.h."""
from ..core.errors import InvalidError
from ..pose.pose import Pose, pose_size
from ..pose.skeleton import Skeleton
from ..core.transform import IDENTITY, IDENTITY_AFFINE, decompose_affine

__all__ = ["maniSkeleton_GetPoseSize", "maniInitPose", "maniPose_GetBoneCount", "maniPose_GetLocal",
           "maniPose_SetLocal", "maniPose_ReadLocals", "maniPose_WriteLocals", "maniPose_SetRest",
           "maniPose_ComputeModel", "maniPose_IsModelCurrent", "maniPose_IsDifference",
           "maniPose_GetModel", "maniPose_ReadModels", "maniDecomposeAffine",
           "maniPose_GetModelTransform"]


def maniSkeleton_GetPoseSize(skeleton) -> int:
    return pose_size(skeleton.bone_count) if isinstance(skeleton, Skeleton) and skeleton.is_open else 0


def maniInitPose(skeleton, memory=None) -> Pose:
    """A pose at rest in `memory` (or new memory). On FormatError the exception's `.pose`
    is the pose made, its model not current."""
    if skeleton is None:
        raise InvalidError("no skeleton")
    return Pose(skeleton, memory)


def _pose(pose) -> Pose:
    if not isinstance(pose, Pose):
        raise InvalidError("no pose")
    return pose


def maniPose_GetBoneCount(pose) -> int:
    return pose.bone_count if isinstance(pose, Pose) else 0


def maniPose_GetLocal(pose, bone: int):
    return pose.get_local(bone) if isinstance(pose, Pose) else IDENTITY.copy()


def maniPose_SetLocal(pose, bone: int, transform) -> None:
    if isinstance(pose, Pose):
        pose.set_local(bone, transform)


def maniPose_ReadLocals(pose, first: int, count: int):
    return _pose(pose).read_locals(first, count)


def maniPose_WriteLocals(pose, first: int, transforms) -> None:
    if transforms is None:
        raise InvalidError("no transforms")
    _pose(pose).write_locals(first, transforms)


def maniPose_SetRest(pose, skeleton) -> None:
    _pose(pose).set_rest(skeleton)


def maniPose_ComputeModel(pose, skeleton) -> None:
    _pose(pose).compute_model(skeleton)


def maniPose_IsModelCurrent(pose) -> bool:
    return isinstance(pose, Pose) and pose.is_model_current


def maniPose_IsDifference(pose) -> bool:
    return isinstance(pose, Pose) and pose.is_difference


def maniPose_GetModel(pose, bone: int):
    return pose.get_model(bone) if isinstance(pose, Pose) else IDENTITY_AFFINE.copy()


def maniPose_ReadModels(pose, first: int, count: int):
    return _pose(pose).read_models(first, count)


def maniDecomposeAffine(matrix):
    if matrix is None:
        raise InvalidError("no matrix")
    return decompose_affine(matrix)


def maniPose_GetModelTransform(pose, bone: int):
    return pose.get_model_transform(bone) if isinstance(pose, Pose) else IDENTITY.copy()
