"""Roam mode (stadium.roam): the locomotion's quality in numbers on a scripted
walk-turn-run-stop path, its pieces against independent references, the walls, the
battle spot, determinism, and the command line's refusals.

What needs the staged mocap (../shared) skips cleanly without it."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from runtime.samples import mocap
from stadium.app import cli
from stadium.render import diorama
from stadium.roam import locomotion as loco
from stadium.roam.village import SPOT, START, Walls, blocked_cells

needs_mocap = pytest.mark.skipif(not mocap.available(), reason="no staged mocap in ../shared")
DT = 1.0 / 60.0


# ------------------------------------------------------------ pieces, no mocap needed


def test_turn_y_agrees_with_the_yaw_quaternion():
    from runtime.core.transform import quat_rotate

    for yaw in (0.0, 0.3, -2.0, math.pi):
        q = loco.yaw_quat(yaw)
        assert loco.quat_yaw(q) == pytest.approx(math.remainder(yaw, 2 * math.pi) if abs(yaw) < math.pi else yaw)
        v = quat_rotate(q, np.array([0.3, 0.0, -1.2]))
        assert np.allclose(loco.turn_y(yaw, (0.3, -1.2)), v[[0, 2]])


def test_walls_block_the_village_obstacles_and_let_the_path_through_the_ledge():
    cells = blocked_cells()
    rows = diorama.MAP
    for x in range(len(rows[0])):
        for z in range(len(rows)):
            assert cells[x, z] == (rows[z][x] in "HTob~#")
    walls = Walls(0.5)
    centre = lambda c: ((c[0] + 0.5) * 0.5, (c[1] + 0.5) * 0.5)
    gap = rows[18].index("=")
    assert not walls.blocks(*centre((gap, 18)))            # the path's gap in the ledge
    assert walls.blocks(*centre((gap + 1, 18)))
    assert walls.blocks(*centre((13, 3)))                   # the house
    assert walls.blocks(-0.01, 3.0)                         # off the map
    assert not walls.blocks(*centre(START)) and not walls.blocks(*centre(SPOT))
    # under the eaves and the canopies: blocked with the diorama's tops
    world = diorama.build()
    over = blocked_cells(world.tops)
    assert over[13, 6] and not cells[13, 6] and over[1, 1] and not cells[1, 1]
    assert (over == (cells | (world.tops > 5))).all() and not over[START] and not over[SPOT]
    # sliding along a wall keeps the free axis
    start = np.array(centre((13, 6)))      # just south of the house
    ended = walls.slide(start, start + (0.2, -0.6))
    assert ended[1] == start[1] and ended[0] == pytest.approx(start[0] + 0.2)


# ------------------------------------------------------------ the command line


def _refusal(capsys, argv) -> str:
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1, err
    return err


def test_roam_without_the_mocap_refuses_in_one_line(capsys, monkeypatch, tmp_path):
    from stadium.roam import motion

    monkeypatch.setattr(motion, "missing", lambda: "roam mode needs the staged mocap at X (not found)")
    err = _refusal(capsys, ["--roam", "--headless", "--out", str(tmp_path)])
    assert "--roam" in err and "staged mocap" in err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("script, extra, words", [
    ({"roam": [[0, "up"]]}, [], "give --roam too"),
    ({"roam": [[0, "jump"]]}, ["--roam"], "'jump' is not a roam key"),
    ({"roam": [[5, "up"], [5, "left"]]}, ["--roam"], "not after the step before"),
    ({"roam": [[0, 3]]}, ["--roam"], "wants the keys held"),
    ({"roam": [[-1, "up"]]}, ["--roam"], "outside 0"),
])
def test_roam_script_refusals(capsys, tmp_path, script, extra, words):
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    err = _refusal(capsys, ["--script", str(path), "--headless", "--out", str(tmp_path / "o")] + extra)
    assert words in err


@pytest.mark.parametrize("other", [["--show"], ["--save-at", "5", "--save", "x.json"]])
def test_roam_conflicts(capsys, other):
    err = _refusal(capsys, ["--roam", "--headless"] + other)
    assert "--roam" in err and "conflicts" in err


# ------------------------------------------------------------ with the mocap


@pytest.fixture(scope="module")
def scene_factory():
    if not mocap.available():
        pytest.skip("no staged mocap in ../shared")
    from stadium.roam.scene import RoamScene

    world = diorama.build()
    cells = (world.cell("left"), world.cell("right"))
    return lambda script=(): RoamScene(world, cells, script)


@needs_mocap
def test_roam_quality_against_the_source_mocap():
    """The figures (also: python -m stadium.roam.quality): foot sliding within 1.5x of the
    mocap's own, measured the same way."""
    from stadium.roam import quality

    q = quality.roam_quality()
    source = quality.source_sliding()
    print(f"\nroam: foot sliding {q.foot_slide_cm:.3f} cm/planted frame over {q.planted_frames} "
          f"(source {source:.3f}), {q.jumps_per_second:.2f} jumps/s, trajectory error "
          f"{q.trajectory_error_cm:.2f} cm mean, {q.trajectory_error_max_cm:.2f} max")
    assert q.planted_frames > 200
    assert q.foot_slide_cm <= 1.5 * source
    assert 0 < q.jumps_per_second < 10
    assert q.trajectory_error_cm < 30.0


