"""glTF import against glTF's own rules, evaluated independently (tests/gltf_reference.py),
on the Khronos samples in ../shared/testdata/gltf and documents made in the test."""
import json

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.clip.clip import Clip
from runtime.deform.influences import Influences
from runtime.deform.morph import MorphTargets
from runtime.deform.skin import Skin, compute_palette
from runtime.deform.skinning import SkinJob, SkinStream, StreamKind, skin_linear
from runtime.importers.common import ImportClipOptions
from runtime.importers.gltf import GltfOptions, open_gltf
from runtime.importers.gltf.mesh import primitive_attributes

from gltf_make import rig
from gltf_reference import GLTF, Ref, sample, trs

TURNED = GltfOptions(axes=(1, -3, 2), unit=100.0)          # Z-up, centimetres


def _path(name: str):
    folder = GLTF / name
    if not folder.is_dir():
        pytest.skip(f"{folder} is not staged (the Khronos samples live in ../shared)")
    return next(p for p in sorted(folder.iterdir()) if p.suffix in (".gltf", ".glb"))


def _opened(name: str):
    path = _path(name)
    doc = open_gltf(rt.Builder(), path.read_bytes())
    for b in range(capi.maniGltf_GetBufferCount(doc)):
        uri = capi.maniGltf_GetBufferUri(doc, b)
        if uri is not None:
            capi.maniGltf_SupplyBuffer(doc, b, (path.parent / uri).read_bytes())
    return doc, Ref(path)


def _built(fn, *args):
    b = rt.Builder()
    fn(b, *args)
    return capi.maniBuilder_CopyBuilt(b)


def _turn4(options: GltfOptions) -> np.ndarray:
    c = np.eye(4)
    c[:3, :3] = options.turn * options.unit
    return c


# ---- skinned meshes ----------------------------------------------------------------------
SKINNED = [("CesiumMan", 0), ("Fox", 0), ("Fox", 1), ("Fox", 2), ("RiggedSimple", 0),
           ("SimpleSkin", 0)]


@pytest.mark.parametrize("options", [GltfOptions(), GltfOptions(TURNED.axes, TURNED.unit, True)],
                         ids=["glTF basis", "Z-up cm folded"])
@pytest.mark.parametrize("name, animation", SKINNED)
def test_skinned_vertices_match_gltf_evaluated_independently(name, animation, options):
    doc, ref = _opened(name)
    sk = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, options))
    skin = Skin(_built(capi.maniBuildGltfSkin, doc, 0, sk, options))
    node = next(i for i, n in enumerate(ref.nodes) if n.get("skin") == 0 and "mesh" in n)
    mesh = ref.nodes[node]["mesh"]
    assert capi.maniGltf_GetNodeSkin(doc, node) == 0
    assert capi.maniGltf_GetNodeMesh(doc, node) == mesh
    infl = Influences(_built(capi.maniBuildGltfInfluences, doc, mesh, 0, skin))
    pos = ref.accessor(ref.j["meshes"][mesh]["primitives"][0]["attributes"]["POSITION"])
    turned = (pos @ (options.turn * options.unit).T).astype(np.float32)
    size = float(np.ptp(pos, axis=0).max())
    c = _turn4(options)
    placement = np.vstack([capi.maniGltf_GetSkeletonPlacement(doc, 0, options), [0, 0, 0, 1]])
    if options.fold_placement:
        assert np.array_equal(placement, np.eye(4))
    clip = Clip(_built(capi.maniBuildGltfClip, doc, animation, sk, options,
                       ImportClipOptions(sample_rate=0)))
    times = np.arange(clip.sample_count) / clip.sample_rate
    times[-1] = clip.duration
    assert len(times) >= 10
    for t in times[:: max(1, len(times) // 12)]:
        pose = rt.Pose(sk)
        clip.sample(sk, float(t), pose)
        pose.compute_model(sk)
        out = np.zeros_like(turned)
        skin_linear(SkinJob(infl, compute_palette(pose, sk, skin), None,
                            [SkinStream(StreamKind.position, turned, out)]))
        got = out @ placement[:3, :3].T + placement[:3, 3]
        want = ref.skinned(mesh, 0, ref.posed(animation, float(t)))
        want = want @ c[:3, :3].T
        assert np.abs(got - want).max() <= 1e-5 * size * options.unit, (name, t)


def test_fox_has_three_named_clips_ending_at_their_latest_key():
    doc, ref = _opened("Fox")
    assert [capi.maniGltf_GetAnimationName(doc, a) for a in range(3)] == ["Survey", "Walk", "Run"]
    sk = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, GltfOptions()))
    for a in range(3):
        clip = Clip(_built(capi.maniBuildGltfClip, doc, a, sk, GltfOptions(),
                           ImportClipOptions()))
        latest = max(ref.accessor(s["input"]).max() for s in ref.j["animations"][a]["samplers"])
        assert clip.duration == pytest.approx(latest, rel=1e-6)


