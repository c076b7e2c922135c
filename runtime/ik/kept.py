"""A solve description checked once and kept: what its front door converted (the kernel's
arguments, already normalised), reused while the description is the one it was.

The solvers are stateless (ik.h, bodyik.h): the same description solves the same way
every call, so converting it again each frame only costs time. A description's class takes
`Kept`, which forgets what it kept whenever one of its fields is set; the records it holds
(limits, effectors, bone settings) take `Part`, whose every edit makes every kept
description check afresh. A value that can change without a field being set (a list, an
array) is kept only as a copy compared by value on each call (`snapshot`), or, where that
cannot be told cheaply (an array), not at all: the description is then converted each
call, as it was before anything was kept.
"""
from __future__ import annotations

from enum import IntEnum

import numpy as np

_EDITS = [0]        # edits of any Part, ever: a kept description made before one is stale
_SCALARS = (int, float, bool, np.float64, np.float32, np.int64, np.int32, type(None))
UNSEEN = object()   # snapshot's answer for a value that can change unseen


class Kept:
    """A description that keeps its conversion until a field is set."""

    _kept = None

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        object.__setattr__(self, "_kept", None)

    def kept(self, skeleton, *lists):
        """What was kept for this skeleton, or None; `lists` the description's mutable
        values, each compared with its snapshot."""
        k = self._kept
        if k is None or k[0] is not skeleton or k[1] != _EDITS[0]:
            return None
        try:
            same = bool(k[2] == lists)
        except Exception:       # an item put in a list whose comparison fails: convert anew
            same = False
        return k[3] if same else None

    def keep(self, skeleton, lists, fields, value):
        """Keeps `value` (the conversion) when every one of `lists` has a snapshot and every
        one of the other `fields` can change only by being set."""
        snaps = tuple(snapshot(v) for v in lists)
        if all(s is not UNSEEN for s in snaps) and all(_frozen(v) for v in fields):
            object.__setattr__(self, "_kept", (skeleton, _EDITS[0], snaps, value))
        return value


class Part:
    """A record a description holds: any edit invalidates every kept description."""

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        _EDITS[0] += 1


def _frozen(value) -> bool:
    if type(value) in _SCALARS or isinstance(value, IntEnum):
        return True
    if isinstance(value, Part):
        return all(_frozen(v) for v in vars(value).values())
    return type(value) is tuple and all(_frozen(v) for v in value)


def snapshot(value):
    """A copy of `value` that compares equal to it while it is unchanged (a list as a list,
    a tuple as itself), or UNSEEN when it holds something that can change unseen."""
    if type(value) is list:
        return list(value) if all(_frozen(v) for v in value) else UNSEEN
    return value if _frozen(value) else UNSEEN
