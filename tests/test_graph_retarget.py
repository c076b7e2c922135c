"""Retargeted clip slots: a clip of a map's source skeleton played by a graph of the map's
target, sampled on the source and carried through the map at evaluation. Checked against
the independent path a caller would take by hand (Clip.sample on the source skeleton, then
RetargetMap.retarget_pose), bit for bit; on the staged motion capture and the trainer when
../shared is there, and on a small map built here always. Also the map slots the build
gives, the four queries, every refusal of the build, the binding and the open, the JSON
text's fixed point, and subsets."""
from pathlib import Path
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core.errors import BuildReason as R
from runtime.core.limits import NO_TRACK
from runtime.graph.binding import GraphAssets, GraphBinding
from runtime.graph.build.build import build
from runtime.graph.build.check import SLOT_FAULT
from runtime.graph.file import Graph
from runtime.graph.format import MAP_SLOT
from runtime.graph.instance import GraphInstance
from runtime.graph.json.read import GraphNamedAssets, read_text
from runtime.graph.json.write import write_text
from runtime.graph.limits import MAX_GRAPH_RETARGET_MAPS
from runtime.graph.source import *  # noqa: F403
from runtime.graph.source import ParameterType as T
from runtime.graph.subset import GraphSubset
from runtime.mapping import RetargetMap, build_retarget_map
from runtime.mapping.retarget_build import RetargetMapSource, RetargetPair, RetargetPelvis
from runtime.samples.humanoid import humanoid_source

from test_graph_fixtures import humanoid, make_clip, params
from test_graph_open import corrupt, sections

MOCAP = Path(__file__).resolve().parents[1].parent / "shared" / "testdata" / "mocap" / "bandai-namco-2"
TIMES = (0.0, 0.13, 0.4, 0.25, 0.61, 0.05)


def target() -> rt.Skeleton:
    """The graph's skeleton: another humanoid (fewer bones, other rests) than the clips'."""
    return rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(24, seed=3)))


def small_map(weight: float = 1.0, pelvis: bool = True) -> RetargetMap:
    """The 80-bone humanoid onto target(): bones by name, the hips by the pelvis rule."""
    src, tgt = humanoid(), target()
    pairs = [] if weight == 1.0 else [RetargetPair(1, 1, weight)]
    return RetargetMap(build_retarget_map(rt.Builder(), RetargetMapSource(
        src, tgt, pairs=pairs, pelvis=RetargetPelvis(0, 0) if pelvis else None,
        match_names=pelvis)))


def retargeted(clips: dict, maps: dict, nodes=None, output=0, parameters=()):
    """A graph of target() over clip slots named as `clips`, each through maps[name] (absent:
    a clip of the graph's skeleton)."""
    slots = [ClipSlotSource(n, c, retarget_map=maps.get(n)) for n, c in clips.items()]
    return GraphSource(target(), nodes or [ClipNode(0)], output, list(parameters), slots)


def assets(clips: dict, maps: list) -> GraphAssets:
    return GraphAssets(target(), list(clips.values()), maps, [humanoid()])


def by_hand(m: RetargetMap, src: rt.Skeleton, tgt: rt.Skeleton, clip, time: float) -> rt.Pose:
    """What the graph must give: the clip sampled on the source, then RetargetPose."""
    sp, out = rt.Pose(src), rt.Pose(tgt)
    clip.sample(src, time, sp)
    m.retarget_pose(src, sp, tgt, out, bytearray(m.scratch_size))
    return out


def bits(pose) -> np.ndarray:
    return pose.locals.view(np.uint32).copy()


def _played(inst, binding, skeleton, scratch=True):
    out = rt.Pose(skeleton)
    inst.evaluate(out, bytearray(binding.scratch_bytes) if scratch else None)
    return out


@pytest.fixture(scope="module")
def small():
    clip = make_clip(humanoid(), 1, 1.0)
    return clip, small_map()


@pytest.mark.parametrize("scratch", [True, False])
def test_a_retargeted_clip_is_the_clip_sampled_then_retarget_pose(small, scratch):
    clip, m = small
    binding = GraphBinding(Graph(build(retargeted({"a": clip}, {"a": m}))), assets({"a": clip}, [m]))
    inst = GraphInstance(binding)
    played = 0.0
    for step in TIMES:
        inst.update(step)
        played = (played + step) % clip.duration
        want = by_hand(m, humanoid(), target(), clip, inst.inspect(0).playhead)
        assert np.array_equal(bits(_played(inst, binding, target(), scratch)), bits(want))
    assert inst.inspect(0).playhead == pytest.approx(played, abs=1e-6)


