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


def vector(value, what: str, n: int = 3) -> list:
    """n finite numbers (within binary32) as a list of floats."""
    if isinstance(value, np.ndarray):
        items = value.tolist() if value.shape == (n,) and value.dtype.kind == "f" else None
    else:
        items = value if type(value) in _SEQUENCES and len(value) == n else None
    if items is not None and all(isinstance(v, float) and -F32_MAX <= v <= F32_MAX for v in items):
        return [float(v) for v in items]
    return args.floats(value, (n,), what, dtype=np.float64, within=np.float32).tolist()


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
