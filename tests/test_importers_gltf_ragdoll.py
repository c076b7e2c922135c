"""maniGltf_ReadRagdoll: a rig made in the test (tests/gltf_make.py's ragdoll_rig) read into a
source that the ragdoll builder builds, each body checked against values worked out by
hand from the file (bone, frame, sizes, mass, joint frame, limits, drive, the root's axes),
the built bodies' rest placement against the glTF nodes' world matrices composed here, the
same file in a Z-up centimetre output; then every refusal of the entry's Returns line."""
import copy
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.core.builder import BuilderDef, default_builder_def
from runtime.core.errors import BusyError, CapacityError, InvalidError, ManiError
from runtime.importers.common import ImportFormatError, ImportReason as R
from runtime.importers.gltf import GltfOptions, open_gltf
from runtime.physics import RagdollShape

from gltf_make import HIPS_TURN, SPINE_TURN, ragdoll_rig

PLAIN = GltfOptions()
ZUP = GltfOptions(axes=(1, -3, 2), unit=100.0)
FACING, UP = [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]
H = math.sqrt(0.5)


def _doc(d=None, builder=None):
    return open_gltf(builder or rt.Builder(), (d or ragdoll_rig()).json_bytes())


def _skeleton(doc, options=PLAIN):
    b = rt.Builder()
    capi.maniBuildGltfSkeleton(b, doc, 0, options)
    return rt.Skeleton.open(capi.maniBuilder_CopyBuilt(b))


def _read(d=None, options=PLAIN, facing=FACING, up=UP):
    doc = _doc(d)
    return capi.maniGltf_ReadRagdoll(doc, _skeleton(doc, options), options, facing, up)


def _rot(axis, angle):
    """A rotation matrix about a coordinate axis (Rodrigues, written out)."""
    k = np.zeros((3, 3))
    x, y, z = np.asarray(axis, dtype=float)
    k[:] = [[0, -z, y], [z, 0, -x], [-y, x, 0]]
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def _qmat(q):
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def _same_rotation(q, m, tol=1e-6):
    assert np.allclose(_qmat(np.asarray(q, dtype=float) / np.linalg.norm(q)), m, atol=tol), q


def test_bodies_sit_on_their_bones_with_the_files_frames_sizes_masses_and_joints():
    src = _read()
    by = {b.name: b for b in src.bodies}
    assert sorted(by) == [b"head", b"hips", b"spine"]           # the crate and floor are not
    hips, spine, head = by[b"hips"], by[b"spine"], by[b"head"]
    sk = src.skeleton
    assert [sk.bone_name(b.bone) for b in (hips, spine, head)] == ["hips", "spine", "head"]
    # hips: a box on a child at (0, 0.05, 0) scaled (1, 2, 1): half of (0.4, 0.2, 0.3) times it
    assert hips.shape == RagdollShape.box and hips.mass == 10.0
    assert np.allclose(hips.size, [0.2, 0.2, 0.15])
    assert np.allclose(hips.translation, [0, 0.05, 0]) and np.allclose(hips.rotation, [0, 0, 0, 1])
    # spine: a capsule (height 0.3, radius 0.1) on a child turned 90 degrees about x and
    # scaled (1.5, 2, 1.5): radius 0.15, half the height 0.15 times 2
    assert spine.shape == RagdollShape.capsule and spine.mass == 5.0
    assert np.allclose(spine.size, [0.15, 0.3, 0.0])
    assert np.allclose(spine.translation, [0, 0.1, 0])
    _same_rotation(spine.rotation, _rot([1, 0, 0], math.pi / 2))
    # its joint sits at the spine bone's origin: in the capsule's frame, (0, 0, 0.1) turned back
    assert np.allclose(spine.joint_translation, [0, 0, 0.1])
    _same_rotation(spine.joint_rotation, _rot([1, 0, 0], -math.pi / 2))
    assert (spine.twist_min, spine.twist_max) == pytest.approx((-0.3, 0.6))
    assert (spine.swing_y, spine.swing_z) == pytest.approx((0.4, 0.25))   # z: the tighter
    assert (spine.stiffness, spine.damping, spine.max_force) == (50.0, 5.0, 100.0)
    # head: kinematic, a sphere of radius 0.1 on a bone scaled 2; a free twist, no drive
    assert head.shape == RagdollShape.sphere and head.mass == 3.0
    assert np.allclose(head.size, [0.2, 0, 0]) and np.allclose(head.translation, 0)
    assert np.allclose(head.joint_translation, 0) and np.allclose(head.joint_rotation, [0, 0, 0, 1])
    assert (head.twist_min, head.twist_max) == (-math.pi, math.pi)
    assert (head.swing_y, head.swing_z) == pytest.approx((0.2, 0.5))
    assert (head.stiffness, head.damping, head.max_force) == (0.0, 0.0, math.inf)
    # the root body (the hips, turned about y): glTF's +z and +y in its frame
    a = HIPS_TURN
    assert np.allclose(src.facing, [-math.sin(a), 0, math.cos(a)])
    assert np.allclose(src.up, [0, 1, 0])


