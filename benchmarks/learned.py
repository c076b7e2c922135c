"""Learned motion matching figures: Holden's network shapes (a state of 27 features and 32
latent values; Decompressor 59 -> 512 -> 338, Stepper 59 -> 512 -> 512 -> 59, Projector
27 -> 4 x 512 -> 59) with random weights of those shapes over a synthetic database (nine
bones' positions, 27 features, of a 36-bone humanoid: 36 bones x 9 + 6 root + 4 float
tracks + 4 events = 338 outputs), each evaluation one call with caller scratch, float32
weights (and the 16-bit ones for comparison); and the model's bytes against the bytes of
what it stands in for, the database and its clip, at Holden's size (53,500 frames at 60 Hz).

    python benchmarks/learned.py
"""
import time

import numpy as np

from _figures import emit, median_us

import runtime as rt
from runtime.learned import (LearnedLayer, LearnedModel, LearnedModelSource, LearnedNetwork,
                             LearnedOutput, LearnedProjector)
from runtime.matching import MatchChannel, MatchChannelKind, MatchEntry
from runtime.samples.humanoid import humanoid_source

BONES, FEATURE_BONES, LATENT = 36, 9, 32


def walk_clip(skeleton, frames: int, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    times = np.arange(frames) / 60.0
    channels = [rt.ChannelSource(b, rt.ChannelPath.translation, times,
                                 np.cumsum(rng.normal(0, 0.01, (frames, 3)), axis=0))
                for b in range(BONES)]
    return rt.build_clip(rt.Builder(), rt.ClipSource(
        skeleton, channels, sample_rate=60.0, duration=float(np.float32(times[-1]))))


def database(frames: int, seed: int = 0):
    """(skeleton, database, clip bytes): nine bones' translations walking at random."""
    skeleton = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(BONES)))
    clip_bytes = walk_clip(skeleton, frames, seed)
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
    trainer_figures()


def trainer_figures(rounds: int = 5) -> None:
    """Training speed at Holden's sizes (width 512, batch 32, the Compressor and
    Decompressor's stage) over the synthetic database, with 1 and 2 local workers: the two
    trainers' runs of 4 iterations alternating, `rounds` each, the best of each kept (other
    work on the machine only slows a run; the load average is reported beside); and, when
    the staged mocap is beside the repo, the shipped model's bytes against its database's
    and clips'."""
    import os
    from runtime.learned.train import (LearnedTrainer, LearnedTrainerSource,
                                       default_learned_trainer_def, default_learned_trainer_options)
    skeleton, db, _ = database(600)
    clip = rt.Clip(walk_clip(skeleton, 600, 0))
    trainers = {}
    for workers in (1, 2):
        d = default_learned_trainer_def()
        d.workers = workers
        trainers[workers] = LearnedTrainer(d, LearnedTrainerSource(
            skeleton, db, [clip], options=default_learned_trainer_options()))
        trainers[workers].train(2)
    rates = {1: 0.0, 2: 0.0}
    load = os.getloadavg()[0]
    for _ in range(rounds):
        for workers, tr in trainers.items():
            start = time.perf_counter()
            tr.train(4)
            rates[workers] = max(rates[workers], 4 / (time.perf_counter() - start))
    load = max(load, os.getloadavg()[0])
    for tr in trainers.values():
        tr.destroy()
    emit("train_iterations_per_s_1_worker", rates[1], "it/s", "higher", None)
    emit("train_iterations_per_s_2_workers", rates[2], "it/s", "higher",
         round(1.6 * rates[1], 3))
    emit("train_load_average", load, "load", "lower", None)
    from runtime.samples import learned_model, mocap
    if mocap.available() and learned_model.SHIPPED.is_file():
        skeleton, clips, sub = learned_model.subset_database()
        stood_for = len(sub.data) + sum(len(c.data) for c in clips)
        emit("trained_model_bytes_vs_database_bytes",
             learned_model.SHIPPED.stat().st_size / stood_for, "x", "lower", None)
        held_out_figures(skeleton, clips, sub, LearnedModel(learned_model.SHIPPED.read_bytes()))


def _root_space(pose, skeleton) -> np.ndarray:
    """Bone positions relative to bone 0, in its space (cm for the staged mocap)."""
    pose.compute_model(skeleton)
    m = pose.model.astype(np.float64)            # (bones, 3, 4)
    rotation, position = m[0, :, :3], m[:, :, 3]
    return (position - position[0]) @ rotation


def held_out_figures(skeleton, clips, sub, model, step: int = 5) -> None:
    """The shipped model on takes it never saw (the second take of each): their frames'
    features normalized as the model's database normalizes, projected (Projector 0),
    decompressed; the pose error in root space against the take's own pose, beside motion
    matching's (the nearest training frame's pose)."""
    from runtime.clip.build import build_clip
    from runtime.core.builder import Builder
    from runtime.matching.database_build import MatchEntry as Entry, MotionDatabaseSource
    from runtime.samples import learned_model, mocap
    held, entries = [], []
    for k, take in enumerate(learned_model.TAKES):
        source, _ = mocap.rooted_clip_source(mocap.MOCAP / f"{take[:-3]}002.bvh")
        held.append(rt.Clip(build_clip(Builder(), source)))
        entries.append(Entry(k, 0.0, held[-1].duration))
    other = rt.MotionDatabase(rt.build_motion_database(rt.Builder(), MotionDatabaseSource(
        skeleton, held, entries, mocap.holden_channels(skeleton), mocap.RATE)))
    offsets, scales = model.normalization()
    train = np.array([sub.frame_features(f) for f in range(sub.frame_count)], np.float64)
    pose, truth = rt.Pose(skeleton), rt.Pose(skeleton)
    out = LearnedOutput(pose, np.zeros(6, np.float32))
    learned, matched = [], []
    for f in range(0, other.frame_count, step):
        entry, t = other.frame(f)
        raw = other.frame_features(f).astype(np.float64) * other.scales + other.offsets
        query = ((raw - offsets) / scales).astype(np.float32)
        held[entry].sample(skeleton, t, truth)
        want = _root_space(truth, skeleton)
        model.decompress(model.project(0, query), out)
        learned.append(np.linalg.norm(_root_space(pose, skeleton) - want, axis=1).mean())
        near = int(((train - query) ** 2).sum(axis=1).argmin())
        e, u = sub.frame(near)
        clips[sub.entry(e).clip].sample(skeleton, u, truth)
        matched.append(np.linalg.norm(_root_space(truth, skeleton) - want, axis=1).mean())
    emit("trained_model_held_out_pose_error_cm", float(np.mean(learned)), "cm", "lower", None)
    emit("matching_held_out_pose_error_cm", float(np.mean(matched)), "cm", "lower", None)


if __name__ == "__main__":
    main()
