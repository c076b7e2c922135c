"""learned.h.

_GetChannel returns a MatchChannel; _GetNormalization (offsets, scales) as the motion
database's (its count when it measures); _GetProjector (required, excluded); the names
None for NULL or an index past; _Project the state's count (measuring with no array and
capacity 0), into stateOut; _Step moves the state in place; _Decompress writes into a
LearnedOutput. Scratch is the caller's: GetScratchSize bytes, aligned to 8.
"""
from ..core import args
from ..core.errors import CapacityError, InvalidError
from ..learned.limits import (MAX_LEARNED_EVENTS, MAX_LEARNED_FLOAT_TRACKS, MAX_LEARNED_LATENT,
                              MAX_LEARNED_LAYERS, MAX_LEARNED_PROJECTORS, MAX_LEARNED_RATE,
                              MAX_LEARNED_WEIGHTS, MAX_LEARNED_WIDTH)
from ..learned.model import LearnedModel

__all__ = ["maniOpenLearnedModel", "maniLearnedModel_GetIdentity",
           "maniLearnedModel_GetSkeletonIdentity", "maniLearnedModel_GetDatabaseIdentity",
           "maniLearnedModel_GetChannel", "maniLearnedModel_GetNormalization",
           "maniLearnedModel_GetProjector", "maniLearnedModel_GetFloatTrackCount",
           "maniLearnedModel_GetEventCount", "maniLearnedModel_GetFloatTrackName",
           "maniLearnedModel_GetEventName", "maniLearnedModel_GetScratchSize",
           "maniLearnedModel_Project", "maniLearnedModel_Step", "maniLearnedModel_Decompress"]
_LIMITS = {"MANI_MAX_LEARNED_RATE": MAX_LEARNED_RATE, "MANI_MAX_LEARNED_LATENT": MAX_LEARNED_LATENT,
           "MANI_MAX_LEARNED_PROJECTORS": MAX_LEARNED_PROJECTORS,
           "MANI_MAX_LEARNED_FLOAT_TRACKS": MAX_LEARNED_FLOAT_TRACKS,
           "MANI_MAX_LEARNED_EVENTS": MAX_LEARNED_EVENTS, "MANI_MAX_LEARNED_LAYERS": MAX_LEARNED_LAYERS,
           "MANI_MAX_LEARNED_WIDTH": MAX_LEARNED_WIDTH, "MANI_MAX_LEARNED_WEIGHTS": MAX_LEARNED_WEIGHTS}
__constants__ = list(_LIMITS)
globals().update(_LIMITS)


def _opened(model) -> bool:
    return isinstance(model, LearnedModel) and model.is_open


def _model(model) -> LearnedModel:
    if not _opened(model):
        raise InvalidError("no learned model")
    return model


def _scratch(scratch, scratchSize):
    if scratch is None:
        raise InvalidError("no scratch")
    size = args.count(scratchSize, "scratchSize")
    view = args.writable_bytes(scratch, "scratch")
    return view[:size]


def maniOpenLearnedModel(bytes) -> LearnedModel:
    return LearnedModel(bytes)


def maniLearnedModel_GetIdentity(model) -> int:
    return model.identity if _opened(model) else 0


def maniLearnedModel_GetSkeletonIdentity(model) -> int:
    return model.skeleton_identity if _opened(model) else 0


def maniLearnedModel_GetDatabaseIdentity(model) -> int:
    return model.database_identity if _opened(model) else 0


def maniLearnedModel_GetChannel(model, channel):
    return _model(model).channel(channel)


def maniLearnedModel_GetNormalization(model, offsetsOut=None, scalesOut=None, capacity=0):
    m = _model(model)
    n = args.count(capacity, "capacity")
    if n and offsetsOut is None and scalesOut is None:
        raise InvalidError("no array for a positive capacity")
    width = m.feature_count
    if offsetsOut is None and scalesOut is None:
        return width
    outs = [None if a is None else args.output(a, "f", (-1,), what)
            for a, what in ((offsetsOut, "offsetsOut"), (scalesOut, "scalesOut"))]
    if n < width or any(o is not None and o.size < width for o in outs):
        raise CapacityError(f"capacity {n} below {width} features", count=width)
    for o, values in zip(outs, m.norm):
        if o is not None:
            o[:width] = values
    return width


def maniLearnedModel_GetProjector(model, projector) -> tuple[int, int]:
    return _model(model).projector(projector)


def maniLearnedModel_GetFloatTrackCount(model) -> int:
    return model.float_track_count if _opened(model) else 0


def maniLearnedModel_GetEventCount(model) -> int:
    return model.event_count if _opened(model) else 0


def maniLearnedModel_GetFloatTrackName(model, track):
    return model.float_track_name(track) if _opened(model) else None


def maniLearnedModel_GetEventName(model, event):
    return model.event_name(event) if _opened(model) else None


def maniLearnedModel_GetScratchSize(model) -> int:
    return model.scratch_size if _opened(model) else 0


def maniLearnedModel_Project(model, projector, query, stateOut=None, capacity=0, scratch=None,
                             scratchSize=0) -> int:
    m = _model(model)
    n = args.count(capacity, "capacity")
    if query is None:
        raise InvalidError("no query")
    if stateOut is None:
        if n:
            raise InvalidError("no state for a positive capacity")
        return m.state_count
    s = _scratch(scratch, scratchSize)
    out = args.output(stateOut, "f", (-1,), "stateOut")
    if n < m.state_count or out.size < m.state_count:
        m.project_arguments(projector, query, s)      # refused first when they are wrong
        raise CapacityError(f"capacity {n} below a state of {m.state_count}", count=m.state_count)
    m.project(projector, query, out, s)
    return m.state_count


def maniLearnedModel_Step(model, state, scratch=None, scratchSize=0) -> None:
    m = _model(model)
    if state is None:
        raise InvalidError("no state")
    m.step(state, _scratch(scratch, scratchSize))


def maniLearnedModel_Decompress(model, state, resultOut, scratch=None, scratchSize=0) -> None:
    m = _model(model)
    if state is None or resultOut is None:
        raise InvalidError("no state or no result")
    m.decompress(state, resultOut, _scratch(scratch, scratchSize))
