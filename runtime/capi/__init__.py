"""The spec's functions under their C names, a thin layer over the Pythonic API.

Conventions (DESIGN.md): out-parameters become the return value (a tuple in C parameter
order where there are several, after the C return value where that is not a result code);
(pointer, count) and (bytes, size) pairs become one array or bytes-like object; caller
memory is optional; a result other than success raises the matching runtime.ManiError;
NULL is None.

Each header's functions live in a module of their own here (`_skeleton`, `_pose`, ...),
each with an `__all__` of exactly its complete functions; this package gathers them, so
`__all__` lists exactly the functions that are complete.
"""
import importlib as _importlib
import pkgutil as _pkgutil

from ..limits import MAX_BONES as MANI_MAX_BONES
from ..limits import MAX_NAME_BYTES as MANI_MAX_NAME_BYTES
from ..limits import NO_BONE as MANI_NO_BONE
from ..limits import NO_TRACK as MANI_NO_TRACK

__all__: list[str] = []
for _info in sorted(_pkgutil.iter_modules(__path__), key=lambda i: i.name):
    _module = _importlib.import_module(f"{__name__}.{_info.name}")
    globals().update({_name: getattr(_module, _name) for _name in _module.__all__})
    __all__ += _module.__all__
__all__.sort()
