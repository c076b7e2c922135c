"""A swaying tail to try springs with, a scripted motion for it, and VRM's plain per-frame
update as the reference the fixed step is measured against.

The tail hangs off a body on a root the placement swings (side to side and turning) and,
at TELEPORT_AT, moves far away at once; hosts play the motion at any rate (or irregular
deltas) and read the tails at COMMON_TIMES, which every rate's frames land on.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.transform import quat_mul, quat_rotate
from ..physics import JointSource, SpringSetSource, SpringSource, SpringState
from ..pose.pose import Pose
from ..pose.skeleton import BoneSource, SkeletonSource

TAIL_ROOT = 2                   # the tail's first bone
SEGMENT = 0.25                  # each tail segment's length
TELEPORT_AT = 1.0
COMMON_TIMES = [k / 6 for k in range(1, 13)]      # 24, 30, 60, 144 and 240 Hz all land on these
END = COMMON_TIMES[-1]


def tail_skeleton_source(segments: int = 4) -> SkeletonSource:
    """root, body (1 above it), the tail (TAIL_ROOT, then `segments` segments back along -z),
    and a head in front (a place for colliders)."""
    bones = [BoneSource("root"), BoneSource("body", 0, (0.0, 1.0, 0.0)),
             BoneSource("tail0", 1, (0.0, 0.0, -0.3))]
    bones += [BoneSource(f"tail{k}", TAIL_ROOT + k - 1, (0.0, 0.0, -SEGMENT))
              for k in range(1, segments + 1)]
    bones.append(BoneSource("head", 1, (0.0, 0.4, 0.3)))
    return SkeletonSource(bones)


def tail_set_source(skeleton, segments: int = 4, *, stiffness=0.6, gravity=0.4, drag=0.15,
                    center=None, step_rate=120.0, reference_rate=60.0, limit=None,
                    colliders=(), groups=()) -> SpringSetSource:
    joints = [JointSource(TAIL_ROOT + k, 0.02, stiffness, gravity, (0.0, -1.0, 0.0), drag, limit)
              for k in range(segments)]
    joints.append(JointSource(TAIL_ROOT + segments))
    return SpringSetSource(skeleton, [SpringSource("tail", joints, list(range(len(groups))),
                                                   -1 if center is None else center)],
                           list(colliders), [list(g) for g in groups], reference_rate, step_rate)


def _wave(t: float, frequency: float, linear: bool) -> float:
    """A sine, or (linear) the triangle wave through the same peaks, whose corners fall on
    multiples of 1 / (2 frequency)."""
    s = math.sin(2 * math.pi * frequency * t)
    return 2 / math.pi * math.asin(s) if linear else s


def placement_at(t: float, linear: bool = False) -> np.ndarray:
    """The root swinging side to side and turning, then far away after TELEPORT_AT."""
    x = 0.15 * _wave(t, 0.25, linear)
    turn = 0.3 * _wave(t, 0.25, linear)
    away = (4.0, 0.0, 2.0) if t >= TELEPORT_AT else (0.0, 0.0, 0.0)
    return np.array([x + away[0], away[1], away[2], 0.0, math.sin(turn / 2), 0.0,
                     math.cos(turn / 2), 1.0, 1.0, 1.0])


def pose_at(skeleton, t: float, pose: Pose | None = None, linear: bool = False) -> Pose:
    """The skeleton at rest but for the body rocking about x."""
    pose = pose or Pose(skeleton)
    pose.set_rest(skeleton)
    a = 0.08 * _wave(t, 0.5, linear)
    pose.set_local(1, [0.0, 1.0, 0.0, math.sin(a / 2), 0.0, 0.0, math.cos(a / 2), 1.0, 1.0, 1.0])
    return pose


def host_times(rate: float | None, seed: int = 0) -> list[float]:
    """A host's frame times up to END: every 1/rate seconds, or (rate None) irregular deltas
    between 1/300 and 1/24 s cut at the common times and the teleport."""
    if rate is not None:
        return [k / rate for k in range(int(round(END * rate)) + 1)]
    rng = np.random.default_rng(seed)
    cuts = set(COMMON_TIMES) | {TELEPORT_AT, 0.0}
    t = 0.0
    while t < END:
        t += float(rng.uniform(1 / 300, 1 / 24))
        cuts.add(min(t, END))
    return sorted(cuts)


def world_points(skeleton, pose: Pose, placement: np.ndarray, bones) -> np.ndarray:
    """Bones' origins in the world: the placement times the pose's model."""
    pose.compute_model(skeleton)
    local = pose.model[list(bones), :, 3].astype(np.float64) * placement[7:10]
    return quat_rotate(np.broadcast_to(placement[3:7], local.shape[:-1] + (4,)), local) + placement[:3]


def play(spring_set, skeleton, times, segments: int = 4, linear: bool = False
         ) -> dict[float, np.ndarray]:
    """The motion through a SpringState at the host's frame times (Reset at the teleport):
    the tail's bones in the world after Apply at each common time. With `linear` the waves
    are triangles with corners on common times, so every host's linear interpolation of the
    motion is exact and only the springs' own dependence on the host could remain."""
    state = SpringState(spring_set, skeleton)
    pose, out = Pose(skeleton), Pose(skeleton)
    seen, previous = {}, 0.0
    tail = range(TAIL_ROOT + 1, TAIL_ROOT + segments + 1)
    for t in times:
        if t >= TELEPORT_AT > previous:
            # the host reaches the teleport's time with the old placement, then jumps
            state.step(pose_at(skeleton, TELEPORT_AT, pose, linear),
                       placement_at(TELEPORT_AT - 1e-9, linear), None, TELEPORT_AT - previous)
            state.reset()
            state.step(pose, placement_at(TELEPORT_AT, linear), None, 0.0)
            previous = TELEPORT_AT
        state.step(pose_at(skeleton, t, pose, linear), placement_at(t, linear), None, t - previous)
        previous = t
        if any(abs(t - c) < 1e-9 for c in COMMON_TIMES):
            out.copy_from(pose)
            state.apply(out)
            seen[round(t, 6)] = world_points(skeleton, out, placement_at(t, linear), tail)
    return seen


