"""Corrupted motion database files raise only the library's errors, never hang, and a
corrupted count or offset is reported inside the field that was corrupted (the deep checks
past the identity are tests/fuzz_files.py's "motion_database" kind)."""
import pytest

import runtime as rt

from file_fuzzing import check_fields_blamed, check_random_corruption, section_fields
from hostile_world import World


@pytest.fixture(scope="module")
def good():
    return bytes(World().match_bytes)


def database_fields(data: bytes):
    """(offset, width) of every count and offset field: the table's, the header's counts,
    the track names' offsets, each entry's first frame and frame count."""
    out, sections = section_fields(data)
    header = sections[b"DHDR"][0]
    out += [(header + at, 4) for at in (20, 24, 28, 32, 36, 40, 56, 60)]
    off, size = sections[b"TOFF"]
    out += [(off + 4 * k, 4) for k in range(size // 4)]
    off, size = sections[b"DENT"]
    out += [(off + 32 * k + at, 4) for k in range(size // 32) for at in (24, 28)]
    return out


def test_random_corruption_raises_only_library_errors(good):
    check_random_corruption(good, rt.MotionDatabase.open, trials=1500)


def test_corrupted_counts_and_offsets_are_blamed_on_their_field(good):
    check_fields_blamed(good, database_fields(good), rt.MotionDatabase.open)
