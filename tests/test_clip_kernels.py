"""clip/kernels.py against plain references: the grid search that clips and graphs share, and
a root-motion move at a time, composed, inverted and raised to powers, against textbook
quaternion composition (the Hamilton product written out here)."""
import math
from bisect import bisect_right

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.clip import kernels as K
from runtime.clip.clip import sample_count

from runtime_fixtures import hamilton, rotate
from test_graph_fixtures import locomotion, standard_clips


# ---- the grid search ---------------------------------------------------------------------------
def reference_segment(t, rate, duration, count):
    """The two samples whose times bracket t on the grid k / rate (the last at the duration),
    found by bisection, and how far t lies between them; clamped to the clip."""
    if count == 1:
        return 0, 0, 0.0
    grid = [k / rate for k in range(count - 1)] + [duration]
    if not t > 0.0:
        return 0, 1, 0.0
    if t >= duration:
        return count - 2, count - 1, 1.0
    i = bisect_right(grid, t) - 1
    return i, i + 1, (t - grid[i]) / (grid[i + 1] - grid[i])


def edge_times(rate, duration, count):
    """0 both signs, NaN, infinities, past both ends, every grid time and a rounding either
    side of it."""
    grid = [k / rate for k in range(count - 1)] + [duration]
    out = [0.0, -0.0, math.nan, math.inf, -math.inf, -1.0, duration * 2 + 1, 1e-300]
    for g in grid:
        out += [g, math.nextafter(g, -math.inf), math.nextafter(g, math.inf)]
    return out


def check_segments(rate, duration, times):
    count = sample_count(duration, rate)
    last = count - 1
    for t in times:
        assert K.segment(t, rate, duration, last) == reference_segment(t, rate, duration, count), t
    t = np.array(times, dtype=np.float64)
    i, j, f = (np.empty(t.size, np.intp), np.empty(t.size, np.intp), np.empty(t.size, np.float32))
    K.segments(t, rate, duration, last, i, j, f)
    want = [reference_segment(x, rate, duration, count) for x in times]
    assert i.tolist() == [w[0] for w in want] and j.tolist() == [w[1] for w in want]
    assert np.array_equal(f, np.array([w[2] for w in want], dtype=np.float32))


@pytest.mark.parametrize("rate, duration", [
    (30.0, 1.0), (30.0, 2.5), (24.0, 0.7), (29.97, 3.3), (120.0, 0.25), (7.0, 10.0),
    (30.0, 1.0 / 30.0),                         # two samples
    (30.0, 0.0), (60.0, 1e-7),                  # one sample: a duration within the slack of 0
    (30.0, 1.0 + 1e-6),                         # a last period within the slack joins the one before
    (float(np.float32(29.97)), float(np.float32(2.2))),
])
def test_the_search_on_every_edge(rate, duration):
    check_segments(rate, duration, edge_times(rate, duration, sample_count(duration, rate)))


@settings(max_examples=60, deadline=None)
@given(st.floats(0.5, 240.0), st.floats(0.0, 30.0), st.lists(st.floats(-1.0, 31.0), max_size=30))
def test_the_search_anywhere(rate, duration, times):
    count = sample_count(duration, rate)
    check_segments(rate, duration, times + edge_times(rate, duration, count)[:60])


def test_clips_and_their_graphs_search_alike():
    _, clips, _, _ = locomotion()
    for clip in list(clips.values()) + list(standard_clips().values()):
        for t in edge_times(clip.sample_rate, clip.duration, clip.sample_count):
            assert clip.segment(t) == reference_segment(t, clip.sample_rate, clip.duration,
                                                        clip.sample_count)


# ---- moves ---------------------------------------------------------------------------------------
def textbook_compose(a, b):
    t = rotate(a[3:], b[:3])
    return (a[0] + t[0], a[1] + t[1], a[2] + t[2], *hamilton(a[3:], b[3:]))


moves = st.tuples(*[st.floats(-3, 3, allow_nan=False)] * 7).filter(
    lambda m: sum(x * x for x in m[3:]) > 0.01)


def unit(m):
    n = math.sqrt(sum(x * x for x in m[3:]))
    return tuple(m[:3]) + tuple(x / n for x in m[3:])


@settings(max_examples=150, deadline=None)
@given(moves, moves, st.integers(-20, 20), st.integers(-2**70, 2**70))
def test_moves_compose_invert_and_raise_to_powers(a, b, k, n):
    a, b = unit(a), unit(b)
    np.testing.assert_allclose(K.compose_moves(a, b), textbook_compose(a, b), atol=1e-12)
    np.testing.assert_allclose(K.compose_moves(K.inverse_move(a), a), K.NO_MOTION, atol=1e-12)
    np.testing.assert_allclose(K.compose_moves(a, K.inverse_move(a)), K.NO_MOTION, atol=1e-12)
    step = a if k >= 0 else K.inverse_move(a)
    repeated = K.NO_MOTION
    for _ in range(abs(k)):
        repeated = textbook_compose(repeated, step)
    np.testing.assert_allclose(K.power_move(a, float(k)), repeated, atol=1e-9)
    huge = K.power_move(a, float(n))            # a count past any integer type: still a unit turn
    assert np.isfinite(huge).all() and abs(np.linalg.norm(huge[3:]) - 1) < 1e-12


def test_a_rotation_of_length_zero_becomes_the_identity():
    """rootmotion.h: what sums to nothing is the move of no motion's rotation, wherever a
    product or a lerp makes it."""
    still = (1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0)
    assert K.compose_moves(still, (4.0, 5.0, 6.0, 0.0, 0.0, 0.0, 1.0)) == (5.0, 7.0, 9.0, 0, 0, 0, 1)
    assert K.compose_moves(K.NO_MOTION, (1.0, 0, 0, math.nan, 0, 0, 1))[3:] == (0, 0, 0, 1)
    opposite = np.array([[0, 0, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 0, -1]], dtype=np.float32)
    assert K.move_at(opposite, 0, 1.0, 1.0, 1, 0.5) == (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(moves, min_size=2, max_size=6), st.floats(-0.5, 2.0), st.sampled_from([1.0, 4.0, 30.0]))
def test_a_move_at_a_time_is_the_samples_lerped_and_normalized(rows, t, rate):
    rows = np.array([unit(m) for m in rows], dtype=np.float32)
    count = rows.shape[0]
    duration = (count - 1) / rate
    i, j, f = reference_segment(t, rate, duration, count)
    a, b = rows[i].astype(np.float64), rows[j].astype(np.float64)
    m = a + f * (b - a)
    n = math.sqrt(m[3] * m[3] + m[4] * m[4] + m[5] * m[5] + m[6] * m[6])
    want = (*m[:3].tolist(), *(m[3:] / n).tolist())
    padded = np.vstack([np.zeros((2, 7), np.float32), rows])      # the rows from row 2 on
    assert K.move_at(padded, 2, rate, duration, count - 1, t) == want
    assert K.move_at(padded.astype(np.float64), 2, rate, duration, count - 1, t) == want
    out = np.empty((1, 7))
    K.moves_at(rows, rate, duration, count - 1, np.array([t]), out)
    assert tuple(out[0].tolist()) == want
