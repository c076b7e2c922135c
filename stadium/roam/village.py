"""Where the trainer can walk in the village (stadium.render.diorama's tile MAP): houses,
trees, rocks, bushes, the pond and the ledge block, and so do the map's edges and the cells
a roof's eaves or a tree's canopy overhang (the diorama's ground there is the overhang's
top: a trainer under it would be drawn standing on it); the path's gap through the ledge
lets a trainer by. A body is a square of RADIUS about its root,
sliding along what it meets (the blocked axis given up, the other kept)."""
from __future__ import annotations

import numpy as np

from ..render import diorama

BLOCKING = "HTob~#"
OVERHANG = 5           # voxels: a cell whose top stands above this has something over it
RADIUS = 0.12          # world units: the trainer's half width (a cell is a voxel, 0.5)
# the battle spot, the cell between the two battle cells; and where the trainer starts
SPOT = (12, 12)
START = (19, 16)


def blocked_cells(tops: np.ndarray | None = None) -> np.ndarray:
    """(width, depth) bool: the cells a trainer cannot enter (with the diorama's `tops`,
    the overhung ones too)."""
    glyphs = np.array([list(row) for row in diorama.MAP]).T
    blocked = np.isin(glyphs, list(BLOCKING))
    return blocked if tops is None else blocked | (np.asarray(tops) > OVERHANG)


class Walls:
    """The blocked cells at `voxel` world units a cell."""

    def __init__(self, voxel: float, radius: float = RADIUS, tops: np.ndarray | None = None):
        self.cells = blocked_cells(tops)
        self.voxel, self.radius = voxel, radius

    def blocks(self, x: float, z: float) -> bool:
        """A body at world (x, z) overlaps a blocked cell or the map's edge."""
        r, v = self.radius, self.voxel
        width, depth = self.cells.shape
        i0, i1 = int(np.floor((x - r) / v)), int(np.floor((x + r) / v))
        k0, k1 = int(np.floor((z - r) / v)), int(np.floor((z + r) / v))
        if i0 < 0 or k0 < 0 or i1 >= width or k1 >= depth:
            return True
        return bool(self.cells[i0:i1 + 1, k0:k1 + 1].any())

    def slide(self, start, end) -> np.ndarray:
        """Where a move from world (x, z) `start` toward `end` stops: whole, else along
        one axis, else not at all."""
        start, end = np.asarray(start, np.float64), np.asarray(end, np.float64)
        for x, z in ((end[0], end[1]), (end[0], start[1]), (start[0], end[1])):
            if not self.blocks(x, z):
                return np.array([x, z])
        return start.copy()

    def on_cell(self, x: float, z: float, cell) -> bool:
        return int(x // self.voxel) == cell[0] and int(z // self.voxel) == cell[1]
