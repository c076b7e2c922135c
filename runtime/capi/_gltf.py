"""import.h, its glTF half (and maniDefaultImportClipOptions, which the FBX half shares).

Out-parameters are return values: names and URIs as str (None for NULL), a placement as a
(3, 4) float32 affine, a clip's bound count, morph weights as a float32 array (into
weightsOut when given)."""
import numpy as np

from ..core import args
from ..core.errors import InvalidError
from ..importers.common import ImportReason, default_import_clip_options
from ..importers.gltf import Gltf, default_gltf_options, open_gltf
from ..importers.gltf.clip import animation_name, build_gltf_clip
from ..importers.gltf.mesh import (NONE, morph_weights, node_mesh, node_skin, primitive_count,
                                   target_count)
from ..importers.gltf.morph import build_gltf_morph_targets
from ..importers.gltf.ragdoll import read_ragdoll
from ..importers.gltf.skeleton import (build_gltf_node_skeleton, build_gltf_skeleton,
                                       skeleton_placement)
from ..importers.gltf.skin import build_gltf_influences, build_gltf_skin
from ..importers.gltf.springs import read_springs

__constants__ = [f"maniImportReason{r.name.rstrip('_')}" for r in ImportReason]
globals().update({f"maniImportReason{r.name.rstrip('_')}": r for r in ImportReason})

__all__ = ["maniDefaultImportClipOptions", "maniDefaultGltfOptions", "maniOpenGltf",
           "maniCloseGltf", "maniGltf_GetBufferCount", "maniGltf_GetBufferUri",
           "maniGltf_SupplyBuffer", "maniGltf_GetSkeletonCount", "maniGltf_GetSkinCount",
           "maniGltf_GetSkinSkeleton", "maniGltf_GetNodeCount", "maniBuildGltfSkeleton",
           "maniBuildGltfNodeSkeleton", "maniGltf_GetSkeletonPlacement", "maniBuildGltfSkin",
           "maniGltf_GetNodeBoneName", "maniGltf_GetRenamedCount", "maniGltf_GetRenamedNode",
           "maniGltf_GetAnimationCount", "maniGltf_GetAnimationName", "maniBuildGltfClip",
           "maniGltf_ReadSprings", "maniGltf_ReadRagdoll", "maniGltf_GetMeshCount",
           "maniGltf_GetPrimitiveCount", "maniGltf_GetPrimitiveTargetCount",
           "maniGltf_GetNodeMesh", "maniGltf_GetNodeSkin", "maniGltf_GetMorphWeights",
           "maniBuildGltfInfluences", "maniBuildGltfMorphTargets"]
__pending__ = {}


def _doc(gltf):
    return gltf if isinstance(gltf, Gltf) else None


def _index(value, what: str) -> int:
    """A uint32 argument: any whole number (past the range it indexes nothing)."""
    return args.integer(value, what)


def _text(raw):
    return None if raw is None else raw.decode("utf-8", "surrogatepass")


def maniDefaultImportClipOptions():
    return default_import_clip_options()


def maniDefaultGltfOptions():
    return default_gltf_options()


def maniOpenGltf(builder, data) -> Gltf:
    """bytes and size as one bytes-like object, which the caller keeps alive."""
    return open_gltf(builder, data)


def maniCloseGltf(gltf) -> None:
    if _doc(gltf) is not None:
        gltf.close()


def maniGltf_GetBufferCount(gltf) -> int:
    return len(gltf.buffer_lengths) if _doc(gltf) else 0


def maniGltf_GetBufferUri(gltf, buffer):
    """The URI as str, or None."""
    return gltf.buffer_uri(_index(buffer, "buffer")) if _doc(gltf) else None


def maniGltf_SupplyBuffer(gltf, buffer, data) -> None:
    if _doc(gltf) is None:
        raise InvalidError("gltf is not an opened glTF document")
    if data is None:
        raise InvalidError("no bytes")
    gltf.supply_buffer(_index(buffer, "buffer"), data)


def maniGltf_GetSkeletonCount(gltf) -> int:
    return len(gltf.skeletons) if _doc(gltf) else 0


def maniGltf_GetSkinCount(gltf) -> int:
    return len(gltf.skin_joints) if _doc(gltf) else 0


def maniGltf_GetSkinSkeleton(gltf, skin) -> int:
    skin = _index(skin, "skin")
    if not _doc(gltf) or not 0 <= skin < len(gltf.skin_skeleton):
        return NONE
    return gltf.skin_skeleton[skin]