# ---- clips -----------------------------------------------------------------------------
def _channel_check(doc, ref, animation, options=GltfOptions()):
    """Every T/R/S channel's bone local at the clip's grid times equals the reference
    sampler's value there (quaternions up to sign)."""
    sk = rt.Skeleton.open(_built(capi.maniBuildGltfNodeSkeleton, doc, 0, options)) \
        if not ref.j.get("skins") else \
        rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, options))
    clip = Clip(_built(capi.maniBuildGltfClip, doc, animation, sk, options, ImportClipOptions()))
    anim = ref.j["animations"][animation]
    times = np.arange(clip.sample_count) / clip.sample_rate
    times[-1] = clip.duration
    checked = 0
    for t in times:
        pose = rt.Pose(sk)
        clip.sample(sk, float(t), pose)
        for ch in anim["channels"]:
            path = ch["target"]["path"]
            bone = sk.find_bone(capi.maniGltf_GetNodeBoneName(doc, ch["target"]["node"]))
            if path == "weights" or bone == capi.MANI_NO_BONE:
                continue
            s = anim["samplers"][ch["sampler"]]
            want = sample(ref.accessor(s["input"])[:, 0], ref.accessor(s["output"]),
                          s.get("interpolation", "LINEAR"), float(t), path == "rotation")
            local = np.asarray(pose.get_local(bone), dtype=np.float64)
            got = {"translation": local[0:3], "rotation": local[3:7], "scale": local[7:10]}[path]
            if path == "rotation" and got @ want < 0:
                got = -got
            assert np.abs(got - want).max() < 1e-5, (path, t)
            checked += 1
    return clip, checked


def test_animated_triangle_rotation():
    doc, ref = _opened("AnimatedTriangle")
    clip, checked = _channel_check(doc, ref, 0)
    assert checked > 10 and clip.duration == pytest.approx(1.0)


def test_box_animated_channels_of_different_lengths_share_one_clock():
    doc, ref = _opened("BoxAnimated")
    anim = ref.j["animations"][0]
    ends = {float(ref.accessor(s["input"]).max()) for s in anim["samplers"]}
    assert len(ends) > 1                    # the sample's point: channels end apart
    sk = rt.Skeleton.open(_built(capi.maniBuildGltfNodeSkeleton, doc, 0, GltfOptions()))
    clip = Clip(_built(capi.maniBuildGltfClip, doc, 0, sk, GltfOptions(), ImportClipOptions()))
    assert clip.duration == pytest.approx(max(ends))
    _channel_check(doc, ref, 0)


