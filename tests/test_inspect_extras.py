"""The inspector's morph targets, spring bones and ragdoll bodies: the rows it draws against
glTF's morphing evaluated in numpy from the accessors (tests/gltf_reference.py), the spring
chains against the runtime's spring state driven directly, the overlay's body lines where
the bodies' collider nodes project, and the refusals of --morph."""
import json
import math

import numpy as np
import pytest

import runtime as rt
from runtime.importers.gltf import (GltfOptions, build_gltf_clip, build_gltf_skeleton,
                                    open_gltf, read_springs)
from runtime.importers.common import ImportClipOptions

from gltf_make import ragdoll_rig, rig
from gltf_reference import GLTF, SHARED, Ref
from inspect_fixtures import needs_headless_gl, staged

CUBE = GLTF / "AnimatedMorphCube" / "AnimatedMorphCube.glb"
SIMPLE = GLTF / "SimpleMorph" / "SimpleMorph.gltf"
PRIMITIVES = GLTF / "MorphPrimitivesTest" / "MorphPrimitivesTest.gltf"
SPHERES = SHARED / "vrm" / "three-vrm-springbone" / "sphere-collider.gltf"


def _figure(path):
    from stadium.inspect.figure import Figure
    from stadium.inspect.loading import load
    return Figure(load(path))


def _morphed(ref: Ref, node: int, weights) -> np.ndarray:
    """Every primitive of the node's mesh morphed by `weights` (glTF: the bind positions
    plus each target's POSITION deltas times its weight) and placed by the node's world
    matrix at rest, stacked in primitive order."""
    world = ref.world(ref.rest())[node]
    out = []
    for p in ref.j["meshes"][ref.nodes[node]["mesh"]]["primitives"]:
        pos = ref.accessor(p["attributes"]["POSITION"])
        for w, target in zip(weights, p["targets"]):
            pos = pos + w * ref.accessor(target["POSITION"])
        out.append(pos @ world[:3, :3].T + world[:3, 3])
    return np.concatenate(out)


def _weights_at(ref: Ref, t: float) -> np.ndarray:
    """The first animation's weights channel at `t`, LINEAR as glTF interpolates it."""
    anim = ref.j["animations"][0]
    sampler = anim["samplers"][anim["channels"][0]["sampler"]]
    times = ref.accessor(sampler["input"])[:, 0]
    values = ref.accessor(sampler["output"]).reshape(len(times), -1)
    return np.array([np.interp(t, times, values[:, k]) for k in range(values.shape[1])])


