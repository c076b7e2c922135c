"""Learned motion matching (Holden et al. 2020): models built offline from networks' weights
(model_build), opened in place and evaluated the same bits everywhere (model, kernels)."""
from .model import LearnedModel, LearnedOutput
from .model_build import (LearnedLayer, LearnedModelSource, LearnedNetwork, LearnedProjector,
                          LearnedWeightFormat, build_learned_model)

__all__ = ["LearnedModel", "LearnedOutput", "LearnedLayer", "LearnedModelSource",
           "LearnedNetwork", "LearnedProjector", "LearnedWeightFormat", "build_learned_model"]
