"""The battle diorama: an original little voxel village built by code.

A tile map (one character a cell) becomes a voxel volume; the volume becomes faces in
Voxel3D's vertex format, each face shaded by which way it points and textured from
the tileset atlas. Nothing here touches GL: the renderer uploads what this returns.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import tileset
from .voxel3d import FACE_SHADE

# One character a cell; north (-Z) is the top row, east (+X) is to the right.
#   .  grass    ,  flowers    "  tall grass    =  path    :  sand    ~  pond
#   T  tree     o  rock       b  bush          #  ledge   H  house
MAP = (
    "T..T..T..T..T..T..T..T..",
    "........................",
    "..T.....T...HHHHHH..T...",
    "............HHHHHH......",
    "....:::....bHHHHHH..T...",
    "...:~~~::.o.HHHHHH......",
    "..:~~~~~:......=..b.....",
    "..:~~~~~:,.....=,.......",
    "...:~~~:..,...==..\".\"\".T",
    "....:::......==...\"\"\"\"..",
    "............==....\"\".\"..",
    "...........==....,.\"\"\"..",
    ".T...o.,..==....,.\"\"\"...",
    "......,..==..,...o......",
    "....b...==.....,.....T..",
    ".....,..=..,,...........",
    "...T...==...,...........",
    ".......=................",
    "#######=################",
    ".......=................",
)

# Cells with names: the two battle spots, and a few landmarks a camera can frame.
CELLS = {
    "left": (9, 15),
    "right": (15, 10),
    "door": (15, 6),
    "pond": (5, 6),
    "clearing": (10, 8),
    "meadow": (16, 15),
}

GROUND = 3        # voxels of ground under an ordinary cell
HEIGHT = 10       # voxels of headroom in the volume

# Materials, and the tiles their top and side faces wear. A list of tiles is
# a choice of variants, picked per voxel by a fixed hash so the ground does not repeat.
_MATERIALS = (
    None,
    ("grass", ("grass_a", "grass_b"), ("grass_side",)),
    ("flowers", ("flowers_a", "flowers_b"), ("grass_side",)),
    ("dirt", ("dirt",), ("dirt",)),
    ("path", ("path_a", "path_b"), ("dirt",)),
    ("sand", ("sand",), ("sand",)),
    ("water", ("water_a", "water_b"), ("water_a",)),
    ("stone", ("stone",), ("stone",)),
    ("plaster", ("plaster",), ("plaster",)),
    ("window", ("plaster",), ("window",)),
    ("door", ("plaster",), ("door",)),
    ("roof", ("roof",), ("roof",)),
    ("planks", ("planks",), ("planks",)),
    ("trunk", ("rings",), ("bark",)),
    ("leaves", ("leaves_a", "leaves_b"), ("leaves_a", "leaves_b")),
    ("rock", ("rock",), ("rock",)),
    ("tall", ("tall_top",), ("tall_side",)),
    ("brick", ("brick",), ("brick",)),
)
MATERIAL = {entry[0]: index for index, entry in enumerate(_MATERIALS) if entry}
# Materials with holes in their texture: they hide neither their neighbours' faces
# nor, between two of their own, each other's.
_CUTOUT = np.zeros(len(_MATERIALS), bool)
_CUTOUT[MATERIAL["tall"]] = True

# Per direction: name, normal axis, sign, and the face's four corners as seen from
# outside (top-left, top-right, bottom-right, bottom-left) so textures stand upright.
# No downward faces: the map is only ever seen, and lit, from above.
_FACES = (
    ("+y", 1, 1, ((0, 1, 0), (1, 1, 0), (1, 1, 1), (0, 1, 1))),
    ("+x", 0, 1, ((1, 1, 1), (1, 1, 0), (1, 0, 0), (1, 0, 1))),
    ("-x", 0, -1, ((0, 1, 0), (0, 1, 1), (0, 0, 1), (0, 0, 0))),
    ("+z", 2, 1, ((0, 1, 1), (1, 1, 1), (1, 0, 1), (0, 0, 1))),
    ("-z", 2, -1, ((1, 1, 0), (0, 1, 0), (0, 0, 0), (1, 0, 0))),
)


@dataclass(frozen=True)
class Diorama:
    """The built map: one mesh's vertices and triangles, its atlas, and where things are.

    Model space is voxel units (so the seams fall on voxel edges); `voxel` world units
    make one voxel, which is the scale of the diorama's model matrix.
    """

    vertices: np.ndarray      # (n, 6) float32: x y z u v shade, voxel units
    indices: np.ndarray       # (m,) uint32 triangle list
    atlas: np.ndarray         # (h, w, 4) uint8
    glass_mask: np.ndarray    # (h, w, 4) uint8
    tops: np.ndarray          # (width, depth) top surface height of each cell, voxels
    voxel: float

    @property
    def size(self) -> tuple[int, int]:
        return self.tops.shape

    def cell(self, name_or_xz) -> np.ndarray:
        """World position of a cell's top centre, by name or by (x, z)."""
        x, z = CELLS[name_or_xz] if isinstance(name_or_xz, str) else name_or_xz
        return np.array([x + 0.5, self.tops[x, z], z + 0.5]) * self.voxel

    def ground(self, x: float, z: float) -> float:
        """The height of the map's top surface at world (x, z); edges extend outward."""
        width, depth = self.size
        i = min(max(int(x / self.voxel), 0), width - 1)
        k = min(max(int(z / self.voxel), 0), depth - 1)
        return float(self.tops[i, k]) * self.voxel

    def matrix(self) -> np.ndarray:
        """The diorama's model matrix, in GL's column-major byte order."""
        return np.ascontiguousarray(np.diag([self.voxel, self.voxel, self.voxel, 1.0]),
                                    dtype=np.float32)

    def corners(self) -> np.ndarray:
        """The eight corners of the map's bounding box, world units."""
        width, depth = self.size
        box = np.array([[x, y, z] for x in (0, width) for y in (0, HEIGHT) for z in (0, depth)])
        return box * self.voxel


