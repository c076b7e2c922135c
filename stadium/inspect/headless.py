"""The headless run: a GL context without a window, every clip rendered, then written."""
from __future__ import annotations

from ..render.battlecam import FRAME
from ..render.gfx import Graphics
from .figure import Figure
from .sheet import render_clips, write
from .stage import Stage


def inspect_headless(figure: Figure, out, *, frames: int = 8, scale: int = 2,
                     overlay: bool = False) -> list:
    """Write every clip's `frames` frames and the contact sheet under `out` (the overlay
    over them when asked); the paths."""
    gfx = Graphics.open_headless((FRAME[0] * scale, FRAME[1] * scale))
    try:
        stage = Stage(gfx, figure, scale=scale)
        try:
            strips = render_clips(stage, frames, overlay)
        finally:
            stage.release()
    finally:
        gfx.release()
    return write(out, strips)
