"""Caller memory: the one check every object that lives in the caller's bytes makes."""
from __future__ import annotations

import numpy as np

from .errors import CapacityError, InvalidError

ALIGN = 8       # what poses, cursors and instances ask of the caller's buffer address


def caller_bytes(memory, align: int = ALIGN, name: str = "memory") -> np.ndarray:
    """The caller's writable, aligned buffer as uint8, in place; refuses anything else (the
    refusal naming the argument)."""
    try:
        buf = np.frombuffer(memory, dtype=np.uint8)
    except (TypeError, ValueError) as exc:
        raise InvalidError(f"{name} not a writable buffer: {exc}") from None
    if not buf.flags.writeable:
        raise InvalidError(f"{name} is read-only")
    if buf.ctypes.data % align:
        raise InvalidError(f"{name} not aligned to {align}")
    return buf


def caller_block(memory, size, need: int, what: str) -> np.ndarray:
    """The bytes an object of `need` bytes lives in: the caller's (caller_bytes), cut to the
    size the caller declares (None: all of them), CapacityError when they fall short; new
    zeroed bytes when there is no memory."""
    if memory is None:
        return np.zeros(need, dtype=np.uint8)
    buf = caller_bytes(memory, ALIGN)
    if size is not None:
        size = int(size)
        if size < 0:
            raise InvalidError("negative size")
        buf = buf[:size]
    if buf.size < need:
        raise CapacityError(f"{buf.size} bytes for {what} of {need}", size=need)
    return buf
