"""maniBuildInfluences, maniBuildCenters and the influence queries: sorting, padding,
renormalization, every refusal, the open's checks, and centers against Eq. 4 itself."""
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core import container
from runtime.core.errors import BuildReason
from runtime.deform.influences import MAX_INFLUENCES, CenterSource, InfluenceSource, Influences

from test_skin_fixtures import build, builder, cylinder, humanoid, open_skin, tube_weights


@pytest.fixture(scope="module")
def skin():
    return open_skin(humanoid(20))


def influences(skin, offsets, joints, weights, dq=None):
    return Influences.open(build(capi.maniBuildInfluences,
                                 InfluenceSource(skin, offsets, joints, weights, dq)))


def slots(infl, v):
    return [capi.maniInfluences_GetInfluence(infl, v, s) for s in range(infl.per_vertex)]


def test_sorted_by_weight_then_joint_padded_and_renormalized(skin):
    infl = influences(skin, [0, 3, 3, 9, 10],
                      [7, 2, 5, 1, 2, 3, 4, 5, 6, 9],
                      [0.2, 0.5, 0.2, 0.1, 0.1, 0.3, 0, 0.3, 0.2, 4.0])
    assert capi.maniInfluences_GetVertexCount(infl) == 4
    assert capi.maniInfluences_GetPerVertex(infl) == 8      # five weighted: two groups of four
    v0 = slots(infl, 0)
    assert [j for j, _ in v0] == [2, 5, 7, 0, 0, 0, 0, 0]    # ties by joint
    w = np.array([0.5, 0.2, 0.2]) / 0.9
    np.testing.assert_array_equal([x for _, x in v0[:3]], w.astype(np.float32))
    assert [x for _, x in v0[3:]] == [0.0] * 5
    assert slots(infl, 1) == [(0, 0.0)] * 8                   # no weight: all 0
    v2 = slots(infl, 2)                                       # the zero weight dropped
    assert [j for j, _ in v2] == [3, 5, 6, 1, 2, 0, 0, 0]
    total = np.array([0.1, 0.1, 0.3, 0.3, 0.2]).sum()
    np.testing.assert_array_equal([x for _, x in v2[:5]],
                                  (np.array([0.3, 0.3, 0.2, 0.1, 0.1]) / total).astype(np.float32))
    assert slots(infl, 3)[0] == (9, 1.0)
    assert capi.maniInfluences_GetInfluence(infl, 4, 0) == (0, 0.0)
    assert capi.maniInfluences_GetInfluence(infl, 0, 8) == (0, 0.0)
    assert np.flatnonzero(np.array(infl.counts) == 0).tolist() == [1]


def test_sums_renormalize_in_binary64(skin):
    w = [1 / 3, 1 / 3, 1 / 3 + 1e-9, 1e-30]
    infl = influences(skin, [0, 4], [1, 2, 3, 4], w)
    stored = [x for _, x in slots(infl, 0)]
    want = (np.array(w) / np.sum(np.array(w)[[2, 0, 1, 3]])).astype(np.float32)
    np.testing.assert_array_equal(stored, want[[2, 0, 1, 3]])


def test_dual_quaternion_weights_and_queries(skin):
    infl = influences(skin, [0, 1, 2], [1, 2], [1, 1], dq=[0.25, 1])
    assert capi.maniInfluences_GetDualQuaternionWeight(infl, 0) == 0.25
    assert capi.maniInfluences_GetDualQuaternionWeight(infl, 1) == 1.0
    assert capi.maniInfluences_GetDualQuaternionWeight(infl, 2) == 0.0
    plain = influences(skin, [0, 1], [1], [1])
    assert capi.maniInfluences_GetDualQuaternionWeight(plain, 0) == 0.0
    assert capi.maniInfluences_GetCenter(plain, 0) == (False, None)
    assert capi.maniInfluences_IsSkinFit(plain, skin)
    assert not capi.maniInfluences_IsSkinFit(plain, open_skin(humanoid(20), bones=range(19)))
    assert not capi.maniInfluences_IsSkinFit(plain, None)


