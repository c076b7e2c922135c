"""FBX clips whose animation changes a transform's integer inputs: a layer that composes a
rotation turns it in the RotationOrder the model has at the sample (its layers combined
and truncated as ufbx takes an integer), an animated InheritType is held at rest (ufbx
reads it once, at load), and either animated out of range is refused with the model and
the offset of the record that takes it out. Held against a plain scalar evaluation written
here and against ufbx (in a subprocess)."""
import math
import struct
import tempfile
from pathlib import Path

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.importers.common import ImportFormatError, ImportReason, default_import_clip_options
from runtime.importers.fbx import default_fbx_options
from runtime.importers.fbx.clip import evaluate_at, stack_animation
from runtime.importers.fbx.document import read_document
from runtime.importers.fbx.scene import Scene
from fbx_writer import CurveSpec, ModelSpec, scene_nodes, write_binary
from test_fbx import (CONST, LINEAR_K, SECOND, feature_models, model_size, needs_ufbx, opened,
                      ufbx_read)

TICKS = [0, SECOND // 4, SECOND // 2, 3 * SECOND // 4, SECOND]
TIMES = [0.0, 0.1, 0.3, 0.45, 0.6, 0.8, 0.95, 1.0]


# ------------------------------------------------------------------ a scalar reference
def _axis(k: int, degrees: float) -> np.ndarray:
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    m = np.eye(3)
    i, j = (k + 1) % 3, (k + 2) % 3
    m[i, i], m[i, j], m[j, i], m[j, j] = c, -s, s, c
    return m


_NAMES = ("XYZ", "XZY", "YZX", "YXZ", "ZXY", "ZYX")


def ref_euler(angles, order: int) -> np.ndarray:
    """Euler angles turned in RotationOrder `order`, the first named axis first; spheric
    (6) turns nothing, as ufbx evaluates it."""
    m = np.eye(3)
    if order == 6:
        return m
    for letter in _NAMES[order]:
        k = "XYZ".index(letter)
        m = _axis(k, angles[k]) @ m
    return m


def ref_quat(m) -> np.ndarray:
    """x, y, z, w of a rotation matrix (the largest of the four found first)."""
    t = m[0, 0] + m[1, 1] + m[2, 2]
    cands = [t, m[0, 0], m[1, 1], m[2, 2]]
    big = max(range(4), key=lambda k: cands[k])
    if big == 0:
        w = math.sqrt(1 + t) / 2
        q = [(m[2, 1] - m[1, 2]) / (4 * w), (m[0, 2] - m[2, 0]) / (4 * w),
             (m[1, 0] - m[0, 1]) / (4 * w), w]
    else:
        i = big - 1
        j, k = (i + 1) % 3, (i + 2) % 3
        r = math.sqrt(1 + m[i, i] - m[j, j] - m[k, k]) / 2
        q = [0.0, 0.0, 0.0, (m[k, j] - m[j, k]) / (4 * r)]
        q[i], q[j], q[k] = r, (m[j, i] + m[i, j]) / (4 * r), (m[k, i] + m[i, k]) / (4 * r)
    return np.array(q)


def ref_matrix(q) -> np.ndarray:
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def ref_mul(a, b) -> np.ndarray:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def ref_slerp(a, b, t) -> np.ndarray:
    d = float(np.dot(a, b))
    if d < 0:
        b, d = -b, -d
    omega = math.acos(min(d, 1.0))
    if omega < 1e-12:
        return a
    q = (math.sin((1 - t) * omega) * a + math.sin(t * omega) * b) / math.sin(omega)
    return q / np.linalg.norm(q)


def ref_linear(ticks, values, t: float) -> float:
    """A curve of linear keys at t seconds (held past its ends)."""
    xs = [k / SECOND for k in ticks]
    if t <= xs[0]:
        return values[0]
    for (x0, v0), (x1, v1) in zip(zip(xs, values), zip(xs[1:], values[1:])):
        if t <= x1:
            return v0 + (v1 - v0) * (t - x0) / (x1 - x0)
    return values[-1]


def ref_constant(ticks, values, t: float) -> float:
    """A curve of constant keys at t seconds: the last key at or before t."""
    out = values[0]
    for k, v in zip(ticks, values):
        if k / SECOND <= t:
            out = v
    return out


# ------------------------------------------------------------------ written scenes
BASE = [[10.0, 50.0, -20.0, 35.0, 5.0], [60.0, -15.0, 30.0, 0.0, 45.0], [-30.0, 20.0, 70.0, 10.0, 0.0]]
OVER = [[30.0, -10.0, 15.0, 80.0, 20.0], [5.0, 40.0, -35.0, 10.0, 0.0], [70.0, 25.0, -5.0, 0.0, 60.0]]
# RotationOrder keys of the first layer and of the second (40%): added, -0.5 -> 0, 4.4 -> 4,
# 6.9 -> 6 (spheric), 3.8 -> 3, 2.2 -> 2; blended, 0, 3, 4, 1, 1 (none near a whole number)
ORDER_KEYS = [-0.5, 3.0, 6.5, 5.0, 1.0]
ORDER_ADDED = [0.0, 3.5, 1.0, -3.0, 3.0]
MORE_KEYS = {2: [5.0, 0.0, 2.0, 6.0, 4.0], 3: [6.0, 1.5, 4.0, 2.0, 0.0]}


def composed_scene(blend: int):
    """A root model whose rotation two layers animate (the second composing it, blend
    mode `blend`, weight 40%) and whose RotationOrder is keyed on the first layer and
    added to on the second."""
    curves = [CurveSpec(0, "Lcl Rotation", c, TICKS, BASE[c], [LINEAR_K] * 5) for c in range(3)]
    curves += [CurveSpec(0, "Lcl Rotation", c, TICKS, OVER[c], [LINEAR_K] * 5, layer=1)
               for c in range(3)]
    curves.append(CurveSpec(0, "RotationOrder", 0, TICKS, ORDER_KEYS, [CONST] * 5))
    curves.append(CurveSpec(0, "RotationOrder", 0, TICKS, ORDER_ADDED, [CONST] * 5, layer=1))
    models = [ModelSpec("root", -1, {"Lcl Rotation": (0.0, 0.0, 0.0), "RotationOrder": 2,
                                      "RotationActive": 1})]
    layers = [{}, {"BlendMode": blend, "Weight": 40.0}]
    return write_binary(scene_nodes(models, curves=curves, layers=layers), 7500)


def ref_composed(blend: int, t: float) -> np.ndarray:
    """The scene's root rotation at t, evaluated sample by sample."""
    base = [ref_linear(TICKS, BASE[c], t) for c in range(3)]
    over = [ref_linear(TICKS, OVER[c], t) for c in range(3)]
    first, second = ref_constant(TICKS, ORDER_KEYS, t), ref_constant(TICKS, ORDER_ADDED, t)
    order = int(first + 0.4 * second if blend == 0 else first * 0.6 + second * 0.4)
    a, b = ref_quat(ref_euler(base, order)), ref_quat(ref_euler(over, order))
    if blend == 0:
        q = ref_mul(a, ref_slerp(np.array([0.0, 0.0, 0.0, 1.0]), b, 0.4))
    else:
        q = ref_slerp(a, b, 0.4)
    return ref_matrix(q)


def worlds(data: bytes, times) -> np.ndarray:
    scene = Scene(read_document(data))
    anim, _ = stack_animation(scene, 0)
    return evaluate_at(scene, anim, np.array(times))[1]


def ufbx_frames(data: bytes, times) -> list:
    with tempfile.NamedTemporaryFile(suffix=".fbx", delete=False) as f:
        f.write(data)
    try:
        return ufbx_read(f.name, times)["frames"]
    finally:
        Path(f.name).unlink()


def assert_worlds_equal_ufbx(data: bytes, times):
    ref = ufbx_frames(data, times)
    world = worlds(data, times)
    names = Scene(read_document(data)).bone_names
    size = model_size([np.array(v) for v in ref[0].values()])
    for k, frame in enumerate(ref):
        for m, name in enumerate(names):
            err = np.abs(world[m, k, :3] - np.array(frame[name.decode()])).max()
            assert err <= 1e-5 * size, (times[k], name, err)


@pytest.mark.parametrize("blend", [0, 2], ids=["additive", "passthrough"])
def test_a_composed_rotation_turns_in_the_order_of_its_sample(blend):
    data = composed_scene(blend)
    world = worlds(data, TIMES)
    for k, t in enumerate(TIMES):
        assert np.abs(world[0, k, :3, :3] - ref_composed(blend, t)).max() <= 1e-9, t


@needs_ufbx
@pytest.mark.parametrize("blend", [0, 2], ids=["additive", "passthrough"])
def test_a_composed_rotation_in_animated_orders_equals_ufbx(blend):
    """The composed scene under a chain of pivots and offsets, and a third layer adding to
    the composed angles component by component (read back in the sample's order)."""
    curves = []
    for m in (1, 2, 3):
        curves += [CurveSpec(m, "Lcl Rotation", c, TICKS, BASE[c], [LINEAR_K] * 5)
                   for c in range(3)]
        curves += [CurveSpec(m, "Lcl Rotation", c, TICKS, OVER[c], [LINEAR_K] * 5, layer=1)
                   for c in range(3)]
        curves.append(CurveSpec(m, "RotationOrder", 0, TICKS, MORE_KEYS.get(m, ORDER_KEYS),
                                [CONST] * 5))
        curves.append(CurveSpec(m, "RotationOrder", 0, TICKS, ORDER_ADDED, [CONST] * 5, layer=1))
    curves.append(CurveSpec(2, "Lcl Rotation", 1, TICKS, [10.0, -20.0, 5.0, 0.0, 15.0],
                            [LINEAR_K] * 5, layer=2))
    layers = [{}, {"BlendMode": blend, "Weight": 40.0},
              {"BlendMode": 0, "Weight": 30.0, "RotationAccumulationMode": 1}]
    models = feature_models(4)
    data = write_binary(scene_nodes(models, curves=curves, layers=layers), 7500)
    assert_worlds_equal_ufbx(data, TIMES)


# ------------------------------------------------------------------ InheritType
def inherit_scene(values, rest=2):
    """A root scaled (2, 3, 4) and a child whose InheritType rests at `rest` and is keyed
    to `values` (constant keys)."""
    models = [ModelSpec("top", -1, {"Lcl Scaling": (2.0, 3.0, 4.0)}),
              ModelSpec("child", 0, {"Lcl Translation": (1.0, 1.0, 1.0), "InheritType": rest,
                                     "Lcl Rotation": (0.0, 0.0, 0.0)})]
    curves = [CurveSpec(1, "InheritType", 0, TICKS, values, [CONST] * 5),
              CurveSpec(1, "Lcl Rotation", 2, TICKS, [0.0, 10.0, 0.0, 10.0, 0.0], [LINEAR_K] * 5)]
    return write_binary(scene_nodes(models, curves=curves), 7500)


def test_an_animated_inherit_type_is_held_at_rest():
    """Rrs at rest, keyed to RSrs and RrSs: the child's translation takes the root's
    scale and its own scale stays 1 at every sample, as Rrs gives by hand."""
    world = worlds(inherit_scene([1.0, 0.0, 1.0, 2.0, 1.9]), TIMES)
    for k, t in enumerate(TIMES):
        turn = _axis(2, ref_linear(TICKS, [0.0, 10.0, 0.0, 10.0, 0.0], t))
        assert np.abs(world[1, k, :3, :3] - turn).max() <= 1e-12, t
        assert np.abs(world[1, k, :3, 3] - [2.0, 3.0, 4.0]).max() <= 1e-12, t


@needs_ufbx
def test_an_animated_inherit_type_equals_ufbx():
    curves = [CurveSpec(m, "InheritType", 0, TICKS, [1.0, 0.0, 2.0, 0.5, 2.0], [CONST] * 5)
              for m in (1, 2, 3)]
    curves += [CurveSpec(m, "Lcl Scaling", m - 1, TICKS, [1.0, 2.0, 0.5, 1.5, 1.0], [LINEAR_K] * 5)
               for m in (0, 1, 2)]
    data = write_binary(scene_nodes(feature_models(1, (0, 2, 1)), curves=curves), 7500)
    assert_worlds_equal_ufbx(data, TIMES)
    assert_worlds_equal_ufbx(inherit_scene([1.0, 0.0, 1.0, 2.0, 1.9]), TIMES)


# ------------------------------------------------------------------ refusals
def record_at(data: bytes, name: str, oid: int) -> int:
    """Where the 7.5 record `name` of object id `oid` begins: its 25-byte header before
    its name and first property."""
    at = data.find(name.encode() + b"I" + struct.pack("<i", oid))
    assert at > 0
    return at - 25


def refusal(data: bytes):
    fbx = opened(data)
    b = rt.Builder()
    fbx.build_model_skeleton(b, 0, default_fbx_options())
    sk = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))
    before = bytes(capi.maniBuilder_CopyBuilt(b))
    with pytest.raises(ImportFormatError) as e:
        fbx.build_clip(b, 0, sk, default_fbx_options(), default_import_clip_options())
    assert bytes(capi.maniBuilder_CopyBuilt(b)) == before
    return e.value, fbx


