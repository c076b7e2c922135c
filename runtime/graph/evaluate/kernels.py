"""The graph's pose arithmetic, compiled (runtime.core.jit): sampling, blending, masks, additive
layers and inertialization, each one loop over the lanes that weigh a node and its bones.

A lane is one instance (an evaluation of one instance is a batch of one). The lanes' slots
are one component-major binary32 array, (slots, 10, lanes, bones), the last slot holding
the rest pose: each of a transform's ten numbers is a (lanes, bones) plane, and a kernel's
innermost loop runs along a lane's bones. S, (lanes, scalars), holds the lanes' binary64
scalars (graph/layout.py). A node's kernel reads each lane's weight at S[lane, base] and
writes its slot for the lanes whose weight is above 0, leaving the others' as they were.
Per-bone arrays (fills, masks) are given on the bones evaluated.

Each bone of each lane is computed with the same binary32 operations in the same order
whatever the lanes and bones given (constants written as binary32 so that nothing is
promoted to binary64 where the formulas are binary32), so any number of instances and any
subset of bones agree bit for bit.

The formulas are pose/blend.py's (blend_poses, add_layers), in binary32: a blend's translations
and scales are weighted sums, its rotations summed each on the arc that agrees with the sum
so far, then normalized; a difference adds t + w d_t, r nlerp(1, d_r, w) (the short way),
s (1 + w (d_s - 1)). A clip's two samples are found by the clip's own search (clip/kernels.py)
and interpolated as clip/sampling.py's batched path does, the nlerp's length taken from the
samples' dot products.
"""
from __future__ import annotations

import math

import numpy as np

from ..source import Curve
from ...clip.kernels import segment
from ...core.jit import kernel, reads, scalar, writes

_0 = np.float32(0.0)
_1 = np.float32(1.0)
_2 = np.float32(2.0)
_HALF = np.float32(0.5)
_SMALL = np.float32(1e-12)      # a rotation vector this short is no turn
# a step shorter than this tells no velocity (a capture's velocity over it would overflow)
SHORTEST_VELOCITY_STEP = 1e-4
_LINEAR = (0, 1, 2, 7, 8, 9)    # translation and scale: weighted sums, unlike rotation

# The node kernels' one signature each (called from eval.py alone, so compiled aside on a
# first run: runtime.core.jit.compile_aside): S, the slots, a node's index arrays.
_S, _SLOTS, _IDS = writes(np.float64, 2), writes(np.float32, 4), writes(np.int64, 1)
_I, _F, _B = scalar(np.int64), scalar(np.float64), scalar(np.bool_)
_WEIGHTS = writes(np.float32, 1)


def soa(aos: np.ndarray) -> np.ndarray:
    """(..., 10) rows as a contiguous (10, ...) array."""
    return np.ascontiguousarray(np.moveaxis(aos, -1, 0))


# ---- fades and clips -------------------------------------------------------------------------------
SMOOTH, EASE_IN, EASE_OUT = int(Curve.smooth), int(Curve.ease_in), int(Curve.ease_out)


@kernel(inner=True)
def curve(kind, t):
    """A fade's shape (a Curve) at progress t: t, t^2 (3 - 2t), t^2 or 1 - (1 - t)^2; 0 before
    the fade and 1 after it."""
    if t <= 0.0:
        return 0.0
    if t >= 1.0:
        return 1.0
    if kind == SMOOTH:
        return t * t * (3.0 - 2.0 * t)
    if kind == EASE_IN:
        return t * t
    if kind == EASE_OUT:
        return 1.0 - (1.0 - t) * (1.0 - t)
    return t


@kernel(signature=(_S, _I, writes(np.float32, 3), writes(np.float32, 2), _I, _F, _F, _I, _IDS, _B,
                   reads(np.float32, 2), _SLOTS, _I))
