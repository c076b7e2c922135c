"""Secondary motion in the runtime pose path (stadium.battle.secondary), measured on what
the battler drives its rig with (its pose after the graph and the secondary motion):

- look-at: the head's forward turns onto the opponent's head (the angle between the
  forward and the line to the goal, measured here with numpy), never past its cone from
  the animation's forward, and its weight moves without a jump;
- planted feet: a foot on the ground slides less with the two-bone solves than without
  (mean cm a planted frame, both printed);
- springs: the species' chains at 30 and 144 Hz agree at common times within 1e-3 of the
  shortest segment, stay outside the colliders, and a Reset starts them from the pose.
"""
import math

import numpy as np
import pytest

import runtime as rt
from runtime.graph.source import ParameterType
from stadium.battle.battler import Battler
from stadium.battle.match import Match, script_setup
from stadium.battle.scene import facings
from stadium.battle.secondary import LOOK_FADE, Switches, _bind_model
from stadium.rig.roster import Roster

ROSTER = Roster()
DT = 1 / 60
CELLS = (np.array([4.75, 1.5, 7.75]), np.array([7.75, 1.5, 5.25]))
COMMON = 6                  # common times are multiples of 1/6 s: 30 and 144 Hz land on them


def pair(a: str, b: str, **kw):
    ya, yb = facings(*CELLS)
    return (Battler(ROSTER.load(a), CELLS[0], ya, **kw), Battler(ROSTER.load(b), CELLS[1], yb, **kw))


def step(battlers, dt=DT):
    for x, other in zip(battlers, battlers[::-1]):
        x.look_target = other.head_world()
    for x in battlers:
        x.update(dt)
    for x in battlers:
        x.pose(dt)


def _unit(v):
    return v / np.linalg.norm(v)


def look_error(b) -> tuple[float, float]:
    """(degrees between the aiming bone's forward and the line to the goal, degrees between
    that forward and the animation's) for the battler's first look chain."""
    sec = b.secondary
    bones, forward, *_ = sec.rig.looks[0]
    m = b.pose_buffer.model[bones[-1]].astype(np.float64)
    f = _unit(m[:, :3] @ np.asarray(forward))
    to_goal = _unit(sec.readout.look_goal - m[:, 3])
    animated = _unit(sec.readout.look_forwards[0])
    return (math.degrees(math.acos(min(1.0, float(f @ to_goal)))),
            math.degrees(math.acos(min(1.0, float(f @ animated)))))


@pytest.mark.parametrize("names", [("emberlisk", "mosshoof"), ("scrapkit", "ripplewyrm"),
                                   ("flitwren", "gloopet")])
def test_the_head_turns_toward_the_opponent_within_its_cone(names):
    on, off = pair(*names), pair(*names)
    for b in off:
        b.secondary.switches = Switches(look=False)
    for _ in range(240):                         # sent out, then standing by
        step(on)
        step(off)
    for b_on, b_off in zip(on, off):
        assert b_on.role == "standby" and b_on.secondary.look_weight == 1.0
        error_on, turned = look_error(b_on)
        b_off.secondary.readout.look_goal[:] = b_on.secondary.readout.look_goal
        error_off, _ = look_error(b_off)
        print(f"{b_on.species.name}: forward off the goal {error_on:.3f} deg with the look-at, "
              f"{error_off:.1f} deg without")
        cone = math.degrees(b_on.secondary.rig.looks[0][3])
        assert turned <= cone + 1e-3
        if error_off < cone:
            assert error_on < 0.5, "a goal inside the cone is reached"
        assert error_on < error_off


