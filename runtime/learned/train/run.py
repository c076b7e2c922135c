"""Long training as users run it: a progress bar with the losses, a checkpoint written
every so many iterations (whole: under a temporary name, then renamed), and resuming from
one; the command line (__main__) and the shipped model's script train through here."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

from .trainer import LearnedTrainer

STAGE_NAMES = ("decompressor", "stepper")


def write_whole(path: Path, data: bytes) -> None:
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temp.write_bytes(bytes(data))
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


def read_aligned(path: Path) -> memoryview:
    """A file's bytes in a buffer aligned for an open in place."""
    data = Path(path).read_bytes()
    buf = np.zeros(len(data) // 8 + 1, np.float64)
    view = memoryview(buf).cast("B")[:len(data)]
    view[:] = data
    return view


def stage_name(trainer: LearnedTrainer, stage: int) -> str:
    return STAGE_NAMES[stage] if stage < 2 else f"projector {stage - 2}" \
        if stage < trainer.stage_count else "done"


def train_through(trainer: LearnedTrainer, checkpoint: Path | None = None, every: int = 1000,
                  progress: bool = True) -> None:
    """Trains every stage to its end, `every` iterations a call, the bar showing the stage
    and its last batch loss; the checkpoint rewritten after each call when given."""
    total = sum(trainer.stage_iterations(s) for s in range(trainer.stage_count))
    done = sum(trainer.stage_iterations(s) for s in range(trainer.stage)) + trainer.stage_iteration
    bar = tqdm(total=total, initial=done, unit="it", disable=None if progress else True,
               file=sys.stderr, desc="training")
    try:
        while not trainer.done:
            report = trainer.train(every)
            bar.update(report.iterations)
            bar.set_postfix_str(f"{stage_name(trainer, report.stage)} loss {report.loss:.4g}")
            if checkpoint is not None:
                write_whole(checkpoint, trainer.save_checkpoint())
    finally:
        bar.close()