def test_every_interpolation_against_a_plain_reference():
    """The rig's LINEAR translation, CUBICSPLINE rotation and STEP morph weight."""
    data = rig().json_bytes()
    doc = open_gltf(rt.Builder(), data)
    ref = Ref.__new__(Ref)
    ref.j = json.loads(data)
    import base64
    ref.buffers = [base64.b64decode(ref.j["buffers"][0]["uri"].split(",", 1)[1]), None]
    ref.nodes = ref.j["nodes"]
    ref.parent = {c: i for i, n in enumerate(ref.nodes) for c in n.get("children", [])}
    clip, checked = _channel_check(doc, ref, 0)
    assert checked >= 2 * clip.sample_count
    track = clip.find_float_track("body/smile")
    s = ref.j["animations"][0]["samplers"][2]
    for t in np.arange(clip.sample_count) / clip.sample_rate:
        want = sample(ref.accessor(s["input"])[:, 0], ref.accessor(s["output"]), "STEP", t)
        assert clip.sample_floats(float(t))[track] == pytest.approx(want[0])
    assert clip.float_track_is_step(track)


# ---- morph targets ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["AnimatedMorphCube", "SimpleMorph", "MorphPrimitivesTest"])
def test_morph_targets_equal_their_accessors(name):
    doc, ref = _opened(name)
    for m, mesh in enumerate(ref.j["meshes"]):
        for p, prim in enumerate(mesh["primitives"]):
            if not prim.get("targets"):
                continue
            assert capi.maniGltf_GetPrimitiveTargetCount(doc, m, p) == len(prim["targets"])
            targets = MorphTargets(_built(capi.maniBuildGltfMorphTargets, doc, m, p,
                                          GltfOptions()))
            n = ref.j["accessors"][prim["attributes"]["POSITION"]]["count"]
            for t, target in enumerate(prim["targets"]):
                for a in range(targets.attribute_count):
                    semantic, _ = targets.attribute(a)
                    key = ["POSITION", "NORMAL", "TANGENT"][semantic] if semantic < 3 else None
                    if key not in target:
                        continue
                    want = ref.accessor(target[key])
                    dense = np.zeros((n, 3))
                    rows = targets.target_indices(t)
                    deltas = targets.target_deltas(t, a)
                    dense[np.arange(n) if rows is None else rows] = deltas
                    assert np.abs(dense - want).max() < 1e-6
    for node, obj in enumerate(ref.nodes):
        if "mesh" in obj and ref.j["meshes"][obj["mesh"]]["primitives"][0].get("targets"):
            want = obj.get("weights", ref.j["meshes"][obj["mesh"]].get("weights"))
            want = want or [0.0] * len(ref.j["meshes"][obj["mesh"]]["primitives"][0]["targets"])
            assert np.allclose(capi.maniGltf_GetMorphWeights(doc, node), want)


def test_morph_primitives_test_takes_its_mesh_default_weights():
    doc, ref = _opened("MorphPrimitivesTest")
    node = next(i for i, n in enumerate(ref.nodes) if "mesh" in n)
    assert "weights" not in ref.nodes[node]
    assert np.allclose(capi.maniGltf_GetMorphWeights(doc, node),
                       ref.j["meshes"][ref.nodes[node]["mesh"]]["weights"])


def test_morph_targets_turn_into_the_output_basis_and_name_by_target_names():
    doc = open_gltf(rt.Builder(), rig().json_bytes())
    t = MorphTargets(_built(capi.maniBuildGltfMorphTargets, doc, 0, 0, TURNED))
    assert t.channel_name(0) == "smile"
    assert np.array_equal(t.target_indices(0), [1, 2])          # vertex 0 does not move
    want = np.array([[0.1, 0, 0], [0, 0, 0.2]]) @ (TURNED.turn * 100).T
    assert np.allclose(t.target_deltas(0, 0), want)


# ---- accessors and codecs -----------------------------------------------------------------
def test_sparse_accessor_substitutes_its_values():
    doc, ref = _opened("SimpleSparseAccessor")
    a = next(i for i, acc in enumerate(ref.j["accessors"]) if "sparse" in acc)
    got = doc.read(a, "test", 0, 0)
    assert np.array_equal(got, ref.accessor(a))
    plain = ref.j["accessors"][a].copy()
    plain.pop("sparse")
    ref.j["accessors"].append(plain)
    assert not np.array_equal(got, ref.accessor(len(ref.j["accessors"]) - 1))


