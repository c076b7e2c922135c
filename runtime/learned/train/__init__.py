"""Training learned motion matching models (learnedtrain.h): Holden's networks, losses and
AdamW, the same bits with any number of workers, on Ray or across checkpoints."""
from .hooks import local_hooks, ray_hooks
from .options import (MAX_LEARNED_BATCH, MAX_LEARNED_WINDOW, LearnedTrainerDef,
                      LearnedTrainerOptions, LearnedTrainerProjector, LearnedTrainerSource,
                      TaskHooks, default_learned_trainer_def, default_learned_trainer_options)
from .trainer import LearnedTrainer, LearnedTrainerReport

__all__ = ["LearnedTrainer", "LearnedTrainerDef", "LearnedTrainerOptions",
           "LearnedTrainerProjector", "LearnedTrainerReport", "LearnedTrainerSource",
           "TaskHooks", "default_learned_trainer_def", "default_learned_trainer_options",
           "local_hooks", "ray_hooks", "MAX_LEARNED_BATCH", "MAX_LEARNED_WINDOW"]
