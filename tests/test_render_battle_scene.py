"""The battle logic: a seeded, fixed-step timeline that poses both rigs, flashes the
one struck, holds a faint, and gives way to manual triggers. No GL here."""
import math

import numpy as np

from render_fixtures import boxling
from stadium.rig import pack
from stadium.battle.scene import FLASH_SECONDS, BattleScene, Cue, default_choreography
from stadium.rig.rig import StadiumRig

DT = 1 / 60
CELLS = (np.array([1.0, 1.5, 7.0]), np.array([5.0, 1.5, 4.0]))


def scene(seed=0, choreography=None):
    species = boxling()
    return BattleScene((species, StadiumRig(species)), (species, StadiumRig(species)), CELLS,
                       seed=seed, choreography=choreography)


def run(battle, seconds):
    for _ in range(round(seconds / DT)):
        battle.update(DT)
    return battle


def snapshot(battle):
    return [np.concatenate([p.vertices for p in f.rig.parts]).copy() for f in battle.fighters]


def test_the_default_battle_is_the_same_every_run():
    a, b = run(scene(3), 4.0), run(scene(3), 4.0)
    for left, right in zip(snapshot(a), snapshot(b)):
        assert np.array_equal(left, right)
    assert default_choreography(3) == default_choreography(3)


def test_seeds_pick_different_battles():
    choices = {default_choreography(seed) for seed in range(8)}
    assert len(choices) > 1


def test_the_two_face_each_other():
    battle = scene()
    left, right = battle.fighters
    toward = CELLS[1] - CELLS[0]
    assert math.isclose(left.yaw, math.atan2(toward[0], toward[2]))
    assert math.isclose(right.yaw - left.yaw, math.pi)
    # the model matrix carries the cell and the root scale (GL's transposed layout)
    assert np.allclose(left.matrix[3, :3], CELLS[0])
    assert np.isclose(np.linalg.norm(left.matrix[0, :3]), left.species.root_scale)


def test_the_right_one_is_not_on_the_map_before_it_is_sent_out():
    battle = scene()
    assert battle.fighters[0].visible and not battle.fighters[1].visible
    run(battle, 0.6)
    assert battle.fighters[1].visible


def test_an_attack_flashes_the_one_struck_and_only_it():
    cues = (Cue(0.0, 0, "attack1"),)
    battle = scene(choreography=cues)
    flashes = []
    for _ in range(60):
        battle.update(DT)
        flashes.append((battle.fighters[0].flash, battle.fighters[1].flash))
    attacker, target = np.array(flashes).T
    assert attacker.max() == 0.0
    assert target.max() > 0.5
    # it blinks, then it is over
    assert (target == 0.0).sum() > 5
    run(battle, FLASH_SECONDS)
    assert battle.fighters[1].flash == 0.0


def test_a_faint_holds_where_it_fell():
    battle = scene(choreography=(Cue(0.0, 1, "faint"),))
    run(battle, 2.0)
    held = snapshot(battle)[1]
    run(battle, 1.0)
    assert np.array_equal(snapshot(battle)[1], held)


def test_missing_moves_fall_back():
    fighter = scene().fighters[0]
    species = fighter.species
    assert species.ctx[pack.ATTACK2] == pack.NO_ANIM
    assert fighter.animation(pack.ATTACK2) == species.ctx[pack.ATTACK1]
    assert fighter.animation(pack.HIT) == species.ctx[pack.STANDBY]


def test_a_manual_trigger_ends_the_script():
    battle = scene()
    battle.trigger(1, "attack1")
    assert not battle.scripted
    slots = set()
    for _ in range(round(5.0 / DT)):       # past the scripted attack at about 3 s
        battle.update(DT)
        slots.add(battle.fighters[0].slot)
    assert pack.ATTACK1 not in slots and pack.ATTACK2 not in slots


def test_swapping_sends_a_new_creature_out():
    battle = run(scene(), 1.0)
    species = boxling(arm=False)
    old = battle.swap(0, species, StadiumRig(species))
    assert battle.fighters[0].species is species and old.species is not species
    assert battle.fighters[0].slot == pack.ENTRANCE and not battle.scripted
    assert np.allclose(battle.fighters[0].position, CELLS[0])
