"""The graph's JSON text form: writing and reading are one fixed point, every default can be
left out, and what the form does not take is refused at its byte."""
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.core.errors import BuildReason as R
from runtime.graph.build.build import build
from runtime.graph.format import f32
from runtime.graph.json.read import GraphForm, GraphNamedAssets, read_text
from runtime.graph.json.write import to_json, write_text
from runtime.core.json_text import dump, number, parse
from runtime.graph.source import *  # noqa: F403
from runtime.graph.source import ParameterType as T

from test_graph_fixtures import builder, humanoid, locomotion, params, slots, standard_clips


def assets():
    sk, loco_clips, _, _ = locomotion()
    named = list(standard_clips().items()) + list(loco_clips.items())
    return GraphNamedAssets(sk, named)


def everything() -> GraphSource:
    """A source with every node kind, option and list, and a nested subgraph."""
    sk = humanoid()
    inner = GraphSource(sk, [ClipNode(0, sync_group=0), TimeScaleNode(0, 0.5, parameter=0)], 1,
                        params(("rate", T.float_)), slots("c"), [SyncGroupSource("feet")])
    ps = params(("speed", T.float_, 0.25, -1.0, 3.5), ("go", T.trigger, True), ("n", T.int_, -2, -7, 9),
                ("on", T.bool_, True), ("v2", T.vector2, (1.5, -2)), ("v3", T.vector3),
                ("v4", T.vector4, (0, 0, 0, 1e-7)), ("q", T.quaternion, (0, 0.5, 0, 1)), ("pose", T.pose),
                ("angle", T.float_, 1e21))
    points = [SpacePoint(0, 0.0), SpacePoint(1, 1.0, 0.0), SpacePoint(3, 0.0, 1.0), SpacePoint(0, 1.0, 1.0)]
    nodes = [
        ClipNode(0, speed=1.25, loop=ClipLoop.clamp, sync_group=0, leader=True),          # 0
        ClipNode(1, loop=ClipLoop.repeat, sync_group=0),                                   # 1
        BlendNode([BlendInput(0, 0.75, 0), BlendInput(1)], direct=True),                  # 2
        Blend1DNode(0, [SpacePoint(0, 0.0), SpacePoint(1, 3.0)], period=6.25),             # 3
        Blend2DBandedNode(0, 9, [SpacePoint(0, 0, 0), SpacePoint(1, 1, 0), SpacePoint(2, 0, 2)], polar=True),
        Blend2DTriangulatedNode(0, 9, points),                                             # 5
        Blend2DTriangulatedNode(0, 9, points, triangles=[[0, 1, 2], [1, 3, 2]]),           # 6
        MaskNode(3, 4, [MaskChain(sk.find_bone("spine0"), 1.0, True), MaskChain(sk.find_bone("head"), 0.5)], 0.125),
        ClipNode(2),                                                                       # 8 e (additive)
        AdditiveNode(7, 8, 0.5, 0),                                                        # 9
        SelectNode(2, [9, 5, 6]),                                                          # 10
        SelectNode(3, [10, 5]),                                                            # 11
        SeekNode(11, 1, 0.3),                                                              # 12
        StateMachineNode([12, 13, 5], [
            Transition(0, 1, 3, Interruption.source_then_destination, EntryMode.continue_, Curve.ease_in,
                       0.25, 1.5, [Condition(ConditionKind.trigger, 1),
                                   Condition(ConditionKind.parameter, 2, CompareOp.le, -3),
                                   Condition(ConditionKind.parameter, 3, CompareOp.ne, 0),
                                   Condition(ConditionKind.parameter, 0, CompareOp.gt, 0.1)]),
            Transition(None, 2, conditions=[Condition(ConditionKind.event, event="stepA"),
                                            Condition(ConditionKind.state_time, value=0.5),
                                            Condition(ConditionKind.finished)])],
            entry=1, chain_limit=3, finals=[2]),                                           # 13 (reads 13? no)
        SubgraphNode(inner, {"rate": "speed"}),                                            # 14
        OneShotNode(13, 14, 1, fade_out_trigger=1, abort=1, curve=Curve.smooth, fade_in=0.1,
                    fade_out=0.2, mask=MaskSource([MaskChain(sk.find_bone("arm_l"), 1.0, True)], 0.0)),
        InertializeNode(15, 1, InertializeMethod.dead_blending, 0.3, 0.5, 0.05, 2.0),     # 16
        PoseParameterNode(8),                                                              # 17
        BlendNode([BlendInput(16), BlendInput(17, 0.25)]),                                 # 18
    ]
    nodes[13].states = [12, 6, 5]
    return GraphSource(sk, nodes, 18, ps, slots("a", "b", "e", "d"), [SyncGroupSource("feet")])


