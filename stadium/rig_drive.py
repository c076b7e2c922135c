"""Driving a StadiumRig's two matrix chains from outside, with a pose the runtime made.

The rig normally computes its chains itself, in pose(). On the runtime path a battler's
animation graph makes the pose instead (stadium.convert's split skeleton: a pivot and a
draw bone per pack bone), and this writes it where pose() would have: the pivot matrix
of every bone and its accumulated scale, which together are the draw matrix. What the
rig does after pose() (anchor(), skin(), textures()) then reads them exactly as if it
had posed them itself: the anchor measures the body centre on the pivots, the skin
sends vertices through pivot x scale and normals through the pivot.

rig.py has no hook for this, so this module writes the rig's own arrays; it is the one
place that knows them (StadiumRig, stadium/rig.py):

    _world[:n, :3, :]   the pivot chain, (n, 3, 4) rows of the 4x4s the chain composes
    _acc[:n]            each bone's accumulated scale; _scaled says whether to apply it
    _frame_at           the whole frame textures() reads
    _pose_key = None    so the next pose() composes afresh instead of trusting its cache
    _pose_serial += 1   so skin() knows the pose changed
    _travel, _applied   reset, as after pose(): anchor() measures the new pose from scratch

A hook in rig.py, ``StadiumRig.set_chains(pivot, scale, frame_at)`` doing exactly this,
would let this module shrink to a call.
"""
from __future__ import annotations

import math

import numpy as np

from . import pack

# the acc == 1 test tolerates float32 noise: a scale this close to 1 changes nothing
UNIT_SCALE = 1e-7


def drive(rig, pivot: np.ndarray, scale: np.ndarray, frame_at: int) -> None:
    """Set the rig's pose: ``pivot`` (n, 3, 4) the pivot matrix of each pack bone (raw
    units) and ``scale`` (n, 3) its accumulated scale, which the draw matrix applies on
    the right of the pivot."""
    n = len(rig.species.parents)
    rig._world[:n, :3, :] = pivot
    acc = rig._acc[:n]
    acc[...] = scale
    rig._scaled = bool(np.any(np.abs(acc - 1.0) > UNIT_SCALE))
    rig._frame_at = int(frame_at)
    rig._pose_key = None
    rig._pose_serial += 1
    rig._travel = None
    rig._applied = (0.0, 0.0, 0.0)


def scale_of(pivot: np.ndarray, draw: np.ndarray) -> np.ndarray:
    """The accumulated scale a draw matrix applies to its pivot: each column of the draw
    block is the pivot's unit column, scaled."""
    return np.einsum("bij,bij->bj", draw[:, :, :3], pivot[:, :, :3])


def anchor_state(rig):
    """The rig's one piece of state carried from frame to frame (the smoothed anchor
    offset), for a save."""
    filtered = rig._filtered
    return None if filtered is None else [float(v) for v in filtered]


def set_anchor_state(rig, value) -> None:
    rig._filtered = None if value is None else tuple(float(v) for v in value)


def shown_frame(species: pack.Species, anim, frame: float, wrap: bool) -> int:
    """The whole frame pose() shows for a float frame (after its wrap or hold): what the
    texture streams are read at."""
    if anim is None or anim == pack.NO_ANIM or not 0 <= anim < len(species.anims):
        return 0
    a = species.anims[anim]
    if a.frames <= 1:
        return 0
    whole = math.floor(max(float(frame), 0.0))
    last = a.frames - 1
    if whole > last:
        if wrap:
            loop = a.loop_start if 0 < a.loop_start < a.frames else 0
            whole = loop + (whole - loop) % (a.frames - loop)
        else:
            whole = last
    return whole


def invalidate(rig) -> None:
    """Make the next pose() compose afresh (after anchor() moved the pose it cached)."""
    rig._pose_key = None
