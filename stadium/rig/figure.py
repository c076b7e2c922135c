"""What the renderer draws of a figure the runtime skins on the CPU (a trainer, an asset in
the inspector): its parts over one vertex buffer, all opaque and all casting shadows, drawn
as a creature's are."""
from __future__ import annotations

import numpy as np


class SkinnedFigure:
    """A figure's drawing side; the subclass fills `_buffer` ((v, 6) x y z u v shade) and
    `_opaque` (its RigParts) and rewrites the buffer in place each frame."""

    _buffer: np.ndarray
    _opaque: tuple = ()

    @property
    def vertices(self) -> np.ndarray:
        """(v, 6) float32 x y z u v shade, as the last skin left them (the buffer itself)."""
        return self._buffer

    def opaque_parts(self):
        return self._opaque

    def additive_parts(self):
        return ()

    def caster_parts(self):
        return self._opaque
