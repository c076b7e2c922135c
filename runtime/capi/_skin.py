"""skin.h, and maniBuildSkin of build.h."""
from ..core.limits import NO_BONE
from ..pose.pose import Pose
from ..deform.skin import Skin, build_skin, compute_palette
from ..core.transform import IDENTITY_AFFINE

__all__ = ["maniOpenSkin", "maniSkin_GetJointCount", "maniSkin_GetSkeletonIdentity",
           "maniSkin_GetIdentity", "maniSkin_GetJoint", "maniSkin_GetInverseBind",
           "maniPose_ComputePalette", "maniBuildSkin"]


def maniOpenSkin(data) -> Skin:
    return Skin(data)


def _opened(skin) -> bool:
    return isinstance(skin, Skin)


def maniSkin_GetJointCount(skin) -> int:
    return skin.joint_count if _opened(skin) else 0


def maniSkin_GetSkeletonIdentity(skin) -> int:
    return skin.skeleton_identity if _opened(skin) else 0


def maniSkin_GetIdentity(skin) -> int:
    return skin.identity if _opened(skin) else 0


def maniSkin_GetJoint(skin, joint: int) -> int:
    return skin.joint(joint) if _opened(skin) else NO_BONE


def maniSkin_GetInverseBind(skin, joint: int):
    return skin.inverse_bind(joint) if _opened(skin) else IDENTITY_AFFINE.copy()


def maniPose_ComputePalette(pose: Pose, skeleton, skin, paletteOut=None):
    """The palette, (joints, 3, 4) float32; into paletteOut when given (CapacityError with
    .count, the joint count, when it is short; nothing written)."""
    return compute_palette(pose, skeleton, skin, paletteOut)


def maniBuildSkin(builder, source) -> None:
    """Success returns None; the file is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_skin(builder, source)
