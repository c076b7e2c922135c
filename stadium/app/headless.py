"""Rendering the viewer without a window: chosen frames to PNGs, or an animated GIF.

Frame N is the battle after N fixed steps of 1/60 s from its start (a saved battle
continues from the step it was saved at, and keeps counting from there), so the same
command writes the same bytes every time. Frames are written as they are drawn, each
file whole or not at all; a GIF holds its frames until the end, so it is bounded.
"""
from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

from ..battle.scene import CHOREOGRAPHY_SECONDS
from ..errors import BadOption
from ..render.gfx import Graphics
from .viewer import DT, BattleViewer

# A few frames of the default battle (and the show): the send-outs, both standing by,
# the first turn's blows, and later turns.
DEFAULT_FRAMES = (30, 150, 218, 365, 700)
GIF_STEP = 2                 # every other 60 Hz step: 30 frames a second
MAX_FRAME = 60 * 60 * 10     # ten minutes of battle: the default battle ends in about one
MAX_GIF_FRAMES = 60 * 30     # a minute at 30 frames a second, held in memory until written
MIN_GIF_DELAY = 2            # hundredths of a second: many viewers slow anything shorter
LONG_RUN = 1800              # steps past which a headless run reports its progress


def parse_frames(text: str) -> list[int]:
    """"0,15,30" and ranges "start:stop[:step]" (stop excluded), mixed freely; each frame
    0 .. MAX_FRAME. ValueError says which item is wrong and why."""
    frames = set()
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        parts = item.split(":")
        if len(parts) > 3:
            raise ValueError(f"{item!r} is not N or start:stop[:step]")
        try:
            numbers = [int(p) for p in parts]
        except ValueError:
            raise ValueError(f"{item!r}: frames are whole numbers") from None
        if any(n < 0 for n in numbers):
            raise ValueError(f"{item!r}: frames count up from 0")
        if len(numbers) == 1:
            numbers = [numbers[0], numbers[0] + 1]
        start, stop, step = (numbers + [1])[:3]
        if step == 0:
            raise ValueError(f"{item!r}: a range's step is 1 or more")
        if stop <= start:
            raise ValueError(f"{item!r} is empty: in start:stop, stop must be past start "
                             f"(stop itself is left out)")
        if stop - 1 > MAX_FRAME:
            raise ValueError(f"{item!r} goes past frame {MAX_FRAME} (ten minutes of battle, "
                             f"the most a headless run renders)")
        frames.update(range(start, stop, step))
    if not frames:
        raise ValueError(f"no frames in {text!r}")
    return sorted(frames)


def gif_frames() -> list[int]:
    """The whole scripted show (thirteen seconds) at 30 frames a second."""
    return list(range(0, int(CHOREOGRAPHY_SECONDS / DT), GIF_STEP))


def gif_timing(frames) -> dict[int, int]:
    """Which frames a GIF shows, and each one's delay in milliseconds (whole hundredths of
    a second, as GIF stores them): every delay at least MIN_GIF_DELAY hundredths, frames
    closer than that left out, and the delays adding up to the frames' true duration,
    the last frame lasting as long as the step before it. The rounding is spread by
    rounding each frame's start, not each delay."""
    frames = sorted(frames)
    step = frames[-1] - frames[-2] if len(frames) > 1 else 1
    hundredths = [round(f * DT * 100) for f in frames]
    end = round((frames[-1] + step) * DT * 100)
    kept = []
    for frame, at in zip(frames, hundredths):
        if not kept or at - kept[-1][1] >= MIN_GIF_DELAY:
            kept.append((frame, at))
    while len(kept) > 1 and end - kept[-1][1] < MIN_GIF_DELAY:
        kept.pop()                       # the last would flash by: the one before holds
    ends = [at for _, at in kept[1:]] + [max(end, kept[-1][1] + MIN_GIF_DELAY)]
    return {frame: 10 * (stop - at) for (frame, at), stop in zip(kept, ends)}


