"""graph.h and graphbuild.h under their C names: every function listed and complete, and the
constants beside them."""
from pathlib import Path

import pytest

from runtime import capi
from runtime.capi import _graph
from runtime.core.errors import BuildReason as R
from runtime.graph.build.build import build
from runtime.graph.source import ClipNode, GraphSource, SyncGroupSource

from test_graph_fixtures import builder, humanoid, locomotion, slots

SPEC = Path(__file__).resolve().parents[2] / "shared" / "spec" / "functions.tsv"
GRAPH = ["maniOpenGraph", "maniGraph_GetIdentity", "maniGraph_GetSkeletonIdentity",
         "maniGraph_GetNodeCount", "maniGraph_GetParameterCount", "maniGraph_FindParameter",
         "maniGraph_GetParameterType", "maniGraph_GetParameterName", "maniGraph_GetClipCount",
         "maniGraph_GetClipIdentity", "maniGraph_GetClipName", "maniGraph_GetDatabaseCount",
         "maniGraph_GetDatabaseIdentity", "maniGraph_GetDatabaseName", "maniGraph_GetModelCount",
         "maniGraph_GetModelIdentity", "maniGraph_GetModelName", "maniGraph_GetSpringSetCount",
         "maniGraph_GetSpringSetIdentity", "maniGraph_GetSpringSetName",
         "maniGraph_GetRetargetMapCount", "maniGraph_GetRetargetMapIdentity",
         "maniGraph_GetMirrorMapIdentity", "maniGraph_GetRetargetMapSourceIdentity",
         "maniGraph_GetClipRetargetMap", "maniGraph_GetNodeKind", "maniGraph_GetNodeInputCount",
         "maniGraph_GetNodeInput", "maniGraph_GetOutputNode", "maniGraph_GetNodeSourcePlace",
         "maniGraph_GetBindingSize", "maniBindGraph", "maniGraphBinding_GetInstanceSize",
         "maniInitGraphInstance", "maniGraphInstance_SetParameter", "maniGraphInstance_SetPose",
         "maniGraphInstance_GetPose", "maniGraphInstance_GetParameter",
         "maniGraphInstance_InspectNode", "maniGraphInstance_Save", "maniGraphInstance_Restore",
         "maniGraphInstance_Update", "maniGraphBinding_GetScratchSize", "maniGraphInstance_Evaluate",
         "maniGraphBinding_GetSubsetSize", "maniPlanGraphSubset", "maniGraphSubset_GetBones",
         "maniGraphInstance_EvaluateSubset"]
GRAPHBUILD = ["maniBuildGraph", "maniWriteGraphJson", "maniBuildGraphJson"]


def test_every_function_is_listed():
    assert len(GRAPH) == 48
    assert set(GRAPH + GRAPHBUILD) <= set(capi.__all__)
    if SPEC.exists():
        spec = {line.split("\t")[1].strip() for line in SPEC.read_text().splitlines()[1:]
                if line.startswith(("graph.h", "graphbuild.h"))}
        assert spec == set(GRAPH + GRAPHBUILD)


def test_constants():
    assert _graph.MANI_GRAPH_NONE == 0xFFFFFFFF == _graph.MANI_NO_PARAMETER
    assert _graph.MANI_MAX_GRAPH_CONDITIONS == 8 and _graph.MANI_MAX_GRAPH_DEPTH == 8
    assert 0 < _graph.MANI_GRAPH_EVENT_THRESHOLD < 1 and _graph.MANI_MAX_GRAPH_TIME_FACTOR > 1
    assert _graph.MANI_ABI_VERSION >= 1


def test_a_sync_group_without_its_name():
    b = builder()
    with pytest.raises(Exception) as info:
        capi.maniBuildGraph(b, GraphSource(humanoid(), [ClipNode(0)], 0, clips=slots("a"),
                                           sync_groups=[SyncGroupSource(None)]))
    assert info.value.reason == R.Count and info.value.item == 0


def test_a_graph_file_opens_through_capi():
    sk, clips, source, graph = locomotion()
    data = build(source)
    g = capi.maniOpenGraph(data)
    assert capi.maniGraph_GetIdentity(g) == graph.identity
