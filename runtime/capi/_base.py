"""base.h."""
from ..core.base import (check_cpu, get_version, hash64, is_cpu_backend_supported, result_name,
                         simd_backend)

from ..core.errors import BuildReason, Result
from ..core.limits import MAX_BONES as MANI_MAX_BONES
from ..core.limits import MAX_NAME_BYTES as MANI_MAX_NAME_BYTES
from ..core.limits import NO_BONE as MANI_NO_BONE
from ..core.limits import NO_TRACK as MANI_NO_TRACK

__constants__ = ["MANI_MAX_BONES", "MANI_MAX_NAME_BYTES", "MANI_NO_BONE", "MANI_NO_TRACK",
                 *(f"mani_{r.name}" for r in Result),
                 *(f"maniBuildReason{r.name.rstrip('_')}" for r in BuildReason)]
globals().update({f"mani_{r.name}": r for r in Result})
globals().update({f"maniBuildReason{r.name.rstrip('_')}": r for r in BuildReason})

__all__ = ["maniGetVersion", "maniGetSimdBackend", "maniIsCpuBackendSupported", "maniCheckCpu",
           "maniHash64", "maniGetResultName"]


def maniGetVersion():
    return get_version()


def maniGetSimdBackend() -> str:
    return simd_backend()


def maniIsCpuBackendSupported() -> bool:
    return is_cpu_backend_supported()


def maniCheckCpu():
    """Returns (whether this CPU runs the backend, the backend's name)."""
    return check_cpu()


def maniHash64(seed: int, data=None) -> int:
    """NULL data hashes no bytes."""
    return hash64(seed, b"" if data is None else data)


def maniGetResultName(result) -> str:
    return result_name(result)
