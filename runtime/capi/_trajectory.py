"""trajectory.h.

maniAdvanceTrajectory returns None (the trajectory advanced in place);
maniMotionDatabase_ComputeTrajectoryFeatures returns (position, facing), two binary32 pairs.
"""
from ..core.errors import InvalidError
from ..matching.trajectory import Trajectory, advance, trajectory_features

__all__ = ["maniAdvanceTrajectory", "maniMotionDatabase_ComputeTrajectoryFeatures"]


def maniAdvanceTrajectory(trajectory, goal, seconds) -> None:
    if not isinstance(trajectory, Trajectory):
        raise InvalidError("no trajectory")
    advance(trajectory, goal, seconds)


def maniMotionDatabase_ComputeTrajectoryFeatures(database, root, sample):
    return trajectory_features(database, root, sample)