def test_views_no_open_wrote_answer_nothing():
    for bad in (None, object()):
        assert capi.maniInfluences_GetVertexCount(bad) == 0
        assert capi.maniInfluences_GetPerVertex(bad) == 0
        assert not capi.maniInfluences_IsSkinFit(bad, None)
        assert capi.maniInfluences_GetInfluence(bad, 0, 0) == (0, 0.0)
        assert capi.maniInfluences_GetDualQuaternionWeight(bad, 0) == 0.0
        assert capi.maniInfluences_GetCenter(bad, 0) == (False, None)


@pytest.mark.parametrize("offsets, joints, weights, dq, reason, item, other", [
    ([0], [], [], None, BuildReason.Count, 0, 0),                       # no vertices
    ([1, 2], [0, 1], [1, 1], None, BuildReason.Count, 0, 0),            # not from 0
    ([0, 2, 1], [0, 1], [1, 1], None, BuildReason.Count, 1, 0),         # decreasing
    ([0, 1, 3], [0, 1], [1, 1], None, BuildReason.Count, 1, 0),         # past the lists
    ([0, 1], [0, 1], [1, 1], None, BuildReason.Count, 0, 0),            # lists longer
    ([0, 2, 4], [0, 1, 2, 3], [1, np.nan, 1, 1], None, BuildReason.NotFinite, 0, 1),
    ([0, 2, 4], [0, 1, 2, 3], [1, 1, 1, -0.5], None, BuildReason.Weight, 1, 1),
    ([0, 2, 4], [0, 1, 2, 20], [1, 1, 1, 0.5], None, BuildReason.Joint, 1, 1),
    ([0, 3, 4], [0, 1, 0, 3], [1, 1, 1, 1], None, BuildReason.RepeatedJoint, 0, 2),
    ([0, 1, 2], [0, 1], [1, 1], [0.5], BuildReason.Count, 1, 0),
    ([0, 1, 2], [0, 1], [1, 1], [0.5, 1.5], BuildReason.Weight, 1, 0),
    ([0, 1, 2], [0, 1], [1, 1], [np.inf, 0], BuildReason.NotFinite, 0, 0),
])
def test_refusals_name_the_vertex_and_influence(skin, offsets, joints, weights, dq, reason, item, other):
    b = builder()
    with pytest.raises(rt.InvalidError) as e:
        capi.maniBuildInfluences(b, InfluenceSource(skin, offsets, joints, weights, dq))
    assert (e.value.reason, e.value.item, e.value.other) == (reason, item, other)
    assert capi.maniBuilder_GetMisuse(b) == 0


def test_zero_weights_may_name_any_joint(skin):
    infl = influences(skin, [0, 3], [4, -1, 999], [1, 0, 0])
    assert slots(infl, 0)[:2] == [(4, 1.0), (0, 0.0)]


def test_more_than_max_influences_is_a_limit_naming_the_first_past(skin):
    k = MAX_INFLUENCES + 1
    joints = list(range(k + 1))
    weights = [1.0] * (k + 1)
    weights[3] = 0                                        # not weighted: not counted
    b = builder()
    with pytest.raises(rt.LimitError) as e:
        capi.maniBuildInfluences(b, InfluenceSource(skin, [0, 1, 1 + k + 1], [0] + joints,
                                                    [1] + weights))
    assert (e.value.reason, e.value.item, e.value.other) == (BuildReason.Count, 1, k)
    assert capi.maniBuilder_GetMisuse(b) == 0
    ok = influences(skin, [0, MAX_INFLUENCES], list(range(MAX_INFLUENCES)), [1] * MAX_INFLUENCES)
    assert ok.per_vertex == MAX_INFLUENCES


def test_misuse_and_allocator_failure(skin):
    b = builder()
    for bad in (None, object(), InfluenceSource(None, [0, 1], [0], [1]),
                InfluenceSource(skin, None, [0], [1])):
        with pytest.raises(rt.InvalidError):
            capi.maniBuildInfluences(b, bad)
    assert capi.maniBuilder_GetMisuse(b) == 4
    with pytest.raises(rt.InvalidError):
        capi.maniBuildInfluences(None, InfluenceSource(skin, [0, 1], [0], [1]))
    d = capi.maniDefaultBuilderDef()
    failing = []
    d.alloc = lambda user, size: None if failing else bytearray(size)
    d.free = lambda user, block: None
    b = capi.maniCreateBuilder(d)
    failing.append(True)
    with pytest.raises(rt.CapacityError):
        capi.maniBuildInfluences(b, InfluenceSource(skin, [0, 1], [0], [1]))
    with pytest.raises(rt.CapacityError):
        capi.maniBuildCenters(b, CenterSource(Influences.open(build(
            capi.maniBuildInfluences, InfluenceSource(skin, [0, 1], [0], [1]))), [[0, 0, 0]], []))