def test_the_cone_holds_and_a_goal_behind_lets_go():
    """A goal just past the cone is not reached and the forward stops short of the cone's
    edge; a goal behind the creature is let go of (weight 0: no flip across the cone)."""
    a, b = pair("emberlisk", "scrapkit")
    for _ in range(200):
        step((a, b))
    sec = a.secondary
    cone = sec.rig.looks[0][3]
    for past, weight in ((math.radians(12), True), (math.pi * 0.9, False)):
        # the goal turned `past` beyond the cone about the vertical, from the animation's
        # forward, 3 body heights out, placed in the world
        f = _unit(sec.readout.look_forwards[0] * (1, 0, 1))
        turn = cone + past
        d = np.array([f[0] * math.cos(turn) + f[2] * math.sin(turn), 0.0,
                      -f[0] * math.sin(turn) + f[2] * math.cos(turn)])
        goal = sec.readout.look_origins[0] + 3.0 * sec.rig.height * d
        for _ in range(60):
            a.look_target = sec.to_world(goal)
            a.update(DT)
            a.pose(DT)
        error, turned = look_error(a)
        print(f"goal {math.degrees(turn):.0f} deg off: weight {sec.readout.look_weight:.3f}, "
              f"turned {turned:.2f} deg (cone {math.degrees(cone):.0f}), {error:.1f} deg short")
        assert turned <= math.degrees(cone) + 1e-3
        if weight:
            assert 0 < sec.readout.look_weight < 1 and error > 5.0 and turned > 5.0
        else:
            assert sec.readout.look_weight == 0.0 and turned < 1e-3


def test_the_look_weight_fades_without_a_jump():
    """Through send-out, standby, an attack, a hit and a faint the weight changes at most
    its ramp's slope a frame (the smoothstep's 1.5 times the ramp) and the head's forward
    turns no faster than without the look-at by more than a few degrees a frame."""
    on, off = pair("emberlisk", "mosshoof"), pair("emberlisk", "mosshoof")
    for b in off:
        b.secondary.switches = Switches(look=False)
    for b in on + off:          # the faint's clip, where the look lets go (a fall poses the head)
        b.falls = False
    weights, shown, turn_on, turn_off = [], [], [], []
    before = None
    cues = {200: ("attack1", 0), 260: ("hit", 0), 330: ("attack2", 0), 420: ("faint", 0)}
    for frame in range(520):
        if frame in cues:
            for battlers in (on, off):
                battlers[cues[frame][1]].trigger(cues[frame][0])
        step(on)
        step(off)
        weights.append(on[0].secondary.look_weight)
        shown.append(on[0].secondary.readout.look_weight)
        now = []
        for b in (on[0], off[0]):
            bones, forward, *_ = b.secondary.rig.looks[0]
            now.append(_unit(b.pose_buffer.model[bones[-1], :, :3].astype(float) @ np.asarray(forward)))
        if before is not None:
            turn_on.append(math.degrees(math.acos(min(1.0, float(now[0] @ before[0])))))
            turn_off.append(math.degrees(math.acos(min(1.0, float(now[1] @ before[1])))))
        before = now
    jumps = np.abs(np.diff(weights))
    extra = np.array(turn_on) - np.array(turn_off)
    cone = math.degrees(on[0].secondary.rig.looks[0][3])
    step_most = float(np.abs(np.diff(shown)).max())
    print(f"largest weight change a frame {jumps.max():.4f} (shown, with the cone's fade, "
          f"{step_most:.4f}); head turn a frame: {max(turn_on):.2f} deg with the look-at, "
          f"{max(turn_off):.2f} without, at most {extra.max():.2f} more (frame {extra.argmax() + 1})")
    assert max(weights) == 1.0 and weights[-1] == 0.0
    assert jumps.max() <= 1.5 * DT / LOOK_FADE + 1e-9
    # the look adds at most its weight's change times the widest turn it makes (twice the
    # cone, where it lets go) a frame, and a degree for the aim following the animation
    assert extra.max() <= step_most * 2 * cone + 1.0


