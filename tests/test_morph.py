"""morph.h and maniBuildMorphTargets: channels of in-between targets, dense and sparse
deltas, the weight walk, the job, and every error the Returns lines name."""
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.core.errors import BuildReason
from runtime.deform.morph import (MAX_MORPH_ATTRIBUTES, NO_CHANNEL, MorphJob, MorphSemantic,
                                  MorphStream, MorphTargets)
from runtime.deform.morph_build import (MorphAttribute, MorphChannelSource, MorphSource,
                                        MorphTargetSource)

from test_skin_fixtures import build, builder

P, N, T, UV, C = (MorphSemantic.position, MorphSemantic.normal, MorphSemantic.tangent,
                  MorphSemantic.texcoord, MorphSemantic.color)


def open_targets(source) -> MorphTargets:
    return capi.maniOpenMorphTargets(build(capi.maniBuildMorphTargets, source))


def face(rng, n=60):
    """Three channels: an in-between pair, a sparse glTF-style target, a channel reaching
    below zero; positions, normals and a second texture coordinate set."""
    attrs = [MorphAttribute(P), MorphAttribute(N), MorphAttribute(UV, 1)]
    return MorphSource(n, attrs, [
        MorphChannelSource("smile", [
            MorphTargetSource(0.5, [rng.normal(size=(n, 3)), rng.normal(size=(n, 3)), None]),
            MorphTargetSource(1.0, [rng.normal(size=(4, 3)), None, rng.normal(size=(4, 2))],
                              [9, 3, 40, 12])]),
        MorphChannelSource("blink", [MorphTargetSource(1.0, [rng.normal(size=(3, 3)), None, None],
                                                       [5, 6, 7], name="eyes shut")]),
        MorphChannelSource("brow", [MorphTargetSource(-1.0, [rng.normal(size=(n, 3)), None, None]),
                                    MorphTargetSource(2.0, [None, rng.normal(size=(n, 3)), None])]),
    ])


@pytest.fixture(scope="module")
def targets():
    return open_targets(face(np.random.default_rng(0)))


def test_queries(targets):
    t = targets
    assert capi.maniMorphTargets_GetVertexCount(t) == 60
    assert capi.maniMorphTargets_GetChannelCount(t) == 3
    assert capi.maniMorphTargets_GetTargetCount(t) == 5
    assert capi.maniMorphTargets_GetAttributeCount(t) == 3
    assert capi.maniMorphTargets_GetAttribute(t, 2) == (int(UV), 1)
    assert capi.maniMorphTargets_GetAttribute(t, 3) == (-1, 0)
    assert [capi.maniMorphTargets_GetChannelName(t, c) for c in range(4)] == \
        ["smile", "blink", "brow", None]
    assert capi.maniMorphTargets_FindChannel(t, "brow") == 2
    assert capi.maniMorphTargets_FindChannel(t, b"blink") == 1
    assert capi.maniMorphTargets_FindChannel(t, "eyes shut") == NO_CHANNEL
    assert [capi.maniMorphTargets_GetTargetName(t, i) for i in range(6)] == \
        ["smile", "smile/1", "eyes shut", "brow", "brow/1", None]
    assert capi.maniMorphTargets_FindTarget(t, "brow/1") == 4
    assert capi.maniMorphTargets_FindTarget(t, "blink") == NO_CHANNEL
    assert capi.maniMorphTargets_GetChannelTargets(t, 0) == (2, 0)
    assert capi.maniMorphTargets_GetChannelTargets(t, 2) == (2, 3)
    assert capi.maniMorphTargets_GetChannelTargets(t, 3) == (0, 0)
    assert [capi.maniMorphTargets_GetTargetFullWeight(t, i) for i in range(6)] == \
        [0.5, 1.0, 1.0, -1.0, 2.0, 0.0]
    np.testing.assert_array_equal(t.target_indices(1), [3, 9, 12, 40])     # sorted
    assert t.target_indices(0) is None


