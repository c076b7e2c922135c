"""mirror.h."""
from ..core import args
from ..core.errors import InvalidError
from ..core.limits import NO_BONE
from ..mapping.mirror import MirrorMap
from ..mapping.mirror_build import BONE_SCALE_APPROXIMATE, BONE_UNMATCHED, MirrorAxis

__all__ = ["maniOpenMirrorMap", "maniMirrorMap_GetIdentity", "maniMirrorMap_GetSkeletonIdentity",
           "maniMirrorMap_GetAxis", "maniMirrorMap_GetPartner", "maniMirrorMap_GetBoneFlags",
           "maniMirrorMap_GetUnmatchedBone", "maniMirrorMap_MirrorName",
           "maniMirrorMap_MirrorNameHash", "maniMirrorMap_MirrorPose",
           "maniMirrorMap_MirrorRootMotion"]
__constants__ = ["MANI_MIRROR_BONE_UNMATCHED", "MANI_MIRROR_BONE_SCALE_APPROXIMATE",
                 "maniMirrorAxisX", "maniMirrorAxisY", "maniMirrorAxisZ"]

MANI_MIRROR_BONE_UNMATCHED = BONE_UNMATCHED
MANI_MIRROR_BONE_SCALE_APPROXIMATE = BONE_SCALE_APPROXIMATE
maniMirrorAxisX, maniMirrorAxisY, maniMirrorAxisZ = MirrorAxis.x, MirrorAxis.y, MirrorAxis.z


def _opened(mirror_map) -> bool:
    return isinstance(mirror_map, MirrorMap) and mirror_map.is_open


def maniOpenMirrorMap(data) -> MirrorMap:
    return MirrorMap(data)


def maniMirrorMap_GetIdentity(map) -> int:
    return map.identity if _opened(map) else 0


def maniMirrorMap_GetSkeletonIdentity(map) -> int:
    return map.skeleton_identity if _opened(map) else 0


def maniMirrorMap_GetAxis(map) -> MirrorAxis:
    return map.axis if _opened(map) else MirrorAxis.x


def maniMirrorMap_GetPartner(map, bone: int) -> int:
    return map.partner(bone) if _opened(map) else NO_BONE


def maniMirrorMap_GetBoneFlags(map, bone: int) -> int:
    return map.bone_flags(bone) if _opened(map) else 0


def maniMirrorMap_GetUnmatchedBone(map) -> int:
    return map.unmatched_bone if _opened(map) else NO_BONE


def maniMirrorMap_MirrorName(map, name) -> tuple[bytes, int]:
    """(the partner's bytes, their length); the name itself when unpaired or for no map."""
    if name is None:
        raise InvalidError("no name")
    raw = args.name(name)
    partner = map.mirror_name(raw) if _opened(map) else raw
    return partner, len(partner)


def maniMirrorMap_MirrorNameHash(map, hash: int) -> int:
    if not _opened(map):
        return args.integer(hash, "hash")
    return map.mirror_name_hash(hash)


def maniMirrorMap_MirrorPose(map, skeleton, pose_in, poseOut) -> None:
    if not _opened(map):
        raise InvalidError("no mirror map")
    map.mirror_pose(skeleton, pose_in, poseOut)


def maniMirrorMap_MirrorRootMotion(map, move):
    """The mirrored move; for no map the move as given."""
    if not _opened(map):
        return args.floats(move, (7,), "move", allow_nonfinite=True).copy()
    return map.mirror_root_motion(move)
