"""skeleton.h and maniBuildSkeleton: building, opening with every check, and the queries."""
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core import container
from runtime.core.errors import BuildReason
from runtime.pose.skeleton import BoneSource as B
from runtime.pose.skeleton import SkeletonSource

from runtime_fixtures import humanoid, open_skeleton


def build(bones):
    builder = capi.maniCreateBuilder(capi.maniDefaultBuilderDef())
    capi.maniBuildSkeleton(builder, SkeletonSource(bones))
    return builder, capi.maniBuilder_CopyBuilt(builder)


def test_depth_first_with_children_and_roots_in_source_order():
    bones = [B("c2", 3), B("r1"), B("c1", 1), B("r0"), B("g", 2), B("c0", 1)]
    builder, data = build(bones)
    sk = capi.maniOpenSkeleton(data)
    names = [capi.maniSkeleton_GetBoneName(sk, i) for i in range(6)]
    assert names == ["r1", "c1", "g", "c0", "r0", "c2"]
    order = capi.maniBuilder_CopySkeletonOrder(builder)
    assert [names[i] for i in order] == [b.name for b in bones]
    parents = [capi.maniSkeleton_GetParent(sk, i) for i in range(6)]
    assert parents == [rt.NO_BONE, 0, 1, 0, rt.NO_BONE, 4]
    ends = [capi.maniSkeleton_GetSubtreeEnd(sk, i) for i in range(6)]
    assert ends == [4, 3, 3, 4, 6, 6]


def test_rests_normalized_and_queries():
    _, data = build([B("a", -1, (1, 2, 3), (0, 0, 2, 0), (1, 2, 3)), B("ü-ñ", 0)])
    sk = capi.maniOpenSkeleton(data)
    assert capi.maniSkeleton_GetBoneCount(sk) == 2
    np.testing.assert_allclose(capi.maniSkeleton_GetRest(sk, 0), [1, 2, 3, 0, 0, 1, 0, 1, 2, 3])
    np.testing.assert_array_equal(capi.maniSkeleton_GetRest(sk, 7), rt.IDENTITY)
    assert capi.maniSkeleton_GetBoneName(sk, 1) == "ü-ñ"
    assert capi.maniSkeleton_FindBone(sk, "ü-ñ") == 1
    assert capi.maniSkeleton_FindBone(sk, "ü-ñ".encode()) == 1
    assert capi.maniSkeleton_FindBone(sk, "ü") == rt.NO_BONE
    assert capi.maniSkeleton_GetBoneName(sk, 2) is None
    assert capi.maniSkeleton_GetParent(sk, 9) == rt.NO_BONE
    assert capi.maniSkeleton_GetSubtreeEnd(sk, 9) == 9


def test_views_no_open_wrote_answer_nothing():
    for bad in (None, object()):
        assert capi.maniSkeleton_GetBoneCount(bad) == 0
        assert capi.maniSkeleton_GetIdentity(bad) == 0
        assert capi.maniSkeleton_GetParent(bad, 0) == rt.NO_BONE
        assert capi.maniSkeleton_GetSubtreeEnd(bad, 3) == 3
        np.testing.assert_array_equal(capi.maniSkeleton_GetRest(bad, 0), rt.IDENTITY)
        assert capi.maniSkeleton_GetBoneName(bad, 0) is None
        assert capi.maniSkeleton_FindBone(bad, "a") == rt.NO_BONE


def test_identity_follows_order_parents_rests_and_names():
    base = [B("a"), B("b", 0, (0, 1, 0))]
    ident = capi.maniSkeleton_GetIdentity(capi.maniOpenSkeleton(build(base)[1]))
    assert ident == capi.maniSkeleton_GetIdentity(capi.maniOpenSkeleton(build(base)[1]))
    for changed in ([B("a"), B("c", 0, (0, 1, 0))], [B("a"), B("b", 0, (0, 2, 0))],
                    [B("a"), B("b", -1, (0, 1, 0))], [B("b", -1, (0, 1, 0)), B("a")]):
        assert capi.maniSkeleton_GetIdentity(capi.maniOpenSkeleton(build(changed)[1])) != ident


