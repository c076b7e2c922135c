"""Project, Step and Decompress: each network's evaluation against a plain numpy float64
reference within lf.reference_bound, the same bits across calls, scratch and numba thread
counts; Decompress's rotations orthonormal with the first column kept; every refusal of the
evaluations and queries with its outputs unchanged."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.learned import LearnedLayer, LearnedModel, LearnedOutput
from runtime.learned.model_build import decompressor_outputs

import learned_fixtures as lf
from hostile_world import World

WORLD = World()
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", params=[0, 1], ids=["float32", "16-bit"])
def case(request):
    src = lf.source(WORLD, seed=3, weight_format=request.param)
    return src, LearnedModel(lf.build(src)), bool(request.param)


def _scratch(m):
    return np.zeros(m.scratch_size // 8 + 1, np.float64)


def _queries(m, count, seed=5):
    return np.random.default_rng(seed).normal(0, 1.5, (count, m.feature_count)).astype(np.float32)


def _output(m):
    return LearnedOutput(WORLD.pose(), np.zeros(6, np.float32),
                         np.zeros(m.float_track_count, np.float32), np.zeros(m.event_count, np.float32))


def test_project_against_the_reference(case):
    src, m, quant = case
    scratch = _scratch(m)
    for p in range(m.projector_count):
        net = src.projectors[p].network
        for q in _queries(m, 40, seed=p):
            got = m.project(p, q, scratch=scratch)
            want = lf.reference(net, q, quant)
            assert np.abs(got - want).max() <= lf.reference_bound(net, q, quant)


def test_step_against_the_reference(case):
    src, m, quant = case
    dt = np.float32(1 / np.float32(src.step_rate))
    for q in _queries(m, 40):
        state = m.project(0, q)
        rate = lf.reference(src.stepper, state, quant)
        got = state.copy()
        m.step(got)
        bound = lf.reference_bound(src.stepper, state, quant) * float(dt) \
            + 2 ** -23 * np.abs(state + dt * rate).max()
        assert np.abs(got - (state + dt * rate)).max() <= bound


def _columns(q):
    x, y, z, w = (float(v) for v in q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)],
                     [2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)],
                     [2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)]])


def test_decompress_against_the_reference(case):
    src, m, quant = case
    bones = m.bone_count
    for q in _queries(m, 20):
        state = m.project(1, q)
        out = _output(m)
        m.decompress(state, out)
        y = lf.reference(src.decompressor, state, quant)
        bound = lf.reference_bound(src.decompressor, state, quant)
        locals_ = out.pose.locals
        assert np.abs(locals_[:, 0:3] - y[:9 * bones].reshape(bones, 9)[:, 0:3]).max() <= bound
        for b in range(bones):
            a, c = y[9 * b + 3:9 * b + 6], y[9 * b + 6:9 * b + 9]
            quat = locals_[b, 3:7].astype(np.float64)
            assert abs(np.linalg.norm(quat) - 1) < 1e-6
            cols = _columns(quat)           # rows here are the matrix's columns
            assert np.abs(cols @ cols.T - np.eye(3)).max() < 1e-6          # orthonormal
            assert np.abs(cols[0] - a / np.linalg.norm(a)).max() < 1e-5    # the first kept
            assert abs(cols[1] @ c - np.linalg.norm(c - (c @ cols[0]) * cols[0])) < 1e-4
            assert np.linalg.det(cols) > 0
        at = 9 * bones
        assert np.abs(locals_[2, 7:10] - y[at:at + 3]).max() <= bound
        keep = [b for b in range(bones) if b != 2]
        assert np.array_equal(locals_[keep, 7:10], WORLD.skeleton.rests[keep, 7:10])
        at += 3
        assert np.abs(out.root_motion - y[at:at + 6]).max() <= bound
        assert np.abs(out.float_tracks - y[at + 6:at + 7]).max() <= bound
        assert np.abs(out.events - y[at + 7:at + 8]).max() <= bound
        assert not out.pose.is_model_current


def test_degenerate_columns_still_give_a_rotation():
    """A first column of zeros takes x; a second along the first takes a perpendicular."""
    src = lf.source(WORLD, seed=1)
    d = src.decompressor
    last = d.layers[-1]
    bias = np.ones_like(last.biases)
    bias[3:6] = 0.0                     # bone 0: first column zero
    bias[9 + 3:9 + 9] = [1, 2, 3, 2, 4, 6]      # bone 1: parallel columns
    layers = [*d.layers[:-1], LearnedLayer(np.zeros_like(last.weights), bias)]
    src = replace(src, decompressor=replace(d, layers=layers, output_offset=None,
                                            output_scale=None))
    m = LearnedModel(lf.build(src))
    out = _output(m)
    m.decompress(np.zeros(m.state_count, np.float32), out)
    for b in (0, 1):
        cols = _columns(out.pose.locals[b, 3:7])
        assert np.abs(cols @ cols.T - np.eye(3)).max() < 1e-6
    assert np.allclose(_columns(out.pose.locals[0, 3:7])[0], [1, 0, 0], atol=1e-6)
    assert np.allclose(_columns(out.pose.locals[1, 3:7])[0], np.array([1, 2, 3]) / np.sqrt(14),
                       atol=1e-6)


def _digest(m) -> str:
    h = hashlib.sha256()
    scratch = _scratch(m)
    for q in _queries(m, 10):
        for p in range(m.projector_count):
            state = m.project(p, q, scratch=scratch)
            h.update(state.tobytes())
            m.step(state, scratch)
            h.update(state.tobytes())
            out = _output(m)
            m.decompress(state, out, scratch)
            h.update(out.pose.locals.tobytes() + out.root_motion.tobytes()
                     + out.float_tracks.tobytes() + out.events.tobytes())
    return h.hexdigest()


def test_the_same_bits_across_calls_and_scratch(case):
    _, m, _ = case
    assert _digest(m) == _digest(m)
    q = _queries(m, 1)[0]
    a = m.project(0, q, scratch=bytearray(m.scratch_size + 64))
    garbage = np.frombuffer(np.random.default_rng(0).bytes(m.scratch_size), np.uint8).copy()
    assert np.array_equal(a, m.project(0, q, scratch=garbage))


_CHILD = """
import sys; sys.path.insert(0, 'tests')
from hostile_world import World
import learned_fixtures as lf, test_learned_model as t
from runtime.learned import LearnedModel
w = World()
for fmt in (0, 1):
    print(t._digest(LearnedModel(lf.build(lf.source(w, seed=3, weight_format=fmt)))))
