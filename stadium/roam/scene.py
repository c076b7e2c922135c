"""The roam scene: the trainer walking the village before the battle.

The keys held (arrows or WASD, shift to run) give a desired velocity relative to the
camera; the trainer's Locomotion matches motion toward it; the root is scaled from the
mocap's centimetres into the world and kept out of the village's walls; the camera
follows; stepping onto the battle spot ends the roam (`arrived`), and the viewer starts
the battle.

With a learned model, the trainer is driven by the motion database or by the model, and
pressing l switches (locomotion.Locomotion.set_driver; the inertialize node blends it).

A script drives it headless: `keys` is a list of [step, "keys"] pairs, each naming the
keys held from that step on ("up+shift", "left", "" for none); l among them where it was
not in the pair before is a press ("up+l": switch and walk on). What the renderer reads
is a scene's: no fighters, the trainer and the spot's mark as its `trainers`, a `camera`
that moves, and a `shadow_key` that changes when the sun's shadow window must follow.
"""
from __future__ import annotations

import hashlib
import math

import numpy as np

from ..battle.scene import place
from ..battle.trainer import SCALE
from ..render.battlecam import BattleCam
from ..rig.trainer_model import TrainerLook, TrainerRig, trainer_model
from .locomotion import Locomotion
from .marker import SpotMarker
from .motion import roam_motion
from .village import SPOT, START, Walls

WALK, RUN = 56.0, 174.0                  # cm/s of the trainer: the mocap's walks' and runs' pace
CAMERA_HALF_LIFE = 0.35                  # seconds for the camera to close half the gap
SHADOW_CELLS = 4                         # the sun's window re-aimed every this many cells
MOVES = {"up": (0, 1), "w": (0, 1), "down": (0, -1), "s": (0, -1),
         "left": (-1, 0), "a": (-1, 0), "right": (1, 0), "d": (1, 0)}
RUN_KEYS = ("shift", "left shift", "right shift")
SWITCH = "l"                             # pressed: the other driver (database / learned model)
KEY_NAMES = tuple(MOVES) + RUN_KEYS + (SWITCH,)


def parse_keys(text: str) -> frozenset:
    """"up+shift" -> {"up", "shift"}; ValueError naming a key that is not one."""
    keys = frozenset(k.strip().lower() for k in text.split("+") if k.strip())
    for k in keys:
        if k not in KEY_NAMES:
            raise ValueError(f"{k!r} is not a roam key ({', '.join(KEY_NAMES)})")
    return keys


class RoamTrainer:
    """The trainer as the renderer reads it (as stadium.battle.trainer.Trainer)."""

    def __init__(self):
        model = trainer_model()
        self.species = TrainerLook(0, SCALE)
        self.rig = TrainerRig(model)
        self.visible = True
        self.flash = 0.0
        self.matrix = np.zeros((4, 4), np.float32)
        self.position = np.zeros(3)

    def release(self) -> None:
        self.rig.release()


