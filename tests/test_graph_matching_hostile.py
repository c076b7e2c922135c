"""Hostile values against the motion matching node: in every field of its source and of a
query input (the build), in every argument of the calls that run it (bind, update,
evaluate, subset, save, restore, parameters, inspection) and in every member of its JSON
form. Nothing but a ManiError may escape, and a refused call changes nothing."""
import dataclasses
import json

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.graph.build.build import build
from runtime.graph.json.write import write_text
from runtime.graph.source import MatchQueryInput, MotionMatchingNode

import graph_matching_fixtures as F
from test_graph_matching_json import named
from test_hostile_arguments import HOSTILE, outcome


def test_hostile_values_in_every_field_of_the_node_and_its_query():
    escaped = []
    for field in dataclasses.fields(MotionMatchingNode):
        for label, make in HOSTILE.items():
            src = F.source()
            setattr(src.nodes[0], field.name, make())
            why = outcome(build, (src,))
            if why:
                escaped.append(f"{field.name}={label}: {why}")
    for field in dataclasses.fields(MatchQueryInput):
        for label, make in HOSTILE.items():
            src = F.source()
            q = MatchQueryInput(2, 0)
            setattr(q, field.name, make())
            src.nodes[0].query = [q]
            if (why := outcome(build, (src,))):
                escaped.append(f"query.{field.name}={label}: {why}")
    assert not escaped, "\n".join(escaped)


def test_hostile_values_in_every_member_of_its_json_form():
    doc = json.loads(write_text(F.source(history_count=2)))
    node = doc["nodes"][0]
    escaped = []
    values = [None, True, -1, 1.5, 1e39, "x", [], {}, [1, 2], {"parameter": 3}, {"parameter": "zz"},
              2 ** 40, "\u00e9"]
    keys = list(node) + ["period", "historyCount", "requiredTags", "excludedTags", "duration"]
    for key in keys:
        for value in values:
            d = json.loads(json.dumps(doc))
            d["nodes"][0][key] = value
            if (why := outcome(capi.maniBuildGraphJson, (rt.Builder(), json.dumps(d), named()))):
                escaped.append(f"{key}={value!r}: {why}")
        for i in range(len(node.get("query", []))):
            for qkey in ("channel", "time", "parameter"):
                for value in values:
                    d = json.loads(json.dumps(doc))
                    d["nodes"][0]["query"][i][qkey] = value
                    if (why := outcome(capi.maniBuildGraphJson, (rt.Builder(), json.dumps(d), named()))):
                        escaped.append(f"query[{i}].{qkey}={value!r}: {why}")
    assert not escaped, "\n".join(escaped)


@pytest.fixture(scope="module")
def world():
    g = capi.maniOpenGraph(build(F.source(history_count=3)))
    binding, _ = capi.maniBindGraph(g, F.assets())
    inst = capi.maniInitGraphInstance(binding)
    for _ in range(5):
        capi.maniGraphInstance_Update(inst, 1 / 30)
    return g, binding, inst


def test_hostile_values_in_every_call_that_runs_it(world):
    g, binding, inst = world
    sk = F.humanoid()
    pose = rt.Pose(sk)
    plan = capi.maniPlanGraphSubset(binding, [0, 3])
    saved = capi.maniGraphInstance_Save(inst)
    calls = {
        "maniBindGraph": (g, F.assets()),
        "maniGraphInstance_Update": (inst, 1 / 30, None, 0),
        "maniGraphInstance_Evaluate": (inst, None, pose),
        "maniGraphInstance_EvaluateSubset": (inst, plan, None, pose),
        "maniGraphInstance_Save": (inst,),
        "maniGraphInstance_Restore": (inst, saved),
        "maniGraphInstance_SetParameter": (inst, 0, 5, (0.5, 0.5)),
        "maniGraphInstance_InspectNode": (inst, 0),
    }
    for name, valid in calls.items():           # compiled before anything is timed
        getattr(capi, name)(*valid)
    escaped = []
    for name, valid in calls.items():
        fn = getattr(capi, name)
        for k in range(len(valid)):
            for label, make in HOSTILE.items():
                args = list(valid)
                args[k] = make()
                before = bytes(inst.buffer)
                why = outcome(fn, args)
                inst.buffer[:] = np.frombuffer(before, np.uint8)
                if why:
                    escaped.append(f"{name}[{k}]={label}: {why}")
                elif _refused(fn, args) and bytes(inst.buffer) != before:
                    escaped.append(f"{name}[{k}]={label}: refused, but changed the instance")
                inst.buffer[:] = np.frombuffer(before, np.uint8)
    assert not escaped, "\n".join(escaped)


def _refused(fn, args) -> bool:
    try:
        fn(*args)
    except rt.ManiError:
        return True
    return False


def test_huge_and_odd_steps_keep_the_state_in_range(world):
    _, binding, inst = world
    pose = rt.Pose(F.humanoid())
    for delta in (1e30, 3.4e38, 0.0, -5.0, 1e-300, 1e6, 7.25):
        capi.maniGraphInstance_Update(inst, delta)
        capi.maniGraphInstance_Evaluate(inst, None, pose)
        assert np.isfinite(pose.locals).all()
        S = inst.scalars
        bad = np.flatnonzero(~((S >= binding.lo) & (S <= binding.hi)))
        assert not bad.size, (delta, bad, S[bad], binding.lo[bad], binding.hi[bad])
        again = capi.maniInitGraphInstance(binding)
        capi.maniGraphInstance_Restore(again, capi.maniGraphInstance_Save(inst))