@pytest.mark.parametrize("path", [CUBE, SIMPLE], ids=["AnimatedMorphCube", "SimpleMorph"])
def test_animated_weights_morph_the_rows_before_skinning(path):
    """At the clip's samples the rows are the accessors' positions plus the targets' deltas
    at the animation's weights, placed by the node: within 1e-5 of the model's size."""
    ref = Ref(staged(path))
    figure = _figure(path)
    node = next(i for i, n in enumerate(ref.nodes) if "mesh" in n)
    _, clip = figure.asset.clips[0]
    size = float(np.ptp(_morphed(ref, node, [0.0, 0.0]), axis=0).max())     # as placed
    times = np.arange(clip.sample_count) / clip.sample_rate
    times[-1] = clip.duration
    moved = 0.0
    for t in times[::max(1, len(times) // 12)]:
        figure.pose(clip, float(t))
        w = _weights_at(ref, float(t))
        assert np.abs(figure.weights - w).max() <= 1e-6, t
        want = _morphed(ref, node, w)
        assert np.abs(figure.vertices[:, :3] - want).max() <= 1e-5 * size, t
        moved = max(moved, float(np.abs(want - _morphed(ref, node, 0 * w)).max()))
    assert moved > 0.05 * size                      # the weights do move the mesh


def test_mesh_default_weights_and_held_weights_on_every_primitive():
    """MorphPrimitivesTest has no animation: its mesh's default weight 0.5 morphs both
    primitives; a held weight (the slider's, --morph's) replaces it on both."""
    ref = Ref(staged(PRIMITIVES))
    figure = _figure(PRIMITIVES)
    node = next(i for i, n in enumerate(ref.nodes) if "mesh" in n)
    assert [(w.name, w.default) for w in figure.asset.weights] == [("0", 0.5)]
    size = float(np.ptp(figure.vertices[:, :3], axis=0).max())
    for held in (None, 1.0, -0.25):
        if held is not None:
            figure.override("0", held)
        figure.pose(None, 0.0)
        want = _morphed(ref, node, [0.5 if held is None else held])
        assert np.abs(figure.vertices[:, :3] - want).max() <= 1e-5 * max(size, 1.0), held
    figure.overrides.clear()
    figure.pose(None, 0.0)
    assert np.abs(figure.vertices[:, :3] - _morphed(ref, node, [0.5])).max() <= 1e-5


def test_a_held_weight_overrides_the_clips_and_normals_stay_unit():
    ref = Ref(staged(CUBE))
    figure = _figure(CUBE)
    _, clip = figure.asset.clips[0]
    figure.override("1", 0.75)
    figure.pose(clip, 0.5)
    w = _weights_at(ref, 0.5)
    assert figure.weights[0] == pytest.approx(w[0], abs=1e-6) and figure.weights[1] == 0.75
    normals = figure._normals
    assert np.abs(np.linalg.norm(normals, axis=1) - 1).max() < 1e-5


def _run(argv):
    from stadium.inspect.__main__ import run
    return run(argv)


@pytest.mark.parametrize("morph, why", [("nope=1", "no morph target 'nope'"),
                                        ("0=nan", "finite"), ("0=inf", "finite"),
                                        ("0=1e39", "finite"), ("0", "NAME=W"),
                                        ("=1", "NAME=W"), ("0=x", "finite")])
def test_bad_morph_options_are_one_line_and_exit_2(tmp_path, capsys, morph, why):
    out = tmp_path / "out"
    assert _run([str(staged(CUBE)), "--headless", "--out", str(out),
                 "--morph", morph]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--morph" in err[0] and why in err[0], err
    assert not out.exists()


def test_held_weights_reach_the_headless_frames(tmp_path):
    """--morph moves the drawn cube: frames with weight 1 on target 1 differ from the
    clip's own, and from the unknown-free run with the same clip."""
    from PIL import Image
    needs_headless_gl()
    path = str(staged(CUBE))
    plain, held = tmp_path / "plain", tmp_path / "held"
    assert _run([path, "--headless", "--out", str(plain), "--frames", "2", "--scale", "1"]) == 0
    assert _run([path, "--headless", "--out", str(held), "--frames", "2", "--scale", "1",
                 "--morph", "1=1,0=0"]) == 0
    a = np.asarray(Image.open(plain / "00_Square_000.png"), int)
    b = np.asarray(Image.open(held / "00_Square_000.png"), int)
    assert (np.abs(a - b).sum(axis=2) > 30).sum() > 200


# ---- spring bones ----------------------------------------------------------------------
def _rig_file(tmp_path, doc=None):
    """tests/gltf_make's rig (a skinned arm with a spring chain and a collider, a clip
    that waves it) as a file, with the external buffer it names beside it."""
    doc = doc or rig()
    path = tmp_path / "rig.gltf"
    path.write_bytes(doc.json_bytes())
    (tmp_path / "extra.bin").write_bytes(b"\0" * 4)
    return path


PLAIN = GltfOptions(fold_placement=True)


def _direct(path, times):
    """The chain bones' model origins at `times`, from the runtime alone: the skeleton,
    clip and spring set built from the document, the clip sampled and the state stepped by
    each time's delta (cut into as many equal calls as the inspector cuts it), applied."""
    doc = open_gltf(rt.Builder(), path.read_bytes())
    doc.supply_buffer(1, b"\0" * 4)
    b = rt.Builder()
    sk = rt.Skeleton.open(bytes(build_gltf_skeleton(b, doc, 0, PLAIN)))
    clip = rt.Clip.open(bytes(build_gltf_clip(b, doc, 0, sk, PLAIN,
                                              ImportClipOptions(sample_rate=0))[0]))
    springs = rt.SpringSet.open(bytes(rt.build_spring_set(b, read_springs(doc, sk, PLAIN))))
    state = rt.SpringState(springs, sk)
    pose, between = rt.Pose(sk), rt.Pose(sk)
    out, last = [], times[0]
    for t in times:
        cuts = max(1, math.ceil((t - last) * 60 - 1e-9))
        for k in range(1, cuts):
            clip.sample(sk, last + (t - last) * k / cuts, between)
            state.step(between, delta=(t - last) / cuts)
        clip.sample(sk, t, pose)
        state.step(pose, delta=(t - last) / cuts)
        state.apply(pose)
        pose.compute_model(sk)
        out.append(np.asarray(pose.model, np.float64)[springs.joint_bones, :, 3].copy())
        last = t
    return out


@pytest.mark.parametrize("rate", [60.0, 7.0], ids=["played", "sheet jumps"])
def test_spring_chain_tips_are_a_direct_runtime_step_of_the_same_inputs(tmp_path, rate):
    """Played at 60 Hz, or in the sheet's far-apart frames (cut into 1/60 s calls), the
    inspector's chain joints equal the runtime's spring state stepped on the same clip at
    the same times; and the springs do move the hand off the clip's own pose."""
    from stadium.inspect.overlay import spring_chains
    path = _rig_file(tmp_path)
    figure = _figure(path)
    assert figure.asset.springs is not None and figure.springs_on
    _, clip = figure.asset.clips[0]
    times = np.arange(0.0, float(clip.duration) + 1e-9, 1.0 / rate)
    want = _direct(path, times)
    off = _figure(path)
    off.springs_on = False
    swayed = 0.0
    for t, w in zip(times, want):
        figure.pose(clip, float(t))
        got = np.concatenate(spring_chains(figure))
        assert np.abs(got - w).max() <= 1e-6, t
        off.pose(clip, float(t))
        swayed = max(swayed, float(np.abs(np.asarray(off.pose_.model)[:, :, 3]
                                          - np.asarray(figure.pose_.model)[:, :, 3]).max()))
    assert swayed > 1e-3


def test_a_jump_back_restarts_the_springs_from_the_pose(tmp_path):
    figure = _figure(_rig_file(tmp_path))
    _, clip = figure.asset.clips[0]
    fresh = _figure(_rig_file(tmp_path))
    for t in np.arange(0.0, 0.6, 1 / 60):
        figure.pose(clip, float(t))
    figure.pose(clip, 0.1)                 # back: as if the clip started at 0.1
    fresh.pose(clip, 0.1)
    assert np.array_equal(np.asarray(figure.pose_.model), np.asarray(fresh.pose_.model))


def test_the_spring_sample_shows_its_chain_and_the_collider_beside_it(tmp_path):
    """three-vrm's sphere-collider: the collider's own root joins the rigid skeleton, and
    the overlay draws the chain along its joints and the collider ring about its node."""
    from stadium.inspect.overlay import CHAIN, COLLIDER, paint, project
    from stadium.inspect.stage import Stage
    from stadium.render.gfx import Graphics
    needs_headless_gl()
    figure = _figure(staged(SPHERES))
    ref = Ref(SPHERES)
    assert figure.asset.springs.spring_count == 1
    assert figure.skeleton.find_bone(b"Collider") != rt.NO_BONE
    gfx = Graphics.open_headless((320, 288))
    try:
        stage = Stage(gfx, figure, scale=2)
        stage.show(None, 0.0)
        layer = np.zeros(stage.rgb.shape[:2] + (4,), np.uint8)
        paint(layer, stage, bones=False)
        world = ref.world(ref.rest())
        joints = project(stage, np.array([world[n][:3, 3] for n in range(5)]))
        for a, b in zip(joints[:-1], joints[1:]):      # the chain's midpoints are CHAIN
            x, y = np.round((a + b) / 2).astype(int)
            assert (layer[y - 1:y + 2, x - 1:x + 2] == CHAIN).all(axis=2).any()
        centre = world[5][:3, 3]
        radius = 0.5 * 0.5                              # the sphere's, times its node's scale
        ring = project(stage, centre + radius * np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0],
                                                          [0, -1, 0]]))
        for x, y in np.round(ring).astype(int):
            assert (layer[y - 1:y + 2, x - 1:x + 2] == COLLIDER).all(axis=2).any()
    finally:
        stage.release()
        gfx.release()


