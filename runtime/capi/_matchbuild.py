"""matchbuild.h.

maniBuildMotionDatabase's refusals (InvalidError unless said; item, other):
  Timing           a rate not finite or not above 0; LimitError past MAX_MATCH_RATE
  Option           the axes (up and forward not two of x, y and z; item 0) or the leaf size
                   (not 1 to 1024; item 1)
  Count            no channels, clips or entries (or not lists), track names past 4 GiB;
                   LimitError past MAX_MATCH_CHANNELS, _CLIPS, _ENTRIES, _FRAMES, _FEATURES
  Joint            a clip not opened, of another skeleton or additive (item the clip)
  Channel          item the channel: not a MatchChannel, an unknown kind, a bone past the
                   skeleton, no times or times not finite, a weight not above 0 or not
                   finite, a float track's name missing or not a name, a name on another
                   kind, values past binary32; LimitError for more than MAX_MATCH_TIMES
                   times, a time past MAX_MATCH_REACH, a name past MAX_NAME_BYTES
  Entry            item the entry: not a MatchEntry, a clip past the clips, a span not
                   within the clip, tags not a uint32, a bias not finite, unknown flags
  MissingTrack     item the channel, other the entry
  Spread           a channel that never varies (item the channel)
  MirrorDatabase   a mirror map not an opened map of the skeleton (item 0); a mirrored
                   entry without a map (item the entry)
"""
from ._build import require_builder
from ..matching.database_build import build_motion_database

__all__ = ["maniBuildMotionDatabase"]


def maniBuildMotionDatabase(builder, source) -> None:
    """Success returns None; the file is the builder's to copy (maniBuilder_CopyBuilt)."""
    build_motion_database(require_builder(builder), source)
