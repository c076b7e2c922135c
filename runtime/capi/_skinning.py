"""skinning.h, and maniBuildInfluences and maniBuildCenters of build.h."""
from ..core.errors import InvalidError
from ..deform.influences import Influences, build_centers, build_influences
from ..deform.skinning import (palette_to_dual_quaternions, palette_to_rows, skin_blended,
                               skin_centers, skin_dual_quaternion, skin_linear)

from ..deform.influences import MAX_INFLUENCES as MANI_MAX_INFLUENCES

__constants__ = ["MANI_MAX_INFLUENCES"]
__all__ = ["maniOpenInfluences", "maniInfluences_GetVertexCount", "maniInfluences_GetPerVertex",
           "maniInfluences_IsSkinFit", "maniInfluences_GetInfluence",
           "maniInfluences_GetDualQuaternionWeight", "maniInfluences_GetCenter", "maniSkinLinear",
           "maniSkinDualQuaternion", "maniSkinBlended", "maniSkinCenters",
           "maniConvertPaletteToDualQuaternions", "maniConvertPaletteToRows",
           "maniBuildInfluences", "maniBuildCenters"]


def maniOpenInfluences(data) -> Influences:
    return Influences(data)


def _opened(influences) -> bool:
    return isinstance(influences, Influences)


def maniInfluences_GetVertexCount(influences) -> int:
    return influences.vertex_count if _opened(influences) else 0


def maniInfluences_GetPerVertex(influences) -> int:
    return influences.per_vertex if _opened(influences) else 0


def maniInfluences_IsSkinFit(influences, skin) -> bool:
    return _opened(influences) and influences.is_skin_fit(skin)


def maniInfluences_GetInfluence(influences, vertex: int, slot: int):
    """(joint, weight); (0, 0.0) past the counts or for a view no open wrote."""
    return influences.influence(vertex, slot) if _opened(influences) else (0, 0.0)


def maniInfluences_GetDualQuaternionWeight(influences, vertex: int) -> float:
    return influences.dual_quaternion_weight(vertex) if _opened(influences) else 0.0


def maniInfluences_GetCenter(influences, vertex: int):
    """(True, the center) when the influences hold centers and the vertex is in range, else
    (False, None)."""
    center = influences.center(vertex) if _opened(influences) else None
    return (center is not None), center


def maniSkinLinear(job) -> None:
    skin_linear(job)


def maniSkinDualQuaternion(job) -> None:
    skin_dual_quaternion(job)


def maniSkinBlended(job) -> None:
    skin_blended(job)


def maniSkinCenters(job) -> None:
    skin_centers(job)


def maniConvertPaletteToDualQuaternions(palette, dualQuaternionsOut=None):
    """(joints, 20) float32; into dualQuaternionsOut when given (unchanged on failure)."""
    if palette is None:
        raise InvalidError("no palette")
    return palette_to_dual_quaternions(palette, dualQuaternionsOut)


def maniConvertPaletteToRows(palette, rowsOut=None):
    """(joints, 12) float32; into rowsOut when given."""
    if palette is None:
        raise InvalidError("no palette")
    return palette_to_rows(palette, rowsOut)


def maniBuildInfluences(builder, source) -> None:
    """Success returns None; the file is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_influences(builder, source)


def maniBuildCenters(builder, source) -> None:
    """Success returns None; the file is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_centers(builder, source)
