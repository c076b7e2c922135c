"""The graph's mirror node: its output is maniMirrorMap_MirrorPose of its input, bit for
bit; the build marks parity and refuses a mirror node without a map (MirrorGraph) and a
node under both a mirrored and an unmirrored path (MirrorParity); binding takes the assets'
mirror map of the graph's skeleton; subsets plan each planned bone's partner; root motion
beneath a mirror node is mirrored."""
import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core.errors import BuildReason as R
from runtime.graph.binding import GraphAssets, GraphBinding
from runtime.graph.build.build import build
from runtime.graph.file import Graph
from runtime.graph.format import FLAG_MIRRORED, NODE
from runtime.graph.instance import GraphInstance
from runtime.graph.json.read import GraphNamedAssets, read_text
from runtime.graph.json.write import write_text
from runtime.graph.limits import LIST_NODES
from runtime.graph.source import *  # noqa: F403
from runtime.graph.source import ParameterType as T
from runtime.graph.subset import GraphSubset
from runtime.mapping import MirrorAxis, MirrorMap, MirrorMapSource, build_mirror_map

from graph_solver_fixtures import SIDES, bits, bone, bound, evaluated, mirror_map
from runtime_fixtures import random_pose
from test_graph_fixtures import humanoid, params, slots, standard_clips
from test_graph_open import restamp, sections


def mirrored_pose_graph(m=None):
    return GraphSource(humanoid(), [PoseParameterNode(0), MirrorNode(0)], 1,
                       params(("pose", T.pose)), mirror_map=m or mirror_map())


@pytest.mark.parametrize("axis", list(MirrorAxis))
def test_mirror_node_is_mirror_pose_of_its_input(axis):
    m = MirrorMap(build_mirror_map(rt.Builder(), MirrorMapSource(humanoid(), rules=SIDES, axis=axis)))
    src = mirrored_pose_graph(m)
    inst = GraphInstance(GraphBinding(Graph(build(src)), GraphAssets(humanoid(), mirror_map=m)))
    rng = np.random.default_rng(int(axis))
    for _ in range(5):
        pose = random_pose(humanoid(), rng)
        inst.set_pose(0, pose)
        inst.update(0.1)
        want = rt.Pose(humanoid())
        m.mirror_pose(humanoid(), pose, want)
        assert np.array_equal(bits(evaluated(inst)), bits(want))


def test_a_mirrored_clip_blend_is_the_unmirrored_one_mirrored():
    """Two graphs, one with a mirror node over a blend of clips: the same update, and the
    mirrored one's pose and root motion are the other's mirrored."""
    ps = params(("mix", T.float_, 0.3))
    nodes = [ClipNode(0), ClipNode(1), BlendNode([BlendInput(0), BlendInput(1, 1.0, 0)])]
    plain = GraphSource(humanoid(), nodes, 2, ps, slots("a", "b"))
    mirrored = GraphSource(humanoid(), nodes + [MirrorNode(2)], 3, ps, slots("a", "b"),
                           mirror_map=mirror_map())
    a, b = GraphInstance(bound(plain)), GraphInstance(bound(mirrored))
    m = mirror_map()
    for step in (0.1, 0.25, 0.05):
        _, _, move_a = a.update(step)
        _, _, move_b = b.update(step)
        assert np.array_equal(np.asarray(move_b, np.float32), m.mirror_root_motion(move_a))
        want = rt.Pose(humanoid())
        m.mirror_pose(humanoid(), evaluated(a), want)
        assert np.array_equal(bits(evaluated(b)), bits(want))
    assert not np.allclose(move_a, m.mirror_root_motion(move_a))


def test_parity_marks_and_the_map_identity():
    nodes = [ClipNode(0), MirrorNode(0), MirrorNode(1), TimeScaleNode(2), MirrorNode(3)]
    g = Graph(build(GraphSource(humanoid(), nodes, 4, [], slots("a"), mirror_map=mirror_map())))
    assert [n.mirrored for n in g.nodes] == [True, False, True, True, False]
    assert capi.maniGraph_GetMirrorMapIdentity(g) == mirror_map().identity
    assert capi.maniGraph_GetNodeKind(g, 1) == NodeKind.mirror
    plain = Graph(build(GraphSource(humanoid(), nodes[:1], 0, [], slots("a"))))
    assert capi.maniGraph_GetMirrorMapIdentity(plain) == 0
    assert capi.maniGraph_GetMirrorMapIdentity(None) == 0