def _volume() -> np.ndarray:
    """The map as a (width, height, depth) array of material numbers."""
    depth, width = len(MAP), len(MAP[0])
    vox = np.zeros((width, HEIGHT, depth), np.uint8)
    vox[:, 0] = MATERIAL["stone"]
    vox[:, 1:GROUND] = MATERIAL["dirt"]
    top = GROUND - 1
    glyphs = np.array([list(row) for row in MAP]).T          # (width, depth)
    surface = {".": "grass", ",": "flowers", "=": "path", ":": "sand", "#": "grass",
               "T": "grass", "o": "grass", "b": "grass", "\"": "grass",
               "H": "planks"}
    for glyph, material in surface.items():
        vox[:, top][glyphs == glyph] = MATERIAL[material]
    # The pond's water sits a voxel below the grass, so its banks show.
    pond = glyphs == "~"
    vox[:, top][pond] = 0
    vox[:, top - 1][pond] = MATERIAL["water"]
    vox[:, GROUND][glyphs == "#"] = MATERIAL["grass"]
    vox[:, GROUND][glyphs == "\""] = MATERIAL["tall"]
    vox[:, GROUND][glyphs == "o"] = MATERIAL["rock"]
    vox[:, GROUND][glyphs == "b"] = MATERIAL["leaves"]
    for x, z in np.argwhere(glyphs == "T"):
        _tree(vox, x, z)
    _house(vox, np.argwhere(glyphs == "H"))
    return vox


def _tree(vox, x, z):
    """A trunk two voxels tall under a round crown."""
    width, _, depth = vox.shape
    x0, x1, z0, z1 = max(x - 1, 0), min(x + 2, width), max(z - 1, 0), min(z + 2, depth)
    crown = vox[x0:x1, GROUND + 2:GROUND + 4, z0:z1]
    crown[crown == 0] = MATERIAL["leaves"]
    vox[x, GROUND + 4, z] = MATERIAL["leaves"]
    vox[x0:x1, GROUND + 4, z][vox[x0:x1, GROUND + 4, z] == 0] = MATERIAL["leaves"]
    vox[x, GROUND + 4, z0:z1][vox[x, GROUND + 4, z0:z1] == 0] = MATERIAL["leaves"]
    vox[x, GROUND:GROUND + 2, z] = MATERIAL["trunk"]


