"""Where each number of an instance's state lives, worked out once per graph.

An instance's state is two arrays in its buffer: its scalars S, binary64 (the update count,
the parameters, each node's weights and kind state), and its poses A, binary32 (pose
parameters' locals and inertialization poses). Every entry of S has a range it must lie in, and whether
it is whole, so a restore checks a saved state with three numpy calls and blames the first
entry out of range by its byte.

S, in order:
    0  update count (whole; 0: never updated)      1  the last update's delta
    parameters, four each: bool, trigger, int, float in the first; vectors and quaternions
    across; a pose parameter's first is 1 once set
    per node: weight, root motion weight, then by kind:
      clip           playhead
      blend, spaces  each input's share
      additive       the layer's weight
      select         the selected input
      state_machine  chain length L, time in the current state, finished, the chain's
                     states (limit + 1), its transitions (limit), their fades' elapsed times
                     (limit), each transition's remaining cooldown, each event condition's
                     latch, each state's share
      one_shot       playing, time since start, weight at start, fading out, fade-out
                     elapsed, weight at fade-out, shot weight
      inertialize    active, pending, time since the switch, duration, stamp (the update
                     count its last output was kept at), has last, has previous, the step
                     between them, offsets captured, the last update's step
      springs        the seconds due (the updates' deltas since its last evaluation), then
                     its spring state's values (physics/kernels.py lays them out)
      motion_match   playing, entry, clip time, time since its last search, picks kept,
                     then the picks (frames, the newest first; history count of them)
      learned_match  has a state, time since its last projection, step time not yet
                     stepped, failed, cache valid, then per model event whether its state
                     was above one half, the state (the model's state count), and the state
                     the cached pose was decompressed at
A, in order (in node order after the pose parameters'): each pose parameter's (n, 10) locals;
each inertialize node's last output, previous output, captured pose (the offset for
inertialization, the source for dead blending) and captured velocity, (n, 10) each; each
learned node's cached pose (its model decompressed at the cached state).
"""
from __future__ import annotations

import numpy as np

from .limits import MAX_GRAPH_SECONDS, MAX_GRAPH_TIME_FACTOR
from .source import ConditionKind, NodeKind, ParameterType

HEAD = 2
UNBOUNDED = 3.4e38          # a float parameter without bounds: binary32's range
BIG = 1.0e15                # update counts and such: whole numbers binary64 holds exactly


