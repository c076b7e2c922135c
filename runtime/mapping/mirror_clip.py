"""maniBuildMirroredClip: a clip baked mirrored through a mirror map, built by the ordinary
clip build from a source of the mirrored samples.

Every sample of the clip (in place, as stored) is mirrored by MirrorPose; a bone's part that
is the rest at every sample (the rest itself, or the rest mirrored where that is the rest
up to a few ulps of the mirror's rounding) gets no channel. An additive clip's differences
are each added to the rest, mirrored, and taken as differences from the rest mirrored (the
build then takes them from its basis again). Float tracks keep their samples (keyed at the
grid, so the build stores them as they are) and their interpolation; discrete tracks,
events and markers keep their keys and times; every name is renamed by MirrorName.

Root motion moves to the root motion bone's partner p: each stored move reflected as
MirrorRootMotion reflects it, then turned by E_p (p's correction from its partner's
parent's reference frame mirrored to its parent's, the turn MirrorPose gives p's
translation): t' = E_p m(t), r' = E_p m(r) E_p^-1. The moves go to the build as given
(ClipSource.root_moves), so the partner's in-place channel is the original's in place
mirrored and, restored, the mirrored clip is MirrorPose of the restored clip: E_p m(m_r s_r)
C_p = (E_p m(m_r) E_p^-1)(E_p m(s_r) C_p). The source's axes follow E_p (all axes, and the
whole rotation, where it takes an axis off the axes).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..clip.build import (ChannelPath, ChannelSource, ClipSource, DiscreteTrackSource,
                          FloatTrackSource, Interpolation, build_clip)
from ..clip.clip import Clip, ClipEvent, is_open, sample_times
from ..clip.rootmotion import RootAxes, RootMotionSource, RootRotation
from ..core.builder import Builder, enter_build
from ..core.errors import BuildReason, InvalidError
from ..core.transform import quat_conj, quat_mul, quat_rotate
from ..pose.pose import Pose, PoseBatch
from ..pose.skeleton import Skeleton
from .additive import carried_through_rest
from .kernels import qmatrix
from .mirror import MirrorMap

PARTS = ((ChannelPath.translation, slice(0, 3)), (ChannelPath.rotation, slice(3, 7)),
         (ChannelPath.scale, slice(7, 10)))


@dataclass
class MirrorClipSource:
    """maniMirrorClipSource: the map, its skeleton and a clip of that skeleton."""

    map: Any
    skeleton: Any
    clip: Any


def _mirrored_samples(m: MirrorMap, sk: Skeleton, clip: Clip, times: np.ndarray) -> np.ndarray:
    """(S, n, 10) the mirrored poses (in place) at the grid's times."""
    batch = PoseBatch(sk, times.size)
    clip.sample_batch(sk, times, batch)
    if clip.is_additive:
        return carried_through_rest(batch, sk, sk, lambda a, b: m.mirror_pose(sk, a, b),
                                    "mirrored")
    out = PoseBatch(sk, times.size)
    for k, pose in enumerate(batch.poses):
        m.mirror_pose(sk, pose, out.poses[k])
    return out.locals


def mirrored_moves(m: MirrorMap, partner: int, moves: np.ndarray) -> np.ndarray:
    """(S, 7) binary64: each move reflected as MirrorRootMotion reflects it (the normal's
    translation component and the rotation's other two components negated), then turned
    by the partner's parent correction E: (E t, E r E^-1)."""
    reflected = np.array(moves, dtype=np.float64)
    a = m._axis
    reflected[:, a] = -reflected[:, a]
    reflected[:, [3 + i for i in range(3) if i != a]] *= -1
    e = np.broadcast_to(m._turns[partner, 4:8], (reflected.shape[0], 4))
    out = np.empty_like(reflected)
    out[:, 0:3] = quat_rotate(e, reflected[:, 0:3])
    out[:, 3:7] = quat_mul(quat_mul(e, reflected[:, 3:7]), quat_conj(e))
    return out


