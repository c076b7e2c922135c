"""The evaluation's fixed summation order, bit for bit: each network read back from the model
file's sections and evaluated in numpy float32 one input after another, the order
learned/kernels.py documents (an output starts at its bias and adds each nonzero input's
products in the inputs' order; a 16-bit weight's input multiplied by its scale first), against
Project, Step and Decompress's written outputs: on the shipped model and on models of Holden's
width in both weight formats. numpy's float32 arithmetic rounds every operation of an array
on its own, as the kernels do, so any change of order or grouping in the kernels fails here."""
from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.core.container import Container, FileKind, as_buffer
from runtime.learned import LearnedModel, LearnedOutput
from runtime.learned.model_build import FORMAT_MINOR, FORMAT_VERSION, KNOWN, REQUIRED, ROOT_MOTION
from runtime.learned.train.run import read_aligned
from runtime.samples import learned_model
from runtime.samples.humanoid import humanoid_source

import learned_fixtures as lf
from hostile_world import World

WORLD = World()


def networks(data, quant: bool) -> list[dict]:
    """Every network of a model file, in its order (Decompressor, Stepper, Projectors), from
    its sections as model_build.py lays them out."""
    c = Container(as_buffer(data), FileKind.learned_model, FORMAT_VERSION, FORMAT_MINOR, KNOWN,
                  required=REQUIRED)
    layers = c.array(b"LLAY", "<u4").reshape(-1, 2).astype(np.int64)
    counts = c.array(b"LNLC", "<u4").astype(np.int64)
    norms, biases = c.array(b"LNRM", "<f4"), c.array(b"LBIA", "<f4")
    weights = c.array(b"LWGT", "<i2" if quant else "<f4")
    scales = c.array(b"LWSC", "<f4") if quant else None
    out, first, at_n, at_b, at_w, at_s = [], 0, 0, 0, 0, 0
    for count in counts.tolist():
        run = layers[first:first + count]
        n_in, n_out = int(run[0, 0]), int(run[-1, 1])
        net = {"norm": [norms[at_n + k * n_in:at_n + (k + 1) * n_in] for k in (0, 1)]
               + [norms[at_n + 2 * n_in + k * n_out:at_n + 2 * n_in + (k + 1) * n_out]
                  for k in (0, 1)], "layers": []}
        at_n += 2 * n_in + 2 * n_out
        for a, b in run.tolist():
            w = weights[at_w:at_w + a * b].reshape(a, b)
            s = scales[at_s:at_s + a] if quant else None
            net["layers"].append((w, s, biases[at_b:at_b + b]))
            at_w, at_s, at_b = at_w + a * b, at_s + a, at_b + b
        out.append(net)
        first += count
    return out


def evaluate(net: dict, x) -> np.ndarray:
    """The network on x in float32, one input's products after another."""
    in_off, in_scale, out_off, out_scale = net["norm"]
    v = (np.asarray(x, np.float32) - in_off) / in_scale
    for k, (w, s, bias) in enumerate(net["layers"]):
        out = bias.copy()
        for j in np.flatnonzero(v != 0):
            if s is None:
                out = out + v[j] * w[j]
            else:
                out = out + (v[j] * s[j]) * w[j].astype(np.float32)
        v = np.where(out > 0, out, np.float32(0)) if k + 1 < len(net["layers"]) else out
    return v * out_scale + out_off


def _models():
    shipped = read_aligned(learned_model.SHIPPED)
    yield "shipped", shipped
    for fmt in (0, 1):
        yield f"width 512 format {fmt}", lf.build(lf.source(WORLD, seed=7, weight_format=fmt,
                                                             hidden=(512, 512)))


@pytest.fixture(scope="module", params=list(range(3)), ids=["shipped", "512-float32", "512-16bit"])
def case(request):
    name, data = list(_models())[request.param]
    m = LearnedModel(data)
    return m, networks(data, m.weight_format == 1)


def test_project_and_step_sum_in_order(case):
    m, nets = case
    scratch = np.zeros(m.scratch_size // 8 + 1, np.float64)
    rng = np.random.default_rng(11)
    for p in range(m.projector_count):
        for q in rng.normal(0, 1.5, (6, m.feature_count)).astype(np.float32):
            state = m.project(p, q, scratch=scratch)
            assert np.array_equal(state, evaluate(nets[2 + p], q))
            want = state + m.dt * evaluate(nets[1], state)
            assert np.array_equal(m.step(state, scratch), want)


def test_decompress_writes_the_outputs_in_order(case):
    m, nets = case
    skeleton = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(m.bone_count)))
    pose = rt.Pose(skeleton)
    pose.set_rest(skeleton)
    out = LearnedOutput(pose, np.zeros(ROOT_MOTION, np.float32),
                        np.zeros(m.float_track_count, np.float32),
                        np.zeros(m.event_count, np.float32))
    bones = m.bone_count
    for state in np.random.default_rng(12).normal(0, 1, (6, m.state_count)).astype(np.float32):
        m.decompress(state, out)
        y = evaluate(nets[0], state)
        assert np.array_equal(pose.locals[:, :3], y[:9 * bones].reshape(bones, 9)[:, :3])
        scaled = m.tracks_at - ROOT_MOTION - 9 * bones
        root = 9 * bones + scaled
        assert np.array_equal(out.root_motion, y[root:root + ROOT_MOTION])
        tracks = y[m.tracks_at:]
        assert np.array_equal(out.float_tracks, tracks[:m.float_track_count])
        assert np.array_equal(out.events, tracks[m.float_track_count:])
