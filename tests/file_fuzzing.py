"""Corrupting files: what every file kind's fuzz test does to its own good bytes."""
import struct
import time

import numpy as np

import runtime as rt
from runtime.core import container


def section_fields(data: bytes):
    """(offset, width) of the section count and every section's offset and size, and a map
    from each tag to its section's (offset, size)."""
    out = [(10, 2)]
    sections = {}
    for i in range(struct.unpack_from("<H", data, 10)[0]):
        base = 32 + 24 * i
        tag, _, _, off, size = container.ENTRY.unpack_from(data, base)
        out += [(base + 8, 8), (base + 16, 8)]
        sections[tag] = (off, size)
    return out, sections


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


def check_random_corruption(good: bytes, opener, trials: int = 3000, seed: int = 1234):
    """Flips, truncations and insertions: each refused with one of the library's errors."""
    rng = np.random.default_rng(seed)
    refused = 0
    slowest = 0.0
    for trial in range(trials):
        data = corrupt(good, rng, trial % 3)
        start = time.perf_counter()
        try:
            opener(data)
        except rt.ManiError:
            refused += 1
        slowest = max(slowest, time.perf_counter() - start)
    assert refused == trials
    assert slowest < 5.0                            # nothing close to a hang


def check_fields_blamed(good: bytes, fields, opener, seed: int = 99):
    """Each count or offset field set to wrong values is reported inside that field."""
    rng = np.random.default_rng(seed)
    for at, width in fields:
        original = int.from_bytes(good[at:at + width], "little")
        values = {original ^ (1 << int(b)) for b in rng.integers(0, 8 * width, 6)}
        values |= {original + 1, original + 16, max(original - 1, 0), 0, (1 << (8 * width)) - 1}
        values.discard(original)
        for value in values:
            data = bytearray(good)
            data[at:at + width] = value.to_bytes(width, "little")
            try:
                opener(bytes(data))
            except rt.FormatError as e:
                assert at <= e.offset < at + width, (at, width, original, value, str(e))
            else:
                raise AssertionError(f"field at {at} set to {value} (was {original}) opened")
