"""Roam's learned model, shipped in assets/learned/roam.model: Holden's learned motion
matching trained on roam's own database (roam.motion: every staged clip baked onto the
trainer, plain and mirrored, and the idle), small networks in CI time, the same bytes on
every run. One Projector, over every frame, as the motion-matching node searches them.

    python -m stadium.roam.learned --ship      retrains it into assets/learned/roam.model
    python -m stadium.roam.learned --out FILE  ... into FILE

`open_model(path)` is what `--learned MODEL` opens: the file a learned model (FormatError
otherwise) of the trainer's skeleton whose channels take roam's query.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from runtime.core.builder import Builder
from runtime.graph.matching import query_fits
from runtime.graph.source import ParameterType
from runtime.learned import LearnedModel
from runtime.learned.train import (LearnedTrainer, LearnedTrainerOptions, LearnedTrainerProjector,
                                   LearnedTrainerSource, default_learned_trainer_def)
from runtime.learned.train.run import read_aligned, train_through, write_whole
from runtime.samples.learned_model import OPTIONS     # the shipped trainer model's small networks

from ..errors import BadOption
from .motion import RoamMotion, missing, roam_motion

SHIPPED = Path(__file__).resolve().parents[2] / "assets" / "learned" / "roam.model"


def trainer(motion: RoamMotion, workers: int = 2,
            options: LearnedTrainerOptions = OPTIONS) -> LearnedTrainer:
    d = default_learned_trainer_def()
    d.workers = workers
    return LearnedTrainer(d, LearnedTrainerSource(
        motion.trainer, motion.database, list(motion.baked), motion.mirror,
        [LearnedTrainerProjector()], [], [], [], options))


def model_bytes(motion: RoamMotion | None = None, progress: bool = False) -> bytes:
    """The model the code trains today (the same bytes with any worker count)."""
    tr = trainer(motion or roam_motion())
    train_through(tr, every=100, progress=progress)
    b = Builder()
    tr.build_model(b)
    return bytes(b.copy_built())


def fits(model: LearnedModel, motion: RoamMotion, query, types) -> str | None:
    """Why `model` cannot drive roam's trainer (None when it can): another skeleton, no
    Projector, or channels that do not take the trainer graph's query ((channel, time,
    parameter) triples over parameters of `types`)."""
    if model.skeleton_identity != motion.trainer.identity:
        return "is a model of another skeleton than the trainer's"
    if model.projector_count < 1:
        return "has no Projector"
    if not query_fits(query, model, types):
        return "has channels that do not take roam's query (the trainer's trajectory)"
    return None


def open_model(path: Path | None = None, motion: RoamMotion | None = None):
    """The learned model at `path` for roam's trainer, or BadOption (--learned) saying why
    not; `path` None: the shipped one (None when it is not there)."""
    from runtime.core.errors import ManiError

    from .locomotion import query_inputs

    if path is None:
        if not SHIPPED.is_file():
            return None
        path = SHIPPED
    if not Path(path).is_file():
        raise BadOption("--learned", f"{path}: no such file")
    try:
        model = LearnedModel(read_aligned(path))
    except ManiError as e:
        raise BadOption("--learned", f"{path}: not a learned model ({type(e).__name__}: {e})") from None
    motion = motion or roam_motion()
    query = [(q.channel, q.time, q.parameter) for q in query_inputs()]
    why = fits(model, motion, query, [ParameterType.vector2] * len(query))
    if why:
        raise BadOption("--learned", f"{path} {why}")
    return model


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m stadium.roam.learned",
                                description="Train roam's learned model from its database.")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--ship", action="store_true", help=f"write {SHIPPED}")
    where.add_argument("--out", type=Path, help="write this file")
    a = p.parse_args(argv)
    why = missing()
    if why:
        print(why, file=sys.stderr)
        return 2
    out = SHIPPED if a.ship else a.out
    data = model_bytes(progress=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_whole(out, data)
    print(f"{out}: {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
