"""What the trainer's locomotion is made of, built once per process from the staged mocap
(runtime.samples.mocap): the motion database of its walks, runs and turns with mirrored
entries, and every database clip baked onto the trainer's skeleton through one retarget map
(and through the trainer's mirror map for the mirrored entries).

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

    staged: mocap.StagedDatabase
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


@lru_cache(maxsize=1)
def roam_motion() -> RoamMotion:
    """Built at first use (a few seconds: the database, then the bake)."""
    import time

    staged = mocap.staged_database()
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
