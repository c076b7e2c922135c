"""Every refusal the glTF half of import.h lists, with its reason, byte offset and item; and
a fuzz of the open (mutated JSON, and GLB with its lengths kept consistent) that only ever
raises the spec's errors, then builds whatever opened."""
import copy
import json
import struct
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.clip.rootmotion import RootMotionSource
from runtime.core.builder import BuilderDef, default_builder_def
from runtime.core.errors import (BuildReason, BusyError, CapacityError, FormatError,
                                 InvalidError, ManiError)
from runtime.importers.common import ImportClipOptions, ImportFormatError, ImportReason as R
from runtime.importers.gltf import GltfOptions, open_gltf

from gltf_make import glb, rig
from gltf_reference import GLTF

OPTIONS = GltfOptions()


def _refused(reason, fn, *args, offset=None, item=None) -> ImportFormatError:
    with pytest.raises(ImportFormatError) as info:
        fn(*args)
    e = info.value
    assert e.import_reason == reason, e
    if offset is not None:
        assert e.offset == offset, e
    if item is not None:
        assert e.item == item, e
    return e


def _open(data):
    return open_gltf(rt.Builder(), data)


def _text(d) -> bytes:
    return d.json_bytes()


def _at(text: bytes, needle: bytes, nth: int = 0) -> int:
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at


def _built(fn, *args):
    b = rt.Builder()
    fn(b, *args)
    return capi.maniBuilder_CopyBuilt(b)


@pytest.fixture(scope="module")
def doc():
    return _open(rig().json_bytes())


@pytest.fixture(scope="module")
def skeleton(doc):
    return rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, OPTIONS))


# ---- the open -----------------------------------------------------------------------------
def test_open_refuses_null_arguments():
    with pytest.raises(InvalidError):
        capi.maniOpenGltf(None, rig().json_bytes())
    with pytest.raises(InvalidError):
        capi.maniOpenGltf(rt.Builder(), None)


def test_glb_container_and_version():
    data = bytearray(rig().glb_bytes())
    _refused(R.Container, _open, bytes(data[:10]), offset=10)
    bad = data.copy()
    struct.pack_into("<I", bad, 8, len(data) + 4)
    _refused(R.Container, _open, bytes(bad), offset=8)
    bad = data.copy()
    struct.pack_into("<I", bad, 16, 0x12345678)
    _refused(R.Container, _open, bytes(bad), offset=16)
    bad = data.copy()
    struct.pack_into("<I", bad, 4, 1)
    _refused(R.Version, _open, bytes(bad), offset=4)
    bad = data.copy()
    struct.pack_into("<I", bad, 12, len(data))
    _refused(R.Container, _open, bytes(bad), offset=12)


def test_asset_version_and_syntax_at_their_bytes():
    d = rig()
    d.j["asset"] = {"version": "3.0"}
    text = _text(d)
    _refused(R.Version, _open, text, offset=_at(text, b'{"version": "3.0"'))
    d.j["asset"] = {"version": "2.0", "minVersion": "2.1"}
    _refused(R.Version, _open, _text(d))
    _refused(R.Syntax, _open, b'{"asset": }', offset=10)
    _refused(R.Syntax, _open, b'{"asset": {"version": "2.0", "x": "\xff"}}', offset=35)
    _refused(R.Syntax, _open, b"[" * 10000 + b"]" * 10000)
    # the offset counts bytes, not characters: two 2-byte characters before the fault
    _refused(R.Syntax, _open, '{"é": "é", }'.encode(), offset=13)
    text = rig().glb_bytes()                # in a GLB, from the file's start
    n = struct.unpack_from("<I", text, 12)[0]
    broken = glb(text[20:20 + n].replace(b'"asset"', b'"asset" :: ', 1), None)
    _refused(R.Syntax, _open, broken, offset=_at(broken, b"::") + 1)


def test_required_extension_names_its_place():
    d = rig()
    d.j["extensionsRequired"] = ["KHR_mesh_quantization", "EXT_who_knows"]
    text = _text(d)
    _refused(R.Extension, _open, text, offset=_at(text, b'["KHR_mesh_quantization"'), item=1)


