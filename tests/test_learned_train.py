"""The trainer's arithmetic and determinism: each stage's backward pass against finite
differences in float64 (forward kinematics' included, its forward pass against plain numpy),
the forward pass against a plain numpy network, and the same
checkpoint bytes with 1, 2 or 4 workers, chunks run in another order, in another process,
and across a save and restore in the middle of a stage and at a stage boundary."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from runtime.learned.train import fk, kernels, losses
from runtime.learned.train.trainer import _dims, _param_count

import learned_train_fixtures as ltf

TESTS = Path(__file__).resolve().parent


def _net(rng, dims):
    return rng.normal(0, 0.6, _param_count(dims))


def _plain(params, dims, x):
    """The network in float64 numpy, independently of the kernels."""
    v, at = np.asarray(x, np.float64), 0
    for k, (a, b) in enumerate(zip(dims[:-1], dims[1:])):
        w = params[at:at + a * b].reshape(a, b)
        at += a * b
        v = v @ w + params[at:at + b]
        at += b
        if k + 2 < len(dims):
            v = np.maximum(v, 0)
    return v


def test_forward_against_a_plain_network():
    rng = np.random.default_rng(1)
    dims = _dims(7, 9, 2, 5)
    p, x = _net(rng, dims), rng.normal(size=(6, 7))
    acts = np.empty((6, int(dims[1:].sum())))
    kernels.forward(p, dims, x, acts)
    assert np.allclose(acts[:, -5:], _plain(p, dims, x), rtol=1e-12, atol=1e-12)


def _check_gradient(chunk, params, rebuild, rng, samples=40):
    grad, loss = chunk(rebuild(params))
    assert np.isfinite(loss) and loss > 0
    h = 1e-6
    picks = rng.choice(params.size, min(samples, params.size), replace=False)
    for i in picks:
        up, down = params.copy(), params.copy()
        up[i] += h
        down[i] -= h
        numeric = (chunk(rebuild(up))[1] - chunk(rebuild(down))[1]) / (2 * h)
        assert abs(numeric - grad[i]) <= 1e-6 + 1e-5 * abs(numeric), (i, numeric, grad[i])


PARENTS = np.array([-1, 0, 1, 0, 3], np.int64)


def _poses(rng, rows, bones):
    return rng.normal(size=(rows, 9 * bones))


def _plain_fk(pose, parents):
    """Model-space positions and rotations by numpy, independently of fk.py."""
    out_p, out_r = [], []
    for row in pose:
        pos, rot = {}, {}
        for b, p in enumerate(parents):
            t, a, c = row[9 * b:9 * b + 3], row[9 * b + 3:9 * b + 6], row[9 * b + 6:9 * b + 9]
            x = a / np.linalg.norm(a)
            y = c - x * (x @ c)
            y /= np.linalg.norm(y)
            m = np.stack([x, y, np.cross(x, y)], axis=1)
            pos[b], rot[b] = (t, m) if p < 0 else (pos[p] + rot[p] @ t, rot[p] @ m)
        out_p.append([pos[b] for b in range(len(parents))])
        out_r.append([rot[b] for b in range(len(parents))])
    return np.array(out_p), np.array(out_r)


def test_forward_kinematics_against_plain_numpy():
    rng = np.random.default_rng(6)
    pose = _poses(rng, 5, PARENTS.size)
    _, pos, rot = losses._fk(pose, PARENTS)
    want_p, want_r = _plain_fk(pose, PARENTS)
    assert np.allclose(pos, want_p, rtol=1e-12, atol=1e-12)
    assert np.allclose(rot, want_r, rtol=1e-12, atol=1e-12)


def test_forward_kinematics_backward_against_finite_differences():
    rng = np.random.default_rng(7)
    pose = _poses(rng, 3, PARENTS.size)
    wp, wr = rng.normal(size=(3, PARENTS.size, 3)), rng.normal(size=(3, PARENTS.size, 3, 3))

    def value(q):
        _, p, r = losses._fk(q, PARENTS)
        return float((p * wp).sum() + (r * wr).sum())
    local, _, rot = losses._fk(pose, PARENTS)
    grad = np.zeros_like(pose)
    fk.backward(pose, PARENTS, local, rot, wp.copy(), wr.copy(), grad)
    h = 1e-6
    for i in np.ndindex(pose.shape):
        up, down = pose.copy(), pose.copy()
        up[i] += h
        down[i] -= h
        numeric = (value(up) - value(down)) / (2 * h)
        assert abs(numeric - grad[i]) <= 1e-6 + 1e-5 * abs(numeric), (i, numeric, grad[i])


def test_decompressor_gradient_against_finite_differences():
    rng = np.random.default_rng(2)
    bones, scaled, tracks = PARENTS.size, 1, 2
    n_out, feats, latent, c, w = 9 * bones + 3 * scaled + 6 + tracks, 3, 2, 3, 3
    cd, dd = _dims(n_out, 5, 1, latent), _dims(feats + latent, 7, 1, n_out)
    nc = _param_count(cd)
    params = np.concatenate([_net(rng, cd), _net(rng, dd)])
    y, x = rng.normal(size=(c, w, n_out)), rng.normal(size=(c, w, feats))
    mean, std = rng.normal(size=n_out), rng.uniform(0.5, 2, n_out)
    _check_gradient(losses.decompressor_chunk, params,
                    lambda p: (p[:nc].copy(), cd, p[nc:].copy(), dd, y, x, mean, std, PARENTS,
                               scaled, 30.0, 0.05, 8), rng, samples=80)


def test_the_length_unit_is_the_power_of_ten_that_makes_the_rest_human_sized():
    rest = np.array([[0.0, 0.0, 0.0], [10.0, 90.0, 0.0], [-80.0, 150.0, 5.0], [0.0, 183.0, 0.0]])
    assert losses.length_unit(rest) == 0.01                  # a human in cm (y spreads most)
    assert losses.length_unit(rest[:, [1, 0, 2]] / 100.0) == 1.0        # in metres
    assert losses.length_unit(rest * 10.0) == 0.001                      # in millimetres
    assert losses.length_unit(rest / 300.0) == 1.0                       # 0.61: a small creature
    assert losses.length_unit(np.zeros((1, 3))) == 1.0


def test_stepper_gradient_through_the_rollout():
    rng = np.random.default_rng(3)
    n, c, w = 5, 4, 4
    dims = _dims(n, 6, 2, n)
    states = rng.normal(size=(c, w, n))
    off, scale = rng.normal(size=n), rng.uniform(0.5, 2, n)
    _check_gradient(losses.stepper_chunk, _net(rng, dims),
                    lambda p: (p, dims, states, off, scale, off * 0.1, scale * 2, 3, 0.2, 8), rng)


def test_projector_gradient_against_finite_differences():
    rng = np.random.default_rng(4)
    dims = _dims(4, 6, 3, 7)
    q, t = rng.normal(size=(4, 4)), rng.normal(size=(4, 7))
    off, scale = rng.normal(size=7), rng.uniform(0.5, 2, 7)
    _check_gradient(losses.projector_chunk, _net(rng, dims),
                    lambda p: (p, dims, q, t, off, scale, 4, 4), rng)


def test_a_broken_backward_pass_fails_the_check(monkeypatch):
    """The check sees a wrong gradient: a bias gradient doubled."""
    rng = np.random.default_rng(4)
    dims = _dims(4, 6, 1, 6)
    q, t = rng.normal(size=(4, 4)), rng.normal(size=(4, 6))
    off, scale = rng.normal(size=6), rng.uniform(0.5, 2, 6)
    real = losses.projector_chunk

    def broken(payload):
        g, loss = real(payload)
        g[-6:] *= 2
        return g, loss
    with pytest.raises(AssertionError):
        _check_gradient(broken, _net(rng, dims), lambda p: (p, dims, q, t, off, scale, 4, 4), rng,
                        samples=_param_count(dims))


def test_nearest_is_the_exact_search():
    rng = np.random.default_rng(5)
    feats = rng.normal(size=(50, 6))
    frames = np.arange(3, 50, 2)
    queries = rng.normal(size=(20, 6))
    out = np.empty(20, np.int64)
    kernels.nearest(feats, frames, queries, out)
    d = ((queries[:, None] - feats[frames][None]) ** 2).sum(axis=2)
    assert (out == frames[d.argmin(axis=1)]).all()


def _through(tr) -> bytes:
    tr.train(ltf.total(tr))
    assert tr.done
    return tr.save_checkpoint()


@pytest.fixture(scope="module")
def reference():
    tr = ltf.trainer(1)
    mid = []
    for n in (5, 7, 6, 4):      # stage 0's middle and end, stage 1's middle and end
        tr.train(n)
        mid.append(tr.save_checkpoint())
    final = _through(tr)
    return mid, final, ltf.build(tr)


@pytest.mark.parametrize("workers", [2, 4])
def test_the_same_checkpoint_with_any_worker_count(reference, workers):
    assert _through(ltf.trainer(workers)) == reference[1]


def test_the_same_checkpoint_with_chunks_run_in_another_order(reference):
    tr = ltf.trainer(1, tasks=ltf.reversed_hooks())
    assert _through(tr) == reference[1]


def test_the_same_checkpoints_along_the_way(reference):
    tr = ltf.trainer(2)
    for n, saved in zip((5, 7, 6, 4), reference[0]):
        tr.train(n)
        assert tr.save_checkpoint() == saved


@pytest.mark.parametrize("at", [0, 1, 2, 3])
def test_training_on_from_a_restored_checkpoint(reference, at):
    """Restored in the middle of a stage (0, 2) or at a stage boundary (1: stage 0 done,
    stage 1 not begun; 3: stage 1 done), a fresh trainer trains on to the same bits."""
    tr = ltf.trainer(2)
    tr.restore_checkpoint(reference[0][at])
    assert tr.save_checkpoint() == reference[0][at]
    assert _through(tr) == reference[1]
    assert ltf.build(tr) == reference[2]


def test_a_stage_boundary_checkpoint_holds_no_moments(reference):
    tr = ltf.trainer(1)
    tr.restore_checkpoint(reference[0][1])
    assert (tr.stage, tr.stage_iteration, tr._begun) == (1, 0, False)
    assert len(reference[0][1]) < len(reference[0][0]) and len(reference[0][3]) < len(reference[0][2])


def test_the_same_checkpoint_in_another_process(reference):
    code = ("import sys; sys.path.insert(0, %r)\n"
            "import hashlib, learned_train_fixtures as ltf\n"
            "tr = ltf.trainer(2); tr.train(ltf.total(tr))\n"
            "print(hashlib.sha256(tr.save_checkpoint()).hexdigest())" % str(TESTS))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=TESTS.parent)
    assert out.stdout.split()[-1] == hashlib.sha256(reference[1]).hexdigest()
