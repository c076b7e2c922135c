"""The spec's functions under their C names, a thin layer over the Pythonic API.

Conventions (DESIGN.md): out-parameters become the return value (a tuple in C parameter
order where there are several, after the C return value where that is not a result code);
(pointer, count) and (bytes, size) pairs become one array or bytes-like object; caller
memory is optional; a result other than success raises the matching runtime.ManiError;
NULL is None. Each header's functions live in their own module here; `__all__` lists
exactly the functions that are complete.
"""
from ..limits import MAX_BONES as MANI_MAX_BONES
from ..limits import MAX_NAME_BYTES as MANI_MAX_NAME_BYTES
from ..limits import NO_BONE as MANI_NO_BONE
from ..limits import NO_TRACK as MANI_NO_TRACK
from . import _base, _blend, _build, _pose, _skeleton
from ._base import *  # noqa: F401,F403
from ._blend import *  # noqa: F401,F403
from ._build import *  # noqa: F401,F403
from ._pose import *  # noqa: F401,F403
from ._skeleton import *  # noqa: F401,F403

CONSTANTS = ["MANI_MAX_BONES", "MANI_MAX_NAME_BYTES", "MANI_NO_BONE", "MANI_NO_TRACK"]
__all__ = sorted(_base.__all__ + _build.__all__ + _skeleton.__all__ + _pose.__all__
                 + _blend.__all__)
