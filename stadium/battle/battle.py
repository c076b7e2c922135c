"""The battle's flow: teams, hit points, turns, moves, faints and the result, one fixed
step at a time. No GL and no animation here.

The battle talks to a stage (whatever shows the creatures) through a few calls:

    stage.send_out(side, name)     a species appears on its cell and plays its entrance
    stage.act(side, action)        "attack1", "attack2", "hit" or "faint"
    stage.flash(side)              the hit flash starts on this step
    stage.withdraw(side)           the fainted one leaves its cell
    stage.settled(side) -> bool    standing by, nothing under way
    stage.fainted(side) -> bool    the faint has played to its end and holds there

and the stage tells it when an attack's blow lands: ``impact(side)``, called on the step
the attacker's animation reaches its impact event. The defender is struck on that same
call: its hit reaction and its flash start on the step the event fired.

Everything is counted in whole steps and every random draw comes from one seeded
generator, so a battle is the same battle on every run, and ``state()`` /
``from_state()`` carry it exactly across a save.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import opponent, rules
from .dex import Entry, entry
from .rng import Rng

PLAYER, RIVAL = 0, 1
MAX_TEAM = 3

# Timings, in 60 Hz steps.
SENDOUT_STAGGER = 30       # the rival's first creature comes out half a second after ours
THINK = 24                 # a choice is shown this long before the turn plays
IMPACT_TIMEOUT = 300       # an attack whose impact never comes lands anyway after this
PAUSE = 18                 # a breath between one action's end and the next
FAINT_HOLD = 60            # a faint holds this long after it has played before it leaves
DRAIN_STEPS = 45           # a full hit point bar empties in this many steps

PHASES = ("sendout", "choose", "announce", "attack", "resolve", "faint", "result")


@dataclass
class Side:
    """One trainer's team and what is on the field."""

    team: list[str]
    hp: list[int]
    active: int = -1                 # team index on the field, -1 for none
    shown_hp: float = 0.0            # the bar, draining toward hp[active]
    choice: int | None = None        # the move chosen for this turn (0 or 1)
    controller: str = "ai"           # "human", "ai" or "script"
    script: list[int] = field(default_factory=list)    # moves (0 or 1) by turn, for "script"

    def entry(self, k: int | None = None) -> Entry:
        return entry(self.team[self.active if k is None else k])

    @property
    def alive(self) -> list[int]:
        return [k for k, hp in enumerate(self.hp) if hp > 0]


@dataclass
class Event:
    frame: int
    kind: str
    side: int
    text: str
    data: dict = field(default_factory=dict)


