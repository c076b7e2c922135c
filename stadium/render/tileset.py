"""The diorama's tileset: 8 x 8 pixel-art tiles painted by code into one atlas.

Game Boy Color sized tiles with a handful of colours each, so a voxel face seen at
160 x 144 shows its texture at about one texel a pixel. Alongside the colours the atlas
carries a glass mask: red is how much a texel reflects the sky (window panes, water),
green how much it lights up from inside after dark (the windows), blue whether it is
water (lit by the hour's water tint rather than the land's).
"""
from __future__ import annotations

import numpy as np

TILE = 8
COLUMNS = 8

_PALETTE = {
    "grass0": (40, 104, 56), "grass1": (72, 152, 64), "grass2": (112, 184, 72),
    "grass3": (160, 212, 96),
    "dirt0": (84, 54, 38), "dirt1": (122, 82, 50), "dirt2": (156, 110, 66),
    "path0": (168, 132, 84), "path1": (206, 172, 112), "path2": (228, 202, 140),
    "sand0": (200, 172, 108), "sand1": (232, 210, 150),
    "water0": (36, 76, 152), "water1": (56, 112, 196), "water2": (104, 164, 228),
    "water3": (196, 232, 248),
    "stone0": (74, 74, 92), "stone1": (112, 112, 130), "stone2": (156, 156, 170),
    "plaster0": (196, 178, 150), "plaster1": (236, 224, 196),
    "wood0": (86, 50, 30), "wood1": (126, 78, 44), "wood2": (166, 110, 60),
    "roof0": (126, 36, 40), "roof1": (186, 56, 48), "roof2": (228, 96, 68),
    "leaf0": (28, 78, 50), "leaf1": (48, 118, 60), "leaf2": (88, 160, 72),
    "pane0": (84, 140, 200), "pane1": (168, 212, 240),
    "red": (228, 64, 72), "yellow": (248, 212, 64), "white": (248, 248, 236),
    "pink": (240, 144, 184),
}


def _c(name: str) -> np.ndarray:
    return np.array((*_PALETTE[name], 255), np.uint8)


def _fill(name: str) -> np.ndarray:
    return np.broadcast_to(_c(name), (TILE, TILE, 4)).copy()


def _speckle(tile, rng, name, fraction):
    tile[rng.random((TILE, TILE)) < fraction] = _c(name)


def _grass(rng, flowers=()):
    tile = _fill("grass1")
    _speckle(tile, rng, "grass2", 0.22)
    _speckle(tile, rng, "grass0", 0.10)
    for _ in range(3):  # little "v" tufts, the Game Boy grass mark
        y, x = rng.integers(1, TILE - 1), rng.integers(1, TILE - 1)
        tile[y, x] = _c("grass0")
        tile[y - 1, x - 1] = tile[y - 1, (x + 1) % TILE] = _c("grass3")
    for colour in flowers:
        y, x = rng.integers(1, TILE - 1), rng.integers(1, TILE - 1)
        tile[y - 1:y + 2, x] = tile[y, x - 1:x + 2] = _c(colour)
        tile[y, x] = _c("yellow" if colour != "yellow" else "white")
    return tile


def _grass_side(rng):
    tile = _dirt(rng)
    edge = 2 + rng.integers(0, 2, TILE)
    for x in range(TILE):
        tile[:edge[x], x] = _c("grass1")
        tile[0, x] = _c("grass2")
        tile[edge[x] - 1, x] = _c("grass0")
    return tile


def _dirt(rng):
    tile = _fill("dirt1")
    _speckle(tile, rng, "dirt2", 0.15)
    _speckle(tile, rng, "dirt0", 0.15)
    return tile


def _path(rng):
    tile = _fill("path1")
    _speckle(tile, rng, "path2", 0.18)
    _speckle(tile, rng, "path0", 0.08)
    y, x = rng.integers(1, TILE - 1, 2)
    tile[y, x:x + 2] = _c("stone1")
    tile[y + 1, x:x + 2] = _c("path0")
    return tile


def _sand(rng):
    tile = _fill("sand1")
    _speckle(tile, rng, "sand0", 0.2)
    return tile


def _water(rng, phase):
    tile = _fill("water1")
    _speckle(tile, rng, "water0", 0.12)
    for row in (1 + phase, 5 + phase):
        start = rng.integers(0, TILE - 3)
        tile[row % TILE, start:start + 3] = _c("water2")
        tile[row % TILE, start + 1] = _c("water3")
    return tile


def _stone(rng):
    tile = _fill("stone1")
    tile[3, :] = tile[7, :] = _c("stone0")
    tile[0:3, 2] = tile[4:7, 6] = _c("stone0")
    tile[0, 3:7] = tile[4, 0:5] = _c("stone2")
    return tile


def _plaster(rng, window=False):
    tile = _fill("plaster1")
    _speckle(tile, rng, "plaster0", 0.08)
    tile[7, :] = _c("wood1")
    if window:
        tile[1:6, 1:7] = _c("wood0")
        tile[2:5, 2:6] = _c("pane0")
        tile[2, 2:4] = tile[3, 2] = _c("pane1")
        tile[2:5, 4] = _c("wood0")
    return tile


def _door(rng):
    tile = _fill("wood1")
    tile[:, 0] = tile[:, 7] = tile[0, :] = _c("wood0")
    tile[1:, 3] = _c("wood0")
    tile[1:, 1] = tile[1:, 5] = _c("wood2")
    tile[4, 5] = _c("yellow")
    return tile


