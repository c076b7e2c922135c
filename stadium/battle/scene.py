"""The battle as logic: two creatures on their cells, what each is doing, and when.

No GL here. Each fixed step poses, anchors and skins both rigs into their own vertex
buffers and works out each one's model matrix and hit flash; a renderer reads those.
The default battle is a timeline of cues, fixed by a seed, so frame N of it is the same
picture on every run.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np

from ..rig.pack import ATTACK1, ATTACK2, ENTRANCE, FAINT, FPS, HIT, NO_ANIM, STANDBY

# How far (in its own body heights) a creature's animation may carry it from its tile
# before the excess is taken back out, so an entrance or a faint stays in the shot.
ANCHOR_LIMIT = 0.5

# An entrance comes onto the tile from off it (a drop, a walk, a hop in): that much of
# its travel shows as authored, and only an excursion beyond it is taken back out.
ENTRANCE_LIMIT = 2.0


def anchor_limit(slot: int) -> float:
    """How far (body heights) the animation in context slot `slot` may carry a creature."""
    return ENTRANCE_LIMIT if slot == ENTRANCE else ANCHOR_LIMIT

# Where an attack lands, as a fraction of its animation: the target flinches then.
IMPACT = 0.45

# The hit flash: a few blinks toward white, each weaker than the last.
FLASH_SECONDS = 0.5
FLASH_BLINKS_PER_SECOND = 8.0
FLASH_STRENGTH = 0.9

ACTIONS = {"entrance": ENTRANCE, "attack1": ATTACK1, "attack2": ATTACK2,
           "hit": HIT, "faint": FAINT, "standby": STANDBY}


@dataclass(frozen=True)
class Cue:
    """At `time` seconds, `side` (0 left, 1 right) starts `action`."""

    time: float
    side: int
    action: str


def place(matrix: np.ndarray, position, yaw: float, scale: float) -> None:
    """A creature's model matrix, translate(cell) * rotateY(yaw) * scale(root_scale),
    written column by column into a (4, 4) array in GL's byte order (the transpose)."""
    c, s, k = math.cos(yaw), math.sin(yaw), float(scale)
    matrix[0] = (c * k, 0.0, -s * k, 0.0)
    matrix[1] = (0.0, k, 0.0, 0.0)
    matrix[2] = (s * k, 0.0, c * k, 0.0)
    matrix[3] = (*position, 1.0)


def facings(a, b) -> tuple[float, float]:
    """The yaws of two creatures on cells `a` and `b` facing each other (a rig faces
    +Z at yaw 0)."""
    toward = np.asarray(b, float) - np.asarray(a, float)
    facing = math.atan2(toward[0], toward[2])
    return facing, facing + math.pi


def default_choreography(seed: int = 0) -> tuple[Cue, ...]:
    """Both sent out, three attacks traded, the right one faints.

    The seed picks each attack's move and delays each beat by up to eleven whole
    steps, so two seeds give two different but equally repeatable battles.
    """
    rng = np.random.default_rng(seed)

    def beat(seconds: float) -> float:
        return (round(seconds * 60.0) + int(rng.integers(0, 12))) / 60.0

    def move() -> str:
        return "attack1" if rng.random() < 0.5 else "attack2"

    return (
        Cue(0.0, 0, "entrance"),
        Cue(0.5, 1, "entrance"),
        Cue(beat(3.0), 0, move()),
        Cue(beat(5.5), 1, move()),
        Cue(beat(8.0), 0, move()),
        Cue(beat(9.6), 1, "faint"),
    )


# How long the default battle runs, the faint held a while at its end.
CHOREOGRAPHY_SECONDS = 13.0