def _root_motion(m: MirrorMap, clip: Clip) -> RootMotionSource | None:
    fields = clip.root_motion_fields
    if fields is None:
        return None
    bone, axes, rotation = fields
    if bone >= m.bone_count:        # a clip whose root bone its skeleton lacks
        raise InvalidError("a clip not of the map's skeleton", reason=BuildReason.MirrorClip,
                           other=1)
    partner = m.partner(bone)
    turn = np.abs(qmatrix(m._turns[partner, 4:8]))        # [row: partner's axis, column: bone's]
    target = turn.argmax(axis=0)
    if not (np.abs(turn.max(axis=0) - 1) <= 1e-5).all():
        return RootMotionSource(partner, RootAxes.all if axes else RootAxes.none,
                                RootRotation.whole if rotation else RootRotation.none)
    moved = sum(1 << int(target[i]) for i in range(3) if axes & (1 << i))
    if RootRotation.about_x <= rotation <= RootRotation.about_z:
        rotation = RootRotation.about_x + int(target[rotation - RootRotation.about_x])
    return RootMotionSource(partner, RootAxes(moved), RootRotation(rotation))


def _tracks(m: MirrorMap, clip: Clip, times: np.ndarray):
    """The float tracks keyed at the grid by their samples, and the discrete tracks' keys,
    every name renamed."""
    values = clip.decoded_floats().astype(np.float64)
    floats = [FloatTrackSource(m.mirror_name(clip.float_track_name(k)), times, values[:, k],
                               Interpolation.step if clip.float_track_is_step(k)
                               else Interpolation.linear)
              for k in range(clip.float_track_count)]
    discretes = [DiscreteTrackSource(m.mirror_name(clip.discrete_track_name(k)),
                                     *clip.discrete_track_keys(k))
                 for k in range(clip.discrete_track_count)]
    return floats, discretes


def mirrored_clip_source(source: MirrorClipSource) -> ClipSource:
    """The clip source of the clip mirrored; refusals as build_mirrored_clip's."""
    m, sk, clip = source.map, source.skeleton, source.clip
    if sk.identity != m.skeleton_identity or sk.bone_count != m.bone_count:
        raise InvalidError("a skeleton not the map's", reason=BuildReason.MirrorClip, other=0)
    if clip.skeleton_identity != m.skeleton_identity:
        raise InvalidError("a clip not of the map's skeleton", reason=BuildReason.MirrorClip, other=1)
    times = sample_times(clip.sample_count, clip.duration, clip.sample_rate)
    root = _root_motion(m, clip)
    samples = _mirrored_samples(m, sk, clip, times)
    rest, mirrored_rest = Pose(sk), Pose(sk)
    m.mirror_pose(sk, rest, mirrored_rest)
    # the rest mirrored is the rest where the two are a rounding apart (a few ulps)
    rest_like = np.abs(mirrored_rest.locals - sk.rests) <= 4 * np.spacing(np.abs(sk.rests))
    at_rest = ((samples.view(np.uint32) == sk.rests.view(np.uint32))
               | ((samples.view(np.uint32) == mirrored_rest.locals.view(np.uint32))
                  & rest_like)).all(axis=0)
    if root is not None:            # the parts root motion stores as animated keep a channel
        at_rest[root.bone, 0:3] = False
        if root.rotation != RootRotation.none:
            at_rest[root.bone, 3:7] = False
    channels = [ChannelSource(b, path, times, samples[:, b, cols].astype(np.float64))
                for b in range(sk.bone_count) for path, cols in PARTS
                if not at_rest[b, cols].all()]
    floats, discretes = _tracks(m, clip, times)
    rename = lambda e: ClipEvent(m.mirror_name(e.name), e.time)     # noqa: E731
    return ClipSource(
        skeleton=sk, channels=channels, float_tracks=floats, discrete_tracks=discretes,
        events=[rename(clip.event(i)) for i in range(clip.event_count)],
        markers=[rename(clip.marker(i)) for i in range(clip.marker_count)],
        sample_rate=clip.sample_rate, duration=clip.duration, loop=clip.loop_policy,
        additive=clip.additive_basis, root_motion=root,
        root_moves=None if root is None else mirrored_moves(m, root.bone, clip.moves))


def build_mirrored_clip(builder: Builder, source: MirrorClipSource) -> bytes:
    """maniBuildMirroredClip: the mirrored clip built and kept in the builder. A missing map,
    skeleton or clip is a misuse."""
    enter_build(builder, source, MirrorClipSource, map=MirrorMap, skeleton=Skeleton, clip=None)
    if not is_open(source.clip):
        raise builder.refuse("a MirrorClipSource without its clip (an opened Clip)")
    return build_clip(builder, mirrored_clip_source(source))
