"""mirrorbuild.h."""
from ._build import require_builder
from ..mapping.mirror_build import build_mirror_map
from ..mapping.mirror_clip import build_mirrored_clip
from ..mapping.mirror_json import build_mirror_map_json, write_mirror_map_json

__all__ = ["maniBuildMirrorMap", "maniWriteMirrorMapJson", "maniBuildMirrorMapJson",
           "maniBuildMirroredClip"]


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
