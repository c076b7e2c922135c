"""The staged motion capture (Bandai Namco's second set: BVH at 30 Hz, in cm, y up, walking
+z) as the tests and benchmarks share it: clips with a root trajectory, a mirror map for the
skeleton, and "the staged database" of its walks, runs and turns at 60 Hz with mirrored
entries and Holden's 27 features.

The files' joint_Root never moves, so each clip gets a root as Holden's simulation bone is
made: the hips' position on the ground and the facing their left-right axis gives (smoothed
over a few frames, so the gait's sway stays in the hips), taken as root motion (x, z and
the turn about y). The mirror map pairs _L and _R bones across x, its reference a standing
frame centred on the root (nearly symmetric, as a captured pose can be).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..clip.build import ChannelPath, ChannelSource, ClipSource, build_clip
from ..clip.clip import Clip
from ..clip.rootmotion import RootAxes, RootMotionSource, RootRotation
from ..core.builder import Builder
from ..core.transform import quat_conj, quat_mul, quat_rotate
from ..importers.bvh import load_bvh
from ..mapping.mirror import MirrorMap
from ..mapping.mirror_build import MirrorAxis, MirrorMapSource, MirrorRule, RulePlace, build_mirror_map
from ..matching.database import MotionDatabase
from ..matching.database_build import (MatchChannel, MatchChannelKind, MatchEntry, MatchEntryFlag,
                                       MotionDatabaseSource, build_motion_database)
from ..matching.trajectory import Trajectory, TrajectoryGoal, advance, trajectory_features
from ..pose.skeleton import Skeleton

MOCAP = Path(__file__).resolve().parents[2].parent / "shared" / "testdata" / "mocap" / "bandai-namco-2"
LOCOMOTION = ("walk_normal", "run_normal", "walk-turn-left_normal", "walk-turn-right_normal")
STANDING = "raise-up-both-hands_normal_001"
RATE = 60.0
FUTURE = (20 / 60, 40 / 60, 60 / 60)        # Holden's trajectory times: 20, 40 and 60 frames
SMOOTHING_FRAMES = 3.0                      # the facing's Gaussian, in 30 Hz frames
TAG_WALK, TAG_RUN, TAG_TURN = 1, 2, 4


def available() -> bool:
    return MOCAP.is_dir() and any(MOCAP.glob("walk_normal_*.bvh"))


def _smoothed(values: np.ndarray, sigma: float) -> np.ndarray:
    radius = int(3 * sigma)
    k = np.exp(-0.5 * (np.arange(-radius, radius + 1) / sigma) ** 2)
    k /= k.sum()
    padded = np.pad(values, ((radius, radius), (0, 0)), mode="edge")
    return np.stack([np.convolve(padded[:, c], k, mode="valid") for c in range(values.shape[1])],
                    axis=1)


def rooted_clip_source(path) -> tuple[ClipSource, Skeleton]:
    """A staged file's clip source with joint_Root carrying the hips' ground position and
    facing as root motion."""
    imp = load_bvh(path)
    source = imp.clip_source
    sk = source.skeleton
    hips = sk.find_bone("Hips")
    by = {(c.bone, c.path): c for c in source.channels}
    times = by[(hips, ChannelPath.translation)].times
    ht = np.asarray(by[(hips, ChannelPath.translation)].values, np.float64)
    hq = np.asarray(by[(hips, ChannelPath.rotation)].values, np.float64)
    left = sk.rests[sk.find_bone("UpperLeg_L"), 0:3] - sk.rests[sk.find_bone("UpperLeg_R"), 0:3]
    side = quat_rotate(hq, np.broadcast_to(left.astype(np.float64), ht.shape))
    forward = np.cross(side, [0.0, 1.0, 0.0])
    forward = _smoothed(forward, SMOOTHING_FRAMES)
    yaw = np.arctan2(forward[:, 0], forward[:, 2])
    rq = np.zeros((times.size, 4))
    rq[:, 1], rq[:, 3] = np.sin(yaw / 2), np.cos(yaw / 2)
    rq[1:] *= np.where(np.cumsum(np.einsum("ij,ij->i", rq[1:], rq[:-1]) < 0) % 2, -1.0, 1.0)[:, None]
    rt = ht * [1.0, 0.0, 1.0]
    inv = quat_conj(rq)
    channels = [c for c in source.channels if c.bone not in (0, hips)]
    channels += [ChannelSource(0, ChannelPath.translation, times, rt),
                 ChannelSource(0, ChannelPath.rotation, times, rq),
                 ChannelSource(hips, ChannelPath.translation, times, quat_rotate(inv, ht - rt)),
                 ChannelSource(hips, ChannelPath.rotation, times, quat_mul(inv, hq))]
    return ClipSource(sk, channels, sample_rate=source.sample_rate, duration=source.duration,
                      root_motion=RootMotionSource(0, RootAxes.x | RootAxes.z,
                                                   RootRotation.about_y)), sk


def staged_mirror_map(skeleton: Skeleton) -> MirrorMap:
    """_L and _R partners across x; the reference a standing frame with its root at the
    origin."""
    source, _ = rooted_clip_source(MOCAP / f"{STANDING}.bvh")
    reference = np.array(skeleton.rests, dtype=np.float64)
    for c in source.channels:
        cols = slice(0, 3) if c.path == ChannelPath.translation else slice(3, 7)
        reference[c.bone, cols] = np.asarray(c.values[0], np.float64)
    reference[0, 0:7] = [0, 0, 0, 0, 0, 0, 1]
    return MirrorMap(build_mirror_map(Builder(), MirrorMapSource(
        skeleton, MirrorAxis.x, reference.astype(np.float32),
        rules=[MirrorRule("_L", "_R", RulePlace.suffix), MirrorRule("_R", "_L", RulePlace.suffix)])))


def holden_channels(skeleton: Skeleton) -> list[MatchChannel]:
    """Holden's 27 features: the feet's positions and velocities, the hips' velocity, and the
    trajectory's positions and facings 20, 40 and 60 frames ahead."""
    foot_l, foot_r, hips = (skeleton.find_bone(n) for n in ("Foot_L", "Foot_R", "Hips"))
    K = MatchChannelKind
    return [MatchChannel(K.bone_position, foot_l, (0.0,), 0.75),
            MatchChannel(K.bone_position, foot_r, (0.0,), 0.75),
            MatchChannel(K.bone_velocity, foot_l, (0.0,), 1.0),
            MatchChannel(K.bone_velocity, foot_r, (0.0,), 1.0),
            MatchChannel(K.bone_velocity, hips, (0.0,), 1.0),
            MatchChannel(K.trajectory_position, 0, FUTURE, 1.0),
            MatchChannel(K.trajectory_facing, 0, FUTURE, 1.5)]


