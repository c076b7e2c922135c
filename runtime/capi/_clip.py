"""clip.h, with build.h's maniBuildClip and maniBuilder_MeasureClip."""
from ..clip.clip import MAX_SAMPLES as MANI_MAX_SAMPLES
from ..clip.clip import AdditiveBasis, Clip, LoopPolicy, ZERO_EVENT, is_open
from ..clip.cursor import ClipCursor
from ..clip.build import build_clip, measure_clip
from ..core.errors import InvalidError
from ..core.limits import NO_TRACK

maniLoopClamp, maniLoopRepeat = LoopPolicy.clamp, LoopPolicy.repeat
maniAdditiveNone, maniAdditiveRest, maniAdditiveFirstFrame = (
    AdditiveBasis.none, AdditiveBasis.rest, AdditiveBasis.first_frame)
__constants__ = ["MANI_MAX_SAMPLES", "maniLoopClamp", "maniLoopRepeat", "maniAdditiveNone",
                 "maniAdditiveRest", "maniAdditiveFirstFrame"]

__all__ = ["maniBuildClip", "maniBuilder_MeasureClip",
           "maniOpenClip", "maniClip_IsCompressed", "maniClip_GetDuration",
           "maniClip_GetSampleRate", "maniClip_GetSampleCount", "maniClip_GetLoopPolicy",
           "maniClip_GetAdditiveBasis", "maniClip_GetIdentity", "maniClip_GetSkeletonIdentity",
           "maniClip_Sample", "maniClip_GetFloatTrackCount", "maniClip_GetFloatTrackName",
           "maniClip_SampleBones", "maniClip_GetCursorSize", "maniClip_GetCursorCompactSize",
           "maniInitClipCursor", "maniClipCursor_Sample", "maniClipCursor_SampleFloats",
           "maniClip_FindFloatTrack", "maniClip_SampleFloats", "maniClip_GetDiscreteTrackCount",
           "maniClip_GetDiscreteTrackName", "maniClip_FindDiscreteTrack",
           "maniClip_GetDiscreteValue", "maniClip_GetEventCount", "maniClip_GetEvent",
           "maniClip_GetEventRange", "maniClip_GetMarkerCount", "maniClip_GetMarker"]

__pending__ = {
    "maniClip_GetCursorSize": "on a vector backend the cursor does not yet also keep its samples"
                              " in groups of eight bones: the size is the compact one (issue 23)",
    "maniClip_GetCursorCompactSize": "the same as maniClip_GetCursorSize until a vector backend's"
                                     " cursor keeps grouped samples (issue 23)",
}



def maniBuildClip(builder, source) -> None:
    """Success returns None; the file is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_clip(builder, source)


def maniBuilder_MeasureClip(builder, source, clip):
    """The report (clip_build.ClipReport)."""
    return measure_clip(builder, source, clip)


def maniOpenClip(data) -> Clip:
    return Clip(data)


def _clip(clip) -> Clip:
    if not is_open(clip):
        raise InvalidError("not an opened clip")
    return clip


def maniClip_IsCompressed(clip) -> bool:
    return is_open(clip) and clip.is_compressed


def maniClip_GetDuration(clip) -> float:
    return clip.duration if is_open(clip) else 0.0


def maniClip_GetSampleRate(clip) -> float:
    return clip.sample_rate if is_open(clip) else 0.0


def maniClip_GetSampleCount(clip) -> int:
    return clip.sample_count if is_open(clip) else 0


def maniClip_GetLoopPolicy(clip) -> LoopPolicy:
    return clip.loop_policy if is_open(clip) else LoopPolicy.clamp


def maniClip_GetAdditiveBasis(clip) -> AdditiveBasis:
    return clip.additive_basis if is_open(clip) else AdditiveBasis.none


def maniClip_GetIdentity(clip) -> int:
    return clip.identity if is_open(clip) else 0


def maniClip_GetSkeletonIdentity(clip) -> int:
    return clip.skeleton_identity if is_open(clip) else 0


def maniClip_Sample(clip, skeleton, time: float, poseOut) -> None:
    _clip(clip).sample(skeleton, time, poseOut)


def maniClip_GetFloatTrackCount(clip) -> int:
    return clip.float_track_count if is_open(clip) else 0


def maniClip_GetFloatTrackName(clip, track: int):
    """The name as str, or None."""
    return clip.float_track_name(track) if is_open(clip) else None


def maniClip_SampleBones(clip, skeleton, time: float, bones, pose) -> None:
    _clip(clip).sample_bones(skeleton, time, bones, pose)


def maniClip_GetCursorSize(clip) -> int:
    return clip.cursor_size if is_open(clip) else 0


def maniClip_GetCursorCompactSize(clip) -> int:
    return clip.compact_cursor_size if is_open(clip) else 0


def maniInitClipCursor(memory=None, size=None) -> ClipCursor:
    """A cursor bound to no clip, in `memory` (its first `size` bytes when given), or in new
    memory of `size` bytes; no memory and no size is a NULL argument."""
    return ClipCursor(memory, size)


def _cursor(cursor) -> ClipCursor:
    if not isinstance(cursor, ClipCursor):
        raise InvalidError("no cursor")
    return cursor


def maniClipCursor_Sample(cursor, clip, skeleton, time: float, poseOut) -> None:
    _cursor(cursor).sample(clip, skeleton, time, poseOut)


def maniClipCursor_SampleFloats(cursor, clip, time: float, valuesOut=None):
    """As maniClip_SampleFloats, through the cursor."""
    return _cursor(cursor).sample_floats(clip, time, valuesOut)


def maniClip_FindFloatTrack(clip, name) -> int:
    return clip.find_float_track(name) if is_open(clip) else NO_TRACK


def maniClip_SampleFloats(clip, time: float, valuesOut=None):
    """The values, one a track (float32); into valuesOut when given, the first
    maniClip_GetFloatTrackCount written (CapacityError with .count when it is short, nothing
    written)."""
    return _clip(clip).sample_floats(time, valuesOut)


def maniClip_GetDiscreteTrackCount(clip) -> int:
    return clip.discrete_track_count if is_open(clip) else 0


def maniClip_GetDiscreteTrackName(clip, track: int):
    return clip.discrete_track_name(track) if is_open(clip) else None


def maniClip_FindDiscreteTrack(clip, name) -> int:
    return clip.find_discrete_track(name) if is_open(clip) else NO_TRACK


def maniClip_GetDiscreteValue(clip, track: int, time: float) -> int:
    return clip.discrete_value(track, time) if is_open(clip) else 0


def maniClip_GetEventCount(clip) -> int:
    return clip.event_count if is_open(clip) else 0


def maniClip_GetEvent(clip, index: int):
    """A ClipEvent (name str or None, time)."""
    return clip.event(index) if is_open(clip) else ZERO_EVENT


def maniClip_GetEventRange(clip, start: float, end: float) -> tuple[int, int]:
    """(first, count) of the events passed going from `start` to `end`."""
    return clip.event_range(start, end) if is_open(clip) else (0, 0)


def maniClip_GetMarkerCount(clip) -> int:
    return clip.marker_count if is_open(clip) else 0


def maniClip_GetMarker(clip, index: int):
    return clip.marker(index) if is_open(clip) else ZERO_EVENT
