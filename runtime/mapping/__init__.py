"""Mapping poses between bones: mirror maps (built by mirror_build, opened and used in mirror,
their JSON text form in mirror_json, clips baked mirrored in mirror_clip) and retargeting maps
between two skeletons (retarget_build, retarget with its loop in retarget_kernels,
retarget_json, clips baked retargeted in retarget_clip)."""
from .mirror import MirrorMap
from .mirror_clip import MirrorClipSource, build_mirrored_clip
from .mirror_build import (BONE_SCALE_APPROXIMATE, BONE_UNMATCHED, MirrorAxis, MirrorMapSource,
                           MirrorRule, RulePlace, build_mirror_map)
from .retarget import RetargetMap
from .retarget_build import (RetargetChain, RetargetChainMode, RetargetMapSource, RetargetPair,
                             RetargetPelvis, RetargetTranslation, build_retarget_map)
from .retarget_clip import RetargetClipSource, build_retargeted_clip
from .retarget_json import build_retarget_map_json, write_retarget_map_json

__all__ = ["MirrorMap", "MirrorClipSource", "build_mirrored_clip", "BONE_SCALE_APPROXIMATE", "BONE_UNMATCHED", "MirrorAxis",
           "MirrorMapSource", "MirrorRule", "RulePlace", "build_mirror_map",
           "RetargetMap", "RetargetChain", "RetargetChainMode", "RetargetMapSource", "RetargetPair",
           "RetargetPelvis", "RetargetTranslation", "build_retarget_map", "RetargetClipSource",
           "build_retargeted_clip", "build_retarget_map_json", "write_retarget_map_json"]
