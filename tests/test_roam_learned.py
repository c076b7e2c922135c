"""Roam on a learned model (stadium.roam.learned): the shipped assets/learned/roam.model is
what the code trains; --learned's refusals; the switch between the motion database and the
model (the driving node changes, the pose unbroken across it); the debugger's driver and
memory lines; the learned roam's quality in numbers.

What needs the staged mocap (../shared) skips cleanly without it."""
from __future__ import annotations

import json

import numpy as np
import pytest

from runtime.samples import mocap
from stadium.app import cli

needs_mocap = pytest.mark.skipif(not mocap.available(), reason="no staged mocap in ../shared")
DT = 1.0 / 60.0
SWITCH_AT = 150                # the step the scripted l is pressed at, mid-walk
SCRIPT = [[0, "left"], [60, "up"], [SWITCH_AT, "up+l"], [240, "up+shift"], [330, ""]]


def _refusal(capsys, argv) -> str:
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1, err
    return err


def test_learned_without_roam_refuses(capsys, tmp_path):
    err = _refusal(capsys, ["--learned", str(tmp_path / "m.model"), "--headless"])
    assert "--learned" in err and "--roam" in err


@needs_mocap
@pytest.mark.parametrize("make, words", [
    (lambda d: d / "missing.model", "no such file"),
    (lambda d: _junk(d / "junk.model"), "not a learned model (FormatError"),
    (lambda d: _mocap_trainer_model(), "another skeleton"),
])
def test_learned_refusals(capsys, tmp_path, make, words):
    out = tmp_path / "out"
    err = _refusal(capsys, ["--roam", "--learned", str(make(tmp_path)), "--headless",
                            "--out", str(out)])
    assert err.startswith("run_battle: --learned") or "--learned" in err
    assert words in err, err
    assert not out.exists()


def _junk(path):
    path.write_bytes(b"MANI" + bytes(200))
    return path


def _mocap_trainer_model():
    """A good model, of the mocap's skeleton: not the trainer's."""
    from runtime.samples.learned_model import SHIPPED

    return SHIPPED


def _playhead(loc) -> tuple:
    """The motion-matching node's entry and time, from the instance's scalars."""
    return tuple(float(loc.graph.scalars[loc._node + k]) for k in (1, 2))


def _driver_parameter(loc) -> float:
    from runtime.samples.mocap import FUTURE

    return float(loc.graph.scalars[loc.graph.binding.parameter_base + 4 * (2 * len(FUTURE) + 2)])


# ------------------------------------------------------------ the shipped model


@needs_mocap
def test_the_shipped_roam_model_is_what_the_code_trains():
    """Stale (the trainer's bits changed)? python -m stadium.roam.learned --ship, then
    python -m stadium.app.goldens --roam."""
    from runtime.learned import LearnedModel
    from stadium.roam import learned
    from stadium.roam.motion import roam_motion

    shipped = learned.SHIPPED.read_bytes()
    assert learned.model_bytes() == shipped
    model = LearnedModel(shipped)
    motion = roam_motion()
    assert model.skeleton_identity == motion.trainer.identity
    assert model.database_identity == motion.database.identity
    assert learned.open_model() is not None


# ------------------------------------------------------------ the switch


@pytest.fixture(scope="module")
def scene_factory():
    if not mocap.available():
        pytest.skip("no staged mocap in ../shared")
    from stadium.render import diorama
    from stadium.roam.learned import open_model
    from stadium.roam.scene import RoamScene

    world = diorama.build()
    cells = (world.cell("left"), world.cell("right"))
    model = open_model()
    return lambda script=(), driver="database": RoamScene(world, cells, script, model, driver)


def _bones(loc) -> np.ndarray:
    """The bones' positions in the world's frame of the trainer's ground (cm)."""
    from runtime.core.transform import quat_rotate
    from stadium.roam.locomotion import yaw_quat

    p = quat_rotate(yaw_quat(loc.yaw), loc.pose.model[:, 0:3, 3].astype(np.float64))
    p[:, [0, 2]] += loc.position
    return p