# ---- ragdoll bodies --------------------------------------------------------------------
def _ragdoll_file(tmp_path):
    """gltf_make's ragdoll rig with a mesh for the inspector: a small quad skinned to the
    hips, on a node outside the skeleton."""
    d = ragdoll_rig()
    pos = d.add([[-0.1, 1, 0], [0.1, 1, 0], [0.1, 1.4, 0], [-0.1, 1.4, 0]], "VEC3",
                min=[-0.1, 1, 0], max=[0.1, 1.4, 0])
    joints = d.add([[0, 0, 0, 0]] * 4, "VEC4", 5121, "u1")
    weights = d.add([[1, 0, 0, 0]] * 4, "VEC4")
    index = d.add([0, 1, 2, 0, 2, 3], "SCALAR", 5123, "<u2")
    d.j["meshes"] = [{"primitives": [{"attributes": {"POSITION": pos, "JOINTS_0": joints,
                                                     "WEIGHTS_0": weights}, "indices": index}]}]
    d.j["nodes"].append({"name": "skin", "mesh": 0, "skin": 0})
    d.j["scenes"][0]["nodes"].append(len(d.j["nodes"]) - 1)
    path = tmp_path / "ragdoll.gltf"
    path.write_bytes(d.json_bytes())
    return path, d


