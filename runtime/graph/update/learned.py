"""Pass 1 of the update for learned motion matching nodes: each weighed node steps or
projects its model's state and decompresses it, lane by lane.

The rules, as the spec leaves them to us (Holden's learned motion matching):

- A projection is due on the node's first weighed update (no state yet), once `period`
  seconds have passed since the last (0: every update) and when its trigger is set
  (consumed). The query is the state's first F values (the normalized features the
  Stepper carries; before any state, zeros: the database's means) with each query input's
  parameter normalized by the model's normalization, in binary32, in its channel's place.
  The projected state replaces the state; past the first it is a jump, blended as a motion
  matching node's jump (the inertialize node above, over its own duration or the node's).
- Otherwise the node steps: the step times the time scales above joins the step time not
  yet stepped, and the state takes floor(that x the model's rate) steps, at most
  GRAPH_LEARNED_MAX_STEPS (the rest, when capped, dropped); the remainder waits.
- The state is then decompressed: its pose is kept as the node's cached pose, with the
  state it came from, for the evaluation (which only reads it); its root motion (velocity
  and angular velocity in the root's space, per second) times the step is the node's move
  (reflected beneath an odd number of mirror nodes, as a clip's); an event is listed when
  its state rises above one half (it was not at the last decompression) and the node
  weighs past GRAPH_EVENT_THRESHOLD, with no clip slot (GRAPH_NONE) and time 0.
- A value past the float range (the model's data) in a projection, a step, the
  decompression or the move over the step fails the node: its entries stay as they were
  before this update (its last finite state, or none), it is marked failed and gives no
  move and no events; the other nodes' update completes (the driver then raises
  FormatError with the results).
"""
from __future__ import annotations

import math
import threading

import numpy as np

from ...core.errors import FormatError
from ...core.jit import kernel
from ...learned.model import LearnedOutput
from ...pose.pose import Pose
from .. import motion as gm
from ..limits import GRAPH_EVENT_THRESHOLD, GRAPH_LEARNED_MAX_STEPS, GRAPH_NONE, MAX_GRAPH_SECONDS
from .nodes import TIME_SCALE, inertializer, request_blend, weigh_only

FLOAT_MAX = float(np.finfo(np.float32).max)


@kernel
def _blend_request(S, lane, at, own, duration):
    request_blend(S, lane, at, own, duration)


class LearnedKept:
    """One call's lanes' moves (binary64), root motion weights, events ((clip slot, name,
    time) per lane), whether each failed, and each lane's newly cached pose (None: none)."""

    def __init__(self, m: int):
        self.moves, self.weights = np.zeros((m, 7)), np.zeros(m)
        self.events, self.failed, self.poses = [], np.zeros(m, bool), [None] * m


class _Work:
    """One thread's working memory for a model: the state and query rows, the model's
    scratch and a decompression's outputs."""

    def __init__(self, model, skeleton):
        self.state = np.zeros(model.state_count, np.float32)
        self.query = np.zeros(model.feature_count, np.float32)
        self.scratch = np.zeros(model.scratch_size, np.uint8)
        self.out = LearnedOutput(Pose(skeleton), np.zeros(6, np.float32),
                                 np.zeros(model.float_track_count, np.float32),
                                 np.zeros(model.event_count, np.float32))


def work(run, skeleton, local) -> _Work:
    """This thread's _Work for a run's model."""
    w = getattr(local, "work", None)
    if w is None:
        w = local.work = _Work(run.model, skeleton)
    return w


def root_move(root, dt: float, axis: int):
    """The move of a root velocity and angular velocity over dt seconds (binary64: a
    translation, then the rotation by the angular velocity's vector times dt), or None when
    it passes the float range; reflected across `axis` (>= 0) as update/clips.py reflects a
    clip's."""
    v = root.astype(np.float64)
    t = v[:3] * dt
    a = v[3:] * dt
    if not (np.abs(t) <= FLOAT_MAX).all() or not (np.abs(a) <= FLOAT_MAX).all():
        return None
    angle = math.sqrt(float(a @ a))
    if angle > 0.0:
        s = math.sin(0.5 * angle) / angle
        q = (a[0] * s, a[1] * s, a[2] * s, math.cos(0.5 * angle))
    else:
        q = (0.0, 0.0, 0.0, 1.0)
    out = np.array([t[0], t[1], t[2], *q])
    if axis >= 0:
        for c in range(3):
            if c == axis:
                out[c] = -out[c]
            else:
                out[3 + c] = -out[3 + c]
    return out


