"""Every refusal learnedtrain.h's Returns lines name, through the C names: the def's and the
source's at creation (the reason and item), memory running out as a stage begins (progress
kept) or in a restore (starting over), short checkpoint buffers, the restore's checks (the
trainer unchanged), the build of an unfinished trainer, and the Busy rules of the hooks."""
from __future__ import annotations


import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core.base import Version
from runtime.core.errors import BuildReason as R
from runtime.learned.limits import MAX_LEARNED_LATENT, MAX_LEARNED_LAYERS, MAX_LEARNED_WIDTH
from runtime.learned.train import LearnedTrainerProjector, TaskHooks
from runtime.learned.train.options import OPTION

import learned_train_fixtures as ltf

W = ltf.WORLD


def _create(src=None, d=None):
    return capi.maniCreateLearnedTrainer(d or ltf.definition(1), src or ltf.source())


def _refused(error, reason, item=0, other=0, src=None, **opts):
    src = src or ltf.source(options=ltf.options(**opts))
    with pytest.raises(error) as e:
        _create(src)
    assert (e.value.reason, e.value.item, e.value.other) == (reason, item, other), e.value


def test_the_defaults():
    d, o = capi.maniDefaultLearnedTrainerDef(), capi.maniDefaultLearnedTrainerOptions()
    assert d.cookie and d.tasks.dispatch is None and d.alloc is None
    assert (o.latent_count, o.width, o.batch, o.learning_rate) == (32, 512, 32, 0.001)
    assert (o.decompressor_window, o.stepper_window) == (2, 20)
    assert (o.decompressor_layers, o.stepper_layers, o.projector_layers) == (1, 2, 4)


def test_the_def_refusals():
    with pytest.raises(rt.VersionError):
        _create(d=ltf.definition(1, version=Version(9, 0, 0)))
    for change in (dict(cookie=0), dict(alloc=lambda u, n: bytearray(n)),
                   dict(free=lambda u, b: None),
                   dict(tasks=TaskHooks(dispatch=lambda u, w, p: [w(x) for x in p]))):
        with pytest.raises(rt.InvalidError):
            _create(d=ltf.definition(1, **change))
    for missing in (dict(clips=None), dict(projectors=None), dict(events=None)):
        with pytest.raises(rt.InvalidError):
            _create(ltf.source(**missing))
    with pytest.raises(rt.InvalidError):
        capi.maniCreateLearnedTrainer(None, ltf.source())


def test_the_options_past_a_bound():
    L = rt.LimitError
    _refused(L, R.Option, OPTION["latent_count"], latent_count=MAX_LEARNED_LATENT + 1)
    _refused(L, R.Option, OPTION["width"], width=MAX_LEARNED_WIDTH + 1)
    for name in ("compressor_layers", "decompressor_layers", "stepper_layers", "projector_layers"):
        _refused(L, R.Option, OPTION[name], **{name: MAX_LEARNED_LAYERS})
    _refused(L, R.Option, OPTION["batch"], batch=capi.MANI_MAX_LEARNED_BATCH + 4)
    _refused(L, R.Option, OPTION["stepper_window"], stepper_window=capi.MANI_MAX_LEARNED_WINDOW + 1)
    _refused(L, R.Option, 1, width=MAX_LEARNED_WIDTH, stepper_layers=3)   # past the weights


def test_the_options_refused():
    I = rt.InvalidError
    _refused(I, R.Option, OPTION["latent_count"], latent_count=0)
    _refused(I, R.Option, OPTION["width"], width=0)
    for batch in (0, 6, 30):
        _refused(I, R.Option, OPTION["batch"], batch=batch)
    _refused(I, R.Option, OPTION["decompressor_window"], decompressor_window=1)
    _refused(I, R.Option, OPTION["stepper_window"], stepper_window=W.database.frame_count + 1)
    for name in ("decompressor_iterations", "stepper_iterations", "projector_iterations"):
        _refused(I, R.Option, OPTION[name], **{name: 0})
    for name in ("learning_rate", "decay", "weight_decay", "projector_noise"):
        for bad in (float("nan"), float("inf"), -0.5):
            _refused(I, R.Option, OPTION[name], **{name: bad})
    _refused(I, R.Option, OPTION["seed"], seed="x")