def test_buffers_views_and_accessors():
    d = rig()
    d.j["buffers"][0]["byteLength"] = 0
    _refused(R.Buffer, _open, _text(d), item=1)
    text = bytearray(_text(rig()))           # a data: URI shorter than its byteLength
    short = text.replace(b'"byteLength": ', b'"byteLength": 9', 1)
    _refused(R.Buffer, _open, bytes(short), item=0)
    d = rig()
    d.j["bufferViews"][3]["byteLength"] = 10 ** 6
    text = _text(d)
    _refused(R.View, _open, text, item=3, offset=_at(text, b'{"buffer": 0', 3))
    d = rig()
    d.j["accessors"][2]["count"] = 4
    text = _text(d)
    _refused(R.Accessor, _open, text, item=2, offset=_at(text, b'{"bufferView": 2'))
    d = rig()
    d.j["accessors"][1]["componentType"] = 5124
    _refused(R.Accessor, _open, _text(d), item=1)
    d = rig()
    d.j["accessors"][0]["normalized"] = True          # floats are never normalized
    _refused(R.Accessor, _open, _text(d), item=0)


def test_nodes_and_skins_checked_at_the_open():
    d = rig()
    d.j["nodes"][2]["children"] = [9]
    _refused(R.Index, _open, _text(d), item=2)
    d = rig()
    d.j["nodes"][2]["children"] = [1]                  # a loop: arm and hand
    _refused(R.Property, _open, _text(d))
    d = rig()
    d.j["nodes"][3]["children"] = [2]                  # hand has two parents
    _refused(R.Property, _open, _text(d), item=2)
    d = rig()
    d.j["skins"][0]["joints"] = [0, 7]
    _refused(R.Index, _open, _text(d), item=0)


def test_capacity_and_busy_through_the_builders_allocator():
    calls = []

    def alloc(user, size):
        calls.append(size)
        return bytearray(size) if len(calls) == 1 else None
    b = rt.Builder(BuilderDef(default_builder_def().cookie, alloc=alloc, free=lambda u, x: None))
    with pytest.raises(CapacityError):
        open_gltf(b, rig().json_bytes())
    seen = []

    def hook(user, size):
        if builder_box:
            for fn in (lambda: open_gltf(builder_box[0], rig().json_bytes()),
                       lambda: doc_box[0].supply_buffer(1, b"abcd"),
                       lambda: capi.maniGltf_ReadSprings(doc_box[0], sk_box[0], OPTIONS)):
                try:
                    fn()
                except BusyError:
                    seen.append("busy")
        return bytearray(size)
    builder_box, doc_box, sk_box = [], [], []
    b = rt.Builder(BuilderDef(default_builder_def().cookie, alloc=hook, free=lambda u, x: None))
    doc = open_gltf(b, rig().json_bytes())
    sk = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, OPTIONS))
    builder_box.append(b), doc_box.append(doc), sk_box.append(sk)
    misuse = b.misuse
    open_gltf(b, rig().json_bytes())
    assert seen == ["busy"] * 3 and b.misuse == misuse + 3


def test_close_empties_the_document_and_from_the_hooks_closes_nothing():
    freed = []
    box = []

    def free(user, block):
        freed.append(capi.maniGltf_GetNodeCount(box[0]))
        capi.maniCloseGltf(box[0])                   # called back in: nothing, one misuse
    b = rt.Builder(BuilderDef(default_builder_def().cookie, alloc=lambda u, n: bytearray(n),
                              free=free))
    doc = open_gltf(b, rig().json_bytes())
    box.append(doc)
    capi.maniCloseGltf(doc)
    assert freed == [0] and b.misuse == 1
    assert capi.maniGltf_GetNodeCount(doc) == 0 and capi.maniGltf_GetNodeBoneName(doc, 0) is None
    capi.maniCloseGltf(None)


# ---- external buffers and codecs ------------------------------------------------------------
def _external():
    """The rig with its data in an external buffer."""
    d = rig()
    text = json.loads(d.json_bytes())
    blob = bytes(d.blob)
    text["buffers"][0] = {"byteLength": len(blob), "uri": "rig data.bin"}
    return json.dumps(text).encode(), blob


