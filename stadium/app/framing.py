"""Where each species stands: near its cell, moved on the ground just enough that its
standby, as the battle camera sees it, lies inside the frame and clear of the boxes the
overlay keeps over the field.

The camera frames the two cells, not the creatures on them, and species differ a lot
in shape: a low grazer seen from behind hides under the move menu, a long serpent runs
off the frame's edge. So each species' extent is measured (every vertex of every
standby frame, posed as the battle poses it), projected, and the smallest shift in
frame pixels that clears it is turned into a step on the ground. Nothing is tuned by
hand: another species, box or camera places itself.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..battle.scene import ANCHOR_LIMIT, facings, place
from ..render.battlecam import BattleCam
from ..rig import pack
from ..rig.rig import StadiumRig

MARGIN = 2          # frame pixels kept free around a creature's extent
REACH = 48          # the furthest shift (frame pixels, each way) the search considers


@lru_cache(maxsize=32)
def _standby_points(species: pack.Species) -> np.ndarray:
    """(n, 3) rig-space points: every vertex of every standby frame, anchored (the
    origin alone for a species with nothing to draw)."""
    if not species.prims:
        return np.zeros((1, 3))
    rig = StadiumRig(species)
    anim = species.ctx[pack.STANDBY]
    frames = species.anims[anim].frames if anim != pack.NO_ANIM else 1
    points = []
    for f in range(frames):
        rig.pose(None if anim == pack.NO_ANIM else anim, f, True)
        rig.anchor(ANCHOR_LIMIT)
        rig.skin(0.0)
        points.append(np.concatenate([p.vertices[:, :3] for p in rig.parts]))
    rig.release()
    return np.unique(np.concatenate(points).astype(np.float64), axis=0)


def extent(camera: BattleCam, species: pack.Species, position, yaw: float) -> np.ndarray:
    """The frame pixels (x0, y0, x1, y1) the species' standby covers, standing at
    `position` facing `yaw`."""
    matrix = np.empty((4, 4), np.float32)
    place(matrix, position, yaw, species.root_scale)
    points = _standby_points(species)
    world = points @ matrix[:3, :3].astype(np.float64) + matrix[3, :3]
    pixels = camera.project(world)
    return np.concatenate([pixels.min(axis=0), pixels.max(axis=0)])


def _overlap(boxes: np.ndarray, rect) -> np.ndarray:
    """The area each of (k, 4) extents shares with the rectangle (x0, y0, x1, y1)."""
    w = np.clip(np.minimum(boxes[:, 2], rect[2]) - np.maximum(boxes[:, 0], rect[0]), 0, None)
    h = np.clip(np.minimum(boxes[:, 3], rect[3]) - np.maximum(boxes[:, 1], rect[1]), 0, None)
    return w * h


def clearing_shift(box, rects, size, margin: int = MARGIN) -> np.ndarray:
    """The smallest whole-pixel (dx, dy) that puts extent `box` inside a frame of `size`
    and off every rectangle (x, y, width, height), kept `margin` pixels from each. Where
    none does, the shift that leaves the least of it hidden or outside."""
    steps = np.arange(-REACH, REACH + 1)
    dx, dy = (a.ravel() for a in np.meshgrid(steps, steps))
    grown = np.asarray(box, float) + (-margin, -margin, margin, margin)
    moved = grown[None] + np.stack([dx, dy, dx, dy], axis=1)
    area = (moved[:, 2] - moved[:, 0]) * (moved[:, 3] - moved[:, 1])
    hidden = area - _overlap(moved, (0, 0, size[0], size[1]))
    for x, y, w, h in rects:
        hidden += _overlap(moved, (x, y, x + w, y + h))
    best = np.lexsort((dx * dx + dy * dy, np.round(hidden, 6)))[0]
    return np.array([dx[best], dy[best]], float)


class Framing:
    """Spots for the species of a battle: `spot(side, species)` is where it stands."""

    def __init__(self, camera: BattleCam, cells, ground, rects=()):
        """`ground(x, z)` is the height of the map there; `rects` the overlay's boxes
        (x, y, width, height in frame pixels) a creature must stay out of."""
        self.camera = camera
        self.cells = tuple(np.asarray(c, float) for c in cells)
        self.facings = facings(*self.cells)
        self.ground = ground
        self.rects = tuple(rects)
        self._spots: dict = {}

    def spot(self, side: int, species: pack.Species) -> np.ndarray:
        key = (side, species)
        if key not in self._spots:
            self._spots[key] = self._solve(side, species)
        return self._spots[key].copy()

    def _solve(self, side: int, species: pack.Species) -> np.ndarray:
        """A few Newton steps: shift in pixels, through the ground's pixel Jacobian."""
        yaw = self.facings[side]
        at = self.cells[side].copy()
        for _ in range(8):
            box = extent(self.camera, species, at, yaw)
            shift = clearing_shift(box, self.rects, self.camera.size)
            if not shift.any():
                break
            step = np.linalg.solve(self._jacobian(at), shift)
            at = self._on_ground(at + np.array([step[0], 0.0, step[1]]))
        return at

    def _jacobian(self, at: np.ndarray) -> np.ndarray:
        """d(pixel) / d(ground x, z) at `at`."""
        h = 1e-3
        base = self.camera.project(at[None])[0]
        columns = [(self.camera.project((at + h * axis)[None])[0] - base) / h
                   for axis in (np.array([1.0, 0, 0]), np.array([0, 0, 1.0]))]
        return np.stack(columns, axis=1)

    def _on_ground(self, at: np.ndarray) -> np.ndarray:
        return np.array([at[0], self.ground(at[0], at[2]), at[2]])

