"""Motion databases opened in place (maniMotionDatabase): the open's checks and the getters.
database_build.py lays the file out; search.py searches it."""
from __future__ import annotations

import numpy as np

from ..core import args, container, jit, names
from ..core.container import Container, FileKind
from ..core.errors import CapacityError, FormatError, InvalidError
from ..core.limits import NO_TRACK
from .database_build import (CHANNEL, DIMENSIONS, ENTRY, FORMAT_MINOR, FORMAT_VERSION, HEADER,
                             KNOWN, NODE, MatchChannel, MatchChannelKind, MatchEntry,
                             MatchEntryFlag, frame_count, frame_times, ground_axes)
from .kernels import check_tree
from .limits import (MAX_MATCH_CHANNELS, MAX_MATCH_CLIPS, MAX_MATCH_ENTRIES, MAX_MATCH_FEATURES,
                     MAX_MATCH_FRAMES, MAX_MATCH_LEAF, MAX_MATCH_RATE, MAX_MATCH_REACH,
                     MAX_MATCH_TIMES)

_FLAGS = int(MatchEntryFlag.no_jump | MatchEntryFlag.mirrored | MatchEntryFlag.loops)
_TREE_FAULTS = {0: ("the root does not start at slot 0", 0),
                1: ("the root does not hold every frame", 4),
                2: ("a leaf of a count out of range", 4),
                3: ("a node the leaf size leaves whole is split", 8),
                4: ("a left child not the next node", 8),
                5: ("a right child past the nodes or taken", 12),
                6: ("a child's slots not its half of its parent's", 0),
                7: ("a child's count not its half of its parent's", 4),
                8: ("a node no parent holds", 0),
                9: ("a node's lowest frame is not its frames'", 16),
                10: ("a node's least bias is not its frames'", 20)}


def _first(mask: np.ndarray) -> int | None:
    bad = np.flatnonzero(mask)
    return int(bad[0]) if bad.size else None


