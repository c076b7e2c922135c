"""Headless inspection: every clip's frames rendered, then written as PNGs with a contact
sheet (a row per clip, its frames across, the clip's name over the row).

Everything is rendered before anything is written, so a refusal midway leaves no half a
set of files behind."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from PIL import Image

from ..errors import BadFile
from ..render import pixelfont
from . import overlay as overlay_module
from .stage import Stage, clip_times

LABEL = pixelfont.HEIGHT + 4      # rows over each strip for the clip's name


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_") or "clip"


def render_clips(stage: Stage, frames: int, overlay: bool = False
                 ) -> list[tuple[str, list[np.ndarray]]]:
    """[(clip name, [RGB frame, ...])] for every clip (the rest pose when there is none),
    with the bones, springs and bodies drawn over each frame when `overlay`."""
    clips = stage.figure.asset.clips or [("rest", None)]
    layer = np.zeros(stage.rgb.shape[:2] + (4,), np.uint8)
    out = []
    for name, clip in clips:
        strip = []
        for t in clip_times(clip, frames):
            frame = stage.show(clip, float(t)).copy()
            if overlay:
                layer[:] = 0
                overlay_module.paint(layer, stage)
                overlay_module.over(frame, layer)
            strip.append(frame)
        out.append((name, strip))
    return out


def contact_sheet(strips) -> np.ndarray:
    """The strips as one RGB image: a labelled row per clip, frames left to right."""
    h, w = strips[0][1][0].shape[:2]
    across = max(len(f) for _, f in strips)
    sheet = np.full((len(strips) * (h + LABEL), across * w, 3), 24, np.uint8)
    for row, (name, frames) in enumerate(strips):
        top = row * (h + LABEL)
        pixelfont.draw(sheet, pixelfont.fit(name.replace("_", " "), across * w - 4), 2, top + 2, (236, 236, 230))
        for k, frame in enumerate(frames):
            sheet[top + LABEL:top + LABEL + h, k * w:(k + 1) * w] = frame
    return sheet


def write(out: Path, strips) -> list[Path]:
    """Each frame as CLIP_NNN.png and the sheet as sheet.png under `out` (made if needed)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise BadFile(out, "is not a directory")
    sheet = contact_sheet(strips)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for c, (name, frames) in enumerate(strips):
        for k, frame in enumerate(frames):
            path = out / f"{c:02d}_{_slug(name)}_{k:03d}.png"
            Image.fromarray(frame).save(path)
            written.append(path)
    path = out / "sheet.png"
    Image.fromarray(sheet).save(path)
    return written + [path]
