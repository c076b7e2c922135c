"""FBX import: the document's checks, the scene, FBX's transform rules against ufbx (run
in a subprocess) on the staged files and on files written here, skeletons and placements,
the refusals the spec names, and a fuzz of the open."""
import json
import math
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.core.builder import default_builder_def
from runtime.core.errors import CapacityError, InvalidError, ManiError
from runtime.importers.common import ImportFormatError, ImportReason
from runtime.importers.fbx import Axis, FbxOptions, default_fbx_options, open_fbx
from runtime.importers.fbx.scene import Scene
from runtime.importers.fbx.document import read_document
from runtime.importers.fbx.skin import control_points, skin_joints
from runtime.deform.influences import Influences
from runtime.importers.fbx.transform import evaluate, euler_matrix
from fbx_writer import ModelSpec, scene_nodes, scene_nodes_61, write_ascii, write_binary

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "testdata" / "fbx"
STAGED = sorted(SHARED.glob("*.fbx")) if SHARED.is_dir() else []
REFERENCE = Path(__file__).resolve().parent / "ufbx_reference.py"
try:
    import importlib.util
    HAVE_UFBX = importlib.util.find_spec("ufbx") is not None
except ImportError:           # pragma: no cover
    HAVE_UFBX = False

needs_shared = pytest.mark.skipif(not STAGED, reason="../shared/testdata/fbx is absent")
needs_ufbx = pytest.mark.skipif(not HAVE_UFBX, reason="the ufbx binding (test extra) is absent")


def ufbx_read(path, times=()) -> dict:
    run = subprocess.run([sys.executable, str(REFERENCE), str(path), *map(repr, times)],
                         capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    out["frame_weights"] = [frame.pop("\x00weights") for frame in out["frames"]]
    return out


def ufbx_skinned(path, times) -> list:
    """At each time, every mesh's [node name, whether local, vertex positions], skinned."""
    run = subprocess.run([sys.executable, str(REFERENCE), "--skinned", str(path),
                          *map(repr, times)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)["skinned"]


def ufbx_worlds(path) -> dict:
    return {k: np.array(v) for k, v in ufbx_read(path)["nodes"].items()}


def model_size(worlds) -> float:
    t = np.array([w[:3, 3] for w in worlds])
    return max(1.0, float(np.ptp(t, axis=0).max()) if len(t) else 1.0)


def opened(data):
    return open_fbx(rt.Builder(), data)


def file_options(fbx) -> FbxOptions:
    """The options that keep the file's own unit (so worlds compare with ufbx's)."""
    return FbxOptions(unit_meters=fbx.read_settings().unit_meters)


# ------------------------------------------------------------------ staged files
@needs_shared
@needs_ufbx
@pytest.mark.parametrize("path", STAGED, ids=lambda p: p.name)
def test_staged_worlds_equal_ufbx(path):
    ref = ufbx_worlds(path)
    scene = Scene(read_document(path.read_bytes()))
    ev = evaluate(scene)
    size = model_size(list(ref.values()))
    assert len(scene.models) == len(ref)
    for m, name in enumerate(scene.bone_names):
        assert np.abs(ev.world[m][:3] - ref[name.decode()]).max() <= 1e-5 * size, name


@needs_shared
@pytest.mark.parametrize("path", STAGED, ids=lambda p: p.name)
def test_staged_skeletons_compose_to_the_worlds(path):
    """Every bone a built skeleton gives a model composes (placement times rest models) to
    the model's world, helper bones included, in the options' unit."""
    fbx = opened(path.read_bytes())
    ev = evaluate(fbx._scene)
    opts = default_fbx_options()
    unit = fbx.read_settings().unit_meters
    for k in range(fbx.skeleton_count):
        b = rt.Builder()
        fbx.build_skeleton(b, k, opts)
        sk = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))
        pose = rt.Pose(sk)
        pose.set_rest(sk)
        pose.compute_model(sk)
        place = np.vstack([fbx.skeleton_placement(k, opts), [0, 0, 0, 1]]).astype(np.float64)
        for bone in range(sk.bone_count):
            name = sk.bone_name(bone).encode()
            if name.endswith(b"#unscaled"):
                continue
            m = fbx._scene.bone_names.index(name)
            model = np.vstack([pose.model[bone], [0, 0, 0, 1]]).astype(np.float64)
            want = ev.world[m].copy()
            want[:3, 3] *= unit
            size = max(1.0, np.abs(want[:3, 3]).max())
            assert np.abs((place @ model) - want).max() <= 1e-5 * size, name


@needs_shared
@needs_ufbx
@pytest.mark.parametrize("path", STAGED, ids=lambda p: p.name)
def test_staged_inverse_binds_equal_ufbx(path):
    """Each built skin's inverse binds are ufbx's geometry_to_bone, in the options' unit."""
    ref = ufbx_read(path)["skins"]
    fbx = opened(path.read_bytes())
    assert len(ref) == fbx.skin_count
    opts = default_fbx_options()
    unit = fbx.read_settings().unit_meters
    for k in range(fbx.skin_count):
        b = rt.Builder()
        fbx.build_skeleton(b, fbx.skin_skeleton(k), opts)
        sk = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))
        fbx.build_skin(b, k, sk, opts)
        skin = rt.Skin(bytes(capi.maniBuilder_CopyBuilt(b)))
        assert skin.joint_count == len(ref[k])
        for j, want in enumerate(ref[k]):
            want = np.array(want)
            want[:, 3] *= unit
            got = skin.inverse_bind(j).astype(np.float64)
            assert np.abs(got - want).max() <= 1e-5 * max(1.0, np.abs(want).max())


@needs_shared
def test_staged_influences_are_the_clusters_weights():
    """Every vertex's influences are its clusters' weights, normalized (an independent
    scalar reading of Indexes and Weights)."""
    for path in STAGED:
        fbx = opened(path.read_bytes())
        for k in range(fbx.skin_count):
            b = rt.Builder()
            fbx.build_skeleton(b, fbx.skin_skeleton(k), default_fbx_options())
            sk = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))
            fbx.build_skin(b, k, sk, default_fbx_options())
            skin = rt.Skin(bytes(capi.maniBuilder_CopyBuilt(b)))
            fbx.build_influences(b, k, skin)
            infl = Influences(bytes(capi.maniBuilder_CopyBuilt(b)))
            scene = fbx._scene
            want: dict = {}
            n = control_points(scene, k).record.child(b"Vertices").array().size // 3
            for j, (c, _m) in enumerate(skin_joints(scene, k)):
                rec = scene.objects[c].record
                if rec.child(b"Indexes") is None:
                    continue
                for i, w in zip(rec.child(b"Indexes").array(), rec.child(b"Weights").array()):
                    want.setdefault(int(i), {}).setdefault(j, 0.0)
                    want[int(i)][j] += w
            dense = np.zeros((n, skin.joint_count))
            for v, js in want.items():
                total = sum(js.values())
                for j, w in js.items():
                    dense[v, j] = w / total
            got = np.zeros_like(dense)
            for slot in range(infl.per_vertex):
                np.add.at(got, (np.arange(n), infl.joints[slot].astype(int)),
                          infl.weights[slot].astype(np.float64))
            assert np.abs(got - dense).max() < 1e-6, path.name


