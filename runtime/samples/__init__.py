"""Sources the tests and benchmarks share: an n-bone humanoid and a locomotion graph on it."""
from .humanoid import humanoid_source
from .locomotion import locomotion_clips, locomotion_source

__all__ = ["humanoid_source", "locomotion_clips", "locomotion_source"]
