"""JSON text for the JSON forms (graphs, mirror maps): a reader that keeps each value's byte
offset, numbers written as the shortest text that reads back to the same binary32, in
ECMAScript's layout, and the codes a form's refusal names (GraphForm, shared by every form).

The reader is our own (a few dozen lines) because a refusal must name the byte where the
offending member's key starts, which Python's json module does not give for values nested
in objects. It reads RFC 8259 JSON from UTF-8 bytes, nests at most MAX_DEPTH deep (deeper
text is refused, not a recursion error), and refuses with BuildReason.Json and the offset of
the first byte it cannot read.
"""
from __future__ import annotations

import math
import re
import struct
from enum import IntEnum
from fractions import Fraction

from . import args
from .errors import BuildReason, InvalidError, VersionError

MAX_DEPTH = 64
_NUMBER = re.compile(rb"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_WS = b" \t\r\n"


class GraphForm(IntEnum):
    """maniGraphForm: what a JSON form refusal found wrong (shared by every JSON form)."""

    member = 1          # a member the object does not take
    missing = 2         # a member the object needs is not there
    type = 3            # a value of the wrong JSON type
    value = 4           # a value out of form: an unknown option, a place not a whole number
    name = 5            # a name that names nothing (parameter, clip, sync group, bone, asset)
    duplicate = 6       # a member given twice
    version = 7         # a version or node kind of another version of the form


class Value:
    """A JSON value and the offset of its first byte. Objects hold (key, key offset, value)
    members in text order; arrays their values."""

    __slots__ = ("kind", "value", "offset")

    def __init__(self, kind: str, value, offset: int):
        self.kind = kind            # object, array, string, number, bool, null
        self.value = value
        self.offset = offset


def _fail(message: str, offset: int):
    return InvalidError(f"JSON: {message} at byte {offset}", reason=BuildReason.Json, item=offset)


class _Reader:
    def __init__(self, data: bytes):
        self.d = data
        self.i = 0

    def ws(self) -> None:
        d, i = self.d, self.i
        while i < len(d) and d[i] in _WS:
            i += 1
        self.i = i

    def value(self, depth: int) -> Value:
        self.ws()
        d, i = self.d, self.i
        if i >= len(d):
            raise _fail("text ends where a value should be", i)
        c = d[i]
        if c == 0x7B:
            return self.obj(depth + 1)
        if c == 0x5B:
            return self.arr(depth + 1)
        if c == 0x22:
            return Value("string", self.string(), i)
        for word, kind, v in ((b"true", "bool", True), (b"false", "bool", False), (b"null", "null", None)):
            if d.startswith(word, i):
                self.i = i + len(word)
                return Value(kind, v, i)
        m = _NUMBER.match(d, i)
        if not m or m.end() == i:
            raise _fail("not a value", i)
        self.i = m.end()
        text = m.group(0)
        x = float(text)
        if not math.isfinite(x):
            raise _fail("a number past the float range", i)
        return Value("number", x, i)

    def obj(self, depth: int) -> Value:
        start = self.i
        if depth > MAX_DEPTH:
            raise _fail("nested too deep", start)
        self.i += 1
        members = []
        self.ws()
        if self.i < len(self.d) and self.d[self.i] == 0x7D:
            self.i += 1
            return Value("object", members, start)
        while True:
            self.ws()
            at = self.i
            if at >= len(self.d) or self.d[at] != 0x22:
                raise _fail("a member without a string key", at)
            key = self.string()
            self.ws()
            if self.i >= len(self.d) or self.d[self.i] != 0x3A:
                raise _fail("a key without a colon", self.i)
            self.i += 1
            members.append((key, at, self.value(depth)))
            self.ws()
            if self.i < len(self.d) and self.d[self.i] == 0x2C:
                self.i += 1
                continue
            if self.i < len(self.d) and self.d[self.i] == 0x7D:
                self.i += 1
                return Value("object", members, start)
            raise _fail("an object not closed", self.i)

    def arr(self, depth: int) -> Value:
        start = self.i
        if depth > MAX_DEPTH:
            raise _fail("nested too deep", start)
        self.i += 1
        items = []
        self.ws()
        if self.i < len(self.d) and self.d[self.i] == 0x5D:
            self.i += 1
            return Value("array", items, start)
        while True:
            items.append(self.value(depth))
            self.ws()
            if self.i < len(self.d) and self.d[self.i] == 0x2C:
                self.i += 1
                continue
            if self.i < len(self.d) and self.d[self.i] == 0x5D:
                self.i += 1
                return Value("array", items, start)
            raise _fail("an array not closed", self.i)

    def string(self) -> str:
        d = self.d
        i = self.i + 1
        out = []
        run = i
        while True:
            if i >= len(d):
                raise _fail("a string not closed", i)
            c = d[i]
            if c == 0x22:
                out.append(self._utf8(run, i))
                self.i = i + 1
                return "".join(out)
            if c < 0x20:
                raise _fail("a control character in a string", i)
            if c != 0x5C:
                i += 1
                continue
            out.append(self._utf8(run, i))
            if i + 1 >= len(d):
                raise _fail("an escape not finished", i)
            e = d[i + 1]
            simple = {0x22: '"', 0x5C: "\\", 0x2F: "/", 0x62: "\b", 0x66: "\f", 0x6E: "\n",
                      0x72: "\r", 0x74: "\t"}
            if e in simple:
                out.append(simple[e])
                i += 2
            elif e == 0x75:
                code = self._hex(i)
                i += 6
                if 0xD800 <= code < 0xDC00 and d[i:i + 2] == b"\\u":
                    low = self._hex(i)
                    if 0xDC00 <= low < 0xE000:
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                if 0xD800 <= code < 0xE000:
                    raise _fail("a lone surrogate", i - 6)
                out.append(chr(code))
            else:
                raise _fail("an unknown escape", i)
            run = i

    def _hex(self, i: int) -> int:
        digits = self.d[i + 2:i + 6]
        if len(digits) != 4 or not all(c in b"0123456789abcdefABCDEF" for c in digits):
            raise _fail("a \\u escape without four hex digits", i)
        return int(digits, 16)

    def _utf8(self, a: int, b: int) -> str:
        try:
            return self.d[a:b].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _fail("text not UTF-8", a + exc.start) from None


def parse(data: bytes) -> Value:
    """The one value a text holds (surrounded by white space only)."""
    r = _Reader(bytes(data))
    if r.d.startswith(b"\xef\xbb\xbf"):
        raise _fail("a byte order mark", 0)
    v = r.value(0)
    r.ws()
    if r.i != len(r.d):
        raise _fail("text after the value", r.i)
    return v


# ---- writing --------------------------------------------------------------------------------------
def _f32(x: float) -> float:
    """x rounded to binary32 (past its range: infinite)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _rounding_interval(x: float) -> tuple:
    """The reals that round to binary32 x > 0 (ties to even): (low, high, ends included)."""
    E = max(math.frexp(x)[1] - 24, -149)
    M = int(math.ldexp(x, -E))                  # x = M * 2**E exactly, M below 2**24
    half = Fraction(2) ** (E - 1)
    below = half / 2 if M == 1 << 23 and E > -149 else half     # the gap halves below 2**k
    return Fraction(x) - below, Fraction(x) + half, M % 2 == 0


def _shortest(x: float) -> tuple:
    """(digits, n): the fewest significant digits whose decimal 0.digits * 10**n rounds to
    binary32 x > 0, of those the closest to x. For each count the decimal nearest x is tried,
    then its neighbours: at a power of two the interval is lopsided (half the gap below), so
    the nearest can fall outside while the next one up is in."""
    low, high, ends = _rounding_interval(x)
    exact = Fraction(x)
    for p in range(1, 10):
        mantissa, exp = f"{x:.{p - 1}e}".split("e")
        S, q = int(mantissa.replace(".", "")), int(exp) - (p - 1)
        below = (S - 1, q) if S > 10 ** (p - 1) else (10 ** p - 1, q - 1)
        for s, e in sorted([(S, q), (S + 1, q), below], key=lambda c: abs(c[0] * Fraction(10) ** c[1] - exact)):
            d = s * Fraction(10) ** e
            if low < d < high or (ends and d in (low, high)):
                text = str(s)
                return text.rstrip("0"), e + len(text)
    raise AssertionError("nine digits always read back")


def number(x: float) -> str:
    """The shortest decimal that reads back to the same binary32 as x (the closest to x of
    the shortest), laid out as ECMAScript's Number::toString lays it out (1e21 and above,
    and below 1e-6, in exponent form), except that -0 is "-0" so its sign reads back."""
    x = _f32(float(x))
    if not math.isfinite(x):
        raise ValueError("JSON has no text for a number that is not finite")
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    sign = "-" if x < 0 else ""
    digits, n = _shortest(abs(x))
    k = len(digits)
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        body = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + body


def string(s: str) -> str:
    """A JSON string, non-ASCII kept as UTF-8, control characters escaped."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20:
            out.append({8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r"}.get(o, f"\\u{o:04x}"))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def dump(value, indent: int = 0) -> str:
    """A value made of dicts (members in order), lists, str, bool, None, int and float (a
    float written by number()): two-space indents, a line per list item and member, empty
    lists and objects on one line."""
    pad = "  " * indent
    inner = "  " * (indent + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        rows = [f"{inner}{string(k)}: {dump(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(rows) + "\n" + pad + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        rows = [f"{inner}{dump(v, indent + 1)}" for v in value]
        return "[\n" + ",\n".join(rows) + "\n" + pad + "]"
    if isinstance(value, str):
        return string(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    return number(value)


# ---- reading a form -------------------------------------------------------------------------
MISSING = object()      # a member's default: none, it must be given


def text_bytes(builder, text) -> bytes:
    """A JSON form's text as a build takes it: a str (its lone surrogates become bytes that
    are not UTF-8, refused at their offset by the reader) or bytes-like; none, or anything
    else, is a misuse counted on the builder."""
    if text is None:
        raise builder.refuse("no text")
    try:
        return args.name(text, "text") if isinstance(text, str) else \
            args.byte_view(text, "text").tobytes()
    except InvalidError as exc:
        raise builder.refuse(str(exc)) from None


def form_error(code: GraphForm, offset: int, message: str):
    return InvalidError(f"JSON form: {message} at byte {offset}", reason=BuildReason.Form,
                        item=offset, other=int(code))


class JsonObject:
    """An object of a JSON form (a graph's, a mirror map's): its members, each checked
    against the ones it takes before any is read; a member asked for with no default must
    be there."""

    def __init__(self, v: Value, takes, what: str):
        if v.kind != "object":
            raise form_error(GraphForm.type, v.offset, f"{what} is not an object")
        self.offset = v.offset
        self.what = what
        self.members = {}
        for key, at, value in v.value:
            if key in self.members:
                raise form_error(GraphForm.duplicate, at, f"{what}'s {key!r} given twice")
            if key not in takes:
                raise form_error(GraphForm.member, at, f"{what} takes no member {key!r}")
            self.members[key] = (at, value)

    def at(self, key: str) -> int:
        return self.members[key][0] if key in self.members else self.offset

    def check_form(self, version: int, form: str | None = None) -> None:
        """The form's head: its "format" name (when the form has one) and its "version",
        which only this library's version of the form reads (VersionError otherwise)."""
        if form is not None:
            fmt = self.get("format", ("string",))
            if fmt.value != form:
                raise form_error(GraphForm.value, fmt.offset, f"format {fmt.value!r} is not {form!r}")
        ver = self.get("version", ("number",))
        if ver.value != version:
            raise VersionError(f"form version {ver.value}; this library reads {version}",
                               reason=BuildReason.Form, item=ver.offset, other=int(GraphForm.version))

    def get(self, key: str, kinds: tuple, default=MISSING):
        if key not in self.members:
            if default is MISSING:
                raise form_error(GraphForm.missing, self.offset, f"{self.what} lacks {key!r}")
            return default
        at, v = self.members[key]
        if v.kind not in kinds:
            raise form_error(GraphForm.type, at, f"{self.what}'s {key!r} is not a {' or '.join(kinds)}")
        return v

    def maybe(self, key: str, kind: str) -> Value | None:
        """A member whose off value is none: its value, or None when it is left out or null
        (the one place null is read, so it means none wherever the form has a none)."""
        v = self.get(key, (kind, "null"), None)
        return None if v is None or v.kind == "null" else v

    def number(self, key: str, default=MISSING):
        v = self.get(key, ("number",), default)
        return v.value if isinstance(v, Value) else v

    def whole(self, key: str, default=MISSING, least=None):
        v = self.get(key, ("number",), default)
        if not isinstance(v, Value):
            return v
        if v.value != int(v.value) or (least is not None and v.value < least):
            raise form_error(GraphForm.value, self.at(key), f"{self.what}'s {key!r} is not a whole number")
        return int(v.value)

    def flag(self, key: str, default=False) -> bool:
        v = self.get(key, ("bool",), None)
        return default if v is None else v.value

    def text(self, key: str, default=MISSING):
        v = self.get(key, ("string",), default)
        return v.value if isinstance(v, Value) else v

    def items(self, key: str, default=MISSING):
        v = self.get(key, ("array",), default)
        return v.value if isinstance(v, Value) else v

    def option(self, key: str, table: dict, default):
        name = self.text(key, None)
        if name is None:
            return default
        for value, text in table.items():
            if text == name:
                return value
        raise form_error(GraphForm.value, self.at(key), f"{self.what}'s {key!r} names no option {name!r}")
