"""Vertex formats: named float attributes packed into one interleaved float32 row."""
from __future__ import annotations


class VertexFormat:
    """An ordered list of (name, components) float32 attributes, like a LÖVE mesh format.

    A program that does not read an attribute still has to step over its bytes, so
    `layout_for` pads the ones a program leaves out instead of failing.
    """

    def __init__(self, attributes):
        self.attributes = tuple((str(name), int(count)) for name, count in attributes)
        if not self.attributes or any(count not in (1, 2, 3, 4) for _, count in self.attributes):
            raise ValueError(f"vertex format needs 1 to 4 floats per attribute: {self.attributes}")
        self.components = sum(count for _, count in self.attributes)
        self.stride = 4 * self.components

    def layout_for(self, program):
        """The moderngl buffer format and attribute names `program` actually reads."""
        parts, names = [], []
        for name, count in self.attributes:
            if name in program:
                parts.append(f"{count}f")
                names.append(name)
            else:
                parts.append(f"{4 * count}x")
        return " ".join(parts), names
