"""Corrupted influences files raise only the library's errors, never hang, and a corrupted
count or offset is reported inside the field that was corrupted."""
import numpy as np
import pytest

from runtime import capi
from runtime.deform.influences import CenterSource, InfluenceSource

from file_fuzzing import check_fields_blamed, check_random_corruption, section_fields
from test_skin_fixtures import build, humanoid, open_skin


@pytest.fixture(scope="module")
def good():
    rng = np.random.default_rng(5)
    skin = open_skin(humanoid(12))
    n = 40
    joints = np.argsort(rng.random((n, 12)), axis=1)[:, :5]
    weights = rng.random((n, 5))
    weights[::4, 1:] = 0
    weights[7] = 0
    data = build(capi.maniBuildInfluences,
                 InfluenceSource.from_dense(skin, joints, weights, rng.random(n)))
    infl = capi.maniOpenInfluences(data)
    return build(capi.maniBuildCenters, CenterSource(infl, rng.normal(size=(n, 3)),
                                                     rng.integers(0, n, (30, 3))))


def test_random_corruption_raises_only_library_errors(good):
    check_random_corruption(good, capi.maniOpenInfluences)


def test_corrupted_counts_and_offsets_are_blamed_on_their_field(good):
    fields, sections = section_fields(good)
    head = sections[b"INFL"][0]
    per_vertex = [(sections[b"ICNT"][0] + v, 1) for v in (0, 1, 7, 39)]
    check_fields_blamed(good, fields + [(head, 4), (head + 4, 4), (head + 8, 4)] + per_vertex,
                        capi.maniOpenInfluences)