@pytest.mark.parametrize("bones, error, reason, item, other", [
    ([], rt.InvalidError, BuildReason.Count, 0, 0),
    ([B("a"), B("b", 5)], rt.InvalidError, BuildReason.Joint, 1, 5),
    ([B("a", 0)], rt.InvalidError, BuildReason.Joint, 0, 0),
    ([B("a"), B("b", 2), B("c", 1)], rt.InvalidError, BuildReason.Joint, 1, 2),
    ([B("a"), B("")], rt.InvalidError, BuildReason.Name, 1, 0),
    ([B("a"), B(b"\xff")], rt.InvalidError, BuildReason.Name, 1, 0),
    ([B("a"), B("x" * 256)], rt.LimitError, BuildReason.Name, 1, 0),
    ([B("a"), B("b", 0), B("a", 1)], rt.InvalidError, BuildReason.DuplicateName, 2, 0),
    ([B("a", -1, (np.nan, 0, 0))], rt.InvalidError, BuildReason.NotFinite, 0, 0),
    ([B("a"), B("b", 0, (0, 0, 0), (0, 0, 0, 0))], rt.InvalidError, BuildReason.NotFinite, 1, 1),
    ([B("a", -1, (0, 0, 0), (0, 0, 0, 1), (1, np.inf, 1))], rt.InvalidError, BuildReason.NotFinite, 0, 2),
])
def test_build_refusals(bones, error, reason, item, other):
    builder = capi.maniCreateBuilder(capi.maniDefaultBuilderDef())
    with pytest.raises(error) as e:
        capi.maniBuildSkeleton(builder, SkeletonSource(bones))
    assert (e.value.reason, e.value.item, e.value.other) == (reason, item, other)
    assert capi.maniBuilder_GetMisuse(builder) == 0      # a refused source is no misuse


def test_bone_limit():
    n = rt.MAX_BONES + 1
    with pytest.raises(rt.LimitError) as e:
        build([B(f"b{i}", i - 1) for i in range(n)])
    assert e.value.reason == BuildReason.Count
    sk = capi.maniOpenSkeleton(build([B(f"b{i}", i - 1) for i in range(rt.MAX_BONES)])[1])
    assert capi.maniSkeleton_GetBoneCount(sk) == rt.MAX_BONES
    assert capi.maniSkeleton_GetParent(sk, rt.MAX_BONES - 1) == rt.MAX_BONES - 2


def test_name_hash_clash_is_refused(monkeypatch):
    from runtime.core import names
    monkeypatch.setattr(names, "hash_name", lambda raw: 7)
    with pytest.raises(rt.InvalidError) as e:
        build([B("a"), B("b", 0)])
    assert (e.value.reason, e.value.item, e.value.other) == (BuildReason.NameHash, 1, 0)


# ---- opening: every check, at the first wrong byte ------------------------------------

def skeleton_bytes():
    return bytearray(build([B("root"), B("spine", 0, (0, 1, 0)), B("head", 1, (0, 1, 0)),
                            B("arm", 1, (1, 0, 0)), B("hand", 3, (1, 0, 0))])[1])


def section(data, tag):
    count = struct.unpack_from("<H", data, 10)[0]
    for i in range(count):
        t, _, _, off, size = container.ENTRY.unpack_from(data, 32 + 24 * i)
        if t == tag:
            return off, size, 32 + 24 * i
    raise KeyError(tag)


def open_error(data):
    with pytest.raises(rt.ManiError) as e:
        capi.maniOpenSkeleton(bytes(data))
    return e.value


def test_open_accepts_its_own_bytes_in_any_buffer():
    data = skeleton_bytes()
    for buf in (bytes(data), data, memoryview(data), np.frombuffer(bytes(data), np.uint8)):
        assert capi.maniSkeleton_GetBoneCount(capi.maniOpenSkeleton(buf)) == 5


def test_open_refuses_null_and_misaligned():
    with pytest.raises(rt.InvalidError):
        capi.maniOpenSkeleton(None)
    data = np.zeros(len(skeleton_bytes()) + 8, np.uint8)
    data[1:1 + len(skeleton_bytes())] = skeleton_bytes()
    with pytest.raises(rt.InvalidError):
        capi.maniOpenSkeleton(data[1:1 + len(skeleton_bytes())])


def test_open_versions():
    data = skeleton_bytes()
    data[6] += 1
    assert isinstance(open_error(data), rt.VersionError)
    data = skeleton_bytes()
    struct.pack_into("<H", data, 32 + 4, 1)           # a section only minor 1 writes
    assert isinstance(open_error(data), rt.VersionError)