def test_a_clip_tracking_some_bones_is_filled_on_the_source_then_carried(small):
    _, m = small
    clip = make_clip(humanoid(), 6, 1.0, bones=range(6, 20), root=False)
    binding = GraphBinding(Graph(build(retargeted({"f": clip}, {"f": m}))), assets({"f": clip}, [m]))
    inst = GraphInstance(binding)
    for step in TIMES:
        inst.update(step)
        want = by_hand(m, humanoid(), target(), clip, inst.inspect(0).playhead)
        assert np.array_equal(bits(_played(inst, binding, target())), bits(want))


def test_a_blend_of_a_retargeted_and_a_native_clip_blends_the_carried_pose(small):
    """A retargeted clip blended with a clip of the graph's skeleton is the blend of the
    carried pose and the native clip's (rt.blend_poses, the library's blend)."""
    clip, m = small
    native = make_clip(target(), 9, 0.7)
    nodes = [ClipNode(0), ClipNode(1), BlendNode([BlendInput(0), BlendInput(1, 1.0, 0)])]
    src = retargeted({"a": clip, "n": native}, {"a": m}, nodes, 2, params(("mix", T.float_, 0.35)))
    binding = GraphBinding(Graph(build(src)), GraphAssets(target(), [clip, native], [m], [humanoid()]))
    inst = GraphInstance(binding)
    single = GraphInstance(GraphBinding(Graph(build(retargeted({"a": clip}, {"a": m}))),
                                        assets({"a": clip}, [m])))
    for step in TIMES[:3]:
        inst.update(step)
        single.update(step)
        carried = _played(single, single.binding, target())
        plain = rt.Pose(target())
        native.sample(target(), inst.inspect(1).playhead, plain)
        got = _played(inst, binding, target())
        want = rt.Pose(target())
        rt.blend_poses(target(), [rt.BlendLayer(carried, 1.0), rt.BlendLayer(plain, 0.35)], 0.0, want)
        assert np.allclose(got.locals, want.locals, atol=2e-6)


def test_an_additive_clip_is_carried_through_the_rest_as_the_baked_clip_is(small):
    """An additive layer whose difference is a mapped additive clip: the difference added
    to the source's rest, carried, taken from the rest carried, then added to the base
    (rt.add_layers, rt.compute_pose_difference and RetargetPose by hand). Within 2e-6: the
    graph's additive layer rounds in its own way, a few ulps from add_layers."""
    _, m = small
    src, tgt = humanoid(), target()
    additive = make_clip(src, 5, 1.5, additive=True)
    native = make_clip(tgt, 9, 0.7)
    nodes = [ClipNode(0), ClipNode(1), AdditiveNode(0, 1)]
    binding = GraphBinding(Graph(build(retargeted({"n": native, "e": additive}, {"e": m}, nodes, 2))),
                           GraphAssets(tgt, [native, additive], [m], [src]))
    inst = GraphInstance(binding)
    rest, carried_rest = rt.Pose(src), rt.Pose(tgt)
    m.retarget_pose(src, rest, tgt, carried_rest)
    for step in TIMES:
        inst.update(step)
        diff, full, carried, d, want = rt.Pose(src), rt.Pose(src), rt.Pose(tgt), rt.Pose(tgt), rt.Pose(tgt)
        additive.sample(src, inst.inspect(1).playhead, diff)
        rt.add_layers(full, src, [rt.BlendLayer(diff, 1.0)])
        m.retarget_pose(src, full, tgt, carried)
        rt.compute_pose_difference(tgt, carried, carried_rest, d)
        native.sample(tgt, inst.inspect(0).playhead, want)
        rt.add_layers(want, tgt, [rt.BlendLayer(d, 1.0)])
        got = _played(inst, binding, tgt).locals
        assert np.allclose(got, want.locals, rtol=0, atol=2e-6)
        assert not np.allclose(got, carried_rest.locals, atol=1e-3)     # the difference did something


