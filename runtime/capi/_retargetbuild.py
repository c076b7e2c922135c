"""retargetbuild.h."""
from ._build import require_builder
from ..mapping.retarget_build import RetargetChainMode, RetargetTranslation, build_retarget_map
from ..mapping.retarget_clip import build_retargeted_clip
from ..mapping.retarget_json import build_retarget_map_json, write_retarget_map_json

__all__ = ["maniBuildRetargetMap", "maniWriteRetargetMapJson", "maniBuildRetargetMapJson",
           "maniBuildRetargetedClip"]
__constants__ = ["maniRetargetTranslationOwn", "maniRetargetTranslationScaled",
                 "maniRetargetTranslationAbsolute", "maniRetargetChainNone",
                 "maniRetargetChainInterpolated", "maniRetargetChainOneToOne",
                 "maniRetargetChainOneToOneReversed"]

maniRetargetTranslationOwn = RetargetTranslation.own
maniRetargetTranslationScaled = RetargetTranslation.scaled
maniRetargetTranslationAbsolute = RetargetTranslation.absolute
maniRetargetChainNone = RetargetChainMode.none
maniRetargetChainInterpolated = RetargetChainMode.interpolated
maniRetargetChainOneToOne = RetargetChainMode.one_to_one
maniRetargetChainOneToOneReversed = RetargetChainMode.one_to_one_reversed


def maniBuildRetargetMap(builder, source) -> None:
    """Success returns None; the file is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_retarget_map(require_builder(builder), source)


def maniWriteRetargetMapJson(builder, source) -> None:
    """Success returns None; the text is the builder's to copy (maniBuilder_CopyBuilt)."""
    write_retarget_map_json(require_builder(builder), source)


def maniBuildRetargetMapJson(builder, text, source, target) -> None:
    build_retarget_map_json(require_builder(builder), text, source, target)


def maniBuildRetargetedClip(builder, source) -> None:
    """Success returns None; the clip is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_retargeted_clip(require_builder(builder), source)
