"""Blending: poses mixed by weights, per bone through masks, and differences layered on.

Poses and differences never mix: a blend takes layers of one kind and writes that kind, and
additive layers are differences applied to a pose. Arithmetic is binary64, stored binary32.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..core import args
from ..core.errors import CapacityError, InvalidError
from ..core.jit import kernel, reads, scalar, writes
from .pose import DIFFERENCE, Pose
from .skeleton import Skeleton, opened
from ..core.transform import IDENTITY


@dataclass
class BlendLayer:
    """maniBlendLayer: a pose (or difference) with its weight and optional per-bone weights."""

    pose: Pose
    weight: float = 1.0
    bone_weights: np.ndarray | None = None


@dataclass
class MaskChain:
    """maniMaskChain: a weight on a bone alone, or on its whole subtree."""

    bone: int
    weight: float
    subtree: bool = True


def _check_pose(pose, skeleton: Skeleton, what: str) -> None:
    if not (isinstance(pose, Pose) and pose.of(skeleton)):
        raise InvalidError(f"{what} is not a pose" if not isinstance(pose, Pose)
                           else f"{what} is a pose of another skeleton")


def _check_output(pose, skeleton: Skeleton, what: str) -> None:
    """_check_pose for a pose written, which a pose over read-only bytes cannot be."""
    _check_pose(pose, skeleton, what)
    if not pose.buffer.flags.writeable:
        raise InvalidError(f"{what} is read-only")


def _weight(value, i: int) -> float:
    """A layer's weight, checked to lie in [0, 1] (a float's check first: the usual)."""
    if type(value) is not float:
        value = args.real(value, f"layer {i} weight")
    if not 0.0 <= value <= 1.0:
        raise InvalidError(f"layer {i}: weight {value} outside 0 to 1")
    return value


class _Scratch:
    """What a blend or an add hands its kernel, kept on the pose it writes (a pose is used
    by one thread at a time) so a frame allocates nothing: the layers' locals stacked and
    their weights."""

    def __init__(self, k: int, n: int):
        self.stack = np.empty((k, n, 10), dtype=np.float32)
        self.read_only_stack = self.stack.view()      # as a layer's locals: one kernel type
        self.read_only_stack.flags.writeable = False
        self.scalars = np.empty(k, dtype=np.float64)


def _scratch(pose: Pose, k: int, n: int) -> _Scratch:
    s = pose.__dict__.get("_layer_scratch")
    if s is None or s.stack.shape[0] != k or s.stack.shape[1] != n:
        s = pose._layer_scratch = _Scratch(k, n)
    return s


def _layers(layers, pose: Pose, skeleton: Skeleton, out: bool) -> tuple:
    """Every check blend_poses and add_layers make of their layers, in one pass: each a
    BlendLayer on a pose of the skeleton, not `pose` (the blend's output) when `out`, its
    weight in [0, 1]. (scratch with the weights written, the layers' kinds: bit 1 a pose
    among them, bit 2 a difference, whether any has bone weights, the layers' read-only
    locals)."""
    if type(layers) is not list and type(layers) is not tuple:
        layers = args.records(layers, BlendLayer, "layers")
    s = _scratch(pose, len(layers), skeleton.bone_count)
    scalars = s.scalars
    start, end = pose.extent if out else (0, 0)
    identity, n = skeleton.identity, skeleton.bone_count
    kinds = 0
    masked = False
    rows = []
    for i, layer in enumerate(layers):
        if not isinstance(layer, BlendLayer):
            args.of(layer, BlendLayer, f"layers[{i}]")
        given = layer.pose
        if not isinstance(given, Pose):
            _check_pose(given, skeleton, f"layer {i}")    # the error, named
        lo, hi = given.extent
        _, flags, count, _ = given._head.tolist()       # Pose.of, the header read once
        if not (identity == given._identity.item(0) and n == count and n == len(given.locals)):
            _check_pose(given, skeleton, f"layer {i}")
        if lo < end and start < hi:
            raise InvalidError(f"layer {i} is the output")
        kinds |= 2 if flags & DIFFERENCE else 1
        w = layer.weight
        scalars[i] = w if type(w) is float and 0.0 <= w <= 1.0 else _weight(w, i)
        masked = masked or layer.bone_weights is not None
        rows.append(given.read_only_locals)
    return s, kinds, masked, rows


def _masks(layers: Sequence[BlendLayer], n: int) -> np.ndarray:
    """Every layer's bone weights (layers, n), ones where a layer has none, each checked to
    lie in [0, 1], for layers some of which have them (else _NO_MASKS): a layer's weight on
    a bone is its weight times its bone weight, as the kernels take it."""
    masks = np.ones((len(layers), n), dtype=np.float64)
    for i, layer in enumerate(layers):
        if layer.bone_weights is None:
            continue
        bw = args.floats(layer.bone_weights, (n,), f"layer {i} bone weights", dtype=np.float64,
                         allow_nonfinite=True)
        if not ((bw >= 0) & (bw <= 1)).all():
            raise InvalidError(f"layer {i}: a bone weight outside 0 to 1")
        masks[i] = bw
    return masks


def _stacked(s: _Scratch, rows: list) -> np.ndarray:
    """The layers' locals as one (layers, n, 10) array for a kernel to read: one layer's
    own, more copied into the scratch by one kernel call (a kernel never writes its
    layers)."""
    if len(rows) == 1:
        return rows[0][None]
    if rows:
        _gather(tuple(rows), s.stack)
    return s.read_only_stack


_NO_MASKS = np.zeros((0, 1), dtype=np.float64)     # no layer has bone weights (any n)
_IDENTITY_REST = IDENTITY[None]     # a difference's rest, the one row every bone shares
_IDENTITY_REST.flags.writeable = False      # read-only, as a skeleton's rests: one kernel type


# ---- kernels: per bone, binary64 arithmetic on binary32 inputs, binary32 stored ------------

@kernel(inner=True, inline=True)
def _qmul(ax, ay, az, aw, bx, by, bz, bw):
    """Hamilton product a * b (apply b, then a), xyzw; compiled into each caller (a call per
    bone and layer cost more than its arithmetic)."""
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


@kernel(inner=True, inline=True)
def _weight_on(scalars, masks, i, b):
    """Layer i's weight on bone b: its weight times its bone weight, if any layer has them."""
    return scalars[i] * masks[i, b] if masks.shape[0] else scalars[i]


@kernel(inner=True, inline=True)
def _join(acc, row, share):
    """A bone's binary64 sums (a 10-tuple) with a layer's row added at its share:
    translation and scale as they are, the rotation on the arc agreeing with the sum so far
    (a dot of -0 or 0 agrees)."""
    r = (np.float64(row[0]), np.float64(row[1]), np.float64(row[2]), np.float64(row[3]),
         np.float64(row[4]), np.float64(row[5]), np.float64(row[6]), np.float64(row[7]),
         np.float64(row[8]), np.float64(row[9]))
    dot = acc[3] * r[3] + acc[4] * r[4] + acc[5] * r[5] + acc[6] * r[6]
    turned = -share if dot < 0.0 else share
    return (acc[0] + share * r[0], acc[1] + share * r[1], acc[2] + share * r[2],
            acc[3] + turned * r[3], acc[4] + turned * r[4], acc[5] + turned * r[5],
            acc[6] + turned * r[6], acc[7] + share * r[7], acc[8] + share * r[8],
            acc[9] + share * r[9])


_NO_SUMS = (0.0,) * 10


@kernel(signature=(reads(np.float32, 3), reads(np.float64, 1), reads(np.float64, 2),
                   scalar(np.float64), reads(np.float32, 2), writes(np.float32, 2)))
def _blend(locals_, scalars, masks, threshold, rest, out):
    """blend_poses's arithmetic: (k, n, 10) layers at their weights (_weight_on) into
    (n, 10) `out`; `rest` is (n, 10), or (1, 10) for one rest every bone shares.

    Each bone on its own: a layer's share is its weight / max(total, threshold) (0 where
    that is 0), the rest joins last where the shares fall short of 1, taking what is left;
    the rotation sum is normalized, the rest's rotation kept where its length is 0 or NaN.
    A bone no layer weighs takes its rest as it is, bit for bit (the spec's words). The
    sums are a tuple, kept in registers (an array of them cost the blend half its time)."""
    k, n = locals_.shape[0], locals_.shape[1]
    for b in range(n):
        total = 0.0
        for i in range(k):
            total += _weight_on(scalars, masks, i, b)
        divisor = max(total, threshold)
        acc = _NO_SUMS
        taken = 0.0
        for i in range(k):
            share = _weight_on(scalars, masks, i, b) / divisor if divisor > 0.0 else 0.0
            taken += share
            acc = _join(acc, locals_[i, b], share)
        r = rest[b if rest.shape[0] > 1 else 0]
        if taken == 0.0:
            for c in range(10):
                out[b, c] = r[c]
            continue
        if taken != 1.0:
            acc = _join(acc, r, 1.0 - taken)
        length = math.sqrt(acc[3] * acc[3] + acc[4] * acc[4] + acc[5] * acc[5] + acc[6] * acc[6])
        out[b, 0], out[b, 1], out[b, 2] = np.float32(acc[0]), np.float32(acc[1]), np.float32(acc[2])
        out[b, 7], out[b, 8], out[b, 9] = np.float32(acc[7]), np.float32(acc[8]), np.float32(acc[9])
        if length > 0.0:
            out[b, 3], out[b, 4] = np.float32(acc[3] / length), np.float32(acc[4] / length)
            out[b, 5], out[b, 6] = np.float32(acc[5] / length), np.float32(acc[6] / length)
        else:
            out[b, 3], out[b, 4], out[b, 5], out[b, 6] = r[3], r[4], r[5], r[6]


BlendLayer.kernels = (_blend,)     # what blend_poses runs, of one declared signature
                                   # (jit.compile_aside)


@kernel(inner=True, inline=True)
def _bone_parts(a, b):
    """One bone's difference of row a from basis row b before its rotation is normalized:
    t - t_b, r_b^-1 r and s / s_b, binary64 (compiled into each caller)."""
    ax, ay, az, aw = np.float64(a[3]), np.float64(a[4]), np.float64(a[5]), np.float64(a[6])
    bx, by, bz, bw = np.float64(b[3]), np.float64(b[4]), np.float64(b[5]), np.float64(b[6])
    t0, t1, t2 = (np.float64(a[0]) - np.float64(b[0]), np.float64(a[1]) - np.float64(b[1]),
                  np.float64(a[2]) - np.float64(b[2]))
    s0, s1, s2 = (np.float64(a[7]) / np.float64(b[7]), np.float64(a[8]) / np.float64(b[8]),
                  np.float64(a[9]) / np.float64(b[9]))
    qx, qy, qz, qw = _qmul(-bx, -by, -bz, bw, ax, ay, az, aw)
    return t0, t1, t2, qx, qy, qz, qw, s0, s1, s2


@kernel
def _difference(pose, basis, out):
    """compute_pose_difference's arithmetic: the first bone whose difference is not finite
    in binary32, with nothing written; else -1, every bone written (t - t_b, r_b^-1 r
    normalized, s / s_b, each rounded to binary32). Two passes, so a refusal leaves `out`
    (which may be the pose or the basis) as it was; a bone's rows are read before its row
    of `out` is written.

    The first pass checks without normalizing: r_b^-1 r over its length has four finite
    parts exactly when its squared length q is 0 < q < inf. (Its parts are sums of products
    of binary32 numbers, multiples of 2^-298 whose squares are normal binary64: q is 0 only
    for the zero rotation, 0 / 0; below 2^-298 * 2^53 every sum is exact. Each part is at
    most 4.7e77, so q is infinite only for a part that is, inf / inf; NaN stays NaN; any
    other part over the length is at most 1 and some rounding.)"""
    for b in range(pose.shape[0]):
        t0, t1, t2, qx, qy, qz, qw, s0, s1, s2 = _bone_parts(pose[b], basis[b])
        q = qx * qx + qy * qy + qz * qz + qw * qw
        if not (0.0 < q < math.inf and np.isfinite(np.float32(t0)) and np.isfinite(np.float32(t1))
                and np.isfinite(np.float32(t2)) and np.isfinite(np.float32(s0))
                and np.isfinite(np.float32(s1)) and np.isfinite(np.float32(s2))):
            return b
    for b in range(pose.shape[0]):
        t0, t1, t2, qx, qy, qz, qw, s0, s1, s2 = _bone_parts(pose[b], basis[b])
        length = math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
        out[b, 0], out[b, 1], out[b, 2] = np.float32(t0), np.float32(t1), np.float32(t2)
        out[b, 3], out[b, 4] = np.float32(qx / length), np.float32(qy / length)
        out[b, 5], out[b, 6] = np.float32(qz / length), np.float32(qw / length)
        out[b, 7], out[b, 8], out[b, 9] = np.float32(s0), np.float32(s1), np.float32(s2)
    return -1


@kernel
def _add(pose, differences, scalars, masks):
    """add_layers's arithmetic on (n, 10) `pose` in place: (k, n, 10) differences at their
    weights (_weight_on), in order, each bone on its own: t + w d_t; r times nlerp(1, d_r,
    w) with d_r turned the short way (w d_r signed by d_w, plus 1 - w on w), normalized once
    per layer; s (1 + w (d_s - 1))."""
    k, n = differences.shape[0], differences.shape[1]
    for b in range(n):
        p = pose[b]
        tx, ty, tz = np.float64(p[0]), np.float64(p[1]), np.float64(p[2])
        qx, qy, qz, qw = np.float64(p[3]), np.float64(p[4]), np.float64(p[5]), np.float64(p[6])
        sx, sy, sz = np.float64(p[7]), np.float64(p[8]), np.float64(p[9])
        for i in range(k):
            w = _weight_on(scalars, masks, i, b)
            d = differences[i, b]
            tx += w * np.float64(d[0])
            ty += w * np.float64(d[1])
            tz += w * np.float64(d[2])
            turn = math.copysign(w, np.float64(d[6]))
            qx, qy, qz, qw = _qmul(qx, qy, qz, qw, turn * np.float64(d[3]), turn * np.float64(d[4]),
                                   turn * np.float64(d[5]), turn * np.float64(d[6]) + (1.0 - w))
            length = math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
            qx, qy, qz, qw = qx / length, qy / length, qz / length, qw / length
            sx *= 1.0 + w * (np.float64(d[7]) - 1.0)
            sy *= 1.0 + w * (np.float64(d[8]) - 1.0)
            sz *= 1.0 + w * (np.float64(d[9]) - 1.0)
        p[0], p[1], p[2] = np.float32(tx), np.float32(ty), np.float32(tz)
        p[3], p[4], p[5], p[6] = np.float32(qx), np.float32(qy), np.float32(qz), np.float32(qw)
        p[7], p[8], p[9] = np.float32(sx), np.float32(sy), np.float32(sz)


@kernel
def _inherit(parents, subtree):
    """build_mask's subtree chains handed down in place: a bone without one (NaN) takes its
    parent's, bones in storage order, which puts every parent first. A parent that is not a
    lower index counts as none (Skeleton.check_parents() has refused those already)."""
    for b in range(subtree.shape[0]):
        p = np.int64(parents[b])
        if p < b and np.isnan(subtree[b]):
            subtree[b] = subtree[p]


@kernel
def _gather(rows, stack):
    """A tuple of (n, 10) locals, each read-only (one tuple type for each count), into the
    rows of (k, n, 10) `stack`: the layers as one array for the kernels of one declared
    signature, in one call."""
    for i in range(len(rows)):
        row = rows[i]
        for b in range(row.shape[0]):
            for c in range(10):
                stack[i, b, c] = row[b, c]


# ---- the functions ---------------------------------------------------------------------------

def blend_poses(skeleton: Skeleton, layers: Sequence[BlendLayer], threshold: float,
                out: Pose) -> None:
    """maniSkeleton_BlendPoses.

    Each bone takes each layer's weight times its bone weight, divided by the bone's total,
    or by the threshold where the total falls short of it, the rest taking the shortfall;
    so a blend fades into the rest as its weights fall. Translations and scales are convex
    combinations (never past the largest input, finite up to 2^127); rotations are summed
    each on the arc that agrees with the sum so far, then normalized.
    """
    opened(skeleton)
    _check_output(out, skeleton, "the output")
    s, kinds, masked, rows = _layers(layers, out, skeleton, True)
    if kinds == 3:
        raise InvalidError("layers of both kinds")
    if type(threshold) is not float:
        threshold = args.real(threshold, "threshold")
    if not 0.0 <= threshold <= 1.0:
        raise InvalidError(f"threshold {threshold} out of range")
    masks = _masks(layers, skeleton.bone_count) if masked else _NO_MASKS
    difference = kinds == 2
    _blend(_stacked(s, rows), s.scalars, masks, threshold,
           _IDENTITY_REST if difference else skeleton.rests, out.locals)
    out._head[1] = DIFFERENCE if difference else 0      # mark_kind: the model is stale


def build_mask(skeleton: Skeleton, chains: Sequence[MaskChain], default_weight: float,
               out: np.ndarray | None = None) -> np.ndarray:
    """maniSkeleton_BuildMask: per-bone weights from chains.

    A bone takes a chain on itself alone first, else the subtree chain on its nearest
    ancestor or itself, else the default; of two chains on one bone and kind the later wins.
    """
    opened(skeleton)
    chains = args.records(chains, MaskChain, "chains")
    n = skeleton.bone_count
    default_weight = args.finite32(default_weight, "default weight")
    if default_weight < 0:
        raise InvalidError(f"default weight {default_weight} negative")
    alone = np.full(n, np.nan)
    subtree = np.full(n, np.nan)
    for i, chain in enumerate(chains):
        bone = args.integer(chain.bone, f"chain {i} bone")
        weight = args.finite32(chain.weight, f"chain {i} weight")
        if not 0 <= bone < n:
            raise InvalidError(f"chain {i}: bone {bone} past the skeleton")
        if weight < 0:
            raise InvalidError(f"chain {i}: weight {weight} negative")
        (subtree if chain.subtree else alone)[bone] = weight
    if out is not None and len(args.output(out, "f", (-1,), "weights")) < n:
        raise CapacityError(f"{len(out)} weights for {n} bones", count=n)
    skeleton.check_parents()         # FormatError for a parent changed to one not lower
    _inherit(skeleton.parents, subtree)
    weights = np.where(np.isnan(alone), np.where(np.isnan(subtree), default_weight, subtree),
                       alone).astype(np.float32)
    if out is None:
        return weights
    out[:n] = weights
    return out


def compute_pose_difference(skeleton: Skeleton, pose: Pose, basis: Pose, out: Pose) -> None:
    """maniSkeleton_ComputePoseDifference: d_t = t - t_b, d_r = r_b^-1 r, d_s = s / s_b.

    The output may be the pose or the basis; it is left unchanged when the difference is
    not finite (a basis scale of 0, translations past binary32's range apart).
    """
    opened(skeleton)
    _check_pose(pose, skeleton, "pose")
    _check_pose(basis, skeleton, "basis")
    _check_output(out, skeleton, "output")
    if (pose._head.item(1) | basis._head.item(1)) & DIFFERENCE:
        raise InvalidError("a difference given as pose or basis")
    bone = _difference(pose.locals, basis.locals, out.locals)
    if bone >= 0:
        raise InvalidError(f"bone {bone}: difference not finite")
    out._head[1] = DIFFERENCE       # mark_kind: the model is stale


def add_layers(pose: Pose, skeleton: Skeleton, layers: Sequence[BlendLayer]) -> None:
    """maniPose_AddLayers: differences applied in order at their weights w (0 to 1):
    t + w d_t, r nlerp(1, d_r, w) with the difference's turn taken the short way, and
    s (1 + w (d_s - 1)) per axis."""
    opened(skeleton)
    _check_output(pose, skeleton, "the pose")
    if pose._head.item(1) & DIFFERENCE:
        raise InvalidError("a difference as the pose")
    s, kinds, masked, rows = _layers(layers, pose, skeleton, False)
    if kinds & 1:
        raise InvalidError(f"layer {_first_pose(layers)} is not a difference")
    masks = _masks(layers, skeleton.bone_count) if masked else _NO_MASKS
    _add(pose.locals, _stacked(s, rows), s.scalars, masks)
    pose.mark_stale()


def _first_pose(layers) -> int:
    """The first of checked layers that is not a difference, for add_layers's refusal."""
    return next(i for i, layer in enumerate(layers) if not layer.pose.is_difference)