def _world(j, node):
    """A node's world matrix from the JSON: TRS products up the parents (glTF's rule)."""
    parent = {c: i for i, n in enumerate(j["nodes"]) for c in n.get("children", [])}
    m = np.eye(4)
    while node is not None:
        n = j["nodes"][node]
        local = np.eye(4)
        local[:3, :3] = _qmat(n.get("rotation", [0, 0, 0, 1])) * n.get("scale", [1, 1, 1])
        local[:3, 3] = n.get("translation", [0, 0, 0])
        m = local @ m
        node = parent.get(node)
    return m


def test_the_built_bodies_at_rest_stand_where_the_collider_nodes_stand():
    d = ragdoll_rig()
    src = _read(d)
    b = rt.Builder()
    capi.maniBuildRagdoll(b, src)
    ragdoll = capi.maniOpenRagdoll(capi.maniBuilder_CopyBuilt(b))
    sk = src.skeleton
    pose = rt.Pose(sk)
    pose.set_rest(sk)
    pose.compute_model(sk)
    place = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]
    rows, count = capi.maniRagdoll_ComputeBodiesFromPose(ragdoll, pose, place, None, None, 1 / 60)
    assert count == 3
    colliders = {"hips": 3, "spine": 5, "head": 2}
    for k in range(count):
        body = capi.maniRagdoll_GetBody(ragdoll, k)
        w = _world(d.j, colliders[sk.bone_name(body.bone)])
        assert np.allclose(rows[k, 0:3], w[:3, 3], atol=1e-5)
        axes = w[:3, :3] / np.linalg.norm(w[:3, :3], axis=0)
        _same_rotation(rows[k, 3:7], axes, tol=1e-5)
    spine = next(capi.maniRagdoll_GetBody(ragdoll, k) for k in range(3)
                 if sk.bone_name(capi.maniRagdoll_GetBody(ragdoll, k).bone) == "spine")
    # the joint's frame in the hips body is the anchor node's: (0, 0.2 - 0.05, 0), turned
    assert np.allclose(spine.parent_frame[0:3], [0, 0.15, 0], atol=1e-6)
    _same_rotation(spine.parent_frame[3:7], _rot([0, 0, 1], SPINE_TURN), tol=1e-6)


def test_a_z_up_centimetre_output_keeps_each_shapes_axes_and_scales_its_lengths():
    src = _read(options=ZUP)
    by = {b.name: b for b in src.bodies}
    turn = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=float)   # output from glTF
    assert np.allclose(by[b"hips"].size, [20, 20, 15])
    assert np.allclose(by[b"hips"].translation, [0, 0, 5])
    _same_rotation(by[b"hips"].rotation, turn)
    assert np.allclose(by[b"spine"].size, [15, 30, 0])
    assert np.allclose(by[b"spine"].translation, [0, 0, 10])
    _same_rotation(by[b"spine"].rotation, turn @ _rot([1, 0, 0], math.pi / 2))
    assert np.allclose(by[b"spine"].joint_translation, [0, 0, 10])    # in the body's own axes
    assert np.allclose(by[b"head"].size, [20, 0, 0])
    # the body's axes are glTF's, so the root's facing and up read the same in any output
    a = HIPS_TURN
    assert np.allclose(src.facing, [-math.sin(a), 0, math.cos(a)])
    assert np.allclose(src.up, [0, 1, 0])
    rt.build_ragdoll(rt.Builder(), src)


