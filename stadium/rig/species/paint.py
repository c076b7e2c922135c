"""Pixel-art textures painted in code: tile atlases, eyes and flames.

A creature is drawn 30-50 pixels tall, so one 8x8 tile covers about one box face on
screen. Each tile is a strong flat colour with a lit top-left edge and a shadowed
bottom-right edge, giving every face a bevelled voxel look, plus at most one bold
pattern. Only integer arithmetic, so the pixels are the same everywhere.
"""
from __future__ import annotations

import numpy as np

TILE = 8


def colour(hex_rgb: str) -> np.ndarray:
    """An opaque RGBA colour from "#rrggbb"."""
    v = int(hex_rgb.lstrip("#"), 16)
    return np.array([v >> 16 & 255, v >> 8 & 255, v & 255, 255], np.int32)


def tone(c: np.ndarray, percent: int) -> np.ndarray:
    """The colour scaled to ``percent`` brightness, alpha kept."""
    out = c.copy()
    out[:3] = np.clip(c[:3] * percent // 100, 0, 255)
    return out


def plain(base: np.ndarray) -> np.ndarray:
    """A bevelled tile: lit top and left edges, shadowed bottom and right."""
    t = np.empty((TILE, TILE, 4), np.int32)
    t[:] = base
    t[0, :] = tone(base, 125)
    t[:, 0] = tone(base, 125)
    t[-1, :] = tone(base, 70)
    t[:, -1] = tone(base, 70)
    return t


def spots(base, spot, at=((2, 2), (5, 4), (2, 5))) -> np.ndarray:
    t = plain(base)
    for y, x in at:
        t[y:y + 2, x:x + 2] = spot
    return t


def stripes(base, stripe, every=3, vertical=False) -> np.ndarray:
    t = plain(base)
    for k in range(1, TILE - 1, every):
        if vertical:
            t[1:-1, k] = stripe
        else:
            t[k, 1:-1] = stripe
    return t


def scales(base, edge) -> np.ndarray:
    """Overlapping arcs, alternate rows offset by half a scale."""
    t = plain(base)
    for row, y in enumerate((2, 5)):
        for x in range(row * 2, TILE, 4):
            t[y, x % TILE] = edge
            t[y - 1, (x + 1) % TILE] = edge
            t[y - 1, (x + 2) % TILE] = edge
            t[y, (x + 3) % TILE] = edge
    return t


def feathers(base, edge) -> np.ndarray:
    """Two rows of chevrons pointing down the tile."""
    t = plain(base)
    for y in (1, 4):
        for k, x in enumerate((1, 2, 3)):
            t[y + k, x] = edge
            t[y + k, TILE - 1 - x] = edge
    return t


def face(base, mark) -> np.ndarray:
    """A front tile with a small mouth, for bodies that are their own head."""
    t = plain(base)
    t[5, 2:6] = mark
    t[4, 1] = t[4, 6] = mark
    return t


def eye(state: str, lid, iris, white="#ffffff", pupil="#141414") -> np.ndarray:
    """An eye on its lid colour: "open", "half" (lid down to the middle) or "closed"."""
    lid = colour(lid) if isinstance(lid, str) else lid
    t = np.empty((TILE, TILE, 4), np.int32)
    t[:] = lid
    if state == "closed":
        t[4, 1:7] = colour(pupil)
        t[3, 1] = t[3, 6] = colour(pupil)
        return t
    t[1:7, 1:7] = colour(white)
    t[1, 1] = t[1, 6] = t[6, 1] = t[6, 6] = lid
    t[2:6, 3:6] = iris if not isinstance(iris, str) else colour(iris)
    t[3:5, 4:6] = colour(pupil)
    t[2, 4] = colour(white)
    if state == "half":
        t[:4] = lid
        t[4, 1:7] = tone(lid, 60)
    return t


def flame(phase: int) -> np.ndarray:
    """A 16x16 flame on black, for additive drawing: white-yellow core, red rim.

    ``phase`` (0 or 1) sways the tongue, for a two-image flicker.
    """
    size = 16
    y, x = np.mgrid[0:size, 0:size]
    sway = (2 - 4 * phase) * (size - y) // size
    centre = size // 2 + sway
    half = (y + 2) * 6 // size + 1
    d = np.abs(x - centre)
    t = np.zeros((size, size, 4), np.int32)
    t[..., 3] = 255
    rim = d <= half
    t[rim] = colour("#c8321e")
    t[d <= half * 2 // 3] = colour("#f5841f")
    t[(d <= half // 3) & (y > 3)] = colour("#fff3a0")
    return t


class Atlas:
    """Named 8x8 tiles packed into one square image."""

    def __init__(self, columns: int = 4, rows: int = 4):
        self.columns, self.rows = columns, rows
        self.pixels = np.zeros((rows * TILE, columns * TILE, 4), np.int32)
        self.pixels[..., 3] = 255
        self.slots: dict[str, int] = {}

    def add(self, name: str, tile: np.ndarray) -> "Atlas":
        slot = len(self.slots)
        if slot >= self.columns * self.rows:
            raise ValueError(f"atlas full: no room for {name!r}")
        y, x = divmod(slot, self.columns)
        self.pixels[y * TILE:(y + 1) * TILE, x * TILE:(x + 1) * TILE] = tile
        self.slots[name] = slot
        return self

    def __getitem__(self, name: str) -> tuple[float, float, float, float]:
        """The tile's uv rect, inset a quarter texel so nearest sampling never bleeds."""
        y, x = divmod(self.slots[name], self.columns)
        w, h = self.columns * TILE, self.rows * TILE
        inset = 0.25
        return ((x * TILE + inset) / w, (y * TILE + inset) / h,
                ((x + 1) * TILE - inset) / w, ((y + 1) * TILE - inset) / h)

    def image(self) -> np.ndarray:
        return self.pixels.astype(np.uint8)


def whole(inset: float = 0.25, size: int = TILE) -> tuple[float, float, float, float]:
    """The uv rect of a whole single-tile image."""
    return (inset / size, inset / size, (size - inset) / size, (size - inset) / size)
