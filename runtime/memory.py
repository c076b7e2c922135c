"""Caller memory: the one check every object that lives in the caller's bytes makes."""
from __future__ import annotations

import numpy as np

from .errors import InvalidError

ALIGN = 8       # what poses, cursors and instances ask of the caller's buffer address


def caller_bytes(memory, align: int = ALIGN) -> np.ndarray:
    """The caller's writable, aligned buffer as uint8, in place; refuses anything else."""
    try:
        buf = np.frombuffer(memory, dtype=np.uint8)
    except (TypeError, ValueError) as exc:
        raise InvalidError(f"memory not a writable buffer: {exc}") from None
    if not buf.flags.writeable:
        raise InvalidError("memory is read-only")
    if buf.ctypes.data % align:
        raise InvalidError(f"memory not aligned to {align}")
    return buf
