"""The ground every file kind stands on: versions and the hash (base), result codes and
errors, limits, the name tables every kind shares, the file container, caller memory and
scratch, the one kernel decorator (jit), transform arithmetic and the Builder."""
from .base import VERSION, check_cpu, hash64, result_name, simd_backend
from .builder import Builder, BuilderDef, default_builder_def
from .errors import (BuildReason, BusyError, CapacityError, FormatError, InvalidError, LimitError,
                     ManiError, Result, VersionError)
from .limits import MAX_BONES, MAX_NAME_BYTES, NO_BONE, NO_TRACK
from .scratch import Scratch
from .transform import IDENTITY, IDENTITY_AFFINE, decompose_affine

__all__ = ["VERSION", "check_cpu", "hash64", "result_name", "simd_backend",
           "Builder", "BuilderDef", "default_builder_def",
           "BuildReason", "BusyError", "CapacityError", "FormatError", "InvalidError", "LimitError",
           "ManiError", "Result", "VersionError",
           "MAX_BONES", "MAX_NAME_BYTES", "NO_BONE", "NO_TRACK",
           "Scratch", "IDENTITY", "IDENTITY_AFFINE", "decompose_affine"]
