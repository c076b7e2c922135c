"""The asset on the diorama: a fixed height, standing on the ground at one cell, seen by a
fixed three-quarter camera, drawn by the battle renderer as its only actor.

The height and the ground line are measured once over every clip's frames (the tallest
frame is HEIGHT world units, the lowest vertex of any frame touches the ground; the
camera backs off to hold the bounding sphere), so
clips compare at one scale; each frame is centred across the ground on its own bounding
box, so a walk or run that travels stays in view (the root's travel is not shown).
"""
from __future__ import annotations

import math

import numpy as np

import runtime as rt
from ..render import diorama as diorama_module
from ..render.battle_renderer import BattleRenderer, Look
from ..render.battlecam import BATTLE_FOV, BATTLE_PITCH, FRAME, BattleCam
from ..render.hours import HOURS
from .figure import Figure

HEIGHT = 1.4            # world units, about a creature's
CELL = "clearing"
CAMERA_YAW = 0.45       # radians: a three-quarter view of the front (+Z)
SAMPLES = 24            # frames per clip measured for the framing
FLAT = 0.4              # an asset lower than this part of its breadth is sized by breadth
LOOK = Look(post=False)  # sharp: the inspector is for looking at the asset


def clip_times(clip: rt.Clip | None, count: int) -> np.ndarray:
    """`count` times from the clip's start to its end (just 0 for no clip)."""
    if clip is None or clip.duration <= 0 or count < 2:
        return np.zeros(max(count, 1))
    return np.linspace(0.0, float(clip.duration), count)


class Actor:
    """What the battle renderer reads of a fighter, for the figure."""

    def __init__(self, figure: Figure, height: float):
        self.rig = figure
        self.species = _Look(figure.images, height)
        self.matrix = np.zeros((4, 4), np.float32)
        self.flash, self.visible = 0.0, True
        self.position = np.zeros(3)


class _Look:
    def __init__(self, images, height):
        self.images, self.height, self.name = images, height, "inspected"


class Stage:
    """The figure, its framing and the renderer: `show(clip, time)` returns the RGB frame."""

    def __init__(self, gfx, figure: Figure, *, scale: int = 2):
        self.figure = figure
        self.diorama = diorama_module.build()
        self.cell = self.diorama.cell(CELL)
        low, high = self._extent()
        size = high - low
        # a flat asset (a plane, a lone triangle) is sized by its breadth instead
        self.scale = HEIGHT / max(size[1], FLAT * max(size[0], size[2]), 1e-9)
        self.floor = low[1]
        reach = 0.5 * self.scale * float(np.linalg.norm(size))     # the bounding sphere
        self.actor = Actor(figure, HEIGHT)
        self.actor.position = self.cell.copy()
        self.camera = _camera(self.cell + (0.0, 0.5 * HEIGHT, 0.0), max(reach, 0.5 * HEIGHT))
        self.fighters = (self.actor,)
        self.renderer = BattleRenderer(gfx, self.diorama, self.camera, scale=scale)
        w, h = self.camera.size
        self.rgb = np.empty((h * scale, w * scale, 3), np.uint8)

    def _extent(self):
        """The low and high corners of the figure over every clip's frames (asset units)."""
        clips = [c for _, c in self.figure.asset.clips] or [None]
        low, high = np.full(3, np.inf), np.full(3, -np.inf)
        for clip in clips:
            for t in clip_times(clip, SAMPLES):
                self.figure.pose(clip, float(t))
                p = self.figure.vertices[:, :3]
                size = p.max(axis=0) - p.min(axis=0)
                low = np.minimum(low, -0.5 * size)
                high = np.maximum(high, 0.5 * size)
                low[1], high[1] = min(low[1], p[:, 1].min()), max(high[1], p[:, 1].max())
        return low, high

    def place(self) -> None:
        """The model matrix for the figure's current rows: scaled, its lowest over all
        frames on the ground, centred across the ground on this frame's box."""
        p = self.figure.vertices[:, :3]
        mid = 0.5 * (p.min(axis=0) + p.max(axis=0))
        k = self.scale
        m = self.actor.matrix
        m[:] = np.diag([k, k, k, 1.0])
        m[3, :3] = self.cell - k * np.array([mid[0], self.floor, mid[2]])

    def show(self, clip: rt.Clip | None, time: float) -> np.ndarray:
        """Pose, skin, place and draw the figure; the frame's RGB (a buffer reused)."""
        self.figure.pose(clip, time)
        self.place()
        canvas = self.renderer.render(self, HOURS["day"], LOOK)
        return canvas.read_into(self.rgb)

    def release(self) -> None:
        self.renderer.release()


def _camera(target: np.ndarray, reach: float) -> BattleCam:
    """The battle's pitch and lens, turned by CAMERA_YAW, far enough back that a sphere of
    radius `reach` about `target` fits the frame's height with a margin."""
    distance = 1.15 * reach / math.sin(0.5 * BATTLE_FOV)
    camera = BattleCam(eye=np.zeros(3), yaw=CAMERA_YAW, pitch=BATTLE_PITCH, fov_y=BATTLE_FOV,
                       size=FRAME)
    camera.eye = np.asarray(target, float) - distance * camera.forward
    camera.cells = (np.asarray(target, float) - (0, 0.5 * HEIGHT, 0), np.asarray(target, float))
    return camera
