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

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core import args, jit
from ..core.errors import InvalidError, LimitError
from .database import MotionDatabase, opened
from .kernels import STACK, search_tree
from .limits import MAX_MATCH_HISTORY, NO_FRAME


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


@dataclass
class _Scratch:
    qn: np.ndarray
    stack: np.ndarray = field(default_factory=lambda: np.zeros(STACK, np.int64))
    bound: np.ndarray = field(default_factory=lambda: np.zeros(STACK, np.float32))


_NO_PICKS = jit.array(np.zeros(0, np.int64), np.int64)


def _scratch(db: MotionDatabase) -> _Scratch:
    s = db.__dict__.get("_search_scratch")
    if s is None:
        s = db._search_scratch = _Scratch(np.zeros(db.feature_count, np.float32))
    return s


def _features(value, width: int) -> np.ndarray:
    if isinstance(value, np.ndarray) and value.dtype == np.float32 and value.shape == (width,) \
            and value.flags.c_contiguous:
        if not np.isfinite(value).all():
            raise InvalidError("a query feature not finite")
        return jit.array(value, np.float32)
    return jit.array(args.floats(value, (width,), "query features"), np.float32)


def _cost(value, what: str) -> np.float32:
    v = args.finite32(value, what)
    return np.float32(v)


def _time(value, what: str) -> np.float32:
    v = args.finite32(value, what)
    if v < 0:
        raise InvalidError(f"{what} {v} is negative")
    return np.float32(v)


def _tags(value, what: str) -> int:
    t = args.integer(value, what)
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
    continuing = args.integer(query.continuing_frame, "continuing frame")
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
    s = _scratch(db)
    frame, cost, costed = search_tree(
        features, db.offsets, db.scales, db.features, db.slot_frame, db.frame_slot,
        db.frame_entry, db.frame_time, db.entry_bias, db.entry_tags, db.entry_flags,
        db.entry_end, db.node_links, db.node_bias, db.boxes, continuing, continuing_bias,
        transition, required, excluded, end_exclusion, picks, history_time, s.qn, s.stack,
        s.bound)
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

