"""What the learned model tests share: small models of random weights of the right shapes
over the hostile world's motion database, and a plain numpy float64 reference of the
networks' evaluation."""
from __future__ import annotations

import numpy as np

import runtime as rt
from runtime import capi
from runtime.learned import (LearnedLayer, LearnedModel, LearnedModelSource, LearnedNetwork,
                             LearnedProjector)
from runtime.learned.model_build import decompressor_outputs


def network(rng, n_in: int, n_out: int, hidden=(24, 16), zero_bias=False) -> LearnedNetwork:
    widths = [n_in, *hidden, n_out]
    layers = [LearnedLayer(rng.normal(0, 1 / np.sqrt(a), (a, b)).astype(np.float32),
                           (np.zeros(b) if zero_bias else rng.normal(0, 0.1, b)).astype(np.float32))
              for a, b in zip(widths[:-1], widths[1:])]
    return LearnedNetwork(layers, rng.normal(0, 0.2, n_in).astype(np.float32),
                          rng.uniform(0.5, 2.0, n_in).astype(np.float32),
                          rng.normal(0, 0.2, n_out).astype(np.float32),
                          rng.uniform(0.5, 2.0, n_out).astype(np.float32))


def source(world, seed=0, latent=8, projectors=2, scaled=(2,), tracks=("smile",),
           events=("step",), weight_format=0, hidden=(24, 16)) -> LearnedModelSource:
    rng = np.random.default_rng(seed)
    db, sk = world.database, world.skeleton
    f = db.feature_count
    state = f + latent
    outputs = decompressor_outputs(sk.bone_count, len(scaled), len(tracks), len(events))
    return LearnedModelSource(
        sk, db, network(rng, state, outputs, hidden), network(rng, state, state, hidden),
        [LearnedProjector(network(rng, f, state, hidden), required=1 << p, excluded=0)
         for p in range(projectors)],
        latent_count=latent, step_rate=30.0, scaled_bones=list(scaled),
        float_tracks=list(tracks), events=list(events), weight_format=weight_format)


def build(src) -> bytes:
    b = rt.Builder()
    capi.maniBuildLearnedModel(b, src)
    return bytes(b.copy_built())


def model(world, **kw) -> LearnedModel:
    return LearnedModel(build(source(world, **kw)))


def reference(net: LearnedNetwork, x, quantized=False) -> np.ndarray:
    """The network in float64 with numpy (16-bit: the weights as the build rounds them)."""
    from runtime.learned.model_build import quantize
    v = (np.asarray(x, np.float64) - net.input_offset.astype(np.float64)) / net.input_scale
    for k, layer in enumerate(net.layers):
        w = np.asarray(layer.weights, np.float64)
        if quantized:
            q, s = quantize(np.asarray(layer.weights, np.float32))
            w = q.astype(np.float64) * s.astype(np.float64)[:, None]
        v = v @ w + layer.biases
        if k + 1 < len(net.layers):
            v = np.maximum(v, 0.0)
    return v * net.output_scale + net.output_offset


def reference_bound(net: LearnedNetwork, x, quantized=False) -> float:
    """A bound on float32 evaluation's distance from the float64 reference: each layer's sums
    of n terms in binary32 err by at most n * 2^-24 of the sum of the terms' magnitudes; carried
    through the later layers by their weights' magnitudes (ReLU only shrinks), and the
    normalizations' roundings on top. Doubled for slack of rounding the bound itself."""
    eps = 2.0 ** -24
    v = np.abs((np.asarray(x, np.float64) - net.input_offset) / net.input_scale)
    err = v * 2 * eps
    for layer in net.layers:
        w = np.abs(np.asarray(layer.weights, np.float64))
        n = w.shape[0] + 1
        mags = v @ w + np.abs(layer.biases)
        err = err @ w + (n + 2) * eps * mags
        v = mags
    return float(2 * ((err * net.output_scale).max() + eps * np.abs(v * net.output_scale
                                                                  + net.output_offset).max()))