def test_write_build_write_is_a_fixed_point():
    src = everything()
    text = write_text(src)
    again = read_text(text, assets())
    assert write_text(again) == text
    assert build(again) == build(src)
    sk, _, loco, _ = locomotion()
    text = write_text(loco)
    assert write_text(read_text(text, assets())) == text
    assert build(read_text(text, assets())) == build(loco)


def test_text_layout():
    text = write_text(everything())
    assert text.endswith("}\n") and "\t" not in text
    assert json.loads(text)["version"] == 1
    lines = text.splitlines()
    assert lines[1].startswith('  "version": 1')
    assert all((len(line) - len(line.lstrip(" "))) % 2 == 0 for line in lines)
    assert '"states": [\n' in text                    # a line per list item
    b = builder()
    capi.maniWriteGraphJson(b, everything())
    assert capi.maniBuilder_CopyBuilt(b).decode("utf-8") == text


DEFAULTS = {
    "clip": {"syncGroup": None, "speed": 1, "loop": "clip", "leader": False},
    "blend": {"direct": False},
    "mask": {"chains": [], "defaultWeight": 0},
    "seek": {"time": 0},
    "blend1d": {"period": 0},
    "blend2dBanded": {"polar": False},
    "stateMachine": {"entry": 0, "chainLimit": 0, "transitions": [], "finals": []},
    "oneShot": {"fadeOutTrigger": None, "abort": None, "curve": "linear", "fadeIn": 0, "fadeOut": 0},
    "inertialize": {"trigger": None, "method": "inertialization", "duration": 0, "halfLifeScale": 0.3,
                    "halfLifeMin": 0.1, "halfLifeMax": 1.0},
    "additive": {"weight": 1, "parameter": None},
    "timeScale": {"scale": 1, "parameter": None},
}


def _with_defaults(doc: dict) -> dict:
    """Every member the form lets one leave out, put back at its off value."""
    for key, value in (("parameters", []), ("clips", []), ("syncGroups", [])):
        doc.setdefault(key, value)
    for p in doc["parameters"]:
        if p["type"] in ("int", "float") and "min" not in p:
            pass                                            # bounds: both or neither
        if "default" not in p and p["type"] != "pose":
            p["default"] = {"bool": False, "trigger": False, "int": 0, "float": 0, "vector2": [0, 0],
                            "vector3": [0, 0, 0], "vector4": [0, 0, 0, 0], "quaternion": [0, 0, 0, 1]}[p["type"]]
    for c in doc["clips"]:
        c.setdefault("allEvents", False)
    for n in doc["nodes"]:
        for key, value in DEFAULTS.get(n["kind"], {}).items():
            n.setdefault(key, value)
        for p in n.get("points", []):
            p.setdefault("y", 0)
        for c in n.get("chains", []):
            c.setdefault("subtree", False)
        for i in n.get("inputs", []):
            if isinstance(i, dict):
                i.setdefault("weight", 1)
                i.setdefault("parameter", None)
        for t in n.get("transitions", []):
            for key, value in (("priority", 0), ("interruption", "none"), ("entry", "restart"),
                               ("fade", "linear"), ("duration", 0), ("cooldown", 0), ("conditions", [])):
                t.setdefault(key, value)
        if n["kind"] == "oneShot" and "mask" in n:
            n["mask"].setdefault("chains", [])
            n["mask"].setdefault("defaultWeight", 0)
        if n["kind"] == "subgraph":
            n.setdefault("parameters", {})
            _with_defaults(n["graph"])
    return doc


def test_each_default_can_be_left_out():
    src = everything()
    short = write_text(src)
    long = dump(_with_defaults(to_json(src))) + "\n"
    assert len(long) > len(short)
    assert build(read_text(long, assets())) == build(read_text(short, assets()))
    assert write_text(read_text(long, assets())) == short


def _refused(text, error=rt.InvalidError):
    b = builder()
    with pytest.raises(error) as info:
        capi.maniBuildGraphJson(b, text, assets())
    return info.value


def test_unknown_members_are_refused_at_their_key():
    text = write_text(everything())
    for anchor in ('"kind": "seek",', '"from": 0,', '"name": "speed",', '"bone": "head",'):
        at = text.index(anchor)
        bad = text[:at] + '"bogus": 1, ' + text[at:]
        exc = _refused(bad)
        assert exc.reason == R.Form and exc.other == GraphForm.member
        assert exc.item == len(bad[:at].encode("utf-8"))


