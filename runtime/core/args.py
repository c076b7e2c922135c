"""The argument boundary: every public entry turns what it is given into the plain values its
work needs here, or refuses with InvalidError naming the argument. Nothing past this layer
meets a wrong type, a numpy scalar it mistakes, an int past the float range or a name that
does not encode, so no Python error or numpy warning can escape from deeper down.

`what` is the argument's name as the caller's docs give it ("bone", "time", ...)."""
from __future__ import annotations

import math
import numbers

import numpy as np

from .errors import BuildReason, InvalidError

F32_MAX = float(np.finfo(np.float32).max)


def _kind(value) -> str:
    return type(value).__name__


def integer(value, what: str) -> int:
    """An int or an integral numpy scalar (not a bool, not a float however whole)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidError(f"{what} must be an integer, not {_kind(value)}")
    return int(value)


def count(value, what: str) -> int:
    """An integer of at least 0."""
    n = integer(value, what)
    if n < 0:
        raise InvalidError(f"{what} must be 0 or more, not {n}")
    return n


def real(value, what: str) -> float:
    """A real number as binary64 (NaN and infinities pass; ints past its range do not)."""
    if type(value) is float:        # the usual, and per frame: no ABC check
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InvalidError(f"{what} must be a number, not {_kind(value)}")
    try:
        return float(value)
    except OverflowError:
        raise InvalidError(f"{what} is past the float range", reason=BuildReason.NotFinite) from None


def finite(value, what: str) -> float:
    """A finite real number."""
    v = real(value, what)
    if not math.isfinite(v):
        raise InvalidError(f"{what} must be finite, not {v}", reason=BuildReason.NotFinite)
    return v


def finite32(value, what: str) -> float:
    """A real number that stays finite as binary32 (rounded as the cast rounds)."""
    v = finite(value, what)
    if abs(v) > F32_MAX:
        with np.errstate(over="ignore"):
            if not math.isfinite(float(np.float32(v))):
                raise InvalidError(f"{what} is past the binary32 range ({v})",
                                   reason=BuildReason.NotFinite)
    return v


def floats(value, shape: tuple, what: str, *, dtype=np.float32, within=None,
           allow_nonfinite=False) -> np.ndarray:
    """An array of numbers of `shape` (-1 for any length on that axis) in `dtype`: never a
    value finite in binary64 that `within` (the dtype, unless another is named: binary32
    for a value kept in binary64 for arithmetic) cannot hold, and with `allow_nonfinite`
    False no NaN or infinity either. Returns a new C-contiguous array."""
    if value is None or isinstance(value, (str, bytes, bytearray, memoryview)):
        raise InvalidError(f"{what} must be an array of numbers, not {_kind(value)}")
    try:
        raw = np.asarray(value)
    except (ValueError, TypeError, OverflowError):      # ragged, or not numbers at all
        raise InvalidError(f"{what} must be an array of numbers of shape {shape}") from None
    if raw.size == 0 and raw.ndim == 1 and shape[0] == -1 and -1 not in shape[1:]:
        raw = raw.reshape((0,) + tuple(shape[1:])).astype(np.float64)   # [] is no rows
    if raw.dtype.kind not in "iuf":
        raise InvalidError(f"{what} must be an array of numbers, not of {raw.dtype}")
    if raw.ndim != len(shape) or any(s not in (-1, n) for s, n in zip(shape, raw.shape)):
        raise InvalidError(f"{what} must have shape {shape}, not {raw.shape}")
    with np.errstate(over="ignore", invalid="ignore"):
        wide = raw.astype(np.float64)
        out = np.ascontiguousarray(wide, dtype=dtype)
        held = out if within is None else wide.astype(within)
    wide_finite = np.isfinite(wide)
    if not (np.isfinite(held) | ~wide_finite).all():
        raise InvalidError(f"{what} has values past the {held.dtype.name} range",
                           reason=BuildReason.NotFinite)
    if not allow_nonfinite and not wide_finite.all():
        raise InvalidError(f"{what} has values that are not finite", reason=BuildReason.NotFinite)
    return out


def name(value, what: str = "name") -> bytes:
    """A name's bytes: a str as UTF-8 (a lone surrogate kept as the bytes it would be, which
    are not UTF-8 and so name nothing), or bytes as they are."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise InvalidError(f"{what} must be text or bytes, not {_kind(value)}")


def byte_view(value, what: str) -> memoryview:
    """The bytes of a C-contiguous buffer, as a flat memoryview."""
    try:
        view = memoryview(value)
    except TypeError:
        raise InvalidError(f"{what} must be bytes-like, not {_kind(value)}") from None
    if not view.c_contiguous:
        raise InvalidError(f"{what} must be contiguous bytes")
    return view.cast("B") if view.format != "B" or view.ndim != 1 else view


def writable_bytes(value, what: str) -> memoryview:
    """The bytes of a writable C-contiguous buffer, as a flat memoryview."""
    view = byte_view(value, what)
    if view.readonly:
        raise InvalidError(f"{what} is read-only")
    return view


def output(value, kinds: str, shape: tuple, what: str) -> np.ndarray:
    """A writable numpy array given for results: its dtype's kind one of `kinds` ("f", "iu"),
    of `shape` (-1 for any length on that axis)."""
    if not isinstance(value, np.ndarray):
        raise InvalidError(f"{what} must be a numpy array, not {_kind(value)}")
    if value.dtype.kind not in kinds:
        raise InvalidError(f"{what} must be an array of {'floats' if kinds == 'f' else 'integers'}")
    if value.ndim != len(shape) or any(s not in (-1, n) for s, n in zip(shape, value.shape)):
        raise InvalidError(f"{what} must have shape {shape}, not {value.shape}")
    if not value.flags.writeable:
        raise InvalidError(f"{what} is read-only")
    return value


def records(value, cls, what: str) -> list:
    """A list of `cls` items from a list or tuple of them (None is no list)."""
    if not isinstance(value, (list, tuple)):
        raise InvalidError(f"{what} must be a list of {cls.__name__}, not {_kind(value)}")
    for i, item in enumerate(value):
        if not isinstance(item, cls):       # the name formatted only for the error
            of(item, cls, f"{what}[{i}]")
    return list(value)


def of(value, cls, what: str):
    """`value` itself when it is a `cls`; InvalidError naming the argument otherwise."""
    if not isinstance(value, cls):
        expected = cls.__name__ if isinstance(cls, type) else " or ".join(c.__name__ for c in cls)
        raise InvalidError(f"{what} must be a {expected}, not {_kind(value)}")
    return value