def test_root_motion_of_a_retargeted_clip_is_the_baked_clips(small):
    """The graph carries a mapped clip's root motion to the bone that follows its root
    motion bone, as maniBuildRetargetedClip bakes it."""
    clip, m = small
    baked = rt.Clip.open(capi_build_retargeted(m, clip))
    a = GraphInstance(GraphBinding(Graph(build(retargeted({"a": clip}, {"a": m}))), assets({"a": clip}, [m])))
    b = GraphInstance(GraphBinding(Graph(build(GraphSource(target(), [ClipNode(0)], 0, [],
                                                           [ClipSlotSource("a", baked)]))),
                                   GraphAssets(target(), [baked])))
    for step in TIMES:
        _, _, got = a.update(step)
        _, _, want = b.update(step)
        assert np.allclose(got, want, atol=1e-6)
        assert np.abs(got[:3]).max() > 0 or step == 0.0


def capi_build_retargeted(m, clip) -> bytes:
    from runtime.mapping.retarget_clip import RetargetClipSource, build_retargeted_clip
    return build_retargeted_clip(rt.Builder(), RetargetClipSource(m, humanoid(), target(), clip))


# ---- the staged motion capture onto the trainer ----------------------------------------------------
@pytest.mark.skipif(not (MOCAP / "walk_normal_001.bvh").exists(), reason=f"no mocap at {MOCAP}")
def test_mocap_walk_played_on_the_trainer_is_sampled_then_retargeted():
    from test_retarget_mocap import _ankles, _clip
    from runtime.samples.trainer import mocap_reference, mocap_retarget_source, trainer_skeleton_source
    mocap, walk = _clip(MOCAP / "walk_normal_001.bvh")
    trainer = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), trainer_skeleton_source()))
    first = rt.Pose(mocap)
    walk.sample(mocap, 0.0, first)
    feet, _ = _ankles(mocap, walk, [mocap.find_bone("Foot_L"), mocap.find_bone("Foot_R")])
    reference = mocap_reference(mocap, first.locals, trainer, float(np.percentile(feet[..., 1], 2)))
    m = RetargetMap(build_retarget_map(rt.Builder(), mocap_retarget_source(mocap, reference, trainer)))
    source = GraphSource(trainer, [ClipNode(0, loop=ClipLoop.repeat)], 0, [],
                         [ClipSlotSource("walk", walk, retarget_map=m)])
    binding = GraphBinding(Graph(build(source)), GraphAssets(trainer, [walk], [m], [mocap]))
    inst = GraphInstance(binding)
    for step in (0.0, 1 / 30, 0.25, 0.7, 1.3, 0.011):
        inst.update(step)
        want = by_hand(m, mocap, trainer, walk, inst.inspect(0).playhead)
        assert np.array_equal(bits(_played(inst, binding, trainer)), bits(want))


# ---- map slots and the queries -------------------------------------------------------------------
def test_each_map_the_clip_slots_name_gets_one_slot_in_first_named_order(small):
    clip, m = small
    other = small_map(0.5)
    native = make_clip(target(), 9, 0.7)
    clip2 = make_clip(humanoid(), 2, 0.5)
    nodes = [ClipNode(0), ClipNode(1), ClipNode(2), ClipNode(3),
             BlendNode([BlendInput(0), BlendInput(1), BlendInput(2), BlendInput(3)])]
    g = Graph(build(retargeted({"n": native, "b": clip2, "a": clip, "c": clip},
                               {"b": other, "a": m, "c": other}, nodes, 4)))
    assert capi.maniGraph_GetRetargetMapCount(g) == 2
    assert [capi.maniGraph_GetRetargetMapIdentity(g, k) for k in range(3)] == [other.identity, m.identity, 0]
    assert [capi.maniGraph_GetRetargetMapSourceIdentity(g, k) for k in range(3)] == \
        [humanoid().identity, humanoid().identity, 0]
    assert [capi.maniGraph_GetClipRetargetMap(g, k) for k in range(5)] == [NO_TRACK, 0, 1, 0, NO_TRACK]
    assert capi.maniGraph_GetRetargetMapCount(None) == 0
    plain = Graph(build(GraphSource(target(), [ClipNode(0)], 0, [], [ClipSlotSource("n", native)])))
    assert capi.maniGraph_GetRetargetMapCount(plain) == 0
    assert capi.maniGraph_GetClipRetargetMap(plain, 0) == NO_TRACK
    binding = GraphBinding(g, GraphAssets(target(), [native, clip2, clip], [m, other], [humanoid()]))
    inst = GraphInstance(binding)
    inst.update(0.2)
    _played(inst, binding, target())


