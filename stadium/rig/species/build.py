"""A small kit for authoring a species in code: bones, voxel blocks, tracks, a pack.

Geometry is blocky on purpose: boxes, tapered blocks and wedges, one bone each, with
flat face normals and one texture tile per face. This is the look of a low-poly battle
model drawn 30-50 pixels tall.

Everything is deterministic. Stored floats are rounded to a 1/1024 grid and angles to
whole binary angles, so a last-bit difference in a platform's sin or cos cannot
change a single byte of the written pack.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .. import pack
from ..rig import StadiumRig

GRID = 1024.0

# The bone names of every species built in this process, by species name: packs carry no
# names, so declarations by name (stadium.rig.species.secondary) are resolved through these.
BONE_NAMES: dict[str, tuple[str, ...]] = {}

# The six faces of a block, each as its corners (bit 0: +x, bit 1: +y, bit 2: +z) in
# counter-clockwise order seen from outside: bottom-left, bottom-right, top-right,
# top-left of the tile painted on it.
FACES = {
    "front": (4, 5, 7, 6), "back": (1, 0, 2, 3), "right": (5, 1, 3, 7),
    "left": (0, 4, 6, 2), "top": (6, 7, 3, 2), "bottom": (0, 1, 5, 4),
}

# Proper rotations taking a block's length axis (+y) onto each direction, so a
# limb, a tail or a wing is one call whatever way it points.
AXES = {
    "+y": np.eye(3),
    "-y": np.diag([-1.0, -1.0, 1.0]),
    "+x": np.array([[0.0, 1, 0], [-1, 0, 0], [0, 0, 1]]),
    "-x": np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]]),
    "+z": np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]]),
    "-z": np.array([[1.0, 0, 0], [0, 0, 1], [0, -1, 0]]),
}


def snap(values) -> np.ndarray:
    """Round to the 1/1024 grid every stored float lives on."""
    return np.round(np.asarray(values, np.float64) * GRID) / GRID


def angles(values) -> np.ndarray:
    """Whole binary angles, wrapped into the int16 range."""
    v = np.rint(np.asarray(values, np.float64)).astype(np.int64)
    return ((v + 32768) % 65536 - 32768).astype(np.int32)


def degrees(d) -> float:
    """Degrees in binary angle units (32768 = 180 degrees)."""
    return d * 32768.0 / 180.0


class _Draft:
    """A primitive under construction: vertex rows and triangles."""

    def __init__(self, image: int, additive: bool, channel: int, tex_map: dict):
        self.image, self.additive = image, additive
        self.channel, self.tex_map = channel, dict(tex_map)
        self.positions, self.normals, self.bones, self.uv, self.indices = [], [], [], [], []

    def polygon(self, bone: int, corners, uvs):
        """One flat face; corners that coincide (a wedge's edge) are dropped."""
        keep_c, keep_uv = [], []
        for c, t in zip(corners, uvs):
            if not keep_c or np.abs(c - keep_c[-1]).max() > 1e-9:
                keep_c.append(c)
                keep_uv.append(t)
        if len(keep_c) > 1 and np.abs(keep_c[0] - keep_c[-1]).max() <= 1e-9:
            keep_c.pop()
            keep_uv.pop()
        if len(keep_c) < 3:
            return
        c = np.array(keep_c)
        normal = (np.cross(c[2] - c[0], c[3] - c[1]) if len(c) == 4
                  else np.cross(c[1] - c[0], c[2] - c[0]))
        length = np.linalg.norm(normal)
        if length < 1e-9:
            return
        base = len(self.positions)
        for corner, t in zip(c, keep_uv):
            self.positions.append(corner)
            self.normals.append(normal / length)
            self.bones.append(bone)
            self.uv.append(t)
        self.indices += [base, base + 1, base + 2]
        if len(c) == 4:
            self.indices += [base, base + 2, base + 3]


class Motion:
    """One animation's tracks, written as changes from the rest pose.

    Turns add to the rest rotation, moves to the rest translation, and scales multiply
    the rest scale. Bones never mentioned stay untouched in the pack (rest transform).
    """

    def __init__(self, builder: "SpeciesBuilder", frames: int, loop_start: int):
        self.builder = builder
        self.frames, self.loop_start = frames, loop_start
        self.tracks: dict[int, np.ndarray] = {}

    def _track(self, bone: str) -> np.ndarray:
        b = self.builder.index[bone]
        if b not in self.tracks:
            self.tracks[b] = np.repeat(self.builder.rest(b)[None], self.frames, axis=0)
        return self.tracks[b]

    def _apply(self, bone, first, values, op):
        track = self._track(bone)
        for c, v in enumerate(values):
            if v is not None:
                column = track[:, first + c]
                op(column, v, out=column)
        return self

    def turn(self, bone: str, x=None, y=None, z=None) -> "Motion":
        return self._apply(bone, 3, (x, y, z), np.add)

    def move(self, bone: str, x=None, y=None, z=None) -> "Motion":
        return self._apply(bone, 0, (x, y, z), np.add)

    def scale(self, bone: str, x=None, y=None, z=None) -> "Motion":
        return self._apply(bone, 6, (x, y, z), np.multiply)

    def set_turn(self, bone: str, frame: int, x: int, y: int, z: int) -> "Motion":
        """An exact rotation on one frame, for data that must hold given values."""
        self._track(bone)[frame, 3:6] = (x, y, z)
        return self

    def animation(self, bones: int) -> pack.Animation:
        tracks = [None] * bones
        for b, t in self.tracks.items():
            rot = angles(t[:, 3:6])
            lin = snap(t[:, [0, 1, 2, 6, 7, 8]]).astype(np.float32)
            tracks[b] = (lin[:, 0], lin[:, 1], lin[:, 2], rot[:, 0], rot[:, 1], rot[:, 2],
                         lin[:, 3], lin[:, 4], lin[:, 5])
        return pack.Animation(self.frames, self.loop_start, tracks)


class SpeciesBuilder:
    """Collects bones, images, primitives and animations, then assembles a Species."""

    def __init__(self, name: str, root_scale: float):
        self.name, self.root_scale = name, root_scale
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.parents: list[int] = []
        self._rest: list[np.ndarray] = []
        self.images: list[np.ndarray] = []
        self.drafts: dict[str, _Draft] = {}
        self.motions: dict[int, Motion] = {}
        self.streams: dict[int, list] = {}

    # ------------------------------------------------------------ skeleton

    def bone(self, name: str, parent: str | None = None, at=(0, 0, 0), turn=(0, 0, 0),
             scale=(1, 1, 1)) -> str:
        """A bone at ``at`` in its parent's space, turned by ``turn`` (binary angles)."""
        self.index[name] = len(self.names)
        self.names.append(name)
        self.parents.append(-1 if parent is None else self.index[parent])
        self._rest.append(np.array([*at, *turn, *scale], np.float64))
        return name

    def rest(self, b: int) -> np.ndarray:
        return self._rest[b]

    # ------------------------------------------------------------ looks

    def image(self, pixels: np.ndarray) -> int:
        self.images.append(np.ascontiguousarray(pixels, np.uint8))
        return len(self.images) - 1

    def primitive(self, name: str, image: int, additive=False, channel=-1, tex_map=None):
        self.drafts[name] = _Draft(image, additive, channel, tex_map or {})

    def block(self, prim: str, bone: str, start, length: float, width: float, depth: float,
              tiles, axis="+y", end=(1.0, 1.0), shift=(0.0, 0.0)):
        """A block from ``start`` along ``axis``: cross-section width x depth, the far end
        scaled by ``end`` and offset by ``shift``. With an end scale of 0 on one side it
        is a wedge, and on both a pyramid.

        ``tiles`` maps face names (front back left right top bottom, as for a block
        standing along +y) to uv rects; a single rect paints every face.
        """
        w0, d0 = width / 2, depth / 2
        w1, d1 = width * end[0] / 2, depth * end[1] / 2
        corners = np.empty((8, 3))
        for i in range(8):
            top = i >> 1 & 1
            w, d = (w1, d1) if top else (w0, d0)
            corners[i] = ((w if i & 1 else -w) + (shift[0] if top else 0.0),
                          length if top else 0.0,
                          (d if i >> 2 & 1 else -d) + (shift[1] if top else 0.0))
        corners = corners @ AXES[axis].T + np.asarray(start, np.float64)
        self._faces(prim, bone, snap(corners), tiles)

    def box(self, prim: str, bone: str, lo, hi, tiles):
        """An axis-aligned box between two corners."""
        lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
        corners = np.array([[hi[0] if i & 1 else lo[0], hi[1] if i >> 1 & 1 else lo[1],
                             hi[2] if i >> 2 & 1 else lo[2]] for i in range(8)])
        self._faces(prim, bone, snap(corners), tiles)

    def quad(self, prim: str, bone: str, centre, size, rect):
        """A single forward-facing (+z) face, e.g. an eye on the front of a head."""
        w, h = size[0] / 2, size[1] / 2
        square = np.array([[-w, -h, 0], [w, -h, 0], [w, h, 0], [-w, h, 0]])
        corners = snap(square + np.asarray(centre, np.float64))
        u0, v0, u1, v1 = rect
        self.drafts[prim].polygon(self.index[bone], corners,
                                  [(u0, v1), (u1, v1), (u1, v0), (u0, v0)])

    def _faces(self, prim, bone, corners, tiles):
        draft = self.drafts[prim]
        for face, order in FACES.items():
            rect = tiles.get(face, tiles.get("all")) if isinstance(tiles, dict) else tiles
            if rect is None:
                continue
            u0, v0, u1, v1 = rect
            draft.polygon(self.index[bone], corners[list(order)],
                          [(u0, v1), (u1, v1), (u1, v0), (u0, v0)])

    # ------------------------------------------------------------ animation

    def animation(self, slot: int, frames: int, loop_start: int = 0) -> Motion:
        """The animation for a context slot; animations are stored in slot order."""
        motion = self.motions[slot] = Motion(self, frames, loop_start)
        return motion

    def texture_streams(self, slot: int, *channels):
        """The stream set riding with a slot's animation, one sequence per channel."""
        self.streams[slot] = [np.asarray(c, np.uint16) for c in channels]

    # ------------------------------------------------------------ assembly

    def build(self) -> pack.Species:
        """The finished species; its height is measured on the bind pose through the
        rig's own two-chain walk, flames left out (a fire is not body)."""
        n = len(self.names)
        BONE_NAMES[self.name] = tuple(self.names)
        rest = np.array(self._rest)
        prims = []
        for draft in self.drafts.values():
            prims.append(pack.Primitive(
                snap(draft.positions).astype(np.float32),
                np.asarray(draft.normals, np.float32),
                np.asarray(draft.bones, np.int32),
                np.asarray(draft.uv, np.float32),
                np.asarray(draft.indices, np.uint16),
                draft.image, draft.channel, draft.tex_map, draft.additive))
        slots = sorted(self.motions)
        anims = [self.motions[s].animation(n) for s in slots]
        ctx = [slots.index(s) if s in self.motions else pack.NO_ANIM
               for s in range(len(pack.CONTEXT_SLOTS))]
        last = max((slots.index(s) for s in self.streams), default=-1)
        aux = [pack.TextureStreams(self.streams.get(slots[i], [])) for i in range(last + 1)]
        species = pack.Species(
            self.name, np.array(self.parents, np.int32), snap(rest[:, 0:3]).astype(np.float32),
            angles(rest[:, 3:6]), snap(rest[:, 6:9]).astype(np.float32), self.root_scale, 0.0,
            prims, anims, ctx, aux, self.images)
        rig = StadiumRig(species)
        body = np.concatenate([p.vertices[:, 1] for p in rig.opaque_parts()])
        height = float(snap((body.max() - body.min()) * self.root_scale))
        # a new object: the rig's per-species tables were cached for the measuring one
        return dataclasses.replace(species, height=height)