def sample_clip(S, base, samples, dots, offset, rate, duration, last, rows, dense, fill, slots, out):
    """A clip node's slot: its clip sampled at each lane's playhead (S[lane, base + 2]), read
    straight from the (10, samples, rows) samples from `offset` on. rows[b] is the clip's row
    of bone b, or -1 for a bone it does not track (given `fill`); `dense` when rows[b] is b
    for every bone. The factors are worked out in binary64 and stored: f, c = 2 f (1 - f)
    and 1 - c, so the nlerp's length is sqrt(dot c + 1 - c) (|a + f (b - a)|^2 for unit a
    and b whose dot product is `dot`)."""
    nb = rows.size
    length = np.empty(nb, np.float32)
    for lane in range(S.shape[0]):
        if not S[lane, base] > 0.0:
            continue
        i, j, f = segment(S[lane, base + 2], rate, duration, last)
        c = 2.0 * f * (1.0 - f)
        f32, c32, rest32 = np.float32(f), np.float32(c), np.float32(1.0 - c)
        i += offset
        j += offset
        dot = dots[i]
        for k in range(10):
            o, x, y = slots[out, k, lane], samples[k, i], samples[k, j]
            if dense:
                for b in range(nb):
                    o[b] = (y[b] - x[b]) * f32 + x[b]
            else:
                for b in range(nb):
                    r = rows[b]
                    o[b] = fill[k, b] if r < 0 else (y[r] - x[r]) * f32 + x[r]
        if dense:
            for b in range(nb):
                length[b] = np.sqrt(dot[b] * c32 + rest32)
        else:       # a filled bone keeps its length, 1
            for b in range(nb):
                r = rows[b]
                length[b] = np.sqrt(dot[r] * c32 + rest32) if r >= 0 else _1
        for k in range(3, 7):
            o = slots[out, k, lane]
            for b in range(nb):
                o[b] /= length[b]


# ---- blends --------------------------------------------------------------------------------------------
@kernel(inner=True)
def _blend(slots, use, w, n, lane, out, signed):
    """One lane of the slots use[:n] blended by binary32 weights w[x, bone] that sum to 1 at
    each bone: translations and scales summed in input order; each rotation added on the arc
    that agrees with the sum before it (a dot product of exactly 0 agrees), the sum then
    normalized. The output may be the first input, no other. The loops run along a lane's
    bones, one component at a time (`signed`, (bones,) scratch, holds an input's signed
    weights), which the compiler vectorizes."""
    nb = slots.shape[3]
    for k in range(10):
        o, v, wx = slots[out, k, lane], slots[use[0], k, lane], w[0]
        for b in range(nb):
            o[b] = v[b] * wx[b]
    qx, qy, qz, qw = slots[out, 3, lane], slots[out, 4, lane], slots[out, 5, lane], slots[out, 6, lane]
    for x in range(1, n):
        s, wx = use[x], w[x]
        for k in _LINEAR:
            o, v = slots[out, k, lane], slots[s, k, lane]
            for b in range(nb):
                o[b] += v[b] * wx[b]
        vx, vy, vz, vw = slots[s, 3, lane], slots[s, 4, lane], slots[s, 5, lane], slots[s, 6, lane]
        for b in range(nb):
            agree = _0 + qx[b] * vx[b] + qy[b] * vy[b] + qz[b] * vz[b] + qw[b] * vw[b]
            signed[b] = np.float32(np.copysign(wx[b], agree))
        for k in range(3, 7):
            o, v = slots[out, k, lane], slots[s, k, lane]
            for b in range(nb):
                o[b] += v[b] * signed[b]
    _unit(slots, lane, out)


@kernel(inner=True)
def _unit(slots, lane, out):
    """A lane's rotations in a slot divided by their lengths."""
    x, y, z, w = slots[out, 3, lane], slots[out, 4, lane], slots[out, 5, lane], slots[out, 6, lane]
    for b in range(x.size):
        n = np.sqrt(x[b] * x[b] + y[b] * y[b] + z[b] * z[b] + w[b] * w[b])
        x[b] /= n
        y[b] /= n
        z[b] /= n
        w[b] /= n


@kernel(inner=True)
def _copy(slots, src, lane, out):
    """A lane's whole pose from one slot into another."""
    for k in range(10):
        o, v = slots[out, k, lane], slots[src, k, lane]
        for b in range(o.size):
            o[b] = v[b]