def test_the_source_refused():
    from runtime.samples.humanoid import humanoid_source
    other = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(5)))
    I = rt.InvalidError
    _refused(I, R.Database, src=ltf.source(skeleton=other))
    _refused(I, R.Database, src=ltf.source(mirror_map=None))
    _refused(I, R.Clip, 0, 1, src=ltf.source(clips=[]))
    _refused(I, R.Clip, 0, src=ltf.source(clips=[W.clip]))
    _refused(I, R.Count, src=ltf.source(projectors=[]))
    _refused(rt.LimitError, R.Count, src=ltf.source(
        projectors=[LearnedTrainerProjector(1, 0)] * (capi.MANI_MAX_LEARNED_PROJECTORS + 1)))
    _refused(I, R.Tags, 1, src=ltf.source(projectors=[LearnedTrainerProjector(1, 0),
                                                     LearnedTrainerProjector(1 << 40, 0)]))
    _refused(I, R.Tags, 0, src=ltf.source(projectors=[LearnedTrainerProjector(8, 0)]))
    _refused(I, R.Joint, 1, src=ltf.source(scaled_bones=[2, 2]))
    with pytest.raises(I) as e:
        _create(ltf.source(float_tracks=["a", "a"]))
    assert e.value.reason == R.DuplicateName and e.value.other >> 24 == R.FloatTrack
    with pytest.raises(rt.LimitError) as e:
        _create(ltf.source(events=["e" * (capi.MANI_MAX_NAME_BYTES + 1)]))
    assert e.value.reason == R.Name and e.value.other >> 24 == R.Event


class Allocator:
    """Allocator hooks that fail while `failing`, and count what is outstanding."""

    def __init__(self):
        self.failing = False
        self.after = None           # fail once this many more blocks are given
        self.live = 0
        self.inside = None          # called from inside the hooks when set

    def alloc(self, user, size):
        if self.inside:
            self.inside()
        if self.after is not None:
            self.after -= 1
            self.failing = self.after < 0
        if self.failing:
            self.after = None
            return None
        self.live += 1
        return bytearray(size)

    def free(self, user, block):
        if self.inside:
            self.inside()
        self.live -= 1


def _with_allocator():
    a = Allocator()
    return a, _create(d=ltf.definition(1, alloc=a.alloc, free=a.free))


def test_memory_running_out_as_a_stage_begins_keeps_the_progress():
    a, tr = _with_allocator()
    reference = _create()
    capi.maniLearnedTrainer_Train(tr, 12)                    # stage 0 done, stage 1 not begun
    capi.maniLearnedTrainer_Train(reference, 12)
    held = capi.maniLearnedTrainer_SaveCheckpoint(tr)
    live = a.live
    a.failing = True
    with pytest.raises(rt.CapacityError):
        capi.maniLearnedTrainer_Train(tr, 5)
    assert capi.maniLearnedTrainer_SaveCheckpoint(tr) == held
    a.failing, a.after = False, 1                           # the second of three blocks fails
    with pytest.raises(rt.CapacityError):
        capi.maniLearnedTrainer_Train(tr, 5)
    assert capi.maniLearnedTrainer_SaveCheckpoint(tr) == held and a.live == live
    a.failing = False
    capi.maniLearnedTrainer_Train(tr, 100)
    capi.maniLearnedTrainer_Train(reference, 100)
    assert capi.maniLearnedTrainer_SaveCheckpoint(tr) == capi.maniLearnedTrainer_SaveCheckpoint(reference)
    capi.maniDestroyLearnedTrainer(tr)
    assert a.live == 0