def maniGltf_GetNodeCount(gltf) -> int:
    return len(gltf.nodes) if _doc(gltf) else 0


def maniBuildGltfSkeleton(builder, gltf, skeleton, options) -> None:
    build_gltf_skeleton(builder, gltf, _index(skeleton, "skeleton"), options)


def maniBuildGltfNodeSkeleton(builder, gltf, node, options) -> None:
    build_gltf_node_skeleton(builder, gltf, _index(node, "node"), options)


def maniGltf_GetSkeletonPlacement(gltf, skeleton, options) -> np.ndarray:
    return skeleton_placement(gltf, _index(skeleton, "skeleton"), options)


def maniBuildGltfSkin(builder, gltf, skin, skeleton, options) -> None:
    build_gltf_skin(builder, gltf, _index(skin, "skin"), skeleton, options)


def maniGltf_GetNodeBoneName(gltf, node):
    """The bone name as str, or None past the count."""
    return _text(gltf.node_bone_name(_index(node, "node"))) if _doc(gltf) else None


def maniGltf_GetRenamedCount(gltf) -> int:
    return len(gltf.renamed) if _doc(gltf) else 0


def maniGltf_GetRenamedNode(gltf, index) -> int:
    index = _index(index, "index")
    if not _doc(gltf) or not 0 <= index < len(gltf.renamed):
        return NONE
    return gltf.renamed[index]


def maniGltf_GetAnimationCount(gltf) -> int:
    return len(gltf.animations) if _doc(gltf) else 0


def maniGltf_GetAnimationName(gltf, animation):
    """The name as str ('' without one), or None past the count."""
    return _text(animation_name(gltf, _index(animation, "animation"))) if _doc(gltf) else None


def maniBuildGltfClip(builder, gltf, animation, skeleton, options, clipOptions) -> int:
    """Returns boundOut: how many of the animation's channels the clip took."""
    return build_gltf_clip(builder, gltf, _index(animation, "animation"), skeleton, options,
                           clipOptions)[1]


def maniGltf_ReadSprings(gltf, skeleton, options):
    """Returns setOut, a SpringSetSource for maniBuildSpringSet."""
    return read_springs(gltf, skeleton, options)


def maniGltf_ReadRagdoll(gltf, skeleton, options, facing, up):
    """facing and up as 3 numbers each; returns sourceOut, a RagdollSource for
    maniBuildRagdoll."""
    return read_ragdoll(gltf, skeleton, options, facing, up)


def maniGltf_GetMeshCount(gltf) -> int:
    return len(gltf.meshes) if _doc(gltf) else 0


def maniGltf_GetPrimitiveCount(gltf, mesh) -> int:
    return primitive_count(gltf, _index(mesh, "mesh")) if _doc(gltf) else 0


def maniGltf_GetPrimitiveTargetCount(gltf, mesh, primitive) -> int:
    if not _doc(gltf):
        return 0
    return target_count(gltf, _index(mesh, "mesh"), _index(primitive, "primitive"))


def maniGltf_GetNodeMesh(gltf, node) -> int:
    return node_mesh(gltf, _index(node, "node")) if _doc(gltf) else NONE


def maniGltf_GetNodeSkin(gltf, node) -> int:
    return node_skin(gltf, _index(node, "node")) if _doc(gltf) else NONE


def maniGltf_GetMorphWeights(gltf, node, weightsOut=None):
    """The weights (float32, one a target), into weightsOut when given: its size is the
    capacity (CapacityError with .count when short, the array zeroed). Without an array,
    a fresh one: the measure and the read in one call."""
    if _doc(gltf) is None:
        raise InvalidError("gltf is not an opened glTF document")
    weights, count = morph_weights(gltf, _index(node, "node"), weightsOut)
    return weights[:count] if weightsOut is None else weightsOut


def maniBuildGltfInfluences(builder, gltf, mesh, primitive, skin) -> None:
    build_gltf_influences(builder, gltf, _index(mesh, "mesh"), _index(primitive, "primitive"),
                          skin)


def maniBuildGltfMorphTargets(builder, gltf, mesh, primitive, options) -> None:
    build_gltf_morph_targets(builder, gltf, _index(mesh, "mesh"),
                             _index(primitive, "primitive"), options)
