"""The library's base: its version, its vector backend, the frozen hash, result names."""
from __future__ import annotations

import platform
from typing import NamedTuple

import numpy as np

from . import args
from .errors import RESULT_NAMES, UNKNOWN_RESULT_NAME, InvalidError, Result


class Version(NamedTuple):
    """maniVersion."""

    major: int
    minor: int
    patch: int


VERSION = Version(0, 1, 0)
ABI_VERSION = 1         # MANI_ABI_VERSION: saved states of another ABI are refused

def _host_backend() -> str:
    """What numba compiles the kernels for: this host's CPU (or the one NUMBA_CPU_NAME and
    NUMBA_CPU_FEATURES name), whose vector instructions LLVM uses: "avx2" with AVX2 and
    FMA, "neon" on 64-bit Arm, "scalar" otherwise."""
    if platform.machine().lower() in ("arm64", "aarch64"):
        return "neon"
    from numba.core import config
    if config.CPU_NAME and config.CPU_NAME != "host":
        named = set((config.CPU_FEATURES or "").split(","))
        has = {"avx2": "+avx2" in named, "fma": "+fma" in named}
    else:
        from llvmlite import binding
        features = binding.get_host_cpu_features()
        has = {"avx2": bool(features.get("avx2")), "fma": bool(features.get("fma"))}
    return "avx2" if has["avx2"] and has["fma"] else "scalar"


# The kernels are compiled on this machine for this machine the first time they run (and
# numba's cache is keyed by the CPU), so the backend is the host's and the check always
# passes: no CPU can be the wrong one for code made for it.
SIMD_BACKEND = _host_backend()


def get_version() -> Version:
    return VERSION


def simd_backend() -> str:
    """maniGetSimdBackend: the backend the kernels were compiled for."""
    return SIMD_BACKEND


def is_cpu_backend_supported() -> bool:
    return True


def check_cpu() -> tuple[bool, str]:
    """The once-per-process check a host makes: whether this CPU runs the backend."""
    return is_cpu_backend_supported(), SIMD_BACKEND


# ---- maniHash64, frozen ------------------------------------------------------------------
# Eight bytes a round in the host's byte order, xored in, multiplied by an odd constant and
# folded; the leftover bytes one at a time the same way; then a final avalanche. These five
# numbers define every identity the library writes. Never change them.
HASH_MULTIPLIER = 0x9E3779B97F4A7C15      # odd: the golden-ratio constant
HASH_LENGTH_SALT = 0xC2B2AE3D27D4EB4F     # (count + 1) times this is xored into the seed
HASH_FOLD_SHIFT = 32                      # each round xors the high half into the low
HASH_FINAL_SHIFT = 29
HASH_FINAL_MULTIPLIER = 0xBF58476D1CE4E5B9
_MASK = (1 << 64) - 1
_WORD = np.dtype("=u8")


def hash64(seed: int, data) -> int:
    """maniHash64: the 64-bit hash of a bytes-like object (C-contiguous: a pointer and a
    count), with its frozen constants; the seed is a uint64."""
    seed = args.integer(seed, "seed")
    if not 0 <= seed < 1 << 64:
        raise InvalidError(f"seed {seed} is not a uint64")
    view = args.byte_view(data, "data")
    n = view.nbytes
    m, fold = HASH_MULTIPLIER, HASH_FOLD_SHIFT
    h = (int(seed) ^ (((n + 1) * HASH_LENGTH_SALT) & _MASK)) & _MASK
    whole = n - n % 8
    for w in np.frombuffer(view[:whole], dtype=_WORD).tolist():
        h = ((h ^ w) * m) & _MASK
        h ^= h >> fold
    for b in view[whole:].tolist():
        h = ((h ^ b) * m) & _MASK
        h ^= h >> fold
    h ^= h >> HASH_FINAL_SHIFT
    h = (h * HASH_FINAL_MULTIPLIER) & _MASK
    h ^= h >> fold
    return h


def result_name(result) -> str:
    """maniGetResultName."""
    try:
        return RESULT_NAMES[Result(result)]
    except ValueError:
        return UNKNOWN_RESULT_NAME

