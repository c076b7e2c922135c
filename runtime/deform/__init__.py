"""What bends a mesh: skins and their palettes, influences and centers of rotation, the
four skinning methods as jobs over vertex streams (their kernels in kernels), and morph
targets (morph, built by morph_build)."""
from .influences import CenterSource, Influences, InfluenceSource, build_centers, build_influences
from .morph import (MorphJob, MorphSemantic, MorphStream, MorphTargets, apply_morph_targets,
                    compute_target_weights)
from .morph_build import (MorphAttribute, MorphChannelSource, MorphSource, MorphTargetSource,
                          build_morph_targets)
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