def test_the_bodies_are_drawn_where_their_collider_nodes_project(tmp_path):
    """The hips' box (a collider node scaled 1, 2, 1 under the hips) and the head's sphere:
    the overlay's body lines pass through the box's corners and the sphere's rim, computed
    from the file's node TRS in numpy."""
    from stadium.inspect.overlay import BODY, paint, project
    from stadium.inspect.stage import Stage
    from stadium.render.gfx import Graphics
    needs_headless_gl()
    path, doc = _ragdoll_file(tmp_path)
    figure = _figure(path)
    assert figure.asset.ragdoll.body_count == 3
    ref = Ref(path)
    world = ref.world(ref.rest())
    names = [n.get("name") for n in ref.nodes]
    box = world[names.index("hips_shape")]
    corners = np.array([[x, y, z] for x in (-.2, .2) for y in (-.1, .1) for z in (-.15, .15)])
    corners = corners @ box[:3, :3].T + box[:3, 3]
    head = world[names.index("head")]              # its sphere: radius 0.1 times scale 2
    axes = head[:3, :3] / np.linalg.norm(head[:3, :3], axis=0)
    rim = head[:3, 3] + 0.2 * np.concatenate([axes.T, -axes.T])
    gfx = Graphics.open_headless((320, 288))
    try:
        stage = Stage(gfx, figure, scale=2)
        stage.show(None, 0.0)
        layer = np.zeros(stage.rgb.shape[:2] + (4,), np.uint8)
        paint(layer, stage, bones=False)
        drawn = (layer == BODY).all(axis=2)
        h, w = drawn.shape
        points = np.round(project(stage, np.concatenate([corners, rim]))).astype(int)
        for k, (x, y) in enumerate(points):
            assert 0 <= x < w and 0 <= y < h
            assert drawn[max(y - 1, 0):y + 2, max(x - 1, 0):x + 2].any(), (k, x, y)
        assert drawn.sum() > 200
    finally:
        stage.release()
        gfx.release()


