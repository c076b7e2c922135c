"""The frame loop: load once, then update(dt) and draw, in a window or frame by frame headless."""
from __future__ import annotations

from typing import Callable, Iterable

from .context import Graphics


class Game:
    """The callbacks a loop drives, after LÖVE's love.load / love.update / love.draw.

    Subclasses override what they need; `running` going false ends a window loop.
    """

    running = True

    def load(self, gfx: Graphics) -> None:
        """Make GPU objects once, before the first frame."""

    def update(self, dt: float) -> None:
        """Advance the world by `dt` seconds."""

    def draw(self, gfx: Graphics) -> None:
        """Draw the current state to `gfx.screen`."""

    def event(self, event) -> None:
        """Any pygame event but quitting and resizing (mouse, keys up and down, text): a
        game with a UI of its own takes them all; by default a key going down reaches
        keypressed."""
        import pygame

        if event.type == pygame.KEYDOWN:
            self.keypressed(pygame.key.name(event.key))

    def keypressed(self, key: str) -> None:
        """A key went down; `key` is pygame's key name ("space", "f1", "a", ...)."""

    def resized(self, width: int, height: int) -> None:
        """The window's drawable size changed."""


def run_window(game: Game, gfx: Graphics, *, dt: float = 1 / 60, max_steps: int = 4) -> None:
    """Run until the window closes or `game.running` goes false.

    Updates happen in fixed `dt` steps against the wall clock (at most `max_steps` a
    frame, so a stall slows the world down instead of fast-forwarding it), which keeps
    a window and a headless run on the same timeline.
    """
    import pygame

    clock = pygame.time.Clock()
    game.load(gfx)
    behind = 0.0
    while game.running:
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                game.running = False
            elif event.type == pygame.VIDEORESIZE:
                width, height = pygame.display.get_window_size()
                gfx.resize(width, height)
                game.resized(width, height)
            else:
                game.event(event)
        behind = min(behind + clock.tick(120) / 1000.0, max_steps * dt)
        while behind >= dt:
            game.update(dt)
            behind -= dt
        game.draw(gfx)
        gfx.present()


def run_frames(game: Game, gfx: Graphics, frames: Iterable[int], dt: float,
               on_frame: Callable[[int, Graphics], None]) -> None:
    """Headless: frame N is the state after N updates of `dt`; each wanted one is drawn
    and handed to `on_frame` while its pixels are on the screen."""
    game.load(gfx)
    tick = 0
    for target in sorted(set(int(f) for f in frames)):
        while tick < target:
            game.update(dt)
            tick += 1
        game.draw(gfx)
        on_frame(target, gfx)
