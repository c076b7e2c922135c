"""The trainer: its skinned figure against a plain numpy evaluation, and its gestures (mocap
retargeted and mirrored) by the numbers. The gesture tests read the staged mocap in
../shared and skip when it is not there."""
import numpy as np
import pytest

import runtime as rt
from stadium.battle import trainer_clips
from stadium.battle.trainer import Trainer
from stadium.rig.rig import SHADE_BASE, SHADE_X, SHADE_Y, SHADE_Z
from stadium.rig.trainer_model import TrainerRig, trainer_model

needs_mocap = pytest.mark.skipif(trainer_clips.missing() is not None,
                                 reason=str(trainer_clips.missing()))


def _affine(m):
    return np.vstack([np.asarray(m, np.float64), (0, 0, 0, 1)])


def _expected(model, pose, yaw):
    """Each vertex by its weighted joints' model matrix times inverse bind (inverse from
    the rest's model matrices here, not the skin's), the shade as the rig's formula."""
    skeleton = model.skeleton
    rest = rt.Pose(skeleton)
    rest.compute_model(skeleton)
    palette = np.array([_affine(pose.model[b]) @ np.linalg.inv(_affine(rest.model[b]))
                        for b in range(skeleton.bone_count)])
    p = np.c_[model.positions.astype(np.float64), np.ones(len(model.positions))]
    moved = np.zeros((len(p), 3))
    linear = np.zeros((len(p), 3, 3))
    for k in range(model.joints.shape[1]):
        m = palette[model.joints[:, k]] * model.weights[:, k, None, None]
        moved += np.einsum("vij,vj->vi", m[:, :3], p)
        linear += m[:, :3, :3]
    n = np.einsum("vij,vj->vi", np.linalg.inv(linear).transpose(0, 2, 1), model.normals)
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    c, s = np.cos(yaw), np.sin(yaw)
    world = np.c_[c * n[:, 0] + s * n[:, 2], n[:, 1], -s * n[:, 0] + c * n[:, 2]]
    shade = SHADE_BASE + world @ (SHADE_X, SHADE_Y, SHADE_Z)
    return moved, shade


def _bent_pose(skeleton, seed):
    rng = np.random.default_rng(seed)
    pose = rt.Pose(skeleton)
    for b in range(1, skeleton.bone_count):
        local = pose.get_local(b)
        q = local[3:7] + 0.4 * rng.normal(size=4)          # the rest turned some way
        local[3:7] = q / np.linalg.norm(q)
        pose.set_local(b, local)
    pose.compute_model(skeleton)
    return pose


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_skinned_vertices_are_the_weighted_palette_applied(seed):
    model = trainer_model()
    assert (model.weights[:, 1] > 0).any(), "the torso's seams blend two bones"
    pose = _bent_pose(model.skeleton, seed)
    rig = TrainerRig(model)
    yaw = 0.7 * seed
    rig.skin(pose, yaw)
    moved, shade = _expected(model, pose, yaw)
    np.testing.assert_allclose(rig.vertices[:, :3], moved, atol=2e-3)      # cm, binary32
    np.testing.assert_allclose(rig.vertices[:, 5], shade, atol=1e-5)
    np.testing.assert_array_equal(rig.vertices[:, 3:5], model.uv)


def test_at_rest_the_figure_is_its_boxes_standing_on_the_floor():
    model = trainer_model()
    rig = TrainerRig(model)
    rest = rt.Pose(model.skeleton)
    rest.compute_model(model.skeleton)
    rig.skin(rest, 0.0)
    np.testing.assert_allclose(rig.vertices[:, :3], model.positions, atol=1e-3)
    assert abs(rig.vertices[:, 1].min()) < 1e-3 and rig.vertices[:, 1].max() == pytest.approx(model.height)


def _hand_and_head(name, times):
    model = trainer_model()
    sk = model.skeleton
    clip = trainer_clips.gestures()[name]
    pose = rt.Pose(sk)
    out = []
    for t in times:
        clip.sample(sk, float(t), pose)
        pose.compute_model(sk)
        out.append([pose.model[sk.find_bone(b), :, 3].copy() for b in ("hand.R", "hand.L", "head", "hat")])
    return np.array(out)      # (times, 4, 3)


