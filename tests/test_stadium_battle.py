"""The playable battle: its rules and flow against a stand-in stage, then a seeded,
scripted match of graph-driven battlers played headless to its result."""
import numpy as np
import pytest

from stadium.battle import opponent, rules
from stadium.battle.battle import PLAYER, RIVAL, Battle
from stadium.battle.dex import DEX, Move, entry
from stadium.battle.rng import Rng
from stadium.battle.match import Match, script_setup
from stadium.battle.scene import ANCHOR_LIMIT, ENTRANCE_LIMIT
from stadium.rig import pack
from stadium.rig.rig import StadiumRig
from stadium.rig.roster import Roster

CELLS = (np.array([4.75, 1.5, 7.75]), np.array([7.75, 1.5, 5.25]))
ROSTER = Roster()


class FakeStage:
    """Attacks land ATTACK_IMPACT steps in and end ATTACK_END steps in; a hit reacts for
    HIT steps; a faint takes FAINT steps; a send-out SENDOUT."""

    SENDOUT, ATTACK_IMPACT, ATTACK_END, HIT, FAINT = 40, 15, 35, 20, 50

    def __init__(self, battle):
        self.battle = battle
        self.busy = [0, 0]
        self.doing = [None, None]
        self.flashes = []
        self.acts = []
        self.out = [None, None]

    def send_out(self, side, name):
        self.out[side] = name
        self.doing[side], self.busy[side] = "sendout", self.SENDOUT

    def act(self, side, action):
        self.acts.append((self.battle.frame, side, action))
        self.doing[side] = action
        self.busy[side] = {"hit": self.HIT, "faint": self.FAINT}.get(action, self.ATTACK_END)
        self.since = 0

    def flash(self, side):
        self.flashes.append((self.battle.frame, side))

    def withdraw(self, side):
        self.out[side] = None

    def settled(self, side):
        return self.out[side] is not None and self.busy[side] == 0 and self.doing[side] != "faint"

    def fainted(self, side):
        return self.doing[side] == "faint" and self.busy[side] == 0

    def step(self):
        self.battle.step(self)
        for side in (0, 1):
            if self.busy[side] > 0:
                self.busy[side] -= 1
                done = {"attack1": self.ATTACK_END, "attack2": self.ATTACK_END}.get(self.doing[side])
                if done and done - self.busy[side] == self.ATTACK_IMPACT:
                    self.battle.impact(side, self)


def play(battle, stage, limit=20000):
    for _ in range(limit):
        if battle.phase == "result":
            return battle
        stage.step()
    raise AssertionError(f"no result after {limit} steps (phase {battle.phase})")


TEAMS = (("emberlisk", "gloopet", "mosshoof"), ("scrapkit", "ripplewyrm", "flitwren"))


def check_flow(log, teams):
    """The battle's log is a story told in order."""
    kinds = [e.kind for e in log]
    assert kinds[0] == "sendout" and kinds[-1] == "result"
    assert kinds.count("result") == 1
    frames = [e.frame for e in log]
    assert frames == sorted(frames)
    hp = {(side, name): entry(name).hp for side in (0, 1) for name in teams[side]}
    active = [None, None]
    last_move = None
    for k, e in enumerate(log):
        if e.kind == "sendout":
            assert active[e.side] is None, "sent out over a creature still there"
            active[e.side] = e.data["species"]
        elif e.kind == "move":
            assert active[e.side] is not None and hp[(e.side, active[e.side])] > 0
            last_move = e
        elif e.kind == "impact":
            assert last_move is not None and last_move.side == e.side
            nxt = log[k + 1]
            assert nxt.kind in ("hit", "miss") and nxt.frame == e.frame and nxt.side == 1 - e.side
            assert (nxt.kind == "hit") == last_move.data["landed"]
        elif e.kind == "hit":
            key = (e.side, active[e.side])
            hp[key] -= e.data["damage"]
            assert hp[key] == e.data["hp"] >= 0
            if hp[key] == 0:
                # hit points at zero: the next thing that side does is faint
                later = [x for x in log[k + 1:] if x.side == e.side or x.kind == "result"]
                assert later[0].kind == "faint"
        elif e.kind == "faint":
            assert hp[(e.side, active[e.side])] == 0
            assert log[k + 1].kind == "withdraw" and log[k + 1].side == e.side
        elif e.kind == "withdraw":
            active[e.side] = None
            left = [n for n in teams[e.side] if hp[(e.side, n)] > 0]
            after = log[k + 1]
            if left:
                assert after.kind == "sendout" and after.side == e.side
                assert after.data["species"] == left[0]
            else:
                assert after.kind == "result" and after.data["winner"] == 1 - e.side
    return hp


