"""maniOpenLearnedModel's checks, by corrupting files: random corruption refused with the
library's errors only; counts and offsets blamed on their own field; and each content check
(resealed past the identity) reporting the offset of the byte it found wrong. The deep
campaign of mutated files then used is tests/fuzz_files.py's "learned_model" kind."""
from __future__ import annotations

import struct

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.learned import LearnedModel

import learned_fixtures as lf
from file_fuzzing import check_fields_blamed, check_random_corruption, section_fields
from fuzz_files import reseal
from hostile_world import World

WORLD = World()


@pytest.fixture(scope="module", params=[0, 1], ids=["float32", "16-bit"])
def good(request):
    return lf.build(lf.source(WORLD, weight_format=request.param))


def model_fields(data: bytes):
    out, sections = section_fields(data)
    header = sections[b"LHDR"][0]
    out += [(header + at, 4) for at in (24, 28, 32, 36, 40, 44, 48, 52, 56, 72)]
    off, size = sections[b"LLAY"]
    out += [(off + 4 * k, 4) for k in range(size // 4)]
    off, size = sections[b"LNLC"]
    out += [(off + 4 * k, 4) for k in range(size // 4)]
    return out


def test_random_corruption_raises_only_library_errors(good):
    check_random_corruption(good, LearnedModel, trials=900)


def test_corrupted_counts_and_offsets_are_blamed_on_their_field(good):
    check_fields_blamed(good, model_fields(good), LearnedModel)


def _at(data: bytes, tag: bytes, byte: int = 0) -> int:
    return section_fields(data)[1][tag][0] + byte


def _blamed(data: bytes, at: int, pack: str, value, expect: int | None = None):
    bad = bytearray(data)
    struct.pack_into(pack, bad, at, value)
    with pytest.raises(rt.FormatError) as e:
        LearnedModel(reseal(bad))
    assert e.value.offset == (at if expect is None else expect), e.value


def test_content_checks_blame_the_byte(good):
    header = _at(good, b"LHDR")
    for rate in (0.0, -1.0, float("nan"), 241.0):
        _blamed(good, header + 16, "<f", rate)
    _blamed(good, header + 20, "<I", 0)                         # no features
    _blamed(good, header + 60, "<I", 2, header + 64)            # up == forward
    _blamed(good, header + 68, "<I", 7)                         # weight format
    layers = _at(good, b"LLAY")
    _blamed(good, layers + 8, "<I", 5)                          # layer 1 does not chain
    _blamed(good, layers + 8 * 2 + 4, "<I", 118)                # the Decompressor's end
    _blamed(good, layers + 4, "<I", 0)                          # no outputs
    _blamed(good, _at(good, b"LNLC"), "<I", 9)                  # layers past the bound
    _blamed(good, _at(good, b"LBON"), "<I", 12)                 # a scaled bone past
    _blamed(good, _at(good, b"LSCA", 20), "<f", float("inf"))
    _blamed(good, _at(good, b"DNRM", 8), "<f", float("nan"))
    _blamed(good, _at(good, b"LNRM", 4 * 30), "<f", 0.0)       # the Decompressor's input scale
    _blamed(good, _at(good, b"LBIA", 8), "<f", float("nan"))
    chans = _at(good, b"DCHN")
    _blamed(good, chans, "<I", 9)                               # a channel kind
    _blamed(good, chans + 20, "<f", -1.0)                       # a channel weight
    _blamed(good, _at(good, b"DTIM"), "<f", 11.0)               # a time past the reach


def test_weights_checked(good):
    quant = struct.unpack_from("<I", good, _at(good, b"LHDR", 68))[0]
    if quant:
        _blamed(good, _at(good, b"LWGT", 6), "<h", -32768)
        _blamed(good, _at(good, b"LWSC", 12), "<f", -1.0)
        _blamed(good, _at(good, b"LWSC", 12), "<f", float("inf"))
    else:
        _blamed(good, _at(good, b"LWGT", 40), "<f", float("nan"))


def test_version_alignment_and_later_sections(good):
    bad = bytearray(good)
    struct.pack_into("<H", bad, 6, 2)                # another format version
    with pytest.raises(rt.VersionError):
        capi.maniOpenLearnedModel(reseal(bad))
    bad = bytearray(good)
    struct.pack_into("<H", bad, 32 + 4, 1)           # the first section from a later minor
    with pytest.raises(rt.VersionError):
        capi.maniOpenLearnedModel(reseal(bad))
    with pytest.raises(rt.InvalidError):
        capi.maniOpenLearnedModel(None)
    raw = np.zeros(len(good) + 8, np.uint8)
    raw[1:len(good) + 1] = np.frombuffer(good, np.uint8)
    with pytest.raises(rt.InvalidError):
        capi.maniOpenLearnedModel(raw[1:len(good) + 1])
    assert capi.maniOpenLearnedModel(good).identity == struct.unpack_from("<Q", good, 16)[0]
