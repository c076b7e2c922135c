"""Every refusal of the Returns lines of ragdoll.h and maniBuildRagdoll, each output unchanged
(bit for bit) where a call refuses."""
import math
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core.errors import BuildReason
from runtime.physics import BodySource, RagdollGround, RagdollShape, RagdollSource
from runtime.samples.humanoid import humanoid_source

from file_fuzzing import check_fields_blamed, check_random_corruption, section_fields
from fuzz_files import reseal

IDENTITY = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]


@pytest.fixture(scope="module")
def skeleton():
    return rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(40)))


def source(skeleton):
    return RagdollSource(skeleton, [
        BodySource("chest", 2, RagdollShape.capsule, (0.1, 0.05, 0), 8.0, (0, 0.1, 0)),
        BodySource("hips", 0, RagdollShape.box, (0.15, 0.1, 0.1), 10.0),
        BodySource("head", 5, RagdollShape.sphere, (0.1, 0, 0), 4.0),
        BodySource("arm", 7, RagdollShape.capsule, (0.04, 0.08, 0), 2.0, stiffness=5.0,
                   damping=1.0, max_force=50.0),
        BodySource("hand", 11, RagdollShape.box, (0.04, 0.02, 0.05), 0.5)],
        facing=(0, 0, 1), up=(0, 1, 0))


def built(src) -> bytes:
    b = rt.Builder()
    capi.maniBuildRagdoll(b, src)
    return bytes(capi.maniBuilder_CopyBuilt(b))


@pytest.fixture(scope="module")
def ragdoll(skeleton):
    return capi.maniOpenRagdoll(built(source(skeleton)))


def model_pose(skeleton):
    pose = rt.Pose(skeleton)
    pose.compute_model(skeleton)
    return pose


def _body(i, **changes):
    def change(s):
        for k, v in changes.items():
            setattr(s.bodies[i], k, v)
    return change


