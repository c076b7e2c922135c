"""That the trainer learns, measured by plain evaluations of the model it builds: after a
CI-sized training on the hostile world's database, the Decompressor's pose error (bone
positions in model space, by a numpy forward kinematics of our own) against the clip's
sampled poses, beside the error of the mean pose; and the Projector's nearest-frame accuracy
on noisy queries it never saw, against the exact nearest frame by numpy."""
from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.learned import LearnedModel, LearnedOutput

import learned_train_fixtures as ltf

W = ltf.WORLD
ITERATIONS = dict(decompressor_iterations=600, stepper_iterations=50, projector_iterations=600)


def _rotate(q, v):
    u, w = q[..., :3], q[..., 3:4]
    c = 2.0 * np.cross(u, v)
    return v + w * c + np.cross(u, c)


def _qmul(a, b):
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz], -1)


def positions(sk, locals_) -> np.ndarray:
    """Model-space bone positions of local transforms (t, q xyzw, s): float64 numpy."""
    loc = np.asarray(locals_, np.float64)
    pos, rot, scl = np.zeros((sk.bone_count, 3)), np.zeros((sk.bone_count, 4)), np.ones((sk.bone_count, 3))
    for b in range(sk.bone_count):
        p = int(sk.parents[b])
        t, q, s = loc[b, :3], loc[b, 3:7] / np.linalg.norm(loc[b, 3:7]), loc[b, 7:10]
        if p >= sk.bone_count:
            pos[b], rot[b], scl[b] = t, q, s
        else:
            pos[b] = pos[p] + _rotate(rot[p], scl[p] * t)
            rot[b], scl[b] = _qmul(rot[p], q), scl[p] * s
    return pos


@pytest.fixture(scope="module")
def trained():
    tr = ltf.trainer(2, ltf.source(options=ltf.options(width=48, batch=16, **ITERATIONS)))
    tr.train(ltf.total(tr))
    return tr, LearnedModel(ltf.build(tr))


def _plain_frames():
    """(frame, clip time) of the frames of entries that play their clip as it is."""
    db = W.database
    out = []
    for e in range(db.entry_count):
        if not db.entry(e).flags & 2:
            first, n = db.entry_frames(e)
            out += [(f, db.frame(f)[1]) for f in range(first, first + n)]
    return out


def test_the_decompressor_gives_the_poses(trained):
    tr, model = trained
    sk, db = W.skeleton, W.database
    latents = tr.latents
    truth, got = [], []
    pose = rt.Pose(sk)
    out = LearnedOutput(rt.Pose(sk), np.zeros(6, np.float32), np.zeros(1, np.float32),
                        np.zeros(1, np.float32))
    for f, t in _plain_frames():
        W.match_clip.sample(sk, t, pose)
        truth.append(positions(sk, pose.locals))
        state = np.concatenate([db.frame_features(f), latents[f]]).astype(np.float32)
        model.decompress(state, out)
        got.append(positions(sk, out.pose.locals))
    truth, got = np.array(truth), np.array(got)
    error = np.linalg.norm(got - truth, axis=2).mean()
    baseline = np.linalg.norm(truth - truth.mean(axis=0), axis=2).mean()
    print(f"decompressor error {error:.4f} against the mean pose's {baseline:.4f}")
    assert error < 0.3 * baseline


def test_the_projector_finds_the_nearest_frame(trained):
    tr, model = trained
    db = W.database
    feats = np.array([db.frame_features(f) for f in range(db.frame_count)], np.float64)
    spans = [db.entry_frames(e) for e in range(db.entry_count) if db.entry(e).tags & 1]
    eligible = np.concatenate([np.arange(first, first + n) for first, n in spans])
    rng = np.random.default_rng(11)
    picks = rng.choice(eligible, 200)
    queries = feats[picks] + 0.1 * rng.standard_normal((200, db.feature_count))
    hits = 0
    for q in queries:
        exact = eligible[((feats[eligible] - q) ** 2).sum(axis=1).argmin()]
        state = model.project(0, q.astype(np.float32))
        found = eligible[((feats[eligible] - state[:db.feature_count]) ** 2).sum(axis=1).argmin()]
        hits += found == exact
    accuracy = hits / len(queries)
    print(f"projector nearest-frame accuracy {accuracy:.3f} over {eligible.size} frames")
    assert accuracy >= 0.5
