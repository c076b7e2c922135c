"""Name tables: UTF-8 names packed in one section, with offsets, hashes and a sorted index.

Every file kind that names things (bones, tracks, parameters, nodes) stores its names the
same way, so building, checking and finding a name is written once:

    <P>OFF  u32[n + 1]  byte offsets into the names, from 0 to the names' length
    <P>NAM  the UTF-8 bytes
    <P>HSH  u64[n]      maniHash64(NAME_HASH_SEED, name) of each
    <P>SRT  u32[n]      the items ordered by (hash, index), for a binary search by name
"""
from __future__ import annotations

import numpy as np

from . import args
from .base import hash64
from .container import Container, Section
from .errors import BuildReason, FormatError, InvalidError, LimitError
from .limits import MAX_NAME_BYTES, NAME_HASH_SEED, NO_BONE


def name_bytes(name, what: str, item: int, *, reason_other: int = 0) -> bytes:
    """A source name as UTF-8 bytes, refused (reason Name) when empty, not text or too long."""
    if isinstance(name, str):
        try:
            raw = name.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidError(f"{what} {item}: name not encodable as UTF-8",
                               reason=BuildReason.Name, item=item, other=reason_other) from None
    elif isinstance(name, (bytes, bytearray, memoryview)):
        raw = bytes(name)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidError(f"{what} {item}: name not UTF-8",
                               reason=BuildReason.Name, item=item, other=reason_other) from None
    else:
        raise InvalidError(f"{what} {item}: name is not text",
                           reason=BuildReason.Name, item=item, other=reason_other)
    if not raw:
        raise InvalidError(f"{what} {item}: empty name",
                           reason=BuildReason.Name, item=item, other=reason_other)
    if len(raw) > MAX_NAME_BYTES:
        raise LimitError(f"{what} {item}: name of {len(raw)} bytes past MAX_NAME_BYTES",
                         reason=BuildReason.Name, item=item, other=reason_other)
    return raw


def hash_name(raw: bytes) -> int:
    return hash64(NAME_HASH_SEED, raw)


def check_unique(names: list[bytes], what: str, *, first: int = 0,
                 other_bits: int = 0) -> list[int]:
    """Refuses a name given twice (DuplicateName) or two names of one hash (NameHash); their
    hashes. The refusal's item is the later name's place and other the earlier's, places
    counted from `first` (where the list starts in its source), other with `other_bits` set
    (a tag for the list)."""
    seen: dict[int, int] = {}
    hashes = []
    for i, raw in enumerate(names):
        h = hash_name(raw)
        j = seen.get(h)
        if j is not None:
            reason = BuildReason.DuplicateName if names[j] == raw else BuildReason.NameHash
            raise InvalidError(f"{what} {i}: name {raw!r} clashes with {what} {j}",
                               reason=reason, item=first + i, other=other_bits | (first + j))
        seen[h] = i
        hashes.append(h)
    return hashes


def sections(prefix: bytes, names: list[bytes], hashes: list[int], since: int = 0) -> list[Section]:
    offsets = np.zeros(len(names) + 1, dtype="<u4")
    np.cumsum([len(n) for n in names], out=offsets[1:])
    h = np.array(hashes, dtype="<u8")
    order = np.lexsort((np.arange(len(names)), h)).astype("<u4")
    return [Section(prefix + b"OFF", since, offsets.tobytes()),
            Section(prefix + b"NAM", since, b"".join(names)),
            Section(prefix + b"HSH", since, h.tobytes()),
            Section(prefix + b"SRT", since, order.tobytes())]


def tags(prefix: bytes, since: int = 0) -> dict[bytes, int]:
    return {prefix + s: since for s in (b"OFF", b"NAM", b"HSH", b"SRT")}


def count_items(prefix: bytes) -> dict[bytes, tuple[int, int]]:
    """For Container.check_count: the name sections a count of names sizes."""
    return {prefix + b"OFF": (4, 1), prefix + b"HSH": (8, 0), prefix + b"SRT": (4, 0)}