def _roof(rng):
    tile = _fill("roof1")
    for row in (0, 4):
        tile[row + 3, :] = _c("roof0")
        tile[row, :] = _c("roof2")
        tile[row:row + 3, (row // 2 + 1) % 4::4] = _c("roof0")
    return tile


def _planks(rng):
    tile = _fill("wood2")
    tile[3, :] = tile[7, :] = _c("wood0")
    tile[0:3, 5] = tile[4:7, 2] = _c("wood1")
    return tile


def _bark(rng):
    tile = _fill("wood1")
    tile[:, [1, 4]] = _c("wood0")
    tile[rng.integers(0, TILE, 3), rng.integers(0, TILE, 3)] = _c("wood2")
    return tile


def _rings(rng):
    tile = _fill("wood2")
    tile[[0, 7], :] = tile[:, [0, 7]] = _c("wood0")
    tile[2:6, 2:6] = _c("wood1")
    tile[3:5, 3:5] = _c("wood2")
    return tile


def _leaves(rng):
    tile = _fill("leaf1")
    _speckle(tile, rng, "leaf2", 0.25)
    _speckle(tile, rng, "leaf0", 0.2)
    return tile


def _rock(rng):
    tile = _fill("stone1")
    _speckle(tile, rng, "stone0", 0.15)
    tile[0:2, 0:3] = _c("stone2")
    tile[6:, 4:] = _c("stone0")
    return tile


def _tall_grass(rng, side):
    """Blades leaning in rows, the Game Boy's tall grass. A side is a cut-out: between
    the blade tips it is clear (alpha 0), so what stands behind shows through."""
    tile = _fill("grass1")
    if side:
        tile[:4, :, 3] = 0
    for x in range(0, TILE, 2):
        top = int(rng.integers(0, 2))
        tile[top:, x] = _c("grass2")
        tile[top, x] = _c("grass3")
        tile[top + 2:, x + 1] = _c("grass0")
        tile[top + 1:top + 4, x + 1, 3] = 255
    if not side:
        for row in (1, 5):
            tile[row, 1::4] = tile[row + 1, 0::4] = tile[row + 1, 2::4] = _c("grass0")
    return tile


def _brick(rng):
    tile = _fill("roof0")
    tile[[3, 7], :] = _c("stone1")
    tile[0:3, 4] = tile[4:7, 1] = _c("stone1")
    return tile


# (name, painter, reflects, glows). The order is the atlas layout, left to right.
_TILES = (
    ("grass_a", lambda r: _grass(r), 0, 0),
    ("grass_b", lambda r: _grass(r), 0, 0),
    ("flowers_a", lambda r: _grass(r, ("red", "white")), 0, 0),
    ("flowers_b", lambda r: _grass(r, ("yellow", "pink")), 0, 0),
    ("grass_side", _grass_side, 0, 0),
    ("dirt", _dirt, 0, 0),
    ("path_a", _path, 0, 0),
    ("path_b", _path, 0, 0),
    ("sand", _sand, 0, 0),
    ("water_a", lambda r: _water(r, 0), 90, 0),
    ("water_b", lambda r: _water(r, 2), 90, 0),
    ("stone", _stone, 0, 0),
    ("plaster", _plaster, 0, 0),
    ("window", lambda r: _plaster(r, window=True), "pane", "pane"),
    ("door", _door, 0, 0),
    ("roof", _roof, 0, 0),
    ("planks", _planks, 0, 0),
    ("bark", _bark, 0, 0),
    ("rings", _rings, 0, 0),
    ("leaves_a", _leaves, 0, 0),
    ("leaves_b", _leaves, 0, 0),
    ("rock", _rock, 0, 0),
    ("tall_top", lambda r: _tall_grass(r, side=False), 0, 0),
    ("tall_side", lambda r: _tall_grass(r, side=True), 0, 0),
    ("brick", _brick, 0, 0),
)
NAMES = tuple(name for name, *_ in _TILES)
WATER = ("water_a", "water_b")


def tile_index(name: str) -> int:
    return NAMES.index(name)


def build(seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """The atlas and its glass mask, both (h, w, 4) uint8 RGBA, row 0 the top."""
    rng = np.random.default_rng(seed)
    rows = -(-len(_TILES) // COLUMNS)
    atlas = np.zeros((rows * TILE, COLUMNS * TILE, 4), np.uint8)
    mask = np.zeros_like(atlas)
    mask[..., 3] = 255
    for index, (name, paint, reflects, glows) in enumerate(_TILES):
        y, x = divmod(index, COLUMNS)
        cell = (slice(y * TILE, (y + 1) * TILE), slice(x * TILE, (x + 1) * TILE))
        tile = paint(rng)
        atlas[cell] = tile
        pane = np.all(tile[..., :3] == _PALETTE["pane0"], axis=-1) | np.all(
            tile[..., :3] == _PALETTE["pane1"], axis=-1)
        mask[cell + (0,)] = np.where(pane, 255, 0) if reflects == "pane" else reflects
        mask[cell + (1,)] = np.where(pane, 255, 0) if glows == "pane" else glows
        mask[cell + (2,)] = 255 if name in WATER else 0
    return atlas, mask


def uv_rect(index: int, atlas_shape) -> tuple[float, float, float, float]:
    """(u0, v0, u1, v1) of a tile, pulled in by a hundredth of a texel so nearest
    sampling on a face's very edge never picks the neighbouring tile."""
    height, width = atlas_shape[:2]
    y, x = divmod(index, COLUMNS)
    inset_u, inset_v = 0.01 / width, 0.01 / height
    return (x * TILE / width + inset_u, y * TILE / height + inset_v,
            (x + 1) * TILE / width - inset_u, (y + 1) * TILE / height - inset_v)
