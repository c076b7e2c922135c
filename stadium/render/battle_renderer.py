"""Draws a BattleScene in the diorama: the wiring between battle logic and Voxel3D.

A frame: the creatures' (and the scene's trainers') posed bodies into the sun's actor
shadow layer (flames left out); the backdrop, the diorama as drawn once for this hour, put
back into the view with those shadows on it; their opaque parts; then every additive part;
then the post pass (tilt-shift and depth of field). The caller presents the result.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pyglm import glm

from .backdrop import Backdrop
from .battlecam import BattleCam
from .diorama import Diorama
from .gfx import Graphics
from .hours import Hour
from .post import PostPass
from .voxel3d import FORMAT, ShadowMap, Voxel3D

# How far a creature is pulled toward the camera in depth, in voxels: enough to win
# against the tile it stands on, far too little to poke through anything in front.
PULL_VOXELS = 0.3

# The post pass: sharp from just before the near cell to just past the far one, and
# on the frame rows between their feet and a body above; at most this blur beyond.
FOCUS_MARGIN_VOXELS = 3.0
FOCUS_BAND_BELOW, FOCUS_BAND_ABOVE = 0.08, 0.3
MAX_BLUR_PIXELS = 1.0

# Shadow layer sizes at 160 x 144 (doubled for larger frames): about two scenery texels
# and four creature texels a frame pixel.
SCENERY_SHADOW, ACTOR_SHADOW = 512, 256
# The creatures' shadow window reaches this many body heights around their cells: room
# for a limb flung out, and for what the anchor lets them travel.
ACTOR_REACH_HEIGHTS = 1.0


@dataclass
class Look:
    """What a frame shows besides the battle itself: the passes' toggles."""

    shadows: bool = True
    seams: bool = False
    glass: bool = True
    post: bool = True
    flash: bool = True          # the hit flash (a debugger may turn it off)


DEFAULT_LOOK = Look()

def _consecutive_rows(parts) -> np.ndarray | None:
    """The one float32 array whose consecutive slices all the parts' rows are, or None."""
    base = parts[0].vertices.base if parts else None
    if not isinstance(base, np.ndarray) or base.dtype != np.float32 \
            or not base.flags.c_contiguous or base.ndim != 2:
        return None
    address, at = base.__array_interface__["data"][0], 0
    for part in parts:
        rows = part.vertices
        if rows.base is not base or rows.__array_interface__["data"][0] != address + at * base.strides[0]:
            return None
        at += len(rows)
    return base if at == len(base) else None


class RigMeshes:
    """The GPU side of one rig: one dynamic mesh for all its parts, an image per texture.

    The parts are drawn as ranges of one shared vertex map, so when the rig says it
    rewrote its vertices (its version moved) the whole rig reaches the GPU in a single
    buffer write: the rig's parts are consecutive rows of one float32 array, and where
    they are, that array is written as it is.
    """

    def __init__(self, gfx: Graphics, rig, species):
        self.rig = rig
        self.images = [gfx.new_image(image) for image in species.images]
        self.version = None
        parts = rig.parts
        self.mesh = None
        if not parts:       # a species with no geometry draws nothing
            return
        counts = [len(part.vertices) for part in parts]
        starts = np.concatenate([[0], np.cumsum(counts)]).astype(int)
        rows = np.concatenate([part.vertices for part in parts])
        self.mesh = gfx.new_mesh(FORMAT, rows, usage="dynamic")
        self.mesh.set_vertex_map(np.concatenate(
            [part.indices.astype(np.uint32) + start for part, start in zip(parts, starts)]))
        firsts = np.concatenate([[0], np.cumsum([len(part.indices) for part in parts])])
        self._range = {id(part): (int(first), len(part.indices))
                       for part, first in zip(parts, firsts)}
        self._starts = [int(s) for s in starts[:-1]]
        self._whole = _consecutive_rows(parts)

    def upload(self) -> None:
        if self.rig.version == self.version or self.mesh is None:
            return
        if self._whole is not None:
            self.mesh.set_vertices(self._whole)
        else:
            for part, start in zip(self.rig.parts, self._starts):
                self.mesh.set_vertices(part.vertices, start)
        self.version = self.rig.version

    def _select(self, part) -> None:
        self.mesh.set_draw_range(*self._range[id(part)])

    def cast(self, shadow_map: ShadowMap, matrix) -> None:
        for part in self.rig.caster_parts():
            self._select(part)
            shadow_map.draw(self.mesh, self.images[part.texture], matrix)

    def draw(self, voxel: Voxel3D, parts, matrix, pull: float) -> None:
        for part in parts:
            self._select(part)
            voxel.draw(self.mesh, self.images[part.texture], matrix, pull)

    def release(self) -> None:
        for item in self.images:
            item.release()
        if self.mesh is not None:
            self.mesh.release()