@needs_shared
def test_staged_scene_facts():
    fbx = opened((SHARED / "maya_game_sausage_7500_ascii_wiggle.fbx").read_bytes())
    assert fbx.version == 7500
    assert [fbx.model_bone_name(m) for m in range(fbx.model_count)] == \
        [b"pCube1", b"joint1", b"joint2", b"joint3", b"joint4"]
    assert fbx.skin_count == 1 and fbx.skeleton_count == 1
    assert fbx.skin_skeleton(0) == 0 and fbx.skin_model(0) == 0
    assert fbx.clip_count == 1 and fbx.clip_name(0) == b"wiggle"
    s = fbx.read_settings()
    assert (s.right, s.up, s.front, s.unit_meters) == (Axis.PositiveX, Axis.PositiveY,
                                                       Axis.PositiveZ, 0.01)
    six = opened((SHARED / "maya_game_sausage_6100_binary_wiggle.fbx").read_bytes())
    assert six.version == 6100 and six.clip_name(0) == b"wiggle" and six.skin_model(0) == 0


# ------------------------------------------------------------------ written files
ROT = (30.0, -45.0, 60.0)


def feature_models(order=0, inherit=(1, 1, 1)) -> list[ModelSpec]:
    """A chain of four models with pivots, offsets, pre/post rotation, geometric
    transforms, non-uniform scales and the given inheritance modes below the top."""
    base = {"Lcl Translation": (1.0, 2.0, 3.0), "Lcl Rotation": ROT,
            "Lcl Scaling": (2.0, 0.5, 1.5), "RotationOrder": order}
    return [
        ModelSpec("root", -1, {**base, "RotationPivot": (0.5, -0.25, 1.0),
                               "ScalingPivot": (-1.0, 0.5, 0.25), "RotationOffset": (0.1, 0.2, 0.3),
                               "ScalingOffset": (0.3, -0.2, 0.1), "PreRotation": (10.0, 20.0, 30.0),
                               "PostRotation": (-5.0, 15.0, 25.0), "RotationActive": 1}),
        ModelSpec("a", 0, {**base, "Lcl Translation": (0.0, 3.0, 0.0), "InheritType": inherit[0],
                           "GeometricTranslation": (1.0, 1.0, 1.0)}),
        ModelSpec("b", 1, {**base, "Lcl Translation": (2.0, 0.0, -1.0), "InheritType": inherit[1],
                           "Lcl Scaling": (1.0, 3.0, 0.5)}),
        ModelSpec("c", 2, {**base, "Lcl Translation": (0.0, 1.0, 1.0), "InheritType": inherit[2]}),
    ]


def check_against_ufbx(data: bytes):
    with tempfile.NamedTemporaryFile(suffix=".fbx", delete=False) as f:
        f.write(data)
    try:
        ref = ufbx_worlds(f.name)
    finally:
        Path(f.name).unlink()
    scene = Scene(read_document(data))
    ev = evaluate(scene)
    size = model_size(list(ref.values()))
    for m, name in enumerate(scene.bone_names):
        assert np.abs(ev.world[m][:3] - ref[name.decode()]).max() <= 1e-5 * size, name
    return ev


@needs_ufbx
@pytest.mark.parametrize("order", range(7))
def test_rotation_orders_pivots_and_offsets_equal_ufbx(order):
    """Every RotationOrder, spheric (6) among them: ufbx turns no Lcl Rotation in it."""
    check_against_ufbx(write_binary(scene_nodes(feature_models(order))))


@needs_ufbx
@pytest.mark.parametrize("inherit", [(0, 0, 0), (2, 2, 2), (0, 2, 1), (2, 0, 2), (1, 2, 0)])
def test_scale_inheritance_modes_equal_ufbx(inherit):
    check_against_ufbx(write_binary(scene_nodes(feature_models(2, inherit)), version=7500))


@needs_ufbx
def test_ascii_61_and_74_and_big_endian_read_the_same():
    models = feature_models(4, (2, 0, 1))
    worlds = []
    for data in (write_binary(scene_nodes(models)), write_binary(scene_nodes(models), 7700, True),
                 write_ascii(scene_nodes(models)), write_ascii(scene_nodes_61(models), 6100),
                 write_binary(scene_nodes(models), 7500, compress=True)):
        worlds.append(check_against_ufbx(data).world)
    for w in worlds[1:]:
        assert np.abs(w - worlds[0]).max() < 1e-12


@pytest.mark.parametrize("big", [False, True])
@pytest.mark.parametrize("compress", [False, True])
def test_arrays_decode_only_when_asked(big, compress):
    values = [float(v) for v in np.linspace(-3, 7, 90)]
    data = write_binary(scene_nodes([ModelSpec("m")], arrays=values), 7500, big, compress)
    doc = read_document(data)
    geo = doc.top.child(b"Objects").child(b"Geometry")
    assert np.array_equal(geo.child(b"Vertices").array(), values)
    text = write_ascii(scene_nodes([ModelSpec("m")], arrays=values))
    geo = read_document(text).top.child(b"Objects").child(b"Geometry")
    assert np.array_equal(geo.child(b"Vertices").array(), values)


def test_a_zlib_array_that_does_not_inflate_is_data_when_asked():
    data = bytearray(write_binary(scene_nodes([ModelSpec("m")], arrays=[1.0] * 50), compress=True))
    at = data.index(b"Vertices") + len(b"Vertices") + 13
    data[at + 2:at + 6] = b"\xff\xff\xff\xff"          # inside the zlib stream
    doc = read_document(bytes(data))                   # the open does not inflate it
    with pytest.raises(ImportFormatError) as e:
        doc.top.child(b"Objects").child(b"Geometry").child(b"Vertices").array()
    assert e.value.import_reason == ImportReason.Data


def test_euler_orders_are_products_of_axis_turns():
    """Independent: each order's matrix is the product of single-axis turns, first axis
    applied first (Rodrigues, written out here)."""
    def turn(axis, deg):
        a = math.radians(deg)
        k = np.zeros(3)
        k[axis] = 1
        K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
        return np.eye(3) + math.sin(a) * K + (1 - math.cos(a)) * K @ K
    orders = ["xyz", "xzy", "yzx", "yxz", "zxy", "zyx"]
    for o, letters in enumerate(orders):
        m = np.eye(3)
        for letter in letters:
            axis = "xyz".index(letter)
            m = turn(axis, ROT[axis]) @ m
        assert np.allclose(euler_matrix(ROT, o), m, atol=1e-12)


def test_inheritance_helpers_compose_to_the_worlds():
    data = write_binary(scene_nodes(feature_models(1, (2, 0, 2))))
    fbx = opened(data)
    ev = evaluate(fbx._scene)
    b = rt.Builder()
    fbx.build_model_skeleton(b, 0, FbxOptions(unit_meters=0.01))
    sk = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))
    names = [sk.bone_name(i) for i in range(sk.bone_count)]
    assert "a#unscaled" in names and "root#unscaled" in names
    pose = rt.Pose(sk)
    pose.set_rest(sk)
    pose.compute_model(sk)
    for m, name in enumerate(["root", "a", "b", "c"]):
        got = pose.model[names.index(name)].astype(np.float64)
        assert np.abs(got - ev.world[m][:3]).max() < 2e-5 * np.abs(ev.world[m]).max()


def test_options_axes_and_unit_conjugate_the_worlds():
    data = write_binary(scene_nodes(feature_models(3)))
    fbx = opened(data)
    ev = evaluate(fbx._scene)
    opts = FbxOptions(Axis.NegativeZ, Axis.PositiveX, Axis.NegativeY, 0.5)
    P = np.stack([[0, 0, -1], [1, 0, 0], [0, -1, 0]], 1).astype(float)  # where x, y, z go
    B = np.eye(4)
    B[:3, :3] = P * 0.02
    Binv = np.linalg.inv(B)
    b = rt.Builder()
    fbx.build_model_skeleton(b, 1, opts)
    sk = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))
    pose = rt.Pose(sk)
    pose.set_rest(sk)
    pose.compute_model(sk)
    place = np.vstack([fbx.model_placement(1, opts), [0, 0, 0, 1]]).astype(np.float64)
    want = B @ ev.world[0] @ Binv
    assert np.abs(place - want).max() < 1e-5
    names = [sk.bone_name(i) for i in range(sk.bone_count)]
    for m, name in [(1, "a"), (2, "b"), (3, "c")]:
        got = place @ np.vstack([pose.model[names.index(name)], [0, 0, 0, 1]])
        want = B @ ev.world[m] @ Binv
        assert np.abs(got - want).max() < 1e-5 * max(1, np.abs(want).max()), name
    folded = FbxOptions(Axis.NegativeZ, Axis.PositiveX, Axis.NegativeY, 0.5, True)
    assert np.array_equal(fbx.model_placement(3, folded), np.eye(3, 4, dtype=np.float32))