def test_without_bodies_on_the_skeleton_the_source_is_empty():
    d = ragdoll_rig()
    for n in d.j["nodes"][:3]:
        n.pop("extensions")
    for n in d.j["nodes"]:
        n.get("extensions", {}).pop("OMI_physics_joint", None)
    src = _read(d)
    assert src.bodies == []
    d.j.pop("extensions")
    for n in d.j["nodes"]:
        n.pop("extensions", None)
    assert _read(d).bodies == []


def test_bodies_off_the_skeleton_are_passed_over_unread():
    d = ragdoll_rig()
    d.j["nodes"][9]["extensions"]["OMI_physics_body"]["motion"] = {"mass": "?"}   # no type
    d.j["nodes"][10]["extensions"]["OMI_physics_body"] = {"motion": {"type": "static"},
                                                          "collider": {"shape": 99}}
    assert sorted(b.name for b in _read(d).bodies) == [b"head", b"hips", b"spine"]


def test_the_source_is_the_documents_until_the_next_call_or_the_close():
    freed = []
    b = rt.Builder(BuilderDef(default_builder_def().cookie, alloc=lambda u, n: bytearray(n),
                              free=lambda u, x: freed.append(len(x))))
    doc = _doc(builder=b)
    sk = _skeleton(doc)
    first = capi.maniGltf_ReadRagdoll(doc, sk, PLAIN, FACING, UP)
    assert doc.ragdoll_read is first and freed == []
    second = capi.maniGltf_ReadRagdoll(doc, sk, PLAIN, FACING, UP)
    assert doc.ragdoll_read is second and len(freed) == 1          # the first one's block
    capi.maniCloseGltf(doc)
    assert doc.ragdoll_read is None and len(freed) == 3            # the document's, the source's


# ---- refusals --------------------------------------------------------------------------------
def _refused(reason, d, item=None, options=PLAIN):
    doc = _doc(d)
    sk = _skeleton(doc, options)
    before = doc.ragdoll_read
    with pytest.raises(ImportFormatError) as info:
        capi.maniGltf_ReadRagdoll(doc, sk, options, FACING, UP)
    e = info.value
    assert e.import_reason == reason, e
    if item is not None:
        assert e.item == item, e
    assert doc.ragdoll_read is before                                # nothing written
    return e


def _edit(fn):
    d = ragdoll_rig()
    fn(d.j)
    return d


def _shapes(j):
    return j["extensions"]["OMI_physics_shape"]["shapes"]


def _settings(j, k=0):
    return j["extensions"]["OMI_physics_joint"]["physicsJoints"][k]


def _body(j, n):
    return j["nodes"][n]["extensions"]["OMI_physics_body"]


def test_null_arguments_options_and_axes_are_invalid():
    doc = _doc()
    sk = _skeleton(doc)
    good = (doc, sk, PLAIN, FACING, UP)
    for k in range(5):
        args = list(good)
        args[k] = None
        with pytest.raises(InvalidError):
            capi.maniGltf_ReadRagdoll(*args)
    bad = [GltfOptions(axes=(1, 2, 2)), GltfOptions(axes=(1, 3, 2)), GltfOptions(unit=0.0)]
    for options in bad:
        with pytest.raises(InvalidError):
            capi.maniGltf_ReadRagdoll(doc, sk, options, FACING, UP)
    for facing, up in (([0, 0, 1.01], UP), (FACING, [0, 0.5, 0]), (FACING, FACING),
                       ([0, 0, 0], UP), ([0, 0, math.nan], UP), ([0, 1], UP)):
        with pytest.raises(InvalidError):
            capi.maniGltf_ReadRagdoll(doc, sk, PLAIN, facing, up)
    assert doc.ragdoll_read is None
    tilt = [0, 0.0005, 1]                        # within a thousandth: taken
    capi.maniGltf_ReadRagdoll(doc, sk, PLAIN, tilt, UP)


