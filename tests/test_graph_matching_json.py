"""The motion matching node's JSON form: written and read back as one fixed point, every off
value the spec lists left out (and put back, the same graph), tags as a whole number or
{"parameter": name}, and what the form does not take refused at its byte."""
import json

import pytest

import runtime as rt
from runtime.core.errors import BuildReason as R
from runtime.core.json_text import dump
from runtime.graph.build.build import build
from runtime.graph.json.read import GraphForm, GraphNamedAssets, read_text
from runtime.graph.json.write import to_json, write_text
from runtime.graph.source import ParameterRef

import graph_matching_fixtures as F
from test_graph_fixtures import humanoid, standard_clips

SPEC_DEFAULTS = {"trigger": None, "query": [], "period": 0.1, "jumpThreshold": 0, "endExclusion": 0,
                 "historyTime": 0, "continuingBias": 0, "transitionCost": 0, "historyCount": 0,
                 "requiredTags": 0, "excludedTags": 0, "duration": 0}


def named():
    return GraphNamedAssets(humanoid(), list(standard_clips().items()), databases=[("db", F.database())],
                            mirror_map=F.mirror_map())


def full():
    return F.source(jump_threshold=0.5, end_exclusion=0.25, history_time=0.5, continuing_bias=-0.125,
                    transition_cost=0.0625, history_count=8, required_tags=ParameterRef(4),
                    excluded_tags=6, duration=0.2, period=0.2)


@pytest.mark.parametrize("src", [full(), F.source(), F.source(query=[], trigger=None)])
def test_write_read_write_is_a_fixed_point(src):
    text = write_text(src)
    again = read_text(text, named())
    assert write_text(again) == text
    assert build(again) == build(src)


def test_the_members_as_written():
    node = json.loads(write_text(full()))["nodes"][0]
    assert node == {"kind": "motionMatching", "database": "db",
                    "query": [{"channel": 2, "parameter": "near"}, {"channel": 2, "time": 1, "parameter": "far"},
                              {"channel": 3, "parameter": "facing"}],
                    "trigger": "search", "period": 0.2, "jumpThreshold": 0.5, "endExclusion": 0.25,
                    "historyTime": 0.5, "continuingBias": -0.125, "transitionCost": 0.0625,
                    "historyCount": 8, "requiredTags": {"parameter": "tags"}, "excludedTags": 6,
                    "duration": 0.2}
    plain = json.loads(write_text(F.source(query=[], trigger=None)))["nodes"][0]
    assert plain == {"kind": "motionMatching", "database": "db"}


def test_every_off_value_can_be_given():
    for src in (F.source(), F.source(query=[], trigger=None)):
        short = write_text(src)
        doc = to_json(src)
        for key, value in SPEC_DEFAULTS.items():
            doc["nodes"][0].setdefault(key, value)
        for q in doc["nodes"][0]["query"]:
            q.setdefault("time", 0)
        long = dump(doc) + "\n"
        assert len(long) > len(short)
        assert build(read_text(long, named())) == build(src)


def _refused(text, error=rt.InvalidError):
    with pytest.raises(error) as info:
        read_text(text, named())
    return info.value


def test_what_the_form_does_not_take_is_refused_at_its_byte():
    text = write_text(full())
    bad = text.replace('"historyCount"', '"history"')
    exc = _refused(bad)
    assert exc.reason == R.Form and exc.other == GraphForm.member and exc.item == bad.index('"history"')
    bad = text.replace('"database": "db"', '"database": "nope"')
    exc = _refused(bad)
    assert exc.other == GraphForm.name
    bad = text.replace('{\n        "parameter": "tags"\n      }', '"tags"')
    assert bad != text
    exc = _refused(bad)
    assert exc.other == GraphForm.type and exc.item == bad.index('"requiredTags"')
    bad = text.replace('"excludedTags": 6', '"excludedTags": 1.5')
    assert _refused(bad).other == GraphForm.value
    bad = text.replace('"excludedTags": 6', '"excludedTags": {"param": "tags"}')
    assert _refused(bad).other == GraphForm.member
    bad = text.replace('"channel": 3', '"channel": 3, "bone": 3')
    assert _refused(bad).other == GraphForm.member
    bad = text.replace('"channel": 3', '"channel": -3')
    assert _refused(bad).other == GraphForm.value


def test_the_build_refuses_what_the_text_names_by_its_place():
    doc = json.loads(write_text(full()))
    doc["nodes"][0]["historyCount"] = 65
    with pytest.raises(rt.LimitError) as info:
        read_text_and_build(dump(doc))
    assert info.value.reason == R.Node and info.value.item == 0 and info.value.other == 9


def read_text_and_build(text):
    return build(read_text(text, named()))