@pytest.mark.parametrize("what", ["magic", "kind", "size", "count", "unknown", "reserved",
                                  "offset", "length", "bones", "parent", "order", "end",
                                  "rest", "rotation", "utf8", "hash", "identity", "padding"])
def test_open_reports_the_first_wrong_byte(what):
    data = skeleton_bytes()
    prnt, _, prnt_entry = section(data, b"PRNT")
    rest, _, _ = section(data, b"REST")
    names, _, _ = section(data, b"BNAM")
    skel, _, skel_entry = section(data, b"SKEL")
    where = {
        "magic": (0, lambda: data.__setitem__(1, ord("X")), 1),
        "kind": (4, lambda: data.__setitem__(4, 9), 4),
        "size": (24, lambda: struct.pack_into("<Q", data, 24, len(data) + 1), 24),
        "count": (10, lambda: struct.pack_into("<H", data, 10, 1), 10),
        "unknown": (32, lambda: data.__setitem__(slice(32, 36), b"ZZZZ"), 32),
        "reserved": (12, lambda: data.__setitem__(12, 1), 12),
        "offset": (prnt_entry + 8, lambda: struct.pack_into("<Q", data, prnt_entry + 8, prnt + 16), None),
        "length": (skel_entry + 16, lambda: struct.pack_into("<Q", data, skel_entry + 16, 12), None),
        "bones": (skel, lambda: struct.pack_into("<I", data, skel, 6), None),
        "parent": (prnt + 8, lambda: struct.pack_into("<I", data, prnt + 8, 2), None),
        "order": (prnt + 16, lambda: struct.pack_into("<I", data, prnt + 16, 2), None),
        "end": (None, lambda: struct.pack_into("<I", data, section(data, b"SEND")[0], 3), None),
        "rest": (rest + 4, lambda: struct.pack_into("<f", data, rest + 4, np.inf), None),
        "rotation": (rest + 40 + 12, lambda: struct.pack_into("<f", data, rest + 40 + 24, 0.5), None),
        "utf8": (names + 1, lambda: data.__setitem__(names + 1, 0xFF), None),
        "hash": (None, lambda: data.__setitem__(section(data, b"BHSH")[0], data[section(data, b"BHSH")[0]] ^ 1), None),
        "identity": (16, lambda: data.__setitem__(16, data[16] ^ 1), 16),
        "padding": (None, lambda: data.__setitem__(skel + 8, 1), None),
    }
    expected_lo, corrupt, exact = where[what]
    corrupt()
    err = open_error(data)
    assert isinstance(err, rt.FormatError), err
    if what == "end":
        assert err.offset == section(data, b"SEND")[0]
    elif what == "hash":
        assert err.offset == section(data, b"BHSH")[0]
    elif what == "padding":
        assert err.offset == skel + 8
    elif what in ("offset", "length", "bones"):
        lo = expected_lo
        width = 4 if what == "bones" else 8
        assert lo <= err.offset < lo + width, (what, err.offset, lo)
    elif what == "rotation":
        assert rest + 40 + 12 <= err.offset < rest + 80
    else:
        assert err.offset == (exact if exact is not None else expected_lo), (what, err.offset)


def test_find_and_names_stay_in_the_file_when_bytes_change_after_open():
    data = np.frombuffer(bytearray(skeleton_bytes()), np.uint8)
    sk = capi.maniOpenSkeleton(data)
    off, size, _ = section(data.tobytes(), b"BOFF")
    data[off:off + size] = 0xFF                         # spans now point past the names
    assert capi.maniSkeleton_GetBoneName(sk, 1) is None
    assert capi.maniSkeleton_FindBone(sk, "spine") == rt.NO_BONE
    prnt, _, _ = section(data.tobytes(), b"PRNT")
    data[prnt + 4:prnt + 8] = 3                         # bone 1's parent now not lower
    assert capi.maniSkeleton_GetParent(sk, 1) == rt.NO_BONE


def test_humanoid_opens():
    sk = humanoid(80)
    assert capi.maniSkeleton_GetBoneCount(sk) == 80
    assert capi.maniSkeleton_FindBone(sk, "finger42_r") != rt.NO_BONE
