"""The diorama as the fixed battle camera sees it, drawn once and reused every frame.

The camera never moves and the scenery only changes with the hour (or a toggle), so
drawing its several thousand faces every frame would redo the same work sixty times
a second. The backdrop keeps one draw's colour and depth; each frame a full-screen
pass puts both back into the view, darkening the scenery where the actor shadow layer
says a creature shades it now. The colour's alpha remembers how much sun the scenery
layer let through, so a pixel already in the house's shade is not darkened twice.
"""
from __future__ import annotations

import moderngl

from .gfx import Canvas, Graphics
from ..paths import SHADERS
from .voxel3d import ShadowMap


class Backdrop:
    def __init__(self, gfx: Graphics, width: int, height: int):
        self.gfx = gfx
        self.canvas = gfx.new_canvas(width, height)
        vertex, fragment = SHADERS / "fullscreen.vert", SHADERS / "backdrop.frag"
        self.plain = gfx.new_shader(vertex, fragment)
        self.shaded = gfx.new_shader(vertex, fragment, defines=("SHADOWS",))
        for program in (self.plain, self.shaded):
            program["u_color"].value = 0
            program["u_depth"].value = 1
        self.shaded["u_shadow_actors"].value = 2
        self.quads = [gfx.ctx.vertex_array(p, []) for p in (self.plain, self.shaded)]
        self.drawn_for = None      # what the canvas was drawn for; None: nothing yet

    def restore(self, target: Canvas) -> None:
        """Write the kept colour and depth over all of `target`, as they were."""
        self._pass(target, self.quads[0])

    def restore_shaded(self, target: Canvas, shadow_map: ShadowMap, clip_to_actors,
                       shadow_floor: float) -> None:
        """Write the kept colour and depth over all of `target`, with the actor layer's
        shadows; `clip_to_actors` takes the clip space the backdrop was drawn in to the
        actor layer's (its matrix times the inverse view-projection)."""
        program, layer = self.shaded, shadow_map.actors
        layer.canvas.depth.use(2)
        program["u_clip_to_actors"].write(clip_to_actors)
        program["u_texel_actors"].value = (1.0 / layer.size, layer.texel)
        program["u_shadow_floor"].value = shadow_floor
        self._pass(target, self.quads[1])

    def _pass(self, target: Canvas, quad: moderngl.VertexArray) -> None:
        ctx = self.gfx.ctx
        target.use()
        ctx.enable(moderngl.DEPTH_TEST)
        ctx.disable(moderngl.BLEND)
        ctx.depth_mask = True
        ctx.depth_func = "1"         # every pixel, whatever the depth buffer held
        self.canvas.color.use(0)
        self.canvas.depth.use(1)
        quad.render(moderngl.TRIANGLES, vertices=3)
        ctx.depth_func = "<"

    def release(self) -> None:
        for item in (*self.quads, self.plain, self.shaded, self.canvas):
            item.release()
