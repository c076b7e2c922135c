"""The inspector's window: the figure in the diorama, a clip at a time, with its skeleton
and bone names drawn over it (the debugger's skeleton overlay, as joints projected by the
frame's own camera, drawn into an RGBA layer by code).

Keys: space play/pause, left/right step a frame (paused), up/down or [ ] the clip, L loop,
B bones, N names, escape quits; click or drag in the bar along the bottom to scrub.
"""
from __future__ import annotations

import numpy as np

from ..errors import BadOption
from ..render import pixelfont
from ..render.battlecam import FRAME
from ..render.gfx import Game, Graphics, WindowUnavailable, run_window
from ..render.hours import HOURS
from ..render.post import Present, letterbox
from .figure import Figure
from .stage import LOOK, Stage

STEP = 1.0 / 30.0          # seconds a left/right key moves the paused clip
BAR = 10                   # frame pixels of the scrub bar along the bottom
BONE, JOINT, TEXT, BAR_BACK, BAR_FILL = ((120, 255, 160, 220), (255, 255, 255, 235),
                                         (255, 240, 200, 255), (0, 0, 0, 150),
                                         (255, 216, 80, 230))


def joint_pixels(stage: Stage) -> np.ndarray:
    """(n, 2) frame pixels of every bone's joint in the figure's current pose."""
    origins = np.asarray(stage.figure.pose_.model, np.float64)[:, :, 3]
    world = np.c_[origins, np.ones(len(origins))] @ np.asarray(stage.actor.matrix, np.float64)
    clip = world @ np.asarray(stage.renderer.view_proj, np.float64).T
    ndc = clip[:, :2] / clip[:, 3:4]
    h, w = stage.rgb.shape[:2]
    return np.c_[(ndc[:, 0] + 1) * 0.5 * w, (1 - ndc[:, 1]) * 0.5 * h]


def _line(image: np.ndarray, a, b, colour) -> None:
    steps = int(max(abs(b[0] - a[0]), abs(b[1] - a[1]), 1))
    t = np.linspace(0.0, 1.0, steps + 1)
    x = np.round(a[0] + (b[0] - a[0]) * t).astype(int)
    y = np.round(a[1] + (b[1] - a[1]) * t).astype(int)
    keep = (x >= 0) & (x < image.shape[1]) & (y >= 0) & (y < image.shape[0])
    image[y[keep], x[keep]] = colour


