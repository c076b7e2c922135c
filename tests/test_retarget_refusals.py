"""Every refusal the Returns lines of retarget.h and retargetbuild.h name, each leaving its
outputs as they were: the builder's last file, the target pose's bytes."""
import dataclasses
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.clip.build import ChannelPath, ChannelSource, ClipSource
from runtime.clip.clip import AdditiveBasis
from runtime.clip.rootmotion import RootMotionSource
from runtime.core.container import FileKind
from runtime.core.errors import BuildReason
from runtime.core.json_text import GraphForm
from runtime.mapping import (RetargetChain, RetargetClipSource, RetargetMap, RetargetMapSource,
                             RetargetPair, RetargetPelvis, build_retarget_map)
from runtime.mapping.retarget_build import PELVIS, PLAN

from fuzz_files import reseal
from retarget_fixtures import humanoid, line

NO_BONE = rt.NO_BONE


@pytest.fixture(scope="module")
def sk():
    return humanoid(12, 0), humanoid(16, 3)


def good(sk, **kw) -> RetargetMapSource:
    src, tgt = sk
    return dataclasses.replace(RetargetMapSource(src, tgt, pairs=[RetargetPair(7, 7)],
                                                 chains=[RetargetChain(1, 3, 1, 3)],
                                                 pelvis=RetargetPelvis(0, 0)), **kw)


def refused(call, builder, error=rt.InvalidError, reason=None, item=None, other=None):
    """The call refuses as named and the builder still holds the file it held."""
    before = builder.copy_built()
    with pytest.raises(error) as info:
        call()
    e = info.value
    if reason is not None:
        assert e.reason == reason, e
    if item is not None:
        assert e.item == item, e
    if other is not None:
        assert e.other == other, e
    assert builder.copy_built() == before
    return e


@pytest.fixture
def builder(sk):
    b = rt.Builder()
    capi.maniBuildRetargetMap(b, good(sk))
    return b


# ---- maniBuildRetargetMap and maniWriteRetargetMapJson -------------------------------------
BUILDS = [capi.maniBuildRetargetMap, capi.maniWriteRetargetMapJson]


@pytest.mark.parametrize("build", BUILDS)
def test_misuse(build, sk, builder):
    src, tgt = sk
    with pytest.raises(rt.InvalidError):
        build(None, good(sk))
    for source in (None, good(sk, source_skeleton=None), good(sk, target_skeleton=rt.Skeleton.__new__(rt.Skeleton)),
                   good(sk, pairs=RetargetPair(0, 0)), good(sk, chains=7)):
        e = refused(lambda: build(builder, source), builder, reason=BuildReason.None_)
    assert builder.misuse == 5


@pytest.mark.parametrize("build", BUILDS)
def test_references(build, sk, builder):
    src, tgt = sk
    bad = np.array(tgt.rests, dtype=np.float64)
    bad[5, 3:7] *= 1.01                                  # length 1.01
    refused(lambda: build(builder, good(sk, target_reference=bad)), builder,
            reason=BuildReason.RetargetReference, item=5, other=1)
    bad = np.array(src.rests, dtype=np.float64)
    bad[2, 1] = np.inf
    refused(lambda: build(builder, good(sk, source_reference=bad)), builder,
            reason=BuildReason.RetargetReference, item=2, other=0)
    bad[2, 1] = 1e39                                     # past binary32
    refused(lambda: build(builder, good(sk, source_reference=bad)), builder,
            reason=BuildReason.RetargetReference, item=2, other=0)
    refused(lambda: build(builder, good(sk, source_reference=np.zeros((3, 10)))), builder,
            reason=BuildReason.RetargetReference, item=NO_BONE, other=0)
    refused(lambda: build(builder, good(sk, target_reference=rt.Pose(src))), builder,
            reason=BuildReason.RetargetReference, item=NO_BONE, other=1)
    near = np.array(tgt.rests, dtype=np.float64)
    near[5, 3:7] *= 1.0009                               # within a thousandth: taken
    build(builder, good(sk, target_reference=near))