def test_form_refusals():
    base = json.loads(write_text(everything()))

    def with_change(fn):
        doc = json.loads(json.dumps(base))
        fn(doc)
        return json.dumps(doc, indent=2)
    cases = [
        (lambda d: d["nodes"][0].__setitem__("speed", "fast"), GraphForm.type, '"speed": "fast"'),
        (lambda d: d["nodes"][0].__delitem__("clip"), GraphForm.missing, None),
        (lambda d: d["nodes"][0].__setitem__("clip", "nowhere"), GraphForm.name, '"clip": "nowhere"'),
        (lambda d: d["nodes"][0].__setitem__("loop", "sometimes"), GraphForm.value, '"loop": "sometimes"'),
        (lambda d: d["nodes"][2].__setitem__("kind", "blender"), GraphForm.value, '"kind": "blender"'),
        (lambda d: d.__setitem__("output", 1.5), GraphForm.value, None),
    ]
    for change, form, anchor in cases:
        text = with_change(change)
        exc = _refused(text)
        assert exc.reason == R.Form and exc.other == form, (form, str(exc))
        if anchor is not None:
            assert exc.item == text.index(anchor)
    dup = write_text(everything()).replace('"output": 18', '"output": 18, "output": 18')
    exc = _refused(dup)
    assert exc.other == GraphForm.duplicate and exc.item == dup.rindex('"output"')


def test_json_syntax_and_versions():
    text = write_text(everything())
    exc = _refused(text[:200])
    assert exc.reason == R.Json and exc.item == 200
    exc = _refused(text.replace('"version": 1', '"version": 2'), rt.VersionError)
    assert exc.reason == R.Form and exc.other == GraphForm.version
    later = text.replace('"kind": "seek"', '"kind": "lookAt"')
    exc = _refused(later, rt.VersionError)
    assert exc.item == later.index('"kind": "lookAt"')
    exc = _refused("[" * 100 + "]" * 100)
    assert exc.reason == R.Json
    exc = _refused(b"\xff{}")
    assert exc.reason == R.Json and exc.item == 0


def test_refusals_of_the_build_name_places_in_the_text():
    doc = json.loads(write_text(everything()))
    doc["nodes"][2]["inputs"][0]["weight"] = 2
    exc = _refused(json.dumps(doc))
    assert exc.reason == R.Weight and exc.item == 2 and exc.other == 0
    b = builder()
    with pytest.raises(rt.InvalidError) as info:
        src = everything()
        src.nodes[2].inputs[0].weight = 2.0
        capi.maniWriteGraphJson(b, src)
    assert info.value.reason == R.Weight
    with pytest.raises(rt.InvalidError):
        capi.maniBuildGraphJson(b, None, assets())
    assert capi.maniBuilder_GetMisuse(b) == 1


def test_named_assets_first_of_equal_names():
    sk = humanoid()
    clips = standard_clips()
    text = write_text(GraphSource(sk, [ClipNode(0)], 0, clips=slots("a")))
    b = builder()
    capi.maniBuildGraphJson(b, text, GraphNamedAssets(sk, [("a", clips["b"]), ("a", clips["c"])]))
    g = capi.maniOpenGraph(capi.maniBuilder_CopyBuilt(b))
    assert capi.maniGraph_GetClipIdentity(g, 0) == clips["b"].identity
    capi.maniBuildGraphJson(b, text.encode(), GraphNamedAssets(sk, {"a": clips["c"]}))
    assert capi.maniGraph_GetClipIdentity(capi.maniOpenGraph(capi.maniBuilder_CopyBuilt(b)), 0) == clips["c"].identity


@pytest.mark.parametrize("value,text", [
    (0.0, "0"), (-0.0, "-0"), (1.0, "1"), (-2.5, "-2.5"), (0.1, "0.1"), (100.0, "100"),
    (1e21, "1e+21"), (1e20, "100000000000000000000"), (1.5e-6, "0.0000015"), (1e-7, "1e-7"),
    (123456.789, "123456.79"), (3.4028234663852886e38, "3.4028235e+38"), (2.0 ** -149, "1e-45"),
    (2.0 ** 87, "1.5474251e+26"), (2.0 ** 90, "1.2379401e+27"), (2.0 ** -96, "1.2621775e-29"),
])
def test_numbers_in_ecmascript_layout(value, text):
    assert number(value) == text


@settings(max_examples=300, deadline=None)
@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_numbers_are_shortest_and_read_back(x):
    text = number(x)
    assert f32(float(text)) == x
    digits = len(text.lstrip("-").split("e")[0].replace(".", "").strip("0")) if x else 1
    for p in range(1, digits):
        shorter = float(f"{x:.{p - 1}e}")
        assert f32(shorter) != x


def test_parse_keeps_offsets():
    v = parse(b' {"a": [1, {"b": "\\u00e9x"}], "c": null}')
    assert v.offset == 1
    (key, at, arr), (key2, at2, null) = v.value
    assert (key, at, arr.offset, key2, at2, null.offset) == ("a", 2, 7, "c", 30, 35)
    assert arr.value[1].value[0][2].value == "éx"