def _walk_step(motion) -> float:
    """The largest step any bone makes in 1/60 s when the baked walk plays straight on its
    own root motion (the reference a switch is held to)."""
    import runtime as rt
    from runtime.clip.rootmotion import get_root_motion
    from runtime.core.transform import quat_mul, quat_rotate

    k = motion.staged.names.index("walk_normal_001")
    clip, sk = motion.baked[k], motion.trainer
    pose, at, q = rt.Pose(sk), np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0])
    last, most = None, 0.0
    for f in range(int(clip.duration * 60)):
        clip.sample(sk, f * DT, pose)
        pose.compute_model(sk)
        now = quat_rotate(q, pose.model[:, 0:3, 3].astype(np.float64)) + at
        if last is not None:
            most = max(most, float(np.linalg.norm(now - last, axis=1).max()))
        last = now
        move = get_root_motion(clip, f * DT, DT).astype(np.float64)
        at, q = at + quat_rotate(q, move[0:3]), quat_mul(q, move[3:7])
    return most


def _raw_learned_pose(loc) -> np.ndarray:
    """The model-space bone positions the learned node's state decompresses to, before the
    inertialize node blends them (by the model here, not the graph)."""
    import runtime as rt
    from runtime.learned import LearnedOutput

    m = loc.model
    out = LearnedOutput(rt.Pose(loc.trainer), np.zeros(6, np.float32),
                        np.zeros(m.float_track_count, np.float32), np.zeros(m.event_count, np.float32))
    m.decompress(loc.learned_state().astype(np.float32), out)
    out.pose.compute_model(loc.trainer)
    return out.pose.model[:, 0:3, 3].astype(np.float64)


@needs_mocap
def test_the_switch_changes_the_driving_node_and_does_not_pop(scene_factory):
    """The scripted l switches from the database to the model: the select's parameter
    and the node that moves change (the motion-matching node's playhead stops, the
    learned node's state starts); across the switch and the inertialization after it, no
    bone moves further in a step than BOUND times the largest step of the staged walk played
    straight,
    though at the switch the model's own pose is further than that from the pose shown
    (the jump the inertialize node hides), and the pose shown closes on the model's as
    the blend goes on (the projections every period are blended too, so never wholly)."""
    scene = scene_factory(SCRIPT)
    loc = scene.locomotion
    steps, playheads = [], []
    last = _bones(loc)
    for step in range(SWITCH_AT + 40):
        scene.update(DT)
        now = _bones(loc)
        steps.append(float(np.linalg.norm(now - last, axis=1).max()))
        last = now
        playheads.append(_playhead(loc))
        if step == SWITCH_AT - 1:
            assert loc.driver == "database" and loc.learned_state() is None
            assert _driver_parameter(loc) == 0.0
        if step == SWITCH_AT:
            hidden = np.linalg.norm(_raw_learned_pose(loc) - loc.pose.model[:, 0:3, 3], axis=1).max()
    assert scene.held == {"up", "l"} and loc.driver == "learned" and _driver_parameter(loc) == 1.0
    assert len(set(playheads[:SWITCH_AT])) > 100               # the database's node played
    assert len(set(playheads[SWITCH_AT:])) == 1                # and stopped at the switch
    before = _walk_step(loc.motion)
    across = max(steps[SWITCH_AT:SWITCH_AT + 30])
    BOUND = 1.5
    print(f"\nswitch: largest bone step {across:.2f} cm across it, {before:.2f} the walk's; "
          f"the jump hidden {hidden:.2f} cm")
    assert across <= BOUND * before, (across, before)
    assert hidden > BOUND * before, hidden
    settled = np.linalg.norm(_raw_learned_pose(loc) - loc.pose.model[:, 0:3, 3], axis=1).max()
    print(f"  {settled:.2f} cm from the model's own pose 40 steps on")
    assert settled < hidden / 2, settled
    scene.release()


