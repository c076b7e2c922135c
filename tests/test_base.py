"""base.h: version, backend, CPU check, the frozen hash, result names."""
from pathlib import Path

import runtime
from runtime import capi
from runtime.core.errors import Result

# maniHash64 is frozen: identities written today must match those computed tomorrow.
FROZEN = [
    (0x0, b'', 0xca15aec12e829137),
    (0x0, b'a', 0x864cd54c80a0c2f4),
    (0x1, b'a', 0x2275c16af2984a16),
    (0x0, b'abcdefgh', 0xcc73e58d3ec35603),
    (0x0, b'abcdefghi', 0x317b2edb231ca829),
    (0xffffffffffffffff, b'Maul Anim', 0x3b06eafdf25e4f72),
    (0x2a, bytes(range(64)), 0xed2499a515c5cfd0),
    (0x4d414e49, b'hips', 0xca1dcae098e569ab),
]


def test_hash_is_frozen():
    for seed, data, expected in FROZEN:
        assert capi.maniHash64(seed, data) == expected


def test_hash_reads_any_buffer_and_every_byte():
    import numpy as np
    data = bytes(range(37))
    h = capi.maniHash64(7, data)
    assert capi.maniHash64(7, bytearray(data)) == h
    assert capi.maniHash64(7, memoryview(data)) == h
    assert capi.maniHash64(7, np.frombuffer(data, np.uint8)) == h
    for i in range(len(data)):          # a change in any byte, word or leftover, changes it
        flipped = bytearray(data)
        flipped[i] ^= 1
        assert capi.maniHash64(7, flipped) != h
    assert capi.maniHash64(7, data + b"\0") != h       # the length counts
    assert capi.maniHash64(0, None) == capi.maniHash64(0, b"")


def test_backend_is_what_the_host_cpu_has():
    """Against the kernel's own account of the CPU (/proc/cpuinfo), not numba's."""
    import platform
    backend = capi.maniGetSimdBackend()
    cpuinfo = Path("/proc/cpuinfo")
    if platform.machine() in ("x86_64", "AMD64") and cpuinfo.exists():
        flags = next(line for line in cpuinfo.read_text().splitlines() if line.startswith("flags"))
        words = set(flags.split(":")[1].split())
        assert backend == ("avx2" if {"avx2", "fma"} <= words else "scalar")
    elif platform.machine() in ("aarch64", "arm64"):
        assert backend == "neon"


def test_backend_and_cpu_check_agree():
    assert capi.maniGetSimdBackend() in ("avx2", "neon", "scalar")
    assert capi.maniIsCpuBackendSupported() is True
    assert capi.maniCheckCpu() == (True, capi.maniGetSimdBackend())


def test_result_names():
    assert capi.maniGetResultName(Result.success) == "mani_success"
    assert capi.maniGetResultName(Result.errorCapacity) == "mani_errorCapacity"
    assert capi.maniGetResultName(6) == "mani_errorBusy"
    assert capi.maniGetResultName(999) == "mani_unknown"
    for cls in (runtime.InvalidError, runtime.CapacityError, runtime.VersionError,
                runtime.LimitError, runtime.BusyError):
        assert cls().result == capi.maniGetResultName(cls.code)
    assert runtime.FormatError("x", 5).result == "mani_errorFormat"
