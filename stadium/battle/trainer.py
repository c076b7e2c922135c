"""Each side's trainer: standing behind its creature, gesturing at a send-out and waving
when its side wins, with the baked mocap gestures of stadium.battle.trainer_clips.

What the renderer reads is what it reads of a creature (species with its images and
height, rig with its parts and version, matrix, flash, visible, position), so a trainer
is drawn, shadowed and tinted like one. No GL here.

A gesture eases in from the rest pose and back out to it over EASE seconds at either end,
so starting one or returning to idle never pops. Without the mocap the trainer stands at
rest, and the first trainer made says so once on stderr.
"""
from __future__ import annotations


import numpy as np

import runtime as rt

from ..rig.trainer_model import TrainerLook, TrainerRig, trainer_model
from . import trainer_clips
from .scene import facings, place

# Centimetres of the trainer's skeleton to world units: its cap 1.4 units up, about as
# tall as the creatures.
SCALE = 0.0132
# Where a trainer stands from its side's cell, in world units: (behind, to the creature's
# left), behind meaning away from the rival. Chosen by looking and by measure: every
# bundled species' standby, wherever the show's and the battle's framing put it, stays
# out of every box of the figure (tests/test_stadium_trainer.py measures). The far
# trainer stands in full view beside the house, off the overlay's boxes; the near one has
# less room (the battle's framing moves its creature up toward it), so it stands mostly
# beside its creature, at the frame's left, clear of the message box.
STANDS = ((0.2, 1.8), (1.0, -1.3))
EASE = 0.3                   # seconds from rest into a gesture, and out of it back to rest
# each waves the hand toward the field: the near one, seen from behind, its right; the far
# one, seen from the front, its left (the right-handed wave mirrored)
WAVE_HANDS = ("wave", "wave_left")
GESTURES = ("sendout", "wave", "wave_left")

_said = False


def _say_missing_once() -> None:
    """A notice, not an error (the battle goes on), so on standard output: standard error
    is for what the program refuses."""
    global _said
    why = trainer_clips.missing()
    if why is not None and not _said:
        _said = True
        print(f"the trainers stand at rest: {why}", flush=True)


def stand(side: int, cells, ground) -> np.ndarray:
    """Where side's trainer stands: STANDS from its cell, on the ground there."""
    cell = np.asarray(cells[side], float)
    toward = np.asarray(cells[1 - side], float) - cell
    toward[1] = 0.0
    toward /= np.linalg.norm(toward)
    left = np.array([toward[2], 0.0, -toward[0]])
    behind, aside = STANDS[side]
    at = cell - behind * toward + aside * left
    at[1] = ground(at[0], at[2])
    return at


def _smooth(x: float) -> float:
    x = min(max(x, 0.0), 1.0)
    return x * x * (3.0 - 2.0 * x)


class Trainer:
    """One side's trainer: where it stands, the gesture it plays, its skinned figure."""

    def __init__(self, side: int, cells, ground):
        _say_missing_once()
        self.side = side
        model = trainer_model()
        self.skeleton = model.skeleton
        self.species = TrainerLook(side, SCALE)
        self.rig = TrainerRig(model)
        self.position = stand(side, cells, ground)
        self.yaw = facings(*cells)[side]
        self.visible = True
        self.flash = 0.0
        self.matrix = np.zeros((4, 4), np.float32)      # GL byte order: the transpose
        place(self.matrix, self.position, self.yaw, SCALE)
        self.pose = rt.Pose(self.skeleton)
        self._sampled = rt.Pose(self.skeleton)
        self._layer = [rt.BlendLayer(self._sampled, 1.0)]
        self.gesture_name: str | None = None
        self.time = 0.0                  # seconds into the gesture (or idle)
        self._resting = False            # the figure is skinned at rest (nothing to redo)
        self._show()

    def gesture(self, name: str) -> None:
        """Start "sendout" or "wave" (the side's waving hand) from its beginning."""
        if name == "wave":
            name = WAVE_HANDS[self.side]
        if name not in GESTURES:
            raise ValueError(f"no trainer gesture {name!r}")
        self.gesture_name, self.time = name, 0.0

    def state(self) -> list:
        """What carries from step to step, for a saved battle."""
        return [self.gesture_name, self.time]

    def restore(self, state) -> None:
        self.gesture_name, self.time = state[0], float(state[1])
        self._show()

    def update(self, dt: float) -> None:
        self.time += dt
        self._show()

    def _clip(self) -> rt.Clip | None:
        clips = trainer_clips.gestures() if self.gesture_name is not None else {}
        clip = clips.get(self.gesture_name)
        if clip is not None and self.time >= clip.duration:
            self.gesture_name, clip = None, None
        return clip

    def _show(self) -> None:
        """Pose for the current time (a gesture eased at its ends, or the rest) and skin."""
        clip = self._clip()
        pose = self.pose
        if clip is None:
            if self._resting:
                return
            pose.set_rest(self.skeleton)
        else:
            weight = _smooth(min(self.time, clip.duration - self.time) / EASE)
            if weight >= 1.0:
                clip.sample(self.skeleton, self.time, pose)
            else:
                clip.sample(self.skeleton, self.time, self._sampled)
                self._layer[0].weight = weight
                rt.blend_poses(self.skeleton, self._layer, 1.0, pose)
        pose.compute_model(self.skeleton)
        self.rig.skin(pose, self.yaw)
        self._resting = clip is None

    def release(self) -> None:
        self.rig.release()


def gesture_seconds(name: str) -> float:
    """How long a gesture runs (0 without the mocap)."""
    clip = trainer_clips.gestures().get(name)
    return 0.0 if clip is None else float(clip.duration)