def direct_centers(positions, triangles, weights, sigma):
    """Eq. 4 as written: every vertex against every triangle, dense weights, j != k."""
    tri_w = weights[triangles].mean(axis=1)
    corners = positions[triangles]
    area = 0.5 * np.linalg.norm(np.cross(corners[:, 1] - corners[:, 0],
                                         corners[:, 2] - corners[:, 0]), axis=1)
    centroid = corners.mean(axis=1)
    out = positions.copy()
    joints = weights.shape[1]
    for i in range(len(positions)):
        wi = weights[i]
        s = np.zeros(len(triangles))
        for j in range(joints):
            for k in range(joints):
                if j != k:
                    d = wi[j] * tri_w[:, k] - wi[k] * tri_w[:, j]
                    s += wi[j] * wi[k] * tri_w[:, j] * tri_w[:, k] * np.exp(-d * d / sigma ** 2)
        total = (s * area).sum()
        if total > 0:
            out[i] = (s * area) @ centroid / total
    return out


@pytest.mark.parametrize("sigma", [0.1, 0.5])
def test_centers_match_a_direct_evaluation_of_eq4(sigma):
    skeleton = humanoid(3)
    skin = open_skin(skeleton)
    positions, _, tris = cylinder(2.0, 0.2, rings=9, segments=6)
    rng = np.random.default_rng(20)
    positions = positions + rng.normal(scale=0.01, size=positions.shape)
    joints, weights = tube_weights(positions[:, 0])
    joints = np.hstack([joints, np.full((len(joints), 1), 2)])
    weights = np.hstack([weights, rng.random((len(joints), 1)) * 0.3])
    weights[:6, 2] = 0                                      # a ring without the third joint
    infl = Influences.open(build(capi.maniBuildInfluences,
                                 InfluenceSource.from_dense(skin, joints, weights)))
    out = Influences.open(build(capi.maniBuildCenters, CenterSource(infl, positions, tris, sigma)))
    dense = np.zeros((len(positions), 3))
    rows = np.arange(len(positions))[:, None]
    np.add.at(dense, (rows, np.array(infl.joints).T.astype(int)), np.array(infl.weights, float).T)
    want = direct_centers(positions, tris, dense, sigma)
    got = np.array(out.centers, np.float64)
    np.testing.assert_allclose(got, want, atol=1e-6)
    # the centers are not just the positions: the check can fail
    assert np.abs(want - positions).max() > 0.05
    ok, c = capi.maniInfluences_GetCenter(out, 5)
    assert ok and np.array_equal(c, out.centers[5])
    # the rest of the influences come back unchanged
    np.testing.assert_array_equal(out.weights, infl.weights)
    assert out.skin_identity == infl.skin_identity


def test_a_vertex_similar_to_no_triangle_keeps_its_position():
    skin = open_skin(humanoid(3))
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [5, 5, 5]], float)
    infl = Influences.open(build(capi.maniBuildInfluences, InfluenceSource.from_dense(
        skin, [[0, 1], [0, 1], [0, 1], [2, 0]], [[0.5, 0.5], [0.5, 0.5], [0.3, 0.7], [1, 0]])))
    out = Influences.open(build(capi.maniBuildCenters,
                                CenterSource(infl, positions, [[0, 1, 2]])))
    np.testing.assert_array_equal(out.centers[3], [5, 5, 5])      # one influence
    assert not np.allclose(out.centers[0], positions[0])
    none = Influences.open(build(capi.maniBuildCenters, CenterSource(infl, positions, [])))
    np.testing.assert_array_equal(none.centers, positions.astype(np.float32))