def _house(vox, cells):
    """Plaster walls three voxels high with windows and a south door, under a stepped
    red roof with a brick chimney."""
    (x0, z0), (x1, z1) = cells.min(axis=0), cells.max(axis=0) + 1
    walls = slice(GROUND, GROUND + 3)
    vox[x0:x1, walls, z0:z1] = MATERIAL["plaster"]
    mid_x, mid_z = (x0 + x1) // 2, (z0 + z1) // 2
    vox[mid_x, GROUND:GROUND + 2, z1 - 1] = MATERIAL["door"]
    for x in (x0 + 1, x1 - 2):
        vox[x, GROUND + 1, z1 - 1] = vox[x, GROUND + 1, z0] = MATERIAL["window"]
    vox[x0, GROUND + 1, mid_z] = vox[x1 - 1, GROUND + 1, mid_z] = MATERIAL["window"]
    for step in range(3):
        vox[x0 - 1:x1 + 1, GROUND + 3 + step, z0 - 1 + step:z1 + 1 - step] = MATERIAL["roof"]
    vox[x1 - 2, GROUND + 5:GROUND + 7, mid_z - 1] = MATERIAL["brick"]


def _tile_table(atlas_shape) -> np.ndarray:
    """For every material and face kind (top, side), two variant tiles' uv rects."""
    rects = np.zeros((len(_MATERIALS), 2, 2, 4), np.float32)
    for index, entry in enumerate(_MATERIALS):
        if entry is None:
            continue
        for kind, tiles in enumerate(entry[1:]):
            for variant in range(2):
                name = tiles[variant % len(tiles)]
                rects[index, kind, variant] = tileset.uv_rect(tileset.tile_index(name), atlas_shape)
    return rects


def _faces(vox: np.ndarray, rects: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every visible voxel face, as four vertices and two triangles each."""
    solid = vox > 0
    chunks = []
    for name, axis, sign, corners in _FACES:
        beside = np.zeros_like(vox)
        src = [slice(None)] * 3
        dst = [slice(None)] * 3
        src[axis] = slice(1, None) if sign > 0 else slice(None, -1)
        dst[axis] = slice(None, -1) if sign > 0 else slice(1, None)
        beside[tuple(dst)] = vox[tuple(src)]
        covered = ((beside > 0) & ~_CUTOUT[beside]) | ((beside == vox) & _CUTOUT[vox])
        at = np.argwhere(solid & ~covered)
        material = vox[tuple(at.T)]
        kind = 0 if name == "+y" else 1
        variant = (at[:, 0] * 7 + at[:, 1] * 13 + at[:, 2] * 11) // 3 % 2
        u0, v0, u1, v1 = rects[material, kind, variant].T
        count = len(at)
        rows = np.empty((count, 4, 6), np.float32)
        rows[:, :, :3] = at[:, None, :] + np.asarray(corners)[None]
        rows[:, :, 3] = np.stack([u0, u1, u1, u0], axis=1)
        rows[:, :, 4] = np.stack([v0, v0, v1, v1], axis=1)
        rows[:, :, 5] = FACE_SHADE[name]
        chunks.append(rows.reshape(-1, 6))
    vertices = np.concatenate(chunks)
    quads = np.arange(len(vertices) // 4, dtype=np.uint32)[:, None] * 4
    # corners run clockwise seen from outside, so these triangles are counter-clockwise
    indices = (quads + np.array([0, 2, 1, 0, 3, 2], np.uint32)).ravel()
    return vertices, indices


@lru_cache(maxsize=None)
def build(voxel: float = 0.5) -> Diorama:
    """The default battle map, `voxel` world units to a voxel."""
    atlas, mask = tileset.build()
    vox = _volume()
    vertices, indices = _faces(vox, _tile_table(atlas.shape))
    solid = vox > 0
    tops = HEIGHT - np.argmax(solid[:, ::-1, :], axis=1)
    for array in (vertices, indices, atlas, mask, tops):
        array.setflags(write=False)
    return Diorama(vertices, indices, atlas, mask, tops, voxel)
