"""What the motion matching tests share: the staged database (built once a session), an
independent brute-force binary32 scan with the search's tie rule, and queries."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from numba import njit

from runtime import capi
from runtime.matching import MatchQuery
from runtime.samples import mocap

NO_FRAME = capi.MANI_NO_FRAME


def staged():
    if not mocap.available():
        pytest.skip("the staged mocap is not here")
    return _staged()


@lru_cache(maxsize=1)
def _staged():
    return mocap.staged_database()


@lru_cache(maxsize=4)
def frame_table(db):
    """Per frame (in frame order): features, entry, time; per entry: bias, tags, flags, end."""
    width = db.feature_count
    features = np.zeros((db.frame_count, width), np.float32)
    entries = np.zeros(db.frame_count, np.int64)
    times = np.zeros(db.frame_count, np.float32)
    for f in range(db.frame_count):
        capi.maniMotionDatabase_GetFeatures(db, f, features[f], width)
        entries[f], times[f] = capi.maniMotionDatabase_GetFrame(db, f)
    info = [capi.maniMotionDatabase_GetEntry(db, e) for e in range(db.entry_count)]
    bias = np.array([e.cost_bias for e in info], np.float32)
    tags = np.array([e.tags for e in info], np.int64)
    flags = np.array([e.flags for e in info], np.int64)
    ends = np.array([e.end for e in info], np.float32)
    return features, entries, times, bias, tags, flags, ends


@njit
def _scan(qn, features, entries, times, bias, tags, flags, ends, cont, cont_bias, trans, req,
          exc, end_exclusion, picks, history):
    """Every frame in order, the cost summed feature by feature in binary32."""
    best = np.float32(np.inf)
    best_frame = -1
    best_cont = False
    if cont >= 0:
        e = entries[cont]
        if (tags[e] & req) == req and (tags[e] & exc) == 0:
            acc = bias[e] + cont_bias
            for i in range(qn.size):
                d = qn[i] - features[cont, i]
                acc += d * d
            best, best_frame, best_cont = (np.float32(np.inf) if np.isnan(acc) else acc), cont, True
    for f in range(features.shape[0]):
        e = entries[f]
        if f == cont or (tags[e] & req) != req or (tags[e] & exc) != 0 or flags[e] & 1:
            continue
        if not flags[e] & 4 and times[f] > ends[e] - end_exclusion:
            continue
        out = False
        for p in picks:
            if entries[p] == e and abs(times[f] - times[p]) <= history:
                out = True
        if out:
            continue
        acc = bias[e] + trans
        for i in range(qn.size):
            d = qn[i] - features[f, i]
            acc += d * d
            if acc > best:
                break
        if np.isnan(acc):
            acc = np.float32(np.inf)
        if acc < best or (best_frame < 0 and not acc > best):
            best, best_frame, best_cont = acc, f, False
    return best_frame, best


@njit
def _scan_plain(qns, features, entries, times, bias, tags, flags, ends, frames, costs):
    """_scan of many queries without a continuing frame, tags or exclusions."""
    none = np.zeros(0, np.int64)
    for k in range(qns.shape[0]):
        frames[k], costs[k] = _scan(qns[k], features, entries, times, bias, tags, flags, ends,
                                    -1, np.float32(0), np.float32(0), 0, 0, np.float32(0),
                                    none, np.float32(0))


def brute_force_many(db, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """brute_force of plain queries (raw features, nothing else), all at once."""
    table = frame_table(db)
    with np.errstate(over="ignore"):
        qns = (np.asarray(queries, np.float32) - db.offsets) / db.scales
    frames = np.zeros(len(qns), np.int64)
    costs = np.zeros(len(qns), np.float32)
    _scan_plain(np.ascontiguousarray(qns), *table, frames, costs)
    return np.where(frames < 0, NO_FRAME, frames), costs


def brute_force(db, query: MatchQuery) -> tuple[int, float]:
    features, entries, times, bias, tags, flags, ends = frame_table(db)
    offsets, scales = np.zeros(db.feature_count, np.float32), np.zeros(db.feature_count, np.float32)
    capi.maniMotionDatabase_GetNormalization(db, offsets, scales, db.feature_count)
    with np.errstate(over="ignore"):
        qn = (np.asarray(query.features, np.float32) - offsets) / scales
    cont = -1 if query.continuing_frame == NO_FRAME else int(query.continuing_frame)
    frame, cost = _scan(qn, features, entries, times, bias, tags, flags, ends, cont,
                        np.float32(query.continuing_bias), np.float32(query.transition_cost),
                        int(query.required_tags), int(query.excluded_tags),
                        np.float32(query.end_exclusion), np.asarray(query.picks, np.int64).reshape(-1),
                        np.float32(query.history_time))
    return (NO_FRAME if frame < 0 else int(frame)), float(cost)


def raw_of(db, normalized: np.ndarray) -> np.ndarray:
    """Raw query values whose normalized values are about `normalized`."""
    offsets, scales = db.offsets.astype(np.float64), db.scales.astype(np.float64)
    return (normalized.astype(np.float64) * scales + offsets).astype(np.float32)


def random_queries(db, count: int, seed: int) -> np.ndarray:
    """Raw queries: most near a frame (noise of several sizes), some anywhere in the
    features' box, some far outside it."""
    features = frame_table(db)[0]
    rng = np.random.default_rng(seed)
    lo, hi = features.min(axis=0), features.max(axis=0)
    near = features[rng.integers(features.shape[0], size=count)]
    noise = rng.normal(size=near.shape) * rng.choice([0.0, 0.02, 0.2, 1.0], size=(count, 1))
    q = near + noise
    kind = rng.random(count)
    q[kind > 0.85] = (lo + (hi - lo) * rng.random(near.shape))[kind > 0.85]
    q[kind > 0.97] *= 5.0
    return raw_of(db, q)


def trajectory_queries(db, count: int, seed: int) -> np.ndarray:
    return mocap.trajectory_queries(db, count, seed)
