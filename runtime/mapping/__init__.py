"""Mapping poses between bones: mirror maps (built by mirror_build, opened and used in mirror,
their JSON text form in mirror_json, clips baked mirrored in mirror_clip)."""
from .mirror import MirrorMap
from .mirror_clip import MirrorClipSource, build_mirrored_clip
from .mirror_build import (BONE_SCALE_APPROXIMATE, BONE_UNMATCHED, MirrorAxis, MirrorMapSource,
                           MirrorRule, RulePlace, build_mirror_map)

__all__ = ["MirrorMap", "MirrorClipSource", "build_mirrored_clip", "BONE_SCALE_APPROXIMATE", "BONE_UNMATCHED", "MirrorAxis",
           "MirrorMapSource", "MirrorRule", "RulePlace", "build_mirror_map"]
