"""ragdoll.h's moves, against plain numpy references written here: bodies from a pose on the
bones' model frames without scale, velocities that match finite differences (the shortest
turn), joint targets, a pose from bodies that inverts bodies from a pose, and the get-up
placement on the back, front and side, upright, and in the degenerate case."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.physics.ragdoll import getup_heading
from runtime.samples.humanoid import humanoid_source
from runtime.samples.ragdoll import humanoid_ragdoll_source


# ---- the reference: quaternions and frames in plain binary64 numpy --------------------------
def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def qconj(q):
    return np.array([-q[0], -q[1], -q[2], q[3]])


def matrix(q):
    x, y, z, w = np.asarray(q, dtype=np.float64) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def rotate(q, v):
    return matrix(q) @ v


def axis_angle(axis, angle):
    axis = np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)
    return np.append(axis * math.sin(angle / 2), math.cos(angle / 2))


def same_turn(a, b, tol):
    return min(np.abs(np.asarray(a) - b).max(), np.abs(np.asarray(a) + b).max()) <= tol


def reference_frames(skeleton, locals_):
    """Each bone's model frame without scale: the 4x4 matrices composed in binary64 (the
    translation), and the product of the local rotations from the root (the rotation)."""
    n = skeleton.bone_count
    mats, turns = np.zeros((n, 4, 4)), np.zeros((n, 4))
    for b in range(n):
        local = np.eye(4)
        local[:3, :3] = matrix(locals_[b, 3:7]) * locals_[b, 7:10]
        local[:3, 3] = locals_[b, 0:3]
        q = locals_[b, 3:7] / np.linalg.norm(locals_[b, 3:7])
        p = skeleton.parent(b)
        mats[b] = local if p == rt.NO_BONE else mats[p] @ local
        turns[b] = q if p == rt.NO_BONE else qmul(turns[p], q)
    return mats[:, :3, 3], turns


def reference_bodies(ragdoll, skeleton, locals_, placement):
    ts, qs = reference_frames(skeleton, locals_.astype(np.float64))
    pq = placement[3:7] / np.linalg.norm(placement[3:7])
    out = []
    for k in range(ragdoll.body_count):
        body = ragdoll.body(k)
        f = body.frame.astype(np.float64)
        t = placement[0:3] + rotate(pq, ts[body.bone] + rotate(qs[body.bone], f[0:3]))
        out.append(np.concatenate([t, qmul(pq, qmul(qs[body.bone], f[3:7]))]))
    return np.array(out)


# ---- fixtures -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def skeleton():
    return rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(80)))


@pytest.fixture(scope="module")
def ragdoll(skeleton):
    return rt.Ragdoll(rt.build_ragdoll(rt.Builder(), humanoid_ragdoll_source(skeleton)))


def posed(skeleton, rng, turn=0.6, scales=True):
    """A pose with every bone turned at random and non-uniform scales (or none)."""
    pose = rt.Pose(skeleton)
    locals_ = pose.locals.copy()
    for b in range(skeleton.bone_count):
        q = qmul(locals_[b, 3:7], axis_angle(rng.normal(size=3), rng.uniform(-turn, turn)))
        locals_[b, 3:7] = q
        locals_[b, 7:10] = rng.uniform(0.8, 1.25, 3) if scales else 1.0
    locals_[0, 0:3] += rng.normal(size=3)
    pose.write_locals(0, locals_)
    pose.compute_model(skeleton)
    return pose


def placement(rng, scale=1.0):
    q = axis_angle(rng.normal(size=3), rng.uniform(-3, 3))
    return np.concatenate([rng.normal(size=3) * 3, q, [scale] * 3]).astype(np.float32)


# ---- bodies from a pose ----------------------------------------------------------------------
def test_profile_reads_back(ragdoll, skeleton):
    assert ragdoll.body_count == 20
    assert ragdoll.skeleton_identity == skeleton.identity
    bodies = [ragdoll.body(k) for k in range(20)]
    assert [b.bone for b in bodies] == sorted(b.bone for b in bodies)
    assert bodies[0].parent == capi.MANI_NO_BODY and bodies[0].name == "hips"
    assert all(b.parent < k for k, b in enumerate(bodies) if k)
    assert bodies[ragdoll.body_of_bone[skeleton.find_bone("forearm_l")]].parent == \
        ragdoll.body_of_bone[skeleton.find_bone("arm_l")]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32 - 1))
def test_bodies_land_on_the_bones_model_frames_without_scale(ragdoll, skeleton, seed):
    rng = np.random.default_rng(seed)
    pose = posed(skeleton, rng)
    place = placement(rng, scale=float(rng.uniform(0.5, 3.0)))
    bodies = ragdoll.bodies_from_pose(pose, place)
    want = reference_bodies(ragdoll, skeleton, pose.locals, place.astype(np.float64))
    assert np.abs(bodies[:, 0:3] - want[:, 0:3]).max() <= 2e-5 * (1 + np.abs(want[:, 0:3]).max())
    for k in range(ragdoll.body_count):
        assert same_turn(bodies[k, 3:7], want[k, 3:7], 2e-6), k
    assert (bodies[:, 7:] == 0).all()
    unscaled = place.copy()
    unscaled[7:10] = 1.0
    assert np.array_equal(ragdoll.bodies_from_pose(pose, unscaled), bodies)


def test_bodies_follow_the_model_matrices_where_nothing_shears(ragdoll, skeleton):
    """Without scales the frames are the model matrices' own (rotation and origin)."""
    rng = np.random.default_rng(5)
    pose = posed(skeleton, rng, scales=False)
    bodies = ragdoll.bodies_from_pose(pose, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
    for k in range(ragdoll.body_count):
        body = ragdoll.body(k)
        m = pose.model[body.bone].astype(np.float64)
        f = body.frame.astype(np.float64)
        assert np.allclose(bodies[k, 0:3], m[:, :3] @ f[0:3] + m[:, 3], atol=2e-5)
        assert np.allclose(matrix(bodies[k, 3:7]), m[:, :3] @ matrix(f[3:7]), atol=2e-5)


def test_velocities_match_finite_differences(ragdoll, skeleton):
    rng = np.random.default_rng(11)
    h = 1e-3
    before = posed(skeleton, rng)
    now = rt.Pose(skeleton)
    locals_ = before.locals.astype(np.float64)
    for b in range(skeleton.bone_count):            # every bone turning at its own rate
        locals_[b, 3:7] = qmul(locals_[b, 3:7], axis_angle(rng.normal(size=3), 2.0 * h))
    locals_[0, 0:3] += np.array([1.0, -2.0, 0.5]) * h
    now.write_locals(0, locals_)
    now.compute_model(skeleton)
    p0, p1 = placement(rng), placement(rng)
    p1[:] = p0
    p1[0] += 3.0 * h
    p1[3:7] = qmul(p0[3:7], axis_angle((0, 1, 0), 1.5 * h))
    bodies = ragdoll.bodies_from_pose(now, p1, before, p0, h)
    a = reference_bodies(ragdoll, skeleton, before.locals, p0.astype(np.float64))
    b = reference_bodies(ragdoll, skeleton, now.locals, p1.astype(np.float64))
    velocity = (b[:, 0:3] - a[:, 0:3]) / h
    assert np.abs(bodies[:, 7:10] - velocity).max() <= 0.02 * (1 + np.abs(velocity).max())
    for k in range(ragdoll.body_count):
        q0, q1 = a[k, 3:7], b[k, 3:7] * np.sign(a[k, 3:7] @ b[k, 3:7])
        w = 2.0 * qmul((q1 - q0) / h, qconj(q0))[0:3]    # dq/dt = w q / 2
        assert np.abs(bodies[k, 10:13] - w).max() <= 0.02 * (1 + np.abs(w).max()), k


def test_without_a_previous_pose_the_bodies_rest(ragdoll, skeleton):
    pose = posed(skeleton, np.random.default_rng(2))
    bodies = ragdoll.bodies_from_pose(pose, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], None, None, 0.5)
    assert (bodies[:, 7:] == 0).all()
    same = ragdoll.bodies_from_pose(pose, [1, 0, 0, 0, 0, 0, 1, 1, 1, 1], pose,
                                    [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], 0.5)
    assert np.allclose(same[:, 7:10], [2.0, 0, 0], atol=1e-5)     # the placement's motion alone
    assert np.abs(same[:, 10:]).max() <= 1e-5


