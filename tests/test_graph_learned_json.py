"""The learned motion matching node's JSON form: written and read back as one fixed point,
every off value left out (and put back, the same graph), a model slot by name, and what the
form does not take refused at its byte; maniWriteGraphJson and maniBuildGraphJson carry it."""
import json

import pytest

import runtime as rt
from runtime import capi
from runtime.core.errors import BuildReason as R
from runtime.core.json_text import dump
from runtime.graph.build.build import build
from runtime.graph.json.read import GraphForm, GraphNamedAssets, read_text
from runtime.graph.json.write import to_json, write_text
from runtime.graph.source import AssetSlotSource

import graph_learned_fixtures as F
from test_graph_fixtures import humanoid

OFF_VALUES = {"projector": 0, "query": [], "trigger": None, "period": 0.1, "duration": 0}


def named():
    return GraphNamedAssets(humanoid(), [], models=[("other", F.model(1)), ("brain", F.model())])


def full():
    return F.source(projector=1, period=0.25, duration=0.2)


@pytest.mark.parametrize("src", [full(), F.source(), F.source(query=[], trigger=None)])
def test_write_read_write_is_a_fixed_point(src):
    text = write_text(src)
    again = read_text(text, named())
    assert write_text(again) == text
    assert build(again) == build(src)


def test_the_members_as_written():
    node = json.loads(write_text(full()))["nodes"][0]
    assert node == {"kind": "learnedMotionMatching", "model": "brain", "projector": 1,
                    "query": [{"channel": 2, "parameter": "near"}, {"channel": 2, "time": 1, "parameter": "far"},
                              {"channel": 3, "parameter": "facing"}],
                    "trigger": "search", "period": 0.25, "duration": 0.2}
    assert json.loads(write_text(full()))["models"] == [{"name": "brain"}]
    plain = json.loads(write_text(F.source(query=[], trigger=None)))["nodes"][0]
    assert plain == {"kind": "learnedMotionMatching", "model": "brain"}


def test_every_off_value_can_be_given():
    for src in (F.source(), F.source(query=[], trigger=None)):
        short = write_text(src)
        doc = to_json(src)
        for key, value in OFF_VALUES.items():
            doc["nodes"][0].setdefault(key, value)
        long = dump(doc) + "\n"
        assert len(long) > len(short)
        assert build(read_text(long, named())) == build(src)


def test_a_model_name_takes_the_hosts_model_of_that_name():
    src = F.source(models=[AssetSlotSource("other", F.model(1))])
    g = read_text(write_text(src), named())
    assert g.models[0].asset is F.model(1)


def _refused(text, error=rt.InvalidError):
    with pytest.raises(error) as info:
        read_text(text, named())
    return info.value


def test_what_the_form_does_not_take_is_refused_at_its_byte():
    text = write_text(full())
    bad = text.replace('"projector"', '"projectors"')
    exc = _refused(bad)
    assert exc.reason == R.Form and exc.other == GraphForm.member and exc.item == bad.index('"projectors"')
    bad = text.replace('"model": "brain"', '"model": "nope"')
    assert _refused(bad).other == GraphForm.name
    bad = text.replace('"projector": 1', '"projector": 1.5')
    assert _refused(bad).other == GraphForm.value
    bad = text.replace('"projector": 1', '"projector": -1')
    assert _refused(bad).other == GraphForm.value
    bad = text.replace('"period": 0.25', '"period": "often"')
    exc = _refused(bad)
    assert exc.other == GraphForm.type and exc.item == bad.index('"period"')
    bad = text.replace('"channel": 3', '"channel": 3, "bone": 3')
    assert _refused(bad).other == GraphForm.member
    bad = text.replace('"trigger": "search"', '"trigger": "nobody"')
    assert _refused(bad).other == GraphForm.name


def test_the_build_refuses_what_the_text_names_by_its_place():
    doc = json.loads(write_text(full()))
    doc["nodes"][0]["projector"] = 16
    with pytest.raises(rt.InvalidError) as info:
        build(read_text(dump(doc), named()))
    assert (info.value.reason, info.value.item, info.value.other) == (R.Node, 0, 1)


def test_capi_writes_and_builds_the_node():
    b = rt.Builder()
    capi.maniWriteGraphJson(b, full())
    text = bytes(b.copy_built())
    assert text == write_text(full()).encode()
    capi.maniBuildGraphJson(b, text, named())
    assert bytes(b.copy_built()) == build(full())
    assert capi.maniBuilder_GetMisuse(b) == 0
