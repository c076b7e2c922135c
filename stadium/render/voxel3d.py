"""Voxel3D: the one vertex format and shader that the diorama and the rigs share.

Everything drawn in the battle goes through here, which is why a skinned creature gets
the same sun shadow, hour tint and post effects as the house behind it.

Matrices are float32 4x4 buffers in GL's column-major byte order (a glm.mat4, or a
C-contiguous numpy array holding the transpose), written to the uniforms as they are.
"""
from __future__ import annotations

import moderngl
import numpy as np
from pyglm import glm

from .gfx import Canvas, Graphics, Image, Mesh, VertexFormat
from ..paths import SHADERS

FORMAT = VertexFormat([("position", 3), ("texcoord", 2), ("shade", 1)])

# How bright a face is by the way it points, baked per vertex instead of lit: a sun in
# the south-east makes the east and south faces the bright sides. The rig fits its
# per-vertex shade to these same six values so creature and scenery read as one picture.
FACE_SHADE = {"+y": 1.00, "-y": 0.55, "+x": 0.84, "-x": 0.72, "+z": 0.90, "-z": 0.68}

_BLENDS = {None: None, "add": (moderngl.ONE, moderngl.ONE)}


class ShadowLayer:
    """One depth buffer seen from the sun, and the matrix that projects into it."""

    def __init__(self, gfx: Graphics, size: int):
        self.size = size
        self.canvas = Canvas(gfx.ctx, size, size, color=False, depth=True, linear=True)
        self.canvas.depth.compare_func = "<="   # sampled as a comparison: hardware PCF
        self.matrix = glm.mat4()
        self.texel = 1.0                         # world units one texel spans

    def fit(self, view: glm.mat4, low, high) -> None:
        """Look along `view` through the light-space box `low`..`high` (x, y, z)."""
        self.matrix = glm.ortho(low[0], high[0], low[1], high[1], -high[2], -low[2]) * view
        self.texel = max(high[0] - low[0], high[1] - low[1]) / self.size

    def release(self) -> None:
        self.canvas.release()


class ShadowMap:
    """The sun's depth in two layers that the view pass reads together.

    The scenery layer holds the diorama, which only changes with the hour, so it is
    drawn once per sun. The actor layer holds the creatures, redrawn every frame but
    only over a small window around them, so a pose throws a sharp shadow without the
    whole map being rasterised from the sun sixty times a second. A surface is as
    dark as the darker layer says.
    """

    def __init__(self, gfx: Graphics, scenery_size: int = 512, actor_size: int = 256):
        self.gfx = gfx
        self.scenery = ShadowLayer(gfx, scenery_size)
        self.actors = ShadowLayer(gfx, actor_size)
        self.program = gfx.new_shader(SHADERS / "shadow.vert", SHADERS / "shadow.frag")
        self.program["u_texture"].value = 0

    def aim(self, sun_dir, scenery_points, actor_points) -> None:
        """Point both layers along `sun_dir` (toward the sun): the scenery layer around
        `scenery_points`, the actor layer around `actor_points` ((n, 3) world points
        every actor stays inside). Both share one depth range, the one that holds all."""
        points = np.concatenate([scenery_points, actor_points])
        centre = glm.vec3(*np.mean(scenery_points, axis=0))
        reach = float(np.ptp(points, axis=0).max()) * 2.0
        up = glm.vec3(0.0, 0.0, -1.0) if abs(sun_dir[1]) > 0.99 else glm.vec3(0.0, 1.0, 0.0)
        view = glm.lookAt(centre + glm.normalize(glm.vec3(*sun_dir)) * reach, centre, up)
        to_light = np.asarray(view, float)

        def seen(p):
            return (to_light @ np.c_[p, np.ones(len(p))].T)[:3]

        everything = seen(points)
        depth = everything[2].min(), everything[2].max()
        for layer, where in ((self.scenery, seen(scenery_points)), (self.actors, seen(actor_points))):
            low, high = where.min(axis=1), where.max(axis=1)
            layer.fit(view, (low[0], low[1], depth[0]), (high[0], high[1], depth[1]))

    def begin(self, layer: ShadowLayer) -> None:
        """Clear `layer` (self.scenery or self.actors) and draw into it from now on."""
        self.program["u_sun"].write(layer.matrix)
        ctx = self.gfx.ctx
        layer.canvas.use()
        layer.canvas.clear()
        ctx.enable(moderngl.DEPTH_TEST)
        ctx.disable(moderngl.BLEND | moderngl.CULL_FACE)

    def draw(self, mesh: Mesh, image: Image, matrix) -> None:
        """One caster, through the same model matrix the view pass will use."""
        image.use(0)
        self.program["u_model"].write(matrix)
        mesh.draw(self.program)

    def release(self) -> None:
        self.scenery.release()
        self.actors.release()
        self.program.release()