def test_r_drops_the_figure_as_a_ragdoll_that_falls_to_the_ground(tmp_path):
    """The window's R: MuJoCo takes the bodies from the pose; a second of falling brings
    the hips down toward the ground the figure stands on; R again stands it up."""
    pytest.importorskip("mujoco")
    from stadium.inspect.window import Inspector
    from stadium.render.gfx import Graphics
    needs_headless_gl()
    path, _ = _ragdoll_file(tmp_path)
    figure = _figure(path)
    game = Inspector(figure, scale=1)
    gfx = Graphics.open_headless((320, 288))
    try:
        game.load(gfx)
        game.draw(gfx)
        hips = figure.skeleton.find_bone(b"hips")
        before = float(np.asarray(figure.pose_.model)[hips, 1, 3])
        rows = figure.vertices[:, :3].copy()
        game.keypressed("r")
        assert game.dropped and not game.playing
        for _ in range(60):
            game.update(1 / 60)
        game.draw(gfx)
        after = float(np.asarray(figure.pose_.model)[hips, 1, 3])
        assert after < before - 0.2 and after > game.stage.floor - 0.05
        assert np.abs(figure.vertices[:, :3] - rows).max() > 0.1
        game.keypressed("r")
        assert not game.dropped
    finally:
        game.release()
        gfx.release()


def test_the_window_keys_toggle_springs_and_bodies(tmp_path):
    from stadium.inspect.window import Inspector
    from stadium.render.gfx import Graphics
    needs_headless_gl()
    figure = _figure(_rig_file(tmp_path))
    game = Inspector(figure, scale=1)
    gfx = Graphics.open_headless((320, 288))
    try:
        game.load(gfx)
        game.keypressed("s")
        assert not figure.springs_on
        game.keypressed("s")
        assert figure.springs_on
        game.keypressed("p")
        assert not game.bodies
        game.update(0.25)
        game.draw(gfx)
        assert game.panel is None or game.panel.frames == 1
    finally:
        game.release()
        gfx.release()


# ---- FBX blend shapes ------------------------------------------------------------------
BLEND_CUBE = SHARED / "fbx" / "maya_blend_shape_cube_7700_binary.fbx"
_UFBX_VERTICES = """import json, os, sys, ufbx
scene = ufbx.load_file(sys.argv[1])
v = scene.meshes[0].vertices
sys.stdout.write(json.dumps({"vertices": [[p.x, p.y, p.z] for p in v],
                             "begin": scene.anim.time_begin}) + "\\n")
sys.stdout.flush()
os._exit(0)
"""