def test_views_no_open_wrote_answer_nothing():
    for bad in (None, object()):
        assert capi.maniMorphTargets_GetVertexCount(bad) == 0
        assert capi.maniMorphTargets_GetChannelCount(bad) == 0
        assert capi.maniMorphTargets_GetTargetCount(bad) == 0
        assert capi.maniMorphTargets_GetAttributeCount(bad) == 0
        assert capi.maniMorphTargets_GetAttribute(bad, 0) == (-1, 0)
        assert capi.maniMorphTargets_GetChannelName(bad, 0) is None
        assert capi.maniMorphTargets_FindChannel(bad, "a") == NO_CHANNEL
        assert capi.maniMorphTargets_GetTargetName(bad, 0) is None
        assert capi.maniMorphTargets_FindTarget(bad, "a") == NO_CHANNEL
        assert capi.maniMorphTargets_GetChannelTargets(bad, 0) == (0, 0)
        assert capi.maniMorphTargets_GetTargetFullWeight(bad, 0) == 0.0
        with pytest.raises(rt.InvalidError):
            capi.maniMorphTargets_ComputeTargetWeights(bad, [0.0])


def test_in_betweens_walk_from_the_zero_shape_and_extrapolate(targets):
    w = lambda cw: capi.maniMorphTargets_ComputeTargetWeights(targets, cw).tolist()
    f = lambda *values: np.array(values, np.float32).tolist()
    # smile: knots 0, 0.5, 1; blink: one target at 1 passes through; brow: -1, 0, 2
    assert w([0.25, 0.3, -0.5]) == f(0.5, 0.0, 0.3, 0.5, 0.0)
    assert w([0.5, 1.0, 0.0]) == f(1.0, 0.0, 1.0, 0.0, 0.0)
    assert w([0.75, -0.7, 1.0]) == f(0.5, 0.5, -0.7, 0.0, 0.5)
    assert w([2.0, 3.0, 3.0]) == f(-2.0, 3.0, 3.0, 0.0, 1.5)       # past the last
    assert w([-1.0, 0.0, -2.0]) == f(-2.0, 0.0, 0.0, 2.0, 0.0)     # below the first
    # the walk is linear between knots: the shapes at two weights' midpoint average
    a, b = np.array(w([0.6, 0, 0.4])), np.array(w([0.9, 0, 1.6]))
    np.testing.assert_allclose(np.array(w([0.75, 0, 1.0])), (a + b) / 2, atol=1e-7)


def test_target_weights_capacity_and_errors(targets):
    out = np.full(7, 9.0, np.float32)
    assert capi.maniMorphTargets_ComputeTargetWeights(targets, [1, 1, 1], out) is out
    np.testing.assert_array_equal(out[5:], 9.0)
    short = np.full(4, 9.0, np.float32)
    with pytest.raises(rt.CapacityError) as e:
        capi.maniMorphTargets_ComputeTargetWeights(targets, [1, 1, 1], short)
    assert e.value.count == 5
    np.testing.assert_array_equal(short, 9.0)
    for cw in (None, [1, 1], [1, np.nan, 1], [np.inf, 0, 0]):
        with pytest.raises(rt.InvalidError):
            capi.maniMorphTargets_ComputeTargetWeights(targets, cw, out)
    np.testing.assert_array_equal(out[5:], 9.0)


def reference(source, weights, first, end, semantic, set_, base):
    """The deltas added in binary64, dense and sparse alike."""
    attr = next(i for i, a in enumerate(source.attributes) if (a.semantic, a.set) == (semantic, set_))
    out = base[first:end].astype(np.float64)
    t = 0
    for ch in source.channels:
        for tgt in ch.targets:
            d = tgt.deltas[attr]
            if d is not None:
                full = np.zeros((source.vertex_count, d.shape[1]))
                idx = np.arange(source.vertex_count) if tgt.indices is None else np.asarray(tgt.indices)
                np.add.at(full, idx, d)
                out += weights[t] * full[first:end]
            t += 1
    return out


