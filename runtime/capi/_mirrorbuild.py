"""mirrorbuild.h."""
from ._build import require_builder
from ..mapping.mirror_build import build_mirror_map
from ..mapping.mirror_clip import build_mirrored_clip
from ..mapping.mirror_json import build_mirror_map_json, write_mirror_map_json

__all__ = ["maniBuildMirrorMap", "maniWriteMirrorMapJson", "maniBuildMirrorMapJson",
           "maniBuildMirroredClip"]
__pending__ = {
    "maniBuildMirroredClip": "float and discrete tracks are refused (MirrorClip, other 2) until "
                             "the clip's public API gives a float track's interpolation and a "
                             "discrete track's keys; root motion is taken out again from the "
                             "partner's mirrored channel by the clip build, not the stored moves "
                             "reflected (the same whole motion; the same moves only where the "
                             "root motion bone's correction is the identity)",
}


def maniBuildMirrorMap(builder, source) -> None:
    """Success returns None; the file is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_mirror_map(require_builder(builder), source)


def maniWriteMirrorMapJson(builder, source) -> None:
    """Success returns None; the text is the builder's to copy (maniBuilder_CopyBuilt)."""
    write_mirror_map_json(require_builder(builder), source)


def maniBuildMirrorMapJson(builder, text, skeleton) -> None:
    build_mirror_map_json(require_builder(builder), text, skeleton)


def maniBuildMirroredClip(builder, source) -> None:
    """Success returns None; the clip is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_mirrored_clip(require_builder(builder), source)