BOX = {(tuple(p), tuple(n)) for n in np.vstack([np.eye(3), -np.eye(3)])
       for p in np.array(np.meshgrid([-0.5, 0.5], [-0.5, 0.5], [-0.5, 0.5])).T.reshape(-1, 3)
       if p @ n == 0.5}


@pytest.mark.parametrize("name", ["BoxDraco", "BoxMeshopt"])
def test_compressed_boxes_decode_to_the_box(name):
    """Draco's stream and meshopt's quantized views, placed by their nodes, give the
    plain Box's 24 corners with their face normals."""
    doc, ref = _opened(name)
    node = next(i for i, n in enumerate(ref.nodes) if "mesh" in n)
    world = ref.world(ref.rest())[node]
    got = primitive_attributes(doc, ref.nodes[node]["mesh"], 0, ["POSITION", "NORMAL"], {})
    points = got["POSITION"] @ world[:3, :3].T + world[:3, 3]
    normals = got["NORMAL"] @ np.linalg.inv(world[:3, :3])
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    pairs = {(tuple(np.round(p, 4) + 0.0), tuple(np.round(n, 4) + 0.0))
             for p, n in zip(points, normals)}
    assert len(BOX) == 24 and pairs == BOX
    indices = ref.j["meshes"][ref.nodes[node]["mesh"]]["primitives"][0]["indices"]
    if ref.j["accessors"][indices].get("bufferView") is not None:      # meshopt's TRIANGLES
        faces = doc.read(indices, "indices", 0, 0, integer=True).reshape(-1, 3)
        assert faces.shape == (12, 3) and set(faces.reshape(-1).tolist()) == set(range(24))
        corners = np.round(points[faces], 4)        # each triangle on one side of the box
        assert all((np.abs(c[:, k]) == 0.5).all() and np.ptp(c[:, k]) == 0
                   for c in corners for k in [np.flatnonzero(np.ptp(c, axis=0) == 0)[0]])


# ---- names ----------------------------------------------------------------------------------
def test_unnamed_and_repeated_nodes_get_the_spec_names_and_renamed_list():
    d = rig()
    d.j["nodes"] = [{"children": [1, 2, 3, 4]}, {"name": "hip"}, {"name": "hip"}, {},
                    {"name": "hip#2"}]
    d.j.pop("skins"), d.j.pop("animations"), d.j.pop("meshes"), d.j.pop("extensions")
    doc = open_gltf(rt.Builder(), d.json_bytes())
    names = [capi.maniGltf_GetNodeBoneName(doc, i) for i in range(5)]
    assert names == ["#0", "hip", "hip#2", "#3", "hip#2#4"]
    renamed = [capi.maniGltf_GetRenamedNode(doc, i)
               for i in range(capi.maniGltf_GetRenamedCount(doc))]
    assert renamed == [0, 2, 3, 4]
    assert capi.maniGltf_GetRenamedNode(doc, 4) == 0xFFFFFFFF
    sk = rt.Skeleton.open(_built(capi.maniBuildGltfNodeSkeleton, doc, 0, GltfOptions()))
    assert [sk.bone_name(b) for b in range(5)] == names


def test_skins_sharing_nodes_make_one_skeleton_numbered_by_the_lowest_skin():
    d = rig()
    d.j["nodes"].append({"name": "other", "children": [5]})
    d.j["nodes"].append({"name": "leaf"})
    d.j["skins"] = [{"joints": [5]}, {"joints": [1]}, {"joints": [2, 0]}]
    doc = open_gltf(rt.Builder(), d.json_bytes())
    assert capi.maniGltf_GetSkeletonCount(doc) == 2
    assert [capi.maniGltf_GetSkinSkeleton(doc, k) for k in range(3)] == [0, 1, 1]
    sk = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 1, GltfOptions()))
    assert {sk.bone_name(b) for b in range(sk.bone_count)} == {"root", "arm", "hand"}
    sk0 = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, GltfOptions()))
    assert sk0.bone_count == 1 and sk0.bone_name(0) == "leaf"