class Fighter:
    """One creature on one cell: its rig, what it is playing, and where it stands."""

    def __init__(self, species, rig, position, facing: float, phase: float = 0.0):
        self.species, self.rig = species, rig
        self.position = np.asarray(position, float)
        self.yaw = float(facing)
        self.visible = False
        self.flash = 0.0
        self.matrix = np.zeros((4, 4), np.float32)   # GL byte order: the transpose
        self._place()
        self._hit_at = -math.inf
        self.play(STANDBY, -phase)    # a phase, so two of a kind do not idle in step

    def _place(self) -> None:
        place(self.matrix, self.position, self.yaw, self.species.root_scale)

    def animation(self, slot: int) -> int | None:
        """The animation a context slot plays, falling back where a species has none:
        a missing second attack uses the first, anything else missing stands by."""
        for candidate in (slot, ATTACK1 if slot == ATTACK2 else slot, STANDBY):
            index = self.species.ctx[candidate]
            if index != NO_ANIM:
                return index
        return None

    def play(self, slot: int, now: float) -> None:
        self._slot, self._anim, self._started = slot, self.animation(slot), now
        # Standby loops; a faint holds where it fell; the rest play once.
        self._wrap = slot == STANDBY
        self.visible = True

    @property
    def slot(self) -> int:
        return self._slot

    def seconds(self, slot: int) -> float:
        """How long a slot's animation runs (0 where there is none)."""
        index = self.animation(slot)
        return 0.0 if index is None else self.species.anims[index].frames / FPS

    def struck(self, now: float) -> None:
        if self._slot != FAINT:
            self.play(HIT, now)
        self._hit_at = now

    def update(self, now: float, dt: float) -> None:
        frame = (now - self._started) * FPS
        if (not self._wrap and self._slot != FAINT and self._anim is not None
                and frame >= self.species.anims[self._anim].frames):
            self.play(STANDBY, now)
            frame = 0.0
        since = now - self._hit_at
        if 0.0 <= since < FLASH_SECONDS:
            blink = math.floor(since * FLASH_BLINKS_PER_SECOND * 2.0) % 2 == 0
            self.flash = FLASH_STRENGTH * (1.0 - since / FLASH_SECONDS) if blink else 0.0
        else:
            self.flash = 0.0
        rig = self.rig
        rig.pose(self._anim, frame, self._wrap)
        rig.anchor(anchor_limit(self._slot), dt)
        rig.skin(self.yaw)
        rig.textures(self._anim)


class BattleScene:
    """Two fighters facing each other across the battle, driven by a timeline of cues
    until a manual `trigger` takes over."""

    def __init__(self, left, right, cells, *, seed: int = 0, choreography=None, spots=None,
                 ground=None):
        """`left` and `right` are (species, rig) pairs, `cells` their two world cells;
        `spots(side, species)`, if given, is where a species stands on a side instead;
        with `ground(x, z)` (the map's height) each side's trainer stands behind its cell."""
        self._spots = spots or (lambda side, species: np.asarray(cells[side], float))
        yaws = facings(*cells)
        rng = np.random.default_rng(seed)
        self.fighters = tuple(
            Fighter(species, rig, self._spots(side, species), yaws[side], phase=float(rng.random()))
            for side, (species, rig) in enumerate((left, right)))
        self.cues = tuple(sorted(choreography if choreography is not None
                                 else default_choreography(seed), key=lambda c: c.time))
        self.time = 0.0
        self.scripted = True
        self._next_cue = 0
        self._impacts: list[tuple[float, int]] = []      # a heap of (time, side struck)
        self.trainers = ()
        if ground is not None:
            from .trainer import Trainer        # it places itself with this module's place()

            self.trainers = tuple(Trainer(side, cells, ground) for side in (0, 1))
        if self.cues:
            for side in {cue.side for cue in self.cues if cue.action == "entrance"}:
                self.fighters[side].visible = False
        self._run_cues()
        self._pose(0.0)

    def swap(self, side: int, species, rig) -> Fighter:
        """Send a different creature out on `side`; returns the fighter it replaces.
        Like a manual trigger, this ends the scripted timeline."""
        old = self.fighters[side]
        fighter = Fighter(species, rig, self._spots(side, species), old.yaw)
        self.fighters = tuple(fighter if i == side else f for i, f in enumerate(self.fighters))
        self.trigger(side, "entrance")
        return old

    def trigger(self, side: int, action: str) -> None:
        """Start `action` on `side` now; the scripted timeline stops here."""
        self.scripted = False
        self._start(side, action)

    def _start(self, side: int, action: str) -> None:
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}; one of {sorted(ACTIONS)}")
        fighter = self.fighters[side]
        slot = ACTIONS[action]
        fighter.play(slot, self.time)
        if self.trainers and slot in (ENTRANCE, FAINT):
            # a trainer gestures at its send-out, and waves when the rival falls
            self.trainers[side if slot == ENTRANCE else 1 - side].gesture(
                "sendout" if slot == ENTRANCE else "wave")
        if slot in (ATTACK1, ATTACK2):
            lands = self.time + max(fighter.seconds(slot) * IMPACT, 0.2)
            heapq.heappush(self._impacts, (lands, 1 - side))

    def _run_cues(self) -> None:
        while self.scripted and self._next_cue < len(self.cues) \
                and self.cues[self._next_cue].time <= self.time + 1e-9:
            cue = self.cues[self._next_cue]
            self._start(cue.side, cue.action)
            self._next_cue += 1
        while self._impacts and self._impacts[0][0] <= self.time + 1e-9:
            _, side = heapq.heappop(self._impacts)
            self.fighters[side].struck(self.time)

    def _pose(self, dt: float) -> None:
        for fighter in self.fighters:
            if fighter.visible:
                fighter.update(self.time, dt)
        for trainer in self.trainers:
            trainer.update(dt)

    def update(self, dt: float) -> None:
        self.time += dt
        self._run_cues()
        self._pose(dt)
