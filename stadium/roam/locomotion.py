"""The trainer's locomotion by motion matching, after Daniel Holden's Motion-Matching: a
simulated root pulled by critically damped springs toward the keys' velocity and facing
(the desired trajectory), and the trainer's graph: a motion-matching node over the
database of the clips baked onto the trainer (roam.motion) under an inertialize node. The
node searches every `period` seconds and at an entry's end, and when the trigger is set
(here: as soon as the keys change sharply), from the playing frame's features with the
desired trajectory's in their places; the inertialize node blends its switches. The
character is carried by the playing clip's root motion (the graph's) and nudged toward
the simulated root.

Everything is in the trainer's centimetres on its ground plane; the scene scales the root
into the world by the trainer's scale.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import runtime as rt
from runtime.graph.source import (AssetSlotSource, ClipSlotSource, GraphSource, InertializeNode,
                                  LearnedMotionMatchingNode, MatchQueryInput, MotionMatchingNode,
                                  ParameterSource, ParameterType, SelectNode)
from runtime.samples.mocap import FUTURE

from .motion import RoamMotion

LN2 = math.log(2.0)


@dataclass
class Settings:
    """The controller's constants (Holden's names where he has one)."""

    period: float = 0.1                  # seconds between searches (search_time)
    sharp_change: float = 30.0           # cm/s of goal velocity change that searches at once
    velocity_half_life: float = 0.27     # the simulated root's springs (simulation_*_halflife)
    rotation_half_life: float = 0.27
    inertialize_duration: float = 0.3    # the inertialize node's blend of a switch
    adjust_half_life: float = 0.2        # the character pulled toward the simulation
    adjust_ratio: float = 0.3            # ... by at most this share of its own motion a step
    transition_cost: float = 0.0
    continuing_bias: float = -0.3        # a preference for going on as it plays
    end_exclusion: float = 0.3           # no jump into an entry's last 0.3 s
    history_time: float = 0.3            # nor back into an entry near a recent pick
    history: int = 8                     # picks remembered


def yaw_quat(yaw: float) -> np.ndarray:
    return np.array([0.0, math.sin(yaw / 2), 0.0, math.cos(yaw / 2)])


def quat_yaw(q) -> float:
    """The heading (about +y, 0 facing +z) of a turn about +y (the roots' only turn)."""
    return 2.0 * math.atan2(float(q[1]), float(q[3]))


def turn_y(yaw: float, v) -> np.ndarray:
    """Ground vector (x, z) turned by `yaw` about +y."""
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([c * v[0] + s * v[1], c * v[1] - s * v[0]])


def no_walls(start, end):
    return end


TRAJECTORY_CHANNELS = (5, 6)        # roam.motion.trainer_channels: positions, facings


DRIVERS = ("database", "learned")        # what drives the trainer: the node it selects


def query_inputs() -> list:
    """The query both nodes make: the desired trajectory's positions and facings at FUTURE
    (parameters 0 .. 2n-1) in the database's trajectory channels."""
    n = len(FUTURE)
    return [MatchQueryInput(TRAJECTORY_CHANNELS[0], k, k) for k in range(n)] + \
        [MatchQueryInput(TRAJECTORY_CHANNELS[1], n + k, k) for k in range(n)]


def graph_source(motion: RoamMotion, settings: Settings, model=None) -> GraphSource:
    """The trainer's graph: its motion-matching node over the database slot, the desired
    trajectory's positions and facings at FUTURE as vector2 parameters, a search trigger,
    the inertialize node above. With a learned model: a learned node over its slot beside
    the motion-matching node, its own trigger, and a select between the two by the int
    parameter `driver` (DRIVERS), under the same inertialize node, which blends a switch
    of driver as it blends a jump."""
    n = len(FUTURE)
    params = [ParameterSource(f"position_{k}", ParameterType.vector2) for k in range(n)] + \
        [ParameterSource(f"facing_{k}", ParameterType.vector2, (0.0, 1.0)) for k in range(n)] + \
        [ParameterSource("search", ParameterType.trigger)]
    s = settings
    nodes = [MotionMatchingNode(0, query=query_inputs(), trigger=2 * n, period=s.period,
                                end_exclusion=s.end_exclusion, history_time=s.history_time,
                                history_count=s.history, continuing_bias=s.continuing_bias,
                                transition_cost=s.transition_cost)]
    models = []
    if model is not None:
        params += [ParameterSource("project", ParameterType.trigger),
                   ParameterSource("driver", ParameterType.int_, 0, 0, 1)]
        nodes += [LearnedMotionMatchingNode(0, 0, query_inputs(), trigger=2 * n + 1,
                                            period=s.period),
                  SelectNode(2 * n + 2, [0, 1])]
        models = [AssetSlotSource("learned", model)]
    nodes.append(InertializeNode(len(nodes) - 1, duration=s.inertialize_duration))
    slots = [ClipSlotSource(name, clip) for name, clip in zip(motion.staged.names, motion.baked)]
    return GraphSource(motion.trainer, nodes, len(nodes) - 1, params, slots,
                       databases=[AssetSlotSource("locomotion", motion.database,
                                                  clips=tuple(range(len(slots))))],
                       models=models, mirror_map=motion.mirror)


class Locomotion:
    """One character: its root (position on the ground, yaw), the simulated root, the
    trainer's graph instance and its pose.

    `step(velocity, dt, slide)`: velocity the desired ground velocity (x, z) in cm/s;
    `slide(start, end)` the walls (where a move from start toward end ends, both (x, z)).
    """

    def __init__(self, motion: RoamMotion, position=(0.0, 0.0), yaw: float = 0.0,
                 settings: Settings | None = None, model=None, driver: str = "database"):
        self.motion = motion
        self.model = model
        self.settings = settings or Settings()
        db = self.database = motion.database
        entries = [db.entry(e) for e in range(db.entry_count)]
        spans = np.array([db.entry_frames(e) for e in range(db.entry_count)], np.int64)
        self.entry_first, self.entry_frames = spans[:, 0], spans[:, 1]
        self.entry_start = np.array([e.start for e in entries])
        self.entry_clip = np.array([e.clip for e in entries], np.int64)
        self.entry_mirrored = np.array([bool(e.flags & rt.MatchEntryFlag.mirrored) for e in entries])
        self.trainer = motion.trainer
        graph = rt.Graph(rt.build_graph(rt.Builder(), graph_source(motion, self.settings, model)))
        self.graph = rt.GraphInstance(rt.GraphBinding(graph, rt.GraphAssets(
            motion.trainer, list(motion.baked), databases=[db],
            models=[] if model is None else [model], mirror_map=motion.mirror)))
        layout = self.graph.binding.layout
        self._node = layout.nodes[0] + 2      # playing, entry, time, ...
        # the learned node's has, since, ... and its state (graph/learned.LearnedRun)
        self._learned = None if model is None else layout.nodes[1] + 2
        self.driver = "database"
        if driver != "database":
            self.set_driver(driver)
        self.pose = rt.Pose(self.trainer)
        rotation = yaw_quat(yaw)
        self.root = rt.Trajectory(position=(position[0], 0.0, position[1]), rotation=rotation)
        self.simulation = rt.Trajectory(position=(position[0], 0.0, position[1]), rotation=rotation)
        self.goal = rt.TrajectoryGoal((0.0, 0.0, 0.0), rotation, self.settings.velocity_half_life,
                                      self.settings.rotation_half_life)
        self.predicted = np.zeros((len(FUTURE), 2))       # the simulation's future, (x, z)
        self.trajectory = np.zeros(4 * len(FUTURE), np.float32)   # its features, the query's
        self._ahead = [rt.Trajectory() for _ in FUTURE]
        self.jumps = 0
        self.searched_goal = np.zeros(2)
        self.step_move = np.zeros(2)            # the root's last move, cm
        self.jumped = False                     # the last step switched frames
        self.entry, self.time = 0, 0.0
        self._predict()
        self._play(0.0)
        self.jumps = 0

    # ------------------------------------------------------------ the database's frames

    def _frame_at(self, entry: int, time: float) -> int:
        f = int(np.floor((time - self.entry_start[entry]) * self.database.rate + 0.5))
        return int(self.entry_first[entry]) + min(max(f, 0), int(self.entry_frames[entry]) - 1)

    @property
    def frame(self) -> int:
        return self._frame_at(self.entry, self.time)

    # ------------------------------------------------------------ the driver

    def set_driver(self, driver: str) -> None:
        """Drive by the database (the motion-matching node) or the learned model: the
        select's switch, blended by the inertialize node; the node taking over searches or
        projects at once from the query (it did not play while the other drove)."""
        if driver not in DRIVERS or (driver == "learned" and self.model is None):
            raise ValueError(f"no {driver!r} driver here")
        if driver == self.driver:
            return
        n = len(FUTURE)
        self.driver = driver
        self.graph.set_parameter(2 * n + 2, ParameterType.int_, DRIVERS.index(driver))
        self._trigger()

    @property
    def driver_name(self) -> str:
        return "motion database" if self.driver == "database" else "learned model"

    def switch_driver(self) -> None:
        """The other driver (no-op without a model)."""
        if self.model is not None:
            self.set_driver(DRIVERS[1 - DRIVERS.index(self.driver)])

    def _trigger(self) -> None:
        """A search (or a projection) at the next update, by the driving node."""
        n = len(FUTURE)
        self.graph.set_parameter(2 * n + (self.driver == "learned"), ParameterType.trigger, True)

    def learned_state(self) -> np.ndarray | None:
        """The learned node's state (its first feature_count values the features it plays),
        None without a model or before its first projection."""
        if self._learned is None or not self.graph.scalars[self._learned]:
            return None
        at = self._learned + 5 + self.model.event_count
        return self.graph.scalars[at:at + self.model.state_count]

    # ------------------------------------------------------------ one step

    def set_goal(self, velocity) -> None:
        """The desired ground velocity (x, z), cm/s; facing the way it goes (kept when 0)."""
        v = np.asarray(velocity, np.float64)
        self.goal.velocity = (float(v[0]), 0.0, float(v[1]))
        if np.hypot(v[0], v[1]) > 1e-3:
            self.goal.rotation = tuple(yaw_quat(math.atan2(v[0], v[1])))

    def step(self, velocity, dt: float, slide=no_walls) -> None:
        self.set_goal(velocity)
        self._advance_simulation(dt, slide)
        self._predict()
        goal = np.array([self.goal.velocity[0], self.goal.velocity[2]])
        if np.linalg.norm(goal - self.searched_goal) > self.settings.sharp_change:
            self._trigger()
            self.searched_goal = goal
        move = self._play(dt)
        self._root_motion(move, slide, dt)

    def _play(self, dt: float) -> np.ndarray:
        """The graph's update and evaluation; its root move (whether its node jumped in
        `jumped`)."""
        g, n = self.graph, len(FUTURE)
        for k in range(2 * n):
            g.set_parameter(k, ParameterType.vector2, self.trajectory[2 * k:2 * k + 2])
        before = (self.entry, self.time)
        had = self._learned is not None and bool(g.scalars[self._learned])
        _, _, move = g.update(dt)
        g.evaluate(self.pose)
        self.pose.compute_model(self.trainer)
        if self.driver == "learned":       # a projection past the first: since back to 0
            self.jumped = had and float(g.scalars[self._learned + 1]) == 0.0
        else:
            self.entry, self.time = int(g.scalars[self._node + 1]), float(g.scalars[self._node + 2])
            end = self.database.entry(before[0]).end
            on = min(before[1] + dt, end)
            self.jumped = self.entry != before[0] or abs(self.time - on) > 1e-4
        self.jumps += self.jumped
        return np.asarray(move, np.float64)

    def _advance_simulation(self, dt: float, slide) -> None:
        sim = self.simulation
        before = sim.position[[0, 2]].astype(np.float64)
        rt.advance_trajectory(sim, self.goal, dt)
        after = sim.position[[0, 2]].astype(np.float64)
        ended = np.asarray(slide(before, after), np.float64)
        if ended[0] != after[0] or ended[1] != after[1]:          # a wall took some of it
            sim.position[[0, 2]] = ended
            sim.velocity[[0, 2]] *= np.abs(ended - before) >= np.abs(after - before) - 1e-6
            sim.acceleration[...] = 0.0

    def _predict(self) -> None:
        """The simulation FUTURE seconds on, and the query's trajectory features of it, in
        the character's root frame (positions, then facings, as the database's channels)."""
        db, n = self.database, len(FUTURE)
        for k, t in enumerate(FUTURE):
            ahead = self._ahead[k]
            ahead.state[...] = self.simulation.state
            rt.advance_trajectory(ahead, self.goal, t)
            self.predicted[k] = ahead.position[[0, 2]]
            p, d = rt.trajectory_features(db, self.root, ahead)
            self.trajectory[2 * k:2 * k + 2] = p
            self.trajectory[2 * (n + k):2 * (n + k) + 2] = d

    def _root_motion(self, move: np.ndarray, slide, dt: float) -> None:
        """The graph's move from the character's root, then the pull toward the simulation,
        then the walls."""
        s = self.settings
        root = self.root
        start = root.position[[0, 2]].astype(np.float64)
        yaw = quat_yaw(root.rotation)
        delta = turn_y(yaw, move[[0, 2]])
        # the pull toward the simulation, at most adjust_ratio of the clip's own move
        k = 1.0 - math.exp(-LN2 * dt / s.adjust_half_life)
        pull = (self.simulation.position[[0, 2]] - (start + delta)) * k
        most = s.adjust_ratio * np.linalg.norm(delta)
        length = np.linalg.norm(pull)
        if length > most:
            pull *= most / length
        turn = quat_yaw(move[3:7])
        yaw += turn
        gap = math.remainder(quat_yaw(self.simulation.rotation) - yaw, 2 * math.pi) * k
        most_turn = s.adjust_ratio * (abs(turn) + np.linalg.norm(delta) / 100.0)
        yaw += max(-most_turn, min(most_turn, gap))
        end = np.asarray(slide(start, start + delta + pull), np.float64)
        self.step_move = end - start
        root.velocity[[0, 2]] = self.step_move / dt
        root.position[[0, 2]] = end
        root.rotation[...] = yaw_quat(yaw)

    # ------------------------------------------------------------ what the scene reads

    @property
    def position(self) -> np.ndarray:
        """(x, z), cm of the trainer's ground."""
        return self.root.position[[0, 2]].astype(np.float64)

    @property
    def yaw(self) -> float:
        return quat_yaw(self.root.rotation)

    def state_digest(self) -> bytes:
        return b"".join(a.tobytes() for a in (self.root.state, self.simulation.state,
                                              self.pose.locals, self.graph.scalars)) + \
            np.array([self.jumps], np.int64).tobytes()
