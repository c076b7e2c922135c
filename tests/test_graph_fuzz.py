"""Fuzzing the graph's external inputs: files, JSON text and saved states raise only the
library's errors and never hang."""
import json
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.graph.file import Graph
from runtime.graph.binding import GraphAssets
from runtime.graph.build.build import build
from runtime.graph.json.read import GraphNamedAssets
from runtime.graph.json.write import write_text
from runtime.graph.source import BlendInput, BlendNode, ClipNode

from test_graph_fixtures import builder, humanoid, locomotion, standard_clips
from test_graph_json import everything
from graph_solver_fixtures import solver_source
from test_graph_retarget import make_clip, retargeted, small_map, target


def retargeted_graph():
    """A blend of a native clip and two clips of the 80-bone humanoid through two maps
    (map slots, mapped clip slots), with the assets that bind it."""
    native, a, b = make_clip(target(), 9, 0.7), make_clip(humanoid(), 1, 1.0), make_clip(humanoid(), 2, 0.5)
    maps = [small_map(), small_map(0.5)]
    nodes = [ClipNode(0), ClipNode(1), ClipNode(2), BlendNode([BlendInput(0), BlendInput(1), BlendInput(2)])]
    source = retargeted({"n": native, "a": a, "b": b}, {"a": maps[0], "b": maps[1]}, nodes, 3)
    return build(source), GraphAssets(target(), [native, a, b], maps, [humanoid()])


@pytest.fixture(scope="module")
def files():
    sk, clips, source, graph = locomotion()
    return build(everything()), build(source), build(solver_source()), retargeted_graph()[0]


def _mutate(rng, data: bytes) -> bytes:
    d = bytearray(data)
    kind = int(rng.integers(0, 5))
    if kind == 0:
        for _ in range(int(rng.integers(1, 6))):
            d[int(rng.integers(0, len(d)))] ^= int(rng.integers(1, 256))
    elif kind == 1:
        d = d[:int(rng.integers(0, len(d)))]
    elif kind == 2:
        at = int(rng.integers(0, len(d)))
        d[at:at] = bytes(rng.integers(0, 256, int(rng.integers(1, 32)), dtype=np.uint8))
    elif kind == 3:
        at = int(rng.integers(0, len(d) - 8))
        d[at:at + 4] = bytes(rng.integers(0, 256, 4, dtype=np.uint8))
    else:
        at = int(rng.integers(0, len(d) - 8))
        d[at:at + 4] = (0xFFFFFFFF).to_bytes(4, "little")
    return bytes(d)


def test_open_raises_only_library_errors(files):
    rng = np.random.default_rng(11)
    outcomes = {"opened": 0, "refused": 0}
    for trial in range(1500):
        data = _mutate(rng, files[trial % len(files)])
        start = time.perf_counter()
        try:
            Graph(data)
            outcomes["opened"] += 1
        except rt.ManiError:
            outcomes["refused"] += 1
        assert time.perf_counter() - start < 2.0
    assert outcomes["refused"] > 1000


def test_json_raises_only_library_errors():
    text = write_text(everything())
    sk, loco_clips, _, _ = locomotion()
    assets = GraphNamedAssets(sk, list(standard_clips().items()) + list(loco_clips.items()))
    rng = np.random.default_rng(12)
    raw = text.encode()
    b = builder()
    built = 0
    for trial in range(600):
        data = _mutate(rng, raw)
        start = time.perf_counter()
        try:
            capi.maniBuildGraphJson(b, data, assets)
            built += 1
        except rt.ManiError:
            pass
        assert time.perf_counter() - start < 2.0
    assert capi.maniBuilder_GetMisuse(b) == 0


_json = st.recursive(st.none() | st.booleans() | st.integers(-5, 40) | st.floats(allow_nan=False) |
                     st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                     max_leaves=12)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), _json)
def test_json_values_swapped_anywhere_are_refused_or_built(seed, value):
    doc = json.loads(write_text(everything()))
    rng = np.random.default_rng(seed)
    # walk to a random place and put the value there
    node, key = doc, None
    for _ in range(int(rng.integers(1, 5))):
        children = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        if not children:
            break
        key, child = children[int(rng.integers(0, len(children)))]
        if isinstance(child, (dict, list)) and rng.random() < 0.7:
            node = child
            key = None
        else:
            break
    if key is not None:
        node[key] = value
    sk, loco_clips, _, _ = locomotion()
    assets = GraphNamedAssets(sk, list(standard_clips().items()))
    try:
        capi.maniBuildGraphJson(builder(), json.dumps(doc), assets)
    except rt.ManiError:
        pass


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=600))
def test_restore_of_any_bytes_raises_only_library_errors(data):
    sk, clips, source, graph = locomotion()
    binding, _ = capi.maniBindGraph(graph, GraphAssets(sk, list(clips.values())))
    inst = capi.maniInitGraphInstance(binding)
    before = bytes(inst.buffer)
    with pytest.raises(rt.ManiError):
        capi.maniGraphInstance_Restore(inst, data)
    assert bytes(inst.buffer) == before


def test_files_that_open_after_corruption_run_safely(files):
    """Corruptions with the identity made right again reach every content check; whatever
    still opens binds, updates and evaluates without any error but the library's."""
    _corrupted_run(files[0], GraphAssets(humanoid(), list(standard_clips().values())), 13)


def test_retargeted_files_that_open_after_corruption_run_safely():
    """The same for a graph with map slots and mapped clip slots."""
    data, assets = retargeted_graph()
    _corrupted_run(data, assets, 14)


def _corrupted_run(data, assets, seed):
    from test_graph_open import restamp
    rng = np.random.default_rng(seed)
    opened = 0
    pose = rt.Pose(assets.skeleton)
    for trial in range(800):
        d = bytearray(data)
        for _ in range(int(rng.integers(1, 3))):
            at = int(rng.integers(32, len(d)))
            d[at] ^= 1 << int(rng.integers(0, 8))
        try:
            g = Graph(restamp(d))
        except rt.ManiError:
            continue
        opened += 1
        try:
            binding, _ = capi.maniBindGraph(g, assets)
            inst = capi.maniInitGraphInstance(binding)
            for k in range(3):
                capi.maniGraphInstance_Update(inst, 0.1)
                capi.maniGraphInstance_Evaluate(inst, None, pose)
        except rt.ManiError:
            pass
    assert opened > 0


def test_matching_files_that_open_after_corruption_run_safely():
    """The same for a graph with a motion matching node over a database slot."""
    import graph_matching_fixtures as F
    _corrupted_run(build(F.source(history_count=3, required_tags=3)), F.assets(), 15)


def test_learned_files_that_open_after_corruption_run_safely():
    """The same for a graph with a learned motion matching node over a model slot (its
    update refused while PENDING: still only library errors)."""
    import graph_learned_fixtures as L
    _corrupted_run(build(L.source()), L.assets(), 16)


def test_learned_json_raises_only_library_errors():
    import graph_learned_fixtures as L
    raw = write_text(L.source(projector=1, period=0.25, duration=0.2)).encode()
    assets = GraphNamedAssets(humanoid(), [], models=[("brain", L.model())])
    rng = np.random.default_rng(17)
    b = builder()
    capi.maniBuildGraphJson(b, raw, assets)
    for trial in range(400):
        try:
            capi.maniBuildGraphJson(b, _mutate(rng, raw), assets)
        except rt.ManiError:
            pass
    assert capi.maniBuilder_GetMisuse(b) == 0