class MotionDatabase:
    """A motion database file opened in place. A view no open wrote has no frames: its
    getters answer as for NULL."""

    frame_count = 0
    feature_count = 0
    identity = 0
    skeleton_identity = 0
    mirror_map_identity = 0

    def __init__(self, data):
        with np.errstate(all="ignore"):
            self._open(container.as_buffer(data))

    @classmethod
    def open(cls, data) -> "MotionDatabase":
        return cls(data)

    @property
    def is_open(self) -> bool:
        return self.frame_count > 0

    def _open(self, buf: np.ndarray) -> None:
        c = Container(buf, FileKind.motion_database, FORMAT_VERSION, FORMAT_MINOR, KNOWN,
                      required=tuple(KNOWN))
        at = c.offset_of(b"DHDR")
        if c.sections[b"DHDR"][1] != HEADER.size:
            raise FormatError("header section of the wrong size", c.size_field(b"DHDR"))
        (skeleton, mirror, rate, nclips, nchannels, nentries, nframes, width, nnodes, leaf, up,
         forward, ntimes, ntracks) = HEADER.unpack_from(buf, at)
        if not (np.isfinite(rate) and 0 < rate <= MAX_MATCH_RATE):
            raise FormatError(f"rate {rate} out of range", at + 16)
        for value, bound, place in ((nclips, MAX_MATCH_CLIPS, 20), (nchannels, MAX_MATCH_CHANNELS, 24),
                                    (nentries, MAX_MATCH_ENTRIES, 28), (nframes, MAX_MATCH_FRAMES, 32),
                                    (width, MAX_MATCH_FEATURES, 36),
                                    (nnodes, 2 * MAX_MATCH_FRAMES, 40),
                                    (leaf, MAX_MATCH_LEAF, 44),
                                    (ntimes, MAX_MATCH_CHANNELS * MAX_MATCH_TIMES, 56),
                                    (ntracks, MAX_MATCH_CHANNELS, 60)):
            if not 1 <= value <= bound and not (place == 60 and value == 0):
                raise FormatError(f"count {value} out of range", at + place)
        if not (up <= 2 and forward <= 2 and up != forward):
            raise FormatError("axes not two of x, y and z", at + 48)
        for count, place, items in ((nclips, 20, {b"DCLP": (8, 0)}),
                                    (nchannels, 24, {b"DCHN": (CHANNEL.itemsize, 0)}),
                                    (ntimes, 56, {b"DTIM": (4, 0)}),
                                    (ntracks, 60, names.count_items(b"T")),
                                    (nentries, 28, {b"DENT": (ENTRY.itemsize, 0)}),
                                    (nframes, 32, {b"DSLT": (8, 0)}),
                                    (nnodes, 40, {b"DNOD": (NODE.itemsize, 0)})):
            # a size no count of whole items makes is the size's fault, not the count's
            for tag, (itemsize, _) in items.items():
                if c.sections[tag][1] % itemsize:
                    raise FormatError(f"section {tag!r} not whole items", c.size_field(tag))
            c.check_count(count, at + place, items)
        clips = c.array(b"DCLP", "<u8", (nclips,))
        chans = c.array(b"DCHN", CHANNEL, (nchannels,))
        times = c.array(b"DTIM", "<f4", (ntimes,))
        check_channels(c, chans, times, ntracks, width, c.offset_of(b"DHDR", 36))
        self.names = names.NameTable(c, b"T", ntracks)
        ents = c.array(b"DENT", ENTRY, (nentries,))
        self._check_entries(c, ents, nclips, rate, nframes)
        norm = c.array(b"DNRM", "<f4", (2, width))
        place = _first(~np.isfinite(norm[0]))
        if place is not None:
            raise FormatError("an offset not finite", c.offset_of(b"DNRM", 4 * place))
        place = _first(~(np.isfinite(norm[1]) & (norm[1] > 0)))
        if place is not None:
            raise FormatError("a scale not finite or not above 0",
                              c.offset_of(b"DNRM", 4 * (width + place)))
        feats = c.array(b"DFEA", "<f4", (nframes, width))
        place = _first(~np.isfinite(feats).reshape(-1))
        if place is not None:
            raise FormatError("a feature not finite", c.offset_of(b"DFEA", 4 * place))
        slots = c.array(b"DSLT", "<u4", (nframes, 2)).astype(np.int64)
        entry_of = np.repeat(np.arange(nentries), ents["frame_count"].astype(np.int64))
        place = _first(slots[:, 0] >= nframes)
        if place is None:
            seen = np.zeros(nframes, np.int64)
            np.add.at(seen, slots[:, 0], 1)
            twice = np.flatnonzero(seen[slots[:, 0]] > 1)
            place = int(twice[1]) if twice.size else None
        if place is not None:
            raise FormatError("a slot's frame past the frames or placed twice",
                              c.offset_of(b"DSLT", 8 * place))
        place = _first(slots[:, 1] != entry_of[slots[:, 0]])
        if place is not None:
            raise FormatError("a slot's entry is not its frame's", c.offset_of(b"DSLT", 8 * place + 4))
        bias = ents["bias"].astype(np.float32)
        nodes = c.array(b"DNOD", NODE, (nnodes,))
        boxes = c.array(b"DBOX", "<f4", (nnodes, 2, width))
        self._check_tree(c, nodes, boxes, feats, slots[:, 0], bias[slots[:, 1]], leaf)
        c.finish()

        # private copies the search kernel reads (a writable buffer may change after the open)
        self.rate = float(rate)
        self.up_axis, self.forward_axis = int(up), int(forward)
        self.leaf_size = int(leaf)
        self.clip_identities = clips.copy()
        self._channels = chans.copy()
        self._times = times.copy()
        self._entries = ents.copy()
        self.offsets = np.ascontiguousarray(norm[0], np.float32)
        self.scales = np.ascontiguousarray(norm[1], np.float32)
        self.features = np.ascontiguousarray(feats, np.float32)           # tree order
        self.slot_frame = np.ascontiguousarray(slots[:, 0])
        self.slot_entry = np.ascontiguousarray(slots[:, 1])
        self.frame_slot = np.empty(nframes, np.int64)
        self.frame_slot[self.slot_frame] = np.arange(nframes)
        self.frame_entry = entry_of
        self.frame_time = np.concatenate([frame_times(float(e["start"]), int(e["frame_count"]),
                                                      float(rate)) for e in ents])
        self.entry_bias = np.ascontiguousarray(bias)
        self.entry_tags = ents["tags"].astype(np.int64)
        self.entry_flags = ents["flags"].astype(np.int64)
        self.entry_end = ents["end"].astype(np.float32)
        self.node_links = np.ascontiguousarray(np.column_stack(
            [nodes["start"], nodes["count"], nodes["left"], nodes["right"], nodes["lowest"]]
        ).astype(np.int64))
        self.node_bias = np.ascontiguousarray(nodes["bias"], np.float32)
        self.boxes = np.ascontiguousarray(boxes, np.float32)
        self.channel_count = int(nchannels)
        self.entry_count = int(nentries)
        self.clip_count = int(nclips)
        self.skeleton_identity = int(skeleton)
        self.mirror_map_identity = int(mirror)
        # what the search kernel reads, packed in a few arrays of one type each
        self.norm = jit.array(np.stack([self.offsets, self.scales]), np.float32)
        self.frames = jit.array(np.stack([self.slot_frame, self.frame_slot, self.frame_entry]),
                                np.int64)
        self.entry_reals = jit.array(np.stack([self.entry_bias, self.entry_end]), np.float32)
        self.entry_ints = jit.array(np.stack([self.entry_tags, self.entry_flags]), np.int64)
        for name in ("features", "frame_time", "node_links", "node_bias", "boxes"):
            value = getattr(self, name)
            setattr(self, name, jit.array(value, value.dtype))
        self.offsets, self.scales = self.norm
        self.slot_frame, self.frame_slot, self.frame_entry = self.frames
        self.entry_bias, self.entry_end = self.entry_reals
        self.entry_tags, self.entry_flags = self.entry_ints
        self.identity = c.identity
        self.feature_count = int(width)
        self.frame_count = int(nframes)
        self.data = buf

    # ---- the open's checks
    @staticmethod
    def _check_entries(c: Container, ents, nclips: int, rate: float, nframes: int) -> None:
        at = c.offset_of(b"DENT")
        first = 0
        for i, e in enumerate(ents):
            base = at + ENTRY.itemsize * i
            if int(e["clip"]) >= nclips:
                raise FormatError("an entry's clip past the clips", base)
            if int(e["flags"]) & ~_FLAGS:
                raise FormatError("unknown entry flags", base + 4)
            if not np.isfinite(e["bias"]):
                raise FormatError("a cost bias not finite", base + 12)
            start, end = float(e["start"]), float(e["end"])
            if not (np.isfinite(start) and start >= 0):
                raise FormatError("a span's start not finite or below 0", base + 16)
            if not (np.isfinite(end) and end >= start and end <= 2.0 ** 64 / rate):
                raise FormatError("a span's end not finite or before its start", base + 20)
            if int(e["first_frame"]) != first:
                raise FormatError("an entry's frames not after the one before's", base + 24)
            count = frame_count(start, end, rate)
            if int(e["frame_count"]) != count or first + count > nframes:
                raise FormatError(f"an entry of {int(e['frame_count'])} frames; its span and "
                                  f"the rate give {count}", base + 28)
            first += count
        if first != nframes:
            raise FormatError(f"entries of {first} frames, not {nframes}",
                              c.offset_of(b"DHDR", 32))

    @staticmethod
    def _check_tree(c: Container, nodes, boxes, feats, slot_frame, slot_bias, leaf: int) -> None:
        """Every node's slots its children's halves, each slot under one leaf; every box,
        lowest frame and least bias exactly its frames' (kernels.check_tree)."""
        links = np.column_stack([nodes["start"], nodes["count"], nodes["left"],
                                 nodes["right"]]).astype(np.int64)
        node, what, feature = check_tree(
            jit.array(links, np.int64), jit.array(nodes["lowest"], np.int64),
            jit.array(nodes["bias"], np.float32), jit.array(boxes, np.float32),
            jit.array(feats, np.float32), jit.array(slot_frame, np.int64),
            jit.array(slot_bias, np.float32), leaf)
        if node < 0:
            return
        base = c.offset_of(b"DNOD", NODE.itemsize * node)
        if what >= 11:
            side = what - 11
            raise FormatError("a node's box is not its frames'",
                              c.offset_of(b"DBOX", 4 * ((node * 2 + side) * feats.shape[1] + feature)))
        message, place = _TREE_FAULTS[what]
        raise FormatError(message, base + place)

    # ---- the getters
    def clip_identity(self, clip) -> int:
        clip = args.integer(clip, "clip")
        return int(self.clip_identities[clip]) if 0 <= clip < self.clip_count else 0

    def _index(self, value, bound: int, what: str) -> int:
        i = args.integer(value, what)
        if not 0 <= i < bound:
            raise InvalidError(f"{what} {i} past the {bound}")
        return i

    def channel(self, channel) -> MatchChannel:
        ch = self._channels[self._index(channel, self.channel_count, "channel")]
        first, count = int(ch["first_time"]), int(ch["time_count"])
        track = int(ch["track"])
        return MatchChannel(MatchChannelKind(int(ch["kind"])), int(ch["bone"]),
                            self._times[first:first + count].copy(), float(ch["weight"]),
                            None if track == NO_TRACK else self.names.name(track))

    def channel_first_feature(self, channel: int) -> int:
        return int(self._channels[channel]["first_feature"])

    def channel_name(self, channel) -> str | None:
        channel = args.integer(channel, "channel")
        if not 0 <= channel < self.channel_count:
            return None
        track = int(self._channels[channel]["track"])
        return None if track == NO_TRACK else self.names.name(track)

    def entry(self, entry) -> MatchEntry:
        e = self._entries[self._index(entry, self.entry_count, "entry")]
        return MatchEntry(int(e["clip"]), float(e["start"]), float(e["end"]), int(e["tags"]),
                          float(e["bias"]), int(e["flags"]))

    def entry_frames(self, entry) -> tuple[int, int]:
        """(first frame, frame count) of an entry."""
        e = self._entries[self._index(entry, self.entry_count, "entry")]
        return int(e["first_frame"]), int(e["frame_count"])

    def frame(self, frame) -> tuple[int, float]:
        """(entry, clip time) of a frame."""
        f = self._index(frame, self.frame_count, "frame")
        return int(self.frame_entry[f]), float(self.frame_time[f])

    def frame_features(self, frame, out: np.ndarray | None = None) -> np.ndarray:
        """A frame's normalized features; into `out` when given (CapacityError with the
        count when it is too short, nothing written)."""
        f = self._index(frame, self.frame_count, "frame")
        row = self.features[self.frame_slot[f]]
        if out is None:
            return row.copy()
        out = args.output(out, "f", (-1,), "features")
        if out.size < self.feature_count:
            raise CapacityError(f"{out.size} floats for {self.feature_count} features",
                                count=self.feature_count)
        out[:self.feature_count] = row
        return out

    def normalization(self) -> tuple[np.ndarray, np.ndarray]:
        return self.offsets.copy(), self.scales.copy()

    @property
    def ground_axes(self) -> list[int]:
        return ground_axes(self.up_axis)


