"""FBX's record tree, binary or ASCII, checked whole on open and decoded on demand.

Binary (told apart by its 22-byte magic; the byte after it chooses the byte order, the next
four hold the version): records of an end offset, a property count, a property-list length
(each 32 bits, 64 from version 7500), a name, the properties, then the children, closed by
a record of zeros. Every length is checked against the bytes and its parent's end, every
property's type and size, an array's encoding and (raw) byte count; no array is inflated
and no number converted until asked for. ASCII: `Name: value, value { children }`, with
`; comments`, quoted strings, numbers, bare words and 7.x's `*N { a: ... }` arrays; every
token is checked to be one of those and every count to match on open.

A refused file is an ImportFormatError: Container (the binary framing), Version (outside
3000 to 7700, or missing in ASCII), Syntax (ASCII tokens), with the offset of the first
byte found wrong; Data later, when an asked-for array does not inflate or convert."""
from __future__ import annotations

import re
import struct
import zlib

import numpy as np

from ..common import ImportFormatError, ImportReason

__all__ = ["Document", "Record", "read_document", "MAGIC"]

MAGIC = b"Kaydara FBX Binary  \x00\x1a"
HEADER_SIZE = len(MAGIC) + 5
MIN_VERSION, MAX_VERSION = 3000, 7700
MAX_DEPTH = 64

# property kinds: scalars (size, struct letter), arrays (element size, numpy kind)
_SCALARS = {ord("Y"): (2, "h"), ord("C"): (1, "b"), ord("I"): (4, "i"), ord("F"): (4, "f"),
            ord("D"): (8, "d"), ord("L"): (8, "q")}
_ARRAYS = {ord("f"): (4, "f4"), ord("d"): (8, "f8"), ord("l"): (8, "i8"), ord("i"): (4, "i4"),
           ord("b"): (1, "i1")}
_STRINGS = (ord("S"), ord("R"))

# ASCII value kinds
A_STRING, A_NUMBER, A_WORD, A_COUNT = 1, 2, 3, 4
_ASCII = re.compile(rb"""
    (?P<space>[ \t\r\n\x00]+|;[^\n]*)
  | (?P<string>"[^"]*")
  | (?P<key>[A-Za-z_][A-Za-z0-9_|\-]*[ \t]*:)
  | (?P<number>[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?(?![A-Za-z0-9_.]))
  | (?P<count>\*[0-9]+)
  | (?P<word>[-+]?[A-Za-z_#][A-Za-z0-9_|\-.#]*)
  | (?P<punct>[{},])
""", re.X)
_KIND = {"string": A_STRING, "number": A_NUMBER, "word": A_WORD, "count": A_COUNT}
_VERSION_COMMENT = re.compile(rb"\A(?:\xef\xbb\xbf)?[ \t\r\n]*;[ \t]*FBX[ \t]+([0-9]+)\.([0-9]+)\.([0-9]+)")


def _fail(message: str, reason: ImportReason, offset: int) -> ImportFormatError:
    return ImportFormatError(message, reason, offset=offset)


class Record:
    """One record: its name, where it starts, its properties (undecoded) and children.

    A property is a tuple: binary (type byte, offset of its payload, count or length,
    encoding, payload byte count); ASCII (kind, start, end) of its token."""

    __slots__ = ("name", "offset", "props", "children", "doc")

    def __init__(self, doc, name: bytes, offset: int):
        self.doc = doc
        self.name = name
        self.offset = offset
        self.props: list = []
        self.children: list[Record] = []

    def __repr__(self):
        return f"Record({self.name!r} at {self.offset}, {len(self.props)} props, " \
               f"{len(self.children)} children)"

    def child(self, name: bytes) -> "Record | None":
        for c in self.children:
            if c.name == name:
                return c
        return None

    def all(self, name: bytes) -> list["Record"]:
        return [c for c in self.children if c.name == name]

    # ---- values, decoded when asked for
    def count(self) -> int:
        return len(self.props)

    def is_string(self, i: int) -> bool:
        return i < len(self.props) and self.doc.prop_is_string(self.props[i])

    def string(self, i: int) -> bytes | None:
        """Property i as bytes, None when missing or not a string."""
        if i >= len(self.props):
            return None
        return self.doc.prop_string(self.props[i])

    def number(self, i: int, default=None):
        """Property i as an int or float, `default` when missing or not a number."""
        if i >= len(self.props):
            return default
        return self.doc.prop_number(self.props[i], default)

    def array(self, dtype=np.float64) -> np.ndarray:
        """The record's array (a binary array property, ASCII 7.x `*N {a: ...}` or a plain
        list of numbers) as `dtype`; Data for what does not inflate or convert."""
        return self.doc.record_array(self, dtype)