@pytest.mark.parametrize("build", BUILDS)
def test_pairs(build, sk, builder):
    cases = [(RetargetPair(12, 1), 1), (RetargetPair(0, 16), 16), (RetargetPair(-1, 2), 2),
             (RetargetPair(0, 7), 7), (RetargetPair(0, 2, 1.5), 2), (RetargetPair(0, 2, float("nan")), 2),
             (RetargetPair(0, 2, -0.1), 2), (RetargetPair(0, 2, 1.0, 3), 2),
             (RetargetPair(0, 2, 1.0, 0, 1), 2)]
    for pair, target in cases:
        refused(lambda: build(builder, good(sk, pairs=[RetargetPair(7, 7), pair])), builder,
                reason=BuildReason.RetargetPair, item=1, other=target)


@pytest.mark.parametrize("build", BUILDS)
def test_chains(build, sk, builder):
    chain = lambda **kw: dataclasses.replace(RetargetChain(1, 3, 1, 3), **kw)  # noqa: E731
    cases = [(chain(source_end=12), 0), (chain(target_start=99), 0), (chain(source_start=3, source_end=1), 0),
             (chain(target_end=0), 0), (chain(mode=4), 0), (chain(translation=-1), 0),
             (chain(weight=2.0), 0), (chain(target_start=6, target_end=7), 7)]
    for c, other in cases:
        refused(lambda: build(builder, good(sk, pairs=[RetargetPair(7, 7)], chains=[c])), builder,
                reason=BuildReason.RetargetChain, item=0, other=other)


def test_a_chain_past_max_ik_chain_bones_is_a_limit(builder):
    most = capi.MANI_MAX_IK_CHAIN_BONES
    src, tgt = line(most + 1, "s", 0), line(most, "t", 1)
    refused(lambda: capi.maniBuildRetargetMap(builder, RetargetMapSource(
        src, tgt, chains=[RetargetChain(0, 1, 0, 1), RetargetChain(1, most + 1, 1, most)])), builder,
        rt.LimitError, BuildReason.RetargetChain, 1, 0)
    assert builder.misuse == 0
    capi.maniBuildRetargetMap(builder, RetargetMapSource(src, tgt, chains=[RetargetChain(2, most + 1, 1, most)]))


@pytest.mark.parametrize("build", BUILDS)
def test_the_pelvis(build, sk, builder):
    src, tgt = sk
    p = lambda **kw: dataclasses.replace(RetargetPelvis(0, 0), **kw)  # noqa: E731
    low = np.array(tgt.rests, dtype=np.float64)
    low[0, 1] = -0.5                                    # the target's pelvis below the floor
    cases = [good(sk, pelvis=p(source=12)), good(sk, pelvis=p(target=7)),
             good(sk, pelvis=p(up=(0, 1.1, 0))), good(sk, pelvis=p(up=(0, 0, 0))),
             good(sk, pelvis=p(horizontal=-1.0)), good(sk, pelvis=p(vertical=float("inf"))),
             good(sk, pelvis=p(vertical=float("nan"))), good(sk, pelvis=p(absolute=(0, 1.5, 0))),
             good(sk, pelvis=p(to_source=(-0.1, 0, 0))), good(sk, pelvis=p(weight=1.01)),
             good(sk, pelvis=p(up=(0, -1, 0))), good(sk, target_reference=low)]
    for source in cases:
        refused(lambda: build(builder, source), builder, reason=BuildReason.RetargetPelvis)


# ---- maniBuildRetargetMapJson ------------------------------------------------------------
def _text(sk) -> str:
    b = rt.Builder()
    capi.maniWriteRetargetMapJson(b, good(sk))
    return b.copy_built().decode()


