"""build.h's builder: the def, the allocator hooks, misuse, busy calls and copies out."""
import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core.base import Version
from runtime.pose.skeleton import BoneSource as B
from runtime.pose.skeleton import SkeletonSource

SOURCE = SkeletonSource([B("hips"), B("spine", 0, (0, 1, 0)), B("head", 1)])


def test_default_def_and_create():
    d = capi.maniDefaultBuilderDef()
    builder = capi.maniCreateBuilder(d)
    assert capi.maniBuilder_GetMisuse(builder) == 0
    capi.maniDestroyBuilder(builder)
    capi.maniDestroyBuilder(None)
    assert capi.maniBuilder_GetMisuse(None) == 0


def test_create_refusals():
    with pytest.raises(rt.InvalidError):
        capi.maniCreateBuilder(None)
    with pytest.raises(rt.InvalidError):
        capi.maniCreateBuilder(rt.BuilderDef())                       # no cookie
    d = capi.maniDefaultBuilderDef()
    d.version = Version(rt.VERSION.major, rt.VERSION.minor + 1, 0)
    with pytest.raises(rt.VersionError):
        capi.maniCreateBuilder(d)
    d = capi.maniDefaultBuilderDef()
    d.version = Version(rt.VERSION.major, rt.VERSION.minor, rt.VERSION.patch + 5)   # patch differs: fine
    capi.maniCreateBuilder(d)
    d = capi.maniDefaultBuilderDef()
    d.alloc = lambda user, size: bytearray(size)
    with pytest.raises(rt.InvalidError):
        capi.maniCreateBuilder(d)                                     # one function of the pair
    d = capi.maniDefaultBuilderDef()
    d.alloc, d.free = (lambda user, size: None), (lambda user, block: None)
    with pytest.raises(rt.CapacityError):
        capi.maniCreateBuilder(d)


class Heap:
    """An allocator that records what it lends and can be told to fail or to call back."""

    def __init__(self):
        self.live, self.calls, self.fail_after, self.during = {}, [], None, None

    def alloc(self, user, size):
        self.calls.append(("alloc", size))
        if self.fail_after is not None and len(self.live) >= self.fail_after:
            return None
        block = bytearray(size)
        self.live[id(block)] = block
        if self.during:
            self.during()
        return block

    def free(self, user, block):
        self.calls.append(("free", len(block)))
        del self.live[id(block)]
        if self.during:
            self.during()

    def make(self):
        d = capi.maniDefaultBuilderDef()
        d.alloc, d.free = self.alloc, self.free
        return capi.maniCreateBuilder(d)


def test_allocator_lends_every_block_and_gets_them_back():
    heap = Heap()
    builder = heap.make()
    capi.maniBuildSkeleton(builder, SOURCE)
    capi.maniBuildSkeleton(builder, SOURCE)              # the first file's block goes back
    assert len(heap.live) == 2                           # the builder's own block and one file
    capi.maniDestroyBuilder(builder)
    assert heap.live == {}


def test_allocator_failure_is_capacity_and_keeps_the_last_file():
    heap = Heap()
    builder = heap.make()
    capi.maniBuildSkeleton(builder, SOURCE)
    before = capi.maniBuilder_CopyBuilt(builder)
    heap.fail_after = 0
    with pytest.raises(rt.CapacityError):
        capi.maniBuildSkeleton(builder, SkeletonSource([B("other")]))
    assert capi.maniBuilder_CopyBuilt(builder) == before


def test_calls_back_from_the_hooks_are_busy_and_counted():
    heap = Heap()
    builder = heap.make()
    seen = []

    def call_back():
        for call in (lambda: capi.maniBuildSkeleton(builder, SOURCE),
                     lambda: capi.maniBuilder_CopyBuilt(builder),
                     lambda: capi.maniBuilder_CopySkeletonOrder(builder)):
            with pytest.raises(rt.BusyError):
                call()
            seen.append(1)
        capi.maniDestroyBuilder(builder)                 # from a hook: destroys nothing
    heap.during = call_back
    capi.maniBuildSkeleton(builder, SOURCE)
    heap.during = None
    assert len(seen) == 3
    assert capi.maniBuilder_GetMisuse(builder) == 4
    assert len(capi.maniBuilder_CopyBuilt(builder)) > 0   # it still holds its file
    capi.maniDestroyBuilder(builder)
    assert heap.live == {}


