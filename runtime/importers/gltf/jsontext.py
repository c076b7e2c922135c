"""JSON text read with the byte offset of every object and array kept, so a refusal of a
glTF property can say where in the file it is (json.loads keeps no places).

Objects come back as `JsonObject` (a dict) and arrays as `JsonArray` (a list), each with
`.at`, the byte offset of its opening bracket in the text. Strings are read by the standard
library's scanner; depth is bounded so hostile nesting cannot exhaust the stack."""
from __future__ import annotations

import json.decoder
import re

MAX_DEPTH = 256
_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_scan = json.decoder.scanstring


class JsonObject(dict):
    at = 0


class JsonArray(list):
    at = 0


class JsonSyntaxError(Exception):
    def __init__(self, message: str, at: int):
        super().__init__(message)
        self.at = at        # a character index, turned into a byte offset by the caller


def parse(text: str, base: int = 0) -> object:
    """The value the text holds; `.at` offsets are byte offsets plus `base`. Raises
    JsonSyntaxError with a character index."""
    ascii_only = text.isascii()

    def byte_at(i: int) -> int:
        return base + (i if ascii_only else len(text[:i].encode("utf-8", "surrogatepass")))

    value, end = _value(text, _WS.match(text, 0).end(), 0, byte_at)
    end = _WS.match(text, end).end()
    if end != len(text):
        raise JsonSyntaxError("text after the JSON value", end)
    return value


def _value(s: str, i: int, depth: int, byte_at):
    if i >= len(s):
        raise JsonSyntaxError("the text ends where a value should be", i)
    c = s[i]
    if c == "{":
        return _object(s, i, depth + 1, byte_at)
    if c == "[":
        return _array(s, i, depth + 1, byte_at)
    if c == '"':
        try:
            return _scan(s, i + 1, True)
        except ValueError as e:
            raise JsonSyntaxError(f"a string refused: {e.msg}", e.pos) from None
    if s.startswith("true", i):
        return True, i + 4
    if s.startswith("false", i):
        return False, i + 5
    if s.startswith("null", i):
        return None, i + 4
    m = _NUMBER.match(s, i)
    if m and m.end() > i:
        text = m.group(0)
        if m.group(1) or m.group(2):
            return float(text), m.end()
        if len(text) > 40:          # a whole number past any count; read as a float
            return float(text), m.end()
        return int(text), m.end()
    raise JsonSyntaxError(f"{c!r} does not begin a value", i)


def _object(s: str, i: int, depth: int, byte_at):
    if depth > MAX_DEPTH:
        raise JsonSyntaxError(f"nesting deeper than {MAX_DEPTH}", i)
    out = JsonObject()
    out.at = byte_at(i)
    i = _WS.match(s, i + 1).end()
    if i < len(s) and s[i] == "}":
        return out, i + 1
    while True:
        if i >= len(s) or s[i] != '"':
            raise JsonSyntaxError("a key should be a string here", i)
        try:
            key, i = _scan(s, i + 1, True)
        except ValueError as e:
            raise JsonSyntaxError(f"a key refused: {e.msg}", e.pos) from None
        i = _WS.match(s, i).end()
        if i >= len(s) or s[i] != ":":
            raise JsonSyntaxError("':' should follow a key", i)
        value, i = _value(s, _WS.match(s, i + 1).end(), depth, byte_at)
        out[key] = value
        i = _WS.match(s, i).end()
        if i < len(s) and s[i] == ",":
            i = _WS.match(s, i + 1).end()
            continue
        if i < len(s) and s[i] == "}":
            return out, i + 1
        raise JsonSyntaxError("',' or '}' should be here", i)


def _array(s: str, i: int, depth: int, byte_at):
    if depth > MAX_DEPTH:
        raise JsonSyntaxError(f"nesting deeper than {MAX_DEPTH}", i)
    out = JsonArray()
    out.at = byte_at(i)
    i = _WS.match(s, i + 1).end()
    if i < len(s) and s[i] == "]":
        return out, i + 1
    while True:
        value, i = _value(s, i, depth, byte_at)
        out.append(value)
        i = _WS.match(s, i).end()
        if i < len(s) and s[i] == ",":
            i = _WS.match(s, i + 1).end()
            continue
        if i < len(s) and s[i] == "]":
            return out, i + 1
        raise JsonSyntaxError("',' or ']' should be here", i)