class Document:
    """An opened FBX file: its version, byte order, top records, and the bytes it reads."""

    def __init__(self, data: bytes, binary: bool, big_endian: bool, version: int):
        self.data = data
        self.binary = binary
        self.big_endian = big_endian
        self.version = version
        self.top = Record(self, b"", 0)

    # ---- binary properties
    def prop_is_string(self, p) -> bool:
        return p[0] in _STRINGS if self.binary else p[0] == A_STRING

    def prop_string(self, p) -> bytes | None:
        if self.binary:
            if p[0] not in _STRINGS:
                return None
            return self.data[p[1]:p[1] + p[2]]
        if p[0] != A_STRING:
            return None
        return self.data[p[1] + 1:p[2] - 1]

    def prop_number(self, p, default=None):
        if self.binary:
            kind = p[0]
            if kind not in _SCALARS:
                return default
            size, letter = _SCALARS[kind]
            value = struct.unpack_from((">" if self.big_endian else "<") + letter, self.data, p[1])[0]
            return value
        if p[0] == A_NUMBER:
            token = self.data[p[1]:p[2]]
            if b"." in token or b"e" in token or b"E" in token:
                return float(token)
            return int(token)
        if p[0] == A_WORD:          # single-letter flags (T/Y/W/...) are not numbers
            return default
        return default

    def record_array(self, record: Record, dtype) -> np.ndarray:
        props = record.props
        if self.binary:
            if len(props) == 1 and props[0][0] in _ARRAYS:
                return self._binary_array(props[0], dtype)
            values = [self.prop_number(p) for p in props]
            if any(v is None for v in values):
                raise _fail(f"{record.name!r} is not an array of numbers", ImportReason.Data,
                            record.offset)
            return np.asarray(values, dtype=np.float64).astype(dtype)
        source = record
        expect = None
        if props and props[0][0] == A_COUNT:
            expect = int(self.data[props[0][1] + 1:props[0][2]])
            source = record.child(b"a")
            if source is None:
                if expect == 0:
                    return np.zeros(0, dtype=dtype)
                raise _fail(f"{record.name!r} has no a: values", ImportReason.Data, record.offset)
        ps = source.props
        if not ps:
            return np.zeros(0, dtype=dtype)
        bad = [p for p in ps if p[0] != A_NUMBER]
        if bad:
            raise _fail(f"{record.name!r} holds a value not a number", ImportReason.Data, bad[0][1])
        text = self.data[ps[0][1]:ps[-1][2]]
        if b";" in text or b"\x00" in text:      # comments or NULs between the numbers
            text = b" ".join(self.data[p[1]:p[2]] for p in ps)
        out = np.array(text.replace(b",", b" ").split(), dtype=np.float64)
        if expect is not None and out.size != expect:
            raise _fail(f"{record.name!r} counts {expect} values but holds {out.size}",
                        ImportReason.Data, record.offset)
        return out.astype(dtype)

    def _binary_array(self, p, dtype) -> np.ndarray:
        kind, at, count, encoding, size = p
        elem, code = _ARRAYS[kind]
        order = ">" if self.big_endian else "<"
        raw = self.data[at:at + size]
        if encoding == 1:
            try:
                inflater = zlib.decompressobj()
                raw = inflater.decompress(raw, count * elem + 1)
            except zlib.error:
                raise _fail("an array that does not inflate", ImportReason.Data, at) from None
            if len(raw) != count * elem:
                raise _fail(f"an array inflating to {len(raw)} bytes, not {count * elem}",
                            ImportReason.Data, at)
        out = np.frombuffer(raw, dtype=np.dtype(order + code), count=count)
        if kind == ord("b"):
            out = out != 0
        return out.astype(dtype)


