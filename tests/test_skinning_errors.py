"""Every error the skinning jobs' and palette conversions' Returns lines name, and that a
refused job writes nothing."""
import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core.scratch import Scratch
from runtime.deform.skinning import SkinJob, SkinStream, StreamKind

from test_skin_fixtures import humanoid, open_skin, random_influences

JOBS = [capi.maniSkinLinear, capi.maniSkinDualQuaternion, capi.maniSkinBlended,
        capi.maniSkinCenters]


@pytest.fixture(scope="module")
def rig():
    rng = np.random.default_rng(0)
    skin = open_skin(humanoid(10))
    infl = random_influences(rng, skin, 64, per=2, dq=rng.random(64))
    from runtime.deform.influences import CenterSource, Influences
    from test_skin_fixtures import build
    centers = Influences.open(build(capi.maniBuildCenters,
                                    CenterSource(infl, rng.normal(size=(64, 3)), [[0, 1, 2]])))
    palette = np.tile(np.eye(3, 4, dtype=np.float32), (10, 1, 1))
    return infl, centers, palette, capi.maniConvertPaletteToDualQuaternions(palette)


def good_job(rig, fn):
    infl, centers, palette, dq = rig
    source = np.ones((64, 3), np.float32)
    target = np.full((64, 3), 5.0, np.float32)
    return SkinJob(centers if fn is capi.maniSkinCenters else infl, palette, dq,
                   [SkinStream(StreamKind.position, source, target)])


def refused(fn, job):
    targets = [s.target for s in (job.streams or []) if isinstance(s, SkinStream)
               and isinstance(s.target, np.ndarray)]
    before = [t.copy() for t in targets]
    with pytest.raises(rt.InvalidError):
        fn(job)
    for t, b in zip(targets, before):
        np.testing.assert_array_equal(t, b)


@pytest.mark.parametrize("fn", JOBS)
def test_good_jobs_run(rig, fn):
    job = good_job(rig, fn)
    fn(job)
    assert np.isfinite(job.streams[0].target).all()
    fn(SkinJob(job.influences, job.palette, job.dual_quaternions, []))       # no streams
    job.first, job.count = 10, 0
    fn(job)                                                                  # an empty range


@pytest.mark.parametrize("fn", JOBS)
def test_invalid_jobs_write_nothing(rig, fn):
    infl, centers, palette, dq = rig
    for edit in [
        lambda j: setattr(j, "influences", None),                # a view no open wrote
        lambda j: setattr(j, "influences", object()),
        lambda j: setattr(j, "first", 60) or setattr(j, "count", 5),      # past the vertices
        lambda j: setattr(j, "first", -1),
        lambda j: setattr(j, "count", 65),
        lambda j: setattr(j, "first", 1.5),
        lambda j: setattr(j, "streams", None),
        lambda j: j.streams.append(None),
        lambda j: j.streams.append(SkinStream(7, j.streams[0].source, j.streams[0].target)),
        lambda j: setattr(j.streams[0], "source", None),       # a stream without pointers
        lambda j: setattr(j.streams[0], "target", None),
        lambda j: setattr(j.streams[0], "source", np.ones((64, 2), np.float32)),
        lambda j: setattr(j.streams[0], "source", np.ones((64, 3))),          # not float32
        lambda j: setattr(j.streams[0], "source", np.ones((63, 3), np.float32)),
        lambda j: setattr(j.streams[0], "source",                 # rows overlapping: stride 8
                          np.lib.stride_tricks.as_strided(np.ones(200, np.float32), (64, 3), (8, 4))),
        lambda j: setattr(j.streams[0], "source", np.ones((3, 64), np.float32).T),
        lambda j: j.streams[0].target.setflags(write=False),
        lambda j: setattr(j, "scratch", object()),
    ]:
        job = good_job(rig, fn)
        edit(job)
        refused(fn, job)