@kernel(signature=(_S, _I, _SLOTS, _I, _I))
def copy_input(S, base, slots, src, out):
    """A node passing its input on (time scale, seek): the weighted lanes copied."""
    for lane in range(S.shape[0]):
        if S[lane, base] > 0.0:
            _copy(slots, src, lane, out)


@kernel(signature=(_S, _I, _IDS, _SLOTS, _I))
def select(S, base, inputs, slots, out):
    """A select node: each weighted lane's selected input (S[lane, base + 2]) copied."""
    for lane in range(S.shape[0]):
        if S[lane, base] > 0.0:
            _copy(slots, inputs[int(S[lane, base + 2])], lane, out)


@kernel(signature=(_S, _I, _I, _IDS, _IDS, _B, _SLOTS, _I))
def mix(S, base, at, bases, inputs, direct, slots, out):
    """A blend, space or machine: each weighted lane's inputs of share S[lane, at + j] above 0
    whose own weight is above 0, blended in input order by their shares (a direct blend's
    rest pose, the last slot, taking what they leave below 1). A lane on one input at share
    1 copies it and a lane on none gives the rest pose."""
    rest, nb = slots.shape[0] - 1, slots.shape[3]
    use = np.empty(inputs.size + 1, np.intp)
    w = np.empty((inputs.size + 1, nb), np.float32)
    signed = np.empty(nb, np.float32)
    for lane in range(S.shape[0]):
        if not S[lane, base] > 0.0:
            continue
        n = 0
        total = 0.0
        share = 0.0
        for j in range(inputs.size):
            v = S[lane, at + j]
            if v > 0.0 and S[lane, bases[j]] > 0.0:
                use[n] = inputs[j]
                for b in range(nb):
                    w[n, b] = np.float32(v)
                total += v
                share = v
                n += 1
        if n == 0:
            _copy(slots, rest, lane, out)
        elif n == 1 and share == 1.0:
            _copy(slots, use[0], lane, out)
        else:
            if direct and 1.0 - total > 0.0:
                use[n] = rest
                for b in range(nb):
                    w[n, b] = np.float32(1.0 - total)
                n += 1
            _blend(slots, use, w, n, lane, out, signed)


@kernel(signature=(_S, _I, _I, _I, _WEIGHTS, _WEIGHTS, _F, _F, _SLOTS, _I))
def mask(S, base, a, b, over, under, most, base_most, slots, out):
    """A mask node: base a and overlay b blended bone by bone, b at its weight over[bone] and
    a at under[bone] (1 - over); a mask weighing no bone passes a on, one weighing every bone
    fully passes b on."""
    use = np.array((a, b), np.intp)
    w = np.empty((2, over.size), np.float32)
    w[0] = under
    w[1] = over
    signed = np.empty(over.size, np.float32)
    for lane in range(S.shape[0]):
        if not S[lane, base] > 0.0:
            continue
        if most <= 0.0:
            _copy(slots, a, lane, out)
        elif base_most <= 0.0:
            _copy(slots, b, lane, out)
        else:
            _blend(slots, use, w, 2, lane, out, signed)


@kernel(signature=(_S, _I, _I, _I, _WEIGHTS, _F, _SLOTS, _I))
def one_shot(S, base, a, b, m, most, slots, out):
    """A one-shot: while a lane's shot weight (S[lane, base + 8]) is above 0, its shot b over
    its base a at m[bone] times that weight; otherwise the base passed on."""
    use = np.array((a, b), np.intp)
    w = np.empty((2, m.size), np.float32)
    signed = np.empty(m.size, np.float32)
    for lane in range(S.shape[0]):
        if not S[lane, base] > 0.0:
            continue
        if not (S[lane, base + 8] > 0.0 and most > 0.0):
            _copy(slots, a, lane, out)
            continue
        shot = np.float32(S[lane, base + 8])
        for bone in range(m.size):
            w[1, bone] = m[bone] * shot
            w[0, bone] = _1 - w[1, bone]
        _blend(slots, use, w, 2, lane, out, signed)


