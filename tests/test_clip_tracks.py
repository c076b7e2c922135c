"""Float tracks, discrete tracks, events and sync markers."""
import math

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.clip.clip import ClipEvent
from runtime.clip.cursor import ClipCursor

from test_clip_fixtures import (STEP, ChannelSource, ClipSource, DiscreteTrackSource,
                                FloatTrackSource, T, build, grid, linear_keys, open_clip,
                                rich_source, small_skeleton)


@pytest.fixture(scope="module")
def sk():
    return small_skeleton()


@pytest.fixture(scope="module")
def clip(sk):
    return open_clip(rich_source(sk, np.random.default_rng(1)))


# ---- float tracks ---------------------------------------------------------------------------------
def test_float_track_names_and_find(clip):
    assert [capi.maniClip_GetFloatTrackName(clip, k) for k in range(4)] == ["smile", "blink", "curve", None]
    assert capi.maniClip_FindFloatTrack(clip, "blink") == 1
    assert capi.maniClip_FindFloatTrack(clip, b"curve") == 2
    assert capi.maniClip_FindFloatTrack(clip, "blinks") == rt.NO_TRACK
    assert capi.maniClip_FindFloatTrack(clip, None) == rt.NO_TRACK
    assert capi.maniClip_GetFloatTrackName(clip, -1) is None


def test_linear_tracks_interpolate_and_step_tracks_hold(sk):
    times = [0.0, 0.3, 0.55, 1.0]
    src = ClipSource(sk, [], [FloatTrackSource("lin", times, [0.0, 3.0, -1.0, 2.0]),
                              FloatTrackSource("step", times, [5.0, 6.0, 7.0, 8.0], STEP)],
                     sample_rate=10)
    clip = open_clip(src)
    g = grid(clip)
    for t in np.linspace(-0.5, 1.5, 81):
        values = capi.maniClip_SampleFloats(clip, t)
        tc = min(max(t, 0.0), 1.0)
        k = min(int(np.searchsorted(g, tc, side="right")) - 1, len(g) - 2)
        f = (tc - g[k]) / (g[k + 1] - g[k])
        a, b = linear_keys(times, [0, 3, -1, 2], g[k]), linear_keys(times, [0, 3, -1, 2], g[k + 1])
        assert values[0] == pytest.approx(a + f * (b - a), abs=1e-6)
        # the step track holds the sample at or before the time
        held = g[k + 1] if tc >= g[k + 1] else g[k]
        want = [5.0, 6.0, 7.0, 8.0][int(np.searchsorted(times, held, side="right")) - 1]
        assert values[1] == want, (t, held)
    np.testing.assert_array_equal(capi.maniClip_SampleFloats(clip, math.nan),
                                  capi.maniClip_SampleFloats(clip, 0.0))
    assert capi.maniClip_SampleFloats(clip, 1.0)[1] == 8.0


def test_sample_floats_into_an_array_and_capacity(clip):
    out = np.full(5, -1.0, dtype=np.float32)
    result = capi.maniClip_SampleFloats(clip, 0.7, out)
    assert result is out and out[3:].tolist() == [-1.0, -1.0]
    np.testing.assert_array_equal(out[:3], capi.maniClip_SampleFloats(clip, 0.7))
    short = np.full(2, -1.0, dtype=np.float32)
    with pytest.raises(rt.CapacityError) as e:
        capi.maniClip_SampleFloats(clip, 0.7, short)
    assert e.value.count == 3 and short.tolist() == [-1.0, -1.0]
    for bad in (None, object()):
        with pytest.raises(rt.InvalidError):
            capi.maniClip_SampleFloats(bad, 0.7)
    with pytest.raises(rt.InvalidError):
        capi.maniClip_SampleFloats(clip, 0.7, [0.0, 0.0, 0.0])


def test_cursor_sample_floats(clip):
    cursor = ClipCursor.for_clip(clip)
    rng = np.random.default_rng(2)
    for t in rng.uniform(-0.2, 1.8, 50):
        np.testing.assert_array_equal(capi.maniClipCursor_SampleFloats(cursor, clip, t),
                                      capi.maniClip_SampleFloats(clip, t))
    with pytest.raises(rt.CapacityError) as e:
        capi.maniClipCursor_SampleFloats(cursor, clip, 0.1, np.zeros(1, np.float32))
    assert e.value.count == 3
    with pytest.raises(rt.InvalidError):
        capi.maniClipCursor_SampleFloats(None, clip, 0.1)
    with pytest.raises(rt.InvalidError):
        capi.maniClipCursor_SampleFloats(cursor, None, 0.1)
    tiny = ClipCursor(None, 64 + 8)                 # room for no bone
    with pytest.raises(rt.CapacityError):
        capi.maniClipCursor_SampleFloats(tiny, clip, 0.1)


