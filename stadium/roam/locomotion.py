"""The trainer's locomotion by motion matching, after Daniel Holden's Motion-Matching: a
simulated root pulled by critically damped springs toward the keys' velocity and facing
(the desired trajectory), a search of the database every PERIOD seconds or as soon as the
keys change sharply, the switch to the frame found inertialized (the offsets between the
pose playing and the one found decayed by a critically damped spring, every bone at once),
the character carried by the clip's own root motion and nudged toward the simulated root.

Everything is in the mocap's ground plane and centimetres, the units the database's
features are measured in; the scene scales the root into the world (RoamMotion's
stride_scale, then the trainer's scale). The pose is the trainer's: the matched clip baked
onto its skeleton (roam.motion).

At an entry's end there is no continuing frame: the search jumps, wherever the keys
want to go (the staged clips neither start nor end standing: a trainer who stops finds the
database's idle, roam.motion).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import runtime as rt
from runtime.clip.rootmotion import get_root_motion
from runtime.core.transform import quat_conj, quat_mul
from runtime.matching.limits import NO_FRAME
from runtime.samples.mocap import FUTURE

from .motion import RoamMotion

LN2 = math.log(2.0)


@dataclass
class Settings:
    """The controller's constants (Holden's names where he has one)."""

    period: float = 0.1                  # seconds between searches (search_time)
    sharp_change: float = 60.0           # cm/s of goal velocity change that searches at once
    velocity_half_life: float = 0.27     # the simulated root's springs (simulation_*_halflife)
    rotation_half_life: float = 0.27
    inertialize_half_life: float = 0.1   # the switch's offsets (inertialize_blending_halflife)
    adjust_half_life: float = 0.2        # the character pulled toward the simulation
    adjust_ratio: float = 0.3            # ... by at most this share of its own motion a step
    transition_cost: float = 0.0
    continuing_bias: float = -0.3        # a preference for going on as it plays
    end_exclusion: float = 0.3           # no jump into an entry's last 0.3 s
    history_time: float = 0.3            # nor back into an entry near a recent pick
    history: int = 8                     # picks remembered


def spring_decay(x: np.ndarray, v: np.ndarray, half_life: float, dt: float) -> None:
    """Holden's decay_spring_damper_exact, in place: a critically damped spring taking
    (x, v) toward 0 over dt."""
    y = 2.0 * LN2 / half_life          # half the damping
    j1 = v + x * y
    e = math.exp(-y * dt)
    x[...] = e * (x + j1 * dt)
    v[...] = e * (v - j1 * y * dt)


def quat_log2(q: np.ndarray) -> np.ndarray:
    """(..., 4) unit quaternions to scaled angle-axis vectors (angle times axis), the
    shorter way."""
    q = np.where(q[..., 3:4] < 0, -q, q)
    s = np.linalg.norm(q[..., :3], axis=-1, keepdims=True)
    angle = 2.0 * np.arctan2(s, q[..., 3:4])
    with np.errstate(invalid="ignore", divide="ignore"):
        k = np.where(s > 1e-12, angle / np.maximum(s, 1e-300), 2.0)
    return q[..., :3] * k


def quat_exp2(v: np.ndarray) -> np.ndarray:
    """The inverse of quat_log2."""
    angle = np.linalg.norm(v, axis=-1, keepdims=True)
    half = 0.5 * angle
    with np.errstate(invalid="ignore", divide="ignore"):
        k = np.where(angle > 1e-12, np.sin(half) / np.maximum(angle, 1e-300), 0.5)
    return np.concatenate([v * k, np.cos(half)], axis=-1)


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


class Locomotion:
    """One character: its root (position on the ground, yaw), the simulated root, the entry
    and time playing, the inertializer's offsets, and the trainer's pose.

    `step(velocity, dt, slide)`: velocity the desired ground velocity (x, z) in cm/s;
    `slide(start, end)` the walls (where a move from start toward end ends, both (x, z)).
    """

    def __init__(self, motion: RoamMotion, position=(0.0, 0.0), yaw: float = 0.0,
                 settings: Settings | None = None):
        self.motion = motion
        self.settings = settings or Settings()
        db = self.database = motion.database
        entries = [db.entry(e) for e in range(db.entry_count)]
        spans = np.array([db.entry_frames(e) for e in range(db.entry_count)], np.int64)
        self.entry_first, self.entry_frames = spans[:, 0], spans[:, 1]
        self.entry_start = np.array([e.start for e in entries])
        self.entry_clip = np.array([e.clip for e in entries], np.int64)
        self.entry_mirrored = np.array([bool(e.flags & rt.MatchEntryFlag.mirrored) for e in entries])
        self.trainer = motion.trainer
        n = self.trainer.bone_count
        self.pose = rt.Pose(self.trainer)
        self._sample = rt.Pose(self.trainer)
        self.offset_x = np.zeros((n, 3))
        self.offset_v = np.zeros((n, 3))
        self.offset_r = np.zeros((n, 3))         # scaled angle-axis
        self.offset_w = np.zeros((n, 3))
        self._raw = np.zeros((n, 10))
        self._raw_prev = np.zeros((n, 10))
        rotation = yaw_quat(yaw)
        self.root = rt.Trajectory(position=(position[0], 0.0, position[1]), rotation=rotation)
        self.simulation = rt.Trajectory(position=(position[0], 0.0, position[1]), rotation=rotation)
        self.goal = rt.TrajectoryGoal((0.0, 0.0, 0.0), rotation, self.settings.velocity_half_life,
                                      self.settings.rotation_half_life)
        self.predicted = np.zeros((len(FUTURE), 2))       # the simulation's future, (x, z)
        self._ahead = [rt.Trajectory() for _ in FUTURE]
        self.query = rt.MatchQuery(np.zeros(db.feature_count, np.float32))
        self.result = rt.MatchResult()
        self.picks: list[int] = []
        self.jumps = 0
        self.searches = 0
        self.since_search = math.inf
        self.searched_goal = np.zeros(2)
        self.step_move = np.zeros(2)            # the root's last move, cm
        self.jumped = False                     # the last step's search switched frames
        idle = self._standing_frame()
        self.entry = int(db.frame_entry[idle])
        self.time = float(db.frame_time[idle])
        self.frame = idle
        self._sample_raw(self._raw)
        self._raw_prev[...] = self._raw
        self._write_pose()

    # ------------------------------------------------------------ the database's frames

    def _standing_frame(self) -> int:
        """Where to start: the first frame of the entry whose hips move least there (the
        idle's)."""
        db = self.database
        hips = db.channel_first_feature(4)            # holden_channels: the hips' velocity
        raw = [db.frame_features(int(f))[hips:hips + 3] * db.scales[hips:hips + 3]
               + db.offsets[hips:hips + 3] for f in self.entry_first]
        return int(self.entry_first[int(np.argmin([np.linalg.norm(r) for r in raw]))])

    def _frame_at(self, entry: int, time: float) -> int:
        f = int(round((time - self.entry_start[entry]) * self.database.rate))
        return int(self.entry_first[entry]) + min(max(f, 0), int(self.entry_frames[entry]) - 1)

    def _clip(self, entry: int) -> rt.Clip:
        return self.motion.baked[self.entry_clip[entry]][int(self.entry_mirrored[entry])]

    def _sample_raw(self, out: np.ndarray, entry: int | None = None, time: float | None = None) -> None:
        entry = self.entry if entry is None else entry
        time = self.time if time is None else time
        self._clip(entry).sample(self.trainer, time, self._sample)
        out[...] = self._sample.locals

    # ------------------------------------------------------------ one step

    def set_goal(self, velocity) -> None:
        """The desired ground velocity (x, z), cm/s; facing the way it goes (kept when 0)."""
        v = np.asarray(velocity, np.float64)
        self.goal.velocity = (float(v[0]), 0.0, float(v[1]))
        if np.hypot(v[0], v[1]) > 1e-3:
            self.goal.rotation = tuple(yaw_quat(math.atan2(v[0], v[1])))

    def step(self, velocity, dt: float, slide=no_walls) -> None:
        s = self.settings
        self.set_goal(velocity)
        self._advance_simulation(dt, slide)
        self._predict()
        goal = np.array([self.goal.velocity[0], self.goal.velocity[2]])
        ending = self.time + dt > self._entry_end(self.entry) + 1e-6
        continuing = NO_FRAME if ending else self._frame_at(self.entry, self.time + dt)
        self.jumped = False
        sharp = np.linalg.norm(goal - self.searched_goal) > s.sharp_change
        if self.since_search >= s.period - 1e-9 or sharp or ending:
            self._search(continuing, goal)
        if self.jumped:
            # the frame found is shown this step: the root moves as that frame moves
            start = max(self.time - dt, float(self.entry_start[self.entry]))
            self._root_motion(start, self.time - start, slide, dt)
        else:
            end = min(self.time + dt, self._entry_end(self.entry))
            self._root_motion(self.time, end - self.time, slide, dt)
            self.time = end
        self.frame = self._frame_at(self.entry, self.time)
        self.since_search += dt
        if not self.jumped:             # a switch sampled both already
            self._raw_prev[...] = self._raw
            self._sample_raw(self._raw)
        for x, v in ((self.offset_x, self.offset_v), (self.offset_r, self.offset_w)):
            spring_decay(x, v, s.inertialize_half_life, dt)
        self._write_pose()

    def _entry_end(self, entry: int) -> float:
        return float(self.database.frame_time[self._last_frame(entry)])

    def _last_frame(self, entry: int) -> int:
        return int(self.entry_first[entry] + self.entry_frames[entry] - 1)

    def _advance_simulation(self, dt: float, slide) -> None:
        sim = self.simulation
        before = sim.position[[0, 2]].astype(np.float64)
        rt.advance_trajectory(sim, self.goal, dt)
        after = sim.position[[0, 2]].astype(np.float64)
        ended = np.asarray(slide(before, after), np.float64)
        if not np.allclose(ended, after):
            sim.position[[0, 2]] = ended
            sim.velocity[[0, 2]] *= np.abs(ended - before) >= np.abs(after - before) - 1e-6
            sim.acceleration[...] = 0.0

    def _predict(self) -> None:
        """The simulation FUTURE seconds on, and the query's trajectory features of it, in
        the character's root frame."""
        db = self.database
        width = 4 * len(FUTURE)
        positions, facings = [], []
        for k, t in enumerate(FUTURE):
            ahead = self._ahead[k]
            ahead.state[...] = self.simulation.state
            rt.advance_trajectory(ahead, self.goal, t)
            self.predicted[k] = ahead.position[[0, 2]]
            p, d = rt.trajectory_features(db, self.root, ahead)
            positions.append(p)
            facings.append(d)
        self.query.features[db.feature_count - width:] = np.concatenate(positions + facings)

    def _search(self, continuing: int, goal: np.ndarray) -> None:
        s, db, q = self.settings, self.database, self.query
        width = 4 * len(FUTURE)
        now = self.frame if continuing == NO_FRAME else continuing
        pose = db.frame_features(now).astype(np.float64) * db.scales + db.offsets
        q.features[:db.feature_count - width] = pose[:db.feature_count - width]
        q.continuing_frame = continuing
        q.continuing_bias, q.transition_cost = s.continuing_bias, s.transition_cost
        q.end_exclusion, q.history_time = s.end_exclusion, s.history_time
        q.picks = self.picks
        rt.search_motion_database(db, q, out=self.result)
        self.searches += 1
        self.since_search = 0.0
        self.searched_goal = goal
        r = self.result
        if r.frame == NO_FRAME or r.continuing:
            return
        self.jumps += 1
        self.picks = (self.picks + [r.frame])[-s.history:]
        self._transition(int(r.entry), float(r.time))
        self.frame = r.frame
        self.jumped = True

    def _transition(self, entry: int, time: float) -> None:
        """Holden's inertialize_pose_transition: the offsets take what the pose shown and
        its velocity were, less the new clip's, so the output goes on unbroken."""
        dt = 1.0 / self.database.rate
        src, prev = self._raw, self._raw_prev
        dst = np.empty_like(src)
        dst_next = np.empty_like(src)
        self._sample_raw(dst, entry, time)
        self._sample_raw(dst_next, entry, time + dt)
        src_v = (src[:, 0:3] - prev[:, 0:3]) / dt
        dst_v = (dst_next[:, 0:3] - dst[:, 0:3]) / dt
        src_w = quat_log2(quat_mul(src[:, 3:7], quat_conj(prev[:, 3:7]))) / dt
        dst_w = quat_log2(quat_mul(dst_next[:, 3:7], quat_conj(dst[:, 3:7]))) / dt
        self.offset_x = (src[:, 0:3] + self.offset_x) - dst[:, 0:3]
        self.offset_v = (src_v + self.offset_v) - dst_v
        shown = quat_mul(quat_exp2(self.offset_r), src[:, 3:7])
        self.offset_r = quat_log2(quat_mul(shown, quat_conj(dst[:, 3:7])))
        self.offset_w = (src_w + self.offset_w) - dst_w
        self.entry, self.time = entry, time
        self._raw[...] = dst
        self._raw_prev[...] = dst - np.concatenate([dst_v * dt, np.zeros((len(dst), 7))], axis=1)

    def _root_motion(self, time: float, step: float, slide, dt: float) -> None:
        """The clip's move (mirrored for a mirrored entry) from the character's root, then
        the pull toward the simulation, then the walls."""
        s = self.settings
        clip = self.motion.staged.clips[self.entry_clip[self.entry]]
        move = get_root_motion(clip, time, step).astype(np.float64) if step > 0 else \
            np.array([0, 0, 0, 0, 0, 0, 1.0])
        if self.entry_mirrored[self.entry]:
            move = self.motion.staged.mirror_map.mirror_root_motion(move).astype(np.float64)
        root = self.root
        start = root.position[[0, 2]].astype(np.float64)
        delta = turn_y(quat_yaw(root.rotation), move[[0, 2]])
        # the pull toward the simulation, at most adjust_ratio of the clip's own move
        k = 1.0 - math.exp(-LN2 * dt / s.adjust_half_life)
        pull = (self.simulation.position[[0, 2]] - (start + delta)) * k
        most = s.adjust_ratio * np.linalg.norm(delta)
        length = np.linalg.norm(pull)
        if length > most:
            pull *= most / length
        yaw = quat_yaw(root.rotation) + quat_yaw(move[3:7])
        gap = math.remainder(quat_yaw(self.simulation.rotation) - yaw, 2 * math.pi) * k
        most_turn = s.adjust_ratio * abs(2 * math.atan2(move[4], move[6])) + \
            s.adjust_ratio * np.linalg.norm(delta) / 100.0
        yaw += max(-most_turn, min(most_turn, gap))
        end = np.asarray(slide(start, start + delta + pull), np.float64)
        self.step_move = end - start
        root.velocity[[0, 2]] = self.step_move / dt
        root.position[[0, 2]] = end
        root.rotation[...] = yaw_quat(yaw)

    def _write_pose(self) -> None:
        out = self.pose.locals
        out[...] = self._raw
        out[:, 0:3] += self.offset_x
        out[:, 3:7] = quat_mul(quat_exp2(self.offset_r), self._raw[:, 3:7])
        self.pose.compute_model(self.trainer)

    # ------------------------------------------------------------ what the scene reads

    @property
    def position(self) -> np.ndarray:
        """(x, z), cm of the mocap's ground."""
        return self.root.position[[0, 2]].astype(np.float64)

    @property
    def yaw(self) -> float:
        return quat_yaw(self.root.rotation)

    def state_digest(self) -> bytes:
        return b"".join(a.tobytes() for a in (self.root.state, self.simulation.state,
                                              self.pose.locals)) + \
            np.array([self.entry, self.frame, self.jumps], np.int64).tobytes()