def test_the_scratch_has_room_for_one_transfer(small):
    clip, m = small
    native = make_clip(target(), 9, 0.7)
    with_map = GraphBinding(Graph(build(retargeted({"a": clip}, {"a": m}))), assets({"a": clip}, [m]))
    without = GraphBinding(Graph(build(retargeted({"n": native}, {}))), GraphAssets(target(), [native]))
    ns, nt = humanoid().bone_count, target().bone_count
    assert capi.maniGraphBinding_GetScratchSize(with_map) - capi.maniGraphBinding_GetScratchSize(without) \
        == 80 * ns + 40 * nt + m.scratch_size
    inst = GraphInstance(with_map)
    inst.update(0.1)
    out = rt.Pose(target())
    with pytest.raises(rt.CapacityError):
        inst.evaluate(out, bytearray(with_map.scratch_bytes - 1))


# ---- refusals ------------------------------------------------------------------------------------
def _refused(source, error=rt.InvalidError):
    with pytest.raises(error) as got:
        build(source)
    return got.value


def test_build_refusals(small):
    clip, m = small
    e = _refused(retargeted({"a": clip}, {"a": RetargetMap.__new__(RetargetMap)}))
    assert (e.reason, e.item, e.other) == (R.Clip, 0, SLOT_FAULT | 3)
    e = _refused(retargeted({"a": clip}, {"a": object()}))
    assert (e.reason, e.item, e.other) == (R.Clip, 0, SLOT_FAULT | 3)
    backwards = RetargetMap(build_retarget_map(rt.Builder(), RetargetMapSource(target(), humanoid(),
                                                                               match_names=True)))
    e = _refused(retargeted({"a": clip}, {"a": backwards}))      # made for the clips' skeleton
    assert (e.reason, e.item, e.other) == (R.Clip, 0, SLOT_FAULT | 3)
    native = make_clip(target(), 9, 0.7)
    e = _refused(retargeted({"n": native}, {"n": m}))             # a clip not of the map's source
    assert (e.reason, e.item, e.other) == (R.Clip, 0, SLOT_FAULT | 2)
    e = _refused(retargeted({"a": clip}, {}))                     # a source clip without its map
    assert (e.reason, e.item, e.other) == (R.Clip, 0, SLOT_FAULT | 2)


def test_more_maps_than_the_limit_are_refused_at_the_slot_naming_the_first_past_it(small):
    clip, _ = small
    maps = [small_map(0.5 + 0.02 * k) for k in range(MAX_GRAPH_RETARGET_MAPS + 1)]
    names = [f"c{k}" for k in range(len(maps))]
    nodes = [ClipNode(k) for k in range(len(maps))] + [BlendNode([BlendInput(k) for k in range(len(maps))])]
    clips = {n: clip for n in names}
    e = _refused(retargeted(clips, dict(zip(names, maps)), nodes, len(maps)), rt.LimitError)
    assert (e.reason, e.item, e.other) == (R.Clip, MAX_GRAPH_RETARGET_MAPS, MAX_GRAPH_RETARGET_MAPS)
    fits = dict(zip(names[:-1], maps[:-1]))
    g = Graph(build(retargeted({n: clip for n in names[:-1]}, fits, nodes[:-2] + [
        BlendNode([BlendInput(k) for k in range(len(maps) - 1)])], len(maps) - 1)))
    assert capi.maniGraph_GetRetargetMapCount(g) == MAX_GRAPH_RETARGET_MAPS


def test_a_subgraph_naming_a_clip_slot_through_another_map_is_refused(small):
    clip, m = small
    sub = retargeted({"a": clip}, {"a": small_map(0.5)})
    host = GraphSource(target(), [ClipNode(0), SubgraphNode(sub),
                                  BlendNode([BlendInput(0), BlendInput(1)])], 2, [],
                       [ClipSlotSource("a", clip, retarget_map=m)])
    e = _refused(host)
    assert (e.reason, e.item) == (R.Clip, 1)
    same = GraphSource(target(), host.nodes[:1] + [SubgraphNode(retargeted({"a": clip}, {"a": m}))]
                       + host.nodes[2:], 2, [], host.clips)
    assert capi.maniGraph_GetRetargetMapCount(Graph(build(same))) == 1


