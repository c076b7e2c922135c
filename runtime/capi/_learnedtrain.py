"""learnedtrain.h.

maniCreateLearnedTrainer(def, source) returns the trainer (the source carries the options);
_Train returns a LearnedTrainerReport; _SaveCheckpoint returns the checkpoint's bytes, or
into bytesOut its size (CapacityError with .size when short, bytesOut zeroed);
maniBuildLearnedModelFromTrainer leaves the model in the builder (maniBuilder_CopyBuilt).
A trainer's chunks run on the def's task hooks (runtime.learned.train.local_hooks by
default, ray_hooks for a Ray cluster).
"""
from ..core import args
from ..core.errors import InvalidError
from ..learned.train import (MAX_LEARNED_BATCH, MAX_LEARNED_WINDOW, LearnedTrainer,
                             default_learned_trainer_def, default_learned_trainer_options)

__all__ = ["maniDefaultLearnedTrainerDef", "maniDefaultLearnedTrainerOptions",
           "maniCreateLearnedTrainer", "maniDestroyLearnedTrainer", "maniLearnedTrainer_GetMisuse",
           "maniLearnedTrainer_Train", "maniLearnedTrainer_SaveCheckpoint",
           "maniLearnedTrainer_RestoreCheckpoint", "maniBuildLearnedModelFromTrainer"]
_LIMITS = {"MANI_MAX_LEARNED_BATCH": MAX_LEARNED_BATCH, "MANI_MAX_LEARNED_WINDOW": MAX_LEARNED_WINDOW}
__constants__ = list(_LIMITS)
__pending__ = {}
globals().update(_LIMITS)


def _trainer(trainer) -> LearnedTrainer:
    if not isinstance(trainer, LearnedTrainer):
        raise InvalidError("no learned trainer")
    return trainer


def maniDefaultLearnedTrainerDef():
    return default_learned_trainer_def()


def maniDefaultLearnedTrainerOptions():
    return default_learned_trainer_options()


def maniCreateLearnedTrainer(definition, source) -> LearnedTrainer:
    if definition is None or source is None:
        raise InvalidError("a NULL def or source")
    return LearnedTrainer(definition, source)


def maniDestroyLearnedTrainer(trainer) -> None:
    if isinstance(trainer, LearnedTrainer):
        trainer.destroy()


def maniLearnedTrainer_GetMisuse(trainer) -> int:
    return trainer.misuse if isinstance(trainer, LearnedTrainer) else 0


def maniLearnedTrainer_Train(trainer, iterations):
    n = args.count(iterations, "iterations")
    if n >= 1 << 64:
        raise InvalidError("iterations is not a uint64")
    return _trainer(trainer).train(n)


def maniLearnedTrainer_SaveCheckpoint(trainer, bytesOut=None):
    return _trainer(trainer).save_checkpoint(bytesOut)


def maniLearnedTrainer_RestoreCheckpoint(trainer, bytes) -> None:
    _trainer(trainer).restore_checkpoint(bytes)


def maniBuildLearnedModelFromTrainer(builder, trainer, weightFormat) -> None:
    _trainer(trainer).build_model(builder, weightFormat)