def test_common_root_and_nodes_between_join_the_skeleton_and_placement_is_above_it():
    d = rig()
    d.j["nodes"][0]["translation"] = [5, 0, 0]
    d.j["nodes"] = [{"name": "world", "children": [1], "scale": [2, 2, 2]}] + [
        {**n, "children": [c + 1 for c in n.get("children", [])]} for n in d.j["nodes"]]
    d.j["nodes"][4]["skin"] = 0
    d.j["skins"] = [{"joints": [3]}]
    d.j.pop("animations"), d.j.pop("extensions")
    doc = open_gltf(rt.Builder(), d.json_bytes())
    sk = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, GltfOptions()))
    assert [sk.bone_name(b) for b in range(sk.bone_count)] == ["hand"]
    d.j["skins"] = [{"joints": [3, 4]}]       # hand and body: root, the common root, joins
    doc = open_gltf(rt.Builder(), d.json_bytes())
    sk = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, GltfOptions()))
    assert [sk.bone_name(b) for b in range(sk.bone_count)] == ["root", "arm", "hand", "body"]
    placement = capi.maniGltf_GetSkeletonPlacement(doc, 0, GltfOptions())
    assert np.allclose(placement, np.diag([2.0, 2, 2, 1])[:3])
    folded = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0,
                                     GltfOptions(fold_placement=True)))
    assert np.allclose(folded.rest(0), [10, 0, 0, 0, 0, 0, 1, 2, 2, 2])


def test_skin_without_inverse_binds_takes_identity():
    d = rig()
    d.j["skins"][0].pop("inverseBindMatrices")
    doc = open_gltf(rt.Builder(), d.json_bytes())
    sk = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, GltfOptions()))
    skin = Skin(_built(capi.maniBuildGltfSkin, doc, 0, sk, GltfOptions()))
    assert all(np.array_equal(skin.inverse_bind(j), np.eye(4)[:3]) for j in range(3))


def test_springs_of_vrmc_spring_bone():
    path = GLTF.parent / "vrm" / "three-vrm-springbone" / "sphere-collider.gltf"
    if not path.is_file():
        pytest.skip(f"{path} is not staged")
    doc = open_gltf(rt.Builder(), path.read_bytes())
    ref = json.loads(path.read_text())["extensions"]["VRMC_springBone"]
    d = rig()       # a skeleton of the file's nodes: two node skeletons side by side
    src = [capi.maniGltf_GetNodeBoneName(doc, i) for i in range(capi.maniGltf_GetNodeCount(doc))]
    from runtime.importers.gltf.skeleton import node_skeleton_source
    source = node_skeleton_source(doc, 0, GltfOptions())
    extra = node_skeleton_source(doc, 5, GltfOptions()).bones
    source.bones += extra
    sk = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), source))
    springs = capi.maniGltf_ReadSprings(doc, sk, TURNED)
    assert len(springs.springs) == 1 and len(springs.springs[0].joints) == 5
    joint = springs.springs[0].joints[0]
    assert sk.bone_name(joint.bone) == src[0]
    assert joint.hit_radius == pytest.approx(100 * ref["springs"][0]["joints"][0]["hitRadius"])
    assert np.allclose(joint.gravity_dir, [0, 0, -1])          # -Y up turned into Z-up
    assert springs.colliders[0].radius == pytest.approx(50.0)
    assert springs.collider_groups == [[0]]
    _built(capi.maniBuildSpringSet, springs)
    del d


