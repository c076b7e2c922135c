"""learnedbuild.h.

maniBuildLearnedModel's refusals (InvalidError unless said; item, other):
  Database     a database of another skeleton
  Timing       a step rate not finite or not above 0; LimitError past MAX_LEARNED_RATE
  Option       the latent count below 1 or the weight format unknown; LimitError past
               MAX_LEARNED_LATENT
  Count        no Projector, a list not a list; LimitError past MAX_LEARNED_PROJECTORS,
               _FLOAT_TRACKS, _EVENTS
  Joint        a scaled bone past the skeleton or not increasing (item its place)
  NotFinite    a bone's scale (item the bone)
  Network      item the network (0 Decompressor, 1 Stepper, 2 + p Projector p), other its
               layer (a shape that does not chain or fit the role, a value not finite) or
               its layer count (no layers, its normalization); LimitError past
               MAX_LEARNED_LAYERS (other the count), _WIDTH or _WEIGHTS (other the layer)
  Tags         a Projector's tags not uint32 (item the Projector)
  Name, DuplicateName  a float track's or event's name; other holds FloatTrack or Event
               << 24 (and a duplicate's earlier place below)
"""
from ._build import require_builder
from ..learned.model_build import LearnedWeightFormat, build_learned_model

__all__ = ["maniBuildLearnedModel"]
__constants__ = ["maniLearnedWeightsFloat32", "maniLearnedWeights16Bit"]
maniLearnedWeightsFloat32 = LearnedWeightFormat.float32
maniLearnedWeights16Bit = LearnedWeightFormat.int16


def maniBuildLearnedModel(builder, source) -> None:
    """Success returns None; the file is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_learned_model(require_builder(builder), source)
