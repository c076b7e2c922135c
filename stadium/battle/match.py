"""The playable battle: the battle's logic (stadium.battle) and the battlers that show it
(stadium.battle.battler), stepped together one fixed step at a time. No GL here.

A step, in this order:

1. the battle's flow advances (a choice made, a move announced: triggers set on graphs);
2. each battler's graph is updated, the attacker's first: when the attacker's update
   lists its "impact" event, the battle strikes the defender there and then, so the
   defender's graph, updated next, starts its hit reaction on this same step, and its
   flash starts on this step too;
3. each battler poses its rig from its graph (either pose path), anchors and skins it.

``save()`` captures all of it as plain data (each graph instance through its own Save,
the battle's own state, the rigs' anchor smoothing), and ``Match.load`` rebuilds it in
any process so that it continues exactly as the original would have.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field

import numpy as np

from .battle import PLAYER, RIVAL, Battle
from .dex import entry
from .battler import Battler, PoseView
from .secondary import Switches, compile_aside
from .scene import facings
from .trainer import Trainer
from ..rig.convert import IMPACT_EVENT

SAVE_VERSION = 1
DT = 1.0 / 60.0


@dataclass
class Setup:
    """What a match is: the teams (species names, player's first), who chooses each
    side's moves ("human", "ai" or "script" with its moves by turn, 0 or 1), the seed of
    every random draw, each side's pose path and the graphs' blend."""

    teams: tuple = ()
    seed: int = 0
    controllers: tuple = ("human", "ai")
    scripts: tuple = ((), ())
    pose_paths: tuple = ("runtime", "runtime")
    blend: str = "inertialize"

    def as_dict(self) -> dict:
        d = asdict(self)
        d["teams"] = [list(t) for t in self.teams]
        d["scripts"] = [list(s) for s in self.scripts]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Setup":
        return cls(tuple(tuple(t) for t in d["teams"]), int(d["seed"]), tuple(d["controllers"]),
                   tuple(tuple(s) for s in d["scripts"]), tuple(d["pose_paths"]), d["blend"])


def script_setup(script: dict, *, teams=None, seed: int = 0, pose_paths=("runtime", "runtime"),
                 blend: str = "inertialize") -> Setup:
    """A scripted battle's setup: {"teams": [[...], [...]], "seed": N, "moves": [[1, 2, ...],
    [...]], "pose_paths": [...], "blend": ...}, every key optional. Moves are 1 or 2 by
    turn; a side without moves, or past its last, is played by the opponent logic, so a
    script always plays to its end without input."""
    if not isinstance(script, dict):
        raise ValueError("a script is a JSON object")
    teams = tuple(tuple(str(n) for n in t) for t in script.get("teams", teams or ()))
    if len(teams) != 2:
        raise ValueError("a script names two teams (or the defaults are used)")
    moves = [[int(m) - 1 for m in side] for side in script.get("moves", [])]
    moves = (moves + [[], []])[:2]
    if any(m not in (0, 1) for side in moves for m in side):
        raise ValueError("a script's moves are 1 or 2")
    return Setup(teams, int(script.get("seed", seed)),
                 tuple("script" if m else "ai" for m in moves), tuple(tuple(m) for m in moves),
                 tuple(script.get("pose_paths", pose_paths)), str(script.get("blend", blend)))


@dataclass
class GraphLogEntry:
    frame: int
    side: int
    name: str
    time: float


class Vacancy:
    """An empty cell, as the renderer sees a fighter: nothing drawn, but a species for
    the sun's aim (the one due there)."""

    rig = None
    flash = 0.0
    visible = False

    def __init__(self, species, position):
        self.species = species
        self.position = np.asarray(position, float)


@dataclass
class HudSide:
    name: str
    hp: int
    max_hp: int
    shown: float            # the bar, 0..1
    team: list = field(default_factory=list)    # per member: True alive


@dataclass
class Hud:
    """What the battle's overlay shows, as plain data (stadium.app.hud draws it)."""

    sides: list             # HudSide or None, player's first
    message: str
    menu: list | None       # the player's moves when a choice is wanted
    result: list | None     # the result's lines once the battle is over
    winner: int | None = None   # and the side that won it