def test_names_renamed_where_missing_or_repeated():
    data = write_binary(scene_nodes([ModelSpec("x"), ModelSpec("x", 0), ModelSpec("", 0)]))
    fbx = opened(data)
    assert [fbx.model_bone_name(m) for m in range(3)] == [b"x", b"x#1", b"#2"]
    assert fbx.renamed_count == 2 and [fbx.renamed_model(i) for i in range(3)] == [1, 2, 2**32 - 1]
    assert fbx.model_bone_name(3) is None


def test_settings_default_where_silent():
    nodes = scene_nodes([ModelSpec("m")])
    del nodes[1]                                       # no GlobalSettings
    s = opened(write_binary(nodes)).read_settings()
    assert (s.right, s.up, s.front, s.unit_meters, s.frame_rate) == \
        (Axis.PositiveX, Axis.PositiveY, Axis.PositiveZ, 0.01, 30.0)


# ------------------------------------------------------------------ refusals
def reason_of(data) -> tuple:
    with pytest.raises(ImportFormatError) as e:
        opened(data)
    return e.value.import_reason, e.value.offset


def test_open_refuses_null_arguments():
    with pytest.raises(InvalidError):
        open_fbx(None, b"")
    with pytest.raises(InvalidError):
        open_fbx(rt.Builder(), None)


def test_open_refuses_versions_outside_3000_to_7700():
    good = write_binary(scene_nodes([ModelSpec("m")]), 7400)
    for v in (2999, 7800):
        data = good[:23] + struct.pack("<I", v) + good[27:]
        assert reason_of(data) == (ImportReason.Version, 23)
    text = write_ascii(scene_nodes([ModelSpec("m")], version=8000), 7400).replace(b"; FBX", b"; xx")
    assert reason_of(text)[0] == ImportReason.Version


def test_open_refuses_framing_at_the_first_wrong_byte():
    good = write_binary(scene_nodes([ModelSpec("m")]), 7400)
    assert reason_of(good[:20])[0] == ImportReason.Container
    assert reason_of(good[:200])[0] == ImportReason.Container
    bad = bytearray(good)
    bad[27:31] = struct.pack("<I", len(good) + 10)    # the first record ends past the file
    assert reason_of(bytes(bad)) == (ImportReason.Container, 27)
    bad = bytearray(good)
    at = good.index(b"FBXHeaderVersion") + len(b"FBXHeaderVersion")
    bad[at] = ord("Q")                                 # a property of unknown type
    assert reason_of(bytes(bad)) == (ImportReason.Container, at)


def test_open_refuses_ascii_syntax_with_its_offset():
    text = write_ascii(scene_nodes([ModelSpec("m")]))
    at = text.index(b"Objects")
    bad = text[:at] + b"@" + text[at:]
    assert reason_of(bad) == (ImportReason.Syntax, at)
    assert reason_of(text + b"}\n")[0] == ImportReason.Syntax
    assert reason_of(text.rstrip(b"}\n"))[0] == ImportReason.Syntax


def test_build_and_placement_refusals():
    fbx = opened(write_binary(scene_nodes(feature_models())))
    b = rt.Builder()
    with pytest.raises(InvalidError):
        fbx.build_skeleton(b, 0, default_fbx_options())            # no skeletons
    with pytest.raises(InvalidError):
        fbx.build_model_skeleton(b, 9, default_fbx_options())
    for bad in (FbxOptions(up=Axis.NegativeX), FbxOptions(unit_meters=0.0),
                FbxOptions(right=7), FbxOptions(fold_placement=1), None):
        with pytest.raises(InvalidError):
            fbx.build_model_skeleton(b, 0, bad)
        with pytest.raises(InvalidError):
            fbx.model_placement(0, bad)
    with pytest.raises(InvalidError):
        capi.maniFbx_ReadSettings(None)
    with pytest.raises(InvalidError):
        capi.maniFbx_GetModelPlacement(None, 0, default_fbx_options())


def test_close_empties_the_document_and_frees_through_the_builder():
    freed = []
    d = default_builder_def()
    d.alloc = lambda user, size: bytearray(size)
    d.free = lambda user, block: freed.append(len(block))
    b = rt.Builder(d)
    data = write_binary(scene_nodes([ModelSpec("m")]))
    fbx = open_fbx(b, data)
    capi.maniCloseFbx(fbx)
    assert len(data) in freed
    assert capi.maniFbx_GetModelCount(fbx) == 0 and capi.maniFbx_GetVersion(fbx) == 0
    capi.maniCloseFbx(None)


def test_close_from_the_allocator_closes_nothing_and_counts_a_misuse():
    """The free hook runs during a close: it sees the closing document empty, and a close
    it calls closes nothing, counted as one misuse on the builder."""
    seen = []
    d = default_builder_def()
    d.alloc = lambda user, size: bytearray(size)

    def free(user, block):
        if holder:
            seen.append(capi.maniFbx_GetModelCount(holder[0]))
            capi.maniCloseFbx(holder[1])
    d.free = free
    holder = []
    b = rt.Builder(d)
    data = write_binary(scene_nodes([ModelSpec("m")]))
    first, second = open_fbx(b, data), open_fbx(b, data)
    holder.extend([first, second])
    misuse = b.misuse
    capi.maniCloseFbx(first)
    assert seen == [0]
    assert b.misuse == misuse + 1
    assert capi.maniFbx_GetModelCount(second) == 1


# ------------------------------------------------------------------ fuzz
SEED_BINARY = write_binary(scene_nodes(feature_models(), arrays=[1.0, 2.0, 3.0]), 7500, compress=True)
SEED_BINARY_32 = write_binary(scene_nodes(feature_models()), 7400, big_endian=True)
SEED_ASCII = write_ascii(scene_nodes(feature_models(), arrays=[1.0, 2.0, 3.0]))