def _unbound(graph, a):
    with pytest.raises(rt.InvalidError) as got:
        capi.maniBindGraph(graph, a)
    return got.value


def test_binding_refusals(small):
    clip, m = small
    native = make_clip(target(), 9, 0.7)
    nodes = [ClipNode(0), ClipNode(1), BlendNode([BlendInput(0), BlendInput(1)])]
    g = Graph(build(retargeted({"n": native, "a": clip}, {"a": m}, nodes, 2)))
    ok = GraphAssets(target(), [native, clip], [m], [humanoid()])
    capi.maniBindGraph(g, ok)
    # the map slot (after the two clip slots) with no map of its identity, or its source
    # skeleton missing
    assert _unbound(g, GraphAssets(target(), [native, clip], [small_map(0.5)], [humanoid()])).unbound == 2
    assert _unbound(g, GraphAssets(target(), [native, clip], [m], [target()])).unbound == 2
    assert _unbound(g, GraphAssets(target(), [native, clip], [m], [])).unbound == 2
    # a clip of the graph's skeleton does not bind a mapped slot, nor the source clip a native one
    assert _unbound(g, GraphAssets(target(), [native, native], [m], [humanoid()])).unbound == 1
    assert _unbound(g, GraphAssets(target(), [clip, clip], [m], [humanoid()])).unbound == 0
    # a skeleton that is not the graph's
    with pytest.raises(rt.InvalidError):
        capi.maniBindGraph(g, GraphAssets(humanoid(), [native, clip], [m], [humanoid()]))


def test_root_motion_a_map_does_not_carry_or_that_names_another_bone_is_refused(small):
    clip, _ = small
    # no pelvis, no names: bone 0 of the source has no follower
    lone = RetargetMap(build_retarget_map(rt.Builder(), RetargetMapSource(
        humanoid(), target(), pairs=[RetargetPair(1, 1)])))
    g = Graph(build(retargeted({"a": clip}, {"a": lone})))
    with pytest.raises(rt.InvalidError):
        capi.maniBindGraph(g, assets({"a": clip}, [lone]))
    # the source's hips follow onto target bone 0; a native clip's root motion on bone 1
    shifted = RetargetMap(build_retarget_map(rt.Builder(), RetargetMapSource(
        humanoid(), target(), pairs=[RetargetPair(0, 0)])))
    native = make_clip(target(), 9, 0.7)
    ok = Graph(build(retargeted({"n": native, "a": clip}, {"a": shifted},
                                [ClipNode(0), ClipNode(1), BlendNode([BlendInput(0), BlendInput(1)])], 2)))
    capi.maniBindGraph(ok, GraphAssets(target(), [native, clip], [shifted], [humanoid()]))
    moved = RetargetMap(build_retarget_map(rt.Builder(), RetargetMapSource(
        humanoid(), target(), pairs=[RetargetPair(0, 1)])))
    g = Graph(build(retargeted({"n": native, "a": clip}, {"a": moved},
                               [ClipNode(0), ClipNode(1), BlendNode([BlendInput(0), BlendInput(1)])], 2)))
    with pytest.raises(rt.InvalidError):
        capi.maniBindGraph(g, GraphAssets(target(), [native, clip], [moved], [humanoid()]))


def test_the_open_refuses_map_slots_out_of_form(small):
    clip, m = small
    data = build(retargeted({"a": clip}, {"a": m}))
    Graph(data)
    bad, off = corrupt(data, b"CLPS", 8, "<I", 1)             # a map slot past the count
    with pytest.raises(rt.FormatError) as got:
        Graph(bad)
    assert got.value.offset == off
    # a map slot no clip slot names: two maps, the clip moved off the second
    clip2 = make_clip(humanoid(), 2, 0.5)
    two = build(retargeted({"a": clip, "b": clip2}, {"a": m, "b": small_map(0.5)},
                           [ClipNode(0), ClipNode(1), BlendNode([BlendInput(0), BlendInput(1)])], 2))
    bad, _ = corrupt(two, b"CLPS", 24 + 8, "<I", 0)
    with pytest.raises(rt.FormatError) as got:
        Graph(bad)
    assert got.value.offset == sections(two)[b"RMAP"][0] + MAP_SLOT.size
    # the same map listed twice
    bad, _ = corrupt(two, b"RMAP", MAP_SLOT.size, "<Q", m.identity)
    with pytest.raises(rt.FormatError) as got:
        Graph(bad)
    assert got.value.offset == sections(two)[b"RMAP"][0] + MAP_SLOT.size


