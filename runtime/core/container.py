"""The one file container every kind of file uses.

Layout, little-endian, every field at its natural alignment:

    offset  size  field
    0       4     magic b"MAUL"
    4       2     kind (FileKind)
    6       2     format version of that kind (a file of another version is refused)
    8       2     format minor: the newest section tag this file may hold
    10      2     section count
    12      4     reserved, 0
    16      8     identity: maniHash64(seed = kind + version << 16 + minor << 32,
                  bytes 32 to the end)
    24      8     file size in bytes
    32      24*n  section table, one entry a section:
                    tag (4 ASCII bytes), since (u16, the minor that introduced the tag),
                    reserved (u16, 0), offset (u64), size (u64)
    ...           sections, in table order, each at a multiple of 16, zero padding between

A section whose `since` is newer than the minor this library reads was written by a later
format: VersionError. An unknown tag this library should know is a FormatError at the tag.
Opening checks structure first, then the caller checks each section's content, then the
identity, so a corrupted field is reported at its own bytes, never at the identity.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from .base import hash64
from .errors import FormatError, InvalidError, VersionError

MAGIC = b"MAUL"
HEADER = struct.Struct("<4sHHHHIQQ")
ENTRY = struct.Struct("<4sHHQQ")
SECTION_ALIGN = 16
BYTES_ALIGN = 8          # what an open requires of the caller's buffer address


class FileKind(IntEnum):
    """The container's kind field. Retarget map = 4 and mirror map = 13 are fixed by design."""

    skeleton = 1
    clip = 2
    skin = 3
    retarget_map = 4
    influences = 5
    morph_targets = 6
    graph = 7
    spring_set = 8
    ragdoll = 9
    motion_database = 10
    learned_model = 11
    saved_state = 12
    mirror_map = 13
    checkpoint = 14


@dataclass(frozen=True)
class Section:
    tag: bytes
    since: int
    data: bytes


def write(kind: FileKind, version: int, minor: int, sections: list[Section]) -> bytes:
    """Lays sections out in the container and stamps the identity."""
    table_end = HEADER.size + ENTRY.size * len(sections)
    offsets, at = [], _align(table_end)
    for s in sections:
        offsets.append(at)
        at = _align(at + len(s.data))
    size = offsets[-1] + len(sections[-1].data) if sections else table_end
    out = bytearray(size)
    for i, (s, off) in enumerate(zip(sections, offsets)):
        ENTRY.pack_into(out, HEADER.size + ENTRY.size * i, s.tag, s.since, 0, off, len(s.data))
        out[off:off + len(s.data)] = s.data
    identity = hash64(_identity_seed(kind, version, minor), memoryview(out)[HEADER.size:])
    HEADER.pack_into(out, 0, MAGIC, int(kind), version, minor, len(sections), 0, identity, size)
    return bytes(out)


def _identity_seed(kind: int, version: int, minor: int) -> int:
    """The header's facts the table does not cover, so a changed byte there changes it."""
    return int(kind) | int(version) << 16 | int(minor) << 32


def _align(n: int) -> int:
    return (n + SECTION_ALIGN - 1) // SECTION_ALIGN * SECTION_ALIGN


def as_buffer(data) -> np.ndarray:
    """The caller's bytes as a read-in-place uint8 array; refuses None and misalignment."""
    if data is None:
        raise InvalidError("no bytes")
    try:
        buf = np.frombuffer(data, dtype=np.uint8)
    except (TypeError, ValueError) as exc:
        raise InvalidError(f"not a bytes-like object: {exc}") from None
    if buf.ctypes.data % BYTES_ALIGN:
        raise InvalidError(f"bytes not aligned to {BYTES_ALIGN}")
    return buf