def opened(database, what: str = "database") -> MotionDatabase:
    if not isinstance(database, MotionDatabase) or not database.is_open:
        raise InvalidError(f"{what} is not an opened motion database")
    return database


def check_channels(c: Container, chans, times, ntracks: int, width: int, width_at: int) -> None:
    """A database's channel records (a motion database's, or a learned model's copy of
    them) against their times and features: FormatError at the first wrong byte, the
    feature count's own field (`width_at`) when the channels do not add up to it."""
    at = c.offset_of(b"DCHN")
    time_at = feature_at = 0
    for i, ch in enumerate(chans):
        base = at + CHANNEL.itemsize * i
        kind = int(ch["kind"])
        if kind > MatchChannelKind.float_track:
            raise FormatError("an unknown channel kind", base)
        if int(ch["first_time"]) != time_at:
            raise FormatError("a channel's times not after the one before's", base + 8)
        count = int(ch["time_count"])
        if not 1 <= count <= MAX_MATCH_TIMES or time_at + count > times.size:
            raise FormatError("a channel's time count out of range", base + 12)
        if int(ch["first_feature"]) != feature_at:
            raise FormatError("a channel's features not after the one before's", base + 16)
        weight = float(ch["weight"])
        if not (np.isfinite(weight) and weight > 0):
            raise FormatError("a weight not finite or not above 0", base + 20)
        track = int(ch["track"])
        if (kind == MatchChannelKind.float_track) != (track != NO_TRACK) or \
                (track != NO_TRACK and track >= ntracks):
            raise FormatError("a track name on the wrong kind or past the names", base + 24)
        if ch["reserved"]:
            raise FormatError("reserved field set", base + 28)
        t = times[time_at:time_at + count]
        place = _first(~(np.abs(t) <= MAX_MATCH_REACH))
        if place is not None:
            raise FormatError("a channel time not finite or past MAX_MATCH_REACH",
                              c.offset_of(b"DTIM", 4 * (time_at + place)))
        time_at += count
        feature_at += DIMENSIONS[MatchChannelKind(kind)] * count
    if time_at != times.size:
        raise FormatError("times no channel takes", c.size_field(b"DTIM"))
    if feature_at != width:
        raise FormatError(f"channels of {feature_at} features, not {width}", width_at)