def _ufbx(tmp_path, path, times):
    """ufbx's reading of the file (tests/ufbx_reference.py: the shapes' offsets, their
    effective weights and the nodes' world matrices at `times` of the take, which starts
    at its time_begin) and its mesh's vertices."""
    import subprocess
    import sys
    from pathlib import Path
    pytest.importorskip("ufbx")
    script = tmp_path / "vertices.py"
    script.write_text(_UFBX_VERTICES)
    run = subprocess.run([sys.executable, str(script), str(path)], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    mesh = json.loads(run.stdout)
    reference = Path(__file__).resolve().parent / "ufbx_reference.py"
    ref = subprocess.run([sys.executable, str(reference), str(path),
                          *(repr(mesh["begin"] + t) for t in times)],
                         capture_output=True, text=True, timeout=120)
    assert ref.returncode == 0, ref.stderr
    return json.loads(ref.stdout), np.array(mesh["vertices"])


def test_fbx_blend_shapes_morph_the_rows_as_ufbx_evaluates_them(tmp_path):
    """Maya's blend shape cube (no skin): at the take's frames (the clip's time 0 the take's
    start) the rows are ufbx's mesh
    vertices plus each shape's offsets times ufbx's effective weight, placed by ufbx's
    world matrix of the mesh's node."""
    figure = _figure(staged(BLEND_CUBE))
    names = [w.name for w in figure.asset.weights]
    assert names == ["TopH", "TopV"]
    _, clip = figure.asset.clips[0]
    times = [float(t) for t in (np.arange(clip.sample_count) / clip.sample_rate)[::12]]
    ref, vertices = _ufbx(tmp_path, BLEND_CUBE, times)
    shapes = [(name, k) for name, _, keys in ref["channels"] for k in keys]
    size = float(np.ptp(vertices, axis=0).max())
    moved = 0.0
    for t, frame, weights in zip(times, ref["frames"], [f["\x00weights"] for f in ref["frames"]]):
        figure.pose(clip, float(t))
        want = vertices.copy()
        flat = [w for channel in weights for w in channel]
        for (_, (_, _, _, offsets, index)), w in zip(shapes, flat):
            np.add.at(want, index, w * np.array(offsets))
        world = np.array(frame["pCube1"])
        want = want @ world[:, :3].T + world[:, 3]
        assert np.abs(figure.vertices[:, :3] - want).max() <= 1e-5 * size, t
        moved = max(moved, float(np.abs(want - (vertices @ world[:, :3].T + world[:, 3])).max()))
    assert moved > 0.1 * size


def test_the_overlay_is_headless_only_and_draws_over_the_frames(tmp_path, capsys):
    """--overlay without --headless is one line and exit 2; with it, the lines change the
    frames where the plain run's do not."""
    from PIL import Image
    path = str(_rig_file(tmp_path))
    assert _run([path, "--overlay"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--overlay" in err[0]
    needs_headless_gl()
    plain, drawn = tmp_path / "plain", tmp_path / "drawn"
    assert _run([path, "--headless", "--out", str(plain), "--frames", "2", "--scale", "1"]) == 0
    assert _run([path, "--headless", "--out", str(drawn), "--frames", "2", "--scale", "1",
                 "--overlay"]) == 0
    a = np.asarray(Image.open(plain / "00_wave_001.png"), int)
    b = np.asarray(Image.open(drawn / "00_wave_001.png"), int)
    assert (np.abs(a - b).sum(axis=2) > 30).sum() > 20


def test_played_through_a_loop_the_springs_run_on(tmp_path):
    """With the seconds played given (the window's), a wrap from the clip's end to its
    start steps the springs over the wrap, on the clip's poses either side of it, as the
    runtime's state does driven directly; without, the wrap starts them afresh."""
    figure = _figure(_rig_file(tmp_path))
    _, clip = figure.asset.clips[0]
    d = float(clip.duration)
    end, wrapped = d - 0.02, 0.03           # 0.05 s played across the wrap
    figure.pose(clip, end)
    figure.pose(clip, wrapped, 0.05)
    sk, springs = figure.skeleton, figure.asset.springs
    state, pose = rt.SpringState(springs, sk), rt.Pose(sk)
    clip.sample(sk, end, pose)
    state.step(pose, delta=0.0)
    cuts = 3                                # ceil(0.05 * 60)
    for k in range(1, cuts):
        at = wrapped - 0.05 * (cuts - k) / cuts
        clip.sample(sk, at % d if at < 0 else at, pose)
        state.step(pose, delta=0.05 / cuts)
    clip.sample(sk, wrapped, pose)
    state.step(pose, delta=0.05 / cuts)
    state.apply(pose)
    pose.compute_model(sk)
    assert np.array_equal(np.asarray(figure.pose_.model), np.asarray(pose.model))
    fresh = _figure(_rig_file(tmp_path))
    fresh.pose(clip, wrapped)
    figure.pose(clip, end)
    figure.pose(clip, wrapped)               # no seconds given: afresh
    assert np.array_equal(np.asarray(figure.pose_.model), np.asarray(fresh.pose_.model))