def _slide(feet: bool, frames: int = 300):
    """Scrapkit standing by (its hips bob, its knees bend): per frame, each foot's world
    position and the contact weight the on-run gives it."""
    b = Battler(ROSTER.load("scrapkit"), CELLS[0], 0.3)
    b.secondary.switches = Switches(look=False, springs=False, feet=feet)
    sec = b.secondary
    ends = [end for _, _, end, *_ in sec.rig.legs]
    points, contact = [], []
    for _ in range(frames):
        b.update(DT)
        b.pose(DT)
        points.append(sec.to_world(b.pose_buffer.model[ends, :, 3].astype(float)))
        contact.append(sec.readout.contact.copy())
    return np.array(points), np.array(contact)


def test_planted_feet_slide_less_than_without_ik():
    with_ik, contact = _slide(True)
    without, _ = _slide(False)
    planted = (contact[1:] > 0.99) & (contact[:-1] > 0.99)      # both ends of a frame's move
    assert planted.sum() > 200
    moved_on = np.linalg.norm(np.diff(with_ik, axis=0), axis=-1)[planted] * 100
    moved_off = np.linalg.norm(np.diff(without, axis=0), axis=-1)[planted] * 100
    print(f"planted feet: {moved_on.mean():.4f} cm a planted frame with IK, "
          f"{moved_off.mean():.4f} cm without ({planted.sum()} foot-frames)")
    assert moved_on.mean() < 0.1 * moved_off.mean()
    assert moved_on.max() < 0.05


# ------------------------------------------------------------------ springs

END = 4.5


def _triangle(t: float, frequency: float) -> float:
    """The triangle wave through a sine's peaks: its corners fall on multiples of
    1 / (2 frequency), common times, so a host's straight line between frames is exact."""
    return 2 / math.pi * math.asin(math.sin(2 * math.pi * frequency * t))


def _scripted_pose(rts, t: float, pose, sway: bool) -> None:
    """The script at t: the standby loop, the whole body swaying on its root (a turn and a
    step side to side, triangle waves: a motion of time alone that every host's
    interpolation between its frames follows exactly, so only the springs could differ)."""
    sk = rts.skeleton
    clip = rts.clip("standby")
    clip.sample(sk, t % clip.duration, pose)
    if sway:
        root = rts.pivot_bones[0]
        x, y, z, w = (float(v) for v in pose.locals[root, 3:7])
        half = 0.2 * _triangle(t, 0.5)
        c, s = math.cos(half), math.sin(half)          # a turn about +Y, then the root's own
        pose.locals[root, 3:7] = (c * x + s * z, c * y + s * w, c * z - s * x, c * w - s * y)
        pose.locals[root, 0] += 0.4 * _triangle(t, 0.25)
        pose.mark_stale()
    pose.compute_model(sk)


def _tails(name: str, rate: float, sway: bool = True):
    """Per chain, its spring tails in the world at the common times, the script played at
    `rate` Hz through the battler's own SecondaryMotion (look-at and feet aside)."""
    b = Battler(ROSTER.load(name), CELLS[1], 2.1)
    sec = b.secondary
    sec.switches = Switches(look=False, feet=False)
    sk = b.rts.skeleton
    pose = rt.Pose(sk)
    seen = {}
    for f in range(int(round(END * rate)) + 1):
        t = f / rate
        _scripted_pose(b.rts, t, pose, sway)
        sec.apply(pose, 1 / rate if f else 0.0, "standby", None, True)
        if abs(t * COMMON - round(t * COMMON)) < 1e-9:
            seen[round(t, 6)] = [sec.to_world(pose.model[bones[1:], :, 3].astype(float))
                                 for bones in sec.rig.chain_bones]
    bind = _bind_model(b.rts)
    segments = [float(np.linalg.norm(np.diff(bind[bones, :, 3], axis=0), axis=-1).min())
                * b.species.root_scale for bones in sec.rig.chain_bones]
    names = [c[0] for c in sec.rig.resolved.chains]
    return seen, segments, names


# Flitwren's wings (arm and hand as one chain) follow the fastest beat of all: a 30 Hz
# host's straight line between its frames parts from the clip's own curve by more than
# any other's, so their input differs (the springs do not): printed, not held to 1e-3.
LOOSE = {("flitwren", "wingL"), ("flitwren", "wingR")}