class LearnedStep:
    """A learned node's pass 1 step (a function of S, P and the step), keeping for pass 2
    each lane's move, root motion weight and events, and for the instances their cached
    poses."""

    def __init__(self, b, k: int, node):
        self.run = r = b.runs[k]
        self.node, self.base = k, r.base
        self.weigh = weigh_only(b, k, node)
        self.inert_at, self.inert_duration = inertializer(b, k)
        self.skeleton = b.skeleton
        self._local = threading.local()     # each thread's kept and working memory

    def __call__(self, S, P, step):
        self.weigh(S, P, step)
        m = S.shape[0]
        kept = getattr(self._local, "kept", None)
        if kept is None or kept.moves.shape[0] != m:
            kept = self._local.kept = LearnedKept(m)
        kept.moves[:] = gm.IDENTITY
        kept.weights[:] = 0.0
        kept.failed[:] = False
        kept.events = [[] for _ in range(m)]
        kept.poses = [None] * m
        w = work(self.run, self.skeleton, self._local)
        for lane in range(m):
            if S[lane, self.base] > 0.0:
                dt = step * P[TIME_SCALE, lane, self.node]
                self._lane(S, lane, dt if dt > 0.0 else 0.0, kept, w)

    def kept(self) -> LearnedKept:
        """What this thread's last call kept for pass 2."""
        return self._local.kept

    def keep_poses(self, insts) -> None:
        """The cached poses this thread's last call decompressed, into their instances."""
        at = self.run.pose
        for inst, pose in zip(insts, self._local.kept.poses):
            if pose is not None:
                inst.poses[at] = pose

    def _lane(self, S, lane: int, dt: float, kept: LearnedKept, w: _Work) -> None:
        r = self.run
        m, d = r.model, r.data
        row = S[lane]
        first, end = r.has, r.cache_state + m.state_count
        before = row[first:end].copy()
        had = bool(row[r.has])
        since = min(row[r.since] + dt, MAX_GRAPH_SECONDS)
        due = not had or since >= d.period
        if r.trigger >= 0 and row[r.trigger] != 0.0:
            row[r.trigger] = 0.0
            due = True
        n = m.state_count
        state = w.state
        state[:] = row[r.state:r.state + n]
        try:
            if due:
                q = w.query
                q[:] = state[:m.feature_count] if had else 0.0
                for at, width, p in r.query:
                    q[at:at + width] = (row[p:p + width] - r.offsets[at:at + width]) / r.scales[at:at + width]
                m.project(d.projector, q, state, w.scratch)
                since, left = 0.0, 0.0
            else:
                left = min(row[r.due] + dt, MAX_GRAPH_SECONDS)
                steps = int(min(math.floor(left * m.rate), GRAPH_LEARNED_MAX_STEPS))
                for _ in range(steps):
                    m.step(state, w.scratch)
                left = 0.0 if steps == GRAPH_LEARNED_MAX_STEPS else max(left - steps / m.rate, 0.0)
            m.decompress(state, w.out, w.scratch)
            move = root_move(w.out.root_motion, dt, r.node_axis)
            if move is None:
                raise FormatError("the root velocity's move over the step passes the float range", 0)
        except FormatError:
            row[first:end] = before
            row[r.failed] = 1.0
            kept.failed[lane] = True
            return
        if due and had:
            _blend_request(S, lane, self.inert_at, self.inert_duration, float(d.duration))
        row[r.has], row[r.since], row[r.due], row[r.failed], row[r.cached] = 1.0, since, left, 0.0, 1.0
        row[r.state:r.state + n] = state
        row[r.cache_state:r.cache_state + n] = state
        kept.poses[lane] = w.out.pose.locals.copy()
        above = w.out.events > 0.5
        listed = [(GRAPH_NONE, r.event_names[e], 0.0) for e in np.flatnonzero(above).tolist()
                  if not row[r.above + e]]
        row[r.above:r.above + above.size] = above
        if listed and row[self.base] > GRAPH_EVENT_THRESHOLD:
            kept.events[lane] = listed
        if row[self.base + 1] > 0.0:
            kept.moves[lane] = move
            kept.weights[lane] = row[self.base + 1]


def make_learned(b, k, node):
    return LearnedStep(b, k, node)
