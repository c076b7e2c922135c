"""What the trainer's locomotion is made of, built once per process from the staged mocap
(runtime.samples.mocap): the motion database of its walks, runs and turns with mirrored
entries, as the staged database has them, and one more: an idle, the staged standing
frame held (the staged walks and runs neither start nor end standing, so without it a
trainer who stops would freeze mid-stride); and every database clip baked onto the
trainer's skeleton through one retarget map (and through the trainer's mirror map for the
mirrored entries).

Baking, not retargeting each frame: a frame then samples one small clip of the trainer
(24 bones) instead of sampling the mocap, mirroring it and retargeting it (benchmarks/
matching.py measures both: `roam_pose_baked_us` against `roam_pose_retarget_us`).

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
    """The database (over the mocap skeleton), its clips, the trainer's baked clips
    (baked[clip][mirrored]), the maps, and the horizontal scale from the mocap's
    centimetres to the trainer's."""

    staged: mocap.StagedDatabase       # the roam's: the staged entries and the idle
    trainer: rt.Skeleton
    retarget: rt.RetargetMap
    baked: tuple
    stride_scale: float
    bake_seconds: float

    @property
    def database(self) -> rt.MotionDatabase:
        return self.staged.database

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


def roam_database() -> mocap.StagedDatabase:
    """The staged database's files and channels, with the idle entry (plain only: it is its
    own mirror, near enough) after theirs."""
    import time

    from runtime.matching.database_build import MatchEntry, MatchEntryFlag, MotionDatabaseSource

    files = sorted(p for p in mocap.MOCAP.glob("*.bvh")
                   if p.stem.rsplit("_", 1)[0] in mocap.LOCOMOTION)
    sources = [mocap.rooted_clip_source(p) for p in files]
    skeleton = sources[0][1]
    clips = [rt.Clip(rt.build_clip(rt.Builder(), source)) for source, _ in sources]
    clips.append(rt.Clip(rt.build_clip(rt.Builder(), idle_clip_source())))
    names = [p.stem for p in files] + ["idle"]
    mirror = mocap.staged_mirror_map(skeleton)
    entries = []
    for k, name in enumerate(names[:-1]):
        for flags in (0, MatchEntryFlag.mirrored):
            entries.append(MatchEntry(k, 0.0, clips[k].duration, mocap._tags(name), 0.0, int(flags)))
    entries.append(MatchEntry(len(clips) - 1, 0.0, IDLE_SECONDS, TAG_IDLE, 0.0, 0))
    source = MotionDatabaseSource(skeleton, clips, entries, mocap.holden_channels(skeleton),
                                  mocap.RATE, mirror)
    start = time.perf_counter()
    data = rt.build_motion_database(rt.Builder(), source)
    seconds = time.perf_counter() - start
    return mocap.StagedDatabase(skeleton, clips, names, mirror, source, rt.MotionDatabase(data),
                                data, seconds)


@lru_cache(maxsize=1)
def roam_motion() -> RoamMotion:
    """Built at first use (a few seconds: the database, then the bake)."""
    import time

    staged = roam_database()
    trainer = trainer_model().skeleton
    start = time.perf_counter()
    m = retarget_map(staged.skeleton, trainer)
    mirror = trainer_mirror_map(trainer)
    baked = []
    for clip in staged.clips:
        plain = rt.Clip(rt.build_retargeted_clip(rt.Builder(), rt.RetargetClipSource(
            m, staged.skeleton, trainer, clip)))
        flipped = rt.Clip(rt.build_mirrored_clip(rt.Builder(), rt.MirrorClipSource(
            mirror, trainer, plain)))
        baked.append((plain, flipped))
    seconds = time.perf_counter() - start
    scale = float(np.linalg.norm(m.retarget_root_motion((1.0, 0.0, 0.0))))
    return RoamMotion(staged, trainer, m, tuple(baked), scale, seconds)