def test_external_buffers_wait_for_their_bytes():
    text, blob = _external()
    doc = _open(text)
    assert capi.maniGltf_GetBufferUri(doc, 0) == "rig data.bin"
    assert capi.maniGltf_GetBufferUri(doc, 2) is None
    _refused(R.Pending, capi.maniBuildGltfSkin, rt.Builder(), doc, 0,
             rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, OPTIONS)), OPTIONS,
             item=0)
    _refused(R.Pending, capi.maniBuildGltfMorphTargets, rt.Builder(), doc, 0, 0, OPTIONS)
    _refused(R.Buffer, capi.maniGltf_SupplyBuffer, doc, 0, blob[:-1], item=0,
             offset=len(blob) - 1)
    with pytest.raises(InvalidError):
        capi.maniGltf_SupplyBuffer(doc, 5, blob)
    capi.maniGltf_SupplyBuffer(doc, 0, blob + b"past the end")
    _built(capi.maniBuildGltfMorphTargets, doc, 0, 0, OPTIONS)
    inline = _open(rig().json_bytes())
    with pytest.raises(InvalidError):               # a data: buffer is not external
        capi.maniGltf_SupplyBuffer(inline, 0, blob)


def test_meshopt_stream_refused_is_data_at_its_offset():
    path = GLTF / "BoxMeshopt" / "BoxMeshopt.glb"
    if not path.is_file():
        pytest.skip(f"{path} is not staged")
    data = bytearray(path.read_bytes())
    n = struct.unpack_from("<I", data, 12)[0]
    j = json.loads(data[20:20 + n])
    stream = j["bufferViews"][1]["extensions"]["EXT_meshopt_compression"]
    start = 20 + n + 8 + stream["byteOffset"]
    data[start:start + stream["byteLength"]] = b"\x00" * stream["byteLength"]
    _refused(R.Data, _open, bytes(data), item=1, offset=stream["byteOffset"])


def test_draco_refusals():
    path = GLTF / "BoxDraco" / "BoxDraco.glb"
    if not path.is_file():
        pytest.skip(f"{path} is not staged")
    from runtime.importers.gltf.mesh import primitive_attributes
    raw = path.read_bytes()
    n = struct.unpack_from("<I", raw, 12)[0]
    j = json.loads(raw[20:20 + n])
    rest = raw[20 + n:]
    prim = j["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"]

    def variant(change, binary=None):
        jj = copy.deepcopy(j)
        change(jj)
        out = glb(json.dumps(jj).encode(), None)
        body = rest if binary is None else binary
        return out[:8] + struct.pack("<I", len(out) + len(body)) + out[12:] + body
    broken = bytearray(rest)
    broken[8:8 + 130] = b"\x07" * 130
    doc = _open(variant(lambda jj: None, bytes(broken)))
    _refused(R.Data, primitive_attributes, doc, 0, 0, ["POSITION"], {}, item=prim["bufferView"])
    doc = _open(variant(lambda jj: jj["meshes"][0]["primitives"][0]["extensions"][
        "KHR_draco_mesh_compression"]["attributes"].update(POSITION=9)))
    _refused(R.Property, primitive_attributes, doc, 0, 0, ["POSITION"], {}, item=0)
    doc = _open(variant(lambda jj: jj["accessors"][2].update(count=23)))
    _refused(R.Property, primitive_attributes, doc, 0, 0, ["POSITION"], {})