@pytest.mark.parametrize("seed", range(6))
def test_a_seeded_battle_plays_to_a_result_in_order(seed):
    battle = Battle(TEAMS, seed=seed, controllers=("ai", "ai"))
    stage = FakeStage(battle)
    play(battle, stage)
    hp = check_flow(battle.log, TEAMS)
    loser = 1 - battle.winner
    assert all(hp[(loser, n)] == 0 for n in TEAMS[loser])
    assert any(hp[(battle.winner, n)] > 0 for n in TEAMS[battle.winner])
    # every landed blow flashed the defender on the step it landed, and reacted there
    hits = [(e.frame, e.side) for e in battle.log if e.kind == "hit"]
    assert stage.flashes == hits
    assert [(f, s) for f, s, a in stage.acts if a == "hit"] == hits


def test_the_same_seed_is_the_same_battle_and_others_differ():
    logs = []
    for seed in (3, 3, 4):
        battle = Battle(TEAMS, seed=seed, controllers=("ai", "ai"))
        play(battle, FakeStage(battle))
        logs.append([(e.frame, e.kind, e.side, e.text) for e in battle.log])
    assert logs[0] == logs[1]
    assert logs[0] != logs[2]


def test_a_script_chooses_our_moves_turn_by_turn():
    battle = Battle(TEAMS, seed=1, controllers=("script", "ai"), scripts=((1, 1, 0, 1), ()))
    play(battle, FakeStage(battle))
    ours = [e.data["move"] for e in battle.log if e.kind == "choose" and e.side == PLAYER]
    assert ours[:4] == [1, 1, 0, 1]


def test_a_human_side_waits_for_its_choice():
    battle = Battle(TEAMS, seed=1, controllers=("human", "ai"))
    stage = FakeStage(battle)
    for _ in range(400):
        stage.step()
    assert battle.phase == "choose" and battle.waiting_for_player()
    assert not battle.choose(PLAYER, 2)
    assert battle.choose(PLAYER, 1)
    assert not battle.choose(PLAYER, 0)           # one choice a turn
    for _ in range(60):
        stage.step()
    assert any(e.kind == "move" and e.side == PLAYER and e.data["move"] == 1 for e in battle.log)


def test_turn_order_follows_speed():
    fast, slow = entry("flitwren"), entry("gloopet")
    assert fast.speed > slow.speed
    assert rules.first_side(fast, slow, Rng(0)) == 0
    assert rules.first_side(slow, fast, Rng(0)) == 1
    tie = [rules.first_side(fast, fast, Rng(s)) for s in range(40)]
    assert 0 < sum(tie) < 40


def test_accuracy_and_damage():
    rng = Rng(9)
    sure, shaky = Move("Sure", 40, 100), Move("Shaky", 40, 60)
    assert all(rules.roll_hit(sure, rng) for _ in range(500))
    landed = sum(rules.roll_hit(shaky, rng) for _ in range(2000)) / 2000
    assert 0.55 < landed < 0.65
    a, d = entry("ripplewyrm"), entry("gloopet")
    rolls = [rules.roll_damage(rng) for _ in range(500)]
    assert min(rolls) == 85 and max(rolls) == 100
    assert rules.damage(a.moves[1], a, d, 100) > rules.damage(a.moves[0], a, d, 100) > 0