def _exercise(data: bytes) -> None:
    """Open the bytes; what opens is read and built from every way the capi offers, and
    nothing but a ManiError may escape (numpy's warnings as errors)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _exercise_loud(data)


def _exercise_loud(data: bytes) -> None:
    from runtime.importers.common import default_import_clip_options
    try:
        fbx = opened(data)
    except ImportFormatError as e:
        assert e.import_reason in (ImportReason.Container, ImportReason.Version,
                                   ImportReason.Syntax)
        assert 0 <= e.offset <= len(data)
        return
    opts = default_fbx_options()
    steps = [fbx.read_settings]
    for m in range(fbx.model_count):
        steps.append(lambda m=m: fbx.model_placement(m, opts))
    steps.append(lambda: fbx.build_model_skeleton(rt.Builder(), 0, opts))
    for k in range(fbx.skeleton_count):
        steps.append(lambda k=k: fbx.skeleton_placement(k, opts))
    for k in range(fbx.morph_count):
        steps.append(lambda k=k: fbx.build_morph_targets(rt.Builder(), k, opts))
        steps.append(lambda k=k: fbx.morph_weights(k))

    def skinned_and_clipped():
        b = rt.Builder()
        if fbx.skeleton_count:
            fbx.build_skeleton(b, 0, opts)
        else:
            fbx.build_model_skeleton(b, 0, opts)
        sk = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))
        for c in range(fbx.clip_count):
            try:
                fbx.build_clip(b, c, sk, opts, default_import_clip_options())
            except ManiError:
                pass
        for k in range(fbx.skin_count):
            fbx.skin_method(k)
            fbx.build_skin(b, k, sk, opts)
            fbx.build_influences(b, k, rt.Skin(bytes(capi.maniBuilder_CopyBuilt(b))))
    steps.append(skinned_and_clipped)
    for step in steps:
        try:
            step()
        except ManiError:
            pass


def _seeds():
    from fbx_writer import BlendSpec, CurveSpec, SkinSpec
    models = feature_models()
    models[1].subclass = models[2].subclass = "LimbNode"
    models.append(ModelSpec("body", 0, {}, "Mesh"))
    skin = SkinSpec(4, [0.0] * 9, [(1, [0, 1], [1.0, 0.5], EYE, EYE), (2, [1, 2], [0.5, 1.0], None, None)])
    curves = [CurveSpec(2, "Lcl Rotation", 0, [0, 10**10, 4 * 10**10], [0.0, 20.0, -5.0]),
              CurveSpec(1, "Visibility", 0, [0, 10**10], [1.0, 0.0])]
    blend = BlendSpec(4, [0.0] * 9, [("c", 30.0, [40.0, 100.0], [("s", [1], [1.0, 0.0, 0.0], None),
                                                                ("t", [2], [0.0, 1.0, 0.0], None)])])
    nodes = scene_nodes(models, skin=skin, curves=curves, blend=blend)
    return [write_binary(nodes, 7500, compress=True), write_binary(nodes, 7400, big_endian=True),
            write_ascii(nodes)]


EYE = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
SEEDS = _seeds()


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([SEED_BINARY, SEED_BINARY_32, SEED_ASCII] + SEEDS),
       st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=6))
def test_fuzz_mutated_bytes_only_raise_the_spec_errors(seed, edits):
    data = bytearray(seed)
    for at, value in edits:
        data[at % len(data)] = value
    _exercise(bytes(data))


@settings(max_examples=100, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(-64, 64), st.booleans())
def test_fuzz_record_lengths_kept_consistent_or_not(where, delta, cut):
    """A record's end offset moved (its file cut to match, or not)."""
    data = bytearray(SEEDS[0] if cut else SEED_BINARY)
    ends = []
    at = 27
    while at + 25 <= len(data):
        end = struct.unpack_from("<Q", data, at)[0]
        if end == 0 or end > len(data):
            break
        ends.append(at)
        at = end
    at = ends[where % len(ends)]
    end = struct.unpack_from("<Q", data, at)[0]
    struct.pack_into("<Q", data, at, max(0, end + delta))
    if cut:
        data = data[:max(0, end + delta)]
    _exercise(bytes(data))


@settings(max_examples=100, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.sampled_from([b"{", b"}", b",", b'"', b"*3", b"x:", b"1e", b";"]))
def test_fuzz_ascii_tokens(where, token):
    seed = SEEDS[2]
    at = where % len(seed)
    _exercise(seed[:at] + token + seed[at:])


# ------------------------------------------------------------------ skins


def skinned(clusters, extra=(), limbs=True):
    from fbx_writer import SkinSpec
    models = [ModelSpec("top"),
              ModelSpec("hip", 0, {"Lcl Translation": (0.0, 1.0, 0.0)}, "LimbNode"),
              ModelSpec("knee", 1, {"Lcl Translation": (0.0, 1.0, 0.0),
                                    "Lcl Rotation": (0.0, 0.0, 30.0)}, "LimbNode"),
              ModelSpec("body", 0, {"GeometricTranslation": (0.5, 0.0, 0.0)}, "Mesh")]
    skin = SkinSpec(3, [0, 0, 0, 0, 1, 0, 0, 2, 0, 1, 1, 1], clusters, list(extra))
    return opened(write_binary(scene_nodes(models, skin=skin), 7500))


def built_skeleton(fbx, k=0):
    b = rt.Builder()
    fbx.build_skeleton(b, fbx.skin_skeleton(k), default_fbx_options())
    return rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))


def test_skin_binds_from_link_when_transform_is_missing():
    """Without Transform the inverse bind is inv(TransformLink) * mesh world * geometric;
    without either it is the bone's rest world's inverse (the mesh then binds at rest)."""
    link = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1]      # bone at (0, 2, 0)
    fbx = skinned([(1, [0, 1], [1.0, 1.0], None, link), (2, [2, 3], [1.0, 1.0], None, None)])
    sk = built_skeleton(fbx)
    b = rt.Builder()
    fbx.build_skin(b, 0, sk, FbxOptions(unit_meters=0.01))
    skin = rt.Skin(bytes(capi.maniBuilder_CopyBuilt(b)))
    geo = np.eye(4)
    geo[0, 3] = 0.5
    want0 = np.linalg.inv(np.array(link, float).reshape(4, 4).T) @ geo
    assert np.allclose(skin.inverse_bind(0), want0[:3], atol=1e-6)
    ev = evaluate(fbx._scene)
    want1 = np.linalg.inv(ev.world[2]) @ ev.world[3] @ geo
    assert np.allclose(skin.inverse_bind(1), want1[:3], atol=1e-6)


def test_skin_refusals():
    sk = built_skeleton(skinned([(1, [0], [1.0], EYE, EYE), (2, [1], [1.0], EYE, EYE)]))
    flat = list(EYE)
    flat[0] = 0.0                                                  # not invertible
    cases = [
        (skinned([(1, [0], [1.0], flat, EYE)]), ImportReason.Matrix),
        (skinned([(1, [0], [1.0], EYE[:15] + [2.0], EYE)]), ImportReason.Matrix),   # not affine
    ]
    for fbx, reason in cases:
        with pytest.raises(ImportFormatError) as e:
            fbx.build_skin(rt.Builder(), 0, built_skeleton(fbx), default_fbx_options())
        assert e.value.import_reason == reason
    other = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(_one_bone())))
    fbx = skinned([(1, [0], [1.0], EYE, EYE)])
    with pytest.raises(ImportFormatError) as e:
        fbx.build_skin(rt.Builder(), 0, other, default_fbx_options())
    assert e.value.import_reason == ImportReason.Bone
    with pytest.raises(InvalidError):
        fbx.build_skin(rt.Builder(), 1, sk, default_fbx_options())
    with pytest.raises(InvalidError):
        fbx.build_skin(rt.Builder(), 0, None, default_fbx_options())


def _one_bone():
    b = rt.Builder()
    rt.build_skeleton(b, rt.SkeletonSource([rt.BoneSource("lonely")]))
    return b


def _influences_of(fbx):
    sk = built_skeleton(fbx)
    b = rt.Builder()
    fbx.build_skin(b, 0, sk, default_fbx_options())
    skin = rt.Skin(bytes(capi.maniBuilder_CopyBuilt(b)))
    fbx.build_influences(b, 0, skin)
    return Influences(bytes(capi.maniBuilder_CopyBuilt(b)))


def test_influences_sum_repeats_skip_outside_and_refuse_bad_weights():
    infl = _influences_of(skinned([(1, [0, 0, 1, 9, -1], [0.25, 0.25, 1.0, 1.0, 1.0], EYE, EYE),
                                   (2, [0, 2], [0.5, 1.0], EYE, EYE)]))
    assert infl.vertex_count == 4
    assert infl.influence(0, 0) == (0, 0.5) and infl.influence(0, 1) == (1, 0.5)
    assert infl.influence(1, 0) == (0, 1.0) and infl.influence(2, 0) == (1, 1.0)
    for clusters, reason in [([(1, [0, 1], [1.0], EYE, EYE)], ImportReason.Property),
                             ([(1, [0], [-0.5], EYE, EYE)], ImportReason.Influence)]:
        with pytest.raises(ImportFormatError) as e:
            _influences_of(skinned(clusters))
        assert e.value.import_reason == reason


