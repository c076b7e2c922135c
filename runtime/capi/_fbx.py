"""import.h, its FBX half: open and read a document, then skeletons, placements, skins,
influences, morph targets and clips built from it."""
from ..core.errors import InvalidError
from ..importers.fbx import Axis, Fbx, SkinMethod, default_fbx_options, open_fbx

UINT32_MAX = 0xFFFFFFFF

__all__ = ["maniOpenFbx", "maniCloseFbx", "maniFbx_GetVersion", "maniFbx_GetModelCount",
           "maniFbx_GetModelBoneName", "maniFbx_GetRenamedCount", "maniFbx_GetRenamedModel",
           "maniFbx_GetSkeletonCount", "maniFbx_GetSkinCount", "maniFbx_GetSkinSkeleton",
           "maniFbx_GetSkinModel", "maniFbx_ReadSettings", "maniDefaultFbxOptions",
           "maniBuildFbxSkeleton", "maniBuildFbxModelSkeleton", "maniFbx_GetSkeletonPlacement",
           "maniBuildFbxSkin", "maniFbx_GetSkinMethod", "maniBuildFbxInfluences",
           "maniFbx_GetMorphCount", "maniFbx_GetMorphModel", "maniFbx_GetMorphTargetCount",
           "maniBuildFbxMorphTargets", "maniFbx_GetMorphWeights", "maniFbx_GetClipCount",
           "maniFbx_GetClipName", "maniBuildFbxClip", "maniFbx_GetModelPlacement"]

__pending__ = {}

__constants__ = [*(f"maniFbxAxis{a.name}" for a in Axis),
                 "maniSkinningMethodLinear", "maniSkinningMethodDualQuaternion",
                 "maniSkinningMethodBlended"]
globals().update({f"maniFbxAxis{a.name}": a for a in Axis})
maniSkinningMethodLinear = SkinMethod.linear
maniSkinningMethodDualQuaternion = SkinMethod.dual_quaternion
maniSkinningMethodBlended = SkinMethod.blended


def _opened(fbx) -> bool:
    return isinstance(fbx, Fbx) and fbx.is_open


def _need(fbx) -> Fbx:
    if not _opened(fbx):
        raise InvalidError("no opened FBX document")
    return fbx


def maniOpenFbx(builder, bytes_) -> Fbx:
    """The document (maniFbx*); ImportFormatError with .import_reason and .offset."""
    return open_fbx(builder, bytes_)


def maniCloseFbx(fbx) -> None:
    if isinstance(fbx, Fbx):
        fbx.close()


def maniFbx_GetVersion(fbx) -> int:
    return fbx.version if _opened(fbx) else 0


def maniFbx_GetModelCount(fbx) -> int:
    return fbx.model_count if _opened(fbx) else 0


def maniFbx_GetModelBoneName(fbx, model):
    """The name as UTF-8 bytes, or None."""
    return fbx.model_bone_name(model) if _opened(fbx) else None


def maniFbx_GetRenamedCount(fbx) -> int:
    return fbx.renamed_count if _opened(fbx) else 0


def maniFbx_GetRenamedModel(fbx, index) -> int:
    return fbx.renamed_model(index) if _opened(fbx) else UINT32_MAX


def maniFbx_GetSkeletonCount(fbx) -> int:
    return fbx.skeleton_count if _opened(fbx) else 0


def maniFbx_GetSkinCount(fbx) -> int:
    return fbx.skin_count if _opened(fbx) else 0


def maniFbx_GetSkinSkeleton(fbx, skin) -> int:
    return fbx.skin_skeleton(skin) if _opened(fbx) else UINT32_MAX


def maniFbx_GetSkinModel(fbx, skin) -> int:
    return fbx.skin_model(skin) if _opened(fbx) else UINT32_MAX


def maniFbx_ReadSettings(fbx):
    """The settings (FbxSettings)."""
    return _need(fbx).read_settings()


def maniDefaultFbxOptions():
    return default_fbx_options()


def maniBuildFbxSkeleton(builder, fbx, skeleton, options) -> None:
    """Success returns None; the file is the builder's to copy (maniBuilder_CopyBuilt)."""
    Fbx.build_skeleton(fbx, builder, skeleton, options) if isinstance(fbx, Fbx) \
        else _refuse(builder)


def maniBuildFbxModelSkeleton(builder, fbx, model, options) -> None:
    Fbx.build_model_skeleton(fbx, builder, model, options) if isinstance(fbx, Fbx) \
        else _refuse(builder)


def _refuse(builder) -> None:
    from ..importers.fbx.fbx import _front
    _front(builder, None)


def maniFbx_GetSkeletonPlacement(fbx, skeleton, options):
    """The placement, (3, 4) float32."""
    return _need(fbx).skeleton_placement(skeleton, options)


def maniBuildFbxSkin(builder, fbx, skin, skeleton, options) -> None:
    Fbx.build_skin(fbx, builder, skin, skeleton, options) if isinstance(fbx, Fbx) \
        else _refuse(builder)


def maniBuildFbxInfluences(builder, fbx, skin, built) -> None:
    Fbx.build_influences(fbx, builder, skin, built) if isinstance(fbx, Fbx) \
        else _refuse(builder)


def maniFbx_GetSkinMethod(fbx, skin) -> SkinMethod:
    return fbx.skin_method(skin) if _opened(fbx) else SkinMethod.linear


def maniFbx_GetClipCount(fbx) -> int:
    return fbx.clip_count if _opened(fbx) else 0


def maniFbx_GetClipName(fbx, clip):
    """The name as UTF-8 bytes, or None."""
    return fbx.clip_name(clip) if _opened(fbx) else None


def maniBuildFbxClip(builder, fbx, clip, skeleton, options, clipOptions) -> int:
    """Success returns boundOut: how many of the skeleton's bones the clip moves."""
    if not isinstance(fbx, Fbx):
        _refuse(builder)
    return fbx.build_clip(builder, clip, skeleton, options, clipOptions)


def maniFbx_GetMorphCount(fbx) -> int:
    return fbx.morph_count if _opened(fbx) else 0


def maniFbx_GetMorphModel(fbx, morph) -> int:
    return fbx.morph_model(morph) if _opened(fbx) else UINT32_MAX


def maniFbx_GetMorphTargetCount(fbx, morph) -> int:
    return fbx.morph_target_count(morph) if _opened(fbx) else 0


def maniBuildFbxMorphTargets(builder, fbx, morph, options) -> None:
    Fbx.build_morph_targets(fbx, builder, morph, options) if isinstance(fbx, Fbx) \
        else _refuse(builder)


def maniFbx_GetMorphWeights(fbx, morph, weightsOut=None):
    """The weights (float32), into weightsOut when given; CapacityError with .count (the
    target count) when it is short, weightsOut zeroed."""
    return _need(fbx).morph_weights(morph, weightsOut)


def maniFbx_GetModelPlacement(fbx, model, options):
    """The placement, (3, 4) float32."""
    return _need(fbx).model_placement(model, options)