# ---- discrete tracks ------------------------------------------------------------------------------
def test_discrete_values(clip):
    assert capi.maniClip_GetDiscreteTrackName(clip, 0) == "stance"
    assert capi.maniClip_FindDiscreteTrack(clip, "weapon") == 1
    assert capi.maniClip_FindDiscreteTrack(clip, "smile") == rt.NO_TRACK
    cases = [(-1.0, 3), (0.0, 3), (0.49, 3), (0.5, -7), (0.99, -7), (1.0, 2 ** 31 - 1),
             (50.0, 2 ** 31 - 1), (math.nan, 3), (math.inf, 2 ** 31 - 1), (-math.inf, 3), (1e39, 2 ** 31 - 1)]
    for t, want in cases:
        assert capi.maniClip_GetDiscreteValue(clip, 0, t) == want, t
    # a single key holds everywhere: its first key before it, its last after
    assert capi.maniClip_GetDiscreteValue(clip, 1, 0.0) == 9 == capi.maniClip_GetDiscreteValue(clip, 1, 9.0)
    assert capi.maniClip_GetDiscreteValue(clip, 2, 0.5) == 0
    assert capi.maniClip_GetDiscreteValue(None, 0, 0.5) == 0
    assert capi.maniClip_GetDiscreteTrackName(clip, 2) is None


def test_key_times_compare_in_binary32(sk):
    src = ClipSource(sk, [], discrete_tracks=[DiscreteTrackSource("d", [0.0, 0.7], [1, 2])])
    clip = open_clip(src)
    assert capi.maniClip_GetDiscreteValue(clip, 0, 0.7) == 2                  # 0.7 as a float
    assert capi.maniClip_GetDiscreteValue(clip, 0, float(np.float32(0.7)) - 1e-7) == 1


# ---- events and markers ---------------------------------------------------------------------------
def test_events_in_time_order_with_repeated_names(clip):
    events = [capi.maniClip_GetEvent(clip, k) for k in range(4)]
    assert [(e.name, e.time) for e in events] == [("step", np.float32(0.3)), ("swing", np.float32(0.3)),
                                                  ("step", np.float32(0.9)), ("land", 1.5)]
    assert capi.maniClip_GetEvent(clip, 4) == ClipEvent(None, 0.0)
    assert capi.maniClip_GetEvent(clip, -1) == ClipEvent(None, 0.0)
    assert capi.maniClip_GetEvent(None, 0) == ClipEvent(None, 0.0)
    markers = [capi.maniClip_GetMarker(clip, k) for k in range(3)]
    assert markers == [ClipEvent("left", 0.0), ClipEvent("right", 0.75), ClipEvent(None, 0.0)]


@pytest.mark.parametrize("start, end, want", [
    (0.0, 0.3, (0, 0)),          # forward: start <= t < end
    (0.0, 0.31, (0, 2)),         # the two events tied at 0.3
    (0.3, 0.9, (0, 2)),
    (0.3, 0.9000001, (0, 3)),
    (0.9, 1.5, (2, 1)),
    (0.9, 1.6, (2, 2)),
    (1.5, 9.0, (3, 1)),          # the last event, at the duration, going forward from it
    (-5.0, 0.3, (0, 0)),
    (0.3, 0.0, (0, 2)),          # backward: end < t <= start
    (0.3, 0.3, (0, 0)),          # equal times: none
    (0.9, 0.3, (2, 1)),
    (0.9, 0.29, (0, 3)),
    (1.5, 0.9, (3, 1)),
    (9.0, -1.0, (0, 4)),
    (1.49, 1.5, (0, 0)),
    (math.nan, 1.0, (0, 0)),
    (0.0, math.nan, (0, 0)),
    (-math.inf, math.inf, (0, 4)),
])
def test_event_range(clip, start, end, want):
    assert capi.maniClip_GetEventRange(clip, start, end) == want


def test_event_range_compares_in_binary32_and_markers_follow_the_same_rules(sk):
    src = ClipSource(sk, [ChannelSource(0, T, [0.0, 1.0], np.zeros((2, 3)))],
                     events=[ClipEvent("e", 0.7)], markers=[ClipEvent("m", 0.0), ClipEvent("n", 1.0)])
    clip = open_clip(src)
    # 0.7 rounds down to binary32: a playhead at 0.7 has passed the event going forward ...
    assert capi.maniClip_GetEventRange(clip, 0.0, 0.7) == (0, 0)
    assert capi.maniClip_GetEventRange(clip, 0.7, 0.8) == (0, 1)
    # ... and reaches it going backward
    assert capi.maniClip_GetEventRange(clip, 0.7, 0.0) == (0, 1)
    assert clip.marker_range(0.0, 1.0) == (0, 1)
    assert clip.marker_range(1.0, 0.0) == (1, 1)
    assert clip.marker_range(1.0, 1.0) == (0, 0)
    assert capi.maniClip_GetEventRange(None, 0.0, 1.0) == (0, 0)
    empty = open_clip(ClipSource(sk))
    assert capi.maniClip_GetEventRange(empty, 0.0, 1.0) == (0, 0)
    assert capi.maniClip_GetEventCount(empty) == 0


def test_counts_of_a_clip_without_tracks(sk):
    clip = open_clip(ClipSource(sk, [ChannelSource(0, T, [0.0, 1.0], np.zeros((2, 3)))]))
    assert capi.maniClip_SampleFloats(clip, 0.5).shape == (0,)
    assert capi.maniClip_GetFloatTrackCount(clip) == capi.maniClip_GetDiscreteTrackCount(clip) == 0
    assert capi.maniClip_GetCursorSize(clip) == 64 + 80
    assert build(ClipSource(sk)) == build(ClipSource(sk))
