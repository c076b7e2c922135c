"""What every solve's front door does before its kernel: the pose and skeleton checked, and
the solve's numbers converted (through core.args) into plain binary64 values.

The vectors take a fast path for what callers pass each frame (a tuple, list or array of
three finite numbers); anything else goes through core.args.floats, which refuses it or
converts it the same way. A value past the binary32 range counts as not finite, as it would
in the C structs."""
from __future__ import annotations

import numpy as np

from ..core import args
from ..core.errors import InvalidError
from ..pose.pose import Pose
from ..pose.skeleton import opened

F32_MAX = args.F32_MAX
_SEQUENCES = (tuple, list)


def target(pose, skeleton):
    """The pose's locals to solve on, after the checks every solver's Returns line lists."""
    skeleton = opened(skeleton)
    if not isinstance(pose, Pose):
        raise InvalidError("pose is not a pose")
    if not pose.of(skeleton):
        raise InvalidError("pose is a pose of another skeleton")
    if pose.is_difference:
        raise InvalidError("pose is a difference")
    if not pose.buffer.flags.writeable:
        raise InvalidError("pose is read-only")
    skeleton.check_parents()
    return pose.locals


def bone(value, skeleton, what: str) -> int:
    if type(value) is int and 0 <= value < skeleton.bone_count:
        return value
    b = args.integer(value, what)
    if not 0 <= b < skeleton.bone_count:
        raise InvalidError(f"{what} {b} is out of range")
    return b


def _plain(items) -> bool:
    for v in items:
        if not (isinstance(v, float) and -F32_MAX <= v <= F32_MAX):
            return False
    return True


def vector(value, what: str, n: int = 3) -> list:
    """n finite numbers (within binary32) as a list of floats."""
    if type(value) in _SEQUENCES and len(value) == n:
        if n == 3:
            x, y, z = value
            if (isinstance(x, float) and isinstance(y, float) and isinstance(z, float)
                    and -F32_MAX <= x <= F32_MAX and -F32_MAX <= y <= F32_MAX
                    and -F32_MAX <= z <= F32_MAX):
                return [float(x), float(y), float(z)]
        elif _plain(value):
            return [float(v) for v in value]
    elif isinstance(value, np.ndarray) and value.shape == (n,) and value.dtype.kind == "f":
        items = value.tolist()
        if _plain(items):
            return items
    return args.floats(value, (n,), what, dtype=np.float64, within=np.float32).tolist()


def vectors(value, what: str) -> list:
    """A list of finite numbers (within binary32), any count, as floats."""
    if type(value) in _SEQUENCES and _plain(value):
        return [float(v) for v in value]
    return args.floats(value, (-1,), what, dtype=np.float64, within=np.float32).tolist()


def number(value, what: str) -> float:
    """A finite number (within binary32) as a float."""
    if isinstance(value, float) and -F32_MAX <= value <= F32_MAX:
        return float(value)
    return args.finite32(value, what)


def fraction(value, what: str) -> float:
    """A number in [0, 1]."""
    if type(value) is float and 0.0 <= value <= 1.0:
        return value
    v = args.real(value, what)
    if not 0.0 <= v <= 1.0:
        raise InvalidError(f"{what} must lie in [0, 1], not {v}")
    return v
