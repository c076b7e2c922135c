"""A small LÖVE-style layer over moderngl: formats, meshes, images, canvases, a frame loop.

It knows nothing of battles; the same drawing code runs in a pygame window and in a
headless EGL context.
"""
from .canvas import Canvas
from .context import Graphics, WindowUnavailable
from .formats import VertexFormat
from .image import Image
from .loop import Game, run_frames, run_window
from .mesh import Mesh

__all__ = ["Canvas", "Game", "Graphics", "Image", "Mesh", "VertexFormat",
           "WindowUnavailable", "run_frames", "run_window"]