"""


@pytest.mark.parametrize("threads", ["1", "2"])
def test_the_same_bits_with_any_numba_thread_count(threads):
    here = [_digest(LearnedModel(lf.build(lf.source(WORLD, seed=3, weight_format=f))))
            for f in (0, 1)]
    env = dict(os.environ, NUMBA_NUM_THREADS=threads)
    got = subprocess.run([sys.executable, "-c", _CHILD], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    assert got == here


# ---- refusals ----------------------------------------------------------------------------------
def _hot():
    """A model whose every network gives values past the float range."""
    src = lf.source(WORLD, seed=2)

    def hot(net):
        last = net.layers[-1]
        layers = [*net.layers[:-1], LearnedLayer(np.zeros_like(last.weights),
                                                 np.full_like(last.biases, 10.0))]
        return replace(net, layers=layers, output_offset=None,
                       output_scale=np.full(last.biases.size, 3e38, np.float32))
    return LearnedModel(lf.build(replace(
        src, decompressor=hot(src.decompressor), stepper=hot(src.stepper),
        projectors=[replace(p, network=hot(p.network)) for p in src.projectors])))


def _unchanged(call, error, *arrays):
    before = [np.array(a, copy=True) for a in arrays]
    with pytest.raises(error) as e:
        call()
    for a, b in zip(arrays, before):
        assert np.array_equal(a, b, equal_nan=True)
    return e.value


def test_project_refusals():
    m = WORLD.learned_model
    size = m.scratch_size
    scratch = _scratch(m)
    q = np.full(m.feature_count, 0.5, np.float32)
    out = np.full(64, 7.0, np.float32)
    P = capi.maniLearnedModel_Project
    assert P(m, 0, q, None, 0, scratch, size) == m.state_count          # measuring
    e = _unchanged(lambda: P(m, 0, q, out, m.state_count - 1, scratch, size), rt.CapacityError, out)
    assert e.count == m.state_count
    e = _unchanged(lambda: P(m, 0, q, out[:m.state_count - 1], 64, scratch, size),
                   rt.CapacityError, out)
    hot = _hot()
    _unchanged(lambda: P(hot, 0, q, out, 64, _scratch(hot), hot.scratch_size), rt.FormatError, out)
    bad_q = q.copy()
    bad_q[3] = np.nan
    raw = np.zeros(size + 16, np.uint8)
    for args in ((None, 0, q, out, 64, scratch, size), (m, 0, None, out, 64, scratch, size),
                 (m, 0, q, None, 64, scratch, size), (m, 2, q, out, 64, scratch, size),
                 (m, -1, q, out, 64, scratch, size), (m, 0, bad_q, out, 64, scratch, size),
                 (m, 0, q[:-1], out, 64, scratch, size), (m, 0, q, out, 64, None, size),
                 (m, 0, q, out, 64, raw[1:size + 1], size), (m, 0, q, out, 64, scratch, size - 1)):
        _unchanged(lambda: P(*args), rt.InvalidError, out)
    # a wrong argument is refused before a short capacity is
    _unchanged(lambda: P(m, 5, q, out, 1, scratch, size), rt.InvalidError, out)


def test_step_refusals():
    m = WORLD.learned_model
    size = m.scratch_size
    scratch = _scratch(m)
    S = capi.maniLearnedModel_Step
    hot = _hot()
    state = np.full(hot.state_count, 0.25, np.float32)
    _unchanged(lambda: S(hot, state, _scratch(hot), hot.scratch_size), rt.FormatError, state)
    # the network's rate finite, the sum past the range
    src = lf.source(WORLD, seed=4)
    st = src.stepper
    last = st.layers[-1]
    layers = [*st.layers[:-1], LearnedLayer(np.zeros_like(last.weights), np.ones_like(last.biases))]
    big = LearnedModel(lf.build(replace(src, stepper=replace(
        st, layers=layers, output_offset=None,
        output_scale=np.full(last.biases.size, 3e38, np.float32)))))
    state = np.full(big.state_count, 3.4e38, np.float32)
    _unchanged(lambda: S(big, state, _scratch(big), big.scratch_size), rt.FormatError, state)
    state = np.full(m.state_count, 0.25, np.float32)
    bad = state.copy()
    bad[0] = np.inf
    raw = np.zeros(size + 16, np.uint8)
    for args in ((None, state, scratch, size), (m, None, scratch, size), (m, state, None, size),
                 (m, state, raw[1:size + 1], size), (m, state, scratch, size - 1),
                 (m, state[:-1], scratch, size)):
        _unchanged(lambda: S(*args), rt.InvalidError, state)
    _unchanged(lambda: S(m, bad, scratch, size), rt.InvalidError, bad)
    wide = state.astype(np.float64)
    _unchanged(lambda: S(m, wide, scratch, size), rt.InvalidError, wide)


def test_decompress_refusals():
    m = WORLD.learned_model
    size = m.scratch_size
    scratch = _scratch(m)
    D = capi.maniLearnedModel_Decompress
    state = np.full(m.state_count, 0.25, np.float32)

    def check(model, args, error, out):
        held = [out.pose.buffer.copy(), out.root_motion.copy(), out.float_tracks.copy(),
                out.events.copy()]
        with pytest.raises(error):
            D(model, *args)
        now = [out.pose.buffer, out.root_motion, out.float_tracks, out.events]
        assert all(np.array_equal(a, b) for a, b in zip(held, now))

    hot = _hot()
    check(hot, (state, _output(hot), _scratch(hot), hot.scratch_size), rt.FormatError, _output(hot))
    short = LearnedOutput(WORLD.pose(), np.zeros(5, np.float32), np.zeros(1, np.float32),
                          np.zeros(1, np.float32))
    check(m, (state, short, scratch, size), rt.CapacityError, short)
    short = LearnedOutput(WORLD.pose(), np.zeros(6, np.float32), np.zeros(0, np.float32),
                          np.zeros(1, np.float32))
    check(m, (state, short, scratch, size), rt.CapacityError, short)
    bad = state.copy()
    bad[2] = np.nan
    raw = np.zeros(size + 16, np.uint8)
    out = _output(m)
    for args in ((bad, out, scratch, size), (state, out, None, size),
                 (state, out, raw[1:size + 1], size), (state, out, scratch, size - 1),
                 (state[:-1], out, scratch, size)):
        check(m, args, rt.InvalidError, out)
    with pytest.raises(rt.InvalidError):
        D(None, state, out, scratch, size)
    with pytest.raises(rt.InvalidError):
        D(m, state, None, scratch, size)
    from runtime.samples.humanoid import humanoid_source
    other = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(5)))
    pose = rt.Pose(other)
    pose.set_rest(other)
    check(m, (state, LearnedOutput(pose, np.zeros(6, np.float32)), scratch, size),
          rt.InvalidError, LearnedOutput(pose, np.zeros(6, np.float32), np.zeros(1, np.float32),
                                         np.zeros(1, np.float32)))
    diff = WORLD.pose()
    diff.mark_kind(True)
    out = LearnedOutput(diff, np.zeros(6, np.float32), np.zeros(1, np.float32), np.zeros(1, np.float32))
    check(m, (state, out, scratch, size), rt.InvalidError, out)
    # the optional outputs may be left out
    D(m, state, LearnedOutput(WORLD.pose()), scratch, size)


def test_queries():
    m = WORLD.learned_model
    assert capi.maniLearnedModel_GetIdentity(m) == m.identity != 0
    assert capi.maniLearnedModel_GetSkeletonIdentity(m) == WORLD.skeleton.identity
    assert capi.maniLearnedModel_GetDatabaseIdentity(m) == WORLD.database.identity
    for fn in (capi.maniLearnedModel_GetIdentity, capi.maniLearnedModel_GetSkeletonIdentity,
               capi.maniLearnedModel_GetDatabaseIdentity, capi.maniLearnedModel_GetFloatTrackCount,
               capi.maniLearnedModel_GetEventCount, capi.maniLearnedModel_GetScratchSize):
        assert fn(None) == 0
    assert capi.maniLearnedModel_GetFloatTrackCount(m) == 1 == capi.maniLearnedModel_GetEventCount(m)
    assert capi.maniLearnedModel_GetFloatTrackName(m, 0) == "smile"
    assert capi.maniLearnedModel_GetEventName(m, 0) == "step"
    for fn in (capi.maniLearnedModel_GetFloatTrackName, capi.maniLearnedModel_GetEventName):
        assert fn(m, 1) is None and fn(None, 0) is None
    assert capi.maniLearnedModel_GetScratchSize(m) == m.scratch_size > 0
    assert capi.maniLearnedModel_GetProjector(m, 1) == (2, 0)
    for bad in ((None, 0), (m, 2), (m, -1)):
        with pytest.raises(rt.InvalidError):
            capi.maniLearnedModel_GetProjector(*bad)
    ch = capi.maniLearnedModel_GetChannel(m, 4)
    assert ch.track == "smile"
    for bad in ((None, 0), (m, m.channel_count)):
        with pytest.raises(rt.InvalidError):
            capi.maniLearnedModel_GetChannel(*bad)
    n = m.feature_count
    assert capi.maniLearnedModel_GetNormalization(m) == n
    offsets, scales = np.full(64, 9.0, np.float32), np.full(64, 9.0, np.float32)
    with pytest.raises(rt.CapacityError) as e:
        capi.maniLearnedModel_GetNormalization(m, offsets, scales, n - 1)
    assert e.value.count == n and (offsets == 9).all() and (scales == 9).all()
    with pytest.raises(rt.InvalidError):
        capi.maniLearnedModel_GetNormalization(m, None, None, 4)
    with pytest.raises(rt.InvalidError):
        capi.maniLearnedModel_GetNormalization(None, offsets, scales, 64)
    assert capi.maniLearnedModel_GetNormalization(m, offsets, scales, 64) == n
    assert np.array_equal(offsets[:n], WORLD.database.offsets)
    assert np.array_equal(scales[:n], WORLD.database.scales)
    assert decompressor_outputs(12, 1, 1, 1) == m.output_count
