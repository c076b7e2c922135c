"""That the trainer learns, measured by plain evaluations of the models it builds, on what
they never saw: the shipped model (what the code trains from the first take of each staged
clip, test_learned_train_shipped.py) on the second takes, each frame's query projected and
decompressed, its pose error (bone positions relative to the root, by a numpy forward
kinematics of our own) beside the mean training pose's and motion matching's (the nearest
training frame's pose); and, after a CI-sized training on the hostile world's database, the
Projector's nearest-frame accuracy on noisy queries, against the exact nearest frame by
numpy."""
from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.learned import LearnedModel, LearnedOutput

import learned_train_fixtures as ltf

W = ltf.WORLD
LEARNED_VS_MEAN, LEARNED_VS_MATCHED = 0.35, 1.0    # the held-out bounds
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


def positions(sk, locals_, root_space: bool = False) -> np.ndarray:
    """Model-space bone positions of local transforms (t, q xyzw, s): float64 numpy; with
    root_space, relative to bone 0 in its axes."""
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
    if root_space:
        inverse = rot[0] * np.array([-1.0, -1.0, -1.0, 1.0])
        return _rotate(np.broadcast_to(inverse, (sk.bone_count, 4)), pos - pos[0])
    return pos


@pytest.fixture(scope="module")
def trained():
    tr = ltf.trainer(2, ltf.source(options=ltf.options(width=48, batch=16, **ITERATIONS)))
    tr.train(ltf.total(tr))
    return tr, LearnedModel(ltf.build(tr))


@pytest.fixture(scope="module")
def held_out():
    """(skeleton, training clips and database, the held-out takes' clips and database)."""
    from runtime.samples import learned_model, mocap
    if not mocap.available() or not learned_model.SHIPPED.is_file():
        pytest.skip("the staged mocap is not beside the repo")
    skeleton, clips, sub = learned_model.subset_database()
    held, entries = [], []
    for k, take in enumerate(learned_model.TAKES):
        source, _ = mocap.rooted_clip_source(mocap.MOCAP / f"{take[:-3]}002.bvh")
        held.append(rt.Clip(rt.build_clip(rt.Builder(), source)))
        entries.append(rt.MatchEntry(k, 0.0, held[-1].duration))
    other = rt.MotionDatabase(rt.build_motion_database(rt.Builder(), rt.MotionDatabaseSource(
        skeleton, held, entries, mocap.holden_channels(skeleton), mocap.RATE)))
    return skeleton, clips, sub, held, other, LearnedModel(learned_model.SHIPPED.read_bytes())


def test_the_shipped_model_gives_held_out_poses(held_out):
    sk, clips, sub, held, other, model = held_out
    offsets, scales = model.normalization()
    train = np.array([sub.frame_features(f) for f in range(sub.frame_count)], np.float64)
    pose = rt.Pose(sk)
    out = LearnedOutput(rt.Pose(sk), np.zeros(6, np.float32))
    trained = []
    for f in range(0, sub.frame_count, 5):
        e, t = sub.frame(f)
        clips[sub.entry(e).clip].sample(sk, t, pose)
        trained.append(positions(sk, pose.locals, True))
    mean_pose = np.mean(trained, axis=0)
    learned, matched, mean = [], [], []
    for f in range(0, other.frame_count, 5):
        entry, t = other.frame(f)
        raw = other.frame_features(f).astype(np.float64) * other.scales + other.offsets
        query = (raw - offsets) / scales
        held[entry].sample(sk, t, pose)
        truth = positions(sk, pose.locals, True)
        model.decompress(model.project(0, query.astype(np.float32)), out)
        learned.append(np.linalg.norm(positions(sk, out.pose.locals, True) - truth, axis=1).mean())
        e, u = sub.frame(int(((train - query) ** 2).sum(axis=1).argmin()))
        clips[sub.entry(e).clip].sample(sk, u, pose)
        matched.append(np.linalg.norm(positions(sk, pose.locals, True) - truth, axis=1).mean())
        mean.append(np.linalg.norm(mean_pose - truth, axis=1).mean())
    learned, matched, mean = (float(np.mean(v)) for v in (learned, matched, mean))
    print(f"held-out pose error {learned:.3f} against matching's {matched:.3f} and the mean "
          f"pose's {mean:.3f}")
    assert learned < LEARNED_VS_MEAN * mean and learned < LEARNED_VS_MATCHED * matched


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
