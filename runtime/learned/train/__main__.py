"""python -m runtime.learned.train DATABASE --skeleton FILE --clip FILE... --out MODEL:
trains a learned model from a built motion database, its skeleton and clips (and mirror map
when it has mirrored entries), writing a checkpoint as it goes (--checkpoint) and resuming
from one (--resume). Bad input is one line on standard error and exit code 2."""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from ...clip.clip import Clip
from ...core.builder import Builder
from ...core.errors import ManiError
from ...mapping.mirror import MirrorMap
from ...matching.database import MotionDatabase
from ...pose.skeleton import Skeleton
from ..model_build import LearnedWeightFormat
from .hooks import ray_hooks
from .options import (LearnedTrainerProjector, LearnedTrainerSource, default_learned_trainer_def,
                      default_learned_trainer_options)
from .run import read_aligned, train_through, write_whole
from .trainer import LearnedTrainer

PROG = "python -m runtime.learned.train"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (--help lists the options)\n")


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text} is not above 0")
    return n


def _tags(text: str) -> LearnedTrainerProjector:
    try:
        required, _, excluded = text.partition(":")
        return LearnedTrainerProjector(int(required, 0), int(excluded or "0", 0))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not REQUIRED[:EXCLUDED] tags") from None


def parser() -> _Parser:
    p = _Parser(prog=PROG, description="Train a learned motion matching model (Holden et al. "
                "2020) from a motion database; the same bits with any worker count, on Ray, "
                "and across checkpoints.")
    p.add_argument("database", type=Path, metavar="DATABASE", help="the built motion database")
    p.add_argument("--skeleton", type=Path, required=True, help="its built skeleton file")
    p.add_argument("--clip", type=Path, action="append", required=True, dest="clips",
                   help="its built clips, in the database's clip order (repeat)")
    p.add_argument("--mirror-map", type=Path, help="the mirror map its mirrored entries play through")
    p.add_argument("--out", type=Path, required=True, metavar="MODEL", help="the model file to write")
    p.add_argument("--checkpoint", type=Path, help="a checkpoint rewritten as training goes")
    p.add_argument("--resume", type=Path, help="a checkpoint to go on from")
    p.add_argument("--projector", type=_tags, action="append", dest="projectors",
                   help="a Projector's REQUIRED[:EXCLUDED] tags (repeat; default one of every frame)")
    p.add_argument("--iterations", type=_positive, help="iterations of every stage (default Holden's)")
    p.add_argument("--latent", type=_positive, help="latent values (default 32)")
    p.add_argument("--width", type=_positive, help="the layers' width (default 512)")
    p.add_argument("--seed", type=int, default=0, help="the generator's seed")
    p.add_argument("--workers", type=_positive, default=2, help="local threads (default 2)")
    p.add_argument("--ray", metavar="ADDRESS", nargs="?", const="local",
                   help="run the chunks on Ray (a cluster's address, or a local instance)")
    p.add_argument("--every", type=_positive, default=1000,
                   help="iterations between checkpoints (default 1000)")
    p.add_argument("--16bit", action="store_true", dest="int16", help="16-bit weights")
    return p


def _read(path: Path, kind, what: str):
    try:
        return kind(read_aligned(path))
    except OSError as error:
        raise SystemExit(f"{PROG}: {what} {path}: {error.strerror or error}")
    except ManiError as error:
        raise SystemExit(f"{PROG}: {what} {path}: {error}")


def main(argv=None) -> int:
    a = parser().parse_args(argv)
    try:
        return _main(a)
    except SystemExit as stop:
        if isinstance(stop.code, str):
            print(stop.code, file=sys.stderr)
            return 2
        raise


def _main(a) -> int:
    db = _read(a.database, MotionDatabase, "database")
    sk = _read(a.skeleton, Skeleton, "skeleton")
    clips = [_read(c, Clip, "clip") for c in a.clips]
    mirror = _read(a.mirror_map, MirrorMap, "mirror map") if a.mirror_map else None
    o = default_learned_trainer_options()
    changes = {k: v for k, v in (("latent_count", a.latent), ("width", a.width)) if v}
    if a.iterations:
        changes.update(decompressor_iterations=a.iterations, stepper_iterations=a.iterations,
                       projector_iterations=a.iterations)
    o = replace(o, seed=a.seed, **changes)
    d = default_learned_trainer_def()
    d.workers = a.workers
    try:
        if a.ray:
            d.tasks = ray_hooks(None if a.ray == "local" else a.ray, a.workers)
        source = LearnedTrainerSource(sk, db, clips, mirror, a.projectors or
                                      [LearnedTrainerProjector()], [], [], [], o)
        trainer = LearnedTrainer(d, source)
        if a.resume:
            trainer.restore_checkpoint(_read(a.resume, memoryview, "checkpoint"))
        train_through(trainer, a.checkpoint, a.every)
        b = Builder()
        trainer.build_model(b, LearnedWeightFormat.int16 if a.int16 else LearnedWeightFormat.float32)
        write_whole(a.out, b.copy_built())
    except ManiError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    except ImportError as error:
        print(f"{PROG}: --ray needs the ray extra ({error})", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"{PROG}: {error.filename or ''}: {error.strerror or error}", file=sys.stderr)
        return 2
    print(f"{a.out}: {len(b.copy_built()):,} bytes, {trainer.stage_count} stages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