def test_apply_adds_weighted_deltas_and_renormalizes(targets):
    rng = np.random.default_rng(0)
    source = face(rng)
    n = 60
    weights = capi.maniMorphTargets_ComputeTargetWeights(targets, [0.8, 0.6, 1.5])
    pos = rng.normal(size=(n, 3)).astype(np.float32)
    nrm = rng.normal(size=(n, 3)).astype(np.float32)
    nrm[0] = 0
    uv = rng.random((n, 2)).astype(np.float32)
    outs = [np.empty_like(a) for a in (pos, nrm, uv)]
    capi.maniApplyMorphTargets(MorphJob(targets, weights, [
        MorphStream(P, 0, pos, outs[0]), MorphStream(N, 0, nrm, outs[1]), MorphStream(UV, 1, uv, outs[2])]))
    np.testing.assert_allclose(outs[0], reference(source, weights, 0, n, P, 0, pos), atol=1e-5)
    want_n = reference(source, weights, 0, n, N, 0, nrm)
    want_n /= np.maximum(np.linalg.norm(want_n, axis=1, keepdims=True), 1e-30)
    np.testing.assert_allclose(outs[1], want_n, atol=1e-6)
    np.testing.assert_allclose(outs[2], reference(source, weights, 0, n, UV, 1, uv), atol=1e-5)


def test_zero_normals_stay_zero_and_unmoved_ones_are_renormalized():
    src = MorphSource(4, [MorphAttribute(N), MorphAttribute(T)], [MorphChannelSource("c", [
        MorphTargetSource(1.0, [None, np.array([[0, 0, 1.0]])], [1])])])
    t = open_targets(src)
    normals = np.array([[0, 0, 0], [0, 3, 0], [2, 0, 0], [0, 0, 0.5]], np.float32)
    tangents = np.array([[0, 0, 0], [0, 0, -1], [0, 0, 0], [1, 1, 0]], np.float32)
    on, ot = np.empty_like(normals), np.empty_like(tangents)
    capi.maniApplyMorphTargets(MorphJob(t, [1.0], [MorphStream(N, 0, normals, on),
                                                  MorphStream(T, 0, tangents, ot)]))
    np.testing.assert_array_equal(on, [[0, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]])
    np.testing.assert_array_equal(ot[[0, 1, 2]], 0)             # the target cancels vertex 1's
    np.testing.assert_allclose(ot[3], [np.sqrt(0.5)] * 2 + [0], atol=1e-7)


def dense_and_sparse(rng, n=500, targets=12):
    """The same deltas twice: every target dense in one file, sparse (zeros left out,
    indices shuffled) in the other."""
    attrs = [MorphAttribute(P), MorphAttribute(N), MorphAttribute(C, 0)]
    dense, sparse = [], []
    for t in range(targets):
        moved = rng.random(n) < 0.3
        d = [np.where(moved[:, None], rng.normal(size=(n, w)), 0.0) for w in (3, 3, 4)]
        idx = rng.permutation(np.flatnonzero(moved))
        dense.append(MorphChannelSource(f"c{t}", [MorphTargetSource(1.0, d)]))
        sparse.append(MorphChannelSource(f"c{t}", [MorphTargetSource(1.0, [x[idx] for x in d], idx)]))
    return open_targets(MorphSource(n, attrs, dense)), open_targets(MorphSource(n, attrs, sparse))


def run_job(targets, weights, streams, first=0, count=None):
    outs = [np.empty_like(s) for _, s in streams]
    capi.maniApplyMorphTargets(MorphJob(targets, weights, [MorphStream(sem, 0, s, o)
                                                           for (sem, s), o in zip(streams, outs)],
                                        first, count))
    return outs