def test_a_turn_past_half_reads_as_the_shorter_turn_the_other_way(ragdoll, skeleton):
    pose = rt.Pose(skeleton)
    pose.compute_model(skeleton)
    seconds = 0.1
    turned = np.concatenate([[0, 0, 0], axis_angle((0, 1, 0), 1.5 * math.pi), [1, 1, 1]])
    bodies = ragdoll.bodies_from_pose(pose, turned, pose, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], seconds)
    assert np.allclose(bodies[:, 10:13], [0, -0.5 * math.pi / seconds, 0], atol=1e-3)
    assert (np.linalg.norm(bodies[:, 10:13], axis=1) <= math.pi / seconds + 1e-3).all()


def test_capi_fills_the_callers_rows(ragdoll, skeleton):
    pose = posed(skeleton, np.random.default_rng(4))
    out = np.full((24, 13), 7.0, np.float32)
    bodies, count = capi.maniRagdoll_ComputeBodiesFromPose(ragdoll, pose, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1],
                                                           None, None, 0.0, out, 22)
    assert count == 20 and bodies.base is out or np.shares_memory(bodies, out)
    assert np.array_equal(out[:20], ragdoll.bodies_from_pose(pose, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]))
    assert (out[20:] == 7.0).all()


# ---- joint targets -----------------------------------------------------------------------
def test_joint_targets(ragdoll, skeleton):
    rest = rt.Pose(skeleton)
    rest.compute_model(skeleton)
    at_rest = ragdoll.joint_targets(ragdoll.bodies_from_pose(rest, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]))
    assert np.allclose(at_rest[:, 0:4], [0, 0, 0, 1], atol=1e-6) and (at_rest[:, 4:] == 0).all()
    rng = np.random.default_rng(8)
    bodies = ragdoll.bodies_from_pose(posed(skeleton, rng), placement(rng))
    bodies[:, 10:13] = rng.normal(size=(20, 3))
    targets = ragdoll.joint_targets(bodies)
    assert np.array_equal(targets[0], [0, 0, 0, 1, 0, 0, 0])
    for k in range(1, 20):
        body = ragdoll.body(k)
        p = body.parent
        child = qmul(bodies[k, 3:7], body.joint_frame[3:7])
        parent = qmul(bodies[p, 3:7], body.parent_frame[3:7])
        assert same_turn(targets[k, 0:4], qmul(qconj(parent), child), 2e-6)
        w = matrix(parent).T @ (bodies[k, 10:13].astype(np.float64) - bodies[p, 10:13])
        assert np.allclose(targets[k, 4:7], w, atol=1e-5)