def test_the_opponent_finishes_a_weak_foe_with_its_surest_blow():
    me, foe = entry("emberlisk"), entry("gloopet")
    # both moves knock out a foe on one hit point: the surer one is chosen
    assert opponent.choose(me, foe, 1, Rng(0)) == 0
    # at full health it draws by expected damage, so both moves turn up
    picks = [opponent.choose(me, foe, foe.hp, Rng(s)) for s in range(200)]
    assert 20 < sum(picks) < 180


def test_a_battle_saved_as_data_continues_identically():
    battle = Battle(TEAMS, seed=5, controllers=("ai", "ai"))
    stage = FakeStage(battle)
    for _ in range(777):
        stage.step()
    copy = Battle.from_state(battle.state())
    twin = FakeStage(copy)
    twin.busy, twin.doing, twin.out = list(stage.busy), list(stage.doing), list(stage.out)
    play(battle, stage)
    play(copy, twin)
    assert battle.state() == copy.state()


def test_unknown_species_get_stable_stats():
    assert entry("Nobodymon") == entry("nobodymon")
    assert entry("Nobodymon").name == "Nobodymon"
    assert set(DEX) >= set(ROSTER.names)


# ---------------------------------------------------------------- the match, with graphs


def travel(rig) -> float:
    """How far the body is from its tile, in body heights: the vertex-weighted mean bone
    origin against the bind pose's."""
    s = rig.species
    weights = np.bincount(np.concatenate([p.bones for p in s.prims]), minlength=len(s.parents))
    centre = weights / weights.sum() @ rig.pivot[:, :, 3]
    return float(np.linalg.norm(centre - rig.bind_centre)) / (s.height / s.root_scale)


def run_match(setup, limit=12000):
    match = Match(setup, ROSTER, CELLS)
    frames = []
    while match.battle.phase != "result":
        match.update()
        frames.append({
            "frame": match.frame,
            "roles": [b.role if b else None for b in match.battlers],
            "flash": [b.flash if b else 0.0 for b in match.battlers],
            "fainted": [b.fainted() if b else False for b in match.battlers],
            "vertices": [np.concatenate([p.vertices for p in b.rig.parts]).copy()
                         if b and b.role == "faint" else None for b in match.battlers],
            "visible": [f.visible for f in match.fighters],
            "hud": [side is not None for side in match.hud().sides],
            "travel": [travel(b.rig) if b else None for b in match.battlers],
            "phase": match.battle.phase,
        })
        assert len(frames) < limit, "no result"
    return match, frames


SCRIPT = {"teams": [["emberlisk", "scrapkit"], ["gloopet", "flitwren"]], "seed": 11,
          "moves": [[2, 1, 2, 2, 1, 2], []]}


@pytest.fixture(scope="module")
def scripted():
    return run_match(script_setup(SCRIPT))


def test_a_scripted_match_plays_to_a_result_in_order(scripted):
    match, frames = scripted
    teams = match.setup.teams
    check_flow(match.battle.log, teams)
    ours = [e.data["move"] for e in match.battle.log if e.kind == "choose" and e.side == PLAYER]
    assert ours[:6] == [1, 0, 1, 1, 0, 1][:len(ours)]
    assert match.battle.winner in (PLAYER, RIVAL)


def test_each_impact_strikes_the_defender_on_the_frame_it_fires(scripted):
    match, frames = scripted
    by_frame = {f["frame"]: f for f in frames}
    impacts = [(g.frame, g.side) for g in match.graph_log if g.name == "impact"]
    moves = [e for e in match.battle.log if e.kind == "move"]
    assert len(impacts) == len(moves), "every attack's graph listed its impact once"
    for e in match.battle.log:
        if e.kind != "impact":
            continue
        assert (e.frame, e.side) in impacts, "the battle's impact is the graph's event"
        outcome = next(x for x in match.battle.log if x.frame == e.frame and x.kind in ("hit", "miss"))
        d = 1 - e.side
        f = by_frame[e.frame]
        if outcome.kind == "hit":
            assert f["flash"][d] > 0.5, "the flash starts on the impact's frame"
            assert f["roles"][d] == "hit", "the reaction starts on the impact's frame"
            assert by_frame[e.frame - 1]["roles"][d] != "hit"
        else:
            assert f["flash"][d] == 0.0 and f["roles"][d] != "hit"


