"""What a motion matching node's binding, update and evaluation share: whether a database
binds a slot, and the node's run (its database, the bound clips its entries play, their
moves and events, plain and mirrored, and where its query's parameters go).

A database binds a slot when it is an opened motion database of the slot's identity and
the graph's skeleton, its clips are the clip slots the graph lists for it (in order, of the
graph's own skeleton: none played through a retargeting map, none additive), its mirror map
(for mirrored entries) is the assets' mirror map, and every motion matching node reading
the slot queries channels it has, at times they sample, with parameters as wide as they
(a float for a float track, a vector2 for a trajectory position or facing, a vector3 for a
bone's position or velocity). A mirrored entry plays its clip as maniBuildMirroredClip
would bake it: each pose mirrored through the map, its moves reflected (mirror_clip's
mirrored_moves) and its events renamed.
"""
from __future__ import annotations

import numpy as np

from ..core.limits import NO_TRACK
from ..mapping.mirror import MirrorMap
from ..mapping.mirror_clip import mirrored_moves
from ..matching.database import MotionDatabase
from ..matching.database_build import DIMENSIONS, MatchChannelKind, MatchEntryFlag
from .format import CLIP_ADDITIVE, CLIP_ALL_EVENTS
from .limits import GRAPH_NONE
from .source import VALUE_WIDTH, NodeKind


def database_fits(graph, slot: int, db, skeleton, mirror_map) -> bool:
    """Whether `db` binds database slot `slot` of the graph (the module's rules)."""
    if not isinstance(db, MotionDatabase) or not db.is_open or \
            db.identity != graph.database_identities[slot] or db.skeleton_identity != skeleton.identity:
        return False
    listed = graph.database_clips[slot]
    if db.clip_count != len(listed):
        return False
    for i, c in enumerate(listed):
        if int(db.clip_identities[i]) != graph.clip_identities[c] or graph.clip_maps[c] != NO_TRACK \
                or graph.clip_flags[c] & CLIP_ADDITIVE:
            return False
    if db.mirror_map_identity and not (isinstance(mirror_map, MirrorMap) and mirror_map.is_open
                                       and mirror_map.identity == db.mirror_map_identity):
        return False
    types = [p.type for p in graph.parameters]
    for node in graph.nodes:
        if node.kind != NodeKind.motion_matching or node.data.database != slot:
            continue
        if not query_fits(node.data.query, db, types):
            return False
    return True


def query_fits(query, channels, types) -> bool:
    """Whether each query input's channel and time are among `channels`' (a database's or a
    learned model's) and its parameter is as wide as that channel."""
    for channel, time, parameter in query:
        if channel >= channels.channel_count:
            return False
        c = channels.channel(channel)
        if time >= len(c.times) or VALUE_WIDTH[types[parameter]] != DIMENSIONS[MatchChannelKind(c.kind)]:
            return False
    return True


class Play:
    """One database clip as its entries play it, plain or mirrored: the clip, its moves
    (binary64 rows, None without root motion), its events' times and names."""

    __slots__ = ("clip", "duration", "rate", "last", "moves", "event_times", "event_names")

    def __init__(self, clip, mirror: MirrorMap | None):
        self.clip = clip
        self.duration = float(clip.duration)
        self.rate = float(clip.sample_rate)
        self.last = int(clip.sample_count - 1)
        events = [clip.event(i) for i in range(clip.event_count)]
        self.event_times = np.array([e.time for e in events], dtype=np.float64)
        self.event_names = [e.name if mirror is None else mirror.mirror_name(e.name) for e in events]
        self.moves = None
        if clip.has_root_motion:
            moves = clip.moves.astype(np.float64)
            if mirror is not None:
                moves = mirrored_moves(mirror, mirror.partner(clip.root_motion_fields[0]), moves)
            self.moves = np.ascontiguousarray(moves)


class MatchRun:
    """A motion matching node as an update and an evaluation read it."""

    def __init__(self, b, k: int, node):
        d = node.data
        self.node, self.base, self.data = k, b.layout.nodes[k], d
        self.db = db = b.databases[d.database]
        self.mirror = b.assets.mirror_map if db.mirror_map_identity else None
        clips = [b.clips[c] for c in b.graph.database_clips[d.database]]
        entries = [db.entry(e) for e in range(db.entry_count)]
        self.mirrored = [bool(e.flags & MatchEntryFlag.mirrored) for e in entries]
        plays = {}
        for e in entries:
            key = (e.clip, bool(e.flags & MatchEntryFlag.mirrored))
            if key not in plays:
                plays[key] = Play(clips[e.clip], self.mirror if key[1] else None)
        self.plays = [plays[(e.clip, m)] for e, m in zip(entries, self.mirrored)]
        listed = b.graph.database_clips[d.database]
        self.slots = [listed[e.clip] for e in entries]          # each entry's clip slot
        self.all_events = [bool(b.graph.clip_flags[s] & CLIP_ALL_EVENTS) for s in self.slots]
        self.loops = [bool(e.flags & MatchEntryFlag.loops) for e in entries]
        self.spans = [(e.start, e.end) for e in entries]
        self.first = [db.entry_frames(e)[0] for e in range(db.entry_count)]
        self.counts = [db.entry_frames(e)[1] for e in range(db.entry_count)]
        self.rate = float(db.rate)
        pb = b.parameter_base
        self.query = [(db.channel_first_feature(c) + t * DIMENSIONS[MatchChannelKind(db.channel(c).kind)],
                       DIMENSIONS[MatchChannelKind(db.channel(c).kind)], pb + 4 * p)
                      for c, t, p in d.query]
        tag = lambda bits, p: (bits, -1 if p == GRAPH_NONE else pb + 4 * p)      # noqa: E731
        self.required = tag(d.required_tags, d.required_parameter)
        self.excluded = tag(d.excluded_tags, d.excluded_parameter)
        self.trigger = -1 if d.trigger == GRAPH_NONE else pb + 4 * d.trigger
        # the graph's mirror map's axis when the node is beneath an odd number of mirror nodes
        self.node_axis = int(b.mirror_map._axis) if node.mirrored else -1

    def narrow(self, hi: np.ndarray, base: int) -> None:
        """Its entries, clip times and frames, bounded by the database's in a restore's ranges."""
        at = base + 2
        hi[at + 1] = self.db.entry_count - 1
        hi[at + 2] = max(p.duration for p in self.plays)
        hi[at + 5:at + 5 + self.data.history_count] = self.db.frame_count - 1

    def frame_at(self, entry: int, time: float) -> int:
        """The entry's frame nearest the clip time."""
        k = int(np.floor((time - self.spans[entry][0]) * self.rate + 0.5))
        return self.first[entry] + min(max(k, 0), self.counts[entry] - 1)