class Container:
    """A checked view of a container: the header's facts and each section as a buffer.

    Content checks use `offset_of(tag, byte)` to report the file offset of a wrong byte.
    """

    def __init__(self, buf: np.ndarray, kind: FileKind, version: int, minor: int,
                 known: dict[bytes, int], required: tuple[bytes, ...] = ()):
        self.buf = buf
        size = buf.size
        if size < HEADER.size:
            first = _first_mismatch(buf.tobytes(), MAGIC)
            raise FormatError("file shorter than its header", min(first, size))
        magic, file_kind, file_version, file_minor, count, reserved, identity, declared = \
            HEADER.unpack_from(buf, 0)
        if magic != MAGIC:
            raise FormatError("not a Maul Anim file", _first_mismatch(magic, MAGIC))
        if file_kind != kind:
            raise FormatError(f"a file of kind {file_kind}, not {int(kind)}", 4)
        if file_version != version:
            raise VersionError(f"format version {file_version}; this library reads {version}")
        if reserved:
            raise FormatError("reserved header field set", 12)
        if declared != size:
            raise FormatError(f"declares {declared} bytes but holds {size}", 24)
        table_end = HEADER.size + ENTRY.size * count
        if table_end > size:
            raise FormatError(f"{count} sections do not fit the file", 10)
        self.identity = identity
        self.minor = file_minor
        entries = [ENTRY.unpack_from(buf, HEADER.size + ENTRY.size * i) for i in range(count)]
        self.sections: dict[bytes, tuple[int, int]] = {}
        for i, (tag, since, res, off, length) in enumerate(entries):
            base = HEADER.size + ENTRY.size * i
            if since > minor:
                raise VersionError(f"section {tag!r} is from format minor {since}; "
                                   f"this library reads up to {minor}")
            if known.get(tag) != since or since > file_minor:
                raise FormatError(f"unknown section {tag!r}", base)
            if tag in self.sections:
                raise FormatError(f"section {tag!r} twice", base)
            if res:
                raise FormatError("reserved entry field set", base + 6)
            if off % SECTION_ALIGN or off > size:
                raise FormatError(f"section {tag!r} at a bad offset {off}", base + 8)
            previous_end = table_end if i == 0 else sum(entries[i - 1][3:5])
            if off != _align(previous_end):
                # One field is wrong: this offset, or what fixed where this section starts
                # (the section count for the first, the previous size otherwise). An offset
                # that agrees with its own size and the next section is not the wrong one.
                next_slot = base + ENTRY.size
                agrees = off + length == size or (
                    next_slot + ENTRY.size <= off
                    and _align(off + length) == ENTRY.unpack_from(buf, next_slot)[3])
                culprit = base + 8 if not agrees else 10 if i == 0 else base - ENTRY.size + 16
                raise FormatError(f"section {tag!r} not where the table lays it", culprit)
            if length > size - off:
                raise FormatError(f"section {tag!r} runs past the file", base + 16)
            self.sections[tag] = (off, length)
        end = sum(entries[-1][3:5]) if entries else table_end
        if end != size:
            raise FormatError("the last section does not end the file",
                              HEADER.size + ENTRY.size * (count - 1) + 16 if entries else 10)
        for tag in required:
            if tag not in self.sections:
                raise FormatError(f"section {tag!r} missing", 10)
        self._seed = _identity_seed(kind, version, file_minor)

    def has(self, tag: bytes) -> bool:
        return tag in self.sections

    def offset_of(self, tag: bytes, byte: int = 0) -> int:
        return self.sections[tag][0] + byte

    def check_count(self, count: int, count_at: int, items: dict[bytes, tuple[int, int]]) -> None:
        """Blames a count field that no section it sizes agrees with.

        `items` gives, per section, its bytes an item and how many items it holds beyond
        the count. Where some section agrees, the count stands and a section that does not
        is blamed at its own size field by `array`.
        """
        implied = [(self.sections[tag][1] // size) - extra
                   for tag, (size, extra) in items.items() if tag in self.sections]
        if implied and count not in implied:
            raise FormatError(f"count {count} fits none of its sections", count_at)

    def array(self, tag: bytes, dtype, shape=None) -> np.ndarray:
        """A section as a typed array in place. Its size must be exactly what the shape says,
        else its size field is blamed."""
        off, length = self.sections[tag]
        dtype = np.dtype(dtype)
        if shape is None:
            if length % dtype.itemsize:
                raise FormatError(f"section {tag!r} is not whole {dtype} items",
                                  self._size_field(tag))
            shape = (length // dtype.itemsize,)
        want = int(np.prod(shape)) * dtype.itemsize
        if want != length:
            raise FormatError(f"section {tag!r} holds {length} bytes, expected {want}",
                              self._size_field(tag))
        return np.frombuffer(self.buf, dtype, int(np.prod(shape)), off).reshape(shape)

    def raw(self, tag: bytes) -> np.ndarray:
        off, length = self.sections[tag]
        return self.buf[off:off + length]

    def _size_field(self, tag: bytes) -> int:
        index = list(self.sections).index(tag)
        return HEADER.size + ENTRY.size * index + 16

    def size_field(self, tag: bytes) -> int:
        """Where a section's size is written in the table."""
        return self._size_field(tag)

    def finish(self) -> None:
        """The last checks, after the kind has checked its sections' sizes and contents:
        padding zero (a size one short would otherwise be blamed on the padding), then the
        identity."""
        ends = [HEADER.size + ENTRY.size * len(self.sections)] + [o + n for o, n in self.sections.values()]
        starts = [o for o, _ in self.sections.values()]
        for end, start in zip(ends, starts):
            pad = self.buf[end:start]
            if pad.any():
                raise FormatError("padding not zero", end + int(np.flatnonzero(pad)[0]))
        if hash64(self._seed, self.buf[HEADER.size:]) != self.identity:
            raise FormatError("identity does not match the contents", 16)


def _first_mismatch(a: bytes, b: bytes) -> int:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))