@needs_mocap
def test_the_wave_raises_the_right_hand_above_the_head():
    clip = trainer_clips.gestures()["wave"]
    at = _hand_and_head("wave", np.linspace(0, clip.duration, 60))
    right, left, head, top = at[:, 0], at[:, 1], at[:, 2], at[:, 3]
    peak = int(np.argmax(right[:, 1]))
    assert right[peak, 1] > head[peak, 1] + 15.0      # the wrist well over the head's joint
    assert right[peak, 1] > 0.9 * top[peak, 1]         # up by the top of the cap
    assert left[:, 1].max() < head[:, 1].min() - 20.0  # the other hand stays down
    assert right[0, 1] < head[0, 1] and right[-1, 1] < head[-1, 1]


@needs_mocap
def test_the_mirrored_wave_is_the_left_hand_the_mirror_image():
    clip = trainer_clips.gestures()["wave"]
    times = np.linspace(0, clip.duration, 60)
    right = _hand_and_head("wave", times)
    left = _hand_and_head("wave_left", times)
    assert left[:, 1, 1].max() > left[:, 2, 1].max() + 15.0     # the left hand is up
    assert left[:, 0, 1].max() < left[:, 2, 1].min() - 20.0     # the right one down
    flip = np.array([-1.0, 1.0, 1.0])
    np.testing.assert_allclose(left[:, 1], right[:, 0] * flip, atol=0.05)   # cm


@needs_mocap
def test_the_sendout_gesture_starts_and_ends_at_rest():
    model = trainer_model()
    sk = model.skeleton
    clip = trainer_clips.gestures()["sendout"]
    rest = rt.Pose(sk)
    rest.compute_model(sk)
    pose = rt.Pose(sk)
    clip.sample(sk, 0.0, pose)
    pose.compute_model(sk)
    hand = sk.find_bone("hand.R")
    # the mocap's own first frame, lined up with the rest by the reference's aims
    assert np.linalg.norm(pose.model[hand, :, 3] - rest.model[hand, :, 3]) < 3.0
    up = _hand_and_head("sendout", np.linspace(0, clip.duration, 40))
    assert up[:, 0, 1].max() > up[:, 2, 1].max()      # thrown up past the head's joint


def _track(trainer, steps):
    out = []
    for _ in range(steps):
        trainer.update(1 / 60)
        out.append(trainer.rig.vertices.copy())
    return np.array(out)


def test_a_trainer_is_deterministic_and_moves_without_pops():
    cells = (np.array([4.75, 1.5, 7.75]), np.array([7.75, 1.5, 5.25]))
    ground = lambda x, z: 1.5          # noqa: E731
    runs = []
    for _ in range(2):
        t = Trainer(0, cells, ground)
        t.gesture("sendout")
        first = _track(t, 150)
        t.gesture("wave")
        runs.append(np.concatenate([first, _track(t, 420)]))
    np.testing.assert_array_equal(runs[0], runs[1])
    step = np.abs(np.diff(runs[0][..., :3], axis=0)).max(axis=(1, 2))    # cm a 60 Hz step
    # into, out of and between gestures the figure eases: no step there moves a vertex
    # a centimetre (the wave's hand moves several a step at its height)
    ends = [0, 1, 2, 114, 115, 116, 117, 148, 149, 150, 151]
    assert step[ends].max() < 1.0, step[ends]
    # and nowhere a pop: no step far larger than both its neighbours
    around = np.maximum(step[:-2], step[2:])
    assert (step[1:-1] < 3.0 * around + 0.5).all(), step[1:-1].max()
    assert step.max() < 10.0