def _actors(scene) -> tuple:
    """What a frame poses and draws: the creatures, then whoever else the scene puts on
    the field (its trainers), each read the same way (rig, species, matrix, flash)."""
    return (*scene.fighters, *getattr(scene, "trainers", ()))


class BattleRenderer:
    """Renders a scene at `scale` times the camera's frame (160 x 144 at scale 1)."""

    def __init__(self, gfx: Graphics, diorama: Diorama, camera: BattleCam, *,
                 scale: int = 1):
        self.gfx, self.diorama, self.camera = gfx, diorama, camera
        self.scale = int(scale)
        width, height = camera.size[0] * self.scale, camera.size[1] * self.scale
        camera.fit_depth(diorama.corners())
        self.view_proj = camera.view_proj()
        self.clip_to_actors = glm.mat4()       # set when the sun is aimed
        self.map_mesh = gfx.new_mesh(FORMAT, np.asarray(diorama.vertices), usage="static")
        self.map_mesh.set_vertex_map(diorama.indices)
        self.map_matrix = diorama.matrix()
        self.atlas = gfx.new_image(diorama.atlas, repeat=False)
        self.voxel = Voxel3D(gfx, gfx.new_image(diorama.glass_mask, repeat=False))
        self.shadow_map = ShadowMap(gfx, SCENERY_SHADOW * min(self.scale, 2),
                                    ACTOR_SHADOW * min(self.scale, 2))
        self.view = gfx.new_canvas(width, height)
        self.backdrop = Backdrop(gfx, width, height)
        self.frame = gfx.new_canvas(width, height, depth=False)
        self.post = PostPass(gfx)
        self._rigs: dict[int, RigMeshes] = {}
        self._aimed = None
        self.pull = PULL_VOXELS * diorama.voxel
        self._focus = self._focus_settings()

    def _aim_sun(self, hour: Hour, scene) -> None:
        """Point the shadow layers for this hour and these creatures, and draw the
        scenery layer; only when either changed, which is rarely."""
        actors = _actors(scene)
        key = (hour, getattr(scene, "shadow_key", None), *(id(f.species) for f in actors))
        if key == self._aimed:
            return
        cells = np.array([f.position for f in actors])
        height = max(f.species.height for f in actors)
        reach = ACTOR_REACH_HEIGHTS * height
        low = cells.min(axis=0) - (reach, 0.5 * reach, reach)
        high = cells.max(axis=0) + (reach, height + reach, reach)
        box = np.array([[x, y, z] for x in (low[0], high[0]) for y in (low[1], high[1])
                        for z in (low[2], high[2])])
        shadow_map = self.shadow_map
        shadow_map.aim(hour.sun_dir, self.diorama.corners(), box)
        shadow_map.begin(shadow_map.scenery)
        shadow_map.draw(self.map_mesh, self.atlas, self.map_matrix)
        self.clip_to_actors = shadow_map.actors.matrix * glm.inverse(self.view_proj)
        self._aimed = key

    def _draw_backdrop(self, hour: Hour, look: Look, shadow_map: ShadowMap | None) -> None:
        """Draw the diorama into the backdrop when the hour, a toggle or the sun's aim
        changed it. The actor layer is cleared first, so what the backdrop's alpha
        remembers is the scenery's own shadow alone."""
        key = (hour, look.shadows, look.seams, look.glass, self._aimed, tuple(self.camera.eye))
        if key == self.backdrop.drawn_for:
            return
        if shadow_map is not None:
            shadow_map.begin(shadow_map.actors)
        voxel = self.voxel
        voxel.begin(self.backdrop.canvas, self.view_proj, self.camera.eye, shadow_map,
                    sun_dir=hour.sun, tint=hour.tint, shadow_floor=hour.shadow_floor,
                    glass_tint=hour.glass_tint, glass_glow=hour.glass_glow,
                    water_tint=hour.water_tint, clear_rgb=hour.sky)
        voxel.flash(0.0)
        voxel.seams(look.seams)
        voxel.glass(look.glass)
        voxel.backfaces(False)
        voxel.draw(self.map_mesh, self.atlas, self.map_matrix)
        voxel.backfaces(True)
        self.backdrop.drawn_for = key

    def set_camera(self, camera: BattleCam) -> None:
        """Look through `camera` from this frame on (a camera that follows someone: the
        backdrop is redrawn whenever its eye moved)."""
        if camera is self.camera and tuple(camera.eye) == getattr(self, "_eye", None):
            return
        self.camera = camera
        camera.fit_depth(self.diorama.corners())
        self.view_proj = camera.view_proj()
        if self._aimed is not None:
            self.clip_to_actors = self.shadow_map.actors.matrix * glm.inverse(self.view_proj)
        self._focus = self._focus_settings()
        self._eye = tuple(camera.eye)

    def _meshes(self, fighter) -> RigMeshes:
        key = id(fighter.rig)
        meshes = self._rigs.get(key)
        if meshes is None:
            meshes = self._rigs[key] = RigMeshes(self.gfx, fighter.rig, fighter.species)
        return meshes

    def forget(self, rig) -> None:
        """Release the GPU side of a rig that has left the battle."""
        meshes = self._rigs.pop(id(rig), None)
        if meshes is not None:
            meshes.release()

    def render(self, scene, hour: Hour, look: Look | None = None):
        """Draw `scene` at `hour`; returns the canvas holding the finished frame."""
        look = look or DEFAULT_LOOK
        actors = _actors(scene)
        for fighter in actors:
            if fighter.visible:
                self._meshes(fighter).upload()

        shadow_map = None
        if look.shadows:
            self._aim_sun(hour, scene)
            shadow_map = self.shadow_map
        self._draw_backdrop(hour, look, shadow_map)
        if shadow_map is not None:
            shadow_map.begin(shadow_map.actors)
            for fighter in actors:
                if fighter.visible:
                    self._meshes(fighter).cast(shadow_map, fighter.matrix)

        voxel = self.voxel
        voxel.begin(self.view, self.view_proj, self.camera.eye, shadow_map,
                    sun_dir=hour.sun, tint=hour.tint, shadow_floor=hour.shadow_floor,
                    glass_tint=hour.glass_tint, glass_glow=hour.glass_glow,
                    water_tint=hour.water_tint, clear_rgb=hour.sky)
        if shadow_map is None:
            self.backdrop.restore(self.view)
        else:
            self.backdrop.restore_shaded(self.view, shadow_map, self.clip_to_actors,
                                         hour.shadow_floor)
        # Creatures: seams mean nothing in a rig's own units and the glass mask is
        # the atlas's, so both are off for them.
        voxel.seams(False)
        voxel.glass(False)
        for fighter in actors:
            if fighter.visible:
                voxel.flash(fighter.flash if look.flash else 0.0)
                self._meshes(fighter).draw(voxel, fighter.rig.opaque_parts(),
                                           fighter.matrix, self.pull)
        # Flames last, added over whatever is already there, both creatures' bodies
        # included, and writing no depth of their own.
        voxel.blend("add")
        for fighter in actors:
            if fighter.visible:
                voxel.flash(fighter.flash if look.flash else 0.0)
                self._meshes(fighter).draw(voxel, fighter.rig.additive_parts(),
                                           fighter.matrix, self.pull)
        voxel.blend(None)
        voxel.flash(0.0)

        if not look.post:
            return self.view
        self.post.run(self.view, self.frame, **self._focus)
        return self.frame

    def _focus_settings(self) -> dict:
        """The post pass's focus, from the two cells the camera frames: fixed per camera."""
        camera = self.camera
        cells = np.array(camera.cells)
        along = camera.distance(cells)
        margin = FOCUS_MARGIN_VOXELS * self.diorama.voxel
        rows = 1.0 - camera.project(cells)[:, 1] / camera.size[1]
        return dict(near=camera.near, far=camera.far,
                    focus_range=(float(along.min()) - margin, float(along.max()) + margin),
                    focus_band=(float(rows.min()) - FOCUS_BAND_BELOW,
                                float(rows.max()) + FOCUS_BAND_ABOVE),
                    max_blur=MAX_BLUR_PIXELS, pixel=float(self.scale))

    def release(self) -> None:
        for meshes in self._rigs.values():
            meshes.release()
        self._rigs.clear()
        for item in (self.map_mesh, self.atlas, self.voxel.glass_mask, self.voxel,
                     self.shadow_map, self.backdrop, self.view, self.frame, self.post):
            item.release()
