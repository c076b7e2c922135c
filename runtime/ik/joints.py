"""Joint limits for the chain solvers (CCD, FABRIK): each bounds one bone's local rotation,
measured from its rest rotation (the turn rest^-1 q, in the bone's own frame).

A bone's axis is the direction to the next bone of the chain in its rest frame (the end's,
toward no child, continues its parent's line). A bone may carry several limits; they act in
their order, each time the solver turns the bone and once more at the end of the solve.

- HingeLimit: the bone turns about `axis` only (its own frame), by an angle in
  [minimum, maximum]; an axis along the bone's is refused (a hinge must bend it).
- ConeLimit: the bone's swing off its axis is at most `maximum`; its twist is kept.
- TwistLimit: the bone's twist about its axis lies in [minimum, maximum]; its swing is kept.

Angles are radians within [-pi, pi] (a cone's within [0, pi]), minimum <= maximum."""
from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum
from typing import Sequence

import numpy as np

from ..core.errors import InvalidError
from . import entry
from .kept import Part


class LimitKind(IntEnum):
    """maniIkLimitKind."""

    hinge = 0
    cone = 1
    twist = 2


@dataclass
class HingeLimit(Part):
    bone: int
    axis: Sequence[float] = (0.0, 0.0, 1.0)
    minimum: float = -math.pi
    maximum: float = math.pi


@dataclass
class ConeLimit(Part):
    bone: int
    maximum: float = math.pi


@dataclass
class TwistLimit(Part):
    bone: int
    minimum: float = -math.pi
    maximum: float = math.pi


KINDS = {HingeLimit: LimitKind.hinge, ConeLimit: LimitKind.cone, TwistLimit: LimitKind.twist}


def _angle(value, low: float, what: str) -> float:
    v = entry.number(value, what)
    if not low <= v <= math.pi:
        raise InvalidError(f"{what} {v} out of range")
    return v


def packed(skeleton, limits) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The limits as the chain kernel reads them: kinds, bones, data (axis 3, low, high)."""
    if limits is None:
        limits = ()
    if not isinstance(limits, (list, tuple)):
        raise InvalidError(f"limits must be a list of limits, not {type(limits).__name__}")
    n = len(limits)
    kinds, bones, data = np.empty(n, np.int64), np.empty(n, np.int64), np.zeros((n, 5))
    for i, limit in enumerate(limits):
        kind = KINDS.get(type(limit))
        if kind is None:
            raise InvalidError(f"limits[{i}] is a limit of an unknown kind "
                               f"({type(limit).__name__})")
        what = f"limits[{i}]"
        bones[i] = entry.bone(limit.bone, skeleton, f"{what}.bone")
        kinds[i] = kind
        if kind == LimitKind.hinge:
            axis = np.array(entry.vector(limit.axis, f"{what}.axis"))
            size = float(np.sqrt(axis @ axis))
            if not size > 1e-6:
                raise InvalidError(f"{what}.axis has no length")
            data[i, :3] = axis / size
        low = 0.0 if kind == LimitKind.cone else _angle(limit.minimum, -math.pi, f"{what}.minimum")
        high = _angle(limit.maximum, 0.0 if kind == LimitKind.cone else -math.pi, f"{what}.maximum")
        if low > high:
            raise InvalidError(f"{what}: minimum above maximum")
        data[i, 3:] = low, high
    return kinds, bones, data


