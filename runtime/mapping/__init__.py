"""Mapping poses between bones: mirror maps (built by mirror_build, opened and used in mirror,
their JSON text form in mirror_json)."""
from .mirror import MirrorMap
from .mirror_build import (BONE_SCALE_APPROXIMATE, BONE_UNMATCHED, MirrorAxis, MirrorMapSource,
                           MirrorRule, RulePlace, build_mirror_map)

__all__ = ["MirrorMap", "BONE_SCALE_APPROXIMATE", "BONE_UNMATCHED", "MirrorAxis",
           "MirrorMapSource", "MirrorRule", "RulePlace", "build_mirror_map"]
