"""Blending: poses mixed by weights, per bone through masks, and differences layered on.

Poses and differences never mix: a blend takes layers of one kind and writes that kind, and
additive layers are differences applied to a pose. Arithmetic is binary64, stored binary32.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .errors import CapacityError, InvalidError
from .pose import Pose
from .skeleton import Skeleton
from .transform import IDENTITY, R, S, T, quat_conj, quat_mul


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


def _check_skeleton(skeleton) -> None:
    if not isinstance(skeleton, Skeleton):
        raise InvalidError("not an opened skeleton")


def _check_pose(pose, skeleton: Skeleton, what: str) -> None:
    if not isinstance(pose, Pose):
        raise InvalidError(f"{what} is not a pose")
    if not pose.of(skeleton):
        raise InvalidError(f"{what} is a pose of another skeleton")


def _layer_weights(layers: Sequence[BlendLayer], n: int) -> np.ndarray:
    """(layers, n) weight of each layer on each bone, each factor checked to lie in [0, 1]."""
    w = np.empty((len(layers), n), dtype=np.float64)
    for i, layer in enumerate(layers):
        weight = float(layer.weight)
        if not 0.0 <= weight <= 1.0:
            raise InvalidError(f"layer {i}: weight {weight} outside 0 to 1")
        if layer.bone_weights is None:
            w[i] = weight
            continue
        bw = np.asarray(layer.bone_weights, dtype=np.float64)
        if bw.shape != (n,):
            raise InvalidError(f"layer {i}: {bw.shape} bone weights for {n} bones")
        if not ((bw >= 0) & (bw <= 1)).all():
            raise InvalidError(f"layer {i}: a bone weight outside 0 to 1")
        w[i] = weight * bw
    return w


def _rest_of(skeleton: Skeleton, difference: bool) -> np.ndarray:
    if difference:
        return np.broadcast_to(IDENTITY.astype(np.float64), (skeleton.bone_count, 10))
    return skeleton.rests.astype(np.float64)


def blend_poses(skeleton: Skeleton, layers: Sequence[BlendLayer], threshold: float,
                out: Pose) -> None:
    """maniSkeleton_BlendPoses.

    Each bone takes each layer's weight times its bone weight, divided by the bone's total,
    or by the threshold where the total falls short of it, the rest taking the shortfall;
    so a blend fades into the rest as its weights fall. Translations and scales are convex
    combinations (never past the largest input, finite up to 2^127); rotations are summed
    each on the arc that agrees with the sum so far, then normalized.
    """
    _check_skeleton(skeleton)
    _check_pose(out, skeleton, "the output")
    layers = list(layers)
    for i, layer in enumerate(layers):
        _check_pose(layer.pose, skeleton, f"layer {i}")
        if layer.pose is out or np.may_share_memory(layer.pose.buffer, out.buffer):
            raise InvalidError(f"layer {i} is the output")
    kinds = {layer.pose.is_difference for layer in layers}
    if len(kinds) > 1:
        raise InvalidError("layers of both kinds")
    threshold = float(threshold)
    if not 0.0 <= threshold <= 1.0:
        raise InvalidError(f"threshold {threshold} out of range")
    n = skeleton.bone_count
    w = _layer_weights(layers, n)
    difference = kinds == {True}
    rest = _rest_of(skeleton, difference)

    divisor = np.maximum(w.sum(axis=0), threshold)
    share = np.divide(w, divisor, out=np.zeros_like(w), where=divisor > 0)
    rest_share = 1.0 - share.sum(axis=0)
    rows = [layer.pose.locals for layer in layers]
    if rest_share.any():            # the rest joins as one more layer, taking the shortfall
        rows.append(rest)
        share = np.vstack([share, rest_share])
    by_bone = np.array(rows, dtype=np.float64).transpose(1, 0, 2)       # (n, layers, 10)
    # Row 0 of each bone's weights mixes translations and scales; row 1 mixes rotations,
    # each layer's sign chosen to agree with the sum of those before it, read from the
    # layers' dot products with each other (the Gram matrix).
    weights = np.empty((n, 2, len(rows)))
    weights[:, 0] = share.T
    signed = weights[:, 1]
    signed[...] = share.T
    if len(rows) > 1:
        quats = by_bone[:, :, R]
        gram = np.matmul(quats, quats.transpose(0, 2, 1))
        for i in range(1, len(rows)):
            agree = np.einsum("nl,nl->n", signed[:, :i], gram[:, :i, i])
            np.copysign(signed[:, i], agree, out=signed[:, i])
    mixed = np.matmul(weights, by_bone)                                # (n, 2, 10)
    result, q = mixed[:, 0], mixed[:, 1, R]
    length = np.sqrt(np.einsum("nc,nc->n", q, q))[:, None]
    result[:, R] = np.divide(q, length, out=rest[:, R].copy(), where=length > 0)
    out.locals[...] = result
    out.mark_kind(difference)


def build_mask(skeleton: Skeleton, chains: Sequence[MaskChain], default_weight: float,
               out: np.ndarray | None = None) -> np.ndarray:
    """maniSkeleton_BuildMask: per-bone weights from chains.

    A bone takes a chain on itself alone first, else the subtree chain on its nearest
    ancestor or itself, else the default; of two chains on one bone and kind the later wins.
    """
    _check_skeleton(skeleton)
    if chains is None:
        raise InvalidError("no chains")
    n = skeleton.bone_count
    default_weight = float(default_weight)
    if not (np.isfinite(default_weight) and default_weight >= 0):
        raise InvalidError(f"default weight {default_weight} negative or not finite")
    alone = np.full(n, np.nan)
    subtree = np.full(n, np.nan)
    for i, chain in enumerate(chains):
        bone, weight = int(chain.bone), float(chain.weight)
        if not 0 <= bone < n:
            raise InvalidError(f"chain {i}: bone {bone} past the skeleton")
        if not (np.isfinite(weight) and weight >= 0):
            raise InvalidError(f"chain {i}: weight {weight} negative or not finite")
        (subtree if chain.subtree else alone)[bone] = weight
    if out is not None and len(out) < n:
        raise CapacityError(f"{len(out)} weights for {n} bones", count=n)
    plan = skeleton.plan()
    inherited = subtree.copy()
    for start, end, parents in plan.spans:
        bones = plan.order[start:end]
        mine = inherited[bones]
        inherited[bones] = np.where(np.isnan(mine), inherited[plan.order[parents]], mine)
    weights = np.where(np.isnan(alone), np.where(np.isnan(inherited), default_weight, inherited),
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
    _check_skeleton(skeleton)
    for what, p in (("pose", pose), ("basis", basis), ("output", out)):
        _check_pose(p, skeleton, what)
    if pose.is_difference or basis.is_difference:
        raise InvalidError("a difference given as pose or basis")
    a = pose.locals.astype(np.float64)
    b = basis.locals.astype(np.float64)
    d = np.empty_like(a)
    d[:, T] = a[:, T] - b[:, T]
    q = quat_mul(quat_conj(b[:, R]), a[:, R])
    with np.errstate(all="ignore"):
        d[:, R] = q / np.sqrt(np.einsum("nc,nc->n", q, q))[:, None]
        d[:, S] = a[:, S] / b[:, S]
        stored = d.astype(np.float32)
    if not np.isfinite(stored).all():
        bone = int(np.flatnonzero(~np.isfinite(stored).all(axis=1))[0])
        raise InvalidError(f"bone {bone}: difference not finite")
    out.locals[...] = stored
    out.mark_kind(True)


def add_layers(pose: Pose, skeleton: Skeleton, layers: Sequence[BlendLayer]) -> None:
    """maniPose_AddLayers: differences applied in order at their weights w (0 to 1):
    t + w d_t, r nlerp(1, d_r, w) with the difference's turn taken the short way, and
    s (1 + w (d_s - 1)) per axis."""
    _check_skeleton(skeleton)
    _check_pose(pose, skeleton, "the pose")
    if pose.is_difference:
        raise InvalidError("a difference as the pose")
    layers = list(layers)
    for i, layer in enumerate(layers):
        _check_pose(layer.pose, skeleton, f"layer {i}")
        if not layer.pose.is_difference:
            raise InvalidError(f"layer {i} is not a difference")
    n = skeleton.bone_count
    w = _layer_weights(layers, n)
    result = pose.locals.astype(np.float64)
    for i, layer in enumerate(layers):
        d = layer.pose.locals.astype(np.float64)
        wi = w[i][:, None]
        result[:, T] += wi * d[:, T]
        # nlerp(1, d_r, w), the turn taken the short way; the product is normalized once
        turn = np.copysign(wi, d[:, 6:7]) * d[:, R]
        turn[:, 3] += 1.0 - w[i]
        q = quat_mul(result[:, R], turn)
        result[:, R] = q / np.sqrt(np.einsum("nc,nc->n", q, q))[:, None]
        result[:, S] *= 1.0 + wi * (d[:, S] - 1.0)
    with np.errstate(over="ignore"):        # past binary32's range is the caller's data
        pose.locals[...] = result
    pose.mark_stale()
