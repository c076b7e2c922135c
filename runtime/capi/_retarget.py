"""retarget.h."""
from ..core import args
from ..core.errors import InvalidError
from ..mapping.retarget import RetargetMap

__all__ = ["maniOpenRetargetMap", "maniRetargetMap_GetIdentity",
           "maniRetargetMap_GetSourceIdentity", "maniRetargetMap_GetTargetIdentity",
           "maniRetargetMap_GetScratchSize", "maniRetargetMap_RetargetPose",
           "maniRetargetMap_RetargetRootMotion"]


def _opened(retarget_map) -> bool:
    return isinstance(retarget_map, RetargetMap) and retarget_map.is_open


def maniOpenRetargetMap(data) -> RetargetMap:
    return RetargetMap(data)


def maniRetargetMap_GetIdentity(map) -> int:
    return map.identity if _opened(map) else 0


def maniRetargetMap_GetSourceIdentity(map) -> int:
    return map.source_identity if _opened(map) else 0


def maniRetargetMap_GetTargetIdentity(map) -> int:
    return map.target_identity if _opened(map) else 0


def maniRetargetMap_GetScratchSize(map) -> int:
    return map.scratch_size if _opened(map) else 0


def maniRetargetMap_RetargetPose(map, source, sourcePose, target, targetPoseOut, scratch=None) -> None:
    """`scratch` (maniRetargetMap_GetScratchSize bytes, aligned to 8) is optional: None
    uses the calling thread's own."""
    if not _opened(map):
        raise InvalidError("no retarget map")
    map.retarget_pose(source, sourcePose, target, targetPoseOut, scratch)


def maniRetargetMap_RetargetRootMotion(map, delta):
    """The target's delta; for no map the delta as given (both scales 1)."""
    if not _opened(map):
        return args.floats(delta, (3,), "delta", allow_nonfinite=True).copy()
    return map.retarget_root_motion(delta)