# ---- maniBuildRagdoll --------------------------------------------------------------------
@pytest.mark.parametrize("change, error, reason, item, other", [
    (lambda s: setattr(s, "bodies", []), rt.InvalidError, BuildReason.Count, 0, 0),
    (lambda s: setattr(s, "bodies", [BodySource(f"b{k}", k) for k in range(41)]),
     rt.InvalidError, BuildReason.Count, 41, 0),
    (lambda s: s.bodies.append("not a body"), rt.InvalidError, BuildReason.Count, 5, 0),
    (_body(2, name="x" * 256), rt.LimitError, BuildReason.Name, 2, 0),
    (_body(2, name=""), rt.InvalidError, BuildReason.Name, 2, 0),
    (_body(3, name="hips"), rt.InvalidError, BuildReason.DuplicateName, 3, 1),
    (_body(1, bone=40), rt.InvalidError, BuildReason.Joint, 1, 0),
    (_body(1, bone=1.0), rt.InvalidError, BuildReason.Joint, 1, 0),
    (_body(3, bone=2), rt.InvalidError, BuildReason.Joint, 3, 0),        # chest's bone again
    (_body(1, bone=34), rt.InvalidError, BuildReason.Joint, 1, 0),       # hips on a leg: two roots
    (_body(0, shape=3), rt.InvalidError, BuildReason.Attribute, 0, 0),
    (_body(0, size=(0.1, 0.0, 0)), rt.InvalidError, BuildReason.Attribute, 0, 1),
    (_body(2, size=(0.1, 0.1, 0)), rt.InvalidError, BuildReason.Attribute, 2, 1),
    (_body(1, size=(0.1, -1, 1)), rt.InvalidError, BuildReason.Attribute, 1, 1),
    (_body(1, size=(0.1, 1)), rt.InvalidError, BuildReason.Attribute, 1, 1),
    (_body(3, mass=0.0), rt.InvalidError, BuildReason.Weight, 3, 0),
    (_body(3, mass=math.nan), rt.InvalidError, BuildReason.Weight, 3, 0),
    (_body(3, translation=(0, 1e39, 0)), rt.InvalidError, BuildReason.NotFinite, 3, 0),
    (_body(3, rotation=(0, 0, 0, 0)), rt.InvalidError, BuildReason.NotFinite, 3, 1),
    (_body(3, joint_translation=(math.inf, 0, 0)), rt.InvalidError, BuildReason.NotFinite, 3, 2),
    (_body(3, joint_rotation=(0, 0, 0, 0)), rt.InvalidError, BuildReason.NotFinite, 3, 3),
    (_body(3, twist_min=0.6), rt.InvalidError, BuildReason.Scalar, 3, 0),
    (_body(3, twist_max=4.0), rt.InvalidError, BuildReason.Scalar, 3, 0),
    (_body(3, swing_y=-0.1), rt.InvalidError, BuildReason.Scalar, 3, 1),
    (_body(3, swing_z=3.2), rt.InvalidError, BuildReason.Scalar, 3, 1),
    (_body(3, stiffness=-1.0), rt.InvalidError, BuildReason.Scalar, 3, 2),
    (_body(3, damping=math.nan), rt.InvalidError, BuildReason.Scalar, 3, 2),
    (_body(3, max_force=0.0), rt.InvalidError, BuildReason.Scalar, 3, 2),
    (lambda s: setattr(s, "facing", (0, 0, 0)), rt.InvalidError, BuildReason.Basis, 0, 0),
    (lambda s: setattr(s, "up", (0, 0, 0)), rt.InvalidError, BuildReason.Basis, 1, 0),
    (lambda s: setattr(s, "up", (0, 1, 0.01)), rt.InvalidError, BuildReason.Basis, 0, 0),
    (lambda s: setattr(s, "facing", (0, math.nan, 1)), rt.InvalidError, BuildReason.Basis, 0, 0),
])
def test_build_refusals(skeleton, change, error, reason, item, other):
    src = source(skeleton)
    change(src)
    b = rt.Builder()
    with pytest.raises(error) as e:
        capi.maniBuildRagdoll(b, src)
    assert (e.value.reason, e.value.item, e.value.other) == (reason, item, other)
    assert capi.maniBuilder_GetMisuse(b) == 0


def test_build_keeps_what_it_may(skeleton):
    """Unit-perpendicular within a thousandth is made exact; bodies come out by bone."""
    src = source(skeleton)
    src.up = (0, 2, 0.0005)
    r = capi.maniOpenRagdoll(built(src))
    assert abs(r.facing @ r.up) < 1e-7 and abs(np.linalg.norm(r.up) - 1) < 1e-7
    assert [capi.maniRagdoll_GetBody(r, k).name for k in range(5)] == ["hips", "chest", "head", "arm",
                                                                        "hand"]


def test_build_misuse(skeleton):
    b = rt.Builder()
    for bad in (None, RagdollSource(None, []), RagdollSource(rt.Skeleton.__new__(rt.Skeleton), [])):
        with pytest.raises(rt.InvalidError):
            capi.maniBuildRagdoll(b, bad)
    assert capi.maniBuilder_GetMisuse(b) == 3
    with pytest.raises(rt.InvalidError):
        capi.maniBuildRagdoll(None, source(skeleton))


def test_build_capacity(skeleton):
    calls = []

    def alloc(user, size):          # the builder's own block, then nothing
        calls.append(size)
        return bytearray(size) if len(calls) == 1 else None
    b = rt.Builder(rt.BuilderDef(cookie=capi.maniDefaultBuilderDef().cookie, alloc=alloc,
                                 free=lambda user, block: None))
    with pytest.raises(rt.CapacityError):
        capi.maniBuildRagdoll(b, source(skeleton))


