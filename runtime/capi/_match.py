"""match.h.

maniMotionDatabase_GetChannel and _GetEntry return a MatchChannel and a MatchEntry;
_GetChannelName the name (None for NULL, an index past the channels or another kind);
_GetFrame (entry, time); _GetFeatures the features (its count when it measures: no array and
capacity 0; into featuresOut when given, CapacityError with `.count` when capacity is below
the count); _GetNormalization (offsets, scales) likewise; _Search a MatchResult (into
resultOut when given; frame NO_FRAME when no frame is a candidate).
"""
from ..core import args
from ..core.errors import CapacityError, InvalidError
from ..matching.database import MotionDatabase
from ..matching.database_build import MatchChannelKind, MatchEntryFlag
from ..matching.limits import (MAX_MATCH_CHANNELS, MAX_MATCH_CLIPS, MAX_MATCH_ENTRIES,
                               MAX_MATCH_FEATURES, MAX_MATCH_FRAMES, MAX_MATCH_HISTORY,
                               MAX_MATCH_RATE, MAX_MATCH_REACH, MAX_MATCH_TIMES, NO_FRAME)
from ..matching.search import search

__all__ = ["maniOpenMotionDatabase", "maniMotionDatabase_GetIdentity",
           "maniMotionDatabase_GetMirrorMapIdentity", "maniMotionDatabase_GetSkeletonIdentity",
           "maniMotionDatabase_GetClipIdentity", "maniMotionDatabase_GetChannel",
           "maniMotionDatabase_GetChannelName", "maniMotionDatabase_GetEntry",
           "maniMotionDatabase_GetFrame", "maniMotionDatabase_GetFeatures",
           "maniMotionDatabase_GetNormalization", "maniMotionDatabase_Search"]
_LIMITS = {"MANI_MAX_MATCH_RATE": MAX_MATCH_RATE, "MANI_MAX_MATCH_CLIPS": MAX_MATCH_CLIPS,
           "MANI_MAX_MATCH_CHANNELS": MAX_MATCH_CHANNELS, "MANI_MAX_MATCH_ENTRIES": MAX_MATCH_ENTRIES,
           "MANI_MAX_MATCH_FRAMES": MAX_MATCH_FRAMES, "MANI_MAX_MATCH_FEATURES": MAX_MATCH_FEATURES,
           "MANI_MAX_MATCH_TIMES": MAX_MATCH_TIMES, "MANI_MAX_MATCH_REACH": MAX_MATCH_REACH,
           "MANI_MAX_MATCH_HISTORY": MAX_MATCH_HISTORY, "MANI_NO_FRAME": NO_FRAME}
_KINDS = {f"maniMatchChannel{''.join(w.title() for w in k.name.split('_'))}": int(k)
          for k in MatchChannelKind}
_FLAGS = {"maniMatchEntryNoJump": int(MatchEntryFlag.no_jump),
          "maniMatchEntryMirrored": int(MatchEntryFlag.mirrored),
          "maniMatchEntryLoops": int(MatchEntryFlag.loops)}
__constants__ = [*_LIMITS, *_KINDS, *_FLAGS]
globals().update(_LIMITS)
globals().update(_KINDS)
globals().update(_FLAGS)


def _opened(database) -> bool:
    return isinstance(database, MotionDatabase) and database.is_open


def _database(database) -> MotionDatabase:
    if not _opened(database):
        raise InvalidError("no motion database")
    return database


def maniOpenMotionDatabase(data) -> MotionDatabase:
    return MotionDatabase(data)


def maniMotionDatabase_GetIdentity(database) -> int:
    return database.identity if _opened(database) else 0


def maniMotionDatabase_GetMirrorMapIdentity(database) -> int:
    return database.mirror_map_identity if _opened(database) else 0


def maniMotionDatabase_GetSkeletonIdentity(database) -> int:
    return database.skeleton_identity if _opened(database) else 0


def maniMotionDatabase_GetClipIdentity(database, clip) -> int:
    return database.clip_identity(clip) if _opened(database) else 0


def maniMotionDatabase_GetChannel(database, channel):
    return _database(database).channel(channel)


def maniMotionDatabase_GetChannelName(database, channel):
    if not _opened(database):
        return None
    return database.channel_name(channel)


def maniMotionDatabase_GetEntry(database, entry):
    return _database(database).entry(entry)


def maniMotionDatabase_GetFrame(database, frame) -> tuple[int, float]:
    return _database(database).frame(frame)


def _capacity(capacity, arrays) -> int:
    n = args.count(capacity, "capacity")
    if n and all(a is None for a in arrays):
        raise InvalidError("no array for a positive capacity")
    return n


def maniMotionDatabase_GetFeatures(database, frame, featuresOut=None, capacity=0):
    db = _database(database)
    n = _capacity(capacity, [featuresOut])
    row = db.frame_features(frame)
    width = db.feature_count
    if featuresOut is None:
        if n:
            raise InvalidError("no array for a positive capacity")
        return width
    out = args.output(featuresOut, "f", (-1,), "featuresOut")
    if n < width or out.size < width:
        raise CapacityError(f"capacity {n} below {width} features", count=width)
    out[:width] = row
    return width


def maniMotionDatabase_GetNormalization(database, offsetsOut=None, scalesOut=None, capacity=0):
    db = _database(database)
    n = _capacity(capacity, [offsetsOut, scalesOut])
    width = db.feature_count
    if offsetsOut is None and scalesOut is None:
        return width
    outs = [None if a is None else args.output(a, "f", (-1,), what)
            for a, what in ((offsetsOut, "offsetsOut"), (scalesOut, "scalesOut"))]
    if n < width or any(o is not None and o.size < width for o in outs):
        raise CapacityError(f"capacity {n} below {width} features", count=width)
    for o, values in zip(outs, (db.offsets, db.scales)):
        if o is not None:
            o[:width] = values
    return width


def maniMotionDatabase_Search(database, query, resultOut=None):
    if resultOut is not None and not hasattr(resultOut, "frame"):
        raise InvalidError("resultOut is not a MatchResult")
    return search(_database(database), query, resultOut)

