"""The mirror map's JSON text form, both ways (maniWriteMirrorMapJson, maniBuildMirrorMapJson),
with the graph form's conventions (core/json_text.py): members an object does not take are
refused, numbers are the shortest text that reads back to the same binary32, and refusals
name the byte offset where the offending member's key (or value) starts.

    {"format": "maul-anim mirror map", "version": 1, "axis": "x" | "y" | "z",
     "reference": [{"bone": name, "translation": [3], "rotation": [4], "scale": [3]}],
     "pairs": [[bone name, bone name]],
     "rules": [{"find": text, "place": "prefix" | "suffix" | "anywhere", "replace": text}],
     "namePairs": [[name, name]], "names": [name]}

The reference lists the bones whose local is not the rest bit for bit; reference, pairs,
rules, namePairs and names may be left out (empty), as may an entry's translation, rotation
or scale (its bone's rest). Refusals beyond the build's (whose items are places in the
text's lists): Json (item the byte offset) for text that is not JSON; Form (other a
GraphForm, item the offset) for a member not taken, missing, of the wrong type, an unknown
option or format, a bone name no bone has, or a reference bone listed twice; VersionError
with Form for a version other than 1.
"""
from __future__ import annotations

import numpy as np

from ..core.builder import Builder, enter_build
from ..core.errors import InvalidError
from ..core.json_text import GraphForm, JsonObject, Value, dump, form_error, parse, text_bytes
from ..core.limits import NO_BONE
from ..pose.skeleton import Skeleton
from .mirror_build import MirrorAxis, MirrorMapSource, MirrorRule, RulePlace, check, layout

FORMAT = "maul-anim mirror map"
FORM_VERSION = 1
AXES = {MirrorAxis.x: "x", MirrorAxis.y: "y", MirrorAxis.z: "z"}
PLACES = {RulePlace.prefix: "prefix", RulePlace.suffix: "suffix", RulePlace.anywhere: "anywhere"}
TOP = {"format", "version", "axis", "reference", "pairs", "rules", "namePairs", "names"}


# ---- writing ----------------------------------------------------------------------------------
def _utf8(raw: bytes) -> str:
    return raw.decode("utf-8")


def write_text(builder: Builder, source: MirrorMapSource) -> str:
    ch = check(builder, source)
    layout(ch)                                  # refused as the build refuses
    sk = ch.skeleton
    given = ch.given
    off_rest = (given.view(np.uint32) != sk.rests.view(np.uint32)).any(axis=1)
    reference = [{"bone": sk.bone_name(b), "translation": given[b, 0:3].tolist(),
                  "rotation": given[b, 3:7].tolist(), "scale": given[b, 7:10].tolist()}
                 for b in np.flatnonzero(off_rest).tolist()]
    return dump({
        "format": FORMAT, "version": FORM_VERSION, "axis": AXES[MirrorAxis(ch.axis)],
        "reference": reference,
        "pairs": [[sk.bone_name(a), sk.bone_name(b)] for a, b in ch.pairs],
        "rules": [{"find": _utf8(r.find), "place": PLACES[r.place], "replace": _utf8(r.replace)}
                  for r in ch.rules],
        "namePairs": [[_utf8(a), _utf8(b)] for a, b in ch.name_pairs],
        "names": [_utf8(n) for n in ch.names],
    }) + "\n"


def write_mirror_map_json(builder: Builder, source: MirrorMapSource) -> str:
    """maniWriteMirrorMapJson: the text kept in the builder (kind "text"), for CopyBuilt."""
    enter_build(builder, source, MirrorMapSource, skeleton=Skeleton)
    text = write_text(builder, source)
    builder.keep(text.encode("utf-8"), "text")
    return text


# ---- reading ----------------------------------------------------------------------------------
def _list(o: JsonObject, key: str) -> list:
    v = o.get(key, ("array",), None)
    return [] if v is None else v.value


def _string(v: Value, what: str) -> str:
    if v.kind != "string":
        raise form_error(GraphForm.type, v.offset, f"{what} is not a string")
    return v.value


def _pair(v: Value, what: str) -> tuple[Value, Value]:
    if v.kind != "array" or len(v.value) != 2:
        raise form_error(GraphForm.type, v.offset, f"{what} is not a pair")
    return v.value[0], v.value[1]


def _bone(skeleton: Skeleton, v: Value, what: str) -> int:
    b = skeleton.find_bone(_string(v, what))
    if b == NO_BONE:
        raise form_error(GraphForm.name, v.offset, f"{what} names no bone")
    return b


def _numbers(o: JsonObject, key: str, rest: np.ndarray) -> np.ndarray:
    v = o.get(key, ("array",), None)
    if v is None:
        return rest
    if len(v.value) != rest.size or any(x.kind != "number" for x in v.value):
        raise form_error(GraphForm.type, v.offset, f"{o.what}'s {key!r} is not {rest.size} numbers")
    return np.array([x.value for x in v.value], dtype=np.float64)


def from_json(v: Value, skeleton: Skeleton) -> MirrorMapSource:
    top = JsonObject(v, TOP, "the mirror map")
    top.check_form(FORM_VERSION, FORMAT)
    axis = top.option("axis", AXES, None)
    if axis is None:
        raise form_error(GraphForm.missing, top.offset, "the mirror map lacks 'axis'")
    reference = np.array(skeleton.rests, dtype=np.float64)
    listed = set()
    for entry in _list(top, "reference"):
        e = JsonObject(entry, {"bone", "translation", "rotation", "scale"}, "a reference entry")
        name = e.get("bone", ("string",))
        b = _bone(skeleton, name, "a reference entry's bone")
        if b in listed:
            raise form_error(GraphForm.duplicate, name.offset, "a bone the reference lists twice")
        listed.add(b)
        reference[b, 0:3] = _numbers(e, "translation", reference[b, 0:3])
        reference[b, 3:7] = _numbers(e, "rotation", reference[b, 3:7])
        reference[b, 7:10] = _numbers(e, "scale", reference[b, 7:10])
    pairs = []
    for p in _list(top, "pairs"):
        a, b = _pair(p, "a bone pair")
        pairs.append((_bone(skeleton, a, "a pair's bone"), _bone(skeleton, b, "a pair's bone")))
    rules = []
    for r in _list(top, "rules"):
        o = JsonObject(r, {"find", "place", "replace"}, "a rule")
        rules.append(MirrorRule(o.text("find"),
                                o.text("replace"),
                                o.option("place", PLACES, RulePlace.anywhere)))
    name_pairs = []
    for p in _list(top, "namePairs"):
        a, b = _pair(p, "a name pair")
        name_pairs.append((_string(a, "a name"), _string(b, "a name")))
    names = [_string(n, "a name") for n in _list(top, "names")]
    return MirrorMapSource(skeleton, axis, reference, pairs, rules, name_pairs, names)


def read_text(text, skeleton: Skeleton) -> MirrorMapSource:
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogatepass")
    return from_json(parse(text), skeleton)


def build_mirror_map_json(builder: Builder, text, skeleton: Skeleton) -> bytes:
    """maniBuildMirrorMapJson: the text read, then built as maniBuildMirrorMap builds it."""
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    builder.enter()
    if not isinstance(skeleton, Skeleton) or not skeleton.is_open:
        raise builder.refuse("no opened skeleton")
    raw = text_bytes(builder, text)
    data = layout(check(builder, read_text(raw, skeleton)))
    builder.keep(data, "mirror map")
    return data