# ---- maniOpenRagdoll ---------------------------------------------------------------------
def test_open_refusals(skeleton):
    good = built(source(skeleton))
    capi.maniOpenRagdoll(good)
    with pytest.raises(rt.InvalidError):
        capi.maniOpenRagdoll(None)
    misaligned = np.frombuffer(bytearray(len(good) + 1), np.uint8)[1:]
    misaligned[:] = np.frombuffer(good, np.uint8)
    with pytest.raises(rt.InvalidError):
        capi.maniOpenRagdoll(misaligned)
    later = bytearray(good)
    struct.pack_into("<H", later, 6, 2)
    with pytest.raises(rt.VersionError):
        capi.maniOpenRagdoll(bytes(later))
    newer = bytearray(good)
    struct.pack_into("<H", newer, 32 + 4, 1)            # the first section from minor 1
    with pytest.raises(rt.VersionError):
        capi.maniOpenRagdoll(bytes(newer))
    fields, sections = section_fields(good)
    check_fields_blamed(good, fields, capi.maniOpenRagdoll)
    check_random_corruption(good, capi.maniOpenRagdoll, trials=600)
    head, val = sections[b"RAGD"][0], sections[b"RVAL"][0]
    row = 4 * 36
    for at, value, fmt in (
            (head, 41, "<I"),                           # more bodies than bones
            (head + 8, 1, "<I"),                        # reserved
            (head + 24, 0.5, "<f"),                     # facing not unit
            (head + 36, 1.0, "<f"),                     # up not perpendicular (0 1 1)... x of up
            (sections[b"RSKP"][0] + 4 * 3, 5, "<I"),    # a bone's parent above it
            (sections[b"RBON"][0] + 4, 0, "<I"),        # bones not increasing
            (sections[b"RBON"][0] + 12, 40, "<I"),      # a bone past the skeleton
            (sections[b"RPAR"][0], 0, "<I"),            # the root with a parent
            (sections[b"RPAR"][0] + 8, 0, "<I"),        # the head's parent not the chest
            (sections[b"RSHP"][0] + 4, 3, "<I"),        # an unknown shape
            (val + 4 * 3, 2.0, "<f"),                   # a frame rotation not unit
            (val + 4 * 0, math.nan, "<f"),              # a frame not finite
            (val + 4 * 9, 0.1, "<f"),                   # a box size... the hips' z is used: chest's
            (val + row + 4 * 9, 0.1, "<f"),             # a capsule's unused size set
            (val + row + 4 * 7, -0.1, "<f"),            # a radius below 0
            (val + 4 * 10, 0.0, "<f"),                  # a mass of 0
            (val + 4 * 11, 1.0, "<f"),                  # reserved
            (val + row + 4 * 15, 2.0, "<f"),            # a joint rotation not unit
            (val + row + 4 * 26, -4.0, "<f"),           # twist min below -pi
            (val + row + 4 * 26, 0.9, "<f"),            # twist min above max
            (val + row + 4 * 27, 4.0, "<f"),            # twist max past pi
            (val + row + 4 * 28, -0.1, "<f"),           # a swing below 0
            (val + row + 4 * 30, -1.0, "<f"),           # stiffness below 0
            (val + row + 4 * 32, 0.0, "<f"),            # max force 0
            (val + row + 4 * 33, 1.0, "<f"),            # reserved
            (val + 4 * 26, 0.1, "<f"),                  # the root with a limit
    ):
        if at == val + 4 * 9:
            continue                                    # the hips' box uses all three sizes
        data = bytearray(good)
        struct.pack_into(fmt, data, at, value)
        with pytest.raises(rt.FormatError) as e:
            capi.maniOpenRagdoll(reseal(data))
        assert e.value.offset == at, (at, value)


def test_queries_of_null(ragdoll):
    for fn in (capi.maniRagdoll_GetIdentity, capi.maniRagdoll_GetSkeletonIdentity,
               capi.maniRagdoll_GetBodyCount):
        assert fn(None) == 0
        assert fn(ragdoll) != 0
    assert capi.maniRagdoll_GetBodyCount(ragdoll) == 5
    with pytest.raises(rt.InvalidError):
        capi.maniRagdoll_GetBody(None, 0)
    for past in (5, -1, 2 ** 40):
        with pytest.raises(rt.InvalidError):
            capi.maniRagdoll_GetBody(ragdoll, past)