def read_document(data) -> Document:
    """Opens FBX bytes (binary or ASCII), checking every record and token."""
    data = bytes(data)
    if data[:len(MAGIC)] == MAGIC:
        return _read_binary(data)
    if data[:18] == MAGIC[:18]:
        raise _fail("a binary FBX magic cut short or altered", ImportReason.Container,
                    next(i for i in range(len(MAGIC)) if i >= len(data) or data[i] != MAGIC[i]))
    return _read_ascii(data)


# ---------------------------------------------------------------- binary
def _read_binary(data: bytes) -> Document:
    size = len(data)
    if size < HEADER_SIZE:
        raise _fail("the header is cut short", ImportReason.Container, size)
    big = data[len(MAGIC)] != 0
    order = ">" if big else "<"
    version = struct.unpack_from(order + "I", data, len(MAGIC) + 1)[0]
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise _fail(f"version {version} is outside {MIN_VERSION} to {MAX_VERSION}",
                    ImportReason.Version, len(MAGIC) + 1)
    doc = Document(data, True, big, version)
    wide = version >= 7500
    head = struct.Struct(order + ("QQQB" if wide else "IIIB"))
    hsize = head.size
    u32 = struct.Struct(order + "I")
    arr = struct.Struct(order + "III")
    unpack, unpack_u32, unpack_arr = head.unpack_from, u32.unpack_from, arr.unpack_from
    scalars, arrays, strings = _SCALARS, _ARRAYS, _STRINGS
    container = ImportReason.Container

    # stack of (parent record, end of its children region)
    stack = [(doc.top, size)]
    at = HEADER_SIZE
    while stack:
        parent, limit = stack[-1]
        if at == limit:
            stack.pop()                 # children (or a file) ending without a closing record
            continue
        if at + hsize > limit:
            raise _fail("a record header past its parent's end", container, at)
        end, nprops, plen, nlen = unpack(data, at)
        if end == 0:
            if nprops or plen or nlen:
                raise _fail("a closing record that is not zeros", container, at)
            at += hsize
            stack.pop()
            if stack and at != limit:
                raise _fail("a closing record not at its parent's end", container, at)
            continue
        start = at
        if end > limit or end < at + hsize + nlen:
            raise _fail(f"a record end {end} outside its parent", container, at)
        name = data[at + hsize:at + hsize + nlen]
        rec = Record(doc, name, start)
        parent.children.append(rec)
        at += hsize + nlen
        pend = at + plen
        if pend > end:
            raise _fail("a property list past its record's end", container, at)
        if nprops > plen:
            raise _fail("more properties than their list's bytes", container, start)
        props = rec.props
        for _ in range(nprops):
            if at >= pend:
                raise _fail("a property past its list's length", container, at)
            kind = data[at]
            at += 1
            if kind in scalars:
                n = scalars[kind][0]
                if at + n > pend:
                    raise _fail("a property past its list's length", container, at - 1)
                props.append((kind, at, 1, 0, n))
                at += n
            elif kind in arrays:
                if at + 12 > pend:
                    raise _fail("an array header past its list's length", container, at - 1)
                count, encoding, csize = unpack_arr(data, at)
                if encoding == 0:
                    if csize != count * arrays[kind][0]:
                        raise _fail("a raw array whose byte count is not its length's",
                                    container, at + 8)
                elif encoding != 1:
                    raise _fail(f"an array of unknown encoding {encoding}", container, at + 4)
                at += 12
                if at + csize > pend:
                    raise _fail("an array past its list's length", container, at - 4)
                props.append((kind, at, count, encoding, csize))
                at += csize
            elif kind in strings:
                if at + 4 > pend:
                    raise _fail("a string length past its list's length", container, at - 1)
                n = unpack_u32(data, at)[0]
                at += 4
                if at + n > pend:
                    raise _fail("a string past its list's length", container, at - 4)
                props.append((kind, at, n, 0, n))
                at += n
            else:
                raise _fail(f"a property of unknown type {kind!r}", container, at - 1)
        if at != pend:
            raise _fail("a property list longer than its properties", container, at)
        if end > pend:
            if len(stack) > MAX_DEPTH:
                raise _fail(f"records nested past {MAX_DEPTH} deep", container, start)
            stack.append((rec, end))
        # a record without children ends at its properties
    return doc