# ---- a pose from bodies ------------------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2 ** 32 - 1))
def test_pose_from_bodies_inverts_bodies_from_pose(ragdoll, skeleton, seed):
    rng = np.random.default_rng(seed)
    pose = posed(skeleton, rng)
    place = placement(rng)
    bodies = ragdoll.bodies_from_pose(pose, place)
    reference = posed(skeleton, rng)                    # another pose's locals and scales
    out = rt.Pose(skeleton)
    ragdoll.pose_from_bodies(skeleton, bodies, place, reference, out)
    assert out.is_model_current
    again = ragdoll.bodies_from_pose(out, place)
    assert np.abs(again[:, 0:3] - bodies[:, 0:3]).max() <= 1e-5 * (1 + np.abs(bodies[:, 0:3]).max())
    assert all(same_turn(again[k, 3:7], bodies[k, 3:7], 1e-5) for k in range(20))
    no_body = ragdoll.body_of_bone < 0
    assert np.array_equal(out.locals[no_body], reference.locals[no_body])
    assert np.array_equal(out.locals[:, 7:10], reference.locals[:, 7:10])
    check = rt.Pose(skeleton)
    check.write_locals(0, out.locals)
    check.compute_model(skeleton)
    assert np.array_equal(check.model, out.model)       # composed as the pose composes
    # with the pose itself as the reference, its locals come back (the body bones' too)
    ragdoll.pose_from_bodies(skeleton, bodies, place, pose, out)
    assert np.abs(out.locals[:, 0:3] - pose.locals[:, 0:3]).max() <= 1e-5 * (
        1 + np.abs(pose.locals[:, 0:3]).max())
    assert all(same_turn(out.locals[b, 3:7] / np.linalg.norm(out.locals[b, 3:7]),
                         pose.locals[b, 3:7] / np.linalg.norm(pose.locals[b, 3:7]), 1e-5)
               for b in range(skeleton.bone_count))


def test_pose_from_bodies_in_place(ragdoll, skeleton):
    rng = np.random.default_rng(3)
    pose = posed(skeleton, rng)
    bodies = ragdoll.bodies_from_pose(pose, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
    other = rt.Pose(skeleton)
    ragdoll.pose_from_bodies(skeleton, bodies, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], pose, other)
    ragdoll.pose_from_bodies(skeleton, bodies, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], pose, pose)
    assert np.array_equal(pose.buffer, other.buffer)