# ---- skeletons, skins, placements -----------------------------------------------------------
def test_skeleton_refusals(doc):
    for bad in (1, -1):
        with pytest.raises(InvalidError):
            capi.maniBuildGltfSkeleton(rt.Builder(), doc, bad, OPTIONS)
    for options in (GltfOptions(axes=(1, 1, 3)), GltfOptions(axes=(1, 2, -3)),
                    GltfOptions(unit=0.0), GltfOptions(unit=float("nan")), None):
        with pytest.raises(InvalidError):
            capi.maniBuildGltfSkeleton(rt.Builder(), doc, 0, options)
        with pytest.raises(InvalidError):
            capi.maniGltf_GetSkeletonPlacement(doc, 0, options)
    with pytest.raises(InvalidError):
        capi.maniBuildGltfNodeSkeleton(rt.Builder(), doc, 4, OPTIONS)
    d = rig()
    d.j["nodes"][1].pop("translation")
    d.j["nodes"][1]["matrix"] = [1, 0, 0, 0, 0.5, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]   # shear
    _refused(R.Matrix, capi.maniBuildGltfSkeleton, rt.Builder(), _open(_text(d)), 0, OPTIONS,
             item=1)
    d = rig()
    d.j["nodes"][1]["name"] = "\ud800"
    _refused(R.Build, capi.maniBuildGltfSkeleton, rt.Builder(), _open(_text(d)), 0, OPTIONS,
             item=int(BuildReason.Name))


def test_placement_refuses_a_matrix_above_the_root():
    d = rig()
    d.j["nodes"].append({"name": "top", "children": [0],
                         "matrix": [1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]})
    doc = _open(_text(d))
    _refused(R.Matrix, capi.maniGltf_GetSkeletonPlacement, doc, 0, OPTIONS, item=4)
    assert np.array_equal(capi.maniGltf_GetSkeletonPlacement(
        doc, 0, GltfOptions(fold_placement=True)), np.eye(4, dtype=np.float32)[:3])


def test_skin_refusals(doc, skeleton):
    with pytest.raises(InvalidError):
        capi.maniBuildGltfSkin(rt.Builder(), doc, 1, skeleton, OPTIONS)
    with pytest.raises(InvalidError):
        capi.maniBuildGltfSkin(rt.Builder(), doc, 0, skeleton, GltfOptions(unit=-1.0))
    hand = rt.Skeleton.open(_built(capi.maniBuildGltfNodeSkeleton, doc, 2, OPTIONS))
    _refused(R.Bone, capi.maniBuildGltfSkin, rt.Builder(), doc, 0, hand, OPTIONS, item=0)
    d = rig()
    d.j["skins"][0]["inverseBindMatrices"] = 0                # a VEC3 accessor
    _refused(R.Property, capi.maniBuildGltfSkin, rt.Builder(), _open(_text(d)), 0, skeleton,
             OPTIONS)


# ---- clips ---------------------------------------------------------------------------------
def test_clip_refusals(doc, skeleton):
    clip_options = ImportClipOptions()
    with pytest.raises(InvalidError):
        capi.maniBuildGltfClip(rt.Builder(), doc, 1, skeleton, OPTIONS, clip_options)
    for bad in (ImportClipOptions(sample_rate=-1.0), ImportClipOptions(loop=9),
                ImportClipOptions(root_motion=RootMotionSource(99)), None):
        with pytest.raises(InvalidError):
            capi.maniBuildGltfClip(rt.Builder(), doc, 0, skeleton, OPTIONS, bad)
    root = skeleton.find_bone("root")
    _refused(R.Build, capi.maniBuildGltfClip, rt.Builder(), doc, 0, skeleton, OPTIONS,
             ImportClipOptions(root_motion=RootMotionSource(root)),
             item=int(BuildReason.RootMotion))
    d = rig()
    d.add([0.0, 1.0, 0.5], "SCALAR")                         # keys not increasing
    d.j["animations"][0]["samplers"][1]["input"] = len(d.j["accessors"]) - 1
    _refused(R.Data, capi.maniBuildGltfClip, rt.Builder(), _open(_text(d)), 0, skeleton,
             OPTIONS, clip_options, item=1)
    d = rig()
    d.j["animations"][0]["channels"][0]["target"]["node"] = 8
    _refused(R.Index, capi.maniBuildGltfClip, rt.Builder(), _open(_text(d)), 0, skeleton,
             OPTIONS, clip_options, item=0)
    d = rig()
    d.j["animations"][0]["samplers"][0]["output"] = 0 + 6      # 3 keys, 3 values... of VEC3? no
    d.j["animations"][0]["samplers"][0]["output"] = 7        # the CUBICSPLINE VEC4 values
    _refused(R.Property, capi.maniBuildGltfClip, rt.Builder(), _open(_text(d)), 0, skeleton,
             OPTIONS, clip_options, item=0)