@pytest.mark.parametrize("values", [[1.0, 3.0, 1.0, 1.0, 1.0], [1.0, 1.0, -1.0, 1.0, 1.0]])
def test_an_inherit_type_animated_out_of_range_is_refused(values):
    data = inherit_scene(values)
    err, fbx = refusal(data)
    assert err.import_reason == ImportReason.Property
    assert err.item == fbx._scene.models[1]
    assert err.offset == record_at(data, "AnimationCurve", 9500)


def test_a_value_that_truncates_into_range_is_not_refused():
    """-0.5 is 0 and 2.9 is 2 as ufbx takes an integer: in range."""
    fbx = opened(inherit_scene([-0.5, 2.9, 0.0, 1.0, 2.0]))
    b = rt.Builder()
    fbx.build_model_skeleton(b, 0, default_fbx_options())
    sk = rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))
    fbx.build_clip(b, 0, sk, default_fbx_options(), default_import_clip_options())


def _order_layers(base, added):
    curves = [CurveSpec(1, "RotationOrder", 0, TICKS, base, [CONST] * 5),
              CurveSpec(1, "RotationOrder", 0, TICKS, added, [CONST] * 5, layer=1),
              CurveSpec(1, "Lcl Rotation", 0, TICKS, BASE[0], [LINEAR_K] * 5)]
    layers = [{}, {"BlendMode": 0, "Weight": 100.0}]
    return write_binary(scene_nodes(feature_models(1), curves=curves, layers=layers), 7500)