def test_json_misuse_and_refusals_at_byte_offsets(sk, builder):
    src, tgt = sk
    text = _text(sk)
    build = lambda t: capi.maniBuildRetargetMapJson(builder, t, src, tgt)  # noqa: E731
    for args in ((builder, None, src, tgt), (builder, text, None, tgt), (builder, text, src, 3)):
        refused(lambda: capi.maniBuildRetargetMapJson(*args), builder, reason=BuildReason.None_)
    with pytest.raises(rt.InvalidError):
        capi.maniBuildRetargetMapJson(None, text, src, tgt)
    cut = text[:50]
    refused(lambda: build(cut), builder, reason=BuildReason.Json, item=50)
    form = lambda t, code, at: refused(lambda: build(t), builder, reason=BuildReason.Form,  # noqa: E731
                                       item=at, other=int(code))
    t = text.replace('"matchNames"', '"matchNamez"')
    form(t, GraphForm.member, t.index('"matchNamez"'))
    t = text.replace('"weight": 1,', '"weight": "1",', 1)
    form(t, GraphForm.type, t.index('"weight": "1"'))
    t = text.replace('"mode": "interpolated"', '"mode": "sideways"')
    form(t, GraphForm.value, t.index('"mode"'))
    t = text.replace('"target": "arm_l"', '"target": "wing_l"')
    form(t, GraphForm.name, t.index('"wing_l"'))
    t = text.replace('"weight": 1,\n      "translation"', '"translation"', 1)
    assert t != text
    form(t, GraphForm.missing, t.index('{', t.index('"pairs"')))
    t = text.replace('"targetReference": []', '"targetReference": [{"bone": "hips"}, {"bone": "hips"}]')
    form(t, GraphForm.duplicate, t.rindex('"bone": "hips"'))
    t = text.replace('"version": 1', '"version": 2')
    e = refused(lambda: build(t), builder, rt.VersionError, BuildReason.Form, t.index("2,"))
    assert e.other == int(GraphForm.version)


def test_json_items_are_places_in_the_texts_lists(sk, builder):
    src, tgt = sk
    text = _text(sk).replace('"pairs": [', '"pairs": [\n{"source": "hips", "target": "hips", "weight": 2},', 1)
    refused(lambda: capi.maniBuildRetargetMapJson(builder, text, src, tgt), builder,
            reason=BuildReason.RetargetPair, item=0, other=0)
    text = _text(sk).replace('"targetReference": []', '"targetReference": [{"bone": "head"}, '
                             '{"bone": "neck", "rotation": [0, 0, 0, 2]}]')
    refused(lambda: capi.maniBuildRetargetMapJson(builder, text, src, tgt), builder,
            reason=BuildReason.RetargetReference, item=1, other=1)


# ---- maniOpenRetargetMap -----------------------------------------------------------------
def _offsets(data: bytes) -> dict:
    count = struct.unpack_from("<H", data, 10)[0]
    out = {}
    for i in range(count):
        tag, _, _, off, _ = struct.unpack_from("<4sHHQQ", data, 32 + 24 * i)
        out[tag] = off
    return out


