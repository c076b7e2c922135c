"""Corrupted skeleton files raise only the library's errors, never hang, and a corrupted
count or offset is reported inside the field that was corrupted."""
import pytest

import runtime as rt

from file_fuzzing import check_fields_blamed, check_random_corruption, section_fields
from runtime_fixtures import humanoid


@pytest.fixture(scope="module")
def good():
    return bytes(humanoid(40).data)


def skeleton_fields(data: bytes):
    """(offset, width) of every count and offset field in a skeleton file."""
    out, sections = section_fields(data)
    out.append((sections[b"SKEL"][0], 4))                     # the bone count
    off, size = sections[b"BOFF"]
    out += [(off + 4 * k, 4) for k in range(size // 4)]        # the name offsets
    return out


def test_random_corruption_raises_only_library_errors(good):
    check_random_corruption(good, rt.Skeleton.open)


def test_corrupted_counts_and_offsets_are_blamed_on_their_field(good):
    check_fields_blamed(good, skeleton_fields(good), rt.Skeleton.open)
