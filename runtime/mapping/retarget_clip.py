"""maniBuildRetargetedClip: a clip of the source baked into a clip of the target through a
retargeting map, by the ordinary clip build from a source of the retargeted samples.

Every sample of the clip (in place, as stored) is retargeted by RetargetPose; a bone's part
that is the target's rest at every sample gets no channel. An additive clip's differences
are each added to the source's rest, carried, and taken as differences from the source's
rest carried (the build then takes them from its basis again). Float tracks keep their
samples (keyed at the grid, so the build stores them as they are) and their interpolation;
discrete tracks, events and markers are copied.

Root motion moves to the first target bone that takes its rotation from the root motion
bone alone. Each stored move's translation is carried to model space through the source
bone's parent's reference model rotation, its horizontal and vertical parts scaled as
RetargetRootMotion scales them, and brought into the target bone's parent's reference frame;
its rotation is turned by the plan's parent turn P (r' = P r P^-1). The source's axes follow
P (all axes, and the whole rotation, where it takes an axis off the axes).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..clip.build import (ChannelPath, ChannelSource, ClipSource, DiscreteTrackSource,
                          FloatTrackSource, Interpolation, build_clip)
from ..clip.clip import Clip, is_open, sample_times
from ..clip.rootmotion import RootAxes, RootMotionSource, RootRotation
from ..core.builder import Builder, enter_build
from ..core.errors import BuildReason, InvalidError
from ..core.limits import NO_BONE
from ..core.transform import quat_conj, quat_mul, quat_rotate
from ..pose.pose import PoseBatch
from ..pose.skeleton import Skeleton
from .additive import carried_through_rest
from .kernels import qmatrix
from .retarget import RetargetMap, scale_move

PARTS = ((ChannelPath.translation, slice(0, 3)), (ChannelPath.rotation, slice(3, 7)),
         (ChannelPath.scale, slice(7, 10)))


@dataclass
class RetargetClipSource:
    """maniRetargetClipSource: the map, its source and target skeletons, a clip of the
    source."""

    map: Any
    source_skeleton: Any
    target_skeleton: Any
    clip: Any


def _retargeted_samples(m: RetargetMap, src: Skeleton, tgt: Skeleton, clip: Clip,
                        times: np.ndarray) -> np.ndarray:
    """(S, nt, 10) the retargeted poses (in place) at the grid's times."""
    batch = PoseBatch(src, times.size)
    clip.sample_batch(src, times, batch)
    if not clip.is_additive:
        return m.retarget_samples(src, tgt, batch.locals)
    scratch = bytearray(m.scratch_size)
    return carried_through_rest(batch, src, tgt,
                                lambda a, b: m.retarget_pose(src, a, tgt, b, scratch), "carried")


def root_turns(m: RetargetMap, src: Skeleton, tgt: Skeleton, bone: int, follower: int):
    """The source bone's parent's and the follower's parent's reference model rotations."""
    identity = np.array([0.0, 0.0, 0.0, 1.0])
    ps, pt = src.parent(bone), tgt.parent(follower)
    return (identity if ps == NO_BONE else m._s_ref[ps, 10:14],
            identity if pt == NO_BONE else m._t_ref[pt, 10:14])


def carried_moves(m: RetargetMap, s_turn, t_turn, moves: np.ndarray) -> np.ndarray:
    """(S, 7) binary64 moves of the follower from the source bone's (see the module)."""
    moves = np.asarray(moves, dtype=np.float64)
    k = moves.shape[0]
    s, t = np.broadcast_to(s_turn, (k, 4)), np.broadcast_to(t_turn, (k, 4))
    turn = quat_mul(quat_conj(t), s)
    model = quat_rotate(s, moves[:, 0:3])
    if m.has_pelvis:
        model = scale_move(m._pelvis_f, model)
    out = np.empty_like(moves)
    out[:, 0:3] = quat_rotate(quat_conj(t), model)
    out[:, 3:7] = quat_mul(quat_mul(turn, moves[:, 3:7]), quat_conj(turn))
    return out


