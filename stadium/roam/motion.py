"""What the trainer's locomotion is made of, built once per process from the staged mocap
(runtime.samples.mocap): its walks, runs and turns as the staged database has them, plain
and mirrored entries, and one more clip: an idle, the staged standing frame held (the
staged walks and runs neither start nor end standing, so without it a trainer who stops
would freeze mid-stride); every clip baked onto the trainer's skeleton through one
retarget map; and the motion database over the baked clips, with the trainer's mirror map
for the mirrored entries and Holden's features on the trainer's bones.

Baking, not retargeting each frame: a frame then samples one small clip of the trainer
(24 bones) instead of sampling the mocap and retargeting it (benchmarks/matching.py
measures both: `roam_pose_baked_us` against `roam_pose_retarget_us`), and the graph's
motion-matching node plays clips of the graph's own skeleton only.

The retarget map's mocap reference is the staged standing frame, one reference for every
clip, so all the baked clips agree on the trainer's posture and a switch between them is a
small one for the inertializer to take. The mocap is third-party and never copied into the
repository: without ../shared there is no roam mode (`missing()` says why).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

import runtime as rt
from runtime.matching import (MatchChannel, MatchChannelKind, MatchEntry, MatchEntryFlag,
                              MotionDatabaseSource)
from runtime.samples import mocap
from runtime.samples.trainer import mocap_reference, mocap_retarget_source

from ..battle.trainer_clips import mirror_map as trainer_mirror_map
from ..rig.trainer_model import trainer_model

FEET = ("Foot_L", "Foot_R")
IDLE_SECONDS = 2.0
TAG_IDLE = 8


def missing() -> str | None:
    """Why there is no roam mode here (the staged mocap not beside the repo), or None."""
    if not mocap.available():
        return f"roam mode needs the staged mocap at {mocap.MOCAP} (not found)"
    return None


@dataclass(frozen=True, eq=False)
class RoamMotion:
    """The staged clips (over the mocap skeleton), the trainer's baked clips, the motion
    database over them, and the maps."""

    staged: SourceClips
    trainer: rt.Skeleton
    retarget: rt.RetargetMap
    mirror: rt.MirrorMap                # the trainer's
    baked: tuple                        # each staged clip on the trainer
    database: rt.MotionDatabase         # over the baked clips, the trainer's features
    bake_seconds: float

    @property
    def source(self) -> rt.Skeleton:
        return self.staged.skeleton


def retarget_map(source: rt.Skeleton, trainer: rt.Skeleton) -> rt.RetargetMap:
    """The mocap onto the trainer, its reference the staged standing frame lined up with
    the trainer's rest."""
    standing = rt.Clip(rt.build_clip(rt.Builder(), mocap.rooted_clip_source(
        mocap.MOCAP / f"{mocap.STANDING}.bvh")[0]))
    first = rt.Pose(source)
    standing.sample(source, 0.0, first)
    first.compute_model(source)
    ankle = float(min(first.model[source.find_bone(f), 1, 3] for f in FEET))
    reference = mocap_reference(source, first.locals, trainer, ankle)
    return rt.RetargetMap(rt.build_retarget_map(rt.Builder(),
                                                mocap_retarget_source(source, reference, trainer)))


def idle_clip_source() -> rt.ClipSource:
    """The staged standing frame held IDLE_SECONDS, its root still."""
    source, skeleton = mocap.rooted_clip_source(mocap.MOCAP / f"{mocap.STANDING}.bvh")
    times = [0.0, IDLE_SECONDS]
    channels = [rt.ChannelSource(c.bone, c.path, times,
                                 np.repeat(np.asarray(c.values[:1], np.float64), 2, axis=0))
                for c in source.channels]
    return rt.ClipSource(skeleton, channels, sample_rate=source.sample_rate,
                         duration=IDLE_SECONDS, root_motion=source.root_motion)


@dataclass(frozen=True, eq=False)
class SourceClips:
    """The staged locomotion and the idle over the mocap skeleton: clips, their names, and
    the database's entries over them (each staged clip whole, plain and mirrored; the idle
    plain, being its own mirror near enough)."""

    skeleton: rt.Skeleton
    clips: list
    names: list
    entries: list


def source_clips() -> SourceClips:
    files = sorted(p for p in mocap.MOCAP.glob("*.bvh")
                   if p.stem.rsplit("_", 1)[0] in mocap.LOCOMOTION)
    sources = [mocap.rooted_clip_source(p) for p in files]
    clips = [rt.Clip(rt.build_clip(rt.Builder(), source)) for source, _ in sources]
    clips.append(rt.Clip(rt.build_clip(rt.Builder(), idle_clip_source())))
    names = [p.stem for p in files] + ["idle"]
    entries = [MatchEntry(k, 0.0, clips[k].duration, mocap._tags(name), 0.0, int(flags))
               for k, name in enumerate(names[:-1]) for flags in (0, MatchEntryFlag.mirrored)]
    entries.append(MatchEntry(len(clips) - 1, 0.0, IDLE_SECONDS, TAG_IDLE, 0.0, 0))
    return SourceClips(sources[0][1], clips, names, entries)


def trainer_channels(trainer: rt.Skeleton) -> list:
    """holden_channels on the trainer's bones: its ankles' positions and velocities, its
    pelvis's velocity, the trajectory at FUTURE."""
    K = MatchChannelKind
    foot_l, foot_r, pelvis = (trainer.find_bone(n) for n in ("foot.L", "foot.R", "pelvis"))
    return [MatchChannel(K.bone_position, foot_l, (0.0,), 0.75),
            MatchChannel(K.bone_position, foot_r, (0.0,), 0.75),
            MatchChannel(K.bone_velocity, foot_l, (0.0,), 1.0),
            MatchChannel(K.bone_velocity, foot_r, (0.0,), 1.0),
            MatchChannel(K.bone_velocity, pelvis, (0.0,), 1.0),
            MatchChannel(K.trajectory_position, 0, mocap.FUTURE, 1.0),
            MatchChannel(K.trajectory_facing, 0, mocap.FUTURE, 1.5)]


def trainer_database(staged: SourceClips, trainer: rt.Skeleton, baked, mirror) -> rt.MotionDatabase:
    """The entries over the baked clips (each baked clip as long as its source)."""
    entries = [MatchEntry(e.clip, e.start, float(baked[e.clip].duration), e.tags, e.cost_bias,
                          e.flags) for e in staged.entries]
    return rt.MotionDatabase(rt.build_motion_database(rt.Builder(), MotionDatabaseSource(
        trainer, list(baked), entries, trainer_channels(trainer), mocap.RATE, mirror)))


@lru_cache(maxsize=1)
def roam_motion() -> RoamMotion:
    """Built at first use (a few seconds: the mocap's clips, the bake, the database)."""
    import time

    staged = source_clips()
    trainer = trainer_model().skeleton
    start = time.perf_counter()
    m = retarget_map(staged.skeleton, trainer)
    mirror = trainer_mirror_map(trainer)
    baked = tuple(rt.Clip(rt.build_retargeted_clip(rt.Builder(), rt.RetargetClipSource(
        m, staged.skeleton, trainer, clip))) for clip in staged.clips)
    seconds = time.perf_counter() - start
    return RoamMotion(staged, trainer, m, mirror, baked,
                      trainer_database(staged, trainer, baked, mirror), seconds)
