"""maniBuildMirroredClip: a clip baked mirrored through a mirror map, built by the ordinary
clip build from a source of the mirrored samples.

Every sample of the clip is mirrored by MirrorPose (with root motion put back first, so the
build takes it out again, from the partner); a bone's part that is the rest at every sample
(the rest itself, or the rest mirrored where that is the rest up to a few ulps of the
mirror's rounding) gets no channel. An additive clip's differences are each added to the rest, mirrored, and
taken as differences from the rest mirrored (the build then takes them from its basis again).
Events and markers keep their times, their names renamed by MirrorName. Root motion moves to
the root motion bone's partner, its axes turned by the partner's parent correction (all axes,
and the whole rotation, where the turn takes an axis off the axes).

Two departures from the spec, for now (capi's __pending__ says so): float and discrete
tracks are refused (reason MirrorClip, other 2), since the clip's public API gives neither a
float track's interpolation nor a discrete track's key times; and the moves are the clip
build's, taken out of the partner's mirrored channel, not the stored moves reflected, since
a clip source cannot give moves. The whole motion is the same (restored, every sample is
MirrorPose of the clip's restored sample); the split between move and pose is the spec's
where the root motion bone's correction is the identity.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..clip import rootmotion
from ..clip.build import ChannelPath, ChannelSource, ClipSource, build_clip
from ..clip.clip import Clip, ClipEvent, is_open
from ..clip.rootmotion import RootAxes, RootMotionSource, RootRotation
from ..core.builder import Builder, enter_build
from ..core.errors import BuildReason, InvalidError
from ..pose.blend import BlendLayer, add_layers, compute_pose_difference
from ..pose.pose import Pose, PoseBatch
from ..pose.skeleton import Skeleton
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


def _grid(clip: Clip) -> np.ndarray:
    times = np.arange(clip.sample_count) / clip.sample_rate
    if clip.sample_count > 1:
        times[-1] = clip.duration
    return times


def _mirrored_samples(m: MirrorMap, sk: Skeleton, clip: Clip, times: np.ndarray) -> np.ndarray:
    """(S, n, 10) the mirrored full poses at the grid's times."""
    batch = PoseBatch(sk, times.size)
    clip.sample_batch(sk, times, batch)
    out = PoseBatch(sk, times.size)
    if clip.is_additive:
        rest, mirrored_rest, full, mirrored, difference = (Pose(sk) for _ in range(5))
        m.mirror_pose(sk, rest, mirrored_rest)
        for k, pose in enumerate(batch.poses):
            full.set_rest(sk)
            add_layers(full, sk, [BlendLayer(pose, 1.0)])
            m.mirror_pose(sk, full, mirrored)
            compute_pose_difference(sk, mirrored, mirrored_rest, difference)
            if not difference.is_difference:     # left unchanged: not finite
                raise InvalidError(f"sample {k}: the difference from the rest mirrored is not "
                                   "finite", reason=BuildReason.Basis, item=k)
            out.poses[k].set_rest(sk)
            add_layers(out.poses[k], sk, [BlendLayer(difference, 1.0)])
    else:
        for k, pose in enumerate(batch.poses):
            rootmotion.restore(clip, sk, times[k], pose)
            m.mirror_pose(sk, pose, out.poses[k])
    return out.locals


def _root_motion(m: MirrorMap, clip: Clip) -> RootMotionSource | None:
    fields = clip.root_motion_fields
    if fields is None:
        return None
    bone, axes, rotation = fields
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


def mirrored_clip_source(source: MirrorClipSource) -> ClipSource:
    """The clip source of the clip mirrored; refusals as build_mirrored_clip's."""
    m, sk, clip = source.map, source.skeleton, source.clip
    if sk.identity != m.skeleton_identity or sk.bone_count != m.bone_count:
        raise InvalidError("a skeleton not the map's", reason=BuildReason.MirrorClip, other=0)
    if clip.skeleton_identity != m.skeleton_identity:
        raise InvalidError("a clip not of the map's skeleton", reason=BuildReason.MirrorClip, other=1)
    if clip.float_track_count or clip.discrete_track_count:
        raise InvalidError("a clip with float or discrete tracks (not yet mirrored)",
                           reason=BuildReason.MirrorClip, other=2)
    times = _grid(clip)
    samples = _mirrored_samples(m, sk, clip, times)
    root = _root_motion(m, clip)
    rest, mirrored_rest = Pose(sk), Pose(sk)
    m.mirror_pose(sk, rest, mirrored_rest)
    # the rest mirrored is the rest where the two are a rounding apart (a few ulps)
    rest_like = np.abs(mirrored_rest.locals - sk.rests) <= 4 * np.spacing(np.abs(sk.rests))
    at_rest = ((samples.view(np.uint32) == sk.rests.view(np.uint32))
               | ((samples.view(np.uint32) == mirrored_rest.locals.view(np.uint32))
                  & rest_like)).all(axis=0)
    channels = []
    for b in range(sk.bone_count):
        for path, cols in PARTS:
            if root is not None and b == root.bone or not at_rest[b, cols].all():
                channels.append(ChannelSource(b, path, times, samples[:, b, cols].astype(np.float64)))
    rename = lambda e: ClipEvent(m.mirror_name(e.name), e.time)     # noqa: E731
    return ClipSource(
        skeleton=sk, channels=channels,
        events=[rename(clip.event(i)) for i in range(clip.event_count)],
        markers=[rename(clip.marker(i)) for i in range(clip.marker_count)],
        sample_rate=clip.sample_rate, duration=clip.duration, loop=clip.loop_policy,
        additive=clip.additive_basis, root_motion=root)


def build_mirrored_clip(builder: Builder, source: MirrorClipSource) -> bytes:
    """maniBuildMirroredClip: the mirrored clip built and kept in the builder. A missing map,
    skeleton or clip is a misuse."""
    enter_build(builder, source, MirrorClipSource, map=MirrorMap, skeleton=Skeleton, clip=None)
    if not is_open(source.clip):
        raise builder.refuse("a MirrorClipSource without its clip (an opened Clip)")
    return build_clip(builder, mirrored_clip_source(source))
