"""build.h: the builder, the skeleton build and clip compression (the other builds join with
their headers)."""
from ..clip.compress import CompressOptions, CompressReport, compress_clip, default_compress_options
from ..core.builder import Builder, BuilderDef, default_builder_def
from ..pose.skeleton import build_skeleton
from ..core.errors import InvalidError

__all__ = ["maniDefaultBuilderDef", "maniCreateBuilder", "maniDestroyBuilder",
           "maniBuilder_GetMisuse", "maniBuildSkeleton", "maniBuilder_CopyBuilt",
           "maniBuilder_CopySkeletonOrder", "maniDefaultCompressOptions", "maniCompressClip"]


def maniDefaultBuilderDef() -> BuilderDef:
    return default_builder_def()


def maniCreateBuilder(definition: BuilderDef) -> Builder:
    if definition is None:
        raise InvalidError("no def")
    return Builder(definition)


def maniDestroyBuilder(builder: Builder) -> None:
    """NULL does nothing; anything else that is not a builder is refused."""
    if builder is not None:
        require_builder(builder).destroy()


def maniBuilder_GetMisuse(builder: Builder) -> int:
    return builder.misuse if isinstance(builder, Builder) else 0


def require_builder(builder) -> Builder:
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    return builder


def maniBuildSkeleton(builder: Builder, source) -> None:
    """Success returns None; the file is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_skeleton(require_builder(builder), source)


def maniBuilder_CopyBuilt(builder: Builder, bufferOut=None):
    """The file as bytes, or, into bufferOut, its size (CapacityError with .size when short)."""
    return require_builder(builder).copy_built(bufferOut)


def maniBuilder_CopySkeletonOrder(builder: Builder, boneOut=None):
    """The skeleton index of each source bone (CapacityError with .count when short, the
    array zeroed)."""
    return require_builder(builder).copy_skeleton_order(boneOut)


def maniDefaultCompressOptions() -> CompressOptions:
    return default_compress_options()


def maniCompressClip(builder: Builder, clip, skeleton, options: CompressOptions) -> CompressReport:
    """The report; the compressed file is the builder's to copy (maniBuilder_CopyBuilt)."""
    return compress_clip(builder, clip, skeleton, options)
