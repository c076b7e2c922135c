"""Working memory for the skinning jobs (the per-joint tables a call works out), kept
between calls so a frame allocates nothing, and the vertex range the vertex jobs share. One
scratch serves one thread at a time; a job given none uses its thread's own, so jobs over
disjoint ranges can run on several threads at once."""
from __future__ import annotations

import threading

import numpy as np

from .errors import InvalidError


class Scratch:
    """Named float32 buffers that grow to the largest request and are then reused."""

    def __init__(self):
        self._flat: dict[str, np.ndarray] = {}
        self._views: dict[tuple, np.ndarray] = {}

    def rows(self, name: str, rows: int, columns: int) -> np.ndarray:
        """A C-contiguous (rows, columns) float32 array, the same memory from call to call
        (the view itself too, while the buffer does not grow)."""
        view = self._views.get((name, rows, columns))
        if view is not None:
            return view
        size = rows * columns
        buf = self._flat.get(name)
        if buf is None or buf.size < size:
            buf = self._flat[name] = np.empty(size, dtype=np.float32)
            self._views = {k: v for k, v in self._views.items() if k[0] != name}
        view = self._views[(name, rows, columns)] = buf[:size].reshape(rows, columns)
        return view


_local = threading.local()


def thread_scratch() -> Scratch:
    s = getattr(_local, "scratch", None)
    if s is None:
        s = _local.scratch = Scratch()
    return s


def vertex_range(first, count, n: int) -> tuple[int, int]:
    """A job's vertices [first, end): `count` None runs to the last; refuses what is not
    whole numbers within the n vertices."""
    if not (isinstance(first, (int, np.integer))
            and (count is None or isinstance(count, (int, np.integer)))):
        raise InvalidError("first and count must be integers")
    first = int(first)
    count = n - first if count is None else int(count)
    if first < 0 or count < 0 or first + count > n:
        raise InvalidError(f"vertices {first}..{first + count} past the {n} vertices")
    return first, first + count
