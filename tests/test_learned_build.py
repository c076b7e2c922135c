"""maniBuildLearnedModel: every refusal its Returns line names, with the reason, item and
other; the builder unchanged and no misuse counted; the 16-bit rounding rule."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core.errors import BuildReason as R
from runtime.learned import LearnedLayer, LearnedModel, LearnedProjector
from runtime.learned.limits import (MAX_LEARNED_EVENTS, MAX_LEARNED_FLOAT_TRACKS,
                                    MAX_LEARNED_LATENT, MAX_LEARNED_LAYERS,
                                    MAX_LEARNED_PROJECTORS, MAX_LEARNED_WEIGHTS,
                                    MAX_LEARNED_WIDTH)
from runtime.learned.model_build import LIST_SHIFT, quantize

import learned_fixtures as lf
from hostile_world import World

WORLD = World()
SOURCE = lf.source(WORLD)


def _refused(source, error, reason, item=0, other=0):
    b = rt.Builder()
    capi.maniBuildSkeleton(b, WORLD.skeleton_source)
    held = bytes(capi.maniBuilder_CopyBuilt(b))
    with pytest.raises(error) as e:
        capi.maniBuildLearnedModel(b, source)
    assert (e.value.reason, e.value.item, e.value.other) == (reason, item, other), e.value
    assert bytes(capi.maniBuilder_CopyBuilt(b)) == held
    assert capi.maniBuilder_GetMisuse(b) == 0


def _with(**changes):
    return replace(SOURCE, **changes)


def test_the_source_builds_and_opens():
    for fmt in (0, 1):
        m = LearnedModel(lf.build(_with(weight_format=fmt)))
        assert m.skeleton_identity == WORLD.skeleton.identity
        assert m.database_identity == WORLD.database.identity
        assert m.state_count == WORLD.database.feature_count + 8
        assert m.projector_count == 2 and m.projector(1) == (2, 0)
        assert m.float_track_name(0) == "smile" and m.event_name(0) == "step"
        off, sc = m.normalization()
        assert np.array_equal(off, WORLD.database.offsets) and np.array_equal(sc, WORLD.database.scales)
        for c in range(WORLD.database.channel_count):
            a, b = m.channel(c), WORLD.database.channel(c)
            assert (a.kind, a.bone, a.weight, a.track) == (b.kind, b.bone, b.weight, b.track)
            assert np.array_equal(a.times, b.times)
    assert lf.build(SOURCE) == lf.build(SOURCE)        # the same bytes every build


def test_database_timing_and_options():
    from runtime.samples.humanoid import humanoid_source
    other = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(5)))
    _refused(_with(skeleton=other), rt.InvalidError, R.Database)
    for rate in (0.0, -30.0, float("nan"), float("inf"), "30"):
        _refused(_with(step_rate=rate), rt.InvalidError, R.Timing)
    _refused(_with(step_rate=241.0), rt.LimitError, R.Timing)
    for latent in (0, -1, 2.0, None):
        _refused(_with(latent_count=latent), rt.InvalidError, R.Option)
    _refused(_with(latent_count=MAX_LEARNED_LATENT + 1), rt.LimitError, R.Option, 0)
    for fmt in (2, -1, 0.0, "f32"):
        _refused(_with(weight_format=fmt), rt.InvalidError, R.Option)


def test_counts():
    _refused(_with(projectors=[]), rt.InvalidError, R.Count)
    _refused(_with(projectors=SOURCE.projectors * (MAX_LEARNED_PROJECTORS // 2 + 1)),
             rt.LimitError, R.Count)
    _refused(_with(float_tracks=[f"t{i}" for i in range(MAX_LEARNED_FLOAT_TRACKS + 1)]),
             rt.LimitError, R.Count)
    _refused(_with(events=[f"e{i}" for i in range(MAX_LEARNED_EVENTS + 1)]), rt.LimitError,
             R.Count)


def test_scaled_bones_and_scales():
    _refused(_with(scaled_bones=[2, 12]), rt.InvalidError, R.Joint, 1)
    _refused(_with(scaled_bones=[3, 3]), rt.InvalidError, R.Joint, 1)
    _refused(_with(scaled_bones=[-1]), rt.InvalidError, R.Joint, 0)
    scales = np.ones((12, 3))
    scales[4, 1] = np.nan
    _refused(_with(bone_scales=scales), rt.InvalidError, R.NotFinite, 4)


def _layer(net, k, **changes):
    layers = list(net.layers)
    layers[k] = replace(layers[k], **changes)
    return replace(net, layers=layers)


def test_networks():
    d, s, p = SOURCE.decompressor, SOURCE.stepper, SOURCE.projectors[1].network
    # a shape that does not chain or fit its role: item the network, other the layer
    _refused(_with(decompressor=_layer(d, 1, weights=d.layers[1].weights[:-1])),
             rt.InvalidError, R.Network, 0, 1)
    _refused(_with(stepper=_layer(s, 2, weights=s.layers[2].weights[:, :-1],
                                  biases=s.layers[2].biases[:-1])), rt.InvalidError, R.Network, 1, 2)
    projectors = [SOURCE.projectors[0], replace(SOURCE.projectors[1],
                                                network=_layer(p, 0, biases=p.layers[0].biases[:3]))]
    _refused(_with(projectors=projectors), rt.InvalidError, R.Network, 3, 0)
    bad = d.layers[2].weights.copy()
    bad[1, 1] = np.inf
    _refused(_with(decompressor=_layer(d, 2, weights=bad)), rt.InvalidError, R.Network, 0, 2)
    _refused(_with(stepper=replace(s, layers=[])), rt.InvalidError, R.Network, 1, 0)
    _refused(_with(stepper=None), rt.InvalidError, R.Network, 1, 0)
    # the normalization: other the layer count
    _refused(_with(decompressor=replace(d, input_scale=np.zeros(d.input_scale.size))),
             rt.InvalidError, R.Network, 0, 3)
    _refused(_with(stepper=replace(s, output_offset=np.zeros(3))), rt.InvalidError, R.Network, 1, 3)
    # the bounds
    n = SOURCE.database.feature_count + 8
    eye = LearnedLayer(np.eye(n, dtype=np.float32), np.zeros(n, np.float32))
    deep = replace(s, layers=[eye] * (MAX_LEARNED_LAYERS + 1))
    _refused(_with(stepper=deep), rt.LimitError, R.Network, 1, MAX_LEARNED_LAYERS + 1)
    wide = MAX_LEARNED_WIDTH + 1
    w0 = LearnedLayer(np.zeros((n, wide), np.float32), np.zeros(wide, np.float32))
    w1 = LearnedLayer(np.zeros((wide, n), np.float32), np.zeros(n, np.float32))
    _refused(_with(stepper=replace(s, layers=[w0, w1])), rt.LimitError, R.Network, 1, 0)
    side = MAX_LEARNED_WIDTH          # a square layer of the widest holds every weight allowed
    assert side * side == MAX_LEARNED_WEIGHTS
    many = [LearnedLayer(np.zeros((n, side), np.float32), np.zeros(side, np.float32)),
            LearnedLayer(np.zeros((side, side), np.float32), np.zeros(side, np.float32)),
            LearnedLayer(np.zeros((side, n), np.float32), np.zeros(n, np.float32))]
    _refused(_with(stepper=replace(s, layers=many)), rt.LimitError, R.Network, 1, 1)
    projectors = [LearnedProjector("not a network")]
    _refused(_with(projectors=projectors), rt.InvalidError, R.Network, 2)
    _refused(_with(projectors=[replace(SOURCE.projectors[0], required=-1)]), rt.InvalidError,
             R.Tags, 0)


def test_names():
    tag, etag = int(R.FloatTrack) << LIST_SHIFT, int(R.Event) << LIST_SHIFT
    _refused(_with(float_tracks=["a", ""]), rt.InvalidError, R.Name, 1, tag)
    _refused(_with(float_tracks=["a", b"\xff"]), rt.InvalidError, R.Name, 1, tag)
    _refused(_with(float_tracks=["a", 7]), rt.InvalidError, R.Name, 1, tag)
    _refused(_with(float_tracks=["x" * 256]), rt.LimitError, R.Name, 0, tag)
    _refused(_with(events=["a", "b", "a"]), rt.InvalidError, R.DuplicateName, 2, etag | 0)
    _refused(_with(events=["x" * 256]), rt.LimitError, R.Name, 0, etag)


def test_misuse_is_counted():
    b = rt.Builder()
    with pytest.raises(rt.InvalidError):
        capi.maniBuildLearnedModel(b, None)
    with pytest.raises(rt.InvalidError):
        capi.maniBuildLearnedModel(b, _with(database=None))
    with pytest.raises(rt.InvalidError):
        capi.maniBuildLearnedModel(b, _with(skeleton=None))
    assert capi.maniBuilder_GetMisuse(b) == 3
    with pytest.raises(rt.InvalidError):
        capi.maniBuildLearnedModel(None, SOURCE)


def test_16_bit_rounding_rule():
    """Each input's weights over (their largest magnitude / 32767), rounded to nearest, ties
    to even: checked against a scalar version with exact ties written in."""
    w = np.array([[1.0, -0.5, 0.25], [0.0, 0.0, 0.0], [3.0, 1.5, -2.0]], np.float32)
    q, s = quantize(w)
    for j in range(3):
        top = max(abs(float(v)) for v in w[j])
        assert s[j] == np.float32(top / 32767)
        for i in range(3):
            exact = float(w[j, i]) / float(s[j]) if s[j] else 0.0
            lo = np.floor(exact)
            want = lo + 1 if exact - lo > 0.5 else lo if exact - lo < 0.5 else (lo if lo % 2 == 0 else lo + 1)
            assert q[j, i] == want
    assert q[0, 0] == 32767 and q[2, 0] == 32767 and not q[1].any()
    # a tie: 0.5 steps round to even
    q, _ = quantize(np.array([[32767.0, 2.5, 3.5, -2.5]], np.float32))
    assert list(q[0]) == [32767, 2, 4, -2]
