"""Corrupted skin files raise only the library's errors, never hang, and a corrupted count
or offset is reported inside the field that was corrupted."""
import pytest

from runtime import capi
from runtime.deform.skin import SkinSource

from file_fuzzing import check_fields_blamed, check_random_corruption, section_fields
from test_skin_fixtures import build, humanoid, rest_inverse_binds


@pytest.fixture(scope="module")
def good():
    skeleton = humanoid(30)
    bones = [3, 1, 29, 7, 3]
    return build(capi.maniBuildSkin, SkinSource(skeleton, bones, rest_inverse_binds(skeleton, bones)))


def test_random_corruption_raises_only_library_errors(good):
    check_random_corruption(good, capi.maniOpenSkin)


def test_corrupted_counts_and_offsets_are_blamed_on_their_field(good):
    fields, sections = section_fields(good)
    head = sections[b"SKIN"][0]
    check_fields_blamed(good, fields + [(head, 4), (head + 4, 4)], capi.maniOpenSkin)
