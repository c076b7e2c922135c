"""maniMotionDatabase_Search: the frame of least cost, exactly, through the k-d tree.

A frame's cost is its entry's cost bias plus the transition cost (the continuing frame: the
continuing bias instead), plus the squared differences of the normalized query and its
features in feature order, all binary32 (kernels.py says why the tree's pruning never
changes the answer). The continuing frame is a candidate when its entry's tags pass; any
other frame when its entry's tags pass (every required tag, no excluded one), its entry is
not no-jump, it is not within `end_exclusion` seconds of a non-looping entry's end, and it
is not within `history_time` seconds of a pick of its entry. Ties go to the continuing
frame, then to the lowest frame.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core import args, jit
from ..core.errors import InvalidError, LimitError
from .database import MotionDatabase, opened
from .kernels import NOT_FINITE, search_tree
from .limits import MAX_MATCH_HISTORY, NO_FRAME

_F32_MAX = float(np.finfo(np.float32).max)


@dataclass
class MatchQuery:
    """maniMatchQuery: the query's raw feature values (as the database's channels measure
    them, not normalized), the continuing frame (NO_FRAME for none) and what it and the
    others cost beyond their distance, the tag filters, and the exclusions."""

    features: Any
    continuing_frame: int = NO_FRAME
    continuing_bias: float = 0.0
    transition_cost: float = 0.0
    required_tags: int = 0
    excluded_tags: int = 0
    end_exclusion: float = 0.0
    history_time: float = 0.0
    picks: Any = ()


@dataclass
class MatchResult:
    """maniMatchResult: the frame found (NO_FRAME when no frame is a candidate), its entry
    (NO_FRAME then too) and clip time, its cost (inf then), whether it is the continuing
    frame, and how many frames were costed."""

    frame: int = NO_FRAME
    entry: int = NO_FRAME
    time: float = 0.0
    cost: float = float("inf")
    continuing: bool = False
    costed: int = 0


_NO_PICKS = jit.array(np.zeros(0, np.int64), np.int64)


def _features(value, width: int) -> np.ndarray:
    """The query's features as the kernel's one array type (whose finiteness the kernel
    checks: a binary32 array of the right shape passes straight through)."""
    if not (isinstance(value, np.ndarray) and value.dtype == np.float32
            and value.shape == (width,)):
        value = args.floats(value, (width,), "query features")
    return jit.array(value, np.float32)


def _cost(value, what: str) -> float:
    """A cost finite in binary32 (the kernel rounds it, as np.float32 would)."""
    if type(value) is float and abs(value) <= _F32_MAX:        # the common case, quickly
        return value
    return args.finite32(value, what)


def _time(value, what: str) -> float:
    if type(value) is float and 0.0 <= value <= _F32_MAX:
        return value
    v = args.finite32(value, what)
    if v < 0:
        raise InvalidError(f"{what} {v} is negative")
    return v


def _tags(value, what: str) -> int:
    t = value if type(value) is int else args.integer(value, what)
    if not 0 <= t < 1 << 32:
        raise InvalidError(f"{what} must be a uint32")
    return t


def _picks(value, frames: int) -> np.ndarray:
    if value is None or (isinstance(value, (list, tuple)) and not value):
        return _NO_PICKS
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        raise InvalidError("picks must be a list of frames")
    try:
        raw = np.asarray(value)
    except (ValueError, TypeError, OverflowError):
        raise InvalidError("picks must be a list of frames") from None
    if raw.ndim != 1 or (raw.size and raw.dtype.kind not in "iu"):
        raise InvalidError("picks must be a list of frames")
    if raw.size > MAX_MATCH_HISTORY:
        raise LimitError(f"{raw.size} picks past MAX_MATCH_HISTORY")
    if raw.size and not ((raw >= 0) & (raw < frames)).all():
        raise InvalidError("a pick past the frames")
    return jit.array(raw, np.int64)


def search(database: MotionDatabase, query: MatchQuery, out: MatchResult | None = None) -> MatchResult:
    """maniMotionDatabase_Search; the result into `out` when given (unchanged on refusal)."""
    db = opened(database)
    if not isinstance(query, MatchQuery):
        raise InvalidError("query must be a MatchQuery")
    if out is not None and not isinstance(out, MatchResult):
        raise InvalidError("result must be a MatchResult")
    features = _features(query.features, db.feature_count)
    continuing = query.continuing_frame
    if type(continuing) is not int:
        continuing = args.integer(continuing, "continuing frame")
    if continuing == NO_FRAME:
        continuing = -1
    elif not 0 <= continuing < db.frame_count:
        raise InvalidError(f"continuing frame {continuing} past the frames")
    continuing_bias = _cost(query.continuing_bias, "continuing bias")
    transition = _cost(query.transition_cost, "transition cost")
    required = _tags(query.required_tags, "required tags")
    excluded = _tags(query.excluded_tags, "excluded tags")
    end_exclusion = _time(query.end_exclusion, "end exclusion")
    history_time = _time(query.history_time, "history time")
    picks = _picks(query.picks, db.frame_count)
    frame, cost, costed = search_tree(
        features, db.norm, db.features, db.frames, db.frame_time, db.entry_reals,
        db.entry_ints, db.node_links, db.node_bias, db.boxes, picks, continuing,
        continuing_bias, transition, required, excluded, end_exclusion, history_time)
    if frame == NOT_FINITE:
        raise InvalidError("a query feature not finite")
    result = out if out is not None else MatchResult()
    if frame < 0:
        result.frame = result.entry = NO_FRAME
        result.time, result.cost, result.continuing = 0.0, float("inf"), False
    else:
        result.frame = int(frame)
        result.entry = int(db.frame_entry[frame])
        result.time = float(db.frame_time[frame])
        result.cost = float(cost)
        result.continuing = frame == continuing
    result.costed = int(costed)
    return result

