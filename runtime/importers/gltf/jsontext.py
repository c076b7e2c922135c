"""JSON text read with the byte offset of every object and array kept, so a refusal of a
glTF property can say where in the file it is (json.loads keeps no places).

The standard library's decoder reads the values; the places come from the bytes: with
escaped backslashes and quotes blanked out (same length), every remaining quote delimits a
string, so the brackets outside strings, in order, are the containers' starts in the order
a pre-order walk of the decoded value meets them. Objects come back as `JsonObject` (a
dict) and arrays as `JsonArray` (a list), each with `.at`. Nesting past MAX_DEPTH, and the
non-JSON NaN and Infinity, are refused."""
from __future__ import annotations

import json

import numpy as np

MAX_DEPTH = 256


class JsonObject(dict):
    at = 0


class JsonArray(list):
    at = 0


class JsonSyntaxError(Exception):
    def __init__(self, message: str, at: int):
        super().__init__(message)
        self.at = at        # a byte offset in the text


def _constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _pairs(pairs):
    out = JsonObject(pairs)
    out.pairs = pairs            # every value in order, repeated keys' too, for the walk
    return out


def parse(raw: bytes, base: int = 0) -> object:
    """The value UTF-8 JSON bytes hold; `.at` offsets are byte offsets plus `base`. Raises
    JsonSyntaxError with a byte offset (UnicodeDecodeError for text not UTF-8)."""
    text = raw.decode("utf-8")
    plain = raw.replace(b"\\\\", b"__").replace(b'\\"', b"__")
    b = np.frombuffer(plain, np.uint8)
    outside = (np.cumsum(b == ord('"')) & 1) == 0
    opens = ((b == ord("{")) | (b == ord("["))) & outside
    closes = ((b == ord("}")) | (b == ord("]"))) & outside
    depth = np.cumsum(opens.astype(np.int64) - closes)
    deep = np.flatnonzero(depth > MAX_DEPTH)
    if deep.size:
        raise JsonSyntaxError(f"nesting deeper than {MAX_DEPTH}", base + int(deep[0]))
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)
    except json.JSONDecodeError as e:
        raise JsonSyntaxError(e.msg, base + len(text[:e.pos].encode("utf-8",
                                                                   "surrogatepass"))) from None
    except (ValueError, RecursionError) as e:
        raise JsonSyntaxError(str(e), base) from None
    return _placed(value, _spans(b, opens, closes, depth), base)


def _spans(b, opens, closes, depth) -> tuple[list[int], list[int]]:
    """Each container's start and end, in order of their starts: at each depth the opens
    and closes alternate, so sorting both by depth pairs them up."""
    open_at = np.flatnonzero(opens)
    close_at = np.flatnonzero(closes)
    if open_at.size != close_at.size:       # unbalanced: the decoder has already refused it
        return open_at.tolist(), open_at.tolist()
    o = open_at[np.lexsort((open_at, depth[open_at]))]
    c = close_at[np.lexsort((close_at, depth[close_at] + 1))]
    ends = np.empty_like(open_at)
    ends[np.searchsorted(open_at, o)] = c
    return open_at.tolist(), ends.tolist()


def _placed(value, spans, base: int):
    """The value with arrays made JsonArrays and every container given its start (an
    array whose span holds no bracket has no containers, and is not walked)."""
    starts, ends = spans
    if not isinstance(value, (dict, list)):
        return value
    top = value if isinstance(value, dict) else JsonArray(value)
    k = 0
    stack = [top]
    while stack:
        node = stack.pop()
        node.at = starts[k] + base
        k += 1
        children = []
        if isinstance(node, JsonObject):
            pairs = node.pairs
            del node.pairs
            last = {key: i for i, (key, _) in enumerate(pairs)}
            for i, (key, v) in enumerate(pairs):
                kind = type(v)
                if kind is list:
                    v = JsonArray(v)
                    if last[key] == i:          # the value a repeated key keeps
                        node[key] = v
                    children.append(v)
                elif kind is JsonObject:
                    children.append(v)
        elif k < len(starts) and starts[k] < ends[k - 1]:
            for i, v in enumerate(node):
                kind = type(v)
                if kind is list:
                    v = node[i] = JsonArray(v)
                    children.append(v)
                elif kind is JsonObject:
                    children.append(v)
        stack.extend(reversed(children))
    return top