def test_memory_running_out_in_a_restore_starts_over():
    a, tr = _with_allocator()
    fresh = capi.maniLearnedTrainer_SaveCheckpoint(tr)
    capi.maniLearnedTrainer_Train(tr, 15)
    saved = capi.maniLearnedTrainer_SaveCheckpoint(tr)
    a.failing = True
    with pytest.raises(rt.CapacityError):
        capi.maniLearnedTrainer_RestoreCheckpoint(tr, saved)
    assert capi.maniLearnedTrainer_SaveCheckpoint(tr) == fresh


def test_memory_running_out_as_it_is_made_gives_back_what_it_took():
    a = Allocator()
    taken = []

    def alloc(user, size):
        taken.append(size)
        return None if len(taken) == 3 else a.alloc(user, size)
    with pytest.raises(rt.CapacityError):
        _create(d=ltf.definition(1, alloc=alloc, free=a.free))
    assert a.live == 0


def test_a_short_checkpoint_buffer():
    tr = _create()
    capi.maniLearnedTrainer_Train(tr, 3)
    size = len(capi.maniLearnedTrainer_SaveCheckpoint(tr))
    out = bytearray(b"\x07" * (size - 1))
    with pytest.raises(rt.CapacityError) as e:
        capi.maniLearnedTrainer_SaveCheckpoint(tr, out)
    assert e.value.size == size and out == bytearray(size - 1)
    out = bytearray(size + 8)
    assert capi.maniLearnedTrainer_SaveCheckpoint(tr, out) == size
    with pytest.raises(rt.InvalidError):
        capi.maniLearnedTrainer_SaveCheckpoint(None)