@kernel(signature=(_S, _I, _I, _I, _I, _SLOTS, _I))
def additive(S, base, layer_base, a, d, slots, out):
    """An additive node: each weighted lane's differences d added onto its poses a at the
    layer's weight (S[lane, base + 2], 0 while the layer weighs nothing)."""
    nb = slots.shape[3]
    for lane in range(S.shape[0]):
        if not S[lane, base] > 0.0:
            continue
        w = np.float32(S[lane, base + 2]) if S[lane, layer_base] > 0.0 else _0
        if not w > 0.0:
            _copy(slots, a, lane, out)
            continue
        keep = _1 - w
        for k in range(10):
            o, x, y = slots[out, k, lane], slots[a, k, lane], slots[d, k, lane]
            if k < 3:
                for b in range(nb):
                    o[b] = y[b] * w + x[b]
            elif k >= 7:
                for b in range(nb):
                    o[b] = (y[b] * w + keep) * x[b]
        # nlerp(1, d_r, w) the short way, then base_r times it
        ax, ay, az, aw = slots[a, 3, lane], slots[a, 4, lane], slots[a, 5, lane], slots[a, 6, lane]
        dx, dy, dz, dw = slots[d, 3, lane], slots[d, 4, lane], slots[d, 5, lane], slots[d, 6, lane]
        ox, oy, oz, ow = slots[out, 3, lane], slots[out, 4, lane], slots[out, 5, lane], slots[out, 6, lane]
        for b in range(nb):
            sign = np.float32(np.copysign(_1, dw[b]))
            ox[b], oy[b], oz[b], ow[b] = _qmul(ax[b], ay[b], az[b], aw[b], dx[b] * w * sign,
                                               dy[b] * w * sign, dz[b] * w * sign, dw[b] * w * sign + keep)
        _unit(slots, lane, out)


@kernel(inner=True)
def _qmul(ax, ay, az, aw, bx, by, bz, bw):
    """The Hamilton product a b, each component's four terms summed in the order w, x, y, z
    of a."""
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


# ---- inertialization ---------------------------------------------------------------------------------
@kernel(inner=True)
def _log(x, y, z, w):
    """A unit quaternion's rotation vector (axis times angle), the short way."""
    if w < 0:
        x, y, z, w = -x, -y, -z, -w
    s = np.sqrt(x * x + y * y + z * z)
    scale = _2 if s <= _SMALL else _2 * np.float32(np.arctan2(s, w)) / s
    return x * scale, y * scale, z * scale


@kernel(inner=True)
def _exp(x, y, z):
    """A rotation vector's unit quaternion."""
    angle = np.sqrt(x * x + y * y + z * z)
    half = _HALF * angle
    scale = _HALF if angle <= _SMALL else np.float32(np.sin(half)) / angle
    return x * scale, y * scale, z * scale, np.float32(np.cos(half))


@kernel(inner=True)
def _difference(a, b, out):
    """What takes pose b to pose a (10, bones each): translation and scale a - b, the rotation
    vector of a_r b_r^-1 in rows 3:6 (row 6 zero)."""
    for bone in range(a.shape[1]):
        for k in _LINEAR:
            out[k, bone] = a[k, bone] - b[k, bone]
        x, y, z, w = _qmul(a[3, bone], a[4, bone], a[5, bone], a[6, bone],
                           -b[3, bone], -b[4, bone], -b[5, bone], b[6, bone])
        out[3, bone], out[4, bone], out[5, bone] = _log(x, y, z, w)
        out[6, bone] = _0


@kernel(inner=True)
def _apply(target, offset, out):
    """A difference (as _difference makes it) put onto a pose: target + offset."""
    for bone in range(target.shape[1]):
        for k in _LINEAR:
            out[k, bone] = target[k, bone] + offset[k, bone]
        ex, ey, ez, ew = _exp(offset[3, bone], offset[4, bone], offset[5, bone])
        x, y, z, w = _qmul(ex, ey, ez, ew, target[3, bone], target[4, bone], target[5, bone],
                           target[6, bone])
        n = np.sqrt(x * x + y * y + z * z + w * w)
        out[3, bone], out[4, bone], out[5, bone], out[6, bone] = x / n, y / n, z / n, w / n