# ---- JSON and subsets ----------------------------------------------------------------------------
def test_json_write_read_write_is_a_fixed_point_and_builds_the_same_file(small):
    clip, m = small
    native = make_clip(target(), 9, 0.7)
    nodes = [ClipNode(0), ClipNode(1, speed=0.5), BlendNode([BlendInput(0), BlendInput(1, 1.0, 0)])]
    source = retargeted({"n": native, "a": clip}, {"a": m}, nodes, 2, params(("mix", T.float_, 0.2)))
    text = write_text(source)
    named = GraphNamedAssets(target(), {"n": native, "a": clip}, retarget_maps={"a": m})
    again = read_text(text, named)
    assert write_text(again) == text
    assert build(again) == build(source)
    b = rt.Builder()
    capi.maniBuildGraphJson(b, text, named)
    assert bytes(capi.maniBuilder_CopyBuilt(b)) == build(source)
    # without the map the name takes the source clip alone, which the build refuses
    e = pytest.raises(rt.InvalidError, read_text_built, text, GraphNamedAssets(target(), {"n": native, "a": clip}))
    assert (e.value.reason, e.value.item, e.value.other) == (R.Clip, 1, SLOT_FAULT | 2)


def read_text_built(text, named):
    return build(read_text(text, named))


def test_subsets_equal_the_full_evaluation_on_the_planned_bones(small):
    clip, m = small
    native = make_clip(target(), 9, 0.7)
    nodes = [ClipNode(0), ClipNode(1), BlendNode([BlendInput(0), BlendInput(1, 1.0, 0)])]
    source = retargeted({"n": native, "a": clip}, {"a": m}, nodes, 2, params(("mix", T.float_, 0.4)))
    binding = GraphBinding(Graph(build(source)), GraphAssets(target(), [native, clip], [m], [humanoid()]))
    inst = GraphInstance(binding)
    rng = np.random.default_rng(5)
    for step in TIMES:
        inst.update(step)
        full = _played(inst, binding, target())
        listed = sorted(rng.choice(target().bone_count, 3, replace=False).tolist())
        plan = GraphSubset(binding, listed)
        part = rt.Pose(target())
        part.locals[...] = 7.0
        capi.maniGraphInstance_EvaluateSubset(inst, plan, bytearray(binding.scratch_bytes), part)
        bones = plan.get_bones()
        assert np.array_equal(part.locals[bones].view(np.uint32), full.locals[bones].view(np.uint32))
        others = np.setdiff1d(np.arange(target().bone_count), bones)
        assert (part.locals[others] == 7.0).all()


def test_many_lanes_each_equal_one(small):
    from runtime.graph.evaluate.eval import evaluate_lanes
    clip, m = small
    binding = GraphBinding(Graph(build(retargeted({"a": clip}, {"a": m}))), assets({"a": clip}, [m]))
    insts = [GraphInstance(binding) for _ in range(3)]
    for k, inst in enumerate(insts):
        inst.update(0.1 + 0.2 * k)
    out = np.zeros((3, target().bone_count, 10), np.float32)
    evaluate_lanes(insts, out, bytearray(3 * binding.scratch_bytes))
    for k, inst in enumerate(insts):
        want = by_hand(m, humanoid(), target(), clip, inst.inspect(0).playhead)
        assert np.array_equal(out[k].view(np.uint32), bits(want))


def test_a_graph_with_a_map_slot_round_trips_through_struct(small):
    """The map slot record as format.py lays it out: the map's and its source's identity."""
    clip, m = small
    data = build(retargeted({"a": clip}, {"a": m}))
    off = sections(data)[b"RMAP"][0]
    assert struct.unpack_from("<QQ", data, off) == (m.identity, m.source_identity)