def test_extended_colliders_and_limits():
    d = rig()
    ext = d.j["extensions"]["VRMC_springBone"]
    ext["colliders"].append({"node": 0, "shape": {"sphere": {"radius": 1.0}}, "extensions": {
        "VRMC_springBone_extended_collider": {"specVersion": "1.0", "shape": {
            "plane": {"offset": [0, 1, 0], "normal": [0, 1, 0]}}}}})
    ext["colliders"].append({"node": 0, "shape": {"sphere": {"radius": 1.0}}, "extensions": {
        "VRMC_springBone_extended_collider": {"specVersion": "2.0", "shape": {
            "plane": {"normal": [0, 1, 0]}}}}})
    ext["colliders"].append({"node": 1, "shape": {"sphere": {"radius": 1.0}}, "extensions": {
        "VRMC_springBone_extended_collider": {"specVersion": "1.0", "shape": {
            "capsule": {"radius": 0.5, "tail": [0, 1, 0], "inside": True}}}}})
    ext["springs"][0]["joints"][1]["extensions"] = {"VRMC_springBone_limit": {
        "specVersion": "1.0", "hinge": {"angle": 1.0}}}           # a last joint's: ignored
    doc = open_gltf(rt.Builder(), d.json_bytes())
    sk = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, GltfOptions()))
    s = capi.maniGltf_ReadSprings(doc, sk, GltfOptions())
    from runtime.physics import ColliderShape, SpringLimitKind
    assert [c.shape for c in s.colliders] == [ColliderShape.sphere, ColliderShape.plane,
                                               ColliderShape.sphere, ColliderShape.inside_capsule]
    assert s.springs[0].joints[0].limit.kind == SpringLimitKind.cone
    assert s.springs[0].joints[0].limit.angle == 0.5
    assert s.springs[0].joints[1].limit is None
    _built(capi.maniBuildSpringSet, s)
    d.j.pop("extensions")
    empty = capi.maniGltf_ReadSprings(open_gltf(rt.Builder(), d.json_bytes()), sk, GltfOptions())
    assert empty.springs == [] and empty.colliders == []


def test_folded_placement_composes_into_the_root_channels():
    """A world node (moved, turned, scaled 2) above an animated root: the folded clip's
    root local is the world node's matrix times the root's, at every sample."""
    d = rig()
    half = np.sqrt(0.5)
    d.j["nodes"] = [{"name": "world", "children": [1], "translation": [1, 2, 3],
                     "rotation": [0, half, 0, half], "scale": [2, 2, 2]}] + [
        {**n, "children": [c + 1 for c in n.get("children", [])]} for n in d.j["nodes"]]
    d.j["skins"][0]["joints"] = [1, 2, 3]
    for ch in d.j["animations"][0]["channels"]:
        ch["target"]["node"] += 1
    d.j["animations"][0]["channels"][0]["target"]["node"] = 1          # the root moves
    d.j.pop("extensions")
    doc = open_gltf(rt.Builder(), d.json_bytes())
    ref = Ref.__new__(Ref)
    ref.j = json.loads(d.json_bytes())
    import base64
    ref.buffers = [base64.b64decode(ref.j["buffers"][0]["uri"].split(",", 1)[1]), None]
    options = GltfOptions(fold_placement=True)
    sk = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, options))
    clip = Clip(_built(capi.maniBuildGltfClip, doc, 0, sk, options, ImportClipOptions()))
    s = ref.j["animations"][0]["samplers"][0]
    world = trs(np.array([1.0, 2, 3]), np.array([0, half, 0, half]), np.full(3, 2.0))
    for t in np.arange(clip.sample_count) / clip.sample_rate:
        pose = rt.Pose(sk)
        clip.sample(sk, float(t), pose)
        local = np.asarray(pose.get_local(0), dtype=np.float64)
        want = world @ trs(sample(ref.accessor(s["input"])[:, 0], ref.accessor(s["output"]),
                                  "LINEAR", t), np.array([0, 0, 0, 1.0]), np.ones(3))
        got = trs(local[0:3], local[3:7], local[7:10])
        assert np.abs(got - want).max() < 1e-5