class Voxel3D:
    """The view pass. Toggles (seams, glass, blend, flash) stay set until changed, as
    LÖVE's graphics state does; `begin` sets what is fixed for a frame.

    Each combination of toggles is its own compiled variant of the shader, made on
    first use: a uniform branch would make every creature pay for the atlas's glass
    and the grid's seams. What `begin` sets reaches each variant the first time it
    draws in the frame.
    """

    _UNITS = {"u_texture": 0, "u_glass_mask": 1, "u_shadow_scenery": 2, "u_shadow_actors": 3}
    _MATRICES = {"u_view_proj", "u_sun_scenery", "u_sun_actors"}

    def __init__(self, gfx: Graphics, glass_mask: Image):
        self.gfx = gfx
        self.glass_mask = glass_mask
        self._programs: dict[tuple, moderngl.Program] = {}
        self._fresh: dict[tuple, int] = {}       # variant -> the frame its uniforms are from
        self._frame = 0
        self._uniforms: dict[str, object] = {}   # what begin() set, by name
        self._shadows = self._seams = self._glass = False
        self._flash = 0.0
        self.blend_mode = None

    def begin(self, target: Canvas, view_proj, eye, shadow_map: ShadowMap | None, *,
              sun_dir, tint, shadow_floor: float, glass_tint, glass_glow: float,
              water_tint, clear_rgb) -> None:
        """Target `target`, clear it to `clear_rgb`, and set the frame's camera and light."""
        ctx = self.gfx.ctx
        target.use()
        target.clear((*clear_rgb, 1.0))
        ctx.enable(moderngl.DEPTH_TEST)
        ctx.depth_mask = True
        self.backfaces(True)
        self.blend(None)
        self._frame += 1
        uniforms = self._uniforms
        uniforms["u_view_proj"] = view_proj
        uniforms["u_eye"] = tuple(eye)
        uniforms["u_sun_dir"] = tuple(sun_dir)
        uniforms["u_tint"] = tuple(tint)
        uniforms["u_shadow_floor"] = shadow_floor
        uniforms["u_glass_tint"] = tuple(glass_tint)
        uniforms["u_glass_glow"] = glass_glow
        uniforms["u_water_tint"] = tuple(water_tint)
        self._shadows = shadow_map is not None
        if shadow_map is not None:
            for name, layer, unit in (("scenery", shadow_map.scenery, 2),
                                      ("actors", shadow_map.actors, 3)):
                uniforms[f"u_sun_{name}"] = layer.matrix
                uniforms[f"u_texel_{name}"] = (1.0 / layer.size, layer.texel)
                layer.canvas.depth.use(unit)
        self.glass_mask.use(1)

    def seams(self, on: bool) -> None:
        """The voxel wireframe: lines on the integer planes of a mesh's own model space."""
        self._seams = bool(on)

    def glass(self, on: bool) -> None:
        """Glass and water panes, where the tileset atlas's glass mask says so."""
        self._glass = bool(on)

    def flash(self, amount: float) -> None:
        """Flatten what is drawn next toward white by `amount` (0 to 1): the hit flash."""
        self._flash = float(amount)

    def blend(self, mode: str | None) -> None:
        """"add" composites light over what is there (flames) without writing depth;
        None is the opaque pass."""
        if mode not in _BLENDS:
            raise ValueError(f"blend mode must be 'add' or None, got {mode!r}")
        ctx = self.gfx.ctx
        if mode is None:
            ctx.disable(moderngl.BLEND)
        else:
            ctx.enable(moderngl.BLEND)
            ctx.blend_func = _BLENDS[mode]
        ctx.depth_mask = mode is None
        self.blend_mode = mode

    def backfaces(self, on: bool) -> None:
        """Whether faces turned away from the camera are drawn. A closed mesh wound
        counter-clockwise (the diorama) can skip them; a rig with open quads cannot."""
        if on:
            self.gfx.ctx.disable(moderngl.CULL_FACE)
        else:
            self.gfx.ctx.enable(moderngl.CULL_FACE)

    def _program(self) -> moderngl.Program:
        """The variant for the toggles as they stand, with this frame's uniforms."""
        additive = self.blend_mode is not None
        key = (additive, not additive and self._shadows, not additive and self._glass,
               not additive and self._seams)
        program = self._programs.get(key)
        if program is None:
            names = [name for name, on in zip(("ADDITIVE", "SHADOWS", "GLASS", "SEAMS"), key) if on]
            program = self.gfx.new_shader(SHADERS / "voxel.vert", SHADERS / "voxel.frag",
                                          defines=names)
            for name, unit in self._UNITS.items():
                if name in program:
                    program[name].value = unit
            self._programs[key] = program
        if self._fresh.get(key) != self._frame:
            for name, value in self._uniforms.items():
                if name in program:
                    if name in self._MATRICES:
                        program[name].write(value)
                    else:
                        program[name].value = value
            self._fresh[key] = self._frame
        return program

    def draw(self, mesh: Mesh, image: Image, matrix, pull: float = 0.0) -> None:
        """One mesh with one texture, placed by `matrix` (column-major 4x4), pulled `pull`
        world units toward the camera in depth only."""
        program = self._program()
        image.use(0)
        program["u_model"].write(matrix)
        program["u_pull"].value = float(pull)
        program["u_flash"].value = self._flash
        mesh.draw(program)

    def release(self) -> None:
        for program in self._programs.values():
            program.release()
        self._programs.clear()
