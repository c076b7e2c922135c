"""The battle spot's mark: a red and white ring of flat boxes on its cell and a small
pennant on a post, drawn like any figure (species, rig, matrix) so it takes the sun's
shadow and the hour's tint. Static: built once, never rewritten."""
from __future__ import annotations

import numpy as np

from ..battle.scene import place
from ..rig.figure import SkinnedFigure
from ..rig.rig import SHADE_BASE, SHADE_X, SHADE_Y, SHADE_Z, RigPart

COLOURS = ((214, 40, 44), (246, 246, 240), (120, 84, 52))       # red, white, the post
_FACES = (((1, 0, 0), ((1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1))),
          ((-1, 0, 0), ((0, 0, 0), (0, 0, 1), (0, 1, 1), (0, 1, 0))),
          ((0, 1, 0), ((0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 1, 0))),
          ((0, 0, 1), ((0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1))),
          ((0, 0, -1), ((0, 0, 0), (0, 1, 0), (1, 1, 0), (1, 0, 0))))


def _boxes(half: float):
    """(colour, low, high) in the cell's units (world units about its top centre)."""
    t, h = 0.06, 0.02               # the ring's width and height
    found = []
    for k, (low, high) in enumerate((((-half, -half), (half, -half + t)),
                                     ((-half, half - t), (half, half)),
                                     ((-half, -half + t), (-half + t, half - t)),
                                     ((half - t, -half + t), (half, half - t)))):
        found.append((k % 2, (low[0], 0.0, low[1]), (high[0], h, high[1])))
    found.append((1, (-0.08, 0.0, -0.08), (0.08, h, 0.08)))                 # the centre
    found.append((2, (half - 0.04, 0.0, -half), (half, 0.55, -half + 0.04)))  # the post
    found.append((0, (half - 0.24, 0.38, -half + 0.01), (half - 0.04, 0.52, -half + 0.03)))
    return found


class MarkerLook:
    def __init__(self):
        self.images = [np.array([[(*c, 255) for c in COLOURS]], np.uint8)]
        self.height = 0.55
        self.name = "battle spot"


class MarkerRig(SkinnedFigure):
    def __init__(self, half: float):
        rows, indices = [], []
        sun = np.array([SHADE_X, SHADE_Y, SHADE_Z])
        for colour, low, high in _boxes(half):
            corners = np.array([low, high])
            u = (colour + 0.5) / len(COLOURS)
            for normal, picks in _FACES:
                first = len(rows)
                shade = SHADE_BASE + float(np.dot(normal, sun))
                rows += [(*corners[list(p), [0, 1, 2]], u, 0.5, shade) for p in picks]
                indices += [first, first + 1, first + 2, first, first + 2, first + 3]
        self._buffer = np.array(rows, np.float32)
        self.parts = [RigPart(self._buffer, np.array(indices, np.uint16), 0, False)]
        self._opaque = tuple(self.parts)
        self.version = 0

    def release(self) -> None:
        self.parts, self._opaque = [], ()


class SpotMarker:
    """What the renderer reads of an actor, for the spot's mark."""

    def __init__(self, position, cell_size: float):
        self.position = np.asarray(position, float)
        self.species = MarkerLook()
        self.rig = MarkerRig(0.5 * cell_size)
        self.visible = True
        self.flash = 0.0
        self.matrix = np.zeros((4, 4), np.float32)
        place(self.matrix, self.position + (0.0, 0.003, 0.0), 0.0, 1.0)

    def release(self) -> None:
        self.rig.release()