@kernel(inner=True)
def quintic(t, duration):
    """The coefficients (of the offset, of its velocity) an inertialization's offset has t
    seconds into its duration: the quintic from (x0, v0, no acceleration) to rest, nothing
    left of either at the end."""
    if duration <= 0 or t >= duration:
        return 0.0, 0.0
    s = t / duration
    s3 = s * s * s
    return (1.0 - 10.0 * s3 + 15.0 * s3 * s - 6.0 * s3 * s * s,
            duration * (s - 6.0 * s3 + 8.0 * s3 * s - 3.0 * s3 * s * s))


@kernel(inner=True)
def decayed(t, half_life):
    """How far a velocity that halves every half_life carries in t seconds."""
    return half_life / math.log(2.0) * (1.0 - 2.0 ** (-t / half_life))


_LANE_STATE, _POSES = writes(np.float64, 1), writes(np.float32, 3)


@kernel(signature=(_LANE_STATE, _I, _POSES, _I, _IDS, _SLOTS, _I, _I, _I))
def inertialization(S, at, A, first, rows, slots, src, lane, out):
    """One lane of an inertialize node by inertialization (its state S[at:at + 10] of the
    lane's row S, its poses A[first:first + 4] (bones, 10) of the lane's instance, on the
    bones `rows`): a pending switch captures the offset from the node's last output to its
    input and the velocity over the step before it; while active, the offset decays onto the
    input by the quintic; then the output is kept (_keep). One kernel a method, its loops
    explicit: each compiles in a fraction of the time the two did as one."""
    nb = rows.size
    target = _read_slot(slots, src, lane, nb)
    last = _read_pose(A, first, rows)
    cap = _read_pose(A, first + 2, rows)
    vel = _read_pose(A, first + 3, rows)
    if _switching(S, at):
        _velocity(S, at, A, first, rows, last, vel)
        _difference(last, target, cap)
        _write_pose(cap, A, first + 2, rows)
        _write_pose(vel, A, first + 3, rows)
    value = target
    if S[at] and S[at + 8]:
        c0, c1 = quintic(S[at + 2], S[at + 3])
        f0, f1 = np.float32(c0), np.float32(c1)
        offset = np.empty((10, nb), np.float32)
        for k in range(10):
            for b in range(nb):
                offset[k, b] = cap[k, b] * f0 + vel[k, b] * f1
        value = np.empty((10, nb), np.float32)
        _apply(target, offset, value)
    _keep(S, at, A, first, rows, slots, lane, out, value)


@kernel(signature=(_LANE_STATE, _I, _F, _F, _F, _POSES, _I, _IDS, _SLOTS, _I, _I, _I))
def dead_blending(S, at, half_scale, half_min, half_max, A, first, rows, slots, src, lane, out):
    """One lane of an inertialize node by dead blending (its state and poses as
    inertialization's): a pending switch captures the node's last output and the velocity
    over the step before it; while active, the captured pose moves on at its decaying
    velocity and fades into the input; then the output is kept (_keep)."""
    nb = rows.size
    target = _read_slot(slots, src, lane, nb)
    last = _read_pose(A, first, rows)
    cap = _read_pose(A, first + 2, rows)
    vel = _read_pose(A, first + 3, rows)
    if _switching(S, at):
        _velocity(S, at, A, first, rows, last, vel)
        _write_pose(last, A, first + 2, rows)
        _write_pose(vel, A, first + 3, rows)
        cap = last
    value = target
    if S[at] and S[at + 8]:
        time, duration = S[at + 2], S[at + 3]
        half = min(max(half_scale * duration, half_min), half_max)
        d = np.float32(decayed(time, half))
        moved = np.empty((10, nb), np.float32)
        for k in range(10):
            for b in range(nb):
                moved[k, b] = vel[k, b] * d
        value = np.empty((10, nb), np.float32)
        _apply(cap, moved, value)
        alpha = curve(SMOOTH, time / duration if duration > 0 else 1.0)
        # the moved pose into the output's slot, then blended there with the input
        _write_slot(value, slots, lane, out)
        use = np.empty(2, np.intp)
        use[0], use[1] = out, src
        w = np.empty((2, nb), np.float32)
        for b in range(nb):
            w[0, b] = np.float32(1.0 - alpha)
            w[1, b] = np.float32(alpha)
        _blend(slots, use, w, 2, lane, out, np.empty(nb, np.float32))
        value = _read_slot(slots, out, lane, nb)
    _keep(S, at, A, first, rows, slots, lane, out, value)


