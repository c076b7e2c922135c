"""The asset inspector (stadium.inspect): the headless sheet of every clip on the staged
samples, the skinned rows it draws against independent evaluations, and refusals."""
import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import runtime as rt

from gltf_reference import GLTF, SHARED, Ref
from inspect_fixtures import needs_headless_gl, staged

ROOT = Path(__file__).resolve().parents[1]
CESIUM = GLTF / "CesiumMan" / "CesiumMan.glb"
FOX = GLTF / "Fox" / "Fox.glb"
SAUSAGE = SHARED / "fbx" / "maya_game_sausage_7500_ascii_wiggle.fbx"
TRANSFORMED = SHARED / "fbx" / "maya_transformed_skin_7700_binary.fbx"
RUN = SHARED / "mocap" / "bandai-namco-2" / "run_normal_001.bvh"
FRAMES = 4


@pytest.mark.parametrize("path, clips", [(CESIUM, 1), (FOX, 3), (SAUSAGE, 1), (RUN, 1)],
                         ids=["CesiumMan", "Fox", "FBX sausage", "BVH run"])
def test_headless_sheet_has_a_moving_row_per_clip(tmp_path, path, clips):
    from stadium.inspect.__main__ import run
    from stadium.inspect.sheet import LABEL
    needs_headless_gl()
    out = tmp_path / "out"
    assert run([str(staged(path)), "--headless", "--out", str(out), "--frames", str(FRAMES),
                "--scale", "1"]) == 0
    frames = sorted(out.glob("[0-9]*.png"))
    assert len(frames) == clips * FRAMES
    sheet = np.asarray(Image.open(out / "sheet.png"))
    h, w = np.asarray(Image.open(frames[0])).shape[:2]
    assert sheet.shape == (clips * (h + LABEL), FRAMES * w, 3)
    for c in range(clips):
        row = [np.asarray(Image.open(f)).astype(int) for f in frames[c * FRAMES:(c + 1) * FRAMES]]
        # the figure moves: some later frame differs from the first in many pixels
        assert max((np.abs(f - row[0]).sum(axis=2) > 30).sum() for f in row[1:]) > 50
        strip = sheet[c * (h + LABEL) + LABEL:(c + 1) * (h + LABEL)]
        assert np.array_equal(strip[:, :w], row[0])


@pytest.mark.parametrize("path, animation", [(CESIUM, 0), (FOX, 0), (FOX, 2)],
                         ids=["CesiumMan", "Fox Survey", "Fox Run"])
