"""Sources the tests and benchmarks share: an n-bone humanoid, a locomotion graph on it, and
the trainer with the map that carries the Bandai Namco mocap onto it."""
from .humanoid import humanoid_source
from .locomotion import locomotion_clips, locomotion_source
from .trainer import mocap_reference, mocap_retarget_source, trainer_skeleton_source

__all__ = ["humanoid_source", "locomotion_clips", "locomotion_source", "mocap_reference",
           "mocap_retarget_source", "trainer_skeleton_source"]