@pytest.mark.parametrize("name", ROSTER.names)
def test_battle_springs_do_not_depend_on_the_frame_rate(name):
    slow, segments, names = _tails(name, 30.0)
    fast, _, _ = _tails(name, 144.0)
    assert sorted(slow) == sorted(fast) and len(slow) == END * COMMON + 1
    for k, (chain, segment) in enumerate(zip(names, segments)):
        spread = max(float(np.linalg.norm(slow[t][k] - fast[t][k], axis=-1).max()) for t in slow)
        moved = max(float(np.linalg.norm(slow[t][k] - slow[0.0][k], axis=-1).max()) for t in slow)
        print(f"{name} {chain}: tails at 30 and 144 Hz {spread / segment:.2e} of the shortest "
              f"segment apart (they travel {moved / segment:.2f} segments)")
        assert moved > 0.1 * segment, "the tails move"
        if (name, chain) not in LOOSE:
            assert spread <= 1e-3 * segment


def test_springs_stay_outside_the_colliders():
    """A scripted battle of every species: after each frame no tail of a chain is inside a
    collider by more than float rounding (its hit radius included)."""
    teams = (("emberlisk", "scrapkit", "gloopet"), ("mosshoof", "ripplewyrm", "flitwren"))
    match = Match(script_setup({"teams": [list(t) for t in teams], "seed": 5}), ROSTER, CELLS)
    checked, worst = 0, math.inf
    while match.battle.phase != "result" and match.frame < 6000:
        match.update(DT)
        for b in match.battlers:
            if b is None or b.secondary is None or b.secondary.springs is None:
                continue
            sec = b.secondary
            model = b.pose_buffer.model.astype(np.float64)
            for bone, offset, radius, _ in sec.rig.colliders:
                centre = model[bone, :, :3] @ np.asarray(offset) + model[bone, :, 3]
                for bones, (*_, hit) in zip(sec.rig.chain_bones, sec.rig.resolved.chains):
                    gaps = np.linalg.norm(model[bones[1:], :, 3] - centre, axis=-1) - radius - hit
                    worst = min(worst, float(gaps.min()))
                    checked += len(gaps)
    print(f"{checked} tail positions checked; the closest is {worst:.5f} outside its collider")
    assert match.battle.phase == "result" and checked > 10000
    assert worst > -1e-4


def _sent_out_again(reset: bool) -> float:
    """Emberlisk standing by is sent out again (its entrance starts high above the cell):
    how far its tails are from where the graph puts them on the first frame after."""
    b = Battler(ROSTER.load("emberlisk"), CELLS[0], 0.0)
    b.secondary.switches = Switches(look=False, feet=False)
    for _ in range(200):
        b.update(DT)
        b.pose(DT)
    assert b.secondary.springs.has_motion
    if reset:
        b.trigger("sendOut")
        assert not b.secondary.springs.has_motion
    else:           # the trigger alone, as a battle without Reset would
        b.instance.set_parameter(b.graph.parameters["sendOut"], ParameterType.trigger, True)
    b.update(DT)
    b.pose(DT)
    plain = rt.Pose(b.rts.skeleton)
    b.instance.evaluate(plain)
    plain.compute_model(b.rts.skeleton)
    bones = b.secondary.rig.chain_bones[0][1:]
    gap = np.linalg.norm(b.pose_buffer.model[bones, :, 3] - plain.model[bones, :, 3], axis=-1)
    return float(gap.max()) / (b.species.height / b.species.root_scale)


def test_a_reset_on_send_out_starts_the_springs_from_the_pose():
    """A send-out teleports the body; with the Reset the first frame's tails are where the
    pose puts them (but for one step's gravity and stiffness), without it they trail."""
    with_reset, without = _sent_out_again(True), _sent_out_again(False)
    print(f"tails off the pose after a send-out: {with_reset:.2e} body heights with the Reset, "
          f"{without:.2e} without")
    assert with_reset < 1e-3 and without > 50 * with_reset