def test_skin_method_and_blend_weights():
    from fbx_writer import Node
    dq = skinned([(1, [0], [1.0], EYE, EYE)], [Node("SkinningType", ["DualQuaternion"])])
    assert dq.skin_method(0) == capi.maniSkinningMethodDualQuaternion
    infl = _influences_of(dq)
    assert np.array_equal(infl.dq_weights, np.ones(4, np.float32))
    blend = skinned([(1, [0], [1.0], EYE, EYE)], [Node("SkinningType", ["Linear"]),
                                                  Node("Indexes", [("i", [1, 2])]),
                                                  Node("BlendWeights", [("d", [0.25, 0.75])])])
    assert blend.skin_method(0) == capi.maniSkinningMethodBlended
    assert np.array_equal(_influences_of(blend).dq_weights, np.float32([0, 0.25, 0.75, 0]))
    rigid = skinned([(1, [0], [1.0], EYE, EYE)], [Node("SkinningType", ["Rigid"])])
    assert rigid.skin_method(0) == capi.maniSkinningMethodLinear
    assert _influences_of(rigid).dq_weights is None
    bad = skinned([(1, [0], [1.0], EYE, EYE)], [Node("SkinningType", ["Blend"]),
                                                Node("Indexes", [("i", [1])]),
                                                Node("BlendWeights", [("d", [1.5])])])
    with pytest.raises(ImportFormatError) as e:
        _influences_of(bad)
    assert e.value.import_reason == ImportReason.Influence


# ------------------------------------------------------------------ reference meshes
import re

OBJ_DIR = SHARED / "reference_obj"


def _obj(path):
    lines = path.read_text().splitlines()
    verts = np.array([[float(x) for x in l.split()[1:4]] for l in lines if l.startswith("v ")])
    return verts, "# ufbx:transform_skin" in lines


def _references(path):
    prefix = re.sub(r"_\d{4}_(ascii|binary)", "", path.stem)
    out = []
    for obj in sorted(OBJ_DIR.glob(prefix + "_*.obj")):
        frame = obj.stem[len(prefix) + 1:]
        if frame.isdigit():
            out.append((int(frame), obj))
    return out


SKINNED = [p for p in STAGED if _references(p)]


def _whole_import(path):
    """A staged file imported whole: open, skeleton, skin, influences and its first clip at
    the file's rate. Returns the document, the clip's start and rate (seconds, frames a
    second) and t (seconds from the start) -> the skin's control points posed by the clip,
    skinned linearly by an independent sum here and placed, in the file's unit."""
    from runtime.importers.common import default_import_clip_options
    from runtime.importers.fbx.clip import _time_range, animation
    fbx = opened(path.read_bytes())
    st = fbx.read_settings()
    opts = FbxOptions(unit_meters=st.unit_meters)
    b = rt.Builder()
    fbx.build_skeleton(b, fbx.skin_skeleton(0), opts)
    sk = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))
    fbx.build_skin(b, 0, sk, opts)
    skin = rt.Skin(bytes(capi.maniBuilder_CopyBuilt(b)))
    fbx.build_influences(b, 0, skin)
    infl = Influences(bytes(capi.maniBuilder_CopyBuilt(b)))
    co = default_import_clip_options()
    co.sample_rate = st.frame_rate
    fbx.build_clip(b, 0, sk, opts, co)
    clip = rt.Clip.open(bytes(capi.maniBuilder_CopyBuilt(b)))
    scene = fbx._scene
    verts = control_points(scene, 0).record.child(b"Vertices").array().reshape(-1, 3)
    place = np.vstack([fbx.skeleton_placement(0, opts), [0, 0, 0, 1]]).astype(np.float64)
    start = _time_range(scene, 0, animation(scene, 0)[1])[0] / SECOND

    def skinned(t: float) -> np.ndarray:
        pose = rt.Pose(sk)
        clip.sample(sk, t, pose)
        pose.compute_model(sk)
        palette = capi.maniPose_ComputePalette(pose, sk, skin).astype(np.float64)
        got = np.zeros_like(verts)
        for slot in range(infl.per_vertex):
            m = palette[infl.joints[slot].astype(int)]
            w = infl.weights[slot].astype(np.float64)[:, None]
            got += w * (np.einsum("vij,vj->vi", m[:, :, :3], verts) + m[:, :, 3])
        return got @ place[:3, :3].T + place[:3, 3]
    return fbx, start, st.frame_rate, skinned


@needs_shared
@pytest.mark.parametrize("path", SKINNED, ids=lambda p: p.name)
def test_skinned_vertices_equal_the_reference_meshes(path):
    """Open, skeleton, skin, influences and clip; the clip sampled at each reference frame
    (the file's rate, from the stack's start), the pose skinned linearly by an independent
    sum here and placed: within 1e-4 of the model's size of the OBJ ufbx's authors exported
    (`ufbx:transform_skin` files compare after the mesh's own move from its bind pose, as
    ufbx's test does)."""
    from runtime.importers.fbx.clip import animation, evaluate_at
    from runtime.importers.fbx.skin import _bind_pose_matrices
    fbx, start, rate, skinned = _whole_import(path)
    scene = fbx._scene
    anim, _ = animation(scene, 0)
    for frame, obj in _references(path):
        want, transform_skin = _obj(obj)
        t = frame / rate
        got = skinned(t - start)
        if transform_skin:
            mesh = scene.skin_model[0]
            _, world, _ = evaluate_at(scene, anim, np.array([t]))
            move = world[mesh, 0] @ np.linalg.inv(_bind_pose_matrices(scene)[mesh])
            got = got @ move[:3, :3].T + move[:3, 3]
        size = float(np.ptp(want, axis=0).max())
        assert got.shape == want.shape
        assert np.abs(got - want).max() <= 1e-4 * size, (obj.name, np.abs(got - want).max())


@needs_shared
@needs_ufbx
@pytest.mark.parametrize("path", STAGED, ids=lambda p: p.name)
def test_staged_skinned_vertices_equal_ufbx_at_many_samples(path):
    """Every staged skin's vertices, imported whole and skinned here, at a dozen samples of
    the clip's grid: within 1e-5 of the mesh's size of the world positions ufbx skins."""
    from runtime.clip.clip import sample_count
    from runtime.importers.fbx.clip import _time_range, animation
    if opened(path.read_bytes()).skin_count == 0:
        pytest.skip("the file has no skin")
    fbx, start, rate, skinned = _whole_import(path)
    scene = fbx._scene
    begin, stop = _time_range(scene, 0, animation(scene, 0)[1])
    count = sample_count((stop - begin) / SECOND, rate)
    ks = np.unique(np.linspace(0, count - 1, 12).round().astype(int))
    ticks = [begin + round(k * (SECOND / rate)) if k < count - 1 else stop for k in ks]
    ref = ufbx_skinned(path, [t / SECOND for t in ticks])
    mesh = scene.bone_names[scene.skin_model[0]].decode()
    for k, frame in zip(ks, ref):
        (local, want), = [(loc, np.array(v)) for name, loc, v in frame if name == mesh]
        assert not local
        got = skinned(k / rate if k < count - 1 else (stop - begin) / SECOND)
        size = float(np.ptp(want, axis=0).max())
        assert got.shape == want.shape
        assert np.abs(got - want).max() <= 1e-5 * size, (k, np.abs(got - want).max())


