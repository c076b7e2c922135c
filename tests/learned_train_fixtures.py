"""What the trainer tests share: a small trainer over the hostile world's motion database,
its options sized for seconds, and task hooks that run chunks in odd orders."""
from __future__ import annotations

from dataclasses import replace

import runtime as rt
from runtime.learned.train import (LearnedTrainer, LearnedTrainerOptions, LearnedTrainerProjector,
                                   LearnedTrainerSource, TaskHooks, default_learned_trainer_def)

from hostile_world import World

WORLD = World()


def options(**kw) -> LearnedTrainerOptions:
    base = LearnedTrainerOptions(latent_count=4, width=16, compressor_layers=1,
                                 decompressor_layers=1, stepper_layers=1, projector_layers=2,
                                 batch=8, stepper_window=4, decompressor_iterations=12,
                                 stepper_iterations=10, projector_iterations=8)
    return replace(base, **kw)


def source(**kw) -> LearnedTrainerSource:
    w = WORLD
    opts = kw.pop("options", None) or options()
    fields = dict(skeleton=w.skeleton, database=w.database, clips=[w.match_clip],
                  mirror_map=w.mirror_map,
                  projectors=[LearnedTrainerProjector(1, 0), LearnedTrainerProjector(2, 0)],
                  scaled_bones=[2], float_tracks=["smile"], events=["step"], options=opts)
    fields.update(kw)
    return LearnedTrainerSource(**fields)


def definition(workers: int = 1, **kw):
    d = default_learned_trainer_def()
    d.workers = workers
    for k, v in kw.items():
        setattr(d, k, v)
    return d


def trainer(workers: int = 1, src=None, **kw) -> LearnedTrainer:
    return LearnedTrainer(definition(workers, **kw), src or source())


def reversed_hooks() -> TaskHooks:
    """Runs the chunks last first, then hands the results back in order."""
    def dispatch(user, work, payloads):
        return [work(p) for p in reversed(payloads)][::-1]
    return TaskHooks(dispatch, lambda user, handle: handle)


def total(tr) -> int:
    return sum(tr.stage_iterations(s) for s in range(tr.stage_count))


def build(tr, weight_format=0) -> bytes:
    b = rt.Builder()
    tr.build_model(b, weight_format)
    return b.copy_built()