def test_each_trainer_stands_clear_of_every_bundled_creature():
    """Every vertex of every bundled species' standby, where the show's and the battle's
    framing put it on either side, lies outside every box of that side's trainer's rest
    figure grown by a centimetre."""
    from stadium.app.framing import Framing, _standby_points
    from stadium.app.hud import FIELD_BOXES
    from stadium.battle.scene import facings, place
    from stadium.battle.trainer import SCALE, stand
    from stadium.render import diorama
    from stadium.render.battlecam import BattleCam
    from stadium.rig.roster import Roster

    world = diorama.build()
    cells = (world.cell("left"), world.cell("right"))
    from stadium.rig.trainer_model import boxes

    figure = np.array([(low, high) for _, _, low, high in boxes()], np.float64)
    low, high = figure[:, 0] - 1.0, figure[:, 1] + 1.0            # (boxes, 3) cm
    roster = Roster()
    for rects in ((), FIELD_BOXES):
        framing = Framing(BattleCam.battle(*cells), cells, world.ground, rects)
        for side in (0, 1):
            t = Trainer(side, cells, world.ground)
            assert np.allclose(t.position, stand(side, cells, world.ground))
            to_trainer = np.linalg.inv(t.matrix.T.astype(np.float64))
            for name in roster.names:
                species = roster.load(name)
                m = np.empty((4, 4), np.float32)
                place(m, framing.spot(side, species), facings(*cells)[side], species.root_scale)
                points = _standby_points(species) @ m[:3, :3].astype(np.float64) + m[3, :3]
                local = points @ to_trainer[:3, :3].T + to_trainer[:3, 3]    # trainer cm
                inside = ((local[:, None] > low) & (local[:, None] < high)).all(axis=2)
                assert not inside.any(), f"{name} on side {side} reaches into its trainer"
            assert SCALE * (high[:, 1].max() - low[:, 1].min()) < 1.6


def test_without_the_mocap_a_trainer_stands_at_rest_and_says_so_once(monkeypatch, tmp_path, capsys):
    from stadium.battle import trainer as trainer_module

    monkeypatch.setattr(trainer_clips, "MOCAP", tmp_path / "nowhere")
    monkeypatch.setattr(trainer_module, "_said", False)
    trainer_clips.gestures.cache_clear()
    try:
        cells = (np.array([4.75, 1.5, 7.75]), np.array([7.75, 1.5, 5.25]))
        trainers = [Trainer(side, cells, lambda x, z: 1.5) for side in (0, 1)]
        for t in trainers:
            t.gesture("wave")
            t.update(1.0)
        rest = TrainerRig()
        pose = rt.Pose(rest.model.skeleton)
        pose.compute_model(rest.model.skeleton)
        rest.skin(pose, trainers[0].yaw)
        np.testing.assert_array_equal(trainers[0].rig.vertices, rest.vertices)
        said = capsys.readouterr().out
        assert said.count("the trainers stand at rest") == 1 and "nowhere" in said
    finally:
        trainer_clips.gestures.cache_clear()


@needs_mocap
def test_a_saved_battle_brings_its_trainers_back_mid_gesture():
    import json

    from stadium.battle.match import Match, script_setup
    from stadium.rig.roster import Roster

    roster = Roster()
    cells = (np.array([4.75, 1.5, 7.75]), np.array([7.75, 1.5, 5.25]))
    ground = lambda x, z: 1.5          # noqa: E731
    setup = script_setup({"seed": 3}, teams=(("emberlisk",), ("gloopet",)))
    match = Match(setup, roster, cells, ground=ground)
    for _ in range(20):
        match.update()
    assert [t.gesture_name for t in match.trainers] == ["sendout", None]
    again = Match.load(json.loads(match.dumps()), roster, cells, ground=ground)
    for _ in range(60):
        match.update()
        again.update()
        for a, b in zip(match.trainers, again.trainers):
            np.testing.assert_array_equal(a.rig.vertices, b.rig.vertices)
    assert match.trainers[1].gesture_name == "sendout"     # the rival's came out since


def test_a_saved_battle_with_a_wrong_trainer_is_refused_in_one_line(tmp_path):
    import json

    from stadium.app.checks import check_save
    from stadium.battle.match import Match, script_setup
    from stadium.errors import BadFile
    from stadium.rig.roster import Roster

    cells = (np.array([4.75, 1.5, 7.75]), np.array([7.75, 1.5, 5.25]))
    match = Match(script_setup({"seed": 3}, teams=(("emberlisk",), ("gloopet",))), Roster(), cells,
                  ground=lambda x, z: 1.5)
    match.update()
    good = json.loads(match.dumps())
    check_save(good, tmp_path / "match.json")
    for bad, where in (([["dance", 0.0]], "trainers[0][0]"), ([["wave", float("nan")]], "trainers[0][1]"),
                       ([[None]], "trainers[0]"), ([None, None, None], "trainers"),
                       ([["wave", -1.0]], "trainers[0][1]")):
        state = dict(good, trainers=bad)
        with pytest.raises(BadFile, match=where.replace("[", r"\[").replace("]", r"\]")):
            check_save(state, tmp_path / "match.json")