@kernel(inner=True)
def _switching(S, at):
    """Whether a pending switch captures what it blends from now (an output is kept): the
    switch then active and captured; pending no longer either way."""
    capture = S[at + 1] != 0.0 and S[at + 5] != 0.0
    if capture:
        S[at + 8] = 1.0
        S[at] = 1.0
    S[at + 1] = 0.0
    return capture


@kernel(inner=True)
def _velocity(S, at, A, first, rows, last, vel):
    """A switch's velocity into vel: the last output's difference from the one before over
    the step between them; zero without one, over too short a step, or past binary32."""
    gap = S[at + 7]
    if S[at + 6] and gap >= SHORTEST_VELOCITY_STEP:
        _difference(last, _read_pose(A, first + 1, rows), vel)
        scale = np.float32(1.0 / gap)
        finite = True
        for k in range(10):
            for b in range(vel.shape[1]):
                vel[k, b] *= scale
                finite &= np.isfinite(vel[k, b])
        if finite:
            return
    for k in range(10):
        for b in range(vel.shape[1]):
            vel[k, b] = _0


@kernel(inner=True)
def _keep(S, at, A, first, rows, slots, lane, out, value):
    """The output into its slot and kept, the one before it too once an update has passed,
    for the next switch to blend from."""
    _write_slot(value, slots, lane, out)
    if S[at + 4] != S[0]:
        if S[at + 5]:
            for b in range(rows.size):
                for k in range(10):
                    A[first + 1, rows[b], k] = A[first, rows[b], k]
        S[at + 6] = S[at + 5]
        S[at + 7] = S[at + 9]
        S[at + 5] = 1.0
        S[at + 4] = S[0]
    _write_pose(value, A, first, rows)


@kernel(inner=True)
def _read_slot(slots, src, lane, nb):
    """A lane's pose in a slot, (10, bones), as a new array."""
    out = np.empty((10, nb), np.float32)
    for k in range(10):
        for b in range(nb):
            out[k, b] = slots[src, k, lane, b]
    return out


@kernel(inner=True)
def _write_slot(value, slots, lane, out):
    for k in range(10):
        for b in range(value.shape[1]):
            slots[out, k, lane, b] = value[k, b]


@kernel(inner=True)
def _read_pose(A, index, rows):
    """One of an instance's (bones, 10) poses, component-major on the bones `rows`."""
    out = np.empty((10, rows.size), np.float32)
    for b in range(rows.size):
        for k in range(10):
            out[k, b] = A[index, rows[b], k]
    return out


@kernel(inner=True)
def _write_pose(value, A, index, rows):
    for b in range(rows.size):
        for k in range(10):
            A[index, rows[b], k] = value[k, b]


# ---- the output ------------------------------------------------------------------------------------------
@kernel(signature=(_S, _I, _SLOTS, _I, _IDS, writes(np.float32, 3, "A")))
def write_out(S, base, slots, src, rows, locals_):
    """Each lane's pose (bones rows of locals_[lane], (bones, 10)): the output's slot, or the
    rest pose (the last slot) for a lane the output does not weigh (one never updated)."""
    for lane in range(S.shape[0]):
        slot = src if S[lane, base] > 0.0 else slots.shape[0] - 1
        for b in range(rows.size):
            bone = rows[b]
            for k in range(10):
                locals_[lane, bone, k] = slots[slot, k, lane, b]