def test_quantized_rotations_read_as_normalized_shorts():
    """KHR_mesh_quantization: a rotation output of normalized int16 samples as its floats."""
    d = rig()
    q = np.array([[0, 0, 0, 1], [0, 0, np.sin(0.4), np.cos(0.4)], [0, 0, np.sin(0.8), np.cos(0.8)]])
    plain = d.add(q, "VEC4")
    short = d.add(np.round(q * 32767), "VEC4", 5122, "<i2", normalized=True)
    d.j["animations"][0]["samplers"][1].update(interpolation="LINEAR")
    clips = []
    for output in (plain, short):
        d.j["animations"][0]["samplers"][1]["output"] = output
        doc = open_gltf(rt.Builder(), d.json_bytes())
        sk = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, GltfOptions()))
        clips.append(Clip(_built(capi.maniBuildGltfClip, doc, 0, sk, GltfOptions(),
                                 ImportClipOptions())))
    for t in np.linspace(0, 1, 7):
        poses = []
        for clip in clips:
            pose = rt.Pose(sk)
            clip.sample(sk, float(t), pose)
            poses.append(np.asarray(pose.get_local(2), dtype=np.float64))
        assert np.abs(poses[0] - poses[1]).max() < 1e-4


def test_meshopt_fallback_buffers_are_never_read():
    d = rig()
    d.j["buffers"].append({"byteLength": 8, "uri": "fallback.bin", "extensions": {
        "EXT_meshopt_compression": {"fallback": True}}})
    doc = open_gltf(rt.Builder(), d.json_bytes())
    assert capi.maniGltf_GetBufferCount(doc) == 3
    assert capi.maniGltf_GetBufferUri(doc, 1) == "extra.bin"
    assert capi.maniGltf_GetBufferUri(doc, 2) is None
    with pytest.raises(rt.InvalidError):
        capi.maniGltf_SupplyBuffer(doc, 2, bytes(8))


def test_draco_influences_equal_the_plain_ones():
    """The rig's primitive Draco-compressed (joints and weights as generic attributes):
    its influences as the plain primitive's."""
    DracoPy = pytest.importorskip("DracoPy")
    d = rig()
    plain = open_gltf(rt.Builder(), d.json_bytes())
    sk = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, plain, 0, GltfOptions()))
    skin = Skin(_built(capi.maniBuildGltfSkin, plain, 0, sk, GltfOptions()))
    want = Influences(_built(capi.maniBuildGltfInfluences, plain, 0, 0, skin))
    stream = DracoPy.encode(np.array([[0, 0, 0], [0, 1, 0], [0, 2, 0.5]], np.float32),
                            faces=np.array([[0, 1, 2]], np.uint32), preserve_order=True,
                            generic_attributes={
                                0: np.array([[0, 1, 0, 0], [1, 2, 0, 0], [2, 0, 0, 0]], np.uint8),
                                1: np.array([[0.5, 0.5, 0, 0], [0.75, 0.25, 0, 0], [1, 0, 0, 0]],
                                            np.float32)})
    view = len(d.j["bufferViews"])
    d.add(np.frombuffer(stream, np.uint8), "SCALAR", 5121, "u1")
    for name, uid in (("JOINTS_0", 0), ("WEIGHTS_0", 1), ("POSITION", 2)):
        a = d.j["accessors"][d.j["meshes"][0]["primitives"][0]["attributes"][name]]
        a.pop("bufferView")
    d.j["meshes"][0]["primitives"][0]["extensions"] = {"KHR_draco_mesh_compression": {
        "bufferView": view, "attributes": {"JOINTS_0": 0, "WEIGHTS_0": 1, "POSITION": 2}}}
    doc = open_gltf(rt.Builder(), d.json_bytes())
    got = Influences(_built(capi.maniBuildGltfInfluences, doc, 0, 0, skin))
    for v in range(3):
        for s in range(2):
            assert got.influence(v, s) == want.influence(v, s)