@needs_mocap
def test_switching_back_and_forth_by_the_key(scene_factory):
    """l pressed (not held) switches; whichever node does not drive is not updated."""
    scene = scene_factory([[0, "up"]])
    loc = scene.locomotion
    for _ in range(30):
        scene.update(DT)
    scene.press("l")
    scene.press("l")                       # held: no second switch
    assert loc.driver == "learned" and _driver_parameter(loc) == 1.0
    for _ in range(30):
        scene.update(DT)
    state = loc.learned_state().copy()
    scene.release_key("l")
    scene.press("l")
    assert loc.driver == "database" and _driver_parameter(loc) == 0.0
    heads = set()
    for _ in range(10):
        scene.update(DT)
        heads.add(_playhead(loc))
    assert len(heads) == 10 and np.array_equal(loc.learned_state(), state)
    scene.release()


@needs_mocap
def test_the_learned_roam_is_deterministic(scene_factory):
    digests = []
    for _ in range(2):
        scene = scene_factory(SCRIPT)
        run = []
        for _ in range(SWITCH_AT + 60):
            scene.update(DT)
            run.append(scene.digest())
        digests.append(run)
        scene.release()
    assert digests[0] == digests[1]


# ------------------------------------------------------------ the debugger's lines


@needs_mocap
def test_the_debugger_says_what_drives_and_the_memory(scene_factory):
    from stadium.app.debugui.matching_view import channel_costs, driver_lines, memory, query

    scene = scene_factory([[0, "up"]])
    loc = scene.locomotion
    scene.update(DT)
    lines = driver_lines(loc)
    assert lines[0].startswith("driven by the motion database")
    db, clips, model = memory(loc)
    assert db == len(bytes(loc.database.data)) and model == len(bytes(loc.model.data))
    assert clips == sum(len(bytes(c.data)) for c in loc.motion.baked)
    assert f"{(db + clips) / 1e6:.2f} MB" in lines[1] and f"{model / 1e6:.3f} MB" in lines[2]
    loc.set_driver("learned")
    scene.update(DT)
    assert driver_lines(loc)[0].startswith("driven by the learned model")
    # the costs of the learned state: its features (denormalized by the model, which
    # normalizes as the database) against the query, by numpy here
    state = loc.learned_state()
    f = loc.model.feature_count
    d = loc.database
    q = query(loc)
    assert np.array_equal(q[f - loc.trajectory.size:], loc.trajectory)
    normal = (q.astype(np.float64) - d.offsets) / d.scales - state[:f]
    total = sum(c for _, c in channel_costs(loc))
    assert total == pytest.approx(float(normal @ normal), rel=1e-4, abs=1e-5)
    scene.release()


# ------------------------------------------------------------ quality


@needs_mocap
def test_the_learned_roam_walks_the_path():
    """python -m stadium.roam.quality --learned's figures: the model follows the keys
    (trajectory error, foot sliding reported against the database's)."""
    from stadium.roam import quality
    from stadium.roam.learned import open_model

    q = quality.roam_quality(model=open_model(), driver="learned")
    print(f"\nlearned roam: foot sliding {q.foot_slide_cm:.3f} cm/planted frame over "
          f"{q.planted_frames}, {q.jumps_per_second:.2f} projections/s, trajectory error "
          f"{q.trajectory_error_cm:.2f} cm mean, {q.trajectory_error_max_cm:.2f} max")
    assert q.planted_frames > 100
    assert q.trajectory_error_cm < 60.0


@needs_mocap
def test_quality_refuses_a_bad_model(capsys, tmp_path):
    from stadium.roam import quality

    assert quality.main(["--learned", str(tmp_path / "none.model")]) == 2
    assert "no such file" in capsys.readouterr().err


@needs_mocap
def test_a_script_can_press_the_switch(tmp_path):
    """The headless run of a script whose roam keys press l twice gives the same hashes
    twice (the switch is part of a replayable run)."""
    script = tmp_path / "roam.json"
    script.write_text(json.dumps({"roam": [[0, "left"], [20, "left+l"], [50, "up"], [70, "up+l"]]}))
    lines = []
    for k in range(2):
        hashes = tmp_path / f"h{k}.txt"
        assert cli.main(["--roam", "--script", str(script), "--frames", "0,40,80",
                         "--hashes", str(hashes), "--no-post"]) == 0
        lines.append(hashes.read_text().splitlines())
    assert lines[0] == lines[1]