def test_centers_refusals():
    skin = open_skin(humanoid(3))
    infl = Influences.open(build(capi.maniBuildInfluences,
                                 InfluenceSource.from_dense(skin, [[0], [1], [2]], [[1], [1], [1]])))
    p = np.zeros((3, 3))
    cases = [
        (CenterSource(infl, np.zeros((3, 2)), [[0, 1, 2]]), BuildReason.Count, 0, 0),
        (CenterSource(infl, np.zeros((4, 3)), [[0, 1, 2]]), BuildReason.Count, 0, 0),
        (CenterSource(infl, [[0, 0, 0], [0, np.inf, 0], [0, 0, 0]], [[0, 1, 2]]),
         BuildReason.NotFinite, 1, 0),
        (CenterSource(infl, p, [[0, 1, 2], [0, 3, 1]]), BuildReason.Triangle, 1, 1),
        (CenterSource(infl, p, [0, 1, 2, 0, 1]), BuildReason.Triangle, 1, 0),
        (CenterSource(infl, p, [[0, 1, 2]], -0.1), BuildReason.Option, 0, 0),
        (CenterSource(infl, p, [[0, 1, 2]], np.nan), BuildReason.Option, 0, 0),
    ]
    b = builder()
    for source, reason, item, other in cases:
        with pytest.raises(rt.InvalidError) as e:
            capi.maniBuildCenters(b, source)
        assert (e.value.reason, e.value.item, e.value.other) == (reason, item, other)
    assert capi.maniBuilder_GetMisuse(b) == 0
    for bad in (None, CenterSource(None, p, [[0, 1, 2]]), CenterSource(infl, None, [[0, 1, 2]])):
        with pytest.raises(rt.InvalidError):
            capi.maniBuildCenters(b, bad)
    assert capi.maniBuilder_GetMisuse(b) == 3


def test_open_refuses_null_misaligned_versions_and_later_tags(skin):
    data = build(capi.maniBuildInfluences, InfluenceSource(skin, [0, 1], [1], [1]))
    with pytest.raises(rt.InvalidError):
        capi.maniOpenInfluences(None)
    shifted = bytearray(len(data) + 1)
    shifted[1:] = data
    with pytest.raises(rt.InvalidError):
        capi.maniOpenInfluences(memoryview(shifted)[1:])
    other = bytearray(data)
    struct.pack_into("<H", other, 6, 2)
    with pytest.raises(rt.VersionError):
        capi.maniOpenInfluences(bytes(other))
    later = bytearray(data)
    struct.pack_into("<H", later, 32 + 4, 1)              # the first section's `since`
    with pytest.raises(rt.VersionError):
        capi.maniOpenInfluences(bytes(later))


def test_open_checks_the_slots(skin):
    good = bytearray(build(capi.maniBuildInfluences,
                           InfluenceSource.from_dense(skin, [[1, 2], [3, 4]], [[3, 1], [1, 1]])))
    Influences.open(bytes(good))
    at = {tag: container.ENTRY.unpack_from(good, 32 + 24 * i)[3]
          for i, tag in enumerate(infl_tags(good))}
    w, j, n = at[b"WGHT"], at[b"JNTS"], 2

    def refused(edit, where):
        data = bytearray(good)
        edit(data)
        with pytest.raises(rt.FormatError) as e:
            Influences.open(bytes(data))
        assert e.value.offset == where, str(e.value)

    refused(lambda d: struct.pack_into("<f", d, w + 4, np.nan), w + 4)          # not finite
    refused(lambda d: struct.pack_into("<f", d, w, 1.5), w)                      # above 1
    def swap(d):
        struct.pack_into("<f", d, w, 0.25)
        struct.pack_into("<f", d, w + 4 * n, 0.75)
    refused(swap, w + 4 * n)                                                     # increasing
    refused(lambda d: struct.pack_into("<f", d, w, 0.5), w)                      # sum not 1
    refused(lambda d: struct.pack_into("<H", d, j + 2, 20), j + 2)               # past joints
    refused(lambda d: struct.pack_into("<H", d, j + 2 * n * 2, 5), j + 2 * n * 2)   # a pad's joint
    refused(lambda d: struct.pack_into("<H", d, j + 2 * n, 1), j + 2 * n)        # joint twice


def infl_tags(data):
    count = struct.unpack_from("<H", data, 10)[0]
    return [container.ENTRY.unpack_from(data, 32 + 24 * i)[0] for i in range(count)]
