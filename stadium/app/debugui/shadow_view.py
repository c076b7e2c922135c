"""The sun's two shadow layers (scenery and creatures) as a picture: their depths drawn
as grey side by side into a canvas an ImGui window can show."""
from __future__ import annotations

import moderngl

from ...paths import SHADERS


class ShadowView:
    SIDE = 192                  # pixels a layer

    def __init__(self, gfx):
        self.gfx = gfx
        self.canvas = gfx.new_canvas(2 * self.SIDE, self.SIDE, depth=False)
        self.program = gfx.new_shader(SHADERS / "fullscreen.vert", SHADERS / "depth_view.frag")
        self.program["u_depth"].value = 0
        self.quad = gfx.ctx.vertex_array(self.program, [])

    @property
    def texture(self) -> moderngl.Texture:
        return self.canvas.color

    def draw(self, shadow_map) -> None:
        ctx = self.gfx.ctx
        self.canvas.use()
        self.canvas.clear((0.1, 0.1, 0.14, 1.0))
        ctx.disable(moderngl.DEPTH_TEST | moderngl.BLEND)
        for k, (layer, gamma) in enumerate(((shadow_map.scenery, 8.0), (shadow_map.actors, 16.0))):
            depth = layer.canvas.depth
            compare = depth.compare_func
            depth.compare_func = ""          # read the values, not a comparison
            try:
                depth.use(0)
                self.program["u_gamma"].value = gamma
                ctx.fbo.viewport = (k * self.SIDE, 0, self.SIDE, self.SIDE)
                self.quad.render(moderngl.TRIANGLES, vertices=3)
            finally:
                depth.compare_func = compare

    def release(self) -> None:
        self.quad.release()
        self.program.release()
        self.canvas.release()
