"""A window's frame loop that hands the game every pygame event (mouse, keys up and
down, text), which a debugger needs, where stadium.gfx.loop.run_window passes key names.

Updates run in fixed steps against the wall clock exactly as run_window runs them.
"""
from __future__ import annotations


def run(game, gfx, *, dt: float = 1 / 60, max_steps: int = 4) -> None:
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


def resize_window(gfx, size) -> bool:
    """Set an open window's size (the GL context lives on), within the desktop; True when
    it changed. The SDL2 window under pygame's display is reached through pygame._sdl2,
    which pygame ships but does not promise; where it is missing nothing changes."""
    if not getattr(gfx, "window", False):
        return False
    import pygame

    try:
        from pygame._sdl2.video import Window
    except ImportError:
        return False
    desktop = pygame.display.get_desktop_sizes()
    limit = desktop[0] if desktop else size
    width, height = min(int(size[0]), limit[0]), min(int(size[1]), limit[1])
    global _WINDOW
    # kept for the life of the display: a wrapper collected mid-run took the window with
    # it (a crash in the next event poll)
    if _WINDOW is None:
        _WINDOW = Window.from_display_module()
    if tuple(_WINDOW.size) == (width, height):
        return False
    _WINDOW.size = (width, height)
    gfx.resize(width, height)
    return True


_WINDOW = None