# ------------------------------------------------------------------ curves against ufbx
SECOND = 46186158000
CUBIC, AUTO, USER, BROKEN, TCB = 0x8, 0x100, 0x400, 0x800, 0x200
CONST, CONST_NEXT, LINEAR_K = 0x2, 0x100, 0x4
CLAMP, TIME_INDEPENDENT, PROGRESSIVE = 0x1000, 0x2000, 0x4000
WEIGHTED_RIGHT, WEIGHTED_NEXT_LEFT = 0x1000000, 0x2000000


def _packed(right, next_left) -> float:
    return struct.unpack("<f", struct.pack("<I", int(right * 10000) | int(next_left * 10000) << 16))[0]


def curve_scene():
    from fbx_writer import CurveSpec
    ticks = [0, SECOND // 3, SECOND // 2, SECOND, 2 * SECOND]
    values = [0.0, 30.0, 25.0, -40.0, 10.0]
    curves = [
        CurveSpec(1, "Lcl Rotation", 0, ticks, values),                                # auto
        CurveSpec(1, "Lcl Rotation", 1, ticks, values, [CUBIC | AUTO | CLAMP] * 5),
        CurveSpec(1, "Lcl Rotation", 2, ticks, values, [CUBIC | AUTO | TIME_INDEPENDENT] * 5),
        CurveSpec(2, "Lcl Translation", 0, ticks, values, [CUBIC | USER | BROKEN] * 5,
                  [[2.0, -3.0, 0.0, 0.0]] * 5),
        CurveSpec(2, "Lcl Translation", 1, ticks, values,
                  [CUBIC | USER | WEIGHTED_RIGHT | WEIGHTED_NEXT_LEFT] * 5,
                  [[5.0, 5.0, _packed(0.6, 0.2), 0.0]] * 5),
        CurveSpec(2, "Lcl Translation", 2, ticks, values, [CUBIC | TCB] * 5,
                  [[0.3, -0.2, 0.5, 0.0]] * 5),
        CurveSpec(3, "Lcl Scaling", 0, ticks, [1.0, 2.0, 0.5, 1.5, 1.0], [CONST] * 5),
        CurveSpec(3, "Lcl Scaling", 1, ticks, [1.0, 2.0, 0.5, 1.5, 1.0], [CONST | CONST_NEXT] * 5),
        CurveSpec(3, "Lcl Scaling", 2, ticks, [1.0, 2.0, 0.5, 1.5, 1.0], [LINEAR_K] * 5),
        CurveSpec(3, "Lcl Rotation", 0, ticks, values, [CUBIC | AUTO | PROGRESSIVE] * 5),
        CurveSpec(3, "Lcl Rotation", 1, ticks, values, [CUBIC | AUTO] * 5,
                  [[0.0, 0.0, 0.0, 0.0]] * 2 + [[350.0, 0.0, 0.0, 0.0]] * 3),
    ]
    return feature_models(2, (1, 2, 0)), curves


@needs_ufbx
def test_curves_and_their_models_equal_ufbx_at_many_times():
    from runtime.importers.fbx.clip import evaluate_at, stack_animation
    models, curves = curve_scene()
    data = write_binary(scene_nodes(models, curves=curves), 7500)
    times = [-0.25, 0.0, 0.1, 1 / 3, 0.4, 0.5, 0.61, 0.77, 1.0, 1.3, 1.9, 2.0, 2.5]
    with tempfile.NamedTemporaryFile(suffix=".fbx", delete=False) as f:
        f.write(data)
    try:
        ref = ufbx_read(f.name, times)["frames"]
    finally:
        Path(f.name).unlink()
    scene = Scene(read_document(data))
    anim, _ = stack_animation(scene, 0)
    _, world, _ = evaluate_at(scene, anim, np.array(times))
    size = model_size([np.array(v) for v in ref[0].values()])
    for k, frame in enumerate(ref):
        for m, name in enumerate(scene.bone_names):
            got = world[m, k, :3]
            assert np.abs(got - np.array(frame[name.decode()])).max() <= 1e-5 * size, \
                (times[k], name)


def test_a_clip_keys_every_sample_of_the_stacks_grid():
    from runtime.importers.common import default_import_clip_options
    models, curves = curve_scene()
    fbx = opened(write_binary(scene_nodes(models, curves=curves, span=(0, SECOND)), 7500))
    b = rt.Builder()
    fbx.build_model_skeleton(b, 0, FbxOptions(unit_meters=0.01))
    sk = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))
    co = default_import_clip_options()
    bound = fbx.build_clip(b, 0, sk, FbxOptions(unit_meters=0.01), co)
    assert bound >= 3
    clip = rt.Clip.open(bytes(capi.maniBuilder_CopyBuilt(b)))
    assert abs(clip.duration - 1.0) < 1e-6
    with pytest.raises(InvalidError):
        fbx.build_clip(b, 1, sk, default_fbx_options(), co)
    co.sample_rate = -1.0
    with pytest.raises(InvalidError):
        fbx.build_clip(b, 0, sk, default_fbx_options(), co)


# ------------------------------------------------------------------ morphs
def _built_targets(fbx, k, options=None):
    from runtime.deform.morph import MorphTargets
    b = rt.Builder()
    fbx.build_morph_targets(b, k, options or FbxOptions(unit_meters=fbx.read_settings().unit_meters))
    return MorphTargets(bytes(capi.maniBuilder_CopyBuilt(b)))


def _dense(t, target, count):
    out = np.zeros((count, 3))
    d = t.target_deltas(target, 0)
    idx = t.target_indices(target)
    if idx is None:
        out[:] = d
    else:
        out[idx] = d
    return out


def _morph_check(data: bytes, ref_channels, count):
    """Ours against ufbx's channels: targets in ufbx's keyframe order (a repeated full
    weight left out), their names, rest weights and offsets."""
    fbx = opened(data)
    want = []
    for name, weight, keys in ref_channels:
        last = None
        for target, effective, sname, offsets, verts in keys:
            if target == last:
                continue
            last = target
            dense = np.zeros((count, 3))
            np.add.at(dense, np.array(verts, dtype=int), np.array(offsets).reshape(-1, 3))
            want.append((sname, effective, dense, target))
    got = []
    for k in range(fbx.morph_count):
        t = _built_targets(fbx, k)
        weights = fbx.morph_weights(k)
        assert fbx.morph_target_count(k) == t.target_count == weights.size
        for i in range(t.target_count):
            got.append((t.target_name(i), float(weights[i]), _dense(t, i, count), t.full_weight(i)))
    assert len(got) == len(want)
    for (gn, gw, gd, gf), (wn, ww, wd, wf) in zip(got, want):
        assert gn == wn
        assert abs(gw - ww) < 1e-6 and abs(gf - wf) < 1e-6
        assert np.abs(gd - wd).max() < 1e-6
    return fbx