def test_pointer_channels_become_float_tracks(skeleton):
    d = rig()
    d.j["animations"][0]["channels"].append({"sampler": 0, "target": {
        "path": "pointer", "extensions": {"KHR_animation_pointer": {
            "pointer": "/materials/0/emissiveFactor"}}}})
    d.j["extensionsUsed"].append("KHR_animation_pointer")
    from runtime.clip.clip import Clip
    clip = Clip(_built(capi.maniBuildGltfClip, _open(_text(d)), 0, skeleton, OPTIONS,
                       ImportClipOptions()))
    names = {clip.float_track_name(k) for k in range(clip.float_track_count)}
    assert names == {"body/smile", "/materials/0/emissiveFactor/0",
                     "/materials/0/emissiveFactor/1", "/materials/0/emissiveFactor/2"}
    k = clip.find_float_track("/materials/0/emissiveFactor/1")
    assert clip.sample_floats(1.0)[k] == pytest.approx(1.5)


# ---- morph weights, influences, morph targets ------------------------------------------------
def test_morph_weights_refusals(doc):
    out = np.full(4, 7.0, np.float32)
    assert np.array_equal(capi.maniGltf_GetMorphWeights(doc, 3, out)[:1], [0.25])
    short = np.full(0, 7.0, np.float32)
    with pytest.raises(CapacityError) as info:
        capi.maniGltf_GetMorphWeights(doc, 3, short)
    assert info.value.count == 1
    for node in (0, 9):             # no mesh; past the count
        with pytest.raises(InvalidError):
            capi.maniGltf_GetMorphWeights(doc, node)
    d = rig()
    d.j["nodes"][3]["weights"] = [0.5, 0.5]
    _refused(R.Property, capi.maniGltf_GetMorphWeights, _open(_text(d)), 3, item=3)
    d = rig()
    d.j["meshes"][0]["primitives"][0].pop("targets")
    with pytest.raises(InvalidError):
        capi.maniGltf_GetMorphWeights(_open(_text(d)), 3)


def test_morph_weights_capacity_zeroes_what_it_holds():
    d = rig()
    d.j["meshes"][0]["primitives"][0]["targets"] *= 2
    d.j["meshes"][0]["extras"]["targetNames"] = ["a", "b"]
    d.j["nodes"][3]["weights"] = [0.25, 0.5]
    doc = _open(_text(d))
    out = np.full(1, 7.0, np.float32)
    with pytest.raises(CapacityError) as info:
        capi.maniGltf_GetMorphWeights(doc, 3, out)
    assert info.value.count == 2 and out[0] == 0


def test_influence_refusals(doc, skeleton):
    skin = capi.maniOpenSkin(_built(capi.maniBuildGltfSkin, doc, 0, skeleton, OPTIONS))
    for mesh, prim in ((1, 0), (0, 1)):
        with pytest.raises(InvalidError):
            capi.maniBuildGltfInfluences(rt.Builder(), doc, mesh, prim, skin)

    def variant(change):
        d = rig()
        change(d)
        return _open(_text(d))
    attrs = lambda d: d.j["meshes"][0]["primitives"][0]["attributes"]   # noqa: E731
    _refused(R.Property, capi.maniBuildGltfInfluences, rt.Builder(),
             variant(lambda d: attrs(d).pop("JOINTS_0")), 0, 0, skin)
    _refused(R.Property, capi.maniBuildGltfInfluences, rt.Builder(),
             variant(lambda d: attrs(d).update(JOINTS_1=1)), 0, 0, skin)
    _refused(R.Property, capi.maniBuildGltfInfluences, rt.Builder(),
             variant(lambda d: attrs(d).update(WEIGHTS_0=0)), 0, 0, skin)
    _refused(R.Property, capi.maniBuildGltfInfluences, rt.Builder(),
             variant(lambda d: attrs(d).update(WEIGHTS_0=d.add(
                 [[128, 127, 0, 0], [255, 0, 0, 0], [255, 0, 0, 0]], "VEC4", 5121, "u1"))),
             0, 0, skin)
    quantized = variant(lambda d: attrs(d).update(WEIGHTS_0=d.add(
        [[128, 127, 0, 0], [255, 0, 0, 0], [255, 0, 0, 0]], "VEC4", 5121, "u1",
        normalized=True)))
    Influences = rt.Influences
    infl = Influences(_built(capi.maniBuildGltfInfluences, quantized, 0, 0, skin))
    assert infl.vertex_count == 3
    negative = variant(lambda d: attrs(d).update(WEIGHTS_0=d.add(
        [[0.5, 0.5, 0, 0], [1.5, -0.5, 0, 0], [1, 0, 0, 0]], "VEC4")))
    _refused(R.Influence, capi.maniBuildGltfInfluences, rt.Builder(), negative, 0, 0, skin,
             item=1)
    past = variant(lambda d: attrs(d).update(JOINTS_0=d.add(
        [[0, 1, 0, 0], [1, 9, 0, 0], [2, 0, 0, 0]], "VEC4", 5121, "u1")))
    _refused(R.Build, capi.maniBuildGltfInfluences, rt.Builder(), past, 0, 0, skin,
             item=int(BuildReason.Joint))