def test_open_refusals(sk):
    data = bytes(build_retarget_map(rt.Builder(), good(sk)))
    assert RetargetMap(data).has_pelvis
    with pytest.raises(rt.InvalidError):
        capi.maniOpenRetargetMap(None)
    misaligned = np.zeros(len(data) + 1, np.uint8)
    misaligned[1:] = np.frombuffer(data, np.uint8)
    with pytest.raises(rt.InvalidError):
        capi.maniOpenRetargetMap(misaligned[1:])
    at = _offsets(data)

    def wrong(where: int, fmt: str, value, expect=None):
        d = bytearray(data)
        struct.pack_into(fmt, d, where, value)
        with pytest.raises(rt.FormatError) as info:
            capi.maniOpenRetargetMap(reseal(d))
        assert info.value.offset == (where if expect is None else expect)

    plan = PLAN.itemsize
    fields = PLAN.fields
    first_keep = at[b"RPLN"] + plan * 4                 # bone 4 of the target keeps its reference
    wrong(at[b"RHDR"] + 16, "<I", 0)                    # no source bones
    wrong(at[b"RHDR"] + 24, "<Q", 1)                    # reserved
    wrong(at[b"RSRF"] + 56 * 3 + 4 * 5, "<f", float("nan"))
    wrong(at[b"RTRF"] + 56 * 2 + 4 * 5, "<f", 2.0, at[b"RTRF"] + 56 * 2 + 4 * 3)    # a rotation
    wrong(at[b"RTRF"] + 56 * 2 + 4 * 11, "<f", 2.0, at[b"RTRF"] + 56 * 2 + 4 * 10)  # a model rotation
    wrong(at[b"RPLN"], "<I", 3)                          # an unknown kind
    wrong(at[b"RPLN"] + plan * 7 + 4, "<I", 12)          # a source past the source's bones
    wrong(first_keep + 4, "<I", 1)                       # an unused word
    wrong(at[b"RPLN"] + plan * 7 + fields["weight"][1], "<f", 1.5)
    wrong(at[b"RPLN"] + plan * 7 + fields["translation"][1], "<I", 3)
    wrong(at[b"RPLN"] + plan * 7 + fields["flags"][1], "<I", 2)
    wrong(at[b"RPLN"] + plan * 7 + fields["reserved"][1], "<I", 1)
    wrong(at[b"RPLN"] + plan * 7 + fields["parent_turn"][1], "<f", 3.0)
    wrong(at[b"RPLN"] + plan * 2 + fields["place"][1], "<f", 0.5)   # a place on a one-bone plan
    p = PELVIS.fields
    wrong(at[b"RPLV"] + p["up"][1], "<f", 0.5)
    wrong(at[b"RPLV"] + p["source"][1], "<I", 12)
    wrong(at[b"RPLV"] + p["target"][1], "<I", 4)         # a bone whose plan is not the pelvis's
    wrong(at[b"RPLV"] + p["horizontal"][1], "<f", -1.0)
    wrong(at[b"RPLV"] + p["absolute"][1] + 4, "<f", 1.5)
    wrong(at[b"RPLV"] + p["source_position"][1] + 4, "<f", -1.0, at[b"RPLV"] + p["source_position"][1])
    wrong(at[b"RPLV"] + p["reserved"][1], "<I", 1)
    d = bytearray(data)
    struct.pack_into("<H", d, 6, 2)                      # another format version
    with pytest.raises(rt.VersionError):
        capi.maniOpenRetargetMap(reseal(d))
    d = bytearray(data)
    struct.pack_into("<H", d, 32 + 24 * 4 + 4, 1)        # a section only a later minor writes
    with pytest.raises(rt.VersionError):
        capi.maniOpenRetargetMap(reseal(d))
    d = bytearray(data)
    struct.pack_into("<H", d, 4, int(FileKind.mirror_map))
    with pytest.raises(rt.FormatError):
        capi.maniOpenRetargetMap(reseal(d))


def test_a_map_without_a_pelvis_opens_without_one(sk):
    m = RetargetMap(build_retarget_map(rt.Builder(), good(sk, pelvis=None)))
    assert not m.has_pelvis and m.height_ratio == 1.0


# ---- the queries and RetargetPose ----------------------------------------------------------
def test_queries_answer_zero_for_no_map(sk):
    src, tgt = sk
    m = RetargetMap(build_retarget_map(rt.Builder(), good(sk)))
    assert capi.maniRetargetMap_GetSourceIdentity(m) == src.identity
    assert capi.maniRetargetMap_GetTargetIdentity(m) == tgt.identity
    assert capi.maniRetargetMap_GetIdentity(m) == rt.hash64(
        4 | 1 << 16, bytes(m.data[32:])) != 0
    assert capi.maniRetargetMap_GetScratchSize(m) == 32 * (12 + 16)
    unopened = RetargetMap.__new__(RetargetMap)
    for q in (capi.maniRetargetMap_GetIdentity, capi.maniRetargetMap_GetSourceIdentity,
              capi.maniRetargetMap_GetTargetIdentity, capi.maniRetargetMap_GetScratchSize):
        assert q(None) == 0 and q(unopened) == 0
    assert np.array_equal(capi.maniRetargetMap_RetargetRootMotion(None, [1, 2, 3]), [1, 2, 3])