@dataclass
class StagedDatabase:
    skeleton: Skeleton
    clips: list
    names: list
    mirror_map: MirrorMap
    source: MotionDatabaseSource
    database: MotionDatabase
    data: bytes
    build_seconds: float


def _tags(name: str) -> int:
    return (TAG_RUN if name.startswith("run") else TAG_WALK) | (TAG_TURN if "turn" in name else 0)


def staged_database(mirrored: bool = True) -> StagedDatabase:
    """The staged walks, runs and turns at 60 Hz, each entry whole, with a mirrored entry of
    each clip when `mirrored`."""
    files = sorted(p for p in MOCAP.glob("*.bvh") if p.stem.rsplit("_", 1)[0] in LOCOMOTION)
    sources = [rooted_clip_source(p) for p in files]
    skeleton = sources[0][1]
    clips = []
    for source, sk in sources:
        assert sk.identity == skeleton.identity, "staged files of different skeletons"
        clips.append(Clip(build_clip(Builder(), source)))
    mirror_map = staged_mirror_map(skeleton)
    entries = []
    for k, (clip, path) in enumerate(zip(clips, files)):
        for flags in ((0, MatchEntryFlag.mirrored) if mirrored else (0,)):
            entries.append(MatchEntry(k, 0.0, clip.duration, _tags(path.stem), 0.0, int(flags)))
    source = MotionDatabaseSource(skeleton, clips, entries, holden_channels(skeleton), RATE,
                                  mirror_map if mirrored else None)
    start = time.perf_counter()
    data = build_motion_database(Builder(), source)
    seconds = time.perf_counter() - start
    return StagedDatabase(skeleton, clips, [p.stem for p in files], mirror_map, source,
                          MotionDatabase(data), data, seconds)


def trajectory_queries(db: MotionDatabase, count: int, seed: int) -> np.ndarray:
    """Raw queries as a controller makes them over a database of holden_channels: a
    frame's pose features, then the trajectory the springs predict at FUTURE toward a
    random desired velocity (standing, walking or running pace) and facing."""
    rng = np.random.default_rng(seed)
    trajectory_width = 4 * len(FUTURE)
    pose_width = db.feature_count - trajectory_width
    out = np.zeros((count, db.feature_count), np.float32)
    for k in range(count):
        f = int(rng.integers(db.frame_count))
        normalized = db.frame_features(f).astype(np.float64)
        out[k] = (normalized * db.scales + db.offsets).astype(np.float32)
        speed = rng.choice([0.0, 150.0, 400.0])
        heading = rng.uniform(-np.pi, np.pi)
        facing = heading + rng.normal(0, 0.3)
        root = Trajectory(velocity=(rng.normal(0, 50), 0, rng.uniform(0, 300)),
                          angular_velocity=(0, rng.normal(0, 1), 0))
        goal = TrajectoryGoal((speed * np.sin(heading), 0, speed * np.cos(heading)),
                              (0, np.sin(facing / 2), 0, np.cos(facing / 2)), 0.2, 0.2)
        positions, facings = [], []
        for t in FUTURE:
            sample = root.copy()
            advance(sample, goal, t)
            p, d = trajectory_features(db, root, sample)
            positions.append(p)
            facings.append(d)
        out[k, pose_width:] = np.concatenate(positions + facings)
    return out
