"""The faint as a fall in the battle (stadium.battle.fall), for every species of the roster:
it comes to rest lying down on the ground within a bounded time, the engine never warning
(no reset shown), the skin as drawn neither sunk nor floating, then lies exactly still;
the same bits on every run, and a battler saved mid-fall continues bit for bit."""
import hashlib
import json

import mujoco
import numpy as np
import pytest

from stadium.battle import fall as fall_module
from stadium.battle.battler import Battler
from stadium.battle.fall import LONGEST, SETTLE
from stadium.errors import BadInput
from stadium.rig.roster import Roster

ROSTER = Roster()
DT = 1 / 60
BOUND = int((LONGEST + SETTLE) * 60) + 2        # steps a fall may take, at most
GROUND = 1e-3                                   # the lowest vertex's reach, in body heights


def drawn(b: Battler) -> np.ndarray:
    """The rig's opaque vertices as skinned for drawing (x y z), in model space."""
    return np.concatenate([p.vertices[:, 0:3] for p in b.rig.opaque_parts()])


def step(b: Battler, n: int = 1) -> None:
    for _ in range(n):
        b.update(DT)
        b.pose(DT)


def fainting(name: str) -> Battler:
    """A battler as the battle faints it: out, standing by, struck, settled, then the
    faint's trigger (stadium.battle.battle's order)."""
    b = Battler(ROSTER.load(name), (0.0, 0.0, 0.0), 0.0)
    b.trigger("sendOut")
    for trigger, ready in (("hit", lambda: b.role == "standby"), ("faint", b.settled)):
        calm = 0
        while calm < 30:
            step(b)
            calm = calm + 1 if ready() else 0
        b.trigger(trigger)
    return b


def fall_through(b: Battler) -> list[str]:
    """Steps until the faint is over; each step's drawn vertices' digest."""
    digests = []
    while not b.fainted():
        step(b)
        digests.append(hashlib.sha256(drawn(b).tobytes()).hexdigest())
        assert len(digests) <= BOUND, "the fall never came to rest"
    return digests


@pytest.fixture(scope="module", params=ROSTER.names)
def fallen(request):
    b = fainting(request.param)
    standing = drawn(b)
    digests = fall_through(b)
    return request.param, b, standing, digests


def test_every_species_falls_and_comes_to_rest_in_bounded_time(fallen):
    name, b, _, digests = fallen
    assert b.fall is not None and b.fall.resting()
    assert len(digests) <= BOUND
    assert not b.fall.engine.unstable and not b.fall.kinematic, \
        f"{name}: MuJoCo warned {b.fall.engine.data.warning.number}"


def test_the_fallen_skin_touches_the_ground(fallen):
    name, b, _, _ = fallen
    low = float(drawn(b)[:, 1].min())
    assert abs(low) <= GROUND * b.rts.raw_height, f"{name}: lowest vertex at {low}"


def test_it_lies_down(fallen):
    """Lower than it stood, its top and its skin on average (a wyrm stands low, a bird's
    spread wings fold: by 11% and 12% the least of the roster; standing is 0%)."""
    name, b, standing, _ = fallen
    now = drawn(b)
    for measure in (np.max, np.mean):
        was, fell = float(measure(standing[:, 1])), float(measure(now[:, 1]))
        assert fell < 0.92 * was, f"{name}: {measure.__name__} height {fell} of {was} standing"


def test_at_rest_it_lies_exactly_still(fallen):
    name, b, _, digests = fallen
    before = drawn(b).copy()
    seconds = b.fall.engine.time
    step(b, 20)
    assert b.fall.engine.time == seconds                # the engine is no longer stepped
    assert np.array_equal(drawn(b), before)


def test_the_fall_is_the_same_bits_on_every_run(fallen):
    name, _, _, digests = fallen
    assert fall_through(fainting(name)) == digests


@pytest.mark.parametrize("name", ["ripplewyrm", "mosshoof"])
@pytest.mark.parametrize("at", [0, 25])
def test_a_battler_saved_mid_fall_continues_bit_for_bit(name, at):
    b = fainting(name)
    step(b, at)                     # at 0 the fall has not begun: its start is the saved pose
    saved = json.loads(json.dumps(b.save()))
    again = Battler(ROSTER.load(name), (0.0, 0.0, 0.0), 0.0)
    again.restore(saved)
    assert fall_through(again) == fall_through(b)


def test_a_saved_fall_of_another_model_is_refused():
    b = fainting("gloopet")
    step(b, 5)
    saved = json.loads(json.dumps(b.save()))
    saved["fall"]["state"] = saved["fall"]["state"][:-16]
    with pytest.raises(BadInput):
        Battler(ROSTER.load("gloopet"), (0.0, 0.0, 0.0), 0.0).restore(saved)
    saved = json.loads(json.dumps(b.save()))
    saved["previous"] = saved["previous"][:-2]
    with pytest.raises(BadInput):
        Battler(ROSTER.load("gloopet"), (0.0, 0.0, 0.0), 0.0).restore(saved)


def test_an_engine_that_warns_gives_way_to_the_clip_on_the_ground():
    """MuJoCo counts a step it had to reset; the fall then shows the faint clip's pose, the
    skin on the ground, rather than the reset. (The warning is set by hand: the species as
    they are no longer trip it.)"""
    b = fainting("ripplewyrm")
    step(b, 10)
    b.fall.engine.data.warning[int(mujoco.mjtWarning.mjWARN_BADQACC)].number = 1
    step(b)
    assert b.fall.kinematic
    clip = b.instance
    pose = b.pose_buffer.__class__(b.rts.skeleton)
    clip.evaluate(pose)
    pose.compute_model(b.rts.skeleton)
    lift = b.fall.lift
    assert lift >= 0.0
    expect = pose.model[b.rts.pivot_bones, :, 3] + np.array([0, lift, 0], np.float32)
    assert np.allclose(b.rig.pivot[:, :, 3], expect, atol=1e-5 * b.rts.raw_height)
    seconds = b.fall.engine.time
    digests = fall_through(b)
    assert b.fall.engine.time == seconds                # never stepped again
    assert len(digests) <= BOUND
    assert abs(float(drawn(b)[:, 1].min())) <= GROUND * b.rts.raw_height


def test_a_fall_starts_no_faster_than_a_creature_moves():
    """A pose that jumps (a cut) would throw the bodies: their start is bounded."""
    b = fainting("emberlisk")
    b._previous.locals[0, 1] -= 10.0 * b.rts.raw_height      # a step 10 heights below
    b._previous.compute_model(b.rts.skeleton)
    step(b)
    bodies = b.fall.engine.bodies()
    assert np.linalg.norm(bodies[:, 7:10], axis=1).max() < \
        2 * fall_module.FASTEST * b.rts.raw_height


def test_the_debugger_s_pause_holds_the_fall():
    from stadium.battle.secondary import Switches
    b = fainting("gloopet")
    step(b, 10)
    held = b.fall.engine.bodies()
    seconds = b.fall.seconds
    b.secondary.switches = Switches(paused=True)
    step(b, 30)                     # the graph plays on: the bones without a body follow it
    assert b.fall.seconds == seconds and np.array_equal(b.fall.engine.bodies(), held)
    b.secondary.switches = Switches()
    step(b)
    assert b.fall.seconds > seconds
