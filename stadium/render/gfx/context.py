"""The one context factory: a pygame window or a headless EGL context, drawn to alike."""
from __future__ import annotations

from pathlib import Path

import moderngl
import numpy as np

from .canvas import Canvas
from .formats import VertexFormat
from .image import Image
from .mesh import Mesh


HEADLESS_DRIVERS = ("offscreen", "dummy")


class WindowUnavailable(RuntimeError):
    """pygame could not open an OpenGL window here (no display, or no GL for it)."""


class Graphics:
    """A moderngl context plus its screen: what LÖVE calls love.graphics.

    Drawing code targets `screen` and never asks which kind it is: in a window the
    screen is the default framebuffer, headless it is an offscreen canvas of the same
    size, so a screenshot and a window show the same pixels.
    """

    def __init__(self, ctx: moderngl.Context, size: tuple[int, int], *, window: bool):
        self.ctx = ctx
        self.window = window
        self._screen_canvas = None
        self.resize(*size)

    @classmethod
    def open_headless(cls, size: tuple[int, int]) -> "Graphics":
        return cls(moderngl.create_standalone_context(backend="egl"), size, window=False)

    @classmethod
    def open_window(cls, size: tuple[int, int], title: str, *, resizable: bool = True) -> "Graphics":
        """A pygame OpenGL 3.3 core window; WindowUnavailable where there is no display."""
        import pygame

        try:
            pygame.display.init()
            driver = pygame.display.get_driver()
            if driver in HEADLESS_DRIVERS:
                # SDL falls back to these where nothing can show a window: a window there
                # would run forever unseen
                raise pygame.error(f"no display (SDL's {driver!r} video driver)")
            pygame.display.gl_set_attribute(pygame.GL_CONTEXT_MAJOR_VERSION, 3)
            pygame.display.gl_set_attribute(pygame.GL_CONTEXT_MINOR_VERSION, 3)
            pygame.display.gl_set_attribute(pygame.GL_CONTEXT_PROFILE_MASK,
                                            pygame.GL_CONTEXT_PROFILE_CORE)
            flags = pygame.OPENGL | pygame.DOUBLEBUF | (pygame.RESIZABLE if resizable else 0)
            pygame.display.set_mode(size, flags)
            pygame.display.set_caption(title)
            ctx = moderngl.create_context()
        except pygame.error as error:
            pygame.display.quit()
            raise WindowUnavailable(str(error)) from error
        return cls(ctx, size, window=True)

    @property
    def screen(self) -> moderngl.Framebuffer:
        return self.ctx.screen if self.window else self._screen_canvas.framebuffer

    def resize(self, width: int, height: int) -> None:
        self.width, self.height = max(1, int(width)), max(1, int(height))
        if self.window:
            self.ctx.screen.viewport = (0, 0, self.width, self.height)
        else:
            if self._screen_canvas is not None:
                self._screen_canvas.release()
            self._screen_canvas = Canvas(self.ctx, self.width, self.height, depth=False)

    def read_screen(self, out: np.ndarray | None = None) -> np.ndarray:
        """The screen's pixels, (h, w, 3) uint8, top row first."""
        if out is None:
            out = np.empty((self.height, self.width, 3), np.uint8)
        if self.window:
            whole = (0, 0, self.width, self.height)
            flipped = np.frombuffer(self.ctx.screen.read(viewport=whole, components=3), np.uint8)
            np.copyto(out, flipped.reshape(self.height, self.width, 3)[::-1])
            return out
        return self._screen_canvas.read_into(out)

    def clear_screen(self, rgb=(0.0, 0.0, 0.0)) -> None:
        """Target the screen and clear all of it (a window's default framebuffer keeps
        its first size in moderngl, so the area is given explicitly)."""
        self.screen.use()
        self.screen.clear(*rgb, 1.0, viewport=(0, 0, self.width, self.height))

    def present(self) -> None:
        """Show the finished frame (a window's buffer swap; nothing to do headless)."""
        if self.window:
            import pygame

            pygame.display.flip()

    def new_mesh(self, fmt: VertexFormat, vertices: np.ndarray, mode: str = "triangles",
                 usage: str = "dynamic") -> Mesh:
        return Mesh(self.ctx, fmt, vertices, mode, usage)

    def new_image(self, rgba: np.ndarray, *, repeat: bool = True) -> Image:
        return Image(self.ctx, rgba, repeat=repeat)

    def new_canvas(self, width: int, height: int, **options) -> Canvas:
        return Canvas(self.ctx, width, height, **options)

    def new_shader(self, vertex: Path, fragment: Path, defines=()) -> moderngl.Program:
        """A program from two GLSL source files, read now (so edits need no rebuild).

        Each name in `defines` becomes a `#define` after the `#version` line, for a
        variant decided when compiling: a branch on a uniform still costs the software
        rasteriser the work inside it."""
        def source(path):
            version, _, rest = Path(path).read_text().partition("\n")
            return "\n".join([version, *(f"#define {name}" for name in defines), rest])

        return self.ctx.program(vertex_shader=source(vertex), fragment_shader=source(fragment))

    def release(self) -> None:
        if self._screen_canvas is not None:
            self._screen_canvas.release()
        self.ctx.release()
        if self.window:
            import pygame

            pygame.display.quit()