class Layout:
    """Offsets into S and A, and the ranges of S's entries."""

    def __init__(self, graph, spring_values=None, learned_values=None):
        """spring_values: each springs node's count of state values (its bound set's);
        learned_values: each learned node's (state count, event count) (its bound model's)."""
        self.spring_values = spring_values or {}
        self.learned_values = learned_values or {}
        self.lo: list[float] = [0.0, -UNBOUNDED]
        self.hi: list[float] = [BIG, UNBOUNDED]
        self.whole: list[bool] = [True, False]
        self.parameters = len(self.lo)
        self.pose_parameters = {}
        poses = 0
        for k, p in enumerate(graph.parameters):
            t = p.type
            if t in (ParameterType.bool_, ParameterType.trigger):
                self._add((0, 1, True), (0, 0, True), (0, 0, True), (0, 0, True))
            elif t == ParameterType.int_:
                lo, hi = p.bounds if p.bounds else (-(2.0 ** 31), 2.0 ** 31 - 1)
                self._add((lo, hi, True), (0, 0, True), (0, 0, True), (0, 0, True))
            elif t == ParameterType.float_:
                lo, hi = p.bounds if p.bounds else (-UNBOUNDED, UNBOUNDED)
                self._add((lo, hi, False), (0, 0, True), (0, 0, True), (0, 0, True))
            elif t == ParameterType.pose:
                self._add((0, 1, True), (0, 0, True), (0, 0, True), (0, 0, True))
                self.pose_parameters[k] = poses
                poses += 1
            else:
                width = {ParameterType.vector2: 2, ParameterType.vector3: 3}.get(t, 4)
                bound = 1.0 if t == ParameterType.quaternion else UNBOUNDED
                self._add(*([(-bound, bound, False)] * width + [(0, 0, True)] * (4 - width)))
        self.nodes = []
        self.inertial_poses = {}
        self.learned_poses = {}
        for k, node in enumerate(graph.nodes):
            self.nodes.append(len(self.lo))
            self._add((0, 1, False), (0, 1, False))
            self._k = k
            self._kind(node)
            if node.kind == NodeKind.inertialize:
                self.inertial_poses[k] = poses
                poses += 4
            elif node.kind == NodeKind.learned_motion_matching:
                self.learned_poses[k] = poses
                poses += 1
        self.size = len(self.lo)
        self.pose_count = poses
        self.lo_array = np.array(self.lo)
        self.hi_array = np.array(self.hi)
        self.whole_array = np.array(self.whole)

    def _add(self, *entries) -> None:
        for lo, hi, whole in entries:
            self.lo.append(float(lo))
            self.hi.append(float(hi))
            self.whole.append(bool(whole))

    def _kind(self, node) -> None:
        kind, d, k = node.kind, node.data, len(node.inputs)
        if kind == NodeKind.clip:
            self._add((0, MAX_GRAPH_SECONDS, False))       # narrowed to the clip at bind
        elif kind in (NodeKind.blend, NodeKind.blend_1d, NodeKind.blend_2d_banded,
                      NodeKind.blend_2d_triangulated):
            self._add(*[(0, 1, False)] * k)
        elif kind == NodeKind.additive:
            self._add((0, 1, False))
        elif kind == NodeKind.select:
            self._add((0, k - 1, True))
        elif kind == NodeKind.state_machine:
            limit = d.chain_limit
            t = len(d.transitions)
            latches = sum(1 for tr in d.transitions for c in tr.conditions
                          if c.kind == ConditionKind.event)
            self._add((0, limit, True), (0, MAX_GRAPH_SECONDS, False), (0, 1, True))
            self._add(*[(0, k - 1, True)] * (limit + 1))
            self._add(*[(0, max(t - 1, 0), True)] * limit)
            self._add(*[(0, MAX_GRAPH_SECONDS, False)] * limit)
            self._add(*[(0, MAX_GRAPH_SECONDS, False)] * t)
            self._add(*[(0, 1, True)] * latches)
            self._add(*[(0, 1, False)] * k)
        elif kind == NodeKind.one_shot:
            S = MAX_GRAPH_SECONDS
            self._add((0, 1, True), (0, S, False), (0, 1, False), (0, 1, True), (0, S, False),
                      (0, 1, False), (0, 1, False))
        elif kind == NodeKind.springs:
            self._add((0, MAX_GRAPH_SECONDS, False))
            self._add(*[(-UNBOUNDED, UNBOUNDED, False)] * self.spring_values[self._k])
        elif kind == NodeKind.motion_matching:         # entries, times, frames narrowed at bind
            S, n = MAX_GRAPH_SECONDS, d.history_count
            self._add((0, 1, True), (0, BIG, True), (0, S, False), (0, S, False), (0, n, True))
            self._add(*[(0, BIG, True)] * n)
        elif kind == NodeKind.learned_motion_matching:
            S, (n, events) = MAX_GRAPH_SECONDS, self.learned_values.get(self._k, (0, 0))
            self._add((0, 1, True), (0, S, False), (0, S, False), (0, 1, True), (0, 1, True))
            self._add(*[(0, 1, True)] * events)
            self._add(*[(-UNBOUNDED, UNBOUNDED, False)] * (2 * n))
        elif kind == NodeKind.inertialize:
            S = MAX_GRAPH_SECONDS
            F = S * MAX_GRAPH_TIME_FACTOR
            self._add((0, 1, True), (0, 1, True), (0, S, False), (0, S, False), (0, BIG, True),
                      (0, 1, True), (0, 1, True), (0, F, False), (0, 1, True), (0, F, False))


def machine_offsets(base: int, limit: int, transitions: int, latches: int, states: int) -> dict:
    """Where a machine's entries start, past its weight and root weight."""
    at = base + 2
    out = {"length": at, "time": at + 1, "finished": at + 2, "states": at + 3}
    out["transitions"] = out["states"] + limit + 1
    out["elapsed"] = out["transitions"] + limit
    out["cooldowns"] = out["elapsed"] + limit
    out["latches"] = out["cooldowns"] + transitions
    out["shares"] = out["latches"] + latches
    out["end"] = out["shares"] + states
    return out