def test_sparse_and_dense_targets_give_the_same_bits_over_any_ranges():
    rng = np.random.default_rng(1)
    n = 500
    dense, sparse = dense_and_sparse(rng, n)
    assert not dense._sparse.any() and sparse._sparse.all()
    weights = rng.normal(size=12).astype(np.float32)
    weights[3] = 0
    streams = [(P, rng.normal(size=(n, 3)).astype(np.float32)),
               (N, rng.normal(size=(n, 3)).astype(np.float32)),
               (C, rng.random((n, 4)).astype(np.float32))]
    whole = run_job(dense, weights, streams)
    for targets in (dense, sparse):
        cuts = np.sort(rng.choice(np.arange(1, n), 5, replace=False))
        parts = [np.empty_like(s) for _, s in streams]
        for a, b in zip(np.r_[0, cuts], np.r_[cuts, n]):
            capi.maniApplyMorphTargets(MorphJob(targets, weights, [
                MorphStream(sem, 0, s, o) for (sem, s), o in zip(streams, parts)], int(a), int(b - a)))
        for w, p in zip(whole, parts):
            np.testing.assert_array_equal(w.view(np.uint32), p.view(np.uint32))


def plain_job(mt, weights, first, end, attribute, source, renormalize):
    """The job as its docstring says, in binary32 numpy: the source rows plus each target's
    deltas times its weight (none at weight 0), target by target, then renormalized."""
    out = np.array(source[first:end], np.float32)
    with np.errstate(all="ignore"):
        for t in range(mt.target_count):
            d = mt.target_deltas(t, attribute) if attribute is not None else None
            if d is None or weights[t] == 0:
                continue
            idx = mt.target_indices(t)
            rows = np.arange(mt.vertex_count) if idx is None else idx.astype(np.int64)
            mine = (rows >= first) & (rows < end)
            out[rows[mine] - first] += d[mine] * weights[t]
        if renormalize:
            x, y, z = out[:, 0], out[:, 1], out[:, 2]
            length = np.sqrt(((x * x + y * y) + z * z) + np.float32(1e-30))
            out /= length[:, None]
    return out


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(1, 80), targets=st.integers(1, 8))
def test_the_job_is_its_plain_reference_bit_for_bit(seed, n, targets):
    """Dense and sparse targets, weights at 0, negative or huge, any range, streams of every
    width in interleaved buffers, against the documented operations in binary32."""
    rng = np.random.default_rng(seed)
    attrs = [MorphAttribute(P), MorphAttribute(N), MorphAttribute(C, 0), MorphAttribute(UV, 0)]
    channels = []
    for t in range(targets):
        widths = (3, 3, 4, 2)
        if rng.random() < 0.5:
            idx = np.flatnonzero(rng.random(n) < 0.4)
            idx = idx if idx.size else np.array([n - 1])
            deltas = [rng.normal(size=(idx.size, w)) if rng.random() < 0.7 else None
                      for w in widths]
        else:
            idx = None
            deltas = [rng.normal(size=(n, w)) if rng.random() < 0.7 else None for w in widths]
        if all(d is None for d in deltas):
            deltas[0] = rng.normal(size=(n if idx is None else idx.size, 3))
        channels.append(MorphChannelSource(f"c{t}", [MorphTargetSource(1.0, deltas, idx)]))
    mt = open_targets(MorphSource(n, attrs, channels))
    weights = rng.choice([0.0, 1.0, -0.5, 3e30, 0.25], size=targets).astype(np.float32)
    first = int(rng.integers(0, n + 1))
    count = int(rng.integers(0, n - first + 1))
    buffer = rng.normal(size=(n, 12)).astype(np.float32)
    buffer[::5, 3:6] = 0                                    # zero normals stay zero
    out = np.full((n, 12), 7.0, np.float32)
    columns = ((P, slice(0, 3)), (N, slice(3, 6)), (C, slice(6, 10)), (UV, slice(10, 12)))
    capi.maniApplyMorphTargets(MorphJob(mt, weights, [MorphStream(sem, 0, buffer[:, c], out[:, c])
                                                      for sem, c in columns], first, count))
    end = first + count
    for i, (sem, c) in enumerate(columns):
        want = plain_job(mt, weights, first, end, i, buffer[:, c], sem == N)
        got = out[first:end, c]
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(got[~np.isnan(want)].view(np.uint32),
                                      want[~np.isnan(want)].view(np.uint32))
    np.testing.assert_array_equal(out[:first], 7.0)
    np.testing.assert_array_equal(out[end:], 7.0)