class NameTable:
    """A checked name table read in place; lookups stay within the file if bytes change."""

    def __init__(self, c: Container, prefix: bytes, count: int):
        self.offsets = c.array(prefix + b"OFF", "<u4", (count + 1,))
        self.data = c.raw(prefix + b"NAM")
        self.hashes = c.array(prefix + b"HSH", "<u8", (count,))
        self.order = c.array(prefix + b"SRT", "<u4", (count,))
        self.count = count
        off = self.offsets.astype(np.int64)
        base = c.offset_of(prefix + b"OFF")
        if off[0] != 0:
            raise FormatError("names do not start at 0", base)
        names_at = c.offset_of(prefix + b"NAM")
        hash_at = c.offset_of(prefix + b"HSH")
        # names are read as the offsets place them, up to the end of the file, so that a
        # wrong offset and a wrong section size can be told apart
        within = c.buf[names_at:].tobytes()

        def fault(i: int) -> int | None:
            """Where name i is wrong, or None: its span, its UTF-8, or its hash."""
            a, b = off[i], off[i + 1]
            if not (0 <= a < b <= len(within) and b - a <= MAX_NAME_BYTES):
                return base + 4 * (i + 1)
            raw = within[a:b]
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as e:
                return names_at + int(a) + e.start
            return None if hash_name(raw) == int(self.hashes[i]) else hash_at + 8 * i

        ends_right = off[-1] == self.data.size
        for i in range(count):
            at = fault(i)
            if at is not None:
                # a name's end is the next one's start: when both are wrong, or the last
                # name is wrong and does not end the names, that offset is the culprit
                if (i + 1 < count and fault(i + 1) is not None) or (i + 1 == count and not ends_right):
                    at = base + 4 * (i + 1)
                raise FormatError(f"name {i} wrong", at)
        if not ends_right:
            raise FormatError("names section size disagrees with the names", c.size_field(prefix + b"NAM"))
        order = self.order.astype(np.int64)
        srt_at = c.offset_of(prefix + b"SRT")
        if not np.array_equal(np.sort(order), np.arange(count)):
            seen = np.zeros(count + 1, dtype=bool)
            for k, v in enumerate(order):
                if v >= count or seen[v]:
                    raise FormatError("sorted name index not a permutation", srt_at + 4 * k)
                seen[v] = True
        sorted_hashes = self.hashes[order]
        keys = np.lexsort((order, sorted_hashes))
        if not np.array_equal(keys, np.arange(count)):
            k = int(np.flatnonzero(keys != np.arange(count))[0])
            raise FormatError("name index not sorted by hash", srt_at + 4 * k)
        dup = np.flatnonzero(sorted_hashes[1:] == sorted_hashes[:-1])
        if dup.size:
            later = int(max(order[dup[0]], order[dup[0] + 1]))
            raise FormatError("two names of one hash", names_at + int(off[later]))
        # private copies for lookups, so bytes changed after the open cannot send a search
        # outside the table
        self._sorted_hashes = sorted_hashes
        self._order = order

    def name(self, i: int, what: str = "index") -> str | None:
        """Item i's name; None past the count or for a span outside the names."""
        i = args.integer(i, what)
        if not 0 <= i < self.count:
            return None
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        if not 0 <= a <= b <= self.data.size:
            return None
        return self.data[a:b].tobytes().decode("utf-8", errors="replace")

    def find(self, name) -> int:
        """The item of that name, or NO_BONE (which is MANI_NO_TRACK and the like too); a
        name that is not UTF-8 (a lone surrogate's bytes) finds nothing."""
        raw = args.name(name)
        h = hash_name(raw)
        lo = int(np.searchsorted(self._sorted_hashes, h, side="left"))
        while lo < self.count and int(self._sorted_hashes[lo]) == h:
            i = int(self._order[lo])
            a, b = int(self.offsets[i]), int(self.offsets[i + 1])
            if 0 <= a <= b <= self.data.size and self.data[a:b].tobytes() == raw:
                return i
            lo += 1
        return NO_BONE
