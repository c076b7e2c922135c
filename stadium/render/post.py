"""The two full-screen passes after the view: the miniature look, and putting the frame
on a screen of any size."""
from __future__ import annotations

import moderngl

from .gfx import Canvas, Graphics
from ..paths import SHADERS


class PostPass:
    """Tilt-shift and depth of field from the view's colour and depth into `target`."""

    def __init__(self, gfx: Graphics):
        self.gfx = gfx
        self.program = gfx.new_shader(SHADERS / "fullscreen.vert", SHADERS / "post.frag")
        self.program["u_color"].value = 0
        self.program["u_depth"].value = 1
        self.quad = gfx.ctx.vertex_array(self.program, [])

    def run(self, source: Canvas, target: Canvas, *, near: float, far: float,
            focus_range: tuple[float, float], focus_band: tuple[float, float],
            max_blur: float, pixel: float) -> None:
        """`focus_range` are view distances kept sharp, `focus_band` the v range (0 at
        the bottom) the tilt-shift keeps sharp, `max_blur` the largest radius in
        160 x 144 pixels and `pixel` how many target pixels one of those is."""
        program = self.program
        target.use()
        self.gfx.ctx.disable(moderngl.DEPTH_TEST | moderngl.BLEND)
        source.color.use(0)
        source.depth.use(1)
        program["u_texel"].value = (1.0 / source.width, 1.0 / source.height)
        program["u_pixel"].value = pixel
        program["u_near"].value = near
        program["u_far"].value = far
        program["u_focus_range"].value = focus_range
        program["u_focus_band"].value = focus_band
        program["u_max_blur"].value = max_blur
        self.quad.render(moderngl.TRIANGLES, vertices=3)

    def release(self) -> None:
        self.quad.release()
        self.program.release()


def letterbox(frame: tuple[int, int], screen: tuple[int, int]) -> tuple[int, int, int, int]:
    """The viewport (x, y, w, h) showing `frame` at the largest whole-number scale that
    fits `screen`, centred; at least 1x even when the screen is smaller."""
    scale = max(1, min(screen[0] // frame[0], screen[1] // frame[1]))
    width, height = frame[0] * scale, frame[1] * scale
    return (screen[0] - width) // 2, (screen[1] - height) // 2, width, height


class Present:
    """Nearest-neighbour blit of a finished frame into a viewport of the screen."""

    def __init__(self, gfx: Graphics):
        self.gfx = gfx
        self.program = gfx.new_shader(SHADERS / "fullscreen.vert", SHADERS / "present.frag")
        self.program["u_image"].value = 0
        self.quad = gfx.ctx.vertex_array(self.program, [])

    def draw(self, texture: moderngl.Texture, viewport: tuple[int, int, int, int], *,
             blend: bool = False) -> None:
        """Draw `texture` into `viewport` of the current target; `blend` lays it over
        what is there by its alpha (an overlay) instead of replacing it."""
        ctx = self.gfx.ctx
        ctx.disable(moderngl.DEPTH_TEST)
        if blend:
            ctx.enable(moderngl.BLEND)
            ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        else:
            ctx.disable(moderngl.BLEND)
        texture.use(0)
        previous = ctx.fbo.viewport
        ctx.fbo.viewport = viewport
        self.quad.render(moderngl.TRIANGLES, vertices=3)
        ctx.fbo.viewport = previous

    def release(self) -> None:
        self.quad.release()
        self.program.release()
