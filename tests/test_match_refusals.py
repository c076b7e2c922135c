"""Every refusal of maniBuildMotionDatabase's and maniMotionDatabase_Search's Returns lines:
the error, the reason, item and other, and the outputs unchanged (the builder keeps the
file it held, a result given stays as it was)."""
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.core.errors import BuildReason as R
from runtime.matching import MatchChannel, MatchChannelKind, MatchEntry, MatchEntryFlag, MatchResult

from hostile_world import World

WORLD = World()
K = MatchChannelKind


def _refused(source, error, reason, item=0, other=0):
    b = rt.Builder()
    capi.maniBuildSkeleton(b, WORLD.skeleton_source)
    held = bytes(capi.maniBuilder_CopyBuilt(b))
    with pytest.raises(error) as e:
        capi.maniBuildMotionDatabase(b, source)
    assert (e.value.reason, e.value.item, e.value.other) == (reason, item, other), e.value
    assert bytes(capi.maniBuilder_CopyBuilt(b)) == held
    assert capi.maniBuilder_GetMisuse(b) == 0


def _with(**changes):
    return replace(WORLD.match_source, **changes)


def _channel(i, **changes):
    channels = list(WORLD.match_source.channels)
    channels[i] = replace(channels[i], **changes)
    return _with(channels=channels)


def _entry(i, **changes):
    entries = list(WORLD.match_source.entries)
    entries[i] = replace(entries[i], **changes)
    return _with(entries=entries)


def test_the_source_builds():
    b = rt.Builder()
    capi.maniBuildMotionDatabase(b, WORLD.match_source)
    assert capi.maniOpenMotionDatabase(capi.maniBuilder_CopyBuilt(b)).frame_count == 78


def test_timing_and_options():
    for rate in (0.0, -30.0, float("nan"), float("inf"), "30"):
        _refused(_with(rate=rate), rt.InvalidError, R.Timing)
    _refused(_with(rate=241.0), rt.LimitError, R.Timing)
    for up, forward in ((1, 1), (3, 2), (-1, 2), (1, 1.0)):
        _refused(_with(up_axis=up, forward_axis=forward), rt.InvalidError, R.Option)
    for leaf in (0, 1025, 2.0):
        _refused(_with(leaf_size=leaf), rt.InvalidError, R.Option, 1 if leaf != 2.0 else 0)


def test_counts():
    for field in ("channels", "clips", "entries"):
        _refused(_with(**{field: []}), rt.InvalidError, R.Count)
        _refused(_with(**{field: None}), rt.InvalidError, R.Count)
    _refused(_with(channels=WORLD.match_source.channels * 13), rt.LimitError, R.Count)
    _refused(_with(entries=[WORLD.match_source.entries[0]] * 65537), rt.LimitError, R.Count)
    _refused(_with(clips=[WORLD.match_clip] * 4097), rt.LimitError, R.Count)
    many = MatchChannel(K.bone_position, 5, tuple(np.linspace(0, 1, 16)))
    _refused(_with(channels=[many] * 6), rt.LimitError, R.Count)          # 288 features
    long_clip = _with(rate=240.0, entries=[MatchEntry(0, 0.0, 1.0)] * 17477)  # 4,194,721 frames
    _refused(long_clip, rt.LimitError, R.Count)


def test_clips():
    additive = rt.Clip(rt.build_clip(rt.Builder(), replace(WORLD.clip_source, additive=1)))
    _refused(_with(clips=[WORLD.match_clip, additive]), rt.InvalidError, R.Joint, 1)
    from runtime.samples.humanoid import humanoid_source
    sk5 = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(5)))
    times = np.array([0.0, 1.0])
    foreign = rt.Clip(rt.build_clip(rt.Builder(), rt.ClipSource(
        sk5, [rt.ChannelSource(0, rt.ChannelPath.translation, times, [[0, 0, 0], [1, 0, 0]])])))
    _refused(_with(clips=[WORLD.match_clip, foreign]), rt.InvalidError, R.Joint, 1)
    _refused(_with(clips=[WORLD.match_clip, "clip"]), rt.InvalidError, R.Joint, 1)


def test_channels():
    bad = [dict(kind=9), dict(kind=1.0), dict(bone=12), dict(bone=-1), dict(times=()),
           dict(times=(float("nan"),)), dict(times="0"), dict(weight=0.0), dict(weight=-1.0),
           dict(weight=float("inf")), dict(weight=1e39), dict(track="smile")]
    for changes in bad:
        _refused(_channel(1, **changes), rt.InvalidError, R.Channel, 1)
    for changes in (dict(track=None), dict(track=""), dict(track=b"\xff"), dict(track=7)):
        _refused(_channel(4, **changes), rt.InvalidError, R.Channel, 4)
    _refused(_channel(0, times=tuple(np.linspace(0, 1, 17))), rt.LimitError, R.Channel, 0)
    _refused(_channel(2, times=(0.5, 10.5)), rt.LimitError, R.Channel, 2)
    _refused(_channel(4, track="s" * 256), rt.LimitError, R.Channel, 4)
    _refused(_with(channels=list(WORLD.match_source.channels) + ["x"]), rt.InvalidError,
             R.Channel, 5)


def test_entries():
    bad = [dict(clip=1), dict(clip=-1), dict(start=-0.1), dict(end=1.5), dict(start=0.6, end=0.5),
           dict(start=float("nan")), dict(tags=-1), dict(tags=1 << 32), dict(cost_bias=float("inf")),
           dict(flags=8), dict(flags=MatchEntryFlag.loops), dict(clip=0.0)]
    for changes in bad:
        _refused(_entry(2, **changes), rt.InvalidError, R.Entry, 2)
    _refused(_with(entries=list(WORLD.match_source.entries) + [3]), rt.InvalidError, R.Entry, 3)


