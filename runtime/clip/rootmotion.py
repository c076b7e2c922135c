"""Root motion: the move a clip's declared bone makes, kept beside the clip.

The build takes the motion out of the bone (take_out) so the clip plays in place, and
stores the bone's move at every sample, in the bone's parent's frame. A host moves its
character by the moves it reads between two playhead times, in the character's frame where
the move begins, or puts the motion back into a sampled pose (restore).

A move is seven floats: translation x y z, then rotation quaternion x y z w; composing
(t1, r1) then (t2, r2) gives (t1 + r1 t2, r1 r2). Arithmetic is binary64 (the moves one at a
time are clip/kernels.py's, which the graph's update calls too), results binary32.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum, IntFlag

import numpy as np

from .clip import Clip, LoopPolicy, is_open
from .kernels import compose_moves, inverse_move, power_move
from .kernels import move_at as _move_at_kernel
from .kernels import moves_at as _moves_at_kernel
from .sampling import F32_MAX, seconds
from ..core import args
from ..core.errors import InvalidError
from ..core.transform import quat_conj, quat_mul, quat_rotate

MAX_PERIODS = 1 << 32           # a repeating clip's move composes at most this many periods
IDENTITY_MOVE = np.array([0, 0, 0, 0, 0, 0, 1], dtype=np.float32)
_IDENTITY64 = IDENTITY_MOVE.astype(np.float64)


class RootAxes(IntFlag):
    """Which translation axes of the bone (in its parent's frame) the root motion takes."""

    none = 0
    x = 1
    y = 2
    z = 4
    all = 7


class RootRotation(IntEnum):
    """How much of the bone's rotation the root motion takes: none, the twist about one axis
    of the parent's frame (the yaw about the up axis, say), or all of it."""

    none = 0
    about_x = 1
    about_y = 2
    about_z = 3
    whole = 4


@dataclass
class RootMotionSource:
    """maniRootMotionSource: the bone whose motion becomes root motion, and what is taken."""

    bone: int
    axes: int = RootAxes.x | RootAxes.z
    rotation: int = RootRotation.about_y


# ---- moves ------------------------------------------------------------------------------------
def identity_move() -> np.ndarray:
    """maniMakeRootMoveIdentity: translation 0, rotation identity."""
    return IDENTITY_MOVE.copy()


Move = tuple  # (tx, ty, tz, qx, qy, qz, qw), binary64


def _as_move(move, what: str) -> np.ndarray:
    """A maniRootMove: seven numbers a binary32 can hold (NaN and infinities pass), in
    binary64 as given."""
    return args.floats(move, (7,), what, dtype=np.float64, within=np.float32, allow_nonfinite=True)


def compose(first, then) -> np.ndarray:
    """maniComposeRootMotion: first, then `then` from where first ends, in first's frame. A
    composition past the binary32 range comes out infinite, the IEEE result."""
    a = tuple(_as_move(first, "first").tolist())
    b = tuple(_as_move(then, "then").tolist())
    with np.errstate(over="ignore"):
        return np.array(compose_moves(a, b), dtype=np.float32)


def blend(moves, weights) -> np.ndarray:
    """maniBlendRootMotion: the weights normalized, translations summed by weight, rotations
    each turned into the hemisphere of the first weighted one, summed and normalized. Weights
    of 0 count for nothing; all 0 give the identity."""
    if moves is None or weights is None:
        raise InvalidError("no moves or no weights")
    m = args.floats(moves, (-1, 7), "moves", dtype=np.float64, within=np.float32,
                    allow_nonfinite=True)
    w = args.floats(weights, (-1,), "weights", dtype=np.float64, allow_nonfinite=True)
    if m.shape[0] != w.size:
        raise InvalidError(f"{m.shape[0]} moves for {w.size} weights")
    if not (np.isfinite(w).all() and (w >= 0).all()):
        raise InvalidError("a weight negative or not finite")
    if not np.isfinite(m).all():
        raise InvalidError("a move not finite")
    live = np.flatnonzero(w > 0)
    if not live.size:
        return identity_move()
    w = w / w.max()             # so the sum below cannot overflow
    w = w / w.sum()
    out = np.empty(7)
    out[:3] = w @ m[:, :3]
    ref = m[live[0], 3:]
    q = m[:, 3:] * np.where(m[:, 3:] @ ref < 0, -1.0, 1.0)[:, None]
    q = w @ q
    length = np.linalg.norm(q)
    out[3:] = q / length if length > 0 else _IDENTITY64[3:]
    return out.astype(np.float32)


# ---- a clip's root motion -----------------------------------------------------------------------
def root_motion_source(clip) -> RootMotionSource | None:
    """maniClip_GetRootMotionSource: what the root motion was taken with, or None."""
    if not is_open(clip) or clip.root_motion_fields is None:
        return None
    bone, axes, rotation = clip.root_motion_fields
    return RootMotionSource(bone, RootAxes(axes), RootRotation(rotation))


def move_at(clip: Clip, time) -> np.ndarray:
    """The bone's move at a time clamped to the clip, binary64: the two samples' moves
    interpolated as sampling interpolates a bone (lerp, nlerp)."""
    return np.array(_move_at(clip, time))


def _move_at(clip: Clip, time) -> Move:
    return _move_at_kernel(clip.moves, 0, clip.sample_rate, clip.duration, clip.sample_count - 1,
                           seconds(time))


def moves_at(clip: Clip, times) -> np.ndarray:
    """move_at over an array of times, (m, 7) binary64."""
    t = np.ascontiguousarray(times, dtype=np.float64).reshape(-1)
    out = np.empty((t.size, 7))
    _moves_at_kernel(clip.moves, clip.sample_rate, clip.duration, clip.sample_count - 1, t, out)
    return out


def get_root_motion(clip, time, step) -> np.ndarray:
    """maniClip_GetRootMotion: the move from a playhead time over a signed step.

    A clamped clip moves between the two times clamped to it. A repeating clip moves across
    every wrap between the unwrapped times: to the period's end, the whole period's move
    composed by squaring (at most MAX_PERIODS periods; beyond, the count is held there),
    then from the period's start. A clip without root motion moves nothing.
    """
    if not is_open(clip):
        raise InvalidError("not an opened clip")
    t, s = args.real(time, "time"), args.real(step, "step")
    if not (math.isfinite(t) and math.isfinite(s)):
        raise InvalidError("a time or step not finite")
    if clip.moves is None:
        return identity_move()
    d = clip.duration
    if clip.loop_policy != LoopPolicy.repeat or d <= 0:
        a = _move_at(clip, min(max(t, 0.0), d))
        b = _move_at(clip, min(max(t + s, 0.0), d))
        return _finite32(compose_moves(inverse_move(a), b))
    ua = _wrap(t, d)
    reach = ua + s
    q = reach / d
    if math.isfinite(q) and abs(q) <= 2.0 * MAX_PERIODS:
        n = math.floor(q)
        ub = min(max(reach - n * d, 0.0), d)
    else:
        n = int(math.copysign(MAX_PERIODS, s))
        ub = _wrap(math.fmod(ua, d) + math.fmod(s, d), d)
    n = max(-MAX_PERIODS, min(MAX_PERIODS, n))
    to_start = inverse_move(_move_at(clip, 0.0))
    period = compose_moves(to_start, _move_at(clip, d))
    xa = compose_moves(to_start, _move_at(clip, ua))
    xb = compose_moves(to_start, _move_at(clip, ub))
    return _finite32(compose_moves(inverse_move(xa), compose_moves(power_move(period, float(n)), xb)))


def _finite32(move: Move) -> np.ndarray:
    """A move as binary32; a component past its range (bytes changed after the open) is
    held at the largest finite value, so the move stays finite."""
    out = np.array(move, dtype=np.float64)
    np.clip(out, -F32_MAX, F32_MAX, out=out)
    return np.nan_to_num(out, nan=0.0).astype(np.float32)


def _wrap(t: float, d: float) -> float:
    """t modulo d in [0, d)."""
    u = math.fmod(t, d)
    if u < 0:
        u += d
    return u if u < d else 0.0


def restore(clip, skeleton, time, pose) -> None:
    """maniClip_RestoreRootMotion: the bone's local in a pose sampled at the same time becomes
    the move at that time composed with it (translation m_t + m_r t, rotation m_r r, scale
    kept); the model is marked stale. A clip without root motion leaves the pose unchanged."""
    if not is_open(clip):
        raise InvalidError("not an opened clip")
    clip.check_target(skeleton, pose)
    if pose.is_difference:
        raise InvalidError("a difference pose")
    if clip.moves is None:
        return
    bone = clip.root_motion_fields[0]
    mt0, mt1, mt2, qx, qy, qz, qw = _move_at(clip, time)
    local = pose.locals[bone].tolist()
    t = compose_moves((mt0, mt1, mt2, qx, qy, qz, qw), (*local[0:3], 0.0, 0.0, 0.0, 1.0))
    r = compose_moves((0.0, 0.0, 0.0, qx, qy, qz, qw), (0.0, 0.0, 0.0, *local[3:7]))
    with np.errstate(all="ignore"):
        pose.locals[bone, 0:7] = t[0:3] + r[3:7]
    pose.mark_stale()


# ---- taking it out, at build --------------------------------------------------------------------
def hemisphere_continuous(q: np.ndarray) -> np.ndarray:
    """(S, ..., 4) quaternions along the first axis, each negated where needed so it lies in
    the hemisphere of the one before (the same rotations, no long way round between them)."""
    if q.shape[0] < 2:
        return q
    flip = np.einsum("s...c,s...c->s...", q[1:], q[:-1]) < 0
    sign = np.where(np.cumsum(flip, axis=0) % 2 == 1, -1.0, 1.0)
    out = q.copy()
    out[1:] *= sign[..., None]
    return out


def take_out(translation: np.ndarray, rotation: np.ndarray, axes: int, taken: int):
    """Splits a bone's local motion (S, 3) and (S, 4), binary64, into its moves (S, 7) and what
    stays in the bone, so that the move composed with what stays is the local again.

    The move's translation is the local translation's chosen axes; its rotation the whole
    rotation, its twist about one axis, or none. What stays: r' = m_r^-1 r and
    t' = m_r^-1 (t - m_t).
    """
    s = translation.shape[0]
    m_r = np.zeros((s, 4))
    if taken == RootRotation.whole:
        m_r[...] = rotation
    elif taken in (RootRotation.about_x, RootRotation.about_y, RootRotation.about_z):
        k = int(taken) - 1
        m_r[:, k] = rotation[:, k]
        m_r[:, 3] = rotation[:, 3]
        length = np.linalg.norm(m_r, axis=1, keepdims=True)
        m_r = np.where(length > 1e-12, m_r / np.where(length > 0, length, 1.0), _IDENTITY64[3:])
    else:
        m_r[:, 3] = 1.0
    m_r = hemisphere_continuous(m_r)
    mask = np.array([axes & 1, axes & 2, axes & 4], dtype=bool)
    m_t = np.where(mask, translation, 0.0)
    inv = quat_conj(m_r)
    stays_r = quat_mul(inv, rotation)
    stays_r /= np.linalg.norm(stays_r, axis=1, keepdims=True)
    stays_t = quat_rotate(inv, translation - m_t)
    moves = np.concatenate([m_t, m_r], axis=1)
    return moves, stays_t, hemisphere_continuous(stays_r)
