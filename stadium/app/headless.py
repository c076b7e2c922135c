"""Rendering the viewer without a window: chosen frames to PNGs, or an animated GIF.

Frame N is the battle after N fixed steps of 1/60 s from its seed, so the same command
writes the same bytes every time.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from PIL import Image

from ..battle.scene import CHOREOGRAPHY_SECONDS
from ..render.gfx import Graphics, run_frames
from .viewer import DT, BattleViewer

# A few frames of the default battle (and the show): the send-outs, both standing by,
# the first turn's blows, and later turns.
DEFAULT_FRAMES = (30, 150, 218, 365, 700)
GIF_STEP = 2                 # every other 60 Hz step: 30 frames a second


def parse_frames(text: str) -> list[int]:
    """"0,15,30" and ranges "start:stop[:step]" (stop excluded), mixed freely."""
    frames = []
    for item in text.split(","):
        item = item.strip()
        if ":" in item:
            parts = [int(p) for p in item.split(":")]
            if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] <= 0):
                raise ValueError(f"a frame range is start:stop[:step] with step > 0, got {item!r}")
            frames.extend(range(*parts))
        elif item:
            frames.append(int(item))
    if not frames or min(frames) < 0:
        raise ValueError(f"frames must be one or more numbers >= 0, got {text!r}")
    return sorted(set(frames))


def gif_frames() -> list[int]:
    """The whole scripted show (thirteen seconds) at 30 frames a second."""
    return list(range(0, int(CHOREOGRAPHY_SECONDS / DT), GIF_STEP))


def render(viewer: BattleViewer, frames, *, scale: int, out: Path | None = None,
           gif: Path | None = None, hashes: Path | None = None) -> list[Path]:
    """Render `frames` at `scale` times 160 x 144 (beside the debugger's panels when it is
    open); PNGs into `out`, a GIF at `gif`, and to `hashes` a line a frame: the frame, a
    hash of its pixels and a hash of the battle it shows. Returns the files written."""
    width, height = viewer.screen_size(scale)
    gfx = Graphics.open_headless((width, height))
    pixels = np.empty((height, width, 3), np.uint8)
    written, animation, lines = [], [], []
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)

    def keep(frame: int, gfx: Graphics) -> None:
        gfx.read_screen(pixels)
        if hashes is not None:
            world = viewer.match.digest() if viewer.match is not None else "-"
            lines.append(f"{frame} {hashlib.sha1(pixels.tobytes()).hexdigest()} {world}\n")
        if out is not None:
            path = out / f"frame_{frame:04d}.png"
            Image.fromarray(pixels).save(path)
            written.append(path)
        if gif is not None:
            animation.append(Image.fromarray(pixels.copy()))

    try:
        run_frames(viewer, gfx, frames, DT, keep)
    finally:
        viewer.release()
        gfx.release()
    if hashes is not None:
        hashes.parent.mkdir(parents=True, exist_ok=True)
        hashes.write_text("".join(lines))
        written.append(hashes)
    if gif is not None:
        gif.parent.mkdir(parents=True, exist_ok=True)
        step = frames[1] - frames[0] if len(frames) > 1 else 1
        animation[0].save(gif, save_all=True, append_images=animation[1:], loop=0,
                          duration=round(step * DT * 1000), optimize=False)
        written.append(gif)
    return written

