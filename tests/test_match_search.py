"""maniMotionDatabase_Search against an independent brute-force binary32 scan with the same
tie rule: on the staged database (100,000 random queries, 1,000 from predicted
trajectories), and on small databases for each rule: tags, no-jump entries, the end and
history exclusions, the continuing frame's bias, and ties."""
import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.matching import (MatchChannel, MatchChannelKind, MatchEntry, MatchEntryFlag,
                              MatchQuery, MatchResult, MotionDatabaseSource)

from hostile_world import World
from match_fixtures import NO_FRAME, brute_force, brute_force_many, random_queries, staged, trajectory_queries

WORLD = World()


def _agree(db, queries, **fields):
    wrong = []
    result = MatchResult()
    for k, q in enumerate(queries):
        query = MatchQuery(q, **fields)
        capi.maniMotionDatabase_Search(db, query, result)
        frame, cost = brute_force(db, query)
        if result.frame != frame or (frame != NO_FRAME and result.cost != np.float32(cost)):
            wrong.append((k, result.frame, frame, result.cost, cost))
    return wrong


def test_staged_random_queries_match_the_brute_force_every_one():
    db = staged().database
    queries = random_queries(db, 100_000, seed=1)
    want, want_cost = brute_force_many(db, queries)
    result, query = MatchResult(), MatchQuery(queries[0])
    got, got_cost = np.zeros(len(queries), np.int64), np.zeros(len(queries), np.float32)
    for k, q in enumerate(queries):
        query.features = q
        capi.maniMotionDatabase_Search(db, query, result)
        got[k], got_cost[k] = result.frame, result.cost
    wrong = np.flatnonzero((got != want) | (got_cost.view(np.uint32) != want_cost.view(np.uint32)))
    assert not wrong.size, f"{wrong.size} of {len(queries)} differ, first {wrong[:3]}"


def test_staged_trajectory_queries_match_the_brute_force_every_one():
    db = staged().database
    queries = trajectory_queries(db, 1000, seed=2)
    wrong = _agree(db, queries)
    assert not wrong, f"{len(wrong)} differ, first {wrong[:3]}"
    # and with the rules a controller uses: a continuing frame, costs, tags, exclusions
    rng = np.random.default_rng(3)
    for k in range(0, 1000, 50):
        fields = dict(continuing_frame=int(rng.integers(db.frame_count)),
                      continuing_bias=-0.5, transition_cost=0.3, required_tags=1,
                      end_exclusion=0.25, history_time=0.5,
                      picks=rng.integers(db.frame_count, size=8).tolist())
        assert not _agree(db, queries[k:k + 50], **fields)


def test_the_tree_prunes_most_frames():
    db = staged().database
    queries = trajectory_queries(db, 50, seed=4)
    costed = [capi.maniMotionDatabase_Search(db, MatchQuery(q)).costed for q in queries]
    assert np.median(costed) < db.frame_count / 5


# ---- each rule on small databases ---------------------------------------------------------------
def _database(entries, channels=None, **kw):
    K = MatchChannelKind
    channels = channels or [MatchChannel(K.bone_position, 5, (0.0, 0.25)),
                            MatchChannel(K.trajectory_position, 0, (0.2, 0.4))]
    source = MotionDatabaseSource(WORLD.skeleton, [WORLD.match_clip], entries, channels,
                                  rate=30.0, mirror_map=WORLD.mirror_map, leaf_size=2, **kw)
    return rt.MotionDatabase(rt.build_motion_database(rt.Builder(), source))


def _frame_query(db, frame, shift=0.0):
    row = capi.maniMotionDatabase_GetFeatures(db, frame, np.zeros(db.feature_count, np.float32),
                                              db.feature_count)
    assert row == db.feature_count
    features = db.frame_features(frame) + np.float32(shift)
    return (features.astype(np.float64) * db.scales + db.offsets).astype(np.float32)


def _search(db, q, **fields):
    query = MatchQuery(q, **fields)
    result = capi.maniMotionDatabase_Search(db, query)
    assert (result.frame, np.float32(result.cost) if result.frame != NO_FRAME else 0) == \
        ((lambda f, c: (f, np.float32(c) if f != NO_FRAME else 0))(*brute_force(db, query)))
    return result


def test_tags_filter_every_frame_but_the_continuing_ones_entry_tags_too():
    db = _database([MatchEntry(0, 0, 1, tags=1), MatchEntry(0, 0, 1, tags=3),
                    MatchEntry(0, 0, 1, tags=4, flags=MatchEntryFlag.mirrored)])
    first, count = db.entry_frames(1)
    q = _frame_query(db, first + 5)
    assert _search(db, q).entry in (0, 1)
    assert _search(db, q, required_tags=2).entry == 1
    assert _search(db, q, required_tags=4).entry == 2
    assert _search(db, q, excluded_tags=3).entry == 2
    assert _search(db, q, required_tags=8).frame == NO_FRAME
    # the continuing frame is a candidate only when its entry's tags pass
    r = _search(db, q, continuing_frame=first + 5, continuing_bias=-100.0, required_tags=4)
    assert r.entry == 2 and not r.continuing
    r = _search(db, q, continuing_frame=first + 5, continuing_bias=-100.0, required_tags=2)
    assert r.frame == first + 5 and r.continuing


