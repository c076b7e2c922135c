"""The spec's functions under their C names, a thin layer over the Pythonic API.

Conventions (DESIGN.md): out-parameters become the return value (a tuple in C parameter
order where there are several, after the C return value where that is not a result code);
(pointer, count) and (bytes, size) pairs become one array or bytes-like object; caller
memory is optional; a result other than success raises the matching runtime.ManiError;
NULL is None.

Each header's functions live in a module of their own here (`_skeleton`, `_pose`, ...),
each with an `__all__` of the functions it carries, a `__constants__` of the header's
constants and enum values, and a `__pending__` naming each listed function whose spec entry
is not yet wholly built, with what is missing. This package gathers the three: a function
is done when it is in `__all__` and not in `PENDING`; each issue that builds the rest
removes its entries.
"""
import importlib as _importlib
import pkgutil as _pkgutil

__all__: list[str] = []
__constants__: list[str] = []
PENDING: dict[str, str] = {}
for _info in sorted(_pkgutil.iter_modules(__path__), key=lambda i: i.name):
    _module = _importlib.import_module(f"{__name__}.{_info.name}")
    _names = _module.__all__ + getattr(_module, "__constants__", [])
    globals().update({_name: getattr(_module, _name) for _name in _names})
    __all__ += _module.__all__
    __constants__ += getattr(_module, "__constants__", [])
    PENDING.update(getattr(_module, "__pending__", {}))
__all__.sort()