# ---------------------------------------------------------------- ASCII
def _read_ascii(data: bytes) -> Document:
    tokens = []            # (kind code, start, end); keys: kind 0 with name span
    size = len(data)
    at = 0
    match = _ASCII.match
    if data.startswith(b"\xef\xbb\xbf"):
        at = 3
    while at < size:
        m = match(data, at)
        if m is None:
            raise _fail("a token FBX's ASCII does not have", ImportReason.Syntax, at)
        group = m.lastgroup
        end = m.end()
        if group == "key":
            tokens.append((0, at, end))
        elif group == "punct":
            tokens.append((data[at], at, end))
        elif group != "space":
            tokens.append((_KIND[group], at, end))
        at = end
    version = _ascii_version(data, tokens)
    doc = Document(data, False, False, version)
    _ascii_tree(doc, tokens)
    _check_version(doc, data)
    return doc


def _ascii_version(data, tokens) -> int:
    m = _VERSION_COMMENT.match(data)
    if m:
        return int(m.group(1)) * 1000 + int(m.group(2)) * 100 + int(m.group(3)) * 10
    return 0


_OPEN, _CLOSE, _COMMA = ord("{"), ord("}"), ord(",")


def _ascii_tree(doc: Document, tokens: list) -> None:
    syntax = ImportReason.Syntax
    data = doc.data
    stack = [doc.top]
    i, n = 0, len(tokens)
    while i < n:
        kind, start, end = tokens[i]
        if kind == _CLOSE:
            if len(stack) == 1:
                raise _fail("a '}' without its '{'", syntax, start)
            stack.pop()
            i += 1
            continue
        if kind != 0:
            raise _fail("a value where a name should be", syntax, start)
        name = data[start:end - 1].rstrip(b" \t")
        rec = Record(doc, name, start)
        stack[-1].children.append(rec)
        i += 1
        props = rec.props
        if i < n and tokens[i][0] == _COMMA:       # `Content: , "..."` writes an empty first
            i += 1
        while i < n and tokens[i][0] in (A_STRING, A_NUMBER, A_WORD, A_COUNT):
            props.append(tokens[i])
            i += 1
            if i < n and tokens[i][0] == _COMMA:
                i += 1
                if i >= n or tokens[i][0] not in (A_STRING, A_NUMBER, A_WORD, A_COUNT):
                    raise _fail("a ',' without a value after it", syntax,
                                tokens[i][1] if i < n else len(data))
            else:
                break
        if i < n and tokens[i][0] == _OPEN:
            if len(stack) > MAX_DEPTH:
                raise _fail(f"records nested past {MAX_DEPTH} deep", syntax, tokens[i][1])
            stack.append(rec)
            i += 1
        elif i < n and tokens[i][0] == _COMMA:
            raise _fail("a ',' where a value should be", syntax, tokens[i][1])
        if props and props[0][0] == A_COUNT and rec is not stack[-1]:
            raise _fail("an array count without its '{ a: }'", syntax, props[0][1])
    if len(stack) > 1:
        raise _fail(f"{stack[-1].name!r} is not closed", syntax, len(data))
    _check_counts(doc, doc.top)


def _check_counts(doc: Document, top: Record) -> None:
    """Every 7.x `*N { a: ... }` holds N values (checked on open, converted later)."""
    stack = [top]
    while stack:
        rec = stack.pop()
        props = rec.props
        if props and props[0][0] == A_COUNT:
            want = int(doc.data[props[0][1] + 1:props[0][2]])
            a = rec.child(b"a")
            got = 0 if a is None else len(a.props)
            if got != want:
                raise _fail(f"{rec.name!r} counts {want} values but holds {got}",
                            ImportReason.Syntax, props[0][1])
        stack.extend(rec.children)


def _check_version(doc: Document, data: bytes) -> None:
    header = doc.top.child(b"FBXHeaderExtension")
    where = 0
    if header is not None:
        rec = header.child(b"FBXVersion")
        if rec is not None:
            v = rec.number(0)
            where = rec.offset
            if isinstance(v, int):
                doc.version = v
    if doc.version == 0:
        raise _fail("no FBX version in the text", ImportReason.Version, where)
    if not MIN_VERSION <= doc.version <= MAX_VERSION:
        raise _fail(f"version {doc.version} is outside {MIN_VERSION} to {MAX_VERSION}",
                    ImportReason.Version, where)