class Battle:
    def __init__(self, teams, *, seed: int = 0, controllers=("human", "ai"), scripts=((), ())):
        if len(teams) != 2 or not all(1 <= len(t) <= MAX_TEAM for t in teams):
            raise ValueError(f"a battle is two teams of 1 to {MAX_TEAM} species")
        self.sides = []
        for team, controller, script in zip(teams, controllers, scripts):
            names = [str(n) for n in team]
            hp = [entry(n).hp for n in names]
            self.sides.append(Side(names, hp, controller=controller, script=[int(m) for m in script]))
        self.rng = Rng(seed)
        self.seed = int(seed)
        self.frame = 0
        self.turn = 0
        self.phase = "sendout"
        self.timer = 0                    # steps spent in this phase
        self.pending: list[int] = [PLAYER, RIVAL]       # sides still to send out
        self.order: list[int] = []        # sides still to act this turn
        self.attacker = -1
        self.move = -1
        self.landed: bool | None = None   # this attack's roll (None until it lands)
        self.impacted = False
        self.defender_struck = False
        self.winner: int | None = None
        self.message = ""
        self.log: list[Event] = []

    # ------------------------------------------------------------ reading

    def defender(self) -> int:
        return 1 - self.attacker

    def active_name(self, side: int) -> str | None:
        """The display name of the species on the field (None for an empty cell)."""
        s = self.sides[side]
        return s.entry().name if s.active >= 0 else None

    def waiting_for_player(self) -> bool:
        """Whether the human side's move is wanted now."""
        side = self.sides[PLAYER]
        return self.phase == "choose" and side.controller == "human" and side.choice is None

    def moves(self, side: int):
        s = self.sides[side]
        return s.entry().moves if s.active >= 0 else ()

    # ------------------------------------------------------------ input

    def choose(self, side: int, move: int) -> bool:
        """A move for a side this turn (0 or 1); False when no choice is wanted now."""
        s = self.sides[side]
        if self.phase != "choose" or s.choice is not None or move not in (0, 1) or s.active < 0:
            return False
        s.choice = move
        self._event("choose", side, f"{self.active_name(side)} readies {s.entry().moves[move].name}",
                    move=move)
        return True

    # ------------------------------------------------------------ the stage's calls

    def impact(self, side: int, stage) -> None:
        """The attacker's blow lands now: strike the defender on this very step."""
        if self.phase != "attack" or side != self.attacker or self.impacted:
            return
        self.impacted = True
        d = self.defender()
        a_side, d_side = self.sides[side], self.sides[d]
        move = a_side.entry().moves[self.move]
        self._event("impact", side, f"{move.name} reaches {self.active_name(d)}")
        if self.landed:
            hurt = rules.damage(move, a_side.entry(), d_side.entry(), rules.roll_damage(self.rng))
            before = d_side.hp[d_side.active]
            d_side.hp[d_side.active] = max(0, before - hurt)
            stage.act(d, "hit")
            stage.flash(d)
            self.defender_struck = True
            self._event("hit", d, f"{self.active_name(d)} takes {before - d_side.hp[d_side.active]}",
                        damage=before - d_side.hp[d_side.active], hp=d_side.hp[d_side.active])
        else:
            self.message = "But it missed!"
            self._event("miss", d, f"{move.name} misses {self.active_name(d)}")
        self._go("resolve")

    # ------------------------------------------------------------ the step

    def step(self, stage) -> None:
        """One 60 Hz step of the battle's flow."""
        self.frame += 1
        self.timer += 1
        self._drain()
        getattr(self, "_" + self.phase)(stage)

    def _drain(self) -> None:
        for s in self.sides:
            if s.active < 0:
                continue
            target = float(s.hp[s.active])
            if s.shown_hp > target:
                s.shown_hp = max(target, s.shown_hp - s.entry().hp / DRAIN_STEPS)
            else:
                s.shown_hp = target

    def _drained(self) -> bool:
        return all(s.active < 0 or s.shown_hp <= s.hp[s.active] for s in self.sides)

    def _go(self, phase: str) -> None:
        self.phase = phase
        self.timer = 0

    def _event(self, kind: str, side: int, text: str, **data) -> None:
        self.log.append(Event(self.frame, kind, side, text, data))

    def _sendout(self, stage) -> None:
        # the first send-out staggers the two sides; later ones come out at once
        for side in self.pending:
            s = self.sides[side]
            delay = SENDOUT_STAGGER if (self.turn == 0 and side == RIVAL) else 0
            if self.timer >= delay and not self._out(side):
                s.active = s.alive[0]
                s.shown_hp = float(s.hp[s.active])
                stage.send_out(side, s.team[s.active])
                name = self.active_name(side)
                self.message = f"Go! {name}!" if side == PLAYER else f"Rival sends out {name}!"
                self._event("sendout", side, self.message, species=s.team[s.active],
                            member=s.active)
        if all(self._out(side) and stage.settled(side) for side in self.pending):
            self.pending = []
            self._new_turn()

    def _out(self, side: int) -> bool:
        s = self.sides[side]
        return s.active >= 0 and s.hp[s.active] > 0

    def _new_turn(self) -> None:
        self.turn += 1
        for s in self.sides:
            s.choice = None
        self.message = f"What will {self.active_name(PLAYER)} do?"
        self._event("turn", PLAYER, f"turn {self.turn}", turn=self.turn)
        self._go("choose")

    def _choose(self, stage) -> None:
        if self.timer < THINK:
            return
        for side, s in enumerate(self.sides):
            if s.choice is not None:
                continue
            if s.controller == "script" and self.turn - 1 < len(s.script):
                self.choose(side, s.script[self.turn - 1] % 2)
            elif s.controller in ("ai", "script"):
                foe = self.sides[1 - side]
                self.choose(side, opponent.choose(s.entry(), foe.entry(), foe.hp[foe.active], self.rng))
        if any(s.choice is None for s in self.sides):
            return
        first = rules.first_side(self.sides[0].entry(), self.sides[1].entry(), self.rng)
        self.order = [first, 1 - first]
        self._go("announce")

    def _announce(self, stage) -> None:
        if not self.order:
            self._new_turn()
            return
        side = self.order.pop(0)
        s = self.sides[side]
        if not self._out(side):
            return
        self.attacker, self.move = side, s.choice
        move = s.entry().moves[self.move]
        self.landed = rules.roll_hit(move, self.rng)
        self.impacted = self.defender_struck = False
        self.message = f"{self.active_name(side)} used {move.name}!"
        stage.act(side, f"attack{self.move + 1}")
        self._event("move", side, self.message, move=self.move, landed=self.landed)
        self._go("attack")

    def _attack(self, stage) -> None:
        if self.timer >= IMPACT_TIMEOUT:
            self._event("late", self.attacker, "the impact never came; it lands now")
            self.impact(self.attacker, stage)

    def _resolve(self, stage) -> None:
        d = self.defender()
        if not (stage.settled(self.attacker) and self._drained()):
            return
        if self.sides[d].hp[self.sides[d].active] == 0:
            if self.timer < PAUSE:
                return
            stage.act(d, "faint")
            self.message = f"{self.active_name(d)} fainted!"
            self._event("faint", d, self.message, species=self.active_name(d))
            self.order = []
            self._go("faint")
            return
        if not stage.settled(d) or self.timer < PAUSE:
            return
        self.attacker = -1
        self._go("announce")

    def _faint(self, stage) -> None:
        d = self.defender()
        if not stage.fainted(d):
            self.timer = 0
            return
        if self.timer < FAINT_HOLD:
            return
        s = self.sides[d]
        stage.withdraw(d)
        self._event("withdraw", d, f"{self.active_name(d)} is withdrawn", species=s.team[s.active])
        s.active = -1
        self.attacker = -1
        if s.alive:
            # the next one comes out on this same step: no frame without either
            self.pending = [d]
            self._go("sendout")
            self._sendout(stage)
        else:
            self.winner = 1 - d
            self.message = "You won the battle!" if self.winner == PLAYER else "You lost the battle..."
            self._event("result", self.winner, self.message, winner=self.winner)
            self._go("result")

    def _result(self, stage) -> None:
        pass

    # ------------------------------------------------------------ saving

    def state(self) -> dict:
        """Everything the battle is, as plain data (JSON-ready)."""
        return {
            "seed": self.seed, "rng": self.rng.state, "frame": self.frame, "turn": self.turn,
            "phase": self.phase, "timer": self.timer, "pending": list(self.pending),
            "order": list(self.order), "attacker": self.attacker, "move": self.move,
            "landed": self.landed, "impacted": self.impacted,
            "defender_struck": self.defender_struck, "winner": self.winner,
            "message": self.message,
            "sides": [dict(team=list(s.team), hp=list(s.hp), active=s.active, shown_hp=s.shown_hp,
                           choice=s.choice, controller=s.controller, script=list(s.script))
                      for s in self.sides],
            "log": [dict(frame=e.frame, kind=e.kind, side=e.side, text=e.text, data=e.data)
                    for e in self.log],
        }

    @classmethod
    def from_state(cls, state: dict) -> "Battle":
        self = cls.__new__(cls)
        self.sides = [Side(list(s["team"]), list(s["hp"]), s["active"], float(s["shown_hp"]),
                           s["choice"], s["controller"], list(s["script"])) for s in state["sides"]]
        self.seed = state["seed"]
        self.rng = Rng(state=int(state["rng"]))
        for key in ("frame", "turn", "phase", "timer", "attacker", "move", "landed", "impacted",
                    "defender_struck", "winner", "message"):
            setattr(self, key, state[key])
        self.pending = list(state["pending"])
        self.order = list(state["order"])
        self.log = [Event(e["frame"], e["kind"], e["side"], e["text"], dict(e["data"]))
                    for e in state["log"]]
        return self
