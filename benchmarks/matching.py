"""Motion matching figures: the exact k-d search on the staged database (Bandai Namco's walks,
runs and turns at 60 Hz with mirrored entries, Holden's 27 features) over queries a
controller makes (runtime/samples/mocap.py's trajectory_queries), against a numpy
brute-force scan of the same queries in the same run; the search on a synthetic database of
Holden's size (53,500 frames of 27 random-walk features: nine bones walking at random); and
the staged database's build. And roam mode's frame (stadium.roam: the trajectory, the
trainer's graph updated and evaluated (its motion-matching node searching when due, the
switch inertialized), skinning), and the same frame driven by the shipped learned model
(`roam_frame_learned_us`: its node stepping, projecting when due, decompressing); and the
trainer's pose two ways: sampled from a clip baked onto it, against sampling the mocap and
retargeting it each frame (what baking saves, and what it costs once).

    python benchmarks/matching.py
"""
import statistics
import time

import numpy as np

from _figures import emit, median_us

import runtime as rt
from runtime.matching import MatchChannel, MatchChannelKind, MatchEntry, MatchQuery, MatchResult
from runtime.samples import mocap
from runtime.samples.humanoid import humanoid_source

QUERIES = 1000


def _per_query_us(fn, queries) -> float:
    """The median over queries of each one's time (the first call compiles, untimed)."""
    fn(queries[0])
    times = []
    for q in queries:
        start = time.perf_counter()
        fn(q)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def _searcher(db):
    query, result = MatchQuery(np.zeros(db.feature_count, np.float32)), MatchResult()

    def search(q):
        query.features = q
        rt.search_motion_database(db, query, result)
    return search


def _brute_force(db):
    """Every frame's cost with numpy (what a plain scan costs), the least taken."""
    features = np.stack([db.frame_features(f) for f in range(db.frame_count)])
    bias = db.entry_bias[db.frame_entry]

    def scan(q):
        qn = (q - db.offsets) / db.scales
        d = features - qn
        return int(np.argmin(bias + np.einsum("ij,ij->i", d, d)))
    return scan


def synthetic_database(frames: int = 53_500, bones: int = 9, seed: int = 0):
    """Nine bones of a humanoid whose translations walk at random (no root motion), so their
    27 position features are random walks, one clip of `frames` samples at 60 Hz."""
    source = humanoid_source(bones + 1)
    skeleton = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), source))
    rng = np.random.default_rng(seed)
    times = np.arange(frames) / 60.0
    channels = [rt.ChannelSource(b, rt.ChannelPath.translation, times,
                                 np.cumsum(rng.normal(0, 0.01, (frames, 3)), axis=0))
                for b in range(bones + 1)]
    clip = rt.Clip(rt.build_clip(rt.Builder(), rt.ClipSource(skeleton, channels, sample_rate=60.0,
                                                             duration=float(np.float32(times[-1])))))
    db_source = rt.MotionDatabaseSource(
        skeleton, [clip], [MatchEntry(0, 0.0, clip.duration)],
        [MatchChannel(MatchChannelKind.bone_position, b) for b in range(1, bones + 1)], 60.0)
    return rt.MotionDatabase(rt.build_motion_database(rt.Builder(), db_source))


def main() -> None:
    if not mocap.available():
        raise SystemExit("the staged mocap is not here")
    mocap.staged_database()                 # compiles the kernels the build uses
    staged = mocap.staged_database()
    db = staged.database
    queries = mocap.trajectory_queries(db, QUERIES, seed=0)
    search_us = _per_query_us(_searcher(db), queries)
    brute_us = _per_query_us(_brute_force(db), queries)
    emit("match_search_us", search_us, "us", "lower", 50)
    emit("match_search_vs_brute_force_x", brute_us / search_us, "x", "higher", 10)

    synthetic = synthetic_database()
    assert synthetic.frame_count == 53_500 and synthetic.feature_count == 27
    rng = np.random.default_rng(1)
    near = [synthetic.frame_features(int(f)) + rng.normal(0, 0.1, 27).astype(np.float32)
            for f in rng.integers(synthetic.frame_count, size=QUERIES)]
    raw = [(n.astype(np.float64) * synthetic.scales + synthetic.offsets).astype(np.float32)
           for n in near]
    emit("match_search_54k_synthetic_us", _per_query_us(_searcher(synthetic), raw), "us",
         "lower", 400)

    emit("database_build_s", staged.build_seconds, "s", "lower", None)
    emit("database_frames", db.frame_count, "frames", "higher", None)
    emit("database_bytes", len(staged.data), "bytes", "lower", None)
    roam()


def roam() -> None:
    from stadium.render import diorama
    from stadium.roam import quality
    from stadium.roam.learned import open_model
    from stadium.roam.motion import roam_motion
    from stadium.roam.scene import RoamScene

    motion = roam_motion()
    world = diorama.build()
    model = open_model()
    for figure, driver in (("roam_frame_us", "database"), ("roam_frame_learned_us", "learned")):
        scene = RoamScene(world, (world.cell("left"), world.cell("right")), quality.PATH,
                          model, driver)
        scene.update(quality.DT)
        steps = []
        for _ in range(quality.PATH_STEPS):
            start = time.perf_counter()
            scene.update(quality.DT)
            steps.append(time.perf_counter() - start)
        scene.release()
        emit(figure, statistics.median(steps) * 1e6, "us", "lower", 1000)

    trainer, source = motion.trainer, motion.source
    baked, clip = motion.baked[0], motion.staged.clips[0]
    pose, read = rt.Pose(trainer), rt.Pose(source)
    times = iter(np.tile(np.arange(0, clip.duration, 1 / 60), 10_000))
    emit("roam_pose_baked_us", median_us(lambda: baked.sample(trainer, next(times), pose)),
         "us", "lower", None)

    def per_frame():
        clip.sample(source, next(times), read)
        motion.retarget.retarget_pose(source, read, trainer, pose)
    emit("roam_pose_retarget_us", median_us(per_frame), "us", "lower", None)
    emit("roam_bake_s", motion.bake_seconds, "s", "lower", None)


if __name__ == "__main__":
    main()
