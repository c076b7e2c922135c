"""The retargeting map's JSON text form, both ways (maniWriteRetargetMapJson,
maniBuildRetargetMapJson), with the conventions of core/json_text.py: members an object does
not take are refused, numbers are the shortest text that reads back to the same binary32,
and refusals name the byte offset where the offending member's key (or value) starts.

    {"format": "maul-anim retarget map", "version": 1,
     "sourceReference": [{"bone": name, "translation": [3], "rotation": [4], "scale": [3]}],
     "targetReference": [ ... the same, of the target ... ],
     "pairs": [{"source": bone, "target": bone, "weight": w,
                "translation": "own" | "scaled" | "absolute", "scale": bool}],
     "chains": [{"sourceStart": bone, "sourceEnd": bone, "targetStart": bone,
                 "targetEnd": bone, "mode": "none" | "interpolated" | "oneToOne" |
                 "oneToOneReversed", "translation": ..., "scale": bool, "weight": w}],
     "pelvis": null | {"source": bone, "target": bone, "up": [3], "horizontal": factor,
                       "vertical": factor, "absolute": [3], "toSource": [3], "weight": w},
     "matchNames": bool}

A reference lists the bones whose local is not the rest bit for bit. The references, pairs
and chains may be left out (empty), as may the pelvis (none), matchNames (false), a
reference entry's translation, rotation or scale (its bone's rest), a pair's or chain's
translation ("own") and scale (false), and the pelvis's absolute and toSource (zero).
Refusals beyond the build's (whose items are places in the text's lists: a reference's
item is its entry's place): Json (item the byte offset); Form (other a GraphForm, item the
offset) for a member not taken, missing, of the wrong type, an unknown option or format, a
bone name no bone has, or a bone a reference lists twice; VersionError with Form for a
version other than 1.
"""
from __future__ import annotations

import numpy as np

from ..core.builder import Builder, enter_build
from ..core.errors import BuildReason, InvalidError
from ..core.json_text import GraphForm, JsonObject, Value, dump, form_error, parse, text_bytes
from ..core.limits import NO_BONE
from ..pose.skeleton import Skeleton
from .retarget_build import (RetargetChain, RetargetChainMode, RetargetMapSource, RetargetPair,
                             RetargetPelvis, RetargetTranslation, check, layout)

FORMAT = "maul-anim retarget map"
FORM_VERSION = 1
TRANSLATIONS = {RetargetTranslation.own: "own", RetargetTranslation.scaled: "scaled",
                RetargetTranslation.absolute: "absolute"}
MODES = {RetargetChainMode.none: "none", RetargetChainMode.interpolated: "interpolated",
         RetargetChainMode.one_to_one: "oneToOne",
         RetargetChainMode.one_to_one_reversed: "oneToOneReversed"}
TOP = {"format", "version", "sourceReference", "targetReference", "pairs", "chains", "pelvis",
       "matchNames"}
PAIR = {"source", "target", "weight", "translation", "scale"}
CHAIN = {"sourceStart", "sourceEnd", "targetStart", "targetEnd", "mode", "translation", "scale",
         "weight"}
PELVIS = {"source", "target", "up", "horizontal", "vertical", "absolute", "toSource", "weight"}


# ---- writing ----------------------------------------------------------------------------------
def _reference(skeleton: Skeleton, given: np.ndarray) -> list:
    off_rest = (given.view(np.uint32) != skeleton.rests.view(np.uint32)).any(axis=1)
    return [{"bone": skeleton.bone_name(b), "translation": given[b, 0:3].tolist(),
             "rotation": given[b, 3:7].tolist(), "scale": given[b, 7:10].tolist()}
            for b in np.flatnonzero(off_rest).tolist()]


def write_text(builder: Builder, source: RetargetMapSource) -> str:
    ch = check(builder, source)
    layout(ch)                                  # refused as the build refuses
    src, tgt = source.source_skeleton, source.target_skeleton
    s_name, t_name = src.bone_name, tgt.bone_name
    pelvis = None
    if ch.pelvis is not None:
        p = source.pelvis
        pelvis = {"source": s_name(ch.pelvis[0]), "target": t_name(ch.pelvis[1]),
                  "up": [float(x) for x in p.up], "horizontal": float(p.horizontal),
                  "vertical": float(p.vertical), "absolute": [float(x) for x in p.absolute],
                  "toSource": [float(x) for x in p.to_source], "weight": float(p.weight)}
    return dump({
        "format": FORMAT, "version": FORM_VERSION,
        "sourceReference": _reference(src, ch.references[0][1]),
        "targetReference": _reference(tgt, ch.references[1][1]),
        "pairs": [{"source": s_name(int(p.source)), "target": t_name(int(p.target)),
                   "weight": float(p.weight),
                   "translation": TRANSLATIONS[RetargetTranslation(int(p.translation))],
                   "scale": bool(p.scale)} for p in source.pairs or []],
        "chains": [{"sourceStart": s_name(int(c.source_start)), "sourceEnd": s_name(int(c.source_end)),
                    "targetStart": t_name(int(c.target_start)), "targetEnd": t_name(int(c.target_end)),
                    "mode": MODES[RetargetChainMode(int(c.mode))],
                    "translation": TRANSLATIONS[RetargetTranslation(int(c.translation))],
                    "scale": bool(c.scale), "weight": float(c.weight)} for c in source.chains or []],
        "pelvis": pelvis,
        "matchNames": ch.match_names,
    }) + "\n"


