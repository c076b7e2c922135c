"""Corrupted clip files raise only the library's errors, never hang, and a corrupted count or
offset is reported inside the field that was corrupted."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.clip.clip import (AT_DISCRETES, AT_EVENT_NAMES, AT_EVENTS, AT_FLOATS, AT_MARKER_NAMES,
                               AT_MARKERS, AT_SAMPLES, AT_TRACKED)

from file_fuzzing import check_fields_blamed, check_random_corruption, section_fields
from test_clip_fixtures import build, rich_source, small_skeleton

HEADER_COUNTS = (AT_SAMPLES, AT_TRACKED, AT_FLOATS, AT_DISCRETES, AT_EVENTS, AT_MARKERS,
                 AT_EVENT_NAMES, AT_MARKER_NAMES)


@pytest.fixture(scope="module")
def good():
    return build(rich_source(small_skeleton(), np.random.default_rng(5)))


def clip_fields(data: bytes):
    """(offset, width) of every count and offset field in a clip file: the section count, each
    section's offset and size, the header's counts and every name table's offsets."""
    out, sections = section_fields(data)
    off = sections[b"CLIP"][0]
    out += [(off + at, 4) for at in HEADER_COUNTS]
    for tag in (b"FOFF", b"DOFF", b"EOFF", b"MOFF"):
        off, size = sections[tag]
        out += [(off + 4 * k, 4) for k in range(size // 4)]
    return out


def test_random_corruption_raises_only_library_errors(good):
    check_random_corruption(good, capi.maniOpenClip)


def test_corrupted_counts_and_offsets_are_blamed_on_their_field(good):
    fields = clip_fields(good)
    assert len(fields) > 40
    check_fields_blamed(good, fields, capi.maniOpenClip)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), min_size=1, max_size=6),
       cut=st.integers(0, 1 << 20))
def test_any_edit_is_refused_or_opened_never_anything_else(good, edits, cut):
    data = bytearray(good)
    for at, value in edits:
        data[at % len(data)] = value
    if cut % 3 == 0:
        del data[cut % len(data):]
    try:
        clip = capi.maniOpenClip(bytes(data))
    except rt.ManiError:
        return
    # what opens is the good file: the identity covers every byte past the header, and its
    # seed the header's kind, version and minor
    assert bytes(data) == good and clip.identity == rt.hash64(2 | 1 << 16, good[32:])
