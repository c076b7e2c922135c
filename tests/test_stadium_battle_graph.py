"""The battler graph: the JSON text under assets/graphs is what the code writes, it builds
and binds for every species, its states, triggers, events and fades behave, and the two
pose paths show what they promise."""
import numpy as np
import pytest

from runtime.graph.limits import GRAPH_NONE
from stadium.battle import battler_graph as battle_graph
from stadium.battle.battler import Battler
from stadium.rig.convert import ROLES, compression_tolerance, runtime_species
from stadium.rig.rig import StadiumRig
from stadium.rig.roster import Roster

ROSTER = Roster()
DT = 1 / 60


@pytest.mark.parametrize("blend", battle_graph.BLENDS)
def test_the_bundled_text_is_what_the_code_writes(blend):
    assert battle_graph.FILES[blend].read_text() == battle_graph.text(blend)


@pytest.mark.parametrize("name", ROSTER.names)
def test_it_builds_and_binds_for_every_species(name):
    rts = runtime_species(ROSTER.load(name))
    for blend in battle_graph.BLENDS:
        g = battle_graph.build(rts, blend)
        assert [g.graph.clip_name(g.graph.nodes[k].data.slot) for k in g.states] == list(ROLES)
        assert set(battle_graph.TRIGGERS) | {battle_graph.SPEED} == set(g.parameters)
        instance = g.new_instance()
        instance.update(DT)
        assert instance.inspect(g.machine).state == ROLES.index("sendout")


def run(b, steps, **triggers):
    roles = []
    for _ in range(steps):
        b.update(DT)
        b.pose(DT)
        roles.append(b.role)
    return roles


def test_triggers_start_actions_that_settle_back_into_standby():
    b = Battler(ROSTER.load("scrapkit"), np.zeros(3), 0.0)
    roles = run(b, 200)
    assert roles[0] == "sendout" and roles[-1] == "standby" and b.settled()
    for action in ("attack1", "attack2", "hit"):
        b.trigger(action)
        roles = run(b, 150)
        assert roles[0] == action
        assert roles[-1] == "standby"
    b.trigger("faint")
    run(b, 330)                 # the fall's longest, stadium.battle.fall.LONGEST + SETTLE
    assert b.role == "faint" and b.fainted()
    # faint is final: nothing leaves it, not even a send-out
    for action in ("attack1", "hit", "sendOut"):
        b.trigger(action)
        run(b, 30)
        assert b.role == "faint"


def test_an_attack_lists_its_impact_once_where_the_blow_lands():
    rts = runtime_species(ROSTER.load("mosshoof"))
    b = Battler(rts.species, np.zeros(3), 0.0)
    run(b, 200)
    b.trigger("attack1")
    impacts = []
    for step in range(120):
        for e in b.update(DT):
            impacts.append((step, e.name, b.state()[1]))
        b.pose(DT)
    assert len(impacts) == 1 and impacts[0][1] == "impact"
    # listed by the step that reaches the impact frame
    frame = rts.clips["attack1"].impact * 30
    assert impacts[0][2] * 30 == pytest.approx(frame, abs=0.55)


@pytest.mark.parametrize("blend", battle_graph.BLENDS)
def test_state_changes_blend_on_the_runtime_path_and_cut_on_the_stadium_path(blend):
    """Just after a trigger the runtime pose lies between where the old state was and where
    the new one starts; the Stadium path shows the new state's frame outright."""
    species = ROSTER.load("emberlisk")
    runtime = Battler(species, np.zeros(3), 0.0, blend=blend, secondary=False)
    stadium = Battler(species, np.zeros(3), 0.0, pose_path="stadium", blend=blend)
    for b in (runtime, stadium):
        run(b, 200)
        b.trigger("attack1")
        run(b, 2)
    fresh = StadiumRig(species)
    role, playhead, _ = stadium.state()
    assert role == "attack1"
    clip = stadium.rts.clips[role]
    fresh.pose(clip.anim, clip.frame(playhead), clip.wrap)
    fresh.anchor(0.5)
    assert np.allclose(np.asarray(stadium.rig.pivot), np.asarray(fresh.pivot), atol=1e-5)
    # the runtime path has not arrived: it is still on its way from the standby pose
    gap = np.abs(np.asarray(runtime.rig.pivot) - np.asarray(fresh.pivot))[:, :, 3].max()
    assert gap > 1e-3 * species.height / species.root_scale
    run(runtime, 40)
    run(stadium, 40)
    assert_within_compression(runtime, stadium), "once the blend is over the two paths agree"


def assert_within_compression(runtime, stadium):
    """The runtime path plays compressed clips: its pivots are the Stadium path's within the
    species' compression bounds (origins by the precision, axes by its angle)."""
    origin, angle = compression_tolerance(runtime.rts)
    ours, theirs = np.asarray(runtime.rig.pivot), np.asarray(stadium.rig.pivot)
    assert np.abs(ours[:, :, 3] - theirs[:, :, 3]).max() <= origin * (1 + 1e-3)
    assert np.abs(ours[:, :, :3] - theirs[:, :, :3]).max() <= angle * (1 + 1e-3)


def test_on_a_steady_state_the_two_paths_agree_at_every_step():
    species = ROSTER.load("flitwren")
    a = Battler(species, np.zeros(3), 0.0, secondary=False)     # the graph's pose alone
    b = Battler(species, np.zeros(3), 0.0, pose_path="stadium")
    compared, standing = 0, 0
    for _ in range(400):
        for x in (a, b):
            x.update(DT)
            x.pose(DT)
        standing = standing + 1 if a.role == "standby" else 0
        # past the blend into standby, and the anchor's smoothing after it
        if standing > 60:
            compared += 1
            assert_within_compression(a, b)
            assert [p.texture for p in a.rig.parts] == [p.texture for p in b.rig.parts]
    assert compared > 100


def test_the_speed_parameter_slows_every_playhead():
    b = Battler(ROSTER.load("gloopet"), np.zeros(3), 0.0)
    b.set_speed(0.5)
    run(b, 30)
    assert b.state()[1] == pytest.approx(15 * DT, abs=1e-6)


def test_chains_set_from_outside_skin_as_the_rig_posed_them():
    species = ROSTER.load("gloopet")
    rig = StadiumRig(species)
    rig.pose(species.ctx[0], 7.5, True)
    pivot, draw = np.asarray(rig.pivot).copy(), rig.draw
    other = StadiumRig(species)
    scale = np.einsum("bij,bij->bj", draw[:, :, :3], pivot[:, :, :3])    # draw = pivot x scale
    other.set_chains(pivot, scale, rig.frame_at)
    for r in (rig, other):
        r.anchor(0.5)
        r.skin(0.3)
        r.textures(species.ctx[0])
    assert np.allclose(np.concatenate([p.vertices for p in rig.parts]),
                       np.concatenate([p.vertices for p in other.parts]), atol=1e-5)
    assert [p.texture for p in rig.parts] == [p.texture for p in other.parts]
    assert other.shown_frame(species.ctx[0], 7.5, True) == rig.frame_at
    assert GRAPH_NONE == 0xFFFFFFFF