def test_a_vertex_given_twice_is_summed_in_binary64_in_source_order():
    d = np.array([[1e8, 0, 0], [1.0, 0, 0], [-1e8, 0, 0], [0.25, 0, 0]])
    t = open_targets(MorphSource(10, [MorphAttribute(P)], [MorphChannelSource("c", [
        MorphTargetSource(1.0, [d], [4, 4, 4, 2])])]))
    np.testing.assert_array_equal(t.target_indices(0), [2, 4])
    np.testing.assert_array_equal(t.target_deltas(0, 0)[:, 0], [0.25, 1.0])   # float32 would lose the 1
    every = open_targets(MorphSource(2, [MorphAttribute(P)], [MorphChannelSource("c", [
        MorphTargetSource(1.0, [np.ones((3, 3))], [1, 0, 1])])]))
    assert every.target_indices(0) is None                     # every vertex: stored dense
    np.testing.assert_array_equal(every.target_deltas(0, 0), [[1, 1, 1], [2, 2, 2]])


def test_in_place_into_an_interleaved_buffer_leaves_other_columns():
    rng = np.random.default_rng(2)
    dense, _ = dense_and_sparse(rng, 100, 3)
    buf = rng.normal(size=(100, 10)).astype(np.float32)
    want = run_job(dense, [0.5, 1, -1], [(P, buf[:, 0:3].copy()), (N, buf[:, 3:6].copy())])
    before = buf.copy()
    capi.maniApplyMorphTargets(MorphJob(dense, [0.5, 1, -1], [
        MorphStream(P, 0, buf[:, 0:3], buf[:, 0:3]), MorphStream(N, 0, buf[:, 3:6], buf[:, 3:6])]))
    np.testing.assert_array_equal(buf[:, 0:3], want[0])
    np.testing.assert_array_equal(buf[:, 3:6], want[1])
    np.testing.assert_array_equal(buf[:, 6:], before[:, 6:])


def test_a_stream_of_an_attribute_the_targets_lack_is_copied():
    rng = np.random.default_rng(3)
    dense, _ = dense_and_sparse(rng, 50, 2)
    uv = rng.random((50, 2)).astype(np.float32)
    (out,) = run_job(dense, [1, 1], [(UV, uv)])
    np.testing.assert_array_equal(out, uv)


def test_job_errors_write_nothing(targets):
    n = 60

    def job():
        return MorphJob(targets, np.ones(5, np.float32),
                        [MorphStream(P, 0, np.ones((n, 3), np.float32), np.full((n, 3), 7.0, np.float32))])
    for edit in [
        lambda j: setattr(j, "targets", None),
        lambda j: setattr(j, "targets", object()),
        lambda j: setattr(j, "weights", None),
        lambda j: setattr(j, "weights", np.ones(4)),
        lambda j: setattr(j, "weights", [1, 1, np.nan, 1, 1]),
        lambda j: setattr(j, "first", 59) or setattr(j, "count", 2),
        lambda j: setattr(j, "first", -1),
        lambda j: setattr(j, "streams", None),
        lambda j: j.streams.append(None),
        lambda j: setattr(j.streams[0], "source", None),
        lambda j: setattr(j.streams[0], "target", None),
        lambda j: setattr(j.streams[0], "semantic", 9),
        lambda j: setattr(j.streams[0], "set", 1),                     # positions have set 0
        lambda j: setattr(j.streams[0], "source", np.ones((n, 2), np.float32)),
        lambda j: setattr(j.streams[0], "source", np.ones((n, 3))),
        lambda j: setattr(j.streams[0], "source",
                          np.lib.stride_tricks.as_strided(np.ones(300, np.float32), (n, 3), (8, 4))),
        lambda j: setattr(j.streams[0], "source", np.ones((n - 1, 3), np.float32)),
        lambda j: j.streams[0].target.setflags(write=False),
    ]:
        j = job()
        edit(j)
        kept = j.streams[0].target.copy() if isinstance(j.streams, list) and j.streams \
            and isinstance(j.streams[0], MorphStream) and j.streams[0].target is not None else None
        with pytest.raises(rt.InvalidError):
            capi.maniApplyMorphTargets(j)
        if kept is not None:
            np.testing.assert_array_equal(j.streams[0].target, kept)
    capi.maniApplyMorphTargets(job())