def check_screen(gfx: Graphics, size: tuple[int, int], scale: int) -> None:
    """BadOption when this context cannot hold a screen of `size` (the --scale asked for)."""
    info = gfx.ctx.info
    most = min(int(info["GL_MAX_TEXTURE_SIZE"]), int(info["GL_MAX_RENDERBUFFER_SIZE"]),
               *(int(n) for n in info["GL_MAX_VIEWPORT_DIMS"]))
    if max(size) > most:
        frame = max(size[0] // scale, size[1] // scale, 1)
        raise BadOption("--scale", f"{scale} makes a {size[0]} x {size[1]} frame; this GL "
                                   f"context draws at most {most} pixels a side, so --scale "
                                   f"{max(1, most // frame)} at the most")


class Progress:
    """A count on long runs: rewritten in place on a terminal, every tenth elsewhere."""

    def __init__(self, first: int, last: int, stream=None):
        self.first, self.last = first, last
        self.stream = stream or sys.stdout
        self.shown = (last - first) > LONG_RUN
        self.terminal = self.stream.isatty()
        self._next = 0.0
        self._tenth = 0

    def __call__(self, frame: int) -> None:
        if not self.shown:
            return
        share = (frame - self.first) / max(1, self.last - self.first)
        now = time.monotonic()
        if self.terminal and (now >= self._next or frame == self.last):
            self._next = now + 0.25
            end = "\n" if frame == self.last else ""
            print(f"\rrun_battle: frame {frame} of {self.last} ({share:.0%})", end=end,
                  file=self.stream, flush=True)
        elif not self.terminal and share * 10 >= self._tenth + 1:
            self._tenth = int(share * 10)
            print(f"run_battle: frame {frame} of {self.last} ({share:.0%})", file=self.stream,
                  flush=True)


def _write_whole(path: Path, write) -> None:
    """`write(temporary path)`, then the file appears under its name: never half a file."""
    part = path.with_name(path.name + ".part")
    try:
        write(part)
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)


def render(viewer: BattleViewer, frames, *, scale: int, out: Path | None = None,
           gif: Path | None = None, hashes: Path | None = None) -> list[Path]:
    """Render `frames` (sorted, none before the viewer's step) at `scale` times 160 x 144
    (beside the debugger's panels when it is open); PNGs into `out`, a GIF at `gif`, and
    to `hashes` a line a frame: the frame, a hash of its pixels and a hash of the battle
    it shows. Returns the files written. Nothing is written before the screen is known
    to fit this context (BadOption otherwise)."""
    width, height = viewer.screen_size(scale)
    gfx = Graphics.open_headless((160, 144))
    try:
        check_screen(gfx, (width, height), scale)
        gfx.resize(width, height)
        return _render(viewer, gfx, frames, out, gif, hashes)
    finally:
        viewer.release()
        gfx.release()


def _render(viewer, gfx, frames, out, gif, hashes) -> list[Path]:
    pixels = np.empty((gfx.height, gfx.width, 3), np.uint8)
    timing = gif_timing(frames) if gif is not None else {}
    written, animation, lines = [], [], []
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    viewer.load(gfx)
    tick = viewer.steps
    progress = Progress(tick, frames[-1])
    for frame in frames:
        while tick < frame:
            viewer.update(DT)
            tick += 1
            progress(tick)
        viewer.draw(gfx)
        gfx.read_screen(pixels)
        if hashes is not None:
            digest = getattr(viewer.world, "digest", None)
            world = digest() if digest is not None else "-"
            lines.append(f"{frame} {hashlib.sha1(pixels.tobytes()).hexdigest()} {world}\n")
        if out is not None:
            path = out / f"frame_{frame:04d}.png"
            image = Image.fromarray(pixels)
            _write_whole(path, lambda part: image.save(part, format="PNG"))
            written.append(path)
        if frame in timing:
            animation.append(Image.fromarray(pixels.copy()))
    if hashes is not None:
        hashes.parent.mkdir(parents=True, exist_ok=True)
        _write_whole(hashes, lambda part: part.write_text("".join(lines)))
        written.append(hashes)
    if gif is not None:
        gif.parent.mkdir(parents=True, exist_ok=True)
        delays = [timing[f] for f in sorted(timing)]
        _write_whole(gif, lambda part: animation[0].save(
            part, format="GIF", save_all=True, append_images=animation[1:], loop=0,
            duration=delays, optimize=False))
        written.append(gif)
    return written