@pytest.mark.parametrize("why, edit, item", [
    ("a cylinder", lambda j: _shapes(j).__setitem__(1, {"type": "cylinder"}), 1),
    ("a trimesh", lambda j: _shapes(j).__setitem__(0, {"type": "trimesh"}), 0),
    ("a capsule with two radii", lambda j: _shapes(j)[2]["capsule"].update(radiusTop=0.2), 2),
    ("a sphere scaled unevenly", lambda j: j["nodes"][2].update(scale=[2, 1, 2]), 2),
    ("a capsule scaled unevenly across", lambda j: j["nodes"][5].update(scale=[1, 2, 1.5]), 5),
    ("a zero size", lambda j: _shapes(j)[0]["box"].update(size=[0.4, 0, 0.3]), 0),
    ("a body with two colliders", lambda j: j["nodes"][4].update(
        extensions={"OMI_physics_body": {"collider": {"shape": 0}}}), 0),
    ("a body without a collider", lambda j: _body(j, 2).pop("collider"), 2),
    ("a mass of 0", lambda j: _body(j, 1)["motion"].update(mass=0.0), 1),
    ("a second body on a bone", lambda j: j["nodes"][6].setdefault("extensions", {}).update(
        OMI_physics_body={"motion": {"type": "dynamic"}, "collider": {"shape": 0}}), 6),
    ("a free linear axis", lambda j: _settings(j)["limits"][0].update(linearAxes=[0, 1]), 6),
    ("a linear range", lambda j: _settings(j)["limits"][0].update(max=0.1), 6),
    ("an uneven swing", lambda j: _settings(j)["limits"][2].update(min=-0.1), 6),
    ("an empty range", lambda j: _settings(j)["limits"][1].update(min=0.7), 6),
    ("a soft limit", lambda j: _settings(j)["limits"][1].update(stiffness=10.0), 0),
    ("a drive with a target", lambda j: _settings(j)["drives"][0].update(positionTarget=0), 0),
    ("an acceleration drive", lambda j: _settings(j)["drives"][1].update(mode="acceleration"), 0),
    ("a linear drive", lambda j: _settings(j)["drives"][2].update(type="linear"), 0),
    ("unequal drives", lambda j: _settings(j)["drives"][2].update(stiffness=40.0), 6),
    ("drives on two axes", lambda j: _settings(j)["drives"].pop(), 6),
    ("a drive without force", lambda j: [d.update(maxForce=0.0)
                                         for d in _settings(j)["drives"]], 6),
    ("a joint to the crate", lambda j: j["nodes"][6]["extensions"]["OMI_physics_joint"].update(
        connectedNode=9), 6),
    ("a joint skipping a body", lambda j: j["nodes"][8]["extensions"]["OMI_physics_joint"].update(
        connectedNode=4), 8),
    ("a joint to the world", lambda j: j["nodes"][10].setdefault("extensions", {}).update(
        OMI_physics_joint={"joint": 1, "connectedNode": 3}), 10),
    ("a second joint on a body", lambda j: j["nodes"][5].setdefault("extensions", {}).update(
        OMI_physics_joint={"joint": 1, "connectedNode": 4}), 6),
    ("a body without a joint", lambda j: j["nodes"][8].pop("extensions"), 2),
])
def test_what_a_profile_cannot_hold_is_unsupported(why, edit, item):
    _refused(R.Unsupported, _edit(edit), item)


def test_a_second_root_body_on_the_skeleton_is_unsupported():
    d = ragdoll_rig()
    d.j["nodes"][6].pop("extensions")            # the spine joint gone: spine still parented
    d.j["nodes"][0].pop("extensions")            # no hips body: spine is the root ...
    d.j["nodes"][3]["extensions"] = {}
    d.j["nodes"][0]["children"].append(11)       # ... and a body on a new bone beside it
    d.j["nodes"].append({"name": "tail", "extensions": {"OMI_physics_body": {
        "motion": {"type": "dynamic"}, "collider": {"shape": 1}}}})
    d.j["skins"][0]["joints"].append(11)
    _refused(R.Unsupported, d, 11)


