"""A character's trajectory for motion matching (maniTrajectory): a simulated root taken by
Holden's critically damped springs, in closed form, toward a goal's velocity and rotation
(kernels.advance_trajectory), and its samples measured as a database's trajectory channels
measure the root's path.

Closed form makes one advance of t the same motion as n advances of t/n up to binary32
rounding (the position spring's state is linear in time, the rotation's lives in the
rotation error's logarithm), so a prediction t seconds ahead is a copy advanced by t.
"""
from __future__ import annotations

import math

import numpy as np

from ..core import args, jit
from ..core.errors import InvalidError
from .database import MotionDatabase, opened
from .kernels import advance_trajectory

UNIT_TOLERANCE = 1e-3          # a rotation's length may differ from 1 by this much
_F32_MAX = float(np.finfo(np.float32).max)


class Trajectory:
    """maniTrajectory: position, velocity, acceleration, rotation (x y z w) and angular
    velocity, one binary32 buffer of 16 (views onto it)."""

    def __init__(self, position=(0, 0, 0), rotation=(0, 0, 0, 1), velocity=(0, 0, 0),
                 acceleration=(0, 0, 0), angular_velocity=(0, 0, 0)):
        self.state = np.zeros(16, np.float32)
        self.position = self.state[0:3]
        self.velocity = self.state[3:6]
        self.acceleration = self.state[6:9]
        self.rotation = self.state[9:13]
        self.angular_velocity = self.state[13:16]
        for view, value, what in ((self.position, position, "position"),
                                  (self.velocity, velocity, "velocity"),
                                  (self.acceleration, acceleration, "acceleration"),
                                  (self.rotation, rotation, "rotation"),
                                  (self.angular_velocity, angular_velocity, "angular velocity")):
            view[...] = args.floats(value, view.shape, what)
        _check_state(self.state)

    def copy(self) -> "Trajectory":
        other = Trajectory()
        other.state[...] = self.state
        return other


class TrajectoryGoal:
    """maniTrajectoryGoal: the desired velocity and rotation, and each spring's half-life in
    seconds (the time to close half the distance)."""

    def __init__(self, velocity=(0, 0, 0), rotation=(0, 0, 0, 1), position_half_life=0.2,
                 rotation_half_life=0.2):
        self.velocity = velocity
        self.rotation = rotation
        self.position_half_life = position_half_life
        self.rotation_half_life = rotation_half_life


def _unit(q: np.ndarray) -> bool:
    return abs(math.sqrt(float(np.dot(q.astype(np.float64), q.astype(np.float64)))) - 1) <= UNIT_TOLERANCE


def _check_state(state: np.ndarray) -> None:
    if not np.isfinite(state).all():
        raise InvalidError("a trajectory value not finite")
    if not _unit(state[9:13]):
        raise InvalidError("a trajectory rotation not of length 1")


def _goal(goal) -> np.ndarray:
    if not isinstance(goal, TrajectoryGoal):
        raise InvalidError("goal must be a TrajectoryGoal")
    g = np.empty(9, np.float32)
    g[0:3] = args.floats(goal.velocity, (3,), "goal velocity")
    g[3:7] = args.floats(goal.rotation, (4,), "goal rotation")
    if not _unit(g[3:7]):
        raise InvalidError("a goal rotation not of length 1")
    for k, value, what in ((7, goal.position_half_life, "position half-life"),
                           (8, goal.rotation_half_life, "rotation half-life")):
        h = args.finite32(value, what)
        if h < 0:
            raise InvalidError(f"{what} {h} is negative")
        g[k] = h
    return g


def advance(trajectory: Trajectory, goal: TrajectoryGoal, seconds) -> None:
    """maniAdvanceTrajectory: the trajectory moved by `seconds` toward the goal; refused
    (the trajectory unchanged) for a value out of range or a motion past binary32."""
    if not isinstance(trajectory, Trajectory):
        raise InvalidError("trajectory must be a Trajectory")
    g = _goal(goal)
    dt = args.finite32(seconds, "seconds")
    if dt < 0:
        raise InvalidError(f"seconds {dt} is negative")
    _check_state(trajectory.state)
    out = np.empty(16, np.float32)
    with np.errstate(all="ignore"):
        advance_trajectory(jit.array(trajectory.state, np.float32), jit.array(g, np.float32),
                           np.float32(dt), out)
    if not np.isfinite(out).all():
        raise InvalidError("the advance runs past binary32")
    trajectory.state[...] = out


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.cross of two 3-vectors, term for term the same, without its general machinery
    (a controller calls this a few times a frame)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _turn(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    u, w = q[:3], q[3]
    c = 2.0 * _cross(u, v)
    return v + w * c + _cross(u, c)


def trajectory_features(database: MotionDatabase, root: Trajectory,
                        sample: Trajectory) -> tuple[np.ndarray, np.ndarray]:
    """maniMotionDatabase_ComputeTrajectoryFeatures: (position, facing), each 2 binary32
    values on the database's ground plane, in the root's frame."""
    db = opened(database)
    for t, what in ((root, "root"), (sample, "sample")):
        if not isinstance(t, Trajectory):
            raise InvalidError(f"{what} must be a Trajectory")
    r = root.state.astype(np.float64)
    s = sample.state.astype(np.float64)
    inv = r[9:13] * np.array([-1.0, -1.0, -1.0, 1.0])
    forward = np.zeros(3)
    forward[db.forward_axis] = 1.0
    plane = db.ground_axes
    with np.errstate(all="ignore"):
        position = _turn(inv, s[0:3] - r[0:3])[plane]
        facing = _turn(inv, _turn(s[9:13], forward))[plane]
        return (np.clip(position, -_F32_MAX, _F32_MAX).astype(np.float32),
                np.clip(facing, -_F32_MAX, _F32_MAX).astype(np.float32))
