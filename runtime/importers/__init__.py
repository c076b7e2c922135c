"""Importers: files made by other tools read into the runtime's sources, which the ordinary
builders then build (bvh: Biovision Hierarchy motion capture)."""
from .bvh import BvhFormatError, BvhImport, load_bvh, read_bvh

__all__ = ["BvhFormatError", "BvhImport", "load_bvh", "read_bvh"]