@pytest.mark.parametrize("base, added, culprit", [
    ([1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 9.0, 0.0, 0.0], 9501),     # the added layer
    ([1.0, 8.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0], 9500),     # the base layer
    ([9.0, 9.0, 9.0, 9.0, 9.0], [0.0, -4.0, 0.0, 0.0, 0.0], 9500),    # out before the add
    ([1.0, 1.0, 1.0, 1.0, 1.0], [0.0, -2.0, 0.0, 0.0, 0.0], 9501)],   # -1 from the add
    ids=["added", "base", "base_first", "negative"])
def test_a_rotation_order_layered_out_of_range_points_at_its_layer(base, added, culprit):
    data = _order_layers(base, added)
    err, fbx = refusal(data)
    assert err.import_reason == ImportReason.Property
    assert err.item == fbx._scene.models[1]
    assert err.offset == record_at(data, "AnimationCurve", culprit)


def test_an_order_out_of_range_without_a_curve_points_at_its_curve_node():
    """The curve node's d|X of 9 (the curve animating d|Y only): the node is the record."""
    from fbx_writer import Node
    curves = [CurveSpec(1, "RotationOrder", 1, TICKS, [1.0] * 5, [CONST] * 5)]
    nodes = scene_nodes(feature_models(1), curves=curves)
    node = next(o for o in nodes[2].children if o.name == "AnimationCurveNode")
    node.children[0].children[0] = Node("P", ["d|X", "Number", "", "A", 9.0])
    data = write_binary(nodes, 7500)
    err, fbx = refusal(data)
    assert err.import_reason == ImportReason.Property
    assert err.item == fbx._scene.models[1]
    assert err.offset == record_at(data, "AnimationCurveNode", 9100)