def test_tracks_spread_and_mirroring():
    _refused(_channel(4, track="wink"), rt.InvalidError, R.MissingTrack, 4, 0)
    # the mirrored entry needs the track the map pairs "smile" with: "frown"
    plain = WORLD.plain_clip
    _refused(_with(clips=[WORLD.match_clip, plain],
                   entries=[MatchEntry(0, 0.0, 1.0), MatchEntry(1, 0.0, 0.5, flags=2)]),
             rt.InvalidError, R.MissingTrack, 4, 1)
    # the root-motion bone never leaves the root's space
    _refused(_with(channels=[WORLD.match_source.channels[0],
                             MatchChannel(K.bone_position, 0)]), rt.InvalidError, R.Spread, 1)
    _refused(_with(mirror_map=None), rt.InvalidError, R.MirrorDatabase, 1)
    _refused(_with(mirror_map="map"), rt.InvalidError, R.MirrorDatabase, 0)
    from runtime.mapping import MirrorMap, MirrorMapSource
    from runtime.samples.humanoid import humanoid_source
    sk5 = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(5)))
    other = MirrorMap(rt.build_mirror_map(rt.Builder(), MirrorMapSource(sk5)))
    _refused(_with(mirror_map=other), rt.InvalidError, R.MirrorDatabase, 0)


def test_misuse_is_counted():
    b = rt.Builder()
    with pytest.raises(rt.InvalidError):
        capi.maniBuildMotionDatabase(b, None)
    with pytest.raises(rt.InvalidError):
        capi.maniBuildMotionDatabase(b, replace(WORLD.match_source, skeleton=None))
    assert capi.maniBuilder_GetMisuse(b) == 2
    with pytest.raises(rt.InvalidError):
        capi.maniBuildMotionDatabase(None, WORLD.match_source)


# ---- the search ----------------------------------------------------------------------------------
def test_search_refusals_leave_the_result_unchanged():
    db = WORLD.database
    good = WORLD.match_query()
    out = MatchResult(frame=12345, entry=6, time=7.0, cost=8.0, continuing=True, costed=9)
    before = dict(out.__dict__)
    nan = good.features.copy()
    nan[3] = np.nan
    cases = [
        (replace(good, picks=list(range(65))), rt.LimitError),
        (replace(good, features=nan), rt.InvalidError),
        (replace(good, features=good.features[:-1]), rt.InvalidError),
        (replace(good, features=good.features.astype(np.float64) * 1e39), rt.InvalidError),
        (replace(good, continuing_bias=float("inf")), rt.InvalidError),
        (replace(good, transition_cost=float("nan")), rt.InvalidError),
        (replace(good, end_exclusion=-0.1), rt.InvalidError),
        (replace(good, history_time=-1.0), rt.InvalidError),
        (replace(good, continuing_frame=db.frame_count), rt.InvalidError),
        (replace(good, picks=[db.frame_count]), rt.InvalidError),
        (replace(good, picks=[-1]), rt.InvalidError),
        (replace(good, picks=[0.5]), rt.InvalidError),
        (replace(good, required_tags=-1), rt.InvalidError),
        (replace(good, excluded_tags=1 << 32), rt.InvalidError),
    ]
    for query, error in cases:
        with pytest.raises(error):
            capi.maniMotionDatabase_Search(db, query, out)
        assert out.__dict__ == before, query
    for args in ((None, good), (db, None), (db, good, "result")):
        with pytest.raises(rt.InvalidError):
            capi.maniMotionDatabase_Search(*args)
    assert out.__dict__ == before
    capi.maniMotionDatabase_Search(db, replace(good, picks=list(range(64))), out)
    assert out.frame != 12345


POOL = [None, 1.5, -1, 2 ** 64, 10 ** 400, float("nan"), float("inf"), 1e39, np.int64(1),
        np.float32(0.5), True, "x", b"\xff", [], [0] * 7, [[1.0]], (1, 2, 3), object(), {},
        np.zeros((0,)), np.array(3.0), list(range(100))]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["channel", "entry", "query", "source"]), st.integers(0, 10),
       st.sampled_from(POOL))
def test_hostile_fields_are_refused_with_mani_errors(where, which, value):
    """Any field of a channel, an entry, a query or the source set to a hostile value: the
    build or search refuses with a ManiError or works, nothing else escapes."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            if where == "channel":
                names = ["kind", "bone", "times", "weight", "track"]
                _build(_channel(which % 5, **{names[which % 5]: value}))
            elif where == "entry":
                names = ["clip", "start", "end", "tags", "cost_bias", "flags"]
                _build(_entry(which % 3, **{names[which % 6]: value}))
            elif where == "source":
                names = ["clips", "entries", "channels", "rate", "mirror_map", "up_axis",
                         "forward_axis", "leaf_size"]
                _build(_with(**{names[which % 8]: value}))
            else:
                names = ["features", "continuing_frame", "continuing_bias", "transition_cost",
                         "required_tags", "excluded_tags", "end_exclusion", "history_time",
                         "picks"]
                capi.maniMotionDatabase_Search(
                    WORLD.database, replace(WORLD.match_query(), **{names[which % 9]: value}))
        except rt.ManiError:
            pass


def _build(source):
    capi.maniBuildMotionDatabase(rt.Builder(), source)
