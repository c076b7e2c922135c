"""The learned model shipped in assets/learned/trainer.model: trained from a subset of the
staged database (one take each of the walk, the run and the two turns, unmirrored, Holden's
features at 60 Hz) with small networks, in a few minutes, the same bytes every run.

    python -m runtime.samples.learned_model [--out FILE]

Its Projectors: 0 every frame, 1 the walks, 2 the runs (the staged entries' tags)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..clip.build import build_clip
from ..clip.clip import Clip
from ..core.builder import Builder
from ..learned.train import (LearnedTrainer, LearnedTrainerOptions, LearnedTrainerProjector,
                             LearnedTrainerSource, default_learned_trainer_def)
from ..learned.train.run import train_through, write_whole
from ..matching.database import MotionDatabase
from ..matching.database_build import MatchEntry, MotionDatabaseSource, build_motion_database
from . import mocap

SHIPPED = Path(__file__).resolve().parents[2] / "assets" / "learned" / "trainer.model"
TAKES = ("walk_normal_001", "run_normal_001", "walk-turn-left_normal_001",
         "walk-turn-right_normal_001")
OPTIONS = LearnedTrainerOptions(latent_count=8, width=64, compressor_layers=2,
                                decompressor_layers=1, stepper_layers=2, projector_layers=3,
                                batch=32, decompressor_window=2, stepper_window=20,
                                decompressor_iterations=3000, stepper_iterations=1000,
                                projector_iterations=1000, learning_rate=0.002)


def subset_database():
    """(skeleton, clips, database) of TAKES."""
    clips, skeleton = [], None
    entries = []
    for k, take in enumerate(TAKES):
        source, sk = mocap.rooted_clip_source(mocap.MOCAP / f"{take}.bvh")
        skeleton = skeleton or sk
        clip = Clip(build_clip(Builder(), source))
        clips.append(clip)
        entries.append(MatchEntry(k, 0.0, clip.duration, mocap._tags(take)))
    db = MotionDatabase(build_motion_database(Builder(), MotionDatabaseSource(
        skeleton, clips, entries, mocap.holden_channels(skeleton), mocap.RATE)))
    return skeleton, clips, db


def trainer(workers: int = 2, options: LearnedTrainerOptions = OPTIONS) -> LearnedTrainer:
    skeleton, clips, db = subset_database()
    d = default_learned_trainer_def()
    d.workers = workers
    return LearnedTrainer(d, LearnedTrainerSource(
        skeleton, db, clips, None,
        [LearnedTrainerProjector(), LearnedTrainerProjector(mocap.TAG_WALK, 0),
         LearnedTrainerProjector(mocap.TAG_RUN, 0)], [], [], [], options))


def model_bytes(progress: bool = False) -> bytes:
    tr = trainer()
    train_through(tr, every=100, progress=progress)
    b = Builder()
    tr.build_model(b)
    return bytes(b.copy_built())


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m runtime.samples.learned_model",
                                description="Train the shipped learned model.")
    p.add_argument("--out", type=Path, default=SHIPPED)
    a = p.parse_args(argv)
    if not mocap.available():
        print(f"the staged mocap is not at {mocap.MOCAP}", file=sys.stderr)
        return 2
    data = model_bytes(progress=True)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    write_whole(a.out, data)
    print(f"{a.out}: {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