# ------------------------------------------------------------------ the clip's other refusals
def _built_for(data: bytes, model: int, options):
    fbx = opened(data)
    b = rt.Builder()
    fbx.build_model_skeleton(b, model, options)
    return fbx, b, rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))


def test_a_folded_root_that_shears_at_a_sample_is_matrix():
    """A root turning under a parent scaled (1, 3, 1): folded, its local shears once it
    turns (Matrix, the model), though it does not at rest."""
    from runtime.importers.fbx import FbxOptions
    models = [ModelSpec("top", -1, {"Lcl Scaling": (1.0, 3.0, 1.0)}),
              ModelSpec("arm", 0, {"Lcl Rotation": (0.0, 0.0, 0.0)})]
    curves = [CurveSpec(1, "Lcl Rotation", 2, TICKS, [0.0, 20.0, 45.0, 20.0, 0.0], [LINEAR_K] * 5)]
    opts = FbxOptions(fold_placement=True)
    fbx, b, sk = _built_for(write_binary(scene_nodes(models, curves=curves), 7500), 1, opts)
    before = bytes(capi.maniBuilder_CopyBuilt(b))
    with pytest.raises(ImportFormatError) as e:
        fbx.build_clip(b, 0, sk, opts, default_import_clip_options())
    assert e.value.import_reason == ImportReason.Matrix
    assert e.value.item == fbx._scene.models[1]
    assert bytes(capi.maniBuilder_CopyBuilt(b)) == before
    # unfolded, the same clip builds
    fbx, b, sk = _built_for(write_binary(scene_nodes(models, curves=curves), 7500), 1,
                            default_fbx_options())
    fbx.build_clip(b, 0, sk, default_fbx_options(), default_import_clip_options())


