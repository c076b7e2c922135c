"""Corrupted skeleton files raise only the library's errors, never hang, and a corrupted
count or offset is reported inside the field that was corrupted."""
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import container

from runtime_fixtures import humanoid


@pytest.fixture(scope="module")
def good():
    return bytes(humanoid(40).data)


def fields(data: bytes):
    """(offset, width) of every count and offset field in a skeleton file."""
    out = [(10, 2)]                                     # the section count
    count = struct.unpack_from("<H", data, 10)[0]
    for i in range(count):
        base = 32 + 24 * i
        tag, _, _, off, size = container.ENTRY.unpack_from(data, base)
        out += [(base + 8, 8), (base + 16, 8)]          # the section's offset and size
        if tag == b"SKEL":
            out.append((off, 4))                        # the bone count
        if tag == b"BOFF":
            out += [(off + 4 * k, 4) for k in range(size // 4)]   # the name offsets
    return out


def test_random_corruption_raises_only_library_errors(good):
    rng = np.random.default_rng(1234)
    outcomes = {"opened": 0, "refused": 0}
    for trial in range(3000):
        data = bytearray(good)
        kind = trial % 3
        if kind == 0:                                   # flips
            for _ in range(rng.integers(1, 4)):
                data[rng.integers(len(data))] ^= 1 << int(rng.integers(8))
        elif kind == 1:                                 # truncation
            del data[rng.integers(len(data)):]
        else:                                           # insertion
            at = rng.integers(len(data) + 1)
            data[at:at] = rng.integers(0, 256, rng.integers(1, 9), dtype=np.uint8).tobytes()
        try:
            rt.Skeleton.open(bytes(data))
            outcomes["opened"] += 1
        except rt.ManiError:
            outcomes["refused"] += 1
    # only a flip that lands nowhere meaningful can leave a file that opens; none should here
    assert outcomes["refused"] == 3000, outcomes


def test_corrupted_counts_and_offsets_are_blamed_on_their_field(good):
    rng = np.random.default_rng(99)
    for at, width in fields(good):
        original = int.from_bytes(good[at:at + width], "little")
        values = {original ^ (1 << int(b)) for b in rng.integers(0, 8 * width, 6)}
        values |= {original + 1, original + 16, max(original - 1, 0), 0, (1 << (8 * width)) - 1}
        values.discard(original)
        for value in values:
            data = bytearray(good)
            data[at:at + width] = value.to_bytes(width, "little")
            with pytest.raises(rt.FormatError) as e:
                rt.Skeleton.open(bytes(data))
            assert at <= e.value.offset < at + width, (at, width, original, value, str(e.value))