def test_drawn_rows_are_gltf_skinning_by_its_own_rules(path, animation):
    """The rows the inspector uploads at a time equal glTF's skinning evaluated in plain
    numpy from the file (tests/gltf_reference.py), within 1e-5 of the model's size."""
    from stadium.inspect.figure import Figure
    from stadium.inspect.loading import load
    ref = Ref(staged(path))
    figure = Figure(load(path))
    node = next(i for i, n in enumerate(ref.nodes) if n.get("skin") == 0 and "mesh" in n)
    mesh = ref.nodes[node]["mesh"]
    size = float(np.ptp(figure.asset.primitives[0].positions, axis=0).max())
    _, clip = figure.asset.clips[animation]
    times = np.arange(clip.sample_count) / clip.sample_rate
    times[-1] = clip.duration
    for t in times[::max(1, len(times) // 9)]:       # at the keys, where both interpolate alike
        figure.pose(clip, float(t))
        want = ref.skinned(mesh, 0, ref.posed(animation, float(t)))
        assert np.abs(figure.vertices[:, :3] - want).max() <= 1e-5 * size, t


def _numpy_skinned(figure, clip, t: float) -> np.ndarray:
    """Every primitive's skinned positions from the runtime's own evaluation of the clip
    (its sampled pose's model matrices) and the skin's inverse binds, in numpy."""
    sk, skin = figure.skeleton, figure.skin
    pose = rt.Pose(sk)
    if clip is None:
        pose.set_rest(sk)
    else:
        clip.sample(sk, t, pose)
    pose.compute_model(sk)
    model = np.asarray(pose.model, np.float64)
    out = []
    for prim in figure.asset.primitives:
        palette = np.empty((skin.joint_count, 4, 4))
        for j in range(skin.joint_count):
            m = np.vstack([model[skin.joint(j)], (0, 0, 0, 1)])
            palette[j] = m @ np.vstack([skin.inverse_bind(j), (0, 0, 0, 1)])
        infl, p = prim.influences, prim.positions.astype(np.float64)
        got = np.zeros_like(p)
        for slot in range(infl.joints.shape[0]):
            m = palette[infl.joints[slot].astype(int)]
            got += infl.weights[slot][:, None] * (np.einsum("vij,vj->vi", m[:, :3, :3], p)
                                                  + m[:, :3, 3])
        out.append(got)
    return np.concatenate(out)


# the transformed-skin file animates its mesh's own node, not the bones: its skin stays
# still (the inspector shows bone motion only)
@pytest.mark.parametrize("path, moves", [(SAUSAGE, True), (TRANSFORMED, False), (RUN, True)],
                         ids=["FBX sausage", "FBX transformed", "BVH"])
def test_drawn_rows_are_the_clip_skinned_in_numpy(path, moves):
    from stadium.inspect.figure import Figure
    from stadium.inspect.loading import load
    figure = Figure(load(staged(path)))
    size = float(np.ptp(np.concatenate([p.positions for p in figure.asset.primitives]),
                        axis=0).max())
    _, clip = figure.asset.clips[0]
    moved = 0.0
    rest = None
    for t in np.linspace(0.0, clip.duration, 6):
        figure.pose(clip, float(t))
        got = figure.vertices[:, :3].astype(np.float64)
        assert np.abs(got - _numpy_skinned(figure, clip, float(t))).max() <= 1e-5 * size, t
        rest = got.copy() if rest is None else rest
        moved = max(moved, float(np.abs(got - rest).max()))
    assert (moved > 0.01 * size) == moves


def _inspect(*argv) -> subprocess.CompletedProcess:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    return subprocess.run([sys.executable, "-m", "stadium.inspect", *map(str, argv)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_a_corrupted_file_is_one_line_and_exit_2(tmp_path):
    data = bytearray(staged(FOX).read_bytes())
    bad = tmp_path / "Fox.glb"
    bad.write_bytes(data[:len(data) // 3])           # the GLB's length says more
    out = tmp_path / "out"
    done = _inspect(bad, "--headless", "--out", out)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and "FormatError" in lines[0], done.stderr
    assert not out.exists()                           # nothing half-written


@pytest.mark.parametrize("name, text, why", [
    ("cut.bvh", "HIERARCHY\nROOT Hips {\n", "BvhFormatError"),
    ("empty.gltf", "{}", "FormatError"),
    ("notes.txt", "hello", "not a"),
    ("missing.fbx", None, "No such file")])
def test_other_refusals_name_the_file(tmp_path, name, text, why):
    from stadium.inspect.__main__ import run
    path = tmp_path / name
    if text is not None:
        path.write_text(text)
    out = tmp_path / "out"
    assert run([str(path), "--headless", "--out", str(out)]) == 2
    assert not out.exists()


def test_a_clip_less_asset_shows_its_rest_pose(tmp_path):
    """With no clip the figure is the skeleton's rest pose skinned (one "rest" row)."""
    from stadium.inspect.figure import Figure
    from stadium.inspect.loading import load
    figure = Figure(load(staged(CESIUM)))
    figure.pose(None, 0.0)
    want = _numpy_skinned(figure, None, 0.0)
    size = float(np.ptp(want, axis=0).max())
    assert np.abs(figure.vertices[:, :3] - want).max() <= 1e-5 * size


def test_window_plays_scrubs_and_draws_the_skeleton():
    """The window's game, driven headless: keys pick the clip, pause, step and loop; the
    bar scrubs; the skeleton layer lands on the bones' projected joints."""
    from stadium.inspect.figure import Figure
    from stadium.inspect.loading import load
    from stadium.inspect.window import BAR, JOINT, TEXT, Inspector, joint_pixels
    from stadium.render.gfx import Graphics
    needs_headless_gl()
    figure = Figure(load(staged(FOX)))
    game = Inspector(figure, scale=1)
    gfx = Graphics.open_headless((320, 288))
    try:
        game.load(gfx)
        game.update(0.5)
        assert game.time == pytest.approx(0.5) and game.playing
        game.keypressed("down")
        assert game.clip_index == 1 and game.time == 0.0
        game.update(game.duration + 0.1)                 # loops
        assert 0.0 < game.time < game.duration
        game.keypressed("l")
        game.update(game.duration)                       # runs out and stops
        assert game.time == game.duration and not game.playing
        game.keypressed("space")                         # plays again from the start
        assert game.playing and game.time == 0.0
        game.keypressed("right")
        assert not game.playing and game.time == pytest.approx(1 / 30)
        game.draw(gfx)
        x, y, w, h = game.viewport
        game._scrub((x + w // 2, y + h - 1), start=True)
        assert game.time == pytest.approx(game.duration / 2, rel=0.02)
        game.draw(gfx)
        points = joint_pixels(game.stage)
        inside = [(int(round(px)), int(round(py))) for px, py in points
                  if 0 <= px < game.layer.shape[1] and 0 <= py < game.layer.shape[0] - BAR]
        assert len(inside) == len(points)                # the whole skeleton in frame
        for px, py in inside:
            assert tuple(game.layer[py, px]) == JOINT
        game.keypressed("n")                             # the bone names too
        game.draw(gfx)
        assert (game.layer[:-BAR] == TEXT).all(axis=2).sum() > 20 * len(points)
        screen = gfx.read_screen()
        assert screen[y + h // 2, x + w // 2].any()
    finally:
        game.release()
        gfx.release()


def test_no_display_is_one_line_and_exit_2():
    done = _inspect(staged(CESIUM))
    assert done.returncode == 2
    lines = [l for l in done.stderr.strip().splitlines() if l]
    assert len(lines) == 1 and "--headless" in lines[0], done.stderr


def _subtree(ref: Ref, n: int) -> list[int]:
    return [n] + [k for c in ref.nodes[n].get("children", []) for k in _subtree(ref, c)]


def _sorted_rows(a: np.ndarray) -> np.ndarray:
    a = np.round(np.asarray(a, np.float64), 4)
    return a[np.lexsort(a.T[::-1])]


@pytest.mark.parametrize("name", ["BoxAnimated", "AnimatedTriangle", "BoxDraco"])
def test_skinless_gltf_rows_are_the_nodes_world_placement(name):
    """A document without skins shows one root's meshes (the root an animation moves)
    rigidly on their nodes: the rows are glTF's world matrix of each node times its
    primitives' positions (for Draco, the decoded box), at several times."""
    from stadium.inspect.figure import Figure
    from stadium.inspect.loading import load
    folder = GLTF / name
    if not folder.is_dir():
        pytest.skip(f"{folder} is not staged")
    path = next(p for p in sorted(folder.iterdir()) if p.suffix in (".gltf", ".glb"))
    ref = Ref(path)
    figure = Figure(load(path))
    roots = ref.j["scenes"][ref.j.get("scene", 0)]["nodes"]
    moved = {c["target"].get("node") for a in ref.j.get("animations", []) for c in a["channels"]}
    root = next((r for r in sorted(roots) if moved & set(_subtree(ref, r))), sorted(roots)[0])
    meshes = [i for i in _subtree(ref, root) if "mesh" in ref.nodes[i]]
    clip = figure.asset.clips[0][1] if figure.asset.clips else None
    for t in ([0.0] if clip is None else np.linspace(0.0, clip.duration, 5)):
        figure.pose(clip, float(t))
        world = ref.world(ref.posed(0, float(t)) if clip is not None else ref.rest())
        want = []
        for i in meshes:
            for p in ref.j["meshes"][ref.nodes[i]["mesh"]]["primitives"]:
                draco = "KHR_draco_mesh_compression" in p.get("extensions", {})
                pos = np.array([[x, y, z] for x in (-.5, .5) for y in (-.5, .5)
                                for z in (-.5, .5)]) if draco \
                    else ref.accessor(p["attributes"]["POSITION"])
                want.append(pos @ world[i][:3, :3].T + world[i][:3, 3])
        got = figure.vertices[:, :3]
        if name == "BoxDraco":          # 24 rows over the box's 8 corners
            got = np.unique(np.round(got.astype(np.float64), 4), axis=0)
        assert np.abs(_sorted_rows(got) - _sorted_rows(np.concatenate(want))).max() <= 1e-4, t
    if name == "BoxDraco":              # the decoded triangles close the box: 12 of them
        tri = figure.asset.primitives[0].indices.reshape(-1, 3)
        assert len(tri) == 12 and len(np.unique(tri)) == 24


@pytest.mark.parametrize("path", [
    SHARED / "vrm" / "vrm-specification" / "VRMC_vrm_expressions_isBinary_Overrides.vrm",
    GLTF / "MorphPrimitivesTest" / "MorphPrimitivesTest.gltf"], ids=["VRM", "flat plane"])
def test_a_clipless_asset_writes_its_rest_row(tmp_path, path):
    """A file without animations (a VRM; a flat plane, sized by its breadth) gets one
    "rest" row."""
    from stadium.inspect.__main__ import run
    needs_headless_gl()
    out = tmp_path / "out"
    assert run([str(staged(path)), "--headless", "--out", str(out), "--frames", "2",
                "--scale", "1"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["00_rest_000.png", "00_rest_001.png",
                                                     "sheet.png"]


def test_indices_past_the_vertices_are_refused(tmp_path):
    """The runtime builds influences without the triangles; the inspector checks them."""
    from stadium.errors import BadFile
    from stadium.inspect.loading import load
    source = staged(GLTF / "SimpleSkin" / "SimpleSkin.gltf")
    doc = json.loads(source.read_text())
    prim = doc["meshes"][0]["primitives"][0]
    view = doc["bufferViews"][doc["accessors"][prim["indices"]]["bufferView"]]
    uri = doc["buffers"][view["buffer"]]["uri"]
    data = bytearray(base64.b64decode(uri.split(",", 1)[1]))
    data[view.get("byteOffset", 0)] = 200                 # the first index: vertex 200 of 10
    doc["buffers"][view["buffer"]]["uri"] = "data:application/octet-stream;base64," + \
        base64.b64encode(bytes(data)).decode()
    bad = tmp_path / "SimpleSkin.gltf"
    bad.write_text(json.dumps(doc))
    with pytest.raises(BadFile, match="indices past its 10 vertices"):
        load(bad)