@needs_shared
@needs_ufbx
def test_staged_blend_shapes_equal_ufbx():
    path = SHARED / "maya_blend_shape_cube_7700_binary.fbx"
    fbx = _morph_check(path.read_bytes(), ufbx_read(path)["channels"],
                       opened(path.read_bytes())._sets()[0].points.child(b"Vertices").array().size // 3)
    assert fbx.morph_model(0) == 0


@needs_shared
@needs_ufbx
def test_staged_morphed_vertices_equal_ufbx_at_many_samples():
    """The staged blend-shape mesh imported whole (its model's skeleton, morph targets and
    clip at the file's rate): its control points plus each target's offsets by the clip's
    weight track, at a dozen samples of the grid, against ufbx's deformed (local) positions."""
    from runtime.clip.clip import sample_count
    from runtime.core.limits import NO_TRACK
    from runtime.importers.common import default_import_clip_options
    from runtime.importers.fbx.clip import _time_range, animation
    path = SHARED / "maya_blend_shape_cube_7700_binary.fbx"
    fbx = opened(path.read_bytes())
    st = fbx.read_settings()
    opts = FbxOptions(unit_meters=st.unit_meters)
    model = fbx.morph_model(0)
    b = rt.Builder()
    fbx.build_model_skeleton(b, model, opts)
    sk = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))
    co = default_import_clip_options()
    co.sample_rate = st.frame_rate
    fbx.build_clip(b, 0, sk, opts, co)
    clip = rt.Clip.open(bytes(capi.maniBuilder_CopyBuilt(b)))
    targets = _built_targets(fbx, 0, opts)
    rest = fbx._sets()[0].points.child(b"Vertices").array().reshape(-1, 3)
    offsets = [_dense(targets, i, len(rest)) for i in range(targets.target_count)]
    mesh = fbx.model_bone_name(model).decode()
    tracks = [clip.find_float_track(f"{mesh}/{targets.target_name(i)}")
              for i in range(targets.target_count)]
    assert NO_TRACK not in tracks
    weights = clip.decoded_floats()[:, tracks]
    scene = fbx._scene
    begin, stop = _time_range(scene, 0, animation(scene, 0)[1])
    count = sample_count((stop - begin) / SECOND, st.frame_rate)
    assert count > 2
    ks = np.unique(np.linspace(0, count - 1, 12).round().astype(int))
    ticks = [begin + round(k * (SECOND / st.frame_rate)) if k < count - 1 else stop for k in ks]
    ref = ufbx_skinned(path, [t / SECOND for t in ticks])
    moved = 0.0
    for k, frame in zip(ks, ref):
        (local, want), = [(loc, np.array(v)) for name, loc, v in frame if name == mesh]
        assert local
        got = rest + sum(w * d for w, d in zip(weights[k], offsets))
        moved = max(moved, float(np.abs(want - rest).max()))
        size = float(np.ptp(want, axis=0).max())
        assert np.abs(got - want).max() <= 1e-5 * size, (k, np.abs(got - want).max())
    assert moved > 0.01                     # the samples do see the shapes move the mesh


def blend_file(channels, vertices=None):
    from fbx_writer import BlendSpec
    vertices = vertices or [0.0] * 12
    return write_binary(scene_nodes([ModelSpec("body", -1, {}, "Mesh")],
                                    blend=BlendSpec(0, vertices, channels)), 7500)


@needs_ufbx
def test_in_betweens_repeats_and_walks_equal_ufbx():
    o = [1.0, 0.0, 0.0, 0.0, 2.0, 0.0]
    channels = [
        ("smile", 75.0, [50.0, 100.0, 100.0], [("half", [0, 1], o, None), ("full", [1, 2], o, None),
                                               ("again", [2, 3], o, None)]),
        ("frown", -30.0, [100.0, -60.0], [("up", [3, 0], o, None), ("down", [1, 2], o, None)]),
        ("smile", 250.0, None, [("", [0, 9], o, None)]),          # a repeated name, index past
    ]
    data = blend_file(channels)
    with tempfile.NamedTemporaryFile(suffix=".fbx", delete=False) as f:
        f.write(data)
    try:
        ref = ufbx_read(f.name)["channels"]
    finally:
        Path(f.name).unlink()
    for ch in ref:                   # ufbx keeps the index past the points; we skip it
        for key in ch[2]:
            keep = [i for i, v in enumerate(key[4]) if v < 4]
            key[3] = [key[3][i] for i in keep]
            key[4] = [key[4][i] for i in keep]
        for key in ch[2]:
            if not key[2]:
                key[2] = None
    fbx = opened(data)
    t = _built_targets(fbx, 0)
    assert [t.channel_name(c) for c in range(t.channel_count)] == ["smile", "frown", "smile#2"]
    for ch in ref:
        for key in ch[2]:
            key[2] = key[2] if key[2] is not None else "smile#2"
    _morph_check(data, ref, 4)


def test_morph_refusals_and_measures():
    o = [1.0, 0.0, 0.0]
    fbx = opened(blend_file([("c", 0.0, None, [("s", [0, 1], o, None)])]))
    with pytest.raises(ImportFormatError) as e:
        fbx.build_morph_targets(rt.Builder(), 0, default_fbx_options())
    assert e.value.import_reason == ImportReason.Property
    fbx = opened(blend_file([("c", 0.0, [0.0], [("s", [0], o, None)])]))
    with pytest.raises(ImportFormatError) as e:
        fbx.build_morph_targets(rt.Builder(), 0, default_fbx_options())
    assert e.value.import_reason == ImportReason.Build
    fbx = opened(blend_file([("c", 40.0, None, [("s", [0], o, None)]), ("d", 10.0, None, [])]))
    assert fbx.morph_target_count(0) == 1 and fbx.morph_target_count(1) == 0
    assert fbx.morph_model(1) == 2**32 - 1
    short = np.ones(0, np.float32)
    with pytest.raises(CapacityError) as e:
        fbx.morph_weights(0, short)
    assert e.value.count == 1
    full = np.ones(3, np.float32)
    fbx.morph_weights(0, full)
    assert full[0] == np.float32(0.4)
    with pytest.raises(InvalidError):
        fbx.morph_weights(1)
    with pytest.raises(InvalidError):
        fbx.build_morph_targets(rt.Builder(), 0, FbxOptions(unit_meters=-1.0))


def test_shapes_of_a_61_mesh_are_a_set_of_their_own():
    from fbx_writer import Node
    nodes = scene_nodes_61([ModelSpec("body", -1, {}, "Mesh")])
    model = nodes[1].children[0]
    model.children.append(Node("Vertices", [("d", [0.0] * 9)]))
    model.children.append(Node("Shape", ["open"], [Node("Indexes", [("i", [2])]),
                                                   Node("Vertices", [("d", [0.0, 1.0, 0.0])])]))
    fbx = opened(write_ascii(nodes, 6100))
    assert fbx.morph_count == 1 and fbx.morph_model(0) == 0 and fbx.morph_target_count(0) == 1
    t = _built_targets(fbx, 0, FbxOptions(unit_meters=0.01))
    assert t.channel_name(0) == "open"
    assert np.allclose(_dense(t, 0, 3), [[0, 0, 0], [0, 0, 0], [0, 1, 0]])


@needs_shared
@needs_ufbx
@pytest.mark.parametrize("path", STAGED, ids=lambda p: p.name)
def test_staged_animated_worlds_equal_ufbx(path):
    """Every model's world and every blend target's weight at many times of the first clip
    (stack or take), ours against ufbx's evaluate_scene."""
    from runtime.importers.fbx.clip import animation, evaluate_at
    times = [0.0, 0.05, 1 / 24, 0.2, 0.33, 0.5, 0.61, 0.75, 0.9, 1.2]
    read = ufbx_read(path, times)
    ref, weights = read["frames"], read["frame_weights"]
    scene = Scene(read_document(path.read_bytes()))
    anim, _ = animation(scene, 0) if (scene.stacks or scene.version < 7000) else ({}, [])
    _, world, _ = evaluate_at(scene, anim, np.array(times))
    size = model_size([np.array(v) for v in ref[0].values()])
    for k, frame in enumerate(ref):
        for m, name in enumerate(scene.bone_names):
            got = world[m, k, :3]
            assert np.abs(got - np.array(frame[name.decode()])).max() <= 1e-5 * size, \
                (times[k], name)
    from runtime.importers.fbx.clip import morph_weight_tracks
    from runtime.importers.fbx.morph import morph_sets
    ours = [w for s in morph_sets(scene) for _, w in morph_weight_tracks(scene, s, anim, np.array(times))]
    theirs = [[frame[c][k] for frame in weights]
              for c in range(len(weights[0])) for k in range(len(weights[0][c]))]
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert np.abs(a - np.array(b)).max() < 1e-5