@pytest.mark.parametrize("reason, edit, item", [
    (R.Index, lambda j: _body(j, 2)["collider"].update(shape=9), 2),
    (R.Index, lambda j: j["nodes"][6]["extensions"]["OMI_physics_joint"].update(joint=5), 6),
    (R.Index, lambda j: j["nodes"][6]["extensions"]["OMI_physics_joint"].update(
        connectedNode=99), 6),
    (R.Property, lambda j: _shapes(j).__setitem__(0, {"type": "cone"}), 0),
    (R.Property, lambda j: _shapes(j)[0].update(box=[1, 2]), 0),
    (R.Property, lambda j: _shapes(j)[0]["box"].update(size=[1, 2]), 0),
    (R.Property, lambda j: _shapes(j)[1]["sphere"].update(radius="big"), 1),
    (R.Property, lambda j: _body(j, 1)["motion"].update(mass="heavy"), 1),
    (R.Property, lambda j: _body(j, 1)["motion"].update(type="floating"), 1),
    (R.Property, lambda j: _body(j, 1).update(motion=[1]), 1),
    (R.Property, lambda j: _body(j, 3).update(collider=3), 3),
    (R.Property, lambda j: j["nodes"][6]["extensions"].update(OMI_physics_joint=[]), 6),
    (R.Property, lambda j: _settings(j).update(limits={}), 0),
    (R.Property, lambda j: _settings(j)["limits"][1].update(angularAxes=[3]), 0),
    (R.Property, lambda j: _settings(j)["limits"][1].update(min="low"), 0),
    (R.Property, lambda j: _settings(j)["drives"][0].pop("axis"), 0),
    (R.Property, lambda j: _settings(j)["drives"][0].update(damping=-1.0), 0),
])
def test_malformed_physics_is_a_format_error_with_its_reason_and_item(reason, edit, item):
    e = _refused(reason, _edit(edit), item)
    assert e.offset > 0                          # the object at fault, in the JSON


def test_the_offset_is_the_json_object_at_fault():
    d = _edit(lambda j: _shapes(j).__setitem__(1, {"type": "cylinder", "at": "me"}))
    text = d.json_bytes()
    e = _refused(R.Unsupported, d, 1)
    assert text[e.offset:].startswith(b"{") and text[e.offset:e.offset + 40].find(b"cylinder") > 0


def test_capacity_and_busy_through_the_builders_allocator():
    state = {"refuse": False, "inside": None, "seen": []}

    def alloc(user, size):
        if state["inside"] is not None:
            doc, sk = state["inside"]
            try:
                capi.maniGltf_ReadRagdoll(doc, sk, PLAIN, FACING, UP)
            except BusyError:
                state["seen"].append("busy")
        return None if state["refuse"] else bytearray(size)
    b = rt.Builder(BuilderDef(default_builder_def().cookie, alloc=alloc, free=lambda u, x: None))
    doc = _doc(builder=b)
    sk = _skeleton(doc)
    first = capi.maniGltf_ReadRagdoll(doc, sk, PLAIN, FACING, UP)
    state["refuse"] = True
    with pytest.raises(CapacityError):
        capi.maniGltf_ReadRagdoll(doc, sk, PLAIN, FACING, UP)
    assert doc.ragdoll_read is first                                 # unchanged
    state["refuse"], state["inside"] = False, (doc, sk)
    misuse = b.misuse
    capi.maniGltf_ReadRagdoll(doc, sk, PLAIN, FACING, UP)
    assert state["seen"] == ["busy"] and b.misuse == misuse + 1


def test_the_reader_does_not_touch_the_file_json():
    d = ragdoll_rig()
    before = copy.deepcopy(d.j)
    _read(d)
    assert json.dumps(d.j, sort_keys=True) == json.dumps(before, sort_keys=True)


def _leaves(value, path=()):
    """Every place in a JSON value (paths into dicts and lists)."""
    yield path
    items = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, list) else ()
    for key, v in items:
        yield from _leaves(v, path + (key,))


ODD = [None, True, -1, 0, 3, 99, 2 ** 40, -0.5, 1e300, "x", [], [0, 1, 2], {}, {"type": "box"}]


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_mutated_physics_only_ever_raises_the_specs_errors(data):
    """One place in the physics (the extensions, and the nodes' own) replaced by an odd
    value: the read raises a ManiError or gives a source the builder builds or refuses."""
    d = ragdoll_rig()
    places = [("extensions",) + p for p in _leaves(d.j["extensions"])][1:] + \
        [("nodes", n, "extensions") + p for n, node in enumerate(d.j["nodes"])
         if "extensions" in node for p in _leaves(node["extensions"])]
    path = data.draw(st.sampled_from(places))
    at = d.j
    for key in path[:-1]:
        at = at[key]
    at[path[-1]] = data.draw(st.sampled_from(ODD))
    doc = _doc(d)
    sk = _skeleton(doc)
    try:
        src = capi.maniGltf_ReadRagdoll(doc, sk, PLAIN, FACING, UP)
    except ManiError:
        return
    if src.bodies:
        try:
            rt.build_ragdoll(rt.Builder(), src)
        except ManiError:
            pass