# ---- getting up ----------------------------------------------------------------------------
def lying(ragdoll, skeleton, turn):
    """The rest pose turned whole by `turn` (the model's up is +y, forward +z)."""
    pose = rt.Pose(skeleton)
    pose.compute_model(skeleton)
    return ragdoll.bodies_from_pose(pose, np.concatenate([[0.3, 0.4, -0.2], turn, [1, 1, 1]]))


def heading_of(getup):
    return rotate(getup.placement[3:7], (0, 0, 1))


def root_axes(ragdoll, bodies):
    q = bodies[0, 3:7].astype(np.float64)
    return rotate(q, ragdoll.facing), rotate(q, ragdoll.up)


@pytest.mark.parametrize("name, turn, face_up", [
    ("on its back", axis_angle((1, 0, 0), -math.pi / 2), True),   # chest toward +y, head -z
    ("on its front", axis_angle((1, 0, 0), math.pi / 2), False),  # chest toward -y, head +z
    ("on its side", axis_angle((0, 0, 1), math.pi / 2), True),    # head toward -x
    ("upright", np.array([0, 0, 0, 1.0]), True),
])
def test_get_up_heading(ragdoll, skeleton, name, turn, face_up):
    bodies = lying(ragdoll, skeleton, turn)
    ground = rt.RagdollGround((0, 0.1, 0), (0, 1, 0), (0, 1, 0), (0, 0, 1))
    getup = ragdoll.get_up(bodies, ground)
    facing, head = root_axes(ragdoll, bodies)
    n = np.array([0, 1.0, 0])
    assert getup.face_up == face_up, name
    head_on, facing_on = head - n * (head @ n), facing - n * (facing @ n)
    want = (-head_on if face_up else head_on) + facing_on * (head @ n)
    want /= np.linalg.norm(want)
    assert np.allclose(heading_of(getup), want, atol=1e-5), name
    assert np.allclose(rotate(getup.placement[3:7], (0, 1, 0)), n, atol=1e-5)
    assert np.allclose(getup.placement[7:10], 1.0)
    assert np.isclose(getup.placement[1], 0.1) and np.allclose(getup.placement[[0, 2]],
                                                                bodies[0, [0, 2]], atol=1e-6)
    if name == "on its back":       # looking toward its feet: the head lay toward -z
        assert heading_of(getup)[2] > 0.99
    if name == "on its front":      # looking where its head lay: +z
        assert heading_of(getup)[2] > 0.99
    if name == "upright":           # where the chest faces
        assert np.allclose(heading_of(getup), facing_on / np.linalg.norm(facing_on), atol=1e-5)


def test_get_up_under_another_ground_and_model_axes(ragdoll, skeleton):
    """A tilted plane and a model whose forward is +x: up onto the normal, forward onto the
    heading."""
    bodies = lying(ragdoll, skeleton, axis_angle((1, 0, 0), math.pi / 2))
    normal = np.array([0.0, math.cos(0.2), math.sin(0.2)])
    getup = ragdoll.get_up(bodies, rt.RagdollGround((0, 0, 0), normal, (0, 0, 1), (1, 0, 0)))
    facing, head = root_axes(ragdoll, bodies)
    heading, _ = getup_heading(head, facing, normal)
    assert np.allclose(rotate(getup.placement[3:7], (0, 0, 1)), normal, atol=1e-5)
    assert np.allclose(rotate(getup.placement[3:7], (1, 0, 0)), heading, atol=1e-5)
    assert abs((getup.placement[0:3] - 0) @ normal) <= 1e-5


def test_get_up_degenerate_heading_takes_the_heads_way():
    """The sum cancelling (axes off the unit-perpendicular rules make it possible): the
    head's way on the plane alone; and with perpendicular unit axes it never cancels."""
    n = np.array([0.0, 0.0, 1.0])
    head = np.array([0.5, 0.0, math.sqrt(0.75)])
    facing = np.array([0.5 / math.sqrt(0.75), 0.0, 0.1])    # face up; a * facing_on = head_on
    heading, face_up = getup_heading(head, facing, n)
    assert face_up and np.allclose(heading, [1, 0, 0])
    rng = np.random.default_rng(0)
    for _ in range(500):
        q = rng.normal(size=4)
        m = matrix(q / np.linalg.norm(q))
        h = m[:, 1] * (-1 if m[:, 2] @ n >= 0 else 1)
        h = h - n * (h @ n) + (m[:, 2] - n * (m[:, 2] @ n)) * (m[:, 1] @ n)
        assert np.linalg.norm(h) >= 1 - 1e-9
