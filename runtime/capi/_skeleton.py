"""skeleton.h."""
from ..core.limits import NO_BONE
from ..pose.skeleton import Skeleton
from ..core.transform import IDENTITY

__all__ = ["maniOpenSkeleton", "maniSkeleton_GetBoneCount", "maniSkeleton_GetIdentity",
           "maniSkeleton_GetParent", "maniSkeleton_GetSubtreeEnd", "maniSkeleton_GetRest",
           "maniSkeleton_GetBoneName", "maniSkeleton_FindBone"]


def maniOpenSkeleton(data) -> Skeleton:
    return Skeleton(data)


def _opened(skeleton) -> bool:
    return isinstance(skeleton, Skeleton)


def maniSkeleton_GetBoneCount(skeleton) -> int:
    return skeleton.bone_count if _opened(skeleton) else 0


def maniSkeleton_GetIdentity(skeleton) -> int:
    return skeleton.identity if _opened(skeleton) else 0


def maniSkeleton_GetParent(skeleton, bone: int) -> int:
    return skeleton.parent(bone) if _opened(skeleton) else NO_BONE


def maniSkeleton_GetSubtreeEnd(skeleton, bone: int) -> int:
    return skeleton.subtree_end(bone) if _opened(skeleton) else bone


def maniSkeleton_GetRest(skeleton, bone: int):
    return skeleton.rest(bone) if _opened(skeleton) else IDENTITY.copy()


def maniSkeleton_GetBoneName(skeleton, bone: int):
    """The name as str, or None."""
    return skeleton.bone_name(bone) if _opened(skeleton) else None


def maniSkeleton_FindBone(skeleton, name) -> int:
    if not _opened(skeleton) or name is None:
        return NO_BONE
    return skeleton.find_bone(name)
