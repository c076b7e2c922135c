"""morph.h, and maniBuildMorphTargets of build.h."""
from ..deform.morph import NO_CHANNEL, MorphTargets, apply_morph_targets, compute_target_weights
from ..deform.morph_build import build_morph_targets

from ..deform.morph import MAX_MORPH_ATTRIBUTES as MANI_MAX_MORPH_ATTRIBUTES
from ..deform.morph import NO_CHANNEL as MANI_NO_CHANNEL

__constants__ = ["MANI_MAX_MORPH_ATTRIBUTES", "MANI_NO_CHANNEL"]
__all__ = ["maniOpenMorphTargets", "maniMorphTargets_GetVertexCount",
           "maniMorphTargets_GetChannelCount", "maniMorphTargets_GetTargetCount",
           "maniMorphTargets_GetAttributeCount", "maniMorphTargets_GetAttribute",
           "maniMorphTargets_GetChannelName", "maniMorphTargets_FindChannel",
           "maniMorphTargets_GetTargetName", "maniMorphTargets_FindTarget",
           "maniMorphTargets_GetChannelTargets", "maniMorphTargets_GetTargetFullWeight",
           "maniMorphTargets_ComputeTargetWeights", "maniApplyMorphTargets",
           "maniBuildMorphTargets"]


def maniOpenMorphTargets(data) -> MorphTargets:
    return MorphTargets(data)


def _opened(targets) -> bool:
    return isinstance(targets, MorphTargets)


def maniMorphTargets_GetVertexCount(targets) -> int:
    return targets.vertex_count if _opened(targets) else 0


def maniMorphTargets_GetChannelCount(targets) -> int:
    return targets.channel_count if _opened(targets) else 0


def maniMorphTargets_GetTargetCount(targets) -> int:
    return targets.target_count if _opened(targets) else 0


def maniMorphTargets_GetAttributeCount(targets) -> int:
    return targets.attribute_count if _opened(targets) else 0


def maniMorphTargets_GetAttribute(targets, attribute: int):
    """(semantic, set); (-1, 0) past the count or for a view no open wrote."""
    return targets.attribute(attribute) if _opened(targets) else (-1, 0)


def maniMorphTargets_GetChannelName(targets, channel: int):
    """The name as str, or None."""
    return targets.channel_name(channel) if _opened(targets) else None


def maniMorphTargets_FindChannel(targets, name) -> int:
    if not _opened(targets) or name is None:
        return NO_CHANNEL
    return targets.find_channel(name)


def maniMorphTargets_GetTargetName(targets, target: int):
    """The name as str, or None."""
    return targets.target_name(target) if _opened(targets) else None


def maniMorphTargets_FindTarget(targets, name) -> int:
    if not _opened(targets) or name is None:
        return NO_CHANNEL
    return targets.find_target(name)


def maniMorphTargets_GetChannelTargets(targets, channel: int):
    """(count, first): the channel's number of targets, then its first's index."""
    first, count = targets.channel_targets(channel) if _opened(targets) else (0, 0)
    return count, first


def maniMorphTargets_GetTargetFullWeight(targets, target: int) -> float:
    return targets.full_weight(target) if _opened(targets) else 0.0


def maniMorphTargets_ComputeTargetWeights(targets, channelWeights, targetWeightsOut=None):
    """The target weights, (targets,) float32; into targetWeightsOut when given
    (CapacityError with .count, the target count, when it is short; nothing written)."""
    return compute_target_weights(targets, channelWeights, targetWeightsOut)


def maniApplyMorphTargets(job) -> None:
    apply_morph_targets(job)


def maniBuildMorphTargets(builder, source) -> None:
    """Success returns None; the file is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_morph_targets(builder, source)