def test_mirror_graph_and_mirror_parity_refusals():
    with pytest.raises(rt.InvalidError) as e:
        build(GraphSource(humanoid(), [ClipNode(0), ClipNode(0), MirrorNode(1)], 2, [], slots("a")))
    assert (e.value.reason, e.value.item, e.value.other) == (R.MirrorGraph, 2, LIST_NODES)
    # node 0 read by the mirror (2) and, unmirrored, by the blend (1)
    nodes = [ClipNode(0), BlendNode([BlendInput(0), BlendInput(2)]), MirrorNode(0)]
    with pytest.raises(rt.InvalidError) as e:
        build(GraphSource(humanoid(), nodes, 1, [], slots("a"), mirror_map=mirror_map()))
    assert (e.value.reason, e.value.item, e.value.other) == (R.MirrorParity, 0, 2)
    # through two mirrors it is even again: allowed
    nodes = [ClipNode(0), MirrorNode(0), MirrorNode(1), BlendNode([BlendInput(0), BlendInput(2)])]
    build(GraphSource(humanoid(), nodes, 3, [], slots("a"), mirror_map=mirror_map()))
    # a difference is not mirrored
    with pytest.raises(rt.InvalidError) as e:
        build(GraphSource(humanoid(), [ClipNode(0), MirrorNode(0)], 1, [], slots("e"),
                          mirror_map=mirror_map()))
    assert (e.value.reason, e.value.item, e.value.other) == (R.Difference, 1, 0)
    # a map of another skeleton
    other = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), rt.SkeletonSource(
        [rt.BoneSource("a_l", -1, (0, 0, 0)), rt.BoneSource("a_r", 0, (0, 0, 0))])))
    om = MirrorMap(build_mirror_map(rt.Builder(), MirrorMapSource(other, rules=SIDES)))
    with pytest.raises(rt.InvalidError) as e:
        build(mirrored_pose_graph(om))
    assert (e.value.reason, e.value.item) == (R.MirrorGraph, 0)


def test_binding_takes_the_graphs_mirror_map_of_its_skeleton():
    g = Graph(build(mirrored_pose_graph()))
    for wrong in (None, "map", MirrorMap(build_mirror_map(rt.Builder(), MirrorMapSource(humanoid())))):
        with pytest.raises(rt.InvalidError):
            GraphBinding(g, GraphAssets(humanoid(), mirror_map=wrong))
    binding, unbound = capi.maniBindGraph(g, GraphAssets(humanoid(), mirror_map=mirror_map()))
    assert binding.mirror_map is mirror_map()


def test_open_checks_the_parity_marks_and_the_map():
    data = build(GraphSource(humanoid(), [ClipNode(0), MirrorNode(0)], 1, [], slots("a"),
                             mirror_map=mirror_map()))
    node_at = sections(data)[b"NODE"][0]
    flags_at = node_at + 4                                # node 0's flags: mirrored
    for value in (0, FLAG_MIRRORED | 4):
        d = bytearray(data)
        d[flags_at:flags_at + 4] = value.to_bytes(4, "little")
        with pytest.raises(rt.FormatError) as e:
            Graph(restamp(d))
        assert e.value.offset == flags_at
    d = bytearray(data)
    head = sections(data)[b"GRPH"][0]
    d[head + 8:head + 16] = bytes(8)                      # no mirror map
    with pytest.raises(rt.FormatError) as e:
        Graph(restamp(d))
    assert e.value.offset == node_at + NODE.size


def test_subsets_plan_each_bones_partner_and_evaluate_bit_for_bit():
    binding = bound(mirrored_pose_graph())
    inst = GraphInstance(binding)
    inst.set_pose(0, random_pose(humanoid(), np.random.default_rng(4)))
    inst.update(0.1)
    full = evaluated(inst)
    m = mirror_map()
    for listed in ([bone("hand_l")], [bone("toe_r"), bone("face2")], [bone("spine1")]):
        plan = GraphSubset(binding, sorted(listed))
        for b in plan.bones:
            assert m.partner(int(b)) in plan.bones
        assert bone("hand_r") in GraphSubset(binding, [bone("hand_l")]).bones
        out = rt.Pose(humanoid())
        inst.evaluate_subset(plan, out)
        assert np.array_equal(bits(out)[plan.bones], bits(full)[plan.bones])


def test_json_form_of_a_mirror_node_is_a_fixed_point():
    src = GraphSource(humanoid(), [ClipNode(0), MirrorNode(0)], 1, [], slots("a"),
                      mirror_map=mirror_map())
    text = write_text(src)
    assert '"kind": "mirror"' in text
    assets = GraphNamedAssets(humanoid(), list(standard_clips().items()), mirror_map=mirror_map())
    again = read_text(text, assets)
    assert write_text(again) == text and build(again) == build(src)
    with pytest.raises(rt.InvalidError) as e:          # a text read without the host's map
        build(read_text(text, GraphNamedAssets(humanoid(), list(standard_clips().items()))))
    assert e.value.reason == R.MirrorGraph