@needs_mocap
def test_the_path_walks_turns_runs_and_stops(scene_factory):
    """What the scripted path asks for happens: walking pace, a turn, a run, standing."""
    from stadium.roam import quality

    scene = scene_factory(quality.PATH)
    loc = scene.locomotion
    speeds, yaws = [], []
    for _ in range(quality.PATH_STEPS):
        before = loc.position.copy()
        scene.update(DT)
        speeds.append(np.linalg.norm(loc.position - before) / DT)
        yaws.append(loc.yaw)
    speeds = np.array(speeds)
    walk, run, stop = speeds[60:120].mean(), speeds[280:330].mean(), speeds[430:].mean()
    assert 35 < walk < 85 and run > 2 * walk and stop < 5, (walk, run, stop)
    assert abs(math.remainder(yaws[230] - yaws[100], 2 * math.pi)) > 1.0     # the turn
    assert scene.motion.staged.names[loc.entry_clip[loc.entry]] == "idle"
    scene.release()


@needs_mocap
def test_a_switch_does_not_pop(scene_factory):
    """Across every jump the trainer's bones move no further than the largest move of a
    step without one (inertialization keeps the output unbroken)."""
    from stadium.roam import quality

    scene = scene_factory(quality.PATH)
    loc = scene.locomotion
    sk = scene.motion.trainer
    last = loc.pose.model[:, 0:3, 3].copy()
    plain, jumps = [], []
    for _ in range(quality.PATH_STEPS):
        scene.update(DT)
        now = loc.pose.model[:, 0:3, 3].copy()
        (jumps if loc.jumped else plain).append(float(np.linalg.norm(now - last, axis=1).max()))
        last = now
    assert len(jumps) > 10
    assert max(jumps) <= max(plain), (max(jumps), max(plain))
    assert sk.bone_count == loc.pose.locals.shape[0]
    scene.release()


@needs_mocap
def test_walls_stop_the_trainer(scene_factory):
    """Walking up into the house for seconds: the trainer's body never enters it."""
    scene = scene_factory([[0, "up+shift"]])
    walls = scene.walls
    for _ in range(600):
        scene.update(DT)
        x, _, z = scene.trainer.position
        assert not walls.blocks(x, z)
    assert scene.trainer.position[2] < scene.origin[2] - 2.0       # it went up a way
    scene.release()


def _steer(scene) -> None:
    """Hold the keys that take the trainer toward the spot (camera relative)."""
    f = scene.camera.forward
    forward = np.array([f[0], f[2]]) / math.hypot(f[0], f[2])
    right = np.array([-forward[1], forward[0]])
    gap = scene.spot[[0, 2]] - scene.trainer.position[[0, 2]]
    scene.held = set()
    for along, (plus, minus) in ((gap @ right, ("right", "left")), (gap @ forward, ("up", "down"))):
        if abs(along) > 0.1:
            scene.held.add(plus if along > 0 else minus)


