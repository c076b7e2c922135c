"""Species packs as runtime assets: the split skeleton and the 60 Hz clips reproduce the
rig's own pose (both matrix chains, guards included) at every whole and half frame."""
import numpy as np
import pytest

import runtime as rt
from render_fixtures import boxling
from stadium.rig import convert, pack
from stadium.rig.rig import BREAK_ANGLE, StadiumRig
from stadium.rig.roster import Roster

ROSTER = Roster()
TOLERANCE = 1e-4          # of the body height (and of a unit axis, for the 3x3 part)


@pytest.fixture(scope="module")
def converted():
    return {name: convert.convert(ROSTER.load(name)) for name in ROSTER.names}


@pytest.mark.parametrize("name", ROSTER.names)
def test_every_clip_matches_the_rig_at_every_whole_and_half_frame(converted, name):
    rts = converted[name]
    assert set(convert.ROLES) <= set(rts.clips)
    for role in rts.clips:
        gap = convert.equivalence_error(rts, role)
        assert gap < TOLERANCE, f"{name} {role}: {gap:.2e} body heights"


@pytest.mark.parametrize("name", ROSTER.names)
def test_every_animation_of_the_pack_has_its_clip(converted, name):
    rts = converted[name]
    species = rts.species
    played = {r.anim for r in rts.clips.values()}
    assert set(range(len(species.anims))) <= played
    assert rts.skeleton.bone_count == 2 * len(species.parents)
    for b in range(len(species.parents)):
        assert rts.skeleton.bone_name(int(rts.pivot_bones[b])) == convert.bone_name(b)
        draw = int(rts.draw_bones[b])
        assert rts.skeleton.parent(draw) == rts.pivot_bones[b]
        p = species.parents[b]
        assert rts.skeleton.parent(int(rts.pivot_bones[b])) == \
            (rt.NO_BONE if p < 0 else rts.pivot_bones[p])


@pytest.mark.parametrize("name", ROSTER.names)
def test_attack_clips_carry_the_impact_inside_the_attack(converted, name):
    rts = converted[name]
    for role in convert.ATTACKS:
        clip = rts.clip(role)
        assert clip.event_count == 1
        event = clip.event(0)
        assert event.name == convert.IMPACT_EVENT
        assert 0.1 * clip.duration < event.time < 0.9 * clip.duration
        assert event.time == pytest.approx(rts.clips[role].impact - convert.IMPACT_LEAD, abs=1e-6)
    for role in ("sendout", "standby", "hit", "faint"):
        assert rts.clip(role).event_count == 0


def test_the_standby_loop_joins_its_loop_start():
    species = ROSTER.load("flitwren")
    anim = species.ctx[pack.STANDBY]
    loop = species.anims[anim].loop_start
    assert loop > 0, "flitwren's standby is the bundled one with a lead-in"
    rts = convert.convert(species)
    intro, standby = rts.clips["standby_intro"], rts.clips["standby"]
    assert intro.clip.duration == pytest.approx(loop / pack.FPS)
    assert standby.first == loop and standby.loop
    assert standby.clip.loop_policy == rt.LoopPolicy.repeat
    # the loop ends on the pose it starts from
    pose_a, pose_b = rt.Pose(rts.skeleton), rt.Pose(rts.skeleton)
    standby.clip.sample(rts.skeleton, 0.0, pose_a)
    standby.clip.sample(rts.skeleton, standby.clip.duration, pose_b)
    assert np.allclose(pose_a.locals, pose_b.locals, atol=1e-6)


def awkward() -> pack.Species:
    """Three bones in a chain with non-uniform scale on the root (and animated on the
    middle one), a rotation the data re-expresses in one frame (past the guard) and a
    teleport: everything the rig's rules are for."""
    species = boxling()
    species.parents = np.array([-1, 0, 1], np.int32)
    species.rest_t = np.array([[0, 10, 0], [30, 70, 0], [20, 0, 5]], np.float32)
    species.rest_s = np.array([[2.0, 1.0, 0.5], [1, 1, 1], [1.5, 1, 1]], np.float32)
    species.rest_r = np.array([[0, 3000, 0], [0, 0, 9000], [1000, 0, 0]], np.int32)
    frames = 4
    spin = np.array([0, 4000, 4000 + BREAK_ANGLE + 2000, 30000], np.float64)
    jump = np.array([0.0, 5.0, 300.0, 310.0])
    grow = np.array([1.0, 1.5, 0.75, 1.0])
    tracks = [
        (0.0, 10.0, 0.0, 0, 3000, 0, 2.0, 1.0, 0.5),
        (jump, 70.0, 0.0, 0, spin, 9000, grow, 1.0, grow),
        None,
    ]
    species.anims = [pack.Animation(frames, 0, tracks), pack.Animation(frames, 1, tracks)]
    species.ctx = [1, 0, 0, pack.NO_ANIM, pack.NO_ANIM, pack.NO_ANIM]
    return species


def test_guards_scale_and_wrap_survive_the_conversion():
    species = awkward()
    species.anims.append(species.anims[0])          # an animation no role plays
    rts = convert.convert(species)
    assert "anim2" in rts.clips
    for role in rts.clips:
        assert convert.equivalence_error(rts, role) < TOLERANCE, role


def test_the_check_sees_scale_folded_into_the_chain():
    """The mistake the split exists to avoid: one runtime bone a pack bone, its scale
    inherited by the children. The equivalence check must fail it."""
    species = awkward()
    rts = convert.convert(species)
    rig = StadiumRig(species)
    rig.pose(0, 1.0, False)
    folded = rt.Pose(rts.skeleton)
    rts.clip("sendout").sample(rts.skeleton, 1.0 / pack.FPS, folded)
    # move each draw bone's scale onto its pivot, as a single-node bone would carry it
    folded.locals[rts.pivot_bones, 7:10] = folded.locals[rts.draw_bones, 7:10]
    folded.locals[rts.draw_bones, 7:10] = 1.0
    folded.compute_model(rts.skeleton)
    gap = np.abs(folded.model[rts.draw_bones] - rig.draw)[:, :, 3].max() / rts.raw_height
    assert gap > 100 * TOLERANCE


def test_the_check_sees_interpolation_through_the_guard():
    """Blending the two 30 Hz poses instead of baking the rig's half frame turns the
    guarded bone halfway through its re-expression: the check must see it."""
    species = awkward()
    rts = convert.convert(species)
    rig = StadiumRig(species)
    poses = []
    for f in (1.0, 2.0):
        rig.pose(0, f, False)
        poses.append(convert.split_locals(species.parents, rig.pivot, rig.draw))
    rig.pose(0, 1.5, False)
    held = convert.split_locals(species.parents, rig.pivot, rig.draw)
    a, b = poses
    naive = 0.5 * (a + b)
    # the guarded bone holds frame 1 at the half frame, the naive blend does not
    assert np.abs(held[1, 0, 3:7] - a[1, 0, 3:7]).max() < 1e-9
    assert np.abs(naive[1, 0, 3:7] - held[1, 0, 3:7]).max() > 0.05
    pose = rt.Pose(rts.skeleton)
    rts.clip("sendout").sample(rts.skeleton, 1.5 / pack.FPS, pose)
    assert np.allclose(pose.locals[rts.pivot_bones[1], 3:7], held[1, 0, 3:7], atol=1e-6)
