"""base.h."""
from ..base import check_cpu, get_version, hash64, is_cpu_backend_supported, result_name, simd_backend

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
    return hash64(int(seed) & 0xFFFFFFFFFFFFFFFF, b"" if data is None else data)


def maniGetResultName(result) -> str:
    return result_name(result)