def write_retarget_map_json(builder: Builder, source: RetargetMapSource) -> str:
    """maniWriteRetargetMapJson: the text kept in the builder (kind "text"), for CopyBuilt."""
    enter_build(builder, source, RetargetMapSource, source_skeleton=Skeleton,
                target_skeleton=Skeleton)
    text = write_text(builder, source)
    builder.keep(text.encode("utf-8"), "text")
    return text


# ---- reading ----------------------------------------------------------------------------------
def _list(o: JsonObject, key: str) -> list:
    return o.items(key, [])


def _bone(skeleton: Skeleton, o: JsonObject, key: str) -> int:
    v = o.get(key, ("string",))
    b = skeleton.find_bone(v.value)
    if b == NO_BONE:
        raise form_error(GraphForm.name, v.offset, f"{o.what}'s {key!r} names no bone")
    return b


def _numbers(o: JsonObject, key: str, default):
    v = o.get(key, ("array",), None)
    if v is None:
        return default
    if len(v.value) != len(default) or any(x.kind != "number" for x in v.value):
        raise form_error(GraphForm.type, v.offset, f"{o.what}'s {key!r} is not {len(default)} numbers")
    return np.array([x.value for x in v.value], dtype=np.float64)


def _reference_of(top: JsonObject, key: str, skeleton: Skeleton) -> tuple[np.ndarray, list]:
    """The reference locals and, per bone, the place of the entry listing it (-1: none)."""
    reference = np.array(skeleton.rests, dtype=np.float64)
    places = [-1] * skeleton.bone_count
    for k, entry in enumerate(_list(top, key)):
        e = JsonObject(entry, {"bone", "translation", "rotation", "scale"}, "a reference entry")
        b = _bone(skeleton, e, "bone")
        if places[b] >= 0:
            raise form_error(GraphForm.duplicate, e.at("bone"), "a bone the reference lists twice")
        places[b] = k
        for part, cols in (("translation", slice(0, 3)), ("rotation", slice(3, 7)),
                           ("scale", slice(7, 10))):
            reference[b, cols] = _numbers(e, part, reference[b, cols])
    return reference, places


def from_json(v: Value, src: Skeleton, tgt: Skeleton) -> tuple[RetargetMapSource, tuple]:
    """The source the text gives, and each side's reference entry places."""
    top = JsonObject(v, TOP, "the retarget map")
    top.check_form(FORM_VERSION, FORMAT)
    s_ref, s_places = _reference_of(top, "sourceReference", src)
    t_ref, t_places = _reference_of(top, "targetReference", tgt)
    pairs = []
    for entry in _list(top, "pairs"):
        o = JsonObject(entry, PAIR, "a pair")
        pairs.append(RetargetPair(_bone(src, o, "source"), _bone(tgt, o, "target"),
                                  o.number("weight"),
                                  o.option("translation", TRANSLATIONS, RetargetTranslation.own),
                                  o.flag("scale")))
    chains = []
    for entry in _list(top, "chains"):
        o = JsonObject(entry, CHAIN, "a chain")
        ends = [_bone(sk, o, key) for sk, key in ((src, "sourceStart"), (src, "sourceEnd"),
                                                  (tgt, "targetStart"), (tgt, "targetEnd"))]
        mode = o.option("mode", MODES, None)
        if mode is None:
            raise form_error(GraphForm.missing, o.offset, "a chain lacks 'mode'")
        chains.append(RetargetChain(*ends, mode,
                                    o.option("translation", TRANSLATIONS, RetargetTranslation.own),
                                    o.flag("scale"), o.number("weight")))
    pelvis = None
    p = top.maybe("pelvis", "object")
    if p is not None:
        o = JsonObject(p, PELVIS, "the pelvis")
        o.get("up", ("array",))                 # it must be there
        pelvis = RetargetPelvis(_bone(src, o, "source"), _bone(tgt, o, "target"),
                                _numbers(o, "up", np.zeros(3)), o.number("horizontal"), o.number("vertical"),
                                _numbers(o, "absolute", np.zeros(3)),
                                _numbers(o, "toSource", np.zeros(3)), o.number("weight"))
    source = RetargetMapSource(src, tgt, s_ref, t_ref, pairs, chains, pelvis, top.flag("matchNames"))
    return source, (s_places, t_places)


def read_text(text, src: Skeleton, tgt: Skeleton):
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogatepass")
    return from_json(parse(text), src, tgt)


def build_retarget_map_json(builder: Builder, text, source: Skeleton, target: Skeleton) -> bytes:
    """maniBuildRetargetMapJson: the text read, then built as maniBuildRetargetMap builds it."""
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    builder.enter()
    for sk in (source, target):
        if not isinstance(sk, Skeleton) or not sk.is_open:
            raise builder.refuse("no opened skeleton")
    raw = text_bytes(builder, text)
    read, places = read_text(raw, source, target)
    try:
        data = layout(check(builder, read))
    except InvalidError as exc:
        if exc.reason == BuildReason.RetargetReference and exc.item != NO_BONE:
            exc.item = places[exc.other][exc.item]      # the entry's place in the text's list
        raise
    builder.keep(data, "retarget map")
    return data