def _reference(x: float) -> Fraction:
    """The shortest decimal reading back to binary32 x > 0, closest to x (ties: the even
    digits), by brute force over each digit count inside the interval numpy's neighbours
    bound (ends included when x's last bit is even)."""
    f = np.float32(x)
    down = Fraction(float(np.nextafter(f, np.float32(0))))
    up = np.nextafter(f, np.float32(np.inf))
    X = Fraction(x)
    low = (X + down) / 2
    high = X + (X - down) / 2 if np.isinf(up) else (X + Fraction(float(up))) / 2
    ends = int(f.view(np.uint32)) % 2 == 0
    top = math.floor(math.log10(x))
    for p in range(1, 10):
        found = []
        for q in range(top - p, top - p + 3):
            scale = Fraction(10) ** q
            for s in range(math.ceil(low / scale), math.floor(high / scale) + 1):
                d = s * scale
                if 10 ** (p - 1) <= s < 10 ** p and (low < d < high or (ends and d in (low, high))):
                    found.append((abs(d - X), s % 2, d))
        if found:
            return min(found)[2]
    raise AssertionError(x)


def _boundaries():
    powers = [2.0 ** e for e in range(-149, 128)]
    near = [float(np.nextafter(np.float32(v), np.float32(t))) for v in powers for t in (0, np.inf)]
    rng = np.random.default_rng(13)
    bits = rng.integers(1, 0x7F800000, 3000, dtype=np.uint32)
    return [v for v in powers + near + bits.view(np.float32).astype(float).tolist() if v > 0]


def test_numbers_are_the_shortest_closest_decimal_against_a_brute_force_reference():
    """At powers of two the gap below is half the gap above: 2**87, 2**90 and 2**-96 were
    written with a digit too many."""
    wrong = []
    for x in _boundaries():
        for v in (x, -x):
            text = number(v)
            if Fraction(text) != (1 if v > 0 else -1) * _reference(x) or np.float32(text) != np.float32(v):
                wrong.append((v, text))
    assert not wrong, wrong[:5]


def test_negative_zero_reads_back_as_negative_zero():
    sk = humanoid()
    src = GraphSource(sk, [ClipNode(0), SeekNode(0, 0, -0.0)], 1, params(("go", T.trigger), ("x", T.float_, -0.0)),
                      slots("a"))
    text = write_text(src)
    assert '"time": -0' in text and '"default": -0' in text
    assert build(read_text(text, assets())) == build(src)


def _nodes_of(doc, kind):
    return [n for n in doc["nodes"] if n["kind"] == kind]


def test_null_is_none_wherever_the_form_has_a_none():
    """One rule: null reads as none for every member the spec calls none (a one-shot's mask
    and a triangulated space's triangles included), and for no other member."""
    src = everything()
    left_out = to_json(src)
    for kind, keys in (("oneShot", ("mask", "fadeOutTrigger", "abort")), ("inertialize", ("trigger",)),
                       ("blend2dTriangulated", ("triangles",))):
        for n in _nodes_of(left_out, kind):
            for key in keys:
                n.pop(key, None)
    nulls = json.loads(json.dumps(left_out))
    for n in _nodes_of(nulls, "oneShot"):
        n.update(mask=None, fadeOutTrigger=None, abort=None)
    for n in _nodes_of(nulls, "blend2dTriangulated"):
        n["triangles"] = None
    for n in _nodes_of(nulls, "inertialize"):
        n["trigger"] = None
    for n in _nodes_of(nulls, "clip"):
        n.setdefault("syncGroup", None)
    for p in nulls["parameters"]:
        if p["type"] == "pose":
            p["default"] = None
    assert build(read_text(dump(nulls), assets())) == build(read_text(dump(left_out), assets()))


@pytest.mark.parametrize("where, key", [
    ("clips", "allEvents"), ("oneShot", "curve"), ("clip", "speed"), ("oneShot", "fadeIn"),
    ("inertialize", "method"), ("parameters", "min"), ("stateMachine", "entry"),
])
def test_null_is_refused_where_the_off_value_is_not_none(where, key):
    doc = to_json(everything())
    items = doc[where] if where in doc else _nodes_of(doc, where)
    item = next(i for i in items if where != "parameters" or "min" in i)
    item[key] = None
    if key == "min":
        item["max"] = None
    text = dump(doc)
    err = _refused(text)
    assert err.reason == R.Form and err.other == GraphForm.type
    assert text.encode()[err.item:].startswith(f'"{key}"'.encode()) or text.encode()[err.item:].startswith(b"null")


def test_a_pose_parameters_default_is_only_none():
    doc = to_json(everything())
    next(p for p in doc["parameters"] if p["type"] == "pose")["default"] = [0, 0, 0, 1]
    err = _refused(dump(doc))
    assert err.reason == R.Form and err.other == GraphForm.type