@needs_mocap
def test_the_battle_spot_starts_the_battle():
    from stadium.app.viewer import BattleViewer, Options
    from stadium.rig.roster import Roster

    viewer = BattleViewer(Options(mode="roam", controllers=("ai", "ai")), Roster(), overlay=False)
    try:
        for step in range(60 * 30):
            if viewer.roam is None:
                break
            _steer(viewer.roam)
            viewer.update(DT)
        assert viewer.options.mode == "battle" and viewer.match is not None, "never reached the spot"
        assert step > 60                   # it walked there
        viewer.update(DT)                   # and the battle runs
    finally:
        viewer.release()


@needs_mocap
def test_roam_is_deterministic(scene_factory):
    from stadium.roam import quality

    digests = []
    for _ in range(2):
        scene = scene_factory(quality.PATH)
        run = []
        for _ in range(240):
            scene.update(DT)
            run.append(scene.digest())
        digests.append(run)
        scene.release()
    assert digests[0] == digests[1]
    assert len(set(digests[0])) > 200          # and it does move


@needs_mocap
def test_headless_roam_twice_gives_the_same_hashes(tmp_path):
    script = tmp_path / "roam.json"
    script.write_text(json.dumps({"roam": [[0, "left"], [40, "up+shift"], [80, ""]]}))
    lines = []
    for k in range(2):
        hashes = tmp_path / f"h{k}.txt"
        code = cli.main(["--roam", "--script", str(script), "--frames", "0,45,90",
                         "--hashes", str(hashes), "--no-post"])
        assert code == 0
        lines.append(hashes.read_text().splitlines())
    assert lines[0] == lines[1]
    assert len({line.split()[1] for line in lines[0]}) == 3     # the frames differ


@needs_mocap
def test_the_matching_views_costs_add_up_to_the_searchs(scene_factory):
    """The debugger's feature costs of the frame playing, plus its entry's bias, are what
    the search (maniMotionDatabase_Search) costs it for the node's query."""
    import runtime as rt
    from stadium.app.debugui.matching_view import channel_costs, matched_trajectory, query
    from stadium.roam import quality

    scene = scene_factory(quality.PATH)
    loc = scene.locomotion
    for step in range(300):
        scene.update(DT)
        if step % 20:
            continue
        found = rt.search_motion_database(loc.database, rt.MatchQuery(
            query(loc), loc.frame, 0.0, 1e30))          # every other frame priced out
        assert found.frame == loc.frame and found.continuing
        bias = loc.database.entry(loc.entry).cost_bias
        assert sum(c for _, c in channel_costs(loc)) + bias == pytest.approx(found.cost, rel=1e-4, abs=1e-4)
    assert matched_trajectory(loc).shape == (3, 2)
    scene.release()


@needs_mocap
def test_the_windows_keys_walk_while_held():
    """KEYDOWN holds a key and KEYUP lets it go; in roam mode s and d walk (they toggle the
    shadows and nothing else in the battle)."""
    import pygame

    from stadium.app.viewer import BattleViewer, Options
    from stadium.rig.roster import Roster

    viewer = BattleViewer(Options(mode="roam", controllers=("ai", "ai")), Roster(), overlay=False)
    try:
        shadows = viewer.look.shadows
        viewer.event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_s))
        viewer.event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_LSHIFT))
        assert viewer.roam.held == {"s", "left shift"} and viewer.look.shadows == shadows
        assert np.linalg.norm(viewer.roam.desired_velocity()) == pytest.approx(174.0)
        viewer.event(pygame.event.Event(pygame.KEYUP, key=pygame.K_LSHIFT))
        assert np.linalg.norm(viewer.roam.desired_velocity()) == pytest.approx(56.0)
        viewer.event(pygame.event.Event(pygame.KEYUP, key=pygame.K_s))
        assert viewer.roam.held == set()
        viewer.keypressed("4")              # a show's key does nothing here
    finally:
        viewer.release()
