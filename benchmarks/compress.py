"""Clip compression figures on the staged motion capture (../shared/testdata/mocap, read by
runtime.importers.bvh): the ratio over the 32 walks, runs and turns at the default bound in
centimetres (0.01 cm at 3 cm), the worst shell error measured independently at every sample
of them, sampling a compressed 22-bone pose against the full clip at the same random times,
and the compressor's throughput. Skips (a line on stderr, no figures) when the files are
absent.

compress_ratio_staged_mocap: sum of 10 binary32 a bone a sample over the sum of the
compressed clips' whole files (names, events and the container's table included)."""
import sys
import time
from pathlib import Path

import numpy as np
from _figures import emit, median_us

import runtime as rt
from runtime.clip.clip import sample_times
from runtime.importers.bvh import load_bvh

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from clip_measure import measure  # noqa: E402 - the tests' measurement, not the compressor's

MOCAP = Path(__file__).resolve().parents[1].parent / "shared" / "testdata" / "mocap" / "bandai-namco-2"
LOCOMOTION = ("walk_", "run_", "walk-turn-left_", "walk-turn-right_")
OPTIONS_CM = rt.CompressOptions(precision=0.01, shell_distance=3.0, float_tolerance=0.00001)


def worst_shell_error(full, packed, skeleton, d):
    """The largest distance between the six vertices at +-d on each bone's axes, compressed
    against full, at every sample (the tests' own measurement, tests/clip_measure.py)."""
    grid = sample_times(full.sample_count, full.duration, full.sample_rate)
    return float(measure(full, packed, skeleton, d, grid).max())


def main():
    files = sorted(p for p in MOCAP.glob("*.bvh") if p.name.startswith(LOCOMOTION)) if MOCAP.is_dir() else []
    if not files:
        print(f"compress: no staged mocap at {MOCAP}; no figures", file=sys.stderr)
        return
    raw = packed_bytes = 0
    seconds = worst = 0.0
    pairs = []
    for k, path in enumerate(files):
        source = load_bvh(path).clip_source
        skeleton = source.skeleton
        full = rt.Clip(rt.build_clip(rt.Builder(), source))
        if not k:       # the kernels compiled (or loaded) before the clock runs
            rt.compress_clip(rt.Builder(), full, skeleton, OPTIONS_CM)
        builder = rt.Builder()
        start = time.perf_counter()
        report = rt.compress_clip(builder, full, skeleton, OPTIONS_CM)
        seconds += time.perf_counter() - start
        packed = rt.Clip(builder.built())
        raw += report.raw_bytes
        packed_bytes += report.compressed_bytes
        worst = max(worst, worst_shell_error(full, packed, skeleton, OPTIONS_CM.shell_distance))
        pairs.append((skeleton, full, packed))
    emit("compress_ratio_staged_mocap", raw / packed_bytes, "x", "higher", 8.5)
    emit("compress_worst_error_cm", worst, "cm", "lower", 0.01)

    skeleton, full, packed = max(pairs, key=lambda p: p[1].sample_count)
    assert skeleton.bone_count == 22
    rng = np.random.default_rng(0)
    pose = rt.Pose(skeleton)
    times = rng.uniform(0, full.duration, 997).tolist()
    at = iter(times * 2000)
    compressed_us = median_us(lambda: packed.sample(skeleton, next(at), pose), number=500)
    at = iter(times * 2000)
    full_us = median_us(lambda: full.sample(skeleton, next(at), pose), number=500)
    emit("compressed_sample_22_bones_us", compressed_us, "us", "lower", 8)
    emit("compressed_sample_vs_full_x", compressed_us / full_us, "x", "lower", 1.5)
    emit("compress_throughput_kb_per_s", raw / 1024 / seconds, "KB/s", "higher", None)


if __name__ == "__main__":
    main()