def test_palettes_each_job_needs(rig):
    infl, centers, palette, dq = rig
    for fn, needs in ((capi.maniSkinLinear, "palette"), (capi.maniSkinBlended, "palette"),
                      (capi.maniSkinDualQuaternion, "dual_quaternions"),
                      (capi.maniSkinBlended, "dual_quaternions"),
                      (capi.maniSkinCenters, "dual_quaternions")):
        for bad in (None, palette[:9] if needs == "palette" else dq[:9],
                    np.zeros((10, 3, 3), np.float32) if needs == "palette" else np.zeros((10, 16))):
            job = good_job(rig, fn)
            setattr(job, needs, bad)
            refused(fn, job)
    # linear skinning needs no dual quaternions, dual quaternions no palette
    job = good_job(rig, capi.maniSkinLinear)
    job.dual_quaternions = None
    capi.maniSkinLinear(job)
    job = good_job(rig, capi.maniSkinDualQuaternion)
    job.palette = None
    capi.maniSkinDualQuaternion(job)


def test_centers_need_influences_with_centers(rig):
    job = good_job(rig, capi.maniSkinLinear)                # the influences without centers
    refused(capi.maniSkinCenters, job)


@pytest.mark.parametrize("per", [1, 2])                    # a rigid file, and not
def test_a_joint_changed_after_the_open_reads_palette_entry_0(rig, per):
    """Bytes changed after the open skin to some vertices, within the file and palette."""
    rng = np.random.default_rng(1)
    skin = open_skin(humanoid(10))
    n = 3000
    joints = np.argsort(rng.random((n, 10)), axis=1)[:, :per]
    from runtime.deform.influences import InfluenceSource, Influences
    from test_skin_fixtures import build
    data = bytearray(build(capi.maniBuildInfluences,
                           InfluenceSource.from_dense(skin, joints, np.ones((n, per)))))
    infl = Influences.open(data)                             # a writable buffer, in place
    assert infl.rigid == (per == 1)
    palette = np.zeros((10, 3, 4), np.float32)
    palette[:, :, 3] = np.arange(10)[:, None]
    palette[:, :, :3] = np.eye(3)
    infl.joints[:per, :] = 65000                             # every joint past the skin's
    for fn in (capi.maniSkinLinear, capi.maniSkinDualQuaternion):
        target = np.empty((n, 3), np.float32)
        fn(SkinJob(infl, palette, capi.maniConvertPaletteToDualQuaternions(palette),
                   [SkinStream(0, np.zeros((n, 3), np.float32), target)]))
        np.testing.assert_array_equal(target, 0)             # entry 0's translation


def test_palette_conversions_refuse_null_and_non_finite_leaving_the_output():
    out = np.full((2, 20), 3.0, np.float32)
    bad = np.tile(np.eye(3, 4, dtype=np.float32), (2, 1, 1))
    bad[1, 0, 3] = np.inf
    for palette in (None, bad):
        with pytest.raises(rt.InvalidError):
            capi.maniConvertPaletteToDualQuaternions(palette, out)
        np.testing.assert_array_equal(out, 3.0)
    with pytest.raises(rt.InvalidError):
        capi.maniConvertPaletteToRows(None)
    with pytest.raises(rt.InvalidError):
        capi.maniConvertPaletteToRows(np.zeros((2, 3, 3)))
    with pytest.raises(rt.InvalidError):
        capi.maniConvertPaletteToDualQuaternions(np.zeros((2, 3, 4)), np.zeros((3, 20), np.float32))
    assert capi.maniConvertPaletteToDualQuaternions(np.zeros((0, 3, 4))).shape == (0, 20)


def test_a_collapsed_palette_still_converts():
    palette = np.zeros((1, 3, 4), np.float32)
    palette[0, 0, 0] = 2.0
    out = capi.maniConvertPaletteToDualQuaternions(palette)
    assert np.isfinite(out).all()
    np.testing.assert_allclose(np.linalg.norm(out[0, :4]), 1, atol=1e-6)


def test_scratch_of_another_kind_is_refused(rig):
    job = good_job(rig, capi.maniSkinLinear)
    job.scratch = Scratch()
    capi.maniSkinLinear(job)
    job.scratch = "scratch"
    refused(capi.maniSkinLinear, job)
