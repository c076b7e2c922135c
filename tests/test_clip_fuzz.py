"""Corrupted clip files raise only the library's errors, never hang, and a corrupted count or
offset is reported inside the field that was corrupted."""
import struct
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime import container
from runtime.clip import AT_DISCRETES, AT_EVENT_NAMES, AT_EVENTS, AT_FLOATS, AT_MARKER_NAMES, \
    AT_MARKERS, AT_SAMPLES, AT_TRACKED

from test_clip_fixtures import build, rich_source, small_skeleton

HEADER_COUNTS = (AT_SAMPLES, AT_TRACKED, AT_FLOATS, AT_DISCRETES, AT_EVENTS, AT_MARKERS,
                 AT_EVENT_NAMES, AT_MARKER_NAMES)


@pytest.fixture(scope="module")
def good():
    return build(rich_source(small_skeleton(), np.random.default_rng(5)))


def fields(data: bytes):
    """(offset, width) of every count and offset field in a clip file: the section count, each
    section's offset and size, the header's counts and every name table's offsets."""
    out = [(10, 2)]
    count = struct.unpack_from("<H", data, 10)[0]
    for i in range(count):
        base = 32 + 24 * i
        tag, _, _, off, size = container.ENTRY.unpack_from(data, base)
        out += [(base + 8, 8), (base + 16, 8)]
        if tag == b"CLIP":
            out += [(off + at, 4) for at in HEADER_COUNTS]
        if tag in (b"FOFF", b"DOFF", b"EOFF", b"MOFF"):
            out += [(off + 4 * k, 4) for k in range(size // 4)]
    return out


def corrupt(good: bytes, rng, kind: int) -> bytes:
    data = bytearray(good)
    if kind == 0:                                   # flips
        for _ in range(rng.integers(1, 4)):
            data[rng.integers(len(data))] ^= 1 << int(rng.integers(8))
    elif kind == 1:                                 # truncation
        del data[rng.integers(len(data)):]
    else:                                           # insertion
        at = rng.integers(len(data) + 1)
        data[at:at] = rng.integers(0, 256, rng.integers(1, 9), dtype=np.uint8).tobytes()
    return bytes(data)


def test_random_corruption_raises_only_library_errors(good):
    rng = np.random.default_rng(1234)
    refused = 0
    slowest = 0.0
    for trial in range(3000):
        data = corrupt(good, rng, trial % 3)
        start = time.perf_counter()
        try:
            capi.maniOpenClip(data)
        except rt.ManiError:
            refused += 1
        slowest = max(slowest, time.perf_counter() - start)
    assert refused == 3000          # the identity covers every byte a flip can land on
    assert slowest < 2.0            # no corruption makes the open search or loop


def test_corrupted_counts_and_offsets_are_blamed_on_their_field(good):
    rng = np.random.default_rng(99)
    checked = 0
    for at, width in fields(good):
        original = int.from_bytes(good[at:at + width], "little")
        values = {original ^ (1 << int(b)) for b in rng.integers(0, 8 * width, 6)}
        values |= {original + 1, original + 16, max(original - 1, 0), 0, (1 << (8 * width)) - 1}
        values.discard(original)
        for value in values:
            data = bytearray(good)
            data[at:at + width] = value.to_bytes(width, "little")
            with pytest.raises(rt.FormatError) as e:
                capi.maniOpenClip(bytes(data))
            assert at <= e.value.offset < at + width, (at, width, original, value, str(e.value))
            checked += 1
    assert checked > 400


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
