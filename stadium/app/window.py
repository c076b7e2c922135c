"""Resizing an open window: the one thing about pygame windows the gfx layer leaves out."""
from __future__ import annotations


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