class Inspector(Game):
    """Plays the asset's clips in a window."""

    def __init__(self, figure: Figure, scale: int):
        self.figure, self.scale = figure, scale
        self.clips = figure.asset.clips or [("rest", None)]
        self.clip_index, self.time = 0, 0.0
        self.playing, self.loop, self.bones, self.names = True, True, True, False
        self.names_of = [figure.skeleton.bone_name(b) or f"#{b}"
                         for b in range(figure.skeleton.bone_count)]
        self.parents = [figure.skeleton.parent(b) for b in range(figure.skeleton.bone_count)]
        self._drag = False

    @property
    def clip(self):
        return self.clips[self.clip_index][1]

    @property
    def duration(self) -> float:
        return float(self.clip.duration) if self.clip is not None else 0.0

    def load(self, gfx: Graphics) -> None:
        self.gfx = gfx
        self.stage = Stage(gfx, self.figure, scale=self.scale)
        self.present = Present(gfx)
        h, w = self.stage.rgb.shape[:2]
        self.layer = np.zeros((h, w, 4), np.uint8)
        self.layer_image = gfx.new_image(self.layer, repeat=False)   # top row first here

    def update(self, dt: float) -> None:
        if not self.playing or self.duration <= 0:
            return
        self.time += dt
        if self.time > self.duration:
            self.time = self.time % self.duration if self.loop else self.duration
            self.playing = self.loop

    def draw(self, gfx: Graphics) -> None:
        stage = self.stage
        stage.figure.pose(self.clip, self.time)
        stage.place()
        canvas = stage.renderer.render(stage, HOURS["day"], LOOK)
        viewport = letterbox(canvas.size, (gfx.width, gfx.height))
        self.viewport = viewport
        gfx.clear_screen()
        self.present.draw(canvas.color, viewport)
        self._paint_layer()
        self.layer_image.replace(self.layer[::-1])      # presented with row 0 at the bottom
        self.present.draw(self.layer_image.texture, viewport, blend=True)

    def _paint_layer(self) -> None:
        layer = self.layer
        layer[:] = 0
        h, w = layer.shape[:2]
        if self.bones:
            points = joint_pixels(self.stage)
            for b, p in enumerate(self.parents):       # a UI overlay, a few dozen bones
                if p < len(points):
                    _line(layer, points[p], points[b], BONE)
            for b, (x, y) in enumerate(points):
                xi, yi = int(round(x)), int(round(y))
                layer[max(yi - 1, 0):yi + 2, max(xi - 1, 0):xi + 2] = JOINT
                if self.names:
                    pixelfont.draw(layer, self.names_of[b], xi + 3, yi - 3, TEXT)
        name = self.clips[self.clip_index][0]
        state = "playing" if self.playing else "paused"
        text = (f"{self.clip_index + 1}/{len(self.clips)} {name}  {self.time:5.2f}/"
                f"{self.duration:.2f}s  {state}{'  loop' if self.loop else ''}")
        layer[h - BAR:] = BAR_BACK
        if self.duration > 0:
            layer[h - BAR:, :int(w * self.time / self.duration)] = BAR_FILL
        pixelfont.draw(layer, pixelfont.fit(text, w - 4), 2, 2, TEXT)

    def keypressed(self, key: str) -> None:
        if key == "escape":
            self.running = False
        elif key == "space":
            if not self.playing and self.time >= self.duration:
                self.time = 0.0
            self.playing = not self.playing
        elif key in ("left", "right"):
            self.playing = False
            step = STEP if key == "right" else -STEP
            self.time = min(max(self.time + step, 0.0), self.duration)
        elif key in ("up", "down", "[", "]"):
            turn = -1 if key in ("up", "[") else 1
            self.clip_index = (self.clip_index + turn) % len(self.clips)
            self.time = 0.0
        elif key == "l":
            self.loop = not self.loop
        elif key == "b":
            self.bones = not self.bones
        elif key == "n":
            self.names = not self.names

    def event(self, event) -> None:
        import pygame
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self._drag = self._scrub(event.pos, start=True)
        elif event.type == pygame.MOUSEBUTTONUP and event.button == 1:
            self._drag = False
        elif event.type == pygame.MOUSEMOTION and self._drag:
            self._scrub(event.pos, start=False)
        else:
            super().event(event)

    def _scrub(self, pos, start: bool) -> bool:
        """Set the time from a screen position in (or, dragging, along) the bottom bar."""
        x, y, w, h = self.viewport
        bar = BAR * h / self.layer.shape[0]
        if start and not (x <= pos[0] < x + w and y + h - bar <= pos[1] < y + h):
            return False
        self.playing = False
        self.time = min(max((pos[0] - x) / w, 0.0), 1.0) * self.duration
        return True

    def release(self) -> None:
        self.layer_image.release()
        self.present.release()
        self.stage.release()


def inspect_window(figure: Figure, *, scale: int = 2) -> None:
    """Open the window and play until it closes; BadOption where no window can open."""
    size = (FRAME[0] * scale * 2, FRAME[1] * scale * 2)
    try:
        gfx = Graphics.open_window(size, f"inspect {figure.asset.name}", resizable=True)
    except WindowUnavailable as why:
        raise BadOption("FILE", f"no window here ({why}); use --headless --out DIR") from None
    game = Inspector(figure, scale)
    try:
        run_window(game, gfx)
    finally:
        if hasattr(game, "stage"):
            game.release()
        gfx.release()
