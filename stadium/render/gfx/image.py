"""Images: RGBA textures sampled with nearest filtering, so pixel art stays pixel art."""
from __future__ import annotations

import moderngl
import numpy as np


class Image:
    """An (h, w, 4) uint8 RGBA array on the GPU; row 0 is the top, so v = 0 samples it."""

    def __init__(self, ctx: moderngl.Context, rgba: np.ndarray, *, repeat: bool = True):
        rgba = np.ascontiguousarray(rgba, dtype=np.uint8)
        if rgba.ndim != 3 or rgba.shape[2] != 4:
            raise ValueError(f"an image is (h, w, 4) RGBA, got shape {rgba.shape}")
        self.height, self.width = rgba.shape[:2]
        self.texture = ctx.texture((self.width, self.height), 4, rgba)
        self.texture.filter = (moderngl.NEAREST, moderngl.NEAREST)
        self.texture.repeat_x = repeat
        self.texture.repeat_y = repeat

    def replace(self, rgba: np.ndarray) -> None:
        """Overwrite the pixels in place; the size must not change."""
        self.texture.write(np.ascontiguousarray(rgba, dtype=np.uint8))

    def use(self, location: int = 0) -> None:
        self.texture.use(location)

    def release(self) -> None:
        self.texture.release()
