"""Corrupted morph targets files raise only the library's errors, never hang, and a
corrupted count or offset is reported inside the field that was corrupted."""
import numpy as np
import pytest

from runtime import capi
from runtime.deform.morph import MorphSemantic
from runtime.deform.morph_build import (MorphAttribute, MorphChannelSource, MorphSource,
                                        MorphTargetSource)

from file_fuzzing import check_fields_blamed, check_random_corruption, section_fields
from test_skin_fixtures import build


@pytest.fixture(scope="module")
def good():
    rng = np.random.default_rng(8)
    n = 30
    attrs = [MorphAttribute(MorphSemantic.position), MorphAttribute(MorphSemantic.normal),
             MorphAttribute(MorphSemantic.color, 2)]
    sparse = lambda k, *w: [rng.normal(size=(k, x)) if x else None for x in w]
    return build(capi.maniBuildMorphTargets, MorphSource(n, attrs, [
        MorphChannelSource("jaw", [MorphTargetSource(0.5, sparse(n, 3, 3, 0)),
                                   MorphTargetSource(1.0, sparse(5, 3, 0, 4), [4, 1, 9, 20, 2])]),
        MorphChannelSource("lid", [MorphTargetSource(1.0, sparse(3, 0, 3, 0), [7, 8, 29])]),
        MorphChannelSource("cheek", [MorphTargetSource(-1.0, sparse(2, 3, 0, 0), [0, 11], "puff"),
                                     MorphTargetSource(1.0, sparse(n, 0, 0, 4))]),
    ]))


def test_random_corruption_raises_only_library_errors(good):
    check_random_corruption(good, capi.maniOpenMorphTargets)


def test_corrupted_counts_and_offsets_are_blamed_on_their_field(good):
    fields, sections = section_fields(good)
    head = sections[b"MRPH"][0]
    fields += [(head + 4 * i, 4) for i in range(4)]
    for tag in (b"CHAN", b"COFF", b"TOFF"):
        off, size = sections[tag]
        fields += [(off + 4 * k, 4) for k in range(size // 4)]
    off, size = sections[b"TARG"]
    fields += [(off + 16 * t + 8, 4) for t in range(size // 16)]        # rows
    fields += [(off + 16 * t + 12, 4) for t in (1, 2, 3)]               # sparse index starts
    off, size = sections[b"TDEL"]
    fields += [(off + 8 * t, 8) for t in range(size // 8)]              # delta starts
    off, _ = sections[b"VTCH"]
    fields += [(off + 4 * v, 4) for v in (0, 4, 29)]                     # per-vertex counts
    check_fields_blamed(good, fields, capi.maniOpenMorphTargets)
