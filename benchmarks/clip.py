"""Clip figures: sampling one 80-bone pose (directly and through a cursor), a batch of 1,000
instances at their own times, 50 float tracks, and root motion across 1,000 wraps. The
cursor's forward playback and the batch carry issue 23's targets (ozz-animation's 0.64 us on
this machine); the batch runs in spans on both cores."""
import numpy as np
from _figures import emit, median_us

import runtime as rt
from runtime.clip.clip import Clip
from runtime.clip.cursor import ClipCursor
from runtime.clip.build import ChannelPath, ChannelSource, ClipSource, FloatTrackSource, build_clip
from runtime.clip.clip import LoopPolicy
from runtime.clip.rootmotion import RootMotionSource, get_root_motion
from runtime.samples.humanoid import humanoid_source


def animated(skeleton, rng, seconds=10.0, rate=30.0, keys=41, floats=0, **kw):
    """Every bone's translation, rotation and scale keyed, LINEAR, at `keys` random times."""
    times = np.sort(np.concatenate([[0.0, seconds], rng.uniform(0, seconds, keys - 2)]))
    channels = []
    for b in range(skeleton.bone_count):
        q = rng.normal(size=(keys, 4))
        channels += [ChannelSource(b, ChannelPath.translation, times, rng.normal(size=(keys, 3))),
                     ChannelSource(b, ChannelPath.rotation, times, q / np.linalg.norm(q, axis=1, keepdims=True)),
                     ChannelSource(b, ChannelPath.scale, times, rng.uniform(0.8, 1.2, (keys, 3)))]
    tracks = [FloatTrackSource(f"w{k}", times, rng.uniform(0, 1, keys)) for k in range(floats)]
    return ClipSource(skeleton, channels, tracks, sample_rate=rate, **kw)


def main():
    rng = np.random.default_rng(0)
    builder = rt.Builder()
    skeleton = rt.Skeleton.open(rt.build_skeleton(builder, humanoid_source(80)))
    clip = Clip(build_clip(builder, animated(skeleton, rng, floats=50,
                                             loop=LoopPolicy.repeat, root_motion=RootMotionSource(0))))
    pose = rt.Pose(skeleton)

    times = iter(np.tile(rng.uniform(0, 10, 997), 1000).tolist())
    emit("clip_sample_80_us", median_us(lambda: clip.sample(skeleton, next(times), pose), number=300),
         "us", "lower", 30)

    cursor = ClipCursor.for_clip(clip)
    playhead = iter((np.arange(200000) / 60.0 % 10.0).tolist())     # played forward at 60 fps
    emit("clip_cursor_sample_80_us",
         median_us(lambda: cursor.sample(clip, skeleton, next(playhead), pose), number=300),
         "us", "lower", 2.5)

    batch = rt.PoseBatch(skeleton, 1000)
    instances = rng.uniform(0, 10, 1000)
    per_instance = median_us(lambda: clip.sample_batch(skeleton, instances, batch), number=3,
                             repeat=15) / 1000
    emit("clip_sample_batched_us", per_instance, "us", "lower", 0.5)

    out = np.empty(50, dtype=np.float32)
    emit("sample_floats_50_us", median_us(lambda: clip.sample_floats(next(times), out), number=300),
         "us", "lower", None)

    emit("root_motion_1000_wraps_us",
         median_us(lambda: get_root_motion(clip, next(times), 1000 * clip.duration + 0.37), number=50),
         "us", "lower", None)


if __name__ == "__main__":
    main()