def test_calls_from_the_frees_of_destroy_are_refused():
    heap = Heap()
    builder = heap.make()
    capi.maniBuildSkeleton(builder, SOURCE)
    refused = []

    def call_back():
        with pytest.raises(rt.BusyError):
            capi.maniBuilder_CopyBuilt(builder)
        refused.append(1)
    heap.during = call_back
    capi.maniDestroyBuilder(builder)
    assert len(refused) == 2                             # the file's free and the builder's own
    assert heap.live == {}


def test_null_arguments_are_misuse():
    builder = capi.maniCreateBuilder(capi.maniDefaultBuilderDef())
    with pytest.raises(rt.InvalidError):
        capi.maniBuildSkeleton(builder, None)
    with pytest.raises(rt.InvalidError):
        capi.maniBuildSkeleton(None, SOURCE)
    with pytest.raises(rt.InvalidError):
        capi.maniBuilder_CopyBuilt(builder)              # holds nothing yet
    with pytest.raises(rt.InvalidError):
        capi.maniBuilder_CopySkeletonOrder(builder)
    assert capi.maniBuilder_GetMisuse(builder) == 3


def test_copy_built_into_caller_memory():
    builder = capi.maniCreateBuilder(capi.maniDefaultBuilderDef())
    capi.maniBuildSkeleton(builder, SOURCE)
    data = capi.maniBuilder_CopyBuilt(builder)
    out = bytearray(len(data) + 10)
    assert capi.maniBuilder_CopyBuilt(builder, out) == len(data)
    assert bytes(out[:len(data)]) == data
    short = bytearray(len(data) - 1)
    with pytest.raises(rt.CapacityError) as e:
        capi.maniBuilder_CopyBuilt(builder, short)
    assert e.value.size == len(data) and short == bytearray(len(data) - 1)


def test_copy_skeleton_order_capacity_zeroes_the_array():
    builder = capi.maniCreateBuilder(capi.maniDefaultBuilderDef())
    capi.maniBuildSkeleton(builder, SkeletonSource([B("c", 1), B("r")]))
    np.testing.assert_array_equal(capi.maniBuilder_CopySkeletonOrder(builder), [1, 0])
    short = np.full(1, 9, np.uint32)
    with pytest.raises(rt.CapacityError) as e:
        capi.maniBuilder_CopySkeletonOrder(builder, short)
    assert e.value.count == 2 and (short == 0).all()
    room = np.full(3, 9, np.uint32)
    capi.maniBuilder_CopySkeletonOrder(builder, room)
    np.testing.assert_array_equal(room, [1, 0, 9])


def test_the_same_source_builds_the_same_bytes():
    a = rt.build_skeleton(rt.Builder(), SOURCE)
    b = rt.build_skeleton(rt.Builder(), SOURCE)
    assert a == b


# ---- the front door every build call shares (core.builder.enter_build) -----------------------------
def _front_doors():
    """(call, a source of the right kind missing what the build needs) for every build call."""
    from runtime.graph.json.read import GraphNamedAssets
    return [
        (lambda b, s: rt.build_skeleton(b, s), None),
        (lambda b, s: rt.build_clip(b, s), rt.ClipSource(None)),
        (lambda b, s: rt.build_skin(b, s), rt.SkinSource(None, [0])),
        (lambda b, s: rt.build_influences(b, s), rt.InfluenceSource(None, [0], [0], [1.0])),
        (lambda b, s: rt.build_centers(b, s), rt.CenterSource(None, [], [])),
        (lambda b, s: rt.build_morph_targets(b, s), rt.MorphSource(1, None, [])),
        (lambda b, s: rt.build_graph(b, s), rt.GraphSource(None)),
        (lambda b, s: rt.build_graph_json(b, "{}", s), GraphNamedAssets(None)),
    ]


@pytest.mark.parametrize("door", range(8))
def test_every_build_call_goes_through_one_front_door(door):
    call, lacking = _front_doors()[door]
    with pytest.raises(rt.InvalidError):
        call(None, lacking)                             # no builder: nothing to count it on
    builder = rt.Builder()
    with pytest.raises(rt.InvalidError):
        call(builder, object())                         # not the call's source: a misuse
    assert builder.misuse == 1
    if lacking is not None:
        with pytest.raises(rt.InvalidError):
            call(builder, lacking)                      # a source without what the build needs
        assert builder.misuse == 2
    misuse = builder.misuse
    builder.destroy()
    with pytest.raises(rt.BusyError):
        call(builder, lacking)
    assert builder.misuse == misuse + 1
