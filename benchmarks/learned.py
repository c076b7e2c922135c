"""Learned motion matching figures: Holden's network shapes (a state of 27 features and 32
latent values; Decompressor 59 -> 512 -> 338, Stepper 59 -> 512 -> 512 -> 59, Projector
27 -> 4 x 512 -> 59) with random weights of those shapes over a synthetic database (nine
bones' positions, 27 features, of a 36-bone humanoid: 36 bones x 9 + 6 root + 4 float
tracks + 4 events = 338 outputs), each evaluation one call with caller scratch, float32
weights (and the 16-bit ones for comparison); and the model's bytes against the bytes of
what it stands in for, the database and its clip, at Holden's size (53,500 frames at 60 Hz).

    python benchmarks/learned.py
"""
import numpy as np

from _figures import emit, median_us

import runtime as rt
from runtime.learned import (LearnedLayer, LearnedModel, LearnedModelSource, LearnedNetwork,
                             LearnedOutput, LearnedProjector)
from runtime.matching import MatchChannel, MatchChannelKind, MatchEntry
from runtime.samples.humanoid import humanoid_source

BONES, FEATURE_BONES, LATENT = 36, 9, 32


def database(frames: int, seed: int = 0):
    """(skeleton, database, clip bytes): nine bones' translations walking at random."""
    skeleton = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(BONES)))
    rng = np.random.default_rng(seed)
    times = np.arange(frames) / 60.0
    channels = [rt.ChannelSource(b, rt.ChannelPath.translation, times,
                                 np.cumsum(rng.normal(0, 0.01, (frames, 3)), axis=0))
                for b in range(BONES)]
    clip_bytes = rt.build_clip(rt.Builder(), rt.ClipSource(
        skeleton, channels, sample_rate=60.0, duration=float(np.float32(times[-1]))))
    clip = rt.Clip(clip_bytes)
    source = rt.MotionDatabaseSource(
        skeleton, [clip], [MatchEntry(0, 0.0, clip.duration)],
        [MatchChannel(MatchChannelKind.bone_position, b) for b in range(1, FEATURE_BONES + 1)], 60.0)
    data = rt.build_motion_database(rt.Builder(), source)
    return skeleton, rt.MotionDatabase(data), len(data) + len(clip_bytes)


def network(rng, widths) -> LearnedNetwork:
    layers = [LearnedLayer(rng.normal(0, np.sqrt(2 / a), (a, b)).astype(np.float32),
                           rng.normal(0, 0.05, b).astype(np.float32))
              for a, b in zip(widths[:-1], widths[1:])]
    return LearnedNetwork(layers)


def model(skeleton, db, weight_format: int) -> LearnedModel:
    rng = np.random.default_rng(1)
    state = db.feature_count + LATENT
    src = LearnedModelSource(
        skeleton, db, network(rng, [state, 512, 338]), network(rng, [state, 512, 512, state]),
        [LearnedProjector(network(rng, [db.feature_count, 512, 512, 512, 512, state]))],
        latent_count=LATENT, step_rate=60.0, float_tracks=[f"t{i}" for i in range(4)],
        events=[f"e{i}" for i in range(4)], weight_format=weight_format)
    return LearnedModel(rt.build_learned_model(rt.Builder(), src))


def main() -> None:
    skeleton, db, _ = database(600)
    assert db.feature_count == 27
    for fmt, suffix in ((0, ""), (1, "_16bit")):
        m = model(skeleton, db, fmt)
        assert m.output_count == 338 and m.state_count == 59
        scratch = np.zeros(m.scratch_size // 8 + 1, np.float64)
        query = np.random.default_rng(2).normal(0, 1, 27).astype(np.float32)
        state = m.project(0, query, scratch=scratch)
        pose = rt.Pose(skeleton)
        pose.set_rest(skeleton)
        out = LearnedOutput(pose, np.zeros(6, np.float32), np.zeros(4, np.float32),
                            np.zeros(4, np.float32))
        moving = state.copy()

        def step():
            moving[:] = state
            m.step(moving, scratch)
        targets = (40, 50, 60) if not suffix else (None, None, None)
        emit(f"learned_decompress_us{suffix}",
             median_us(lambda: m.decompress(state, out, scratch), number=200), "us", "lower",
             targets[0])
        emit(f"learned_step_us{suffix}", median_us(step, number=200), "us", "lower", targets[1])
        emit(f"learned_project_us{suffix}",
             median_us(lambda: m.project(0, query, state, scratch), number=200), "us", "lower",
             targets[2])
        if not suffix:
            model_bytes = len(m.data)
    skeleton, big, stood_for = database(53_500)
    emit("learned_model_bytes", model_bytes, "bytes", "lower", None)
    emit("learned_model_bytes_vs_database_bytes", model_bytes / stood_for, "x", "lower", None)


if __name__ == "__main__":
    main()