def test_a_float_track_named_twice_is_name():
    """A vector property "w" (tracks arm/w/0 to /2) and a number "w/0" (track arm/w/0)."""
    from fbx_writer import Node
    models = [ModelSpec("arm", -1, {"w": (1.0, 2.0, 3.0), "w/0": 4.0})]
    curves = [CurveSpec(0, "w", 0, TICKS, [1.0, 2.0, 3.0, 4.0, 5.0], [LINEAR_K] * 5),
              CurveSpec(0, "w/0", 0, TICKS, [1.0, 2.0, 3.0, 4.0, 5.0], [LINEAR_K] * 5)]
    nodes = scene_nodes(models, curves=curves)
    scalar = [o for o in nodes[2].children if o.name == "AnimationCurveNode"][1]
    scalar.children[0].children = [Node("P", ["d|Value", "Number", "", "A", 4.0])]
    link = next(c for c in nodes[3].children if c.props[1:3] == [9501, scalar.props[0]])
    link.props[3] = "d|Value"                                 # one component: one track
    data = write_binary(nodes, 7500)
    fbx, b, sk = _built_for(data, 0, default_fbx_options())
    before = bytes(capi.maniBuilder_CopyBuilt(b))
    with pytest.raises(ImportFormatError) as e:
        fbx.build_clip(b, 0, sk, default_fbx_options(), default_import_clip_options())
    assert e.value.import_reason == ImportReason.Name
    assert e.value.item == fbx._scene.models[0]
    assert bytes(capi.maniBuilder_CopyBuilt(b)) == before


def test_a_clip_past_max_samples_is_build_with_the_timing_reason():
    from runtime.clip.clip import MAX_SAMPLES
    from runtime.core.errors import BuildReason
    models = [ModelSpec("arm", -1, {"Lcl Rotation": (0.0, 0.0, 0.0)})]
    curves = [CurveSpec(0, "Lcl Rotation", 0, TICKS, BASE[0], [LINEAR_K] * 5)]
    span = (0, (MAX_SAMPLES // 30 + 10) * SECOND)
    fbx, b, sk = _built_for(write_binary(scene_nodes(models, curves=curves, span=span), 7500), 0,
                            default_fbx_options())
    before = bytes(capi.maniBuilder_CopyBuilt(b))
    with pytest.raises(ImportFormatError) as e:
        fbx.build_clip(b, 0, sk, default_fbx_options(), default_import_clip_options())
    assert e.value.import_reason == ImportReason.Build
    assert e.value.item == BuildReason.Timing
    assert bytes(capi.maniBuilder_CopyBuilt(b)) == before