def test_no_jump_entries_are_only_continued():
    db = _database([MatchEntry(0, 0, 1), MatchEntry(0, 0, 1, cost_bias=-50.0,
                                                    flags=MatchEntryFlag.no_jump)])
    first, _ = db.entry_frames(1)
    q = _frame_query(db, first + 4)
    assert _search(db, q).entry == 0
    r = _search(db, q, continuing_frame=first + 4)
    assert r.frame == first + 4 and r.continuing and r.cost < -49


def test_end_and_history_exclusions():
    db = _database([MatchEntry(0, 0, 1)])
    last = db.frame_count - 1
    q = _frame_query(db, last)
    assert _search(db, q).frame == last
    r = _search(db, q, end_exclusion=0.2)
    assert r.frame != last and r.time <= 1.0 - 0.2
    mid = 12
    q = _frame_query(db, mid)
    assert _search(db, q).frame == mid
    r = _search(db, q, picks=[mid], history_time=0.1)
    assert abs(r.time - db.frame(mid)[1]) > 0.1
    r = _search(db, q, picks=[mid], history_time=0.0)
    assert r.frame != mid
    # the continuing frame is not excluded by either
    r = _search(db, q, continuing_frame=mid, picks=[mid], history_time=0.5, end_exclusion=5.0)
    assert r.frame == mid and r.continuing


def test_continuing_bias_and_transition_cost():
    db = _database([MatchEntry(0, 0, 1)])
    q = _frame_query(db, 10, shift=0.01)
    exact = _search(db, q)
    assert exact.frame == 10
    # the continuing frame 20 wins once its bias pays for its distance
    far = _search(db, q, continuing_frame=20)
    assert far.frame == 10
    gap = np.float32(_search(db, _frame_query(db, 10, 0.01), continuing_frame=20,
                             transition_cost=1e6).cost)
    assert gap < 1e6
    won = _search(db, q, continuing_frame=20, transition_cost=float(gap) + 1.0)
    assert won.frame == 20 and won.continuing
    assert _search(db, q, continuing_frame=20, continuing_bias=-1e6).frame == 20


def test_ties_go_to_the_continuing_frame_then_the_lowest_frame():
    # two entries over the same span have the same features frame for frame
    db = _database([MatchEntry(0, 0, 1), MatchEntry(0, 0, 1)])
    first, count = db.entry_frames(1)
    assert np.array_equal(db.frame_features(3), db.frame_features(first + 3))
    q = _frame_query(db, first + 3)
    assert _search(db, q).frame == 3
    r = _search(db, q, continuing_frame=first + 3)
    assert r.frame == first + 3 and r.continuing
    # with the continuing frame's tie bought by the transition: still the continuing frame
    r = _search(db, q, continuing_frame=first + 3, continuing_bias=0.5, transition_cost=0.5)
    assert r.frame == first + 3
    # a cost bias tips it
    db = _database([MatchEntry(0, 0, 1, cost_bias=0.25), MatchEntry(0, 0, 1)])
    assert _search(db, _frame_query(db, 3)).frame == first + 3


def test_overflowing_costs_still_find_the_lowest_frame():
    db = _database([MatchEntry(0, 0, 1)])
    q = np.full(db.feature_count, 3e38, np.float32)
    r = _search(db, q)
    assert r.frame == 0 and r.cost == float("inf")


def test_costs_that_come_to_nan_count_as_infinite():
    db = _database([MatchEntry(0, 0, 1, cost_bias=-3e38), MatchEntry(0, 0, 1, cost_bias=1.0)])
    q = np.full(db.feature_count, 3e38, np.float32)
    first, _ = db.entry_frames(1)
    r = _search(db, q, transition_cost=-3e38)      # -inf + inf in entry 0: NaN, so inf
    assert r.frame == 0 and r.cost == float("inf")
    r = _search(db, q, continuing_frame=first, continuing_bias=-3e38)
    assert r.frame == first and r.continuing


@pytest.mark.parametrize("seed", range(3))
def test_random_small_databases_with_every_rule(seed):
    rng = np.random.default_rng(seed)
    entries = [MatchEntry(0, float(a), float(a + rng.uniform(0.1, 0.5)), tags=int(rng.integers(8)),
                          cost_bias=float(rng.normal(0, 0.5)),
                          flags=int(rng.choice([0, 1, 2, 3]))) for a in rng.uniform(0, 0.5, 6)]
    db = _database(entries)
    for q in random_queries(db, 300, seed):
        fields = dict(continuing_frame=int(rng.choice([NO_FRAME, rng.integers(db.frame_count)])),
                      continuing_bias=float(rng.normal()), transition_cost=float(rng.normal()),
                      required_tags=int(rng.choice([0, 1, 2])),
                      excluded_tags=int(rng.choice([0, 4])), end_exclusion=float(rng.uniform(0, 0.2)),
                      history_time=float(rng.uniform(0, 0.2)),
                      picks=rng.integers(db.frame_count, size=int(rng.integers(4))).tolist())
        _search(db, q, **fields)