def test_retarget_pose_refusals_leave_the_target_pose_unchanged(sk):
    src, tgt = sk
    m = RetargetMap(build_retarget_map(rt.Builder(), good(sk)))
    other = humanoid(12, 9)
    scratch = bytearray(m.scratch_size)
    out = rt.Pose(tgt)
    out.locals[:] = 7.0
    before = out.buffer.tobytes()
    difference = rt.Pose(src)
    capi.maniSkeleton_ComputePoseDifference(src, rt.Pose(src), rt.Pose(src), difference)
    block = np.zeros(rt.pose_size(16) + 64, np.uint8)
    inner_src = rt.Pose(src, block[:rt.pose_size(12)])
    outer = rt.Pose(tgt, block[:rt.pose_size(16)])          # overlaps inner_src's bytes
    aligned = np.zeros(m.scratch_size + 8, np.uint8)
    cases = [
        (None, src, rt.Pose(src), tgt, out, scratch), (m, None, rt.Pose(src), tgt, out, scratch),
        (m, src, None, tgt, out, scratch), (m, src, rt.Pose(src), None, out, scratch),
        (m, src, rt.Pose(src), tgt, None, scratch),
        (m, other, rt.Pose(other), tgt, out, scratch),          # a skeleton not the map's
        (m, tgt, rt.Pose(tgt), tgt, out, scratch), (m, src, rt.Pose(src), src, out, scratch),
        (m, src, rt.Pose(other), tgt, out, scratch),             # a pose of another skeleton
        (m, src, rt.Pose(src), tgt, rt.Pose(other), scratch),
        (m, src, difference, tgt, out, scratch),                 # differences
        (m, src, inner_src, tgt, outer, scratch),                # overlapping memory
        (m, src, rt.Pose(src), tgt, out, aligned[1:]),           # misaligned
        (m, src, rt.Pose(src), tgt, out, bytearray(m.scratch_size - 1)),   # too little
        (m, src, rt.Pose(src), tgt, out, bytes(m.scratch_size)),           # read-only
    ]
    for args in cases:
        with pytest.raises(rt.InvalidError):
            capi.maniRetargetMap_RetargetPose(*args)
        assert out.buffer.tobytes() == before
    capi.maniRetargetMap_RetargetPose(m, src, rt.Pose(src), tgt, out, aligned[8:])
    assert out.buffer.tobytes() != before


# ---- maniBuildRetargetedClip --------------------------------------------------------------
def _clip(skeleton, **kw) -> rt.Clip:
    times = np.array([0.0, 0.5, 1.0])
    path = np.outer(times, [1.0, 0.0, 0.0]) + skeleton.rests[0, 0:3]
    return rt.Clip.open(rt.build_clip(rt.Builder(), ClipSource(
        skeleton, [ChannelSource(0, ChannelPath.translation, times, path)], **kw)))


def test_retargeted_clip_refusals(sk, builder):
    src, tgt = sk
    m = RetargetMap(build_retarget_map(rt.Builder(), good(sk)))
    clip = _clip(src, root_motion=RootMotionSource(0))
    ok = RetargetClipSource(m, src, tgt, clip)
    with pytest.raises(rt.InvalidError):
        capi.maniBuildRetargetedClip(None, ok)
    for source in (None, dataclasses.replace(ok, map=None), dataclasses.replace(ok, source_skeleton=None),
                   dataclasses.replace(ok, target_skeleton=None), dataclasses.replace(ok, clip=None)):
        refused(lambda: capi.maniBuildRetargetedClip(builder, source), builder, reason=BuildReason.None_)
    other = humanoid(12, 9)
    for source, which in ((dataclasses.replace(ok, source_skeleton=other), 0),
                          (dataclasses.replace(ok, target_skeleton=other), 1),
                          (dataclasses.replace(ok, clip=_clip(tgt)), 2)):
        refused(lambda: capi.maniBuildRetargetedClip(builder, source), builder,
                reason=BuildReason.RetargetClip, other=which)
    no_follower = RetargetMap(build_retarget_map(rt.Builder(), good(sk, pelvis=None)))
    refused(lambda: capi.maniBuildRetargetedClip(builder, dataclasses.replace(ok, map=no_follower)),
            builder, reason=BuildReason.RootMotion, item=NO_BONE)
    # an additive clip through a target reference with a scale of 0 on a bone kept: the
    # difference from the source's rest carried is 0 over 0
    flat = np.array(tgt.rests, dtype=np.float64)
    flat[15, 7] = 0.0
    zero = RetargetMap(build_retarget_map(rt.Builder(), good(sk, target_reference=flat)))
    additive = _clip(src, additive=AdditiveBasis.rest)
    refused(lambda: capi.maniBuildRetargetedClip(builder, RetargetClipSource(zero, src, tgt, additive)),
            builder, reason=BuildReason.Basis)
    capi.maniBuildRetargetedClip(builder, RetargetClipSource(m, src, tgt, additive))