def _root_motion(m: RetargetMap, src: Skeleton, tgt: Skeleton, clip: Clip):
    fields = clip.root_motion_fields
    if fields is None:
        return None, None
    bone, axes, rotation = fields
    follower = m.follower(bone)
    if follower < 0:
        raise InvalidError("no target bone follows the root motion bone alone",
                           reason=BuildReason.RootMotion, item=NO_BONE)
    s_turn, t_turn = root_turns(m, src, tgt, bone, follower)
    moves = carried_moves(m, s_turn, t_turn, clip.moves)
    turn = np.abs(qmatrix(quat_mul(quat_conj(t_turn[None]), s_turn[None])[0]))
    target = turn.argmax(axis=0)            # [row: the follower parent's axis, column: the source's]
    if not (np.abs(turn.max(axis=0) - 1) <= 1e-5).all():
        return RootMotionSource(follower, RootAxes.all if axes else RootAxes.none,
                                RootRotation.whole if rotation else RootRotation.none), moves
    moved = sum(1 << int(target[i]) for i in range(3) if axes & (1 << i))
    if RootRotation.about_x <= rotation <= RootRotation.about_z:
        rotation = RootRotation.about_x + int(target[rotation - RootRotation.about_x])
    return RootMotionSource(follower, RootAxes(moved), RootRotation(rotation)), moves


def _tracks(clip: Clip, times: np.ndarray):
    values = clip.decoded_floats().astype(np.float64)
    floats = [FloatTrackSource(clip.float_track_name(k), times, values[:, k],
                               Interpolation.step if clip.float_track_is_step(k)
                               else Interpolation.linear)
              for k in range(clip.float_track_count)]
    discretes = [DiscreteTrackSource(clip.discrete_track_name(k), *clip.discrete_track_keys(k))
                 for k in range(clip.discrete_track_count)]
    return floats, discretes


def retargeted_clip_source(source: RetargetClipSource) -> ClipSource:
    """The clip source of the clip retargeted; refusals as build_retargeted_clip's."""
    m, src, tgt, clip = source.map, source.source_skeleton, source.target_skeleton, source.clip
    if src.identity != m.source_identity or src.bone_count != m.source_bone_count:
        raise InvalidError("a source skeleton not the map's", reason=BuildReason.RetargetClip, other=0)
    if tgt.identity != m.target_identity or tgt.bone_count != m.target_bone_count:
        raise InvalidError("a target skeleton not the map's", reason=BuildReason.RetargetClip, other=1)
    if clip.skeleton_identity != m.source_identity:
        raise InvalidError("a clip not of the source", reason=BuildReason.RetargetClip, other=2)
    times = sample_times(clip.sample_count, clip.duration, clip.sample_rate)
    root, moves = _root_motion(m, src, tgt, clip)
    samples = _retargeted_samples(m, src, tgt, clip, times)
    at_rest = (samples.view(np.uint32) == tgt.rests.view(np.uint32)).all(axis=0)
    if root is not None:            # the parts root motion stores as animated keep a channel
        at_rest[root.bone, 0:3] = False
        if root.rotation != RootRotation.none:
            at_rest[root.bone, 3:7] = False
    channels = [ChannelSource(b, path, times, samples[:, b, cols].astype(np.float64))
                for b in range(tgt.bone_count) for path, cols in PARTS
                if not at_rest[b, cols].all()]
    floats, discretes = _tracks(clip, times)
    return ClipSource(
        skeleton=tgt, channels=channels, float_tracks=floats, discrete_tracks=discretes,
        events=[clip.event(i) for i in range(clip.event_count)],
        markers=[clip.marker(i) for i in range(clip.marker_count)],
        sample_rate=clip.sample_rate, duration=clip.duration, loop=clip.loop_policy,
        additive=clip.additive_basis, root_motion=root, root_moves=moves)


def build_retargeted_clip(builder: Builder, source: RetargetClipSource) -> bytes:
    """maniBuildRetargetedClip: the retargeted clip built and kept in the builder. A missing
    map, skeleton or clip is a misuse."""
    enter_build(builder, source, RetargetClipSource, map=RetargetMap, source_skeleton=Skeleton,
                target_skeleton=Skeleton, clip=None)
    if not is_open(source.clip):
        raise builder.refuse("a RetargetClipSource without its clip (an opened Clip)")
    return build_clip(builder, retargeted_clip_source(source))