def test_morph_target_refusals(doc):
    with pytest.raises(InvalidError):
        capi.maniBuildGltfMorphTargets(rt.Builder(), doc, 0, 0, GltfOptions(axes=(3, 2, 1)))
    d = rig()
    d.j["meshes"][0]["primitives"][0].pop("targets")
    with pytest.raises(InvalidError):
        capi.maniBuildGltfMorphTargets(rt.Builder(), _open(_text(d)), 0, 0, OPTIONS)
    d = rig()
    d.j["meshes"][0]["primitives"][0]["targets"][0]["NORMAL"] = 3
    _refused(R.Property, capi.maniBuildGltfMorphTargets, rt.Builder(), _open(_text(d)), 0, 0,
             OPTIONS, item=0)
    d = rig()
    d.j["meshes"][0]["primitives"][0]["targets"][0]["POSITION"] = 4      # a MAT4 accessor
    _refused(R.Property, capi.maniBuildGltfMorphTargets, rt.Builder(), _open(_text(d)), 0, 0,
             OPTIONS)


def test_spring_refusals(skeleton):
    d = rig()
    d.j["extensions"]["VRMC_springBone"]["specVersion"] = "0.9"
    _refused(R.Version, capi.maniGltf_ReadSprings, _open(_text(d)), skeleton, OPTIONS)
    d = rig()
    d.j["extensions"]["VRMC_springBone"]["springs"][0]["joints"][0]["node"] = 3
    _refused(R.Bone, capi.maniGltf_ReadSprings, _open(_text(d)), skeleton, OPTIONS, item=0)
    d = rig()
    d.j["extensions"]["VRMC_springBone"]["springs"][0]["colliderGroups"] = [4]
    _refused(R.Index, capi.maniGltf_ReadSprings, _open(_text(d)), skeleton, OPTIONS, item=0)
    with pytest.raises(InvalidError):
        capi.maniGltf_ReadSprings(_open(_text(rig())), skeleton, GltfOptions(unit=0.0))


# ---- fuzz -----------------------------------------------------------------------------------
def _use(doc) -> None:
    """Everything a document offers, each refusal only a ManiError."""
    b = rt.Builder()
    for fn, args in ((capi.maniBuildGltfSkeleton, (0, OPTIONS)),
                     (capi.maniBuildGltfNodeSkeleton, (0, OPTIONS)),
                     (capi.maniBuildGltfMorphTargets, (0, 0, OPTIONS))):
        try:
            fn(b, doc, *args)
        except ManiError:
            pass
    try:
        capi.maniGltf_GetMorphWeights(doc, 3)
    except ManiError:
        pass
    try:
        sk = rt.Skeleton.open(_built(capi.maniBuildGltfSkeleton, doc, 0, OPTIONS))
    except ManiError:
        return
    for fn, args in ((capi.maniBuildGltfClip, (0, sk, OPTIONS, ImportClipOptions())),
                     (capi.maniBuildGltfSkin, (0, sk, OPTIONS))):
        try:
            fn(b, doc, *args)
        except ManiError:
            pass
    try:
        capi.maniGltf_ReadSprings(doc, sk, OPTIONS)
    except ManiError:
        pass


