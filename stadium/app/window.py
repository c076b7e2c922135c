"""Sizing a window to the desktop, and resizing an open one: what the gfx layer leaves out
about pygame windows."""
from __future__ import annotations

# Room a window leaves on its desktop for its title bar, borders and a task bar.
DESKTOP_MARGIN = (16, 72)


def fit_desktop(size, desktop) -> tuple[int, int]:
    """`size`, no larger than a desktop of `desktop` pixels (None: unknown) holds."""
    width, height = int(size[0]), int(size[1])
    if desktop is None:
        return width, height
    return (min(width, max(160, desktop[0] - DESKTOP_MARGIN[0])),
            min(height, max(144, desktop[1] - DESKTOP_MARGIN[1])))


def desktop_size() -> tuple[int, int] | None:
    """The first display's size, or None where there is none."""
    import pygame

    try:
        pygame.display.init()
        sizes = pygame.display.get_desktop_sizes()
    except pygame.error:
        return None
    return tuple(sizes[0]) if sizes else None


def resize_window(gfx, size) -> bool:
    """Set an open window's size (the GL context lives on), fitted to the desktop; True when
    it changed. The SDL2 window under pygame's display is reached through pygame._sdl2,
    which pygame ships but does not promise; where it is missing nothing changes."""
    if not getattr(gfx, "window", False):
        return False
    import pygame

    try:
        from pygame._sdl2.video import Window
    except ImportError:
        return False
    width, height = fit_desktop(size, desktop_size())
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