# ---- ComputeBodiesFromPose ---------------------------------------------------------------
def _unchanged(call, out, error=rt.InvalidError):
    before = out.copy()
    with pytest.raises(error) as e:
        call()
    assert np.array_equal(out, before, equal_nan=True)
    return e.value


def test_bodies_from_pose_refusals(ragdoll, skeleton):
    other = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(44)))
    pose, out = model_pose(skeleton), np.full((6, 13), 3.0, np.float32)
    stale = model_pose(skeleton)
    stale.set_local(1, IDENTITY)
    difference = rt.Pose(skeleton)
    capi.maniSkeleton_ComputePoseDifference(skeleton, pose, pose, difference)
    call = capi.maniRagdoll_ComputeBodiesFromPose
    e = _unchanged(lambda: call(ragdoll, pose, IDENTITY, None, None, 0.0, out, 3), out,
                   rt.CapacityError)
    assert e.count == 5
    e = _unchanged(lambda: call(ragdoll, pose, IDENTITY, None, None, 0.0, None, 0), out,
                   rt.CapacityError)
    assert e.count == 5
    for args in ((None, pose, IDENTITY, None, None, 0.0),
                 (ragdoll, None, IDENTITY, None, None, 0.0),
                 (ragdoll, pose, None, None, None, 0.0),
                 (ragdoll, pose, IDENTITY, pose, None, 0.1),           # no previous placement
                 (ragdoll, model_pose(other), IDENTITY, None, None, 0.0),
                 (ragdoll, pose, IDENTITY, model_pose(other), IDENTITY, 0.1),
                 (ragdoll, difference, IDENTITY, None, None, 0.0),
                 (ragdoll, stale, IDENTITY, None, None, 0.0),
                 (ragdoll, pose, IDENTITY, stale, IDENTITY, 0.1),
                 (ragdoll, pose, [0, math.nan, 0, 0, 0, 0, 1, 1, 1, 1], None, None, 0.0),
                 (ragdoll, pose, [0, 0, 0, 0, 0, 0, 0, 1, 1, 1], None, None, 0.0),
                 (ragdoll, pose, IDENTITY, pose, [math.inf] + IDENTITY[1:], 0.1),
                 (ragdoll, pose, IDENTITY, pose, IDENTITY, 0.0),        # seconds out of range
                 (ragdoll, pose, IDENTITY, pose, IDENTITY, -0.1),
                 (ragdoll, pose, IDENTITY, pose, IDENTITY, math.nan),
                 (ragdoll, pose, IDENTITY, None, None, -1.0)):
        _unchanged(lambda: call(*args, out, 6), out)
    _unchanged(lambda: call(ragdoll, pose, IDENTITY, None, None, 0.0, None, 2), out)  # NULL, capacity


def test_joint_targets_refusals(ragdoll, skeleton):
    bodies = capi.maniRagdoll_ComputeBodiesFromPose(ragdoll, model_pose(skeleton), IDENTITY, None,
                                                    None, 0.0)[0]
    out = np.full((5, 7), 2.0, np.float32)
    call = capi.maniRagdoll_ComputeJointTargets
    assert _unchanged(lambda: call(ragdoll, bodies, out, 4), out, rt.CapacityError).count == 5
    assert _unchanged(lambda: call(ragdoll, bodies, None, 0), out, rt.CapacityError).count == 5
    for args in ((None, bodies), (ragdoll, None), (ragdoll, bodies[:3])):
        _unchanged(lambda: call(*args, out, 5), out)
    _unchanged(lambda: call(ragdoll, bodies, None, 5), out)
    assert call(ragdoll, bodies, out, 5)[1] == 5


