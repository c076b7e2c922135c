"""The training data, sampled once at the trainer's making: every database frame's features
(as the database normalized them) and the Decompressor's targets sampled from its clip at
the frame's time, in the model's output layout (model_build.decompressor_outputs):

    per bone      its local translation, then its rotation's first two matrix columns
    per scaled    its local scale
    root motion   the root's velocity and angular velocity in its own space, per second (a
                  forward difference over one database frame; a backward one at a clip's end):
                  the clip's root motion's, as the database's features and a clip node's
                  move have it; bone 0's for a clip without root motion
    float tracks  the named track's value (0 where the clip has no such track)
    events        1 at the frame nearest an event of that name, else 0

Mirrored entries sample their clip as the database baked it, through the mirror map.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...clip.clip import sample_batch
from ...clip.rootmotion import moves_at
from ...core.transform import quat_conj, quat_mul, quat_rotate
from ...matching.database_build import MatchEntryFlag, _mirrored
from ...pose.pose import PoseBatch

X_AXIS = np.array([1.0, 0.0, 0.0])
Y_AXIS = np.array([0.0, 1.0, 0.0])


@dataclass
class TrainingData:
    features: np.ndarray      # (frames, F) float64
    outputs: np.ndarray       # (frames, outputs) float64, the Decompressor's targets
    first: np.ndarray         # (entries,) each entry's first frame
    count: np.ndarray         # (entries,) its frame count
    tags: np.ndarray          # (entries,) uint32


def _rotation_vectors(q: np.ndarray) -> np.ndarray:
    """Unit quaternions (xyzw) to axis times angle, the shorter way round."""
    q = np.where(q[:, 3:4] < 0, -q, q)
    s = np.linalg.norm(q[:, :3], axis=1)
    angle = 2.0 * np.arctan2(s, q[:, 3])
    with np.errstate(invalid="ignore", divide="ignore"):
        k = np.where(s > 1e-12, angle / np.where(s > 0, s, 1), 2.0)
    return q[:, :3] * k[:, None]


def _locals(sk, clip, times: np.ndarray) -> np.ndarray:
    batch = PoseBatch(sk, times.size)
    sample_batch(sk, clip, times, batch)
    return batch.locals.astype(np.float64)


def sample(sk, db, clips, mirror_map, scaled, tracks, events) -> TrainingData:
    frames, bones, rate = db.frame_count, sk.bone_count, db.rate
    dt = 1.0 / rate
    features = db.features[db.frame_slot[:frames]].astype(np.float64)
    rows = []
    mirrored = {}
    first = np.zeros(db.entry_count, np.int64)
    count = np.zeros(db.entry_count, np.int64)
    tags = np.zeros(db.entry_count, np.uint32)
    for e in range(db.entry_count):
        entry = db.entry(e)
        first[e], count[e] = db.entry_frames(e)
        tags[e] = entry.tags
        clip = clips[entry.clip]
        if entry.flags & MatchEntryFlag.mirrored:
            if entry.clip not in mirrored:
                mirrored[entry.clip] = _mirrored(mirror_map, sk, clip)
            clip = mirrored[entry.clip]
        if not count[e]:
            continue
        times = np.array([db.frame(f)[1] for f in range(first[e], first[e] + count[e])])
        ahead = times + dt <= clip.duration + 1e-9
        t0 = np.where(ahead, times, times - dt)
        now = _locals(sk, clip, times)
        if clip.moves is not None:          # its root motion carries the root, not bone 0
            a, b = moves_at(clip, t0), moves_at(clip, t0 + dt)
        else:
            a, b = _locals(sk, clip, t0)[:, 0], _locals(sk, clip, t0 + dt)[:, 0]
        q = now[:, :, 3:7].reshape(-1, 4)
        cols = np.concatenate([now[:, :, 0:3],
                               quat_rotate(q, X_AXIS).reshape(times.size, bones, 3),
                               quat_rotate(q, Y_AXIS).reshape(times.size, bones, 3)], axis=2)
        inverse = quat_conj(a[:, 3:7])
        velocity = quat_rotate(inverse, b[:, 0:3] - a[:, 0:3]) * rate
        turn = _rotation_vectors(quat_mul(inverse, b[:, 3:7])) * rate
        parts = [cols.reshape(times.size, -1), now[:, scaled, 7:10].reshape(times.size, -1),
                 velocity, turn]
        if tracks:
            values = clip.sample_floats_batch(times).astype(np.float64) \
                if clip.float_track_count else np.zeros((times.size, 0))
            for name in tracks:
                k = clip.find_float_track(name.decode("utf-8"))
                parts.append(values[:, k:k + 1] if k < clip.float_track_count else np.zeros((times.size, 1)))
        for name in events:
            state = np.zeros((times.size, 1))
            for i in range(clip.event_count):
                ev = clip.event(i)
                raw = ev.name if isinstance(ev.name, bytes) else str(ev.name).encode("utf-8")
                if raw == name:
                    state[np.argmin(np.abs(times - ev.time)), 0] = 1.0
            parts.append(state)
        rows.append(np.concatenate(parts, axis=1))
    outputs = np.concatenate(rows, axis=0)
    return TrainingData(features, outputs, first, count, tags)
