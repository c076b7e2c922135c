"""What bends a mesh: skins and their palettes, influences and centers of rotation, the
four skinning methods as jobs over vertex streams, and morph targets."""
from .influences import CenterSource, Influences, InfluenceSource, build_centers, build_influences
from .morph import (MorphAttribute, MorphChannelSource, MorphJob, MorphSemantic, MorphSource,
                    MorphStream, MorphTargets, MorphTargetSource, apply_morph_targets,
                    build_morph_targets, compute_target_weights)
from .skin import Skin, SkinSource, build_skin, compute_palette
from .skinning import (SkinJob, SkinStream, StreamKind, palette_to_dual_quaternions, palette_to_rows,
                       skin_blended, skin_centers, skin_dual_quaternion, skin_linear)

__all__ = ["CenterSource", "Influences", "InfluenceSource", "build_centers", "build_influences",
           "MorphAttribute", "MorphChannelSource", "MorphJob", "MorphSemantic", "MorphSource",
           "MorphStream", "MorphTargets", "MorphTargetSource", "apply_morph_targets",
           "build_morph_targets", "compute_target_weights",
           "Skin", "SkinSource", "build_skin", "compute_palette",
           "SkinJob", "SkinStream", "StreamKind", "palette_to_dual_quaternions", "palette_to_rows",
           "skin_blended", "skin_centers", "skin_dual_quaternion", "skin_linear"]
