"""The inspector's window: the figure in the diorama, a clip at a time, with its skeleton
and bone names, its spring chains and colliders and its physics bodies drawn over it
(stadium.inspect.overlay, into an RGBA layer), and the debugger panel (stadium.inspect.panel:
the clip, the time, the toggles and a slider per morph weight) over the screen.

Keys: space play/pause, left/right step a frame (paused), up/down or [ ] the clip, L loop,
B bones, N names, S spring bones, P physics bodies, R drop as a ragdoll (again: stand up),
escape quits; click or drag in the bar along the bottom to scrub.
"""
from __future__ import annotations

import numpy as np

from ..errors import BadOption
from ..render import pixelfont
from ..render.battlecam import FRAME
from ..render.gfx import Game, Graphics, WindowUnavailable, run_window
from ..render.hours import HOURS
from ..render.post import Present, letterbox
from . import drop as drop_module
from . import overlay
from . import panel as panel_module
from .figure import Figure
from .overlay import JOINT, TEXT, joint_pixels
from .stage import LOOK, Stage

__all__ = ["BAR", "JOINT", "TEXT", "Inspector", "inspect_window", "joint_pixels"]

STEP = 1.0 / 30.0          # seconds a left/right key moves the paused clip
BAR = 10                   # frame pixels of the scrub bar along the bottom
BAR_BACK, BAR_FILL = (0, 0, 0, 150), (255, 216, 80, 230)


class Inspector(Game):
    """Plays the asset's clips in a window."""

    def __init__(self, figure: Figure, scale: int):
        self.figure, self.scale = figure, scale
        self.clips = figure.asset.clips or [("rest", None)]
        self.clip_index, self.time = 0, 0.0
        self.playing, self.loop, self.bones, self.names = True, True, True, False
        self.bodies = True
        self.drop_available = figure.asset.ragdoll is not None and drop_module.available()
        self.drop = None                # the ragdoll falling, while it does
        self.played = 0.0               # seconds played since the last draw (the springs')
        self.names_of = [figure.skeleton.bone_name(b) or f"#{b}"
                         for b in range(figure.skeleton.bone_count)]
        self._drag = False

    @property
    def clip(self):
        return self.clips[self.clip_index][1]

    @property
    def dropped(self) -> bool:
        return self.drop is not None

    def pick(self, index: int) -> None:
        """Play clip `index` from its start."""
        self.clip_index, self.time, self.drop = index % len(self.clips), 0.0, None

    def toggle_springs(self) -> None:
        self.figure.springs_on = not self.figure.springs_on
        self.figure.restart_springs()             # back on: from the pose, not the past

    def toggle_drop(self) -> None:
        """Drop the figure as a ragdoll from its pose now, or stand it back on the clip."""
        if self.drop is not None or not self.drop_available:
            self.drop = None
            return
        self.playing = False
        self.drop = drop_module.Drop(self.figure, self.stage.floor)

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
        self.panel = panel_module.Panel(gfx) if panel_module.available() else None

    def update(self, dt: float) -> None:
        if self.drop is not None:
            self.drop.step(dt)
            return
        if not self.playing or self.duration <= 0:
            return
        self.played += dt
        self.time += dt
        if self.time > self.duration:
            self.time = self.time % self.duration if self.loop else self.duration
            self.playing = self.loop

    def draw(self, gfx: Graphics) -> None:
        stage = self.stage
        if self.drop is None:
            # played: the springs run on through a loop; scrubbed: by the time moved
            stage.figure.pose(self.clip, self.time, self.played or None)
            self.played = 0.0
        stage.place()
        canvas = stage.renderer.render(stage, HOURS["day"], LOOK)
        viewport = letterbox(canvas.size, (gfx.width, gfx.height))
        self.viewport = viewport
        gfx.clear_screen()
        self.present.draw(canvas.color, viewport)
        self._paint_layer()
        self.layer_image.replace(self.layer[::-1])      # presented with row 0 at the bottom
        self.present.draw(self.layer_image.texture, viewport, blend=True)
        if self.panel is not None:
            self.panel.draw(gfx, self)

    def _paint_layer(self) -> None:
        layer = self.layer
        layer[:] = 0
        h, w = layer.shape[:2]
        overlay.paint(layer, self.stage, bones=self.bones,
                      names=self.names_of if self.names else None,
                      springs=self.figure.springs_on, bodies=self.bodies)
        name = self.clips[self.clip_index][0]
        state = "ragdoll" if self.drop else "playing" if self.playing else "paused"
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
            self.pick(self.clip_index + (-1 if key in ("up", "[") else 1))
        elif key == "l":
            self.loop = not self.loop
        elif key == "b":
            self.bones = not self.bones
        elif key == "n":
            self.names = not self.names
        elif key == "s" and self.figure.asset.springs is not None:
            self.toggle_springs()
        elif key == "p":
            self.bodies = not self.bodies
        elif key == "r":
            self.toggle_drop()

    def event(self, event) -> None:
        import pygame
        if self.panel is not None:
            self.panel.feed(event)
            mouse = event.type in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP,
                                   pygame.MOUSEMOTION, pygame.MOUSEWHEEL)
            if (mouse and self.panel.wants_mouse and not self._drag) or (
                    event.type == pygame.KEYDOWN and self.panel.wants_keyboard):
                return
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
        if self.panel is not None:
            self.panel.release()
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