def test_bytes_changed_after_the_open_stay_within_the_range():
    """The job adds what the open checked: a sparse index changed afterwards past the
    vertices moves nothing outside the range."""
    data = bytearray(build(capi.maniBuildMorphTargets, MorphSource(20, [MorphAttribute(P)], [
        MorphChannelSource("c", [MorphTargetSource(1.0, [np.ones((3, 3))], [2, 8, 15])])])))
    t = MorphTargets(data)
    t.indices[1] = 1000                                   # past the vertices, after the open
    pos = np.zeros((20, 3), np.float32)
    (out,) = run_job(t, [1.0], [(P, pos)], 5, 5)          # the range 5..9
    np.testing.assert_array_equal(out[5:10], [[0] * 3] * 3 + [[1] * 3] + [[0] * 3])
    (whole,) = run_job(t, [1.0], [(P, pos)])
    assert np.isfinite(whole).all() and whole.sum() == 9


def source_with(**edits):
    rng = np.random.default_rng(5)
    src = face(rng)
    for path, value in edits.items():
        obj, *rest = path.split("__")
        target = {"source": src}[obj]
        for part in rest[:-1]:
            target = target[int(part)] if part.isdigit() else getattr(target, part)
        last = rest[-1]
        if last.isdigit():
            target[int(last)] = value
        else:
            setattr(target, last, value)
    return src


@pytest.mark.parametrize("edits, reason, item, other", [
    ({"source__vertex_count": 0}, BuildReason.Count, 0, 0),
    ({"source__channels": []}, BuildReason.Count, 0, 0),
    ({"source__channels__1__targets": []}, BuildReason.Count, 1, 0),
    ({"source__attributes__1": MorphAttribute(9)}, BuildReason.Attribute, 1, 0),
    ({"source__attributes__1": MorphAttribute(N, 1)}, BuildReason.Attribute, 1, 0),
    ({"source__attributes__2": MorphAttribute(P)}, BuildReason.Attribute, 2, 0),
    ({"source__channels__0__targets__0__deltas": [np.zeros((60, 2)), None, None]},
     BuildReason.Attribute, 0, 0),
    ({"source__channels__2__name": ""}, BuildReason.Name, 2, 0),
    ({"source__channels__2__name": "smile"}, BuildReason.DuplicateName, 2, 0),
    ({"source__channels__1__targets__0__name": b"\xff"}, BuildReason.Name, 2, 1),
    ({"source__channels__0__targets__1__full_weight": 0.5}, BuildReason.Weight, 1, 0),
    ({"source__channels__0__targets__0__full_weight": 0.0}, BuildReason.Weight, 0, 0),
    ({"source__channels__2__targets__1__full_weight": np.nan}, BuildReason.Weight, 4, 0),
    ({"source__channels__1__targets__0__indices": [5, 6, 60]}, BuildReason.Vertex, 2, 2),
    ({"source__channels__1__targets__0__indices": [5, 6]}, BuildReason.Count, 2, 0),
    ({"source__channels__2__targets__0__deltas": [np.zeros((59, 3)), None, None]},
     BuildReason.Count, 3, 0),
    ({"source__channels__0__targets__1__deltas": [np.array([[0, 0, 0], [0, np.inf, 0], [0, 0, 0],
                                                           [0, 0, 0]]), None, None]},
     BuildReason.NotFinite, 1, 1),
])
def test_build_refusals(edits, reason, item, other):
    b = builder()
    with pytest.raises(rt.InvalidError) as e:
        capi.maniBuildMorphTargets(b, source_with(**edits))
    assert (e.value.reason, e.value.item, e.value.other) == (reason, item, other), str(e.value)
    assert capi.maniBuilder_GetMisuse(b) == 0


