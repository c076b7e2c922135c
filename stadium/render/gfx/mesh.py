"""Meshes: a vertex buffer in a VertexFormat, an optional vertex map, drawn with any program."""
from __future__ import annotations

import moderngl
import numpy as np

from .formats import VertexFormat

_MODES = {"triangles": moderngl.TRIANGLES, "lines": moderngl.LINES, "points": moderngl.POINTS}
_USAGES = ("static", "dynamic", "stream")


class Mesh:
    """Vertices of one format, as LÖVE's newMesh(format, vertices, mode, usage).

    `set_vertices` is one buffer write of the whole float32 array, which is what lets a
    rig that skins in place into its own numpy rows reach the GPU without a Python
    loop. The vertex arrays are made per program on first use and kept, since a program
    fixes which attributes are read.
    """

    def __init__(self, ctx: moderngl.Context, fmt: VertexFormat, vertices: np.ndarray,
                 mode: str = "triangles", usage: str = "dynamic"):
        if mode not in _MODES:
            raise ValueError(f"mesh mode must be one of {sorted(_MODES)}, got {mode!r}")
        if usage not in _USAGES:
            raise ValueError(f"mesh usage must be one of {_USAGES}, got {usage!r}")
        self.ctx, self.format, self.mode = ctx, fmt, _MODES[mode]
        rows = self._checked(vertices)
        self.vertex_count = rows.shape[0]
        self.vertex_buffer = ctx.buffer(rows, dynamic=usage != "static")
        self.index_buffer = None
        self.index_size = 4
        self.index_count = 0
        self.draw_range = None
        self._arrays = {}

    def _checked(self, vertices: np.ndarray) -> np.ndarray:
        if (vertices.dtype != np.float32 or vertices.ndim != 2
                or vertices.shape[1] != self.format.components):
            raise ValueError(f"mesh vertices must be float32 (n, {self.format.components}), "
                             f"got {vertices.dtype} {vertices.shape}")
        return np.ascontiguousarray(vertices)

    def set_vertices(self, vertices: np.ndarray, start: int = 0) -> None:
        """Overwrite vertices from `start` on, in one write."""
        if start < 0 or start + vertices.shape[0] > self.vertex_count:
            raise ValueError(f"mesh holds {self.vertex_count} vertices; cannot write "
                             f"{vertices.shape[0]} from {start}")
        self.vertex_buffer.write(self._checked(vertices), offset=start * self.format.stride)

    def set_vertex_map(self, indices: np.ndarray) -> None:
        """Draw through `indices` (a flat triangle list) instead of the vertices in order."""
        indices = np.ascontiguousarray(indices).ravel()
        if indices.dtype not in (np.uint16, np.uint32):
            indices = indices.astype(np.uint32)
        if indices.size and int(indices.max()) >= self.vertex_count:
            raise ValueError(f"vertex map names vertex {int(indices.max())} of {self.vertex_count}")
        if self.index_buffer is not None:
            self.index_buffer.release()
        self.index_buffer = self.ctx.buffer(indices)
        self.index_size = indices.dtype.itemsize
        self.index_count = indices.size
        for array in self._arrays.values():
            array.release()
        self._arrays.clear()

    def set_draw_range(self, first: int | None = None, count: int | None = None) -> None:
        """Draw only `count` entries of the vertex map from `first` (as LÖVE's
        setDrawRange), so several parts can share one buffer; no arguments: all."""
        self.draw_range = None if first is None else (int(first), int(count))

    def vertex_array(self, program: moderngl.Program) -> moderngl.VertexArray:
        array = self._arrays.get(program.glo)
        if array is None:
            layout, names = self.format.layout_for(program)
            array = self.ctx.vertex_array(
                program, [(self.vertex_buffer, layout, *names)],
                index_buffer=self.index_buffer, index_element_size=self.index_size)
            self._arrays[program.glo] = array
        return array

    def draw(self, program: moderngl.Program) -> None:
        first, count = 0, self.index_count if self.index_buffer is not None else self.vertex_count
        if self.draw_range is not None:
            first, count = self.draw_range
        if count:
            self.vertex_array(program).render(self.mode, vertices=count, first=first)

    def release(self) -> None:
        for array in self._arrays.values():
            array.release()
        self._arrays.clear()
        self.vertex_buffer.release()
        if self.index_buffer is not None:
            self.index_buffer.release()