def test_pose_from_bodies_refusals(ragdoll, skeleton):
    other = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(44)))
    bodies = capi.maniRagdoll_ComputeBodiesFromPose(ragdoll, model_pose(skeleton), IDENTITY, None,
                                                    None, 0.0)[0]
    reference, out = model_pose(skeleton), rt.Pose(skeleton)
    out.locals[...] = 5.0
    difference = rt.Pose(skeleton)
    capi.maniSkeleton_ComputePoseDifference(skeleton, reference, reference, difference)
    call = capi.maniRagdoll_ComputePoseFromBodies
    nan_place, unnormal, off_unit = bodies.copy(), bodies.copy(), bodies.copy()
    nan_place[2, 1] = math.nan
    unnormal[3, 3:7] = [0, 0, 0, 0]
    off_unit[1, 6] *= 1.01
    before = out.buffer.copy()
    for args, error in (((None, skeleton, bodies, IDENTITY, reference), rt.InvalidError),
                        ((ragdoll, None, bodies, IDENTITY, reference), rt.InvalidError),
                        ((ragdoll, skeleton, None, IDENTITY, reference), rt.InvalidError),
                        ((ragdoll, skeleton, bodies, None, reference), rt.InvalidError),
                        ((ragdoll, skeleton, bodies, IDENTITY, None), rt.InvalidError),
                        ((ragdoll, other, bodies, IDENTITY, reference), rt.InvalidError),
                        ((ragdoll, skeleton, bodies, IDENTITY, model_pose(other)), rt.InvalidError),
                        ((ragdoll, skeleton, bodies, IDENTITY, difference), rt.InvalidError),
                        ((ragdoll, skeleton, bodies, [0] * 10, reference), rt.InvalidError),
                        ((ragdoll, skeleton, bodies, [math.nan] * 10, reference), rt.InvalidError),
                        ((ragdoll, skeleton, nan_place, IDENTITY, reference), rt.InvalidError),
                        ((ragdoll, skeleton, unnormal, IDENTITY, reference), rt.InvalidError),
                        ((ragdoll, skeleton, off_unit, IDENTITY, reference), rt.InvalidError),
                        ((ragdoll, skeleton, bodies[:3], IDENTITY, reference), rt.CapacityError)):
        with pytest.raises(error):
            call(*args, out)
        assert np.array_equal(out.buffer, before)
    for bad_out in (None, model_pose(other)):
        with pytest.raises(rt.InvalidError):
            call(ragdoll, skeleton, bodies, IDENTITY, reference, bad_out)
    call(ragdoll, skeleton, bodies, IDENTITY, reference, out)
    assert not np.array_equal(out.buffer, before)


def test_get_up_refusals(ragdoll, skeleton):
    bodies = capi.maniRagdoll_ComputeBodiesFromPose(ragdoll, model_pose(skeleton), IDENTITY, None,
                                                    None, 0.0)[0]
    call = capi.maniRagdoll_ComputeGetUpPlacement
    bad = bodies.copy()
    bad[0, 0] = math.inf
    tilted = bodies.copy()
    tilted[0, 3:7] *= 1.002
    grounds = [RagdollGround(point=(0, math.nan, 0)), RagdollGround(normal=(0, 1.002, 0)),
               RagdollGround(normal=(0, 1e39, 0)), RagdollGround(up=(0, 0.99, 0)),
               RagdollGround(forward=(0, 0, 1.01)), RagdollGround(forward=(0, 0.01, 1)),
               RagdollGround(up=(1, 0, 0), forward=(0.7071, 0.7071, 0))]
    for args, error in ([((None, bodies, RagdollGround()), rt.InvalidError),
                         ((ragdoll, None, RagdollGround()), rt.InvalidError),
                         ((ragdoll, bodies, None), rt.InvalidError),
                         ((ragdoll, bodies, "ground"), rt.InvalidError),
                         ((ragdoll, bad, RagdollGround()), rt.InvalidError),
                         ((ragdoll, tilted, RagdollGround()), rt.InvalidError),
                         ((ragdoll, bodies[:3], RagdollGround()), rt.CapacityError)]
                        + [((ragdoll, bodies, g), rt.InvalidError) for g in grounds]):
        with pytest.raises(error):
            call(*args)
    # within a thousandth passes
    call(ragdoll, bodies, RagdollGround(normal=(0, 1.0009, 0), forward=(0, 0.0009, 1)))