class Match:
    def __init__(self, setup: Setup, roster, cells, spots=None, ground=None):
        """`spots(side, species)`, if given, is where a species stands on a side
        (stadium.app.framing); otherwise on its cell. With `ground(x, z)` (the map's
        height) each side's trainer stands behind its cell (stadium.battle.trainer)."""
        compile_aside()                  # a first run: the per-frame kernels, while it sets up
        self.setup = setup
        self.roster = roster
        self.cells = tuple(np.asarray(c, float) for c in cells)
        self.facings = facings(*self.cells)
        self._spots = spots or (lambda side, species: self.cells[side])
        for team in setup.teams:
            for name in team:
                roster.load(name)        # a bad pack fails now, not mid-battle
        self.battle = Battle(setup.teams, seed=setup.seed, controllers=setup.controllers,
                             scripts=setup.scripts)
        self.battlers: list[Battler | None] = [None, None]
        self.retired: list = []          # rigs whose GPU side the renderer should let go
        self.frame = 0
        self.time = 0.0
        self.view: PoseView | None = None
        self.views: list[PoseView | None] = [None, None]
        self.switches = Switches()       # the secondary motion's, a debugger's to change
        self.graph_log: list[GraphLogEntry] = []
        self._vacant = [self._vacancy(side, team[0]) for side, team in enumerate(setup.teams)]
        self.trainers = () if ground is None else tuple(
            Trainer(side, self.cells, ground) for side in (0, 1))

    # ------------------------------------------------------------ what the renderer reads

    @property
    def fighters(self) -> tuple:
        return tuple(b if b is not None else v for b, v in zip(self.battlers, self._vacant))

    @property
    def scripted(self) -> bool:
        return all(c != "human" for c in self.setup.controllers)

    # ------------------------------------------------------------ the stage (stadium.battle's calls)

    def _vacancy(self, side: int, name: str) -> Vacancy:
        species = self.roster.load(name)
        return Vacancy(species, self._spots(side, species))

    def _battler(self, side: int, name: str, pose_path: str, blend: str) -> Battler:
        species = self.roster.load(name)
        return Battler(species, self._spots(side, species), self.facings[side],
                       pose_path=pose_path, blend=blend)

    def send_out(self, side: int, name: str) -> None:
        self._retire(side)
        self.battlers[side] = self._battler(side, name, self.setup.pose_paths[side], self.setup.blend)
        self._vacant[side] = self._vacancy(side, name)
        if self.trainers:
            self.trainers[side].gesture("sendout")

    def act(self, side: int, action: str) -> None:
        self.battlers[side].trigger(action)

    def flash(self, side: int) -> None:
        self.battlers[side].strike_flash()

    def withdraw(self, side: int) -> None:
        self._retire(side)

    def settled(self, side: int) -> bool:
        b = self.battlers[side]
        return b is not None and b.settled()

    def fainted(self, side: int) -> bool:
        b = self.battlers[side]
        return b is not None and b.fainted()

    def _retire(self, side: int) -> None:
        old = self.battlers[side]
        if old is not None:
            old.visible = False
            self.retired.append(old.rig)
            self.battlers[side] = None

    # ------------------------------------------------------------ input

    def choose(self, move: int) -> bool:
        """The player's move for this turn (0 or 1)."""
        return self.battle.choose(PLAYER, move)

    # ------------------------------------------------------------ the step

    def update(self, dt: float = DT) -> None:
        self.frame += 1
        self.time += dt
        won = self.battle.winner
        self.battle.step(self)
        if self.trainers and won is None and self.battle.winner is not None:
            self.trainers[self.battle.winner].gesture("wave")
        for trainer in self.trainers:
            trainer.update(dt)
        first = self.battle.attacker if self.battle.attacker in (PLAYER, RIVAL) else PLAYER
        for side in (first, 1 - first):
            battler = self.battlers[side]
            if battler is None:
                continue
            for event in battler.update(dt):
                self.graph_log.append(GraphLogEntry(self.frame, side, event.name, float(event.time)))
                if event.name == IMPACT_EVENT:
                    self.battle.impact(side, self)
        self._aim()
        self._switch()
        for side, battler in enumerate(self.battlers):
            if battler is not None:
                battler.pose(dt, self._view(side))

    def _aim(self) -> None:
        """Each battler looks at the other's head as last drawn (nobody: no look)."""
        heads = [None if b is None or not b.visible else b.head_world() for b in self.battlers]
        for side, battler in enumerate(self.battlers):
            if battler is not None:
                battler.look_target = heads[1 - side]

    def _switch(self) -> None:
        for battler in self.battlers:
            if battler is not None and battler.secondary is not None:
                battler.secondary.switches = self.switches

    def _view(self, side: int) -> PoseView | None:
        return self.views[side] or self.view

    def present(self) -> None:
        """Re-show the current step under the current views (a paused debugger)."""
        self._switch()
        for side, battler in enumerate(self.battlers):
            if battler is not None:
                battler.present(self._view(side))

    # ------------------------------------------------------------ the overlay

    def hud(self) -> Hud:
        battle = self.battle
        sides = []
        for s in battle.sides:
            if s.active < 0:
                sides.append(None)
                continue
            e = entry(s.team[s.active])
            sides.append(HudSide(e.name, s.hp[s.active], e.hp, s.shown_hp / e.hp,
                                 [hp > 0 for hp in s.hp]))
        menu = None
        if battle.waiting_for_player():
            menu = [m.name for m in battle.moves(PLAYER)]
        result = None
        message = battle.message
        if battle.phase == "result":
            ours, theirs = (sum(hp == 0 for hp in s.hp) for s in battle.sides)
            result = [battle.message, f"{battle.turn} turns, {theirs} down, {ours} lost"]
            message = ""
        return Hud(sides, message, menu, result, battle.winner if result else None)

    # ------------------------------------------------------------ saving

    def save(self) -> dict:
        return {
            "version": SAVE_VERSION, "setup": self.setup.as_dict(), "frame": self.frame,
            "time": self.time, "battle": self.battle.state(),
            "battlers": [None if b is None else b.save() for b in self.battlers],
            "vacant": [v.species.name for v in self._vacant],
            "graph_log": [asdict(e) for e in self.graph_log],
            "trainers": [t.state() for t in self.trainers],
        }

    def dumps(self) -> str:
        return json.dumps(self.save())

    @classmethod
    def load(cls, state: dict, roster, cells, spots=None, ground=None) -> "Match":
        if state.get("version") != SAVE_VERSION:
            raise ValueError(f"a saved match of version {state.get('version')}; "
                             f"this reads version {SAVE_VERSION}")
        setup = Setup.from_dict(state["setup"])
        self = cls(setup, roster, cells, spots, ground)
        self.battle = Battle.from_state(state["battle"])
        self.frame, self.time = int(state["frame"]), float(state["time"])
        for side, saved in enumerate(state["battlers"]):
            if saved is None:
                continue
            b = self._battler(side, saved["species"], saved["pose_path"], saved["blend"])
            b.restore(saved)
            self.battlers[side] = b
        self._vacant = [self._vacancy(side, name) for side, name in enumerate(state["vacant"])]
        self.graph_log = [GraphLogEntry(**e) for e in state["graph_log"]]
        for trainer, saved in zip(self.trainers, state.get("trainers", ())):
            trainer.restore(saved)
        return self

    @classmethod
    def loads(cls, text: str, roster, cells, spots=None) -> "Match":
        return cls.load(json.loads(text), roster, cells, spots)

    def digest(self) -> str:
        """A hash of everything a frame shows: each rig's skinned vertices and textures,
        flash and visibility, and the overlay's contents."""
        h = hashlib.sha1()
        for f in self.fighters:
            h.update(repr((f.visible, round(float(f.flash), 9))).encode())
            if f.rig is not None and f.visible:
                for part in f.rig.parts:
                    h.update(np.ascontiguousarray(part.vertices).tobytes())
                    h.update(str(part.texture).encode())
        h.update(repr(asdict(self.hud())).encode())
        return h.hexdigest()
