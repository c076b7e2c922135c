"""Importers: files made by other tools read into the runtime's sources, which the ordinary
builders then build (bvh: Biovision Hierarchy motion capture; common: what the glTF and FBX
readers share)."""
from .bvh import BvhFormatError, BvhImport, load_bvh, read_bvh
from .common import (ImportClipOptions, ImportFormatError, ImportReason, bone_names,
                     default_import_clip_options)

__all__ = ["BvhFormatError", "BvhImport", "load_bvh", "read_bvh", "ImportClipOptions",
           "ImportFormatError", "ImportReason", "bone_names", "default_import_clip_options"]