class RoamScene:
    def __init__(self, diorama, cells, script=(), model=None, driver: str = "database"):
        self.diorama = diorama
        self.motion = roam_motion()
        self.walls = Walls(diorama.voxel, tops=diorama.tops)
        self.to_world = SCALE                                   # the trainer's cm -> world units
        self.origin = diorama.cell(START)
        self.spot = diorama.cell(SPOT)
        self.marker = SpotMarker(self.spot, diorama.voxel)
        self.trainer = RoamTrainer()
        self.trainers = (self.trainer, self.marker)
        self.fighters = ()
        toward = self.spot - self.origin
        self.locomotion = Locomotion(self.motion, yaw=math.atan2(toward[0], toward[2]),
                                     model=model, driver=driver)
        self.battle_camera = BattleCam.battle(*cells)
        self._centre = 0.5 * (np.asarray(cells[0], float) + np.asarray(cells[1], float))
        self.camera = BattleCam.battle(*cells)
        self.camera.fit_depth(diorama.corners())
        self._eye0 = np.array(self.battle_camera.eye, float)
        self._cells0 = tuple(np.asarray(c, float) for c in cells)
        self._look = self.origin.copy()
        self.script = [(int(step), parse_keys(keys)) for step, keys in script]
        self.held: set = set()
        self.steps = 0
        self.time = 0.0
        self.arrived = False
        self.velocity = np.zeros(2)        # the desired velocity, cm/s of the trainer
        self._show()
        self._follow(1.0)

    # ------------------------------------------------------------ input

    def press(self, key: str) -> None:
        if key == SWITCH and key not in self.held:
            self.locomotion.switch_driver()
        if key in KEY_NAMES:
            self.held.add(key)

    def release_key(self, key: str) -> None:
        self.held.discard(key)

    def _scripted_keys(self) -> None:
        for step, keys in self.script:
            if step == self.steps:
                if SWITCH in keys and SWITCH not in self.held:
                    self.locomotion.switch_driver()
                self.held = set(keys)

    def desired_velocity(self) -> np.ndarray:
        """The keys' velocity on the ground, relative to the camera: up away from it."""
        x = sum(MOVES[k][0] for k in self.held if k in MOVES)
        y = sum(MOVES[k][1] for k in self.held if k in MOVES)
        if x == 0 and y == 0:
            return np.zeros(2)
        f = self.camera.forward
        forward = np.array([f[0], f[2]]) / math.hypot(f[0], f[2])
        right = np.array([-forward[1], forward[0]])
        d = x * right + y * forward
        speed = RUN if any(k in self.held for k in RUN_KEYS) else WALK
        return d / np.linalg.norm(d) * speed

    # ------------------------------------------------------------ a step

    def world_xz(self, ground) -> np.ndarray:
        return self.origin[[0, 2]] + np.asarray(ground, np.float64) * self.to_world

    def slide(self, start, end) -> np.ndarray:
        """The walls, in the locomotion's units."""
        ended = self.walls.slide(self.world_xz(start), self.world_xz(end))
        if np.array_equal(ended, self.world_xz(end)):
            return np.asarray(end, np.float64)
        return (ended - self.origin[[0, 2]]) / self.to_world

    def update(self, dt: float) -> None:
        if self.script:
            self._scripted_keys()
        self.velocity = self.desired_velocity()
        self.locomotion.step(self.velocity, dt, self.slide)
        self.steps += 1
        self.time += dt
        self._show()
        self._follow(dt)
        at = self.trainer.position
        self.arrived = self.walls.on_cell(at[0], at[2], SPOT)

    def _show(self) -> None:
        loc = self.locomotion
        xz = self.world_xz(loc.position)
        at = np.array([xz[0], self.diorama.ground(xz[0], xz[1]), xz[1]])
        self.trainer.position = at
        place(self.trainer.matrix, at, loc.yaw, SCALE)
        self.trainer.rig.skin(loc.pose, loc.yaw)

    def _follow(self, dt: float) -> None:
        """The battle's camera, moved with the trainer (its look kept)."""
        k = 1.0 - math.exp(-math.log(2.0) * dt / CAMERA_HALF_LIFE)
        self._look += (self.trainer.position - self._look) * k
        shift = self._look - self._centre
        shift[1] = 0.0
        self.camera.eye = self._eye0 + shift
        self.camera.cells = tuple(c + shift for c in self._cells0)

    @property
    def shadow_key(self) -> tuple:
        cell = self.trainer.position[[0, 2]] / (self.diorama.voxel * SHADOW_CELLS)
        return tuple(np.floor(cell).astype(int))

    def digest(self) -> str:
        """A hash of everything the roam carries from step to step."""
        return hashlib.sha1(self.locomotion.state_digest() +
                            np.asarray(self._look).tobytes()).hexdigest()[:16]

    def release(self) -> None:
        for actor in self.trainers:
            actor.release()
