"""Real motion capture retargeted onto the trainer (runtime.samples.trainer: other bone names,
proportions and local axes, one spine bone more): feet planted in the source stay planted in
the target. A planted frame is one where the source's ankle is within PLANTED_HEIGHT of its
lowest in the clip and moves slower than PLANTED_SPEED; its sliding is the ankle's
horizontal move to the next frame, in centimetres. The target's, divided by the map's
horizontal scale (the pelvis height ratio), must stay within 1.5 times the source's.

Reads ../shared/testdata/mocap/bandai-namco-2 (Bandai Namco Research Motion Dataset 2, CC
BY-NC 4.0), skipping when it is not there."""
from pathlib import Path

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.importers.bvh import load_bvh
from runtime.mapping import RetargetMap, build_retarget_map
from runtime.samples.trainer import mocap_reference, mocap_retarget_source, trainer_skeleton_source

MOCAP = Path(__file__).resolve().parents[1].parent / "shared" / "testdata" / "mocap" / "bandai-namco-2"
LOCOMOTION = sorted(MOCAP.glob("walk*.bvh")) + sorted(MOCAP.glob("run*.bvh"))
PLANTED_HEIGHT = 3.0            # cm above the ankle's lowest
PLANTED_SPEED = 20.0            # cm/s
FEET = (("Foot_L", "foot.L"), ("Foot_R", "foot.R"))

pytestmark = pytest.mark.skipif(not LOCOMOTION, reason=f"no mocap at {MOCAP}")


def _clip(path):
    imp = load_bvh(path)
    return imp.clip_source.skeleton, rt.Clip.open(rt.build_clip(rt.Builder(), imp.clip_source))


@pytest.fixture(scope="module")
def setup():
    mocap, walk = _clip(MOCAP / "walk_normal_001.bvh")
    trainer = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), trainer_skeleton_source()))
    first = rt.Pose(mocap)
    walk.sample(mocap, 0.0, first)
    feet, _ = _ankles(mocap, walk, [mocap.find_bone(s) for s, _ in FEET])
    ankle = float(np.percentile(feet[..., 1], 2))          # the ankle's height standing
    reference = mocap_reference(mocap, first.locals, trainer, ankle)
    m = RetargetMap(build_retarget_map(rt.Builder(), mocap_retarget_source(mocap, reference, trainer)))
    return mocap, trainer, m


def _ankles(skeleton, clip, bones, locals_=None):
    """(frames, feet, 3) model positions of the bones at every sample of the clip (or of
    the given (frames, n, 10) locals)."""
    times = np.minimum(np.arange(clip.sample_count) / clip.sample_rate, clip.duration)
    batch = rt.PoseBatch(skeleton, times.size)
    if locals_ is None:
        clip.sample_batch(skeleton, times, batch)
    else:
        batch.locals[...] = locals_
    batch.compute_model(skeleton)
    return batch.model[:, bones][..., 3].astype(np.float64), batch.locals


def test_planted_feet_stay_planted_on_the_trainer(setup):
    mocap, trainer, m = setup
    scale = float(m._pelvis_f[4])                   # horizontal: the height ratio times 1
    rows, totals = [], np.zeros(3)
    for path in LOCOMOTION:
        skeleton, clip = _clip(path)
        assert skeleton.identity == mocap.identity
        src, locals_ = _ankles(mocap, clip, [mocap.find_bone(s) for s, _ in FEET])
        tgt, _ = _ankles(trainer, clip, [trainer.find_bone(t) for _, t in FEET],
                         m.retarget_samples(mocap, trainer, locals_))
        step_s = np.linalg.norm(np.diff(src[..., [0, 2]], axis=0), axis=-1)      # (frames-1, feet)
        step_t = np.linalg.norm(np.diff(tgt[..., [0, 2]], axis=0), axis=-1) / scale
        low = src[:-1, :, 1] <= src[..., 1].min(axis=0) + PLANTED_HEIGHT
        planted = low & (step_s * clip.sample_rate < PLANTED_SPEED)
        s, t = step_s[planted].mean(), step_t[planted].mean()
        rows.append((path.stem, int(planted.sum()), s, t))
        totals += (planted.sum(), step_s[planted].sum(), step_t[planted].sum())
    print(f"\nfoot sliding per planted frame, cm (the trainer's over the horizontal scale {scale:.4f})")
    print(f"{'clip':28s} {'frames':>6s} {'mocap':>7s} {'trainer':>8s}")
    for name, n, s, t in rows:
        print(f"{name:28s} {n:6d} {s:7.3f} {t:8.3f}")
    n, s, t = totals
    print(f"{'all':28s} {int(n):6d} {s / n:7.3f} {t / n:8.3f}")
    assert t / n <= 1.5 * s / n
    for name, n, s, t in rows:
        assert n >= 10, name
        assert t <= 1.5 * s, f"{name}: the trainer's feet slide {t:.3f} cm a planted frame, the mocap's {s:.3f}"


def test_the_trainer_stands_on_its_feet_where_the_mocap_does(setup):
    """The pelvis rule keeps the trainer's planted ankles at its own ankle height: their
    height over planted frames is the trainer's rest ankle height within a centimetre."""
    mocap, trainer, m = setup
    skeleton, clip = _clip(MOCAP / "walk_normal_002.bvh")
    src, locals_ = _ankles(mocap, clip, [mocap.find_bone(s) for s, _ in FEET])
    tgt, _ = _ankles(trainer, clip, [trainer.find_bone(t) for _, t in FEET],
                     m.retarget_samples(mocap, trainer, locals_))
    planted = src[..., 1] <= src[..., 1].min(axis=0) + PLANTED_HEIGHT
    rest = rt.Pose(trainer)
    ankle = rest.model[trainer.find_bone("foot.L"), 1, 3]
    assert abs(np.median(tgt[..., 1][planted]) - ankle) < 1.0


def test_the_trainers_map_through_its_json_form_builds_the_same_file(setup):
    """The trainer's map written as text and built from it is the file built from the
    source (its pelvis's horizontal factor no short decimal)."""
    mocap, trainer, m = setup
    first = rt.Pose(mocap)
    reference = mocap_reference(mocap, first.locals, trainer, 11.5)
    source = mocap_retarget_source(mocap, reference, trainer)
    b = rt.Builder()
    capi.maniWriteRetargetMapJson(b, source)
    text = b.copy_built()
    capi.maniBuildRetargetMapJson(b, text, mocap, trainer)
    assert b.copy_built() == build_retarget_map(rt.Builder(), source)
