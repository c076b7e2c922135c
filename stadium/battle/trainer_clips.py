"""The trainer's gestures: real motion capture (the staged Bandai Namco clips in ../shared)
retargeted onto the trainer's skeleton and baked once, and the left-handed wave made from
the right-handed one through the trainer's mirror map.

The mocap is CC BY-NC and never copied into the repository: it is read from beside it,
when it is there. Each clip is retargeted through a map whose mocap reference is that
clip's own first frame, a person standing still: so the baked clip starts in the trainer's
rest pose exactly, and an idle trainer can start a gesture without a pop. The baked clips
are kept per process (``gestures()``); without the mocap there are none, and the trainer
stands at rest (``missing()`` says where it looked).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import runtime as rt
from runtime.importers.bvh import load_bvh
from runtime.samples.trainer import mocap_reference, mocap_retarget_source

from ..paths import ROOT
from ..rig.trainer_model import trainer_model

MOCAP = ROOT.parent / "shared" / "testdata" / "mocap" / "bandai-namco-2"
# the gesture at send-out: the right hand thrown up toward the field; the win: a wave
SOURCES = {"sendout": "raise-up-right-hand_normal_001.bvh", "wave": "wave-right-hand_normal_001.bvh"}
FEET = ("Foot_L", "Foot_R")


def missing() -> str | None:
    """Why there are no gestures (the mocap's folder or a file not there), or None."""
    for name in SOURCES.values():
        if not (MOCAP / name).is_file():
            return f"no mocap at {MOCAP / name}"
    return None


def retarget(path: Path, trainer: rt.Skeleton) -> rt.Clip:
    """A BVH clip baked onto the trainer (rt.build_retargeted_clip), its first frame the
    reference that lines the mocap up with the trainer's rest."""
    imported = load_bvh(path)
    mocap = imported.clip_source.skeleton
    clip = rt.Clip.open(rt.build_clip(rt.Builder(), imported.clip_source))
    first = rt.Pose(mocap)
    clip.sample(mocap, 0.0, first)
    first.compute_model(mocap)
    ankle = float(min(first.model[mocap.find_bone(f), 1, 3] for f in FEET))
    reference = mocap_reference(mocap, first.locals, trainer, ankle)
    m = rt.RetargetMap(rt.build_retarget_map(rt.Builder(),
                                             mocap_retarget_source(mocap, reference, trainer)))
    return rt.Clip.open(rt.build_retargeted_clip(
        rt.Builder(), rt.RetargetClipSource(m, mocap, trainer, clip)))


def mirror_map(trainer: rt.Skeleton) -> rt.MirrorMap:
    """The trainer's mirror through its x = 0 plane: ".L" bones with their ".R" partners."""
    rules = [rt.MirrorRule(".L", ".R", rt.RulePlace.suffix), rt.MirrorRule(".R", ".L", rt.RulePlace.suffix)]
    return rt.MirrorMap(rt.build_mirror_map(rt.Builder(), rt.MirrorMapSource(
        trainer, rt.MirrorAxis.x, rules=rules)))


def mirrored(clip: rt.Clip, trainer: rt.Skeleton) -> rt.Clip:
    return rt.Clip.open(rt.build_mirrored_clip(
        rt.Builder(), rt.MirrorClipSource(mirror_map(trainer), trainer, clip)))


@lru_cache(maxsize=1)
def gestures() -> dict[str, rt.Clip]:
    """{"sendout", "wave", "wave_left"}: baked at first use, once per process; {} without
    the mocap."""
    if missing() is not None:
        return {}
    trainer = trainer_model().skeleton
    baked = {name: retarget(MOCAP / file, trainer) for name, file in SOURCES.items()}
    baked["wave_left"] = mirrored(baked["wave"], trainer)
    return baked