def test_duplicate_names_name_the_earlier_channel():
    b = builder()
    with pytest.raises(rt.InvalidError) as e:
        capi.maniBuildMorphTargets(b, source_with(source__channels__2__name="smile"))
    assert e.value.other == 0


def test_limits_are_not_misuse():
    b = builder()
    with pytest.raises(rt.LimitError) as e:
        capi.maniBuildMorphTargets(b, MorphSource(4, [MorphAttribute(UV, s) for s in
                                                      range(MAX_MORPH_ATTRIBUTES + 1)], []))
    assert (e.value.reason, e.value.item) == (BuildReason.Count, 0)
    for edits, item, other in (({"source__channels__1__name": "x" * 256}, 1, 0),
                               ({"source__channels__1__targets__0__name": "y" * 256}, 2, 1),
                               ({"source__channels__0__name": "z" * 254}, 1, 1)):   # "z.../1"
        with pytest.raises(rt.LimitError) as e:
            capi.maniBuildMorphTargets(b, source_with(**edits))
        assert (e.value.reason, e.value.item, e.value.other) == (BuildReason.Name, item, other)
    assert capi.maniBuilder_GetMisuse(b) == 0
    ok = MorphSource(4, [MorphAttribute(UV, s) for s in range(MAX_MORPH_ATTRIBUTES)], [
        MorphChannelSource("c", [MorphTargetSource(1, [np.ones((4, 2))] * MAX_MORPH_ATTRIBUTES)])])
    assert capi.maniMorphTargets_GetAttributeCount(open_targets(ok)) == MAX_MORPH_ATTRIBUTES


def test_misuse_and_allocator_failure():
    b = builder()
    for bad in (None, object(), MorphSource(3, None, []), MorphSource(3, [], None)):
        with pytest.raises(rt.InvalidError):
            capi.maniBuildMorphTargets(b, bad)
    assert capi.maniBuilder_GetMisuse(b) == 4
    with pytest.raises(rt.InvalidError):
        capi.maniBuildMorphTargets(None, face(np.random.default_rng(0)))
    d = capi.maniDefaultBuilderDef()
    failing = []
    d.alloc = lambda user, size: None if failing else bytearray(size)
    d.free = lambda user, block: None
    fb = capi.maniCreateBuilder(d)
    failing.append(True)
    with pytest.raises(rt.CapacityError):
        capi.maniBuildMorphTargets(fb, face(np.random.default_rng(0)))


def test_open_refuses_null_misaligned_versions_and_later_tags(targets):
    good = bytes(targets.data)
    with pytest.raises(rt.InvalidError):
        capi.maniOpenMorphTargets(None)
    shifted = bytearray(len(good) + 2)
    shifted[2:] = good
    with pytest.raises(rt.InvalidError):
        capi.maniOpenMorphTargets(memoryview(shifted)[2:])
    data = bytearray(good)
    struct.pack_into("<H", data, 6, 5)
    with pytest.raises(rt.VersionError):
        capi.maniOpenMorphTargets(bytes(data))
    data = bytearray(good)
    struct.pack_into("<H", data, 32 + 24 * 3 + 4, 1)
    with pytest.raises(rt.VersionError):
        capi.maniOpenMorphTargets(bytes(data))