@needs_ufbx
@pytest.mark.parametrize("modes", [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 1), (2, 1, 1)],
                         ids=["additive", "override", "passthrough", "additive_by_layer",
                              "passthrough_by_layer"])
def test_layers_combine_as_ufbx_combines_them(modes):
    """A base layer and a second one of each blend mode, weighted 40%, rotation and scale
    composed or not, on rotations (every order through the models), translations and
    scales; worlds against ufbx at many times."""
    from fbx_writer import CurveSpec
    from runtime.importers.fbx.clip import evaluate_at, stack_animation
    blend, rot_mode, scale_mode = modes
    ticks = [0, SECOND // 2, SECOND]
    curves = []
    for m in (1, 2, 3):
        for comp in range(3):
            curves.append(CurveSpec(m, "Lcl Rotation", comp, ticks, [10.0 * m, 50.0 + comp, -20.0]))
            curves.append(CurveSpec(m, "Lcl Rotation", comp, ticks, [30.0, -15.0 * comp, 70.0],
                                    layer=1))
        curves.append(CurveSpec(m, "Lcl Translation", 0, ticks, [1.0, 2.0, 0.5], layer=1))
        curves.append(CurveSpec(m, "Lcl Scaling", 1, ticks, [1.0, 2.0, 0.5], layer=1))
    layers = [{}, {"BlendMode": blend, "Weight": 40.0, "RotationAccumulationMode": rot_mode,
                   "ScaleAccumulationMode": scale_mode}]
    models = feature_models(3, (1, 1, 1))
    models[2].props["RotationOrder"] = 5
    data = write_binary(scene_nodes(models, curves=curves, layers=layers), 7500)
    times = [0.0, 0.2, 0.5, 0.7, 1.0]
    with tempfile.NamedTemporaryFile(suffix=".fbx", delete=False) as f:
        f.write(data)
    try:
        ref = ufbx_read(f.name, times)["frames"]
    finally:
        Path(f.name).unlink()
    scene = Scene(read_document(data))
    anim, _ = stack_animation(scene, 0)
    _, world, _ = evaluate_at(scene, anim, np.array(times))
    size = model_size([np.array(v) for v in ref[0].values()])
    for k, frame in enumerate(ref):
        for m, name in enumerate(scene.bone_names):
            assert np.abs(world[m, k, :3] - np.array(frame[name.decode()])).max() <= 1e-5 * size, \
                (times[k], name)


def test_clip_refusals():
    from runtime.importers.common import default_import_clip_options
    models, curves = curve_scene()
    nodes = scene_nodes(models, curves=curves)
    fbx = opened(write_binary(nodes, 7500))
    b = rt.Builder()
    fbx.build_model_skeleton(b, 0, default_fbx_options())
    sk = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))
    for bad in (None, FbxOptions(unit_meters=math.inf)):
        with pytest.raises(InvalidError):
            fbx.build_clip(b, 0, sk, bad, default_import_clip_options())
    with pytest.raises(InvalidError):
        fbx.build_clip(b, 0, None, default_fbx_options(), default_import_clip_options())
    with pytest.raises(InvalidError):
        fbx.build_clip(b, 0, sk, default_fbx_options(), None)
    # a curve whose key arrays disagree: Property, the clip as item
    objects = nodes[2].children
    curve = next(o for o in objects if o.name == "AnimationCurve")
    values = next(c for c in curve.children if c.name == "KeyValueFloat")
    values.props = [("f", [1.0, 2.0])]
    fbx = opened(write_binary(nodes, 7500))
    with pytest.raises(ImportFormatError) as e:
        fbx.build_clip(b, 0, sk, default_fbx_options(), default_import_clip_options())
    assert e.value.import_reason == ImportReason.Property and e.value.item == 0


def test_an_additive_cluster_is_refused():
    from fbx_writer import Node, SkinSpec
    models = [ModelSpec("top"), ModelSpec("hip", 0, {}, "LimbNode"), ModelSpec("knee", 1, {}, "LimbNode"),
              ModelSpec("body", 0, {}, "Mesh")]
    nodes = scene_nodes(models, skin=SkinSpec(3, [0.0] * 3, [(1, [0], [1.0], EYE, EYE)]))
    cluster = next(o for o in nodes[2].children if o.name == "Deformer" and o.props[2] == "Cluster")
    cluster.children.append(Node("Mode", ["Additive"]))
    fbx = opened(write_binary(nodes, 7500))
    with pytest.raises(ImportFormatError) as e:
        fbx.build_skin(rt.Builder(), 0, built_skeleton(fbx), default_fbx_options())
    assert e.value.import_reason == ImportReason.Property


def test_full_weights_not_finite_are_data():
    o = [1.0, 0.0, 0.0]
    fbx = opened(blend_file([("c", 10.0, [math.nan], [("s", [0], o, None)])]))
    assert fbx.morph_count == 1 and fbx.morph_target_count(0) == 1
    with pytest.raises(ImportFormatError) as e:
        fbx.morph_weights(0)
    assert e.value.import_reason == ImportReason.Data
    with pytest.raises(ImportFormatError):
        fbx.build_morph_targets(rt.Builder(), 0, default_fbx_options())


@needs_ufbx
def test_an_animated_rotation_order_equals_ufbx_and_one_out_of_range_is_refused():
    from fbx_writer import CurveSpec
    from runtime.importers.common import default_import_clip_options
    from runtime.importers.fbx.clip import evaluate_at, stack_animation
    ticks = [0, SECOND // 2, SECOND]
    curves = [CurveSpec(1, "RotationOrder", 0, ticks, [0.0, 3.0, 5.0], [CONST] * 3),
              CurveSpec(2, "RotationActive", 0, ticks, [1.0, 0.0, 1.0], [CONST] * 3),
              CurveSpec(1, "Lcl Rotation", 1, ticks, [10.0, 60.0, -30.0])]
    models = feature_models(1)
    models[2].props.update({"PreRotation": (15.0, 0.0, 5.0), "RotationActive": 1})
    data = write_binary(scene_nodes(models, curves=curves), 7500)
    times = [0.1, 0.4, 0.6, 0.9, 1.0]
    with tempfile.NamedTemporaryFile(suffix=".fbx", delete=False) as f:
        f.write(data)
    try:
        ref = ufbx_read(f.name, times)["frames"]
    finally:
        Path(f.name).unlink()
    scene = Scene(read_document(data))
    anim, _ = stack_animation(scene, 0)
    _, world, _ = evaluate_at(scene, anim, np.array(times))
    size = model_size([np.array(v) for v in ref[0].values()])
    for k, frame in enumerate(ref):
        for m, name in enumerate(scene.bone_names):
            assert np.abs(world[m, k, :3] - np.array(frame[name.decode()])).max() <= 1e-5 * size, \
                (times[k], name)
    bad = [CurveSpec(1, "RotationOrder", 0, ticks, [0.0, 9.0, 5.0], [CONST] * 3)]
    fbx = opened(write_binary(scene_nodes(models, curves=bad), 7500))
    b = rt.Builder()
    fbx.build_model_skeleton(b, 0, default_fbx_options())
    sk = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))
    with pytest.raises(ImportFormatError) as e:
        fbx.build_clip(b, 0, sk, default_fbx_options(), default_import_clip_options())
    assert e.value.import_reason == ImportReason.Property
    assert e.value.item == fbx._scene.models[1]
