"""Canvases: offscreen render targets whose colour and depth can both be sampled later."""
from __future__ import annotations

import moderngl
import numpy as np


class Canvas:
    """A framebuffer with an RGBA8 colour texture and, optionally, a sampleable depth texture.

    The depth is a texture rather than a renderbuffer because the post pass reads it
    (depth of field) and the shadow map is nothing but a depth canvas.
    """

    def __init__(self, ctx: moderngl.Context, width: int, height: int, *,
                 color: bool = True, depth: bool = True, linear: bool = False):
        if width < 1 or height < 1:
            raise ValueError(f"a canvas needs a positive size, got {width} x {height}")
        self.ctx = ctx
        self.width, self.height = int(width), int(height)
        self.color = ctx.texture((self.width, self.height), 4) if color else None
        self.depth = ctx.depth_texture((self.width, self.height)) if depth else None
        if self.depth is not None:
            self.depth.compare_func = ""    # plain depth values; a shadow map opts back in
        for texture in (self.color, self.depth):
            if texture is not None:
                mode = moderngl.LINEAR if linear else moderngl.NEAREST
                texture.filter = (mode, mode)
                texture.repeat_x = texture.repeat_y = False
        self.framebuffer = ctx.framebuffer(
            color_attachments=[self.color] if self.color is not None else [],
            depth_attachment=self.depth)
        self._bottom_up = None      # readback scratch, made on the first read

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    def use(self) -> None:
        self.framebuffer.use()

    def clear(self, rgba=(0.0, 0.0, 0.0, 1.0), depth: float = 1.0) -> None:
        self.framebuffer.clear(*rgba, depth=depth)

    def read_into(self, out: np.ndarray) -> np.ndarray:
        """Read the colour as RGB into `out` ((h, w, 3) uint8), top row first.

        GL hands rows bottom-up; they land in a scratch kept on the canvas and are flipped
        into `out`, so a frame's readback allocates nothing after the first.
        """
        if self._bottom_up is None:
            self._bottom_up = np.empty((self.height, self.width, 3), np.uint8)
        self.framebuffer.read_into(self._bottom_up, components=3)
        np.copyto(out, self._bottom_up[::-1])
        return out

    def release(self) -> None:
        self.framebuffer.release()
        for texture in (self.color, self.depth):
            if texture is not None:
                texture.release()