def _unit(v):
    return v / np.linalg.norm(v)


def _arc(a, b):
    q = np.append(np.cross(a, b), 1.0 + a @ b)
    return q / np.linalg.norm(q)


def play_per_frame(skeleton, times, segments: int = 4, *, stiffness=0.6, gravity=0.4,
                   drag=0.15) -> dict[float, np.ndarray]:
    """VRM's non-normative update, once a host frame with that frame's delta (the frame-rate
    dependent way springs usually run), on the same motion: the tail's bones in the world
    at each common time."""
    pose = Pose(skeleton)
    chain = list(range(TAIL_ROOT, TAIL_ROOT + segments + 1))
    cur = prev = None
    seen, previous = {}, 0.0
    for t in times:
        dt = t - previous
        if t >= TELEPORT_AT > previous:
            cur = None                  # the reference's teleport: start again
            dt = t - TELEPORT_AT
        previous = t
        points = world_points(skeleton, pose_at(skeleton, t, pose), placement_at(t), chain)
        acc = np.array([0.0, 0.0, 0.0, 1.0])
        head = points[0]
        fresh = cur is None
        if fresh:
            cur, prev = np.zeros((segments, 3)), np.zeros((segments, 3))
        for k in range(segments):
            span = points[k + 1] - points[k]
            length = np.linalg.norm(span)
            direction = quat_rotate(acc, span / length)
            if fresh:
                nxt = head + direction * length
                prev[k] = nxt
            else:
                nxt = (cur[k] + (cur[k] - prev[k]) * (1 - drag) + direction * stiffness * dt
                       + np.array([0.0, -1.0, 0.0]) * gravity * dt)
                nxt = head + _unit(nxt - head) * length
                prev[k] = cur[k]
            cur[k] = nxt
            acc = quat_mul(_arc(direction, _unit(nxt - head)), acc)
            head = nxt
        if any(abs(t - c) < 1e-9 for c in COMMON_TIMES):
            seen[round(t, 6)] = cur.copy()
    return seen


def spread_over_length(runs: list[dict[float, np.ndarray]]) -> float:
    """The largest distance between two runs' same tail bone at a common time, over the
    segment length."""
    worst = 0.0
    for t in runs[0]:
        points = np.stack([r[t] for r in runs])
        gaps = np.linalg.norm(points[:, None] - points[None, :], axis=-1)
        worst = max(worst, float(gaps.max()))
    return worst / SEGMENT