def _aligned(data: bytes) -> memoryview:
    buf = np.zeros(len(data) // 8 + 2, np.float64)
    view = memoryview(buf).cast("B")[:len(data)]
    view[:] = data
    return view


def test_the_restore_refusals_leave_the_trainer_unchanged():
    tr = _create()
    capi.maniLearnedTrainer_Train(tr, 15)
    held = capi.maniLearnedTrainer_SaveCheckpoint(tr)
    other = _create(ltf.source(options=ltf.options(seed=7)))
    capi.maniLearnedTrainer_Train(other, 15)
    good = held

    def refused(data, error, offset=None):
        with pytest.raises(error) as e:
            capi.maniLearnedTrainer_RestoreCheckpoint(tr, _aligned(data))
        if offset is not None:
            assert e.value.offset == offset, e.value
        assert capi.maniLearnedTrainer_SaveCheckpoint(tr) == held
    refused(capi.maniLearnedTrainer_SaveCheckpoint(other), rt.FormatError, 40)
    abi = bytearray(good)
    abi[16] += 1
    refused(abi, rt.VersionError, 16)
    version = bytearray(good)
    version[4] = 9
    refused(version, rt.VersionError)
    refused(b"XLTC" + good[4:], rt.FormatError, 0)
    refused(good[:-8], rt.FormatError, 8)
    flipped = bytearray(good)
    flipped[-3] ^= 1
    refused(flipped, rt.FormatError, 24)
    nan = bytearray(good)
    nan[56:64] = np.float64(np.nan).tobytes()
    refused(nan, rt.FormatError, 56)
    stage = bytearray(good)
    stage[20] = 99
    refused(stage, rt.FormatError, 20)
    with pytest.raises(rt.InvalidError):
        capi.maniLearnedTrainer_RestoreCheckpoint(tr, _aligned(b"\0" + good)[1:])
    with pytest.raises(rt.InvalidError):
        capi.maniLearnedTrainer_RestoreCheckpoint(tr, None)


def test_building_an_unfinished_trainer_is_refused():
    tr = _create()
    capi.maniLearnedTrainer_Train(tr, 12)
    with pytest.raises(rt.InvalidError):
        capi.maniBuildLearnedModelFromTrainer(rt.Builder(), tr, 0)
    with pytest.raises(rt.InvalidError):
        capi.maniBuildLearnedModelFromTrainer(None, tr, 0)


def test_calls_from_the_task_hooks_are_busy():
    calls = []

    def dispatch(user, work, payloads):
        for call in (lambda: capi.maniLearnedTrainer_Train(box[0], 1),
                     lambda: capi.maniLearnedTrainer_SaveCheckpoint(box[0]),
                     lambda: capi.maniBuildLearnedModelFromTrainer(rt.Builder(), box[0], 0)):
            try:
                call()
            except rt.BusyError:
                calls.append("busy")
        capi.maniDestroyLearnedTrainer(box[0])
        return [work(p) for p in payloads]
    box = [None]
    box[0] = tr = _create(d=ltf.definition(1, tasks=TaskHooks(dispatch, lambda u, h: h)))
    capi.maniLearnedTrainer_Train(tr, 1)
    assert calls == ["busy"] * 3 and capi.maniLearnedTrainer_GetMisuse(tr) == 4
    assert len(capi.maniLearnedTrainer_SaveCheckpoint(tr)) > 56       # not destroyed


def test_calls_from_the_allocator_are_busy_and_after_destroy():
    a, tr = _with_allocator()
    seen = []

    def inside():
        try:
            capi.maniLearnedTrainer_SaveCheckpoint(tr)
        except rt.BusyError:
            seen.append("busy")
    a.inside = inside
    capi.maniLearnedTrainer_Train(tr, 1)            # stage 0 begins: three blocks
    assert seen == ["busy"] * 3 and capi.maniLearnedTrainer_GetMisuse(tr) == 3
    capi.maniDestroyLearnedTrainer(tr)              # every free calls back in: refused
    assert capi.maniLearnedTrainer_GetMisuse(tr) == len(seen) > 3 and a.live == 0
    with pytest.raises(rt.BusyError):
        capi.maniLearnedTrainer_Train(tr, 1)
    assert capi.maniLearnedTrainer_GetMisuse(None) == 0


def test_while_it_builds_training_restoring_and_destroying_are_busy():
    tr = _create()
    capi.maniLearnedTrainer_Train(tr, 1000)
    saved = capi.maniLearnedTrainer_SaveCheckpoint(tr)
    results = []
    armed = []

    def alloc(user, size):
        if not armed:                   # the builder's own block
            return bytearray(size)
        for name, call in (("train", lambda: capi.maniLearnedTrainer_Train(tr, 1)),
                           ("restore", lambda: capi.maniLearnedTrainer_RestoreCheckpoint(tr, saved))):
            try:
                call()
            except rt.BusyError:
                results.append(name)
        capi.maniDestroyLearnedTrainer(tr)
        results.append(len(capi.maniLearnedTrainer_SaveCheckpoint(tr)) == len(saved))
        return bytearray(size)
    d = rt.default_builder_def()
    d.alloc, d.free = alloc, (lambda u, b: None)
    builder = rt.Builder(d)
    armed.append(True)
    capi.maniBuildLearnedModelFromTrainer(builder, tr, 0)
    assert results == ["train", "restore", True]
    assert capi.maniLearnedTrainer_GetMisuse(tr) == 3
    assert rt.LearnedModel(capi.maniBuilder_CopyBuilt(builder)).is_open


def test_task_hooks_giving_other_results_are_refused_before_a_step():
    for collect in (lambda u, h: h[:-1], lambda u, h: [(g[:-1], l) for g, l in h],
                    lambda u, h: [None] * len(h)):
        tr = _create(d=ltf.definition(1, tasks=TaskHooks(lambda u, w, p: [w(x) for x in p], collect)))
        with pytest.raises(rt.InvalidError):
            capi.maniLearnedTrainer_Train(tr, 1)
        assert tr.stage_iteration == 0          # no step taken
    with pytest.raises(rt.InvalidError):
        _create(d=ltf.definition(1, tasks=TaskHooks(5, 6)))
