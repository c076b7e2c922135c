"""The retargeting map's JSON form: written, read and written again it is the same text (a
fixed point), and the text builds the same file as the source it was written from."""
import json

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.mapping import (RetargetChain, RetargetChainMode, RetargetMapSource, RetargetPair,
                             RetargetPelvis, RetargetTranslation, build_retarget_map)
from runtime.mapping.retarget_json import read_text

from retarget_fixtures import humanoid, random_locals


def _write(source) -> str:
    b = rt.Builder()
    capi.maniWriteRetargetMapJson(b, source)
    return b.copy_built().decode("utf-8")


def sources():
    src, tgt = humanoid(24, 0), humanoid(30, 3)
    rng = np.random.default_rng(11)
    sref, tref = random_locals(src, rng, 0.3, 0.1, (0.9, 1.1)), random_locals(tgt, rng, 0.3, 0.1)
    sref[4] = src.rests[4]                       # a bone at rest is left out of the reference
    yield RetargetMapSource(src, tgt)
    yield RetargetMapSource(src, tgt, sref, tref, match_names=True)
    yield RetargetMapSource(
        src, tgt, sref, None,
        pairs=[RetargetPair(7, 7, 0.1, RetargetTranslation.scaled, True),
               RetargetPair(8, 8, 1 / 3, RetargetTranslation.absolute)],
        chains=[RetargetChain(1, 3, 1, 2, mode, RetargetTranslation(k % 3), bool(k % 2), 0.25 * k)
                for k, mode in enumerate(RetargetChainMode) if k == 0] +
               [RetargetChain(16, 18, 16, 18, RetargetChainMode.one_to_one_reversed),
                RetargetChain(9, 11, 9, 11, RetargetChainMode.interpolated, scale=True)],
        pelvis=RetargetPelvis(0, 0, (0.0, 0.6, 0.8), 1.25, 0.75, (0.5, 0.0, 1.0), (0.0, 0.125, 0.0), 0.9),
        match_names=True)


@pytest.mark.parametrize("k", range(3))
def test_write_read_write_is_a_fixed_point_and_builds_the_same_file(k):
    source = list(sources())[k]
    src, tgt = source.source_skeleton, source.target_skeleton
    text = _write(source)
    again = _write(read_text(text, src, tgt)[0])
    assert again == text
    b = rt.Builder()
    capi.maniBuildRetargetMapJson(b, text, src, tgt)
    assert b.copy_built() == build_retarget_map(rt.Builder(), source)
    doc = json.loads(text)
    assert doc["format"] == "maul-anim retarget map" and doc["version"] == 1
    assert (doc["pelvis"] is None) == (source.pelvis is None)


def test_the_form_writes_what_it_says():
    source = list(sources())[2]
    doc = json.loads(_write(source))
    assert doc["pairs"][0] == {"source": "arm_l", "target": "arm_l", "weight": 0.1,
                               "translation": "scaled", "scale": True}
    assert [c["mode"] for c in doc["chains"]] == ["none", "oneToOneReversed", "interpolated"]
    assert doc["pelvis"]["toSource"] == [0, 0.125, 0] and doc["pelvis"]["up"] == [0, 0.6, 0.8]
    assert "neck" not in [e["bone"] for e in doc["sourceReference"]]     # bone 4 at rest
    assert len(doc["sourceReference"]) == 23 and doc["targetReference"] == []
    assert doc["matchNames"] is True


def test_members_left_out_take_their_defaults():
    src, tgt = humanoid(12, 0), humanoid(16, 3)
    text = json.dumps({"format": "maul-anim retarget map", "version": 1,
                       "pairs": [{"source": "hips", "target": "hips", "weight": 1}],
                       "chains": [{"sourceStart": "spine0", "sourceEnd": "spine2", "targetStart": "spine0",
                                   "targetEnd": "spine2", "mode": "interpolated", "weight": 1}],
                       "pelvis": {"source": "neck", "target": "neck", "up": [0, 1, 0], "horizontal": 1,
                                  "vertical": 1, "weight": 1},
                       "targetReference": [{"bone": "head", "translation": [0, 0.2, 0]}]})
    b = rt.Builder()
    capi.maniBuildRetargetMapJson(b, text, src, tgt)
    reference = np.array(tgt.rests, dtype=np.float64)
    reference[5, 0:3] = (0, 0.2, 0)
    want = build_retarget_map(rt.Builder(), RetargetMapSource(
        src, tgt, None, reference, [RetargetPair(0, 0)], [RetargetChain(1, 3, 1, 3)],
        RetargetPelvis(4, 4)))
    assert b.copy_built() == want