def test_zero_hit_points_is_always_followed_by_a_held_faint(scripted):
    match, frames = scripted
    by_frame = {f["frame"]: f for f in frames}
    log = match.battle.log
    for k, e in enumerate(log):
        if e.kind != "faint":
            continue
        withdraw = next(x for x in log[k:] if x.kind == "withdraw" and x.side == e.side)
        span = [by_frame[f] for f in range(e.frame + 1, withdraw.frame)]
        assert all(f["roles"][e.side] == "faint" for f in span)
        held = [f for f in span if f["fainted"][e.side]]
        assert len(held) >= 30, "the faint is held a while before the creature leaves"
        # the pose holds; only the anchor's smoothing may still settle, by a hair
        species = ROSTER.load(e.data["species"])
        still = 1e-3 * species.height / species.root_scale
        first = held[0]["vertices"][e.side]
        assert all(np.abs(f["vertices"][e.side] - first).max() < still for f in held), \
            "a held faint does not move"


def test_the_next_species_is_sent_out_in_its_entrance(scripted):
    match, frames = scripted
    by_frame = {f["frame"]: f for f in frames}
    sendouts = [e for e in match.battle.log if e.kind == "sendout"]
    assert len(sendouts) >= 3
    for e in sendouts:
        assert by_frame[e.frame]["roles"][e.side] == "sendout"
        # it comes in from where its entrance starts, not from its tile: the anchor
        # lets an entrance's travel show (up to ENTRANCE_LIMIT)
        species = ROSTER.load(e.data["species"])
        free = StadiumRig(species)
        free.pose(species.ctx[pack.ENTRANCE], 0, False)
        authored = min(travel(free), ENTRANCE_LIMIT)
        assert by_frame[e.frame]["travel"][e.side] == pytest.approx(authored, abs=0.15)
    assert sum(by_frame[e.frame]["travel"][e.side] > ANCHOR_LIMIT + 0.3 for e in sendouts) >= 3


def test_no_frame_shows_a_side_empty_between_its_creatures(scripted):
    # from its first send-out to the result, each side shows its creature and its box
    match, frames = scripted
    first = [min(e.frame for e in match.battle.log if e.kind == "sendout" and e.side == side)
             for side in (PLAYER, RIVAL)]
    assert frames[-1]["phase"] == "result" and not frames[-1]["visible"][1 - match.battle.winner]
    for f in frames[:-1]:
        for side in (PLAYER, RIVAL):
            if f["frame"] >= first[side]:
                assert f["visible"][side] and f["hud"][side], (f["frame"], side)


def test_the_match_is_the_same_on_every_run_and_on_either_pose_path_and_blend():
    setup = script_setup({"teams": [["gloopet"], ["scrapkit"]], "seed": 2})
    digests = []
    for paths, blend in ((("runtime", "runtime"), "inertialize"),
                         (("runtime", "runtime"), "inertialize"),
                         (("stadium", "stadium"), "inertialize"),
                         (("runtime", "runtime"), "crossfade")):
        setup.pose_paths, setup.blend = paths, blend
        match = Match(setup, ROSTER, CELLS)
        trace = []
        for _ in range(900):
            match.update()
            trace.append(match.digest())
        digests.append((trace, [(e.frame, e.kind, e.text) for e in match.battle.log]))
    assert digests[0] == digests[1]
    # the pose path changes the pictures, never the battle
    assert digests[2][1] == digests[0][1]
    assert digests[2][0] != digests[0][0]
    # crossfading plays the same battle; its events land a step or so apart each time,
    # since a fade weighs the new state in over its first steps where a cut does not
    a, b = ([(kind, text) for _, kind, text in d[1]] for d in (digests[0], digests[3]))
    n = min(len(a), len(b)) - 1
    assert n > 10 and a[:n] == b[:n]