def _judge(data: bytes) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            doc = _open(data)
        except (FormatError, CapacityError):
            return
        _use(doc)


BASE = rig()
BASE_JSON = json.loads(BASE.json_bytes())
json_values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-3, 40),
                                     st.floats(allow_nan=False), st.text(max_size=6)),
                           lambda v: st.lists(v, max_size=4) | st.dictionaries(
                               st.text(max_size=6), v, max_size=3), max_leaves=8)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            if k != "uri":
                yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


PATHS = list(_paths(BASE_JSON))[1:]


@settings(max_examples=int(__import__("os").environ.get("GLTF_FUZZ", "300")), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(PATHS), json_values), min_size=1, max_size=3),
       st.booleans())
def test_fuzz_mutated_json_and_glb_raise_only_the_spec_errors(changes, as_glb):
    j = copy.deepcopy(BASE_JSON)
    if as_glb:
        j["buffers"][0].pop("uri")
    for path, value in changes:
        target = j
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    text = json.dumps(j).encode()
    _judge(glb(text, bytes(BASE.blob)) if as_glb else text)


@settings(max_examples=int(__import__("os").environ.get("GLTF_FUZZ", "300")), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 255)), min_size=1,
                max_size=8), st.integers(0, 10 ** 6), st.booleans())
def test_fuzz_byte_flips_and_cuts(flips, cut, as_glb):
    data = bytearray(BASE.glb_bytes() if as_glb else BASE.json_bytes())
    for at, value in flips:
        data[at % len(data)] = value
    if as_glb and cut % 3 == 0:              # a cut inside the JSON, lengths rewritten
        n = struct.unpack_from("<I", data, 12)[0]
        text = bytes(data[20:20 + n])
        data = bytearray(glb(text[:cut % (n + 1)], bytes(BASE.blob)))
    elif cut % 5 == 0:
        data = data[:cut % (len(data) + 1)]
    _judge(bytes(data))


def test_accessors_past_what_the_reader_holds():
    d = rig()
    d.j["accessors"].append({"componentType": 5126, "type": "MAT4", "count": 1 << 22})
    _refused(R.Accessor, _open, _text(d), item=len(d.j["accessors"]) - 1)
    d = rig()
    d.j["accessors"][0]["count"] = 2 ** 40
    _refused(R.Accessor, _open, _text(d), item=0)


def test_supplied_meshopt_streams_decode_or_leave_the_buffer_unsupplied():
    path = GLTF / "BoxMeshopt" / "BoxMeshopt.glb"
    if not path.is_file():
        pytest.skip(f"{path} is not staged")
    from runtime.importers.gltf.mesh import primitive_attributes
    raw = path.read_bytes()
    n = struct.unpack_from("<I", raw, 12)[0]
    j = json.loads(raw[20:20 + n])
    m = struct.unpack_from("<I", raw, 20 + n)[0]
    blob = raw[20 + n + 8:20 + n + 8 + m]
    j["buffers"][0]["uri"] = "box.bin"
    doc = _open(json.dumps(j).encode())
    assert capi.maniGltf_GetBufferUri(doc, 0) == "box.bin"
    _refused(R.Pending, primitive_attributes, doc, 0, 0, ["POSITION"], {})
    stream = j["bufferViews"][1]["extensions"]["EXT_meshopt_compression"]
    broken = bytearray(blob)
    broken[stream["byteOffset"]:stream["byteOffset"] + stream["byteLength"]] = \
        b"\x00" * stream["byteLength"]
    _refused(R.Data, capi.maniGltf_SupplyBuffer, doc, 0, bytes(broken), item=1,
             offset=stream["byteOffset"])
    for name in ("NORMAL", "POSITION"):     # still unsupplied, view 0 (decoded first) too
        _refused(R.Pending, primitive_attributes, doc, 0, 0, [name], {})
    capi.maniGltf_SupplyBuffer(doc, 0, blob)
    assert primitive_attributes(doc, 0, 0, ["POSITION"], {})["POSITION"].shape == (24, 3)
