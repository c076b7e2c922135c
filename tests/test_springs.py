"""spring.h and maniBuildSpringSet: springs that do not depend on the host's frame rate,
their forces, lengths, colliders, limits, center space and scale, saved states that continue
bit for bit, and every refusal of the Returns lines."""
import math
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core.base import ABI_VERSION
from runtime.core.errors import BuildReason
from runtime.core.transform import quat_rotate
from runtime.physics import (ColliderShape, ColliderSource, JointSource, SpringLimitKind, LimitSource,
                             SpringSet, SpringSetSource, SpringSource, SpringState)
from runtime.physics.spring_build import convert_rates
from runtime.samples import springs as scene

from file_fuzzing import check_fields_blamed, check_random_corruption, section_fields

RATES = (24, 30, 60, 144, 240, None)         # None: irregular deltas
CHAIN = list(range(scene.TAIL_ROOT, scene.TAIL_ROOT + 5))
IDENTITY = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], dtype=np.float64)


@pytest.fixture(scope="module")
def skeleton():
    return rt.Skeleton.open(rt.build_skeleton(rt.Builder(), scene.tail_skeleton_source()))


def make_set(skeleton, **kw) -> SpringSet:
    return SpringSet(rt.build_spring_set(rt.Builder(), scene.tail_set_source(skeleton, **kw)))


def placed(x=0.0, turn=0.0, scale=1.0, axis=(0.0, 1.0, 0.0)):
    a = np.asarray(axis, dtype=np.float64) * math.sin(turn / 2)
    return np.array([x, 0, 0, *a, math.cos(turn / 2), scale, scale, scale])


def run(state, skeleton, frames, placement_of, delta=1 / 60, force=None, pose=None):
    pose = pose or rt.Pose(skeleton)
    for k in range(frames):
        state.step(pose, placement_of(k), force, delta)
    return pose


def tails(state, skeleton, pose, placement):
    """The chain's bones in the world after Apply: where the output pose puts the tails."""
    out = rt.Pose(skeleton)
    out.copy_from(pose)
    state.apply(out)
    return scene.world_points(skeleton, out, placement, CHAIN[1:]), out


def angle(a, b):
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    return math.acos(min(1.0, max(-1.0, float(a @ b))))


# ---- the frame rate ---------------------------------------------------------------------------
def test_tails_agree_at_every_host_rate_where_a_per_frame_verlet_does_not(skeleton):
    spring_set = make_set(skeleton)
    fixed = [scene.play(spring_set, skeleton, scene.host_times(r)) for r in RATES]
    verlet = [scene.play_per_frame(skeleton, scene.host_times(r)) for r in RATES]
    linear = [scene.play(spring_set, skeleton, scene.host_times(r), linear=True) for r in RATES]
    spread, reference = scene.spread_over_length(fixed), scene.spread_over_length(verlet)
    exact = scene.spread_over_length(linear)
    print(f"\nspread over the bone length at {RATES} Hz: fixed step {spread:.2e}, "
          f"per-frame Verlet {reference:.2e}; a piecewise-linear motion {exact:.2e}")
    assert spread <= 1e-3
    assert reference > 100 * spread
    # what is left between rates is the hosts' own interpolation of a smooth motion: a
    # motion their frames describe exactly agrees to rounding
    assert exact <= 1e-5
    moved = np.linalg.norm(fixed[0][2.0] - fixed[0][round(1 / 6, 6)])
    assert moved > 1.0                                  # the teleport happened


def test_at_the_reference_rate_a_step_is_vrms_frame(skeleton):
    """Host, step and reference rate equal: the state's tails are VRM's per-frame update (up
    to the teleport; the state's first step is at the first frame after time 0, where VRM's
    first frame starts)."""
    spring_set = make_set(skeleton, step_rate=60.0, reference_rate=60.0)
    times = scene.host_times(60)
    ours = scene.play(spring_set, skeleton, times)
    vrm = scene.play_per_frame(skeleton, times[1:])
    compared = [t for t in ours if t < scene.TELEPORT_AT]
    for t in compared:
        np.testing.assert_allclose(ours[t], vrm[t], atol=2e-6)
    assert len(compared) == 5


def test_the_conversion_samples_one_motion_at_another_rate():
    """A constant force: the reference recurrence every frame and the converted one every
    step meet at the common times (the tail free, no length: the update alone)."""
    drag, force, reference, step = 0.3, 0.7, 60.0, 150.0
    lam = 1 - drag
    x = x_prev = 0.0
    frames = {}
    for n in range(1, 121):
        x, x_prev = x + lam * (x - x_prev) + force / reference, x
        frames[n] = x
    # the motion x(t) = A + B t + C exp(-c t) the frames sample, through x(0) = x(-1/R) = 0
    c = -reference * math.log(lam)
    B = force / (1 - lam)
    C = B / (reference * math.expm1(c / reference))

    def exact(t):
        return -C + B * t + C * math.exp(-c * t)
    assert abs(exact(1.0) - frames[60]) < 1e-9
    keep, push = convert_rates(drag, reference, step)
    y, y_prev = exact(0.0), exact(-1 / step)
    for m in range(1, 301):
        y, y_prev = y + keep * (y - y_prev) + force * push, y
        if (m * reference) % step == 0:
            assert abs(y - frames[int(m * reference / step)]) < 1e-9
    assert convert_rates(1.0, 60.0, 120.0) == (0.0, 0.5 / 60.0)
    assert convert_rates(0.0, 60.0, 120.0) == (1.0, 0.25 / 60.0)


# ---- forces ---------------------------------------------------------------------------------------
def test_stiffness_pulls_a_tail_back_to_the_pose(skeleton):
    for stiffness, returns in ((1.5, True), (0.0, False)):
        state = SpringState(make_set(skeleton, stiffness=stiffness, gravity=0.0, drag=0.4), skeleton)
        pose = run(state, skeleton, 30, lambda k: placed(x=0.03 * k))      # dragged sideways
        run(state, skeleton, 600, lambda k: placed(x=0.9), pose=pose)      # then held still
        got, _ = tails(state, skeleton, pose, placed(x=0.9))
        rest = scene.world_points(skeleton, pose, placed(x=0.9), CHAIN)
        off = np.linalg.norm(got - rest[1:], axis=1).max()
        assert (off < 1e-3) == returns, (stiffness, off)


def test_gravity_and_force_act_in_the_world(skeleton):
    for turn in (0.0, math.pi / 2, math.pi):                 # the body turned over, on its side
        p = placed(turn=turn, axis=(0.0, 0.0, 1.0))
        state = SpringState(make_set(skeleton, stiffness=0.0, gravity=3.0, drag=0.5), skeleton)
        pose = run(state, skeleton, 900, lambda k: p)
        got, _ = tails(state, skeleton, pose, p)
        head = scene.world_points(skeleton, pose, p, [scene.TAIL_ROOT])[0]
        hanging = got[-1] - head
        assert angle(hanging, np.array([0.0, -1.0, 0.0])) < 0.05, turn
    state = SpringState(make_set(skeleton, stiffness=0.0, gravity=0.0, drag=0.5), skeleton)
    pose = run(state, skeleton, 900, lambda k: IDENTITY, force=[2.0, 0.0, 0.0])
    got, _ = tails(state, skeleton, pose, IDENTITY)
    assert angle(got[-1] - got[0], np.array([1.0, 0.0, 0.0])) < 0.1


def test_drag_one_stops_inertia(skeleton):
    state = SpringState(make_set(skeleton, stiffness=0.0, gravity=0.0, drag=1.0), skeleton)
    pose = run(state, skeleton, 20, lambda k: placed(x=0.05 * k))       # moving fast
    before = state.tails[:, :3].copy()
    run(state, skeleton, 50, lambda k: placed(x=0.95), pose=pose)       # stopped
    np.testing.assert_allclose(state.tails[:, :3], before, atol=1e-9)
    moving = SpringState(make_set(skeleton, stiffness=0.0, gravity=0.0, drag=0.0), skeleton)
    pose = run(moving, skeleton, 20, lambda k: placed(x=0.05 * k))
    before = moving.tails.copy()
    run(moving, skeleton, 50, lambda k: placed(x=0.95), pose=pose)
    assert np.abs(moving.tails - before).max() > 0.05                   # inertia carries on


def test_lengths_are_kept(skeleton):
    state = SpringState(make_set(skeleton, gravity=2.0, drag=0.05), skeleton)
    pose = rt.Pose(skeleton)
    rng = np.random.default_rng(3)
    for k in range(200):
        p = placed(x=float(rng.normal()), turn=float(rng.normal()))
        state.step(pose, p, [float(v) for v in rng.normal(size=3)], float(rng.uniform(0, 0.05)))
        got, _ = tails(state, skeleton, pose, p)
        head = scene.world_points(skeleton, pose, p, [scene.TAIL_ROOT])
        points = np.vstack([head, got])
        lengths = np.linalg.norm(np.diff(points, axis=0), axis=1)
        np.testing.assert_allclose(lengths, scene.SEGMENT, rtol=2e-6)


# ---- colliders and limits ---------------------------------------------------------------------
COLLIDERS = {
    "sphere": (ColliderSource(1, ColliderShape.sphere, (0.0, -0.35, -0.6), 0.25), "out"),
    "capsule": (ColliderSource(1, ColliderShape.capsule, (-0.5, -0.35, -0.6), 0.25,
                               (0.5, -0.3, -0.7)), "out"),
    "inside sphere": (ColliderSource(1, ColliderShape.inside_sphere, (0.0, 0.0, -0.55), 0.6), "in"),
    "inside capsule": (ColliderSource(1, ColliderShape.inside_capsule, (0.0, 0.2, -0.3), 0.5,
                                      (0.0, -0.2, -0.8)), "in"),
    "plane": (ColliderSource(1, ColliderShape.plane, (0.0, -0.1, 0.0), normal=(0.0, 1.0, 0.0)),
              "plane"),
}


def _penetration(collider, side, points, world, hit):
    """How far each tail is on the wrong side of the collider (0 when right)."""
    m = world.astype(np.float64)
    at = m[:, :3] @ np.asarray(collider.offset) + m[:, 3]
    size = abs(np.linalg.det(m[:, :3])) ** (1 / 3)
    if side == "plane":
        n = m[:, :3] @ np.asarray(collider.normal)
        n /= np.linalg.norm(n)
        return np.maximum(0.0, hit - (points - at) @ n)
    end = m[:, :3] @ np.asarray(collider.tail) + m[:, 3]
    if collider.shape in (ColliderShape.sphere, ColliderShape.inside_sphere):
        end = at
    ab = end - at
    t = np.clip(((points - at) @ ab) / max(ab @ ab, 1e-300), 0.0, 1.0)
    dist = np.linalg.norm(points - (at + t[:, None] * ab), axis=1)
    radius = collider.radius * size
    return np.maximum(0.0, radius + hit - dist) if side == "out" else np.maximum(0.0, dist - (radius - hit))


@pytest.mark.parametrize("name", sorted(COLLIDERS))
def test_no_tail_ends_on_the_wrong_side_of_a_collider(skeleton, name):
    collider, side = COLLIDERS[name]
    spring_set = make_set(skeleton, gravity=2.5, drag=0.1, colliders=[collider], groups=[[0]])
    state = SpringState(spring_set, skeleton)
    free = SpringState(make_set(skeleton, gravity=2.5, drag=0.1), skeleton)     # no collider
    pose, free_pose = rt.Pose(skeleton), rt.Pose(skeleton)
    worst, touched = 0.0, 0
    for k in range(240):
        p = placed(x=0.4 * math.sin(k / 9), turn=0.6 * math.sin(k / 13))
        state.step(pose, p, None, 1 / 75)                    # a host rate the steps do not divide
        got, _ = tails(state, skeleton, pose, p)
        body = _placement_matrix(p) @ np.vstack([pose.model[1].astype(np.float64), [0, 0, 0, 1]])
        body = body[:3]
        wrong = _penetration(collider, side, got, body, 0.02)
        worst = max(worst, float(wrong.max()))
        free.step(free_pose, p, None, 1 / 75)
        loose, _ = tails(free, skeleton, free_pose, p)
        touched += bool(_penetration(collider, side, loose, body, 0.02).max() > 1e-3)
    assert touched > 10, "the collider must be in the tail's way for the test to mean anything"
    assert worst <= 1e-5 * scene.SEGMENT, worst


def _placement_matrix(p):
    m = np.eye(4)
    m[:3, :3] = _matrix(p[3:7]) * p[7:10]
    m[:3, 3] = p[:3]
    return m


def _matrix(q):
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


@pytest.mark.parametrize("kind, bound", [(SpringLimitKind.cone, 0.25), (SpringLimitKind.hinge, 0.3),
                                         (SpringLimitKind.spherical, 0.35)])
def test_limits_are_never_exceeded(skeleton, kind, bound):
    """Each joint's direction stays within its limit of the direction the pose gives it
    under the joints above (the limit's +Y with no rotation); a hinge keeps it in its plane
    too, and a spherical limit within pitch and yaw, so within their diagonal."""
    limit = LimitSource(kind, bound, 0.2)
    state = SpringState(make_set(skeleton, gravity=3.0, drag=0.05, limit=limit), skeleton)
    pose = rt.Pose(skeleton)
    reach = bound if kind != SpringLimitKind.spherical else math.acos(math.cos(bound) * math.cos(0.2))
    worst, widest, sideways = 0.0, 0.0, 0.0
    for k in range(300):
        p = placed(x=0.6 * math.sin(k / 7), turn=0.8 * math.sin(k / 11))
        state.step(pose, p, [3.0 * math.sin(k / 5), 0.0, 0.0], 1 / 60)
        out = rt.Pose(skeleton)
        out.copy_from(pose)
        state.apply(out)
        for j in range(4):
            b = CHAIN[j]
            # the pose's direction under the joints above: the joint's own turn undone
            undone = rt.Pose(skeleton)
            undone.copy_from(out)
            undone.set_local(b, pose.get_local(b))
            axis = np.diff(scene.world_points(skeleton, undone, p, [b, b + 1]), axis=0)[0]
            got = np.diff(scene.world_points(skeleton, out, p, [b, b + 1]), axis=0)[0]
            a = angle(got, axis)
            worst = max(worst, a - reach)
            widest = max(widest, a)
            if j == 0:
                # the first joint's limit frame is its bone's: the tail's -z turned onto +Y
                # about x, so a hinge turns about the bone's x and a yaw leans toward it
                pose.compute_model(skeleton)
                x = _matrix(p[3:7]) @ pose.model[b, :, 0].astype(np.float64)
                lean = abs(float(got @ (x / np.linalg.norm(x)))) / np.linalg.norm(got)
                sideways = max(sideways, lean - {SpringLimitKind.hinge: 0.0,
                                                 SpringLimitKind.spherical: math.sin(0.2)}.get(kind, 1.0))
    assert widest > 0.8 * reach                 # the limit is reached
    assert worst <= 1e-4
    assert sideways <= 1e-5


def test_center_space_sways_as_if_the_body_stood_still(skeleton):
    """The root (the center) carried about by the placement: the tail's output in the
    pose is that of a root standing still."""
    still = SpringState(make_set(skeleton, gravity=0.0, center=None), skeleton)
    carried = SpringState(make_set(skeleton, gravity=0.0, center=0), skeleton)
    uncentered = SpringState(make_set(skeleton, gravity=0.0, center=None), skeleton)
    differs = 0.0
    for k in range(200):
        t = k / 60
        pose = scene.pose_at(skeleton, t)
        p = placed(x=0.5 * math.sin(3 * t), turn=0.7 * math.sin(2 * t))
        still.step(pose, IDENTITY, None, 1 / 60)
        carried.step(pose, p, None, 1 / 60)
        uncentered.step(pose, p, None, 1 / 60)
        a, b, c = (rt.Pose(skeleton) for _ in range(3))
        for out, st in ((a, still), (b, carried), (c, uncentered)):
            out.copy_from(pose)
            st.apply(out)
        np.testing.assert_allclose(b.locals[CHAIN], a.locals[CHAIN], atol=2e-5)
        differs = max(differs, float(np.abs(c.locals[CHAIN] - a.locals[CHAIN]).max()))
    assert differs > 0.01


def test_a_scaled_placement_moves_as_the_unscaled_one_scaled(skeleton):
    small = SpringState(make_set(skeleton, colliders=[COLLIDERS["sphere"][0]], groups=[[0]]),
                        skeleton)
    large = SpringState(make_set(skeleton, colliders=[COLLIDERS["sphere"][0]], groups=[[0]]),
                        skeleton)
    pose = rt.Pose(skeleton)
    for k in range(240):
        p = placed(x=0.4 * math.sin(k / 8), turn=0.5 * math.sin(k / 12))
        q = p.copy()
        q[0] *= 3.0
        q[7:] = 3.0
        small.step(pose, p, [0.5, 0, 0], 1 / 60)
        large.step(pose, q, [0.5, 0, 0], 1 / 60)
        a, _ = tails(small, skeleton, pose, p)
        b, _ = tails(large, skeleton, pose, q)
        np.testing.assert_allclose(b - q[:3], 3.0 * (a - p[:3]), atol=3e-5)


# ---- time ---------------------------------------------------------------------------------------
def test_steps_run_at_the_set_rate_keeping_the_remainder(skeleton):
    state = SpringState(make_set(skeleton), skeleton)
    pose = rt.Pose(skeleton)
    assert state.step(pose, None, None, 0.0) == 0
    assert state.step(pose, None, None, 1 / 50) == 2            # 2.4 steps
    assert abs(state.values[0] - 0.4 / 120) < 1e-12
    assert state.step(pose, None, None, -1 / 50) == 2           # the magnitude: 2.8 more
    assert state.step(pose, None, None, 10.0) == capi.MANI_SPRING_MAX_STEPS
    assert 0 <= state.values[0] < 1 / 120


def test_before_any_motion_apply_keeps_the_pose_and_the_first_step_places_tails(skeleton):
    state = SpringState(make_set(skeleton), skeleton)
    pose = scene.pose_at(skeleton, 0.3)
    out = rt.Pose(skeleton)
    out.copy_from(pose)
    state.apply(out)
    assert bytes(out.buffer) == bytes(pose.buffer)
    state.step(pose, placed(x=1.0), None, 1 / 120)
    got, _ = tails(state, skeleton, pose, placed(x=1.0))
    np.testing.assert_allclose(got, scene.world_points(skeleton, pose, placed(x=1.0), CHAIN)[1:],
                               atol=1e-6)
    run(state, skeleton, 30, lambda k: placed(x=1.0 + 0.1 * k), pose=pose)
    state.reset()
    assert not state.has_motion
    state.step(pose, placed(x=9.0), None, 1 / 120)            # a teleport: no swing from it
    got, _ = tails(state, skeleton, pose, placed(x=9.0))
    np.testing.assert_allclose(got, scene.world_points(skeleton, pose, placed(x=9.0), CHAIN)[1:],
                               atol=1e-6)


def test_save_mid_motion_and_restore_continue_bit_for_bit(skeleton):
    spring_set = make_set(skeleton, colliders=[COLLIDERS["capsule"][0]], groups=[[0]],
                          limit=LimitSource(SpringLimitKind.cone, 0.6), center=1)
    a = SpringState(spring_set, skeleton)
    rng = np.random.default_rng(5)
    pose = rt.Pose(skeleton)
    inputs = [(placed(x=float(rng.normal()), turn=float(rng.normal())), rng.normal(size=3),
               float(rng.uniform(0, 0.03))) for _ in range(400)]
    for p, f, d in inputs[:100]:
        a.step(pose, p, f, d)
    saved = a.save()
    b = SpringState(spring_set, skeleton, bytearray(spring_set.state_size))
    b.restore(saved)
    assert b.save() == saved
    for p, f, d in inputs[100:]:
        a.step(pose, p, f, d)
        b.step(pose, p, f, d)
    assert a.values.tobytes() == b.values.tobytes()
    oa, ob = rt.Pose(skeleton), rt.Pose(skeleton)
    a.apply(oa)
    b.apply(ob)
    assert bytes(oa.buffer) == bytes(ob.buffer)


# ---- the C names and their refusals -------------------------------------------------------------
def built(source) -> bytes:
    b = rt.Builder()
    capi.maniBuildSpringSet(b, source)
    return bytes(capi.maniBuilder_CopyBuilt(b))


def test_queries(skeleton):
    source = scene.tail_set_source(skeleton, step_rate=90.0, reference_rate=30.0)
    source.springs.append(SpringSource("ear", [JointSource(1), JointSource(7)]))
    s = capi.maniOpenSpringSet(built(source))
    assert capi.maniSpringSet_GetSpringCount(s) == 2
    assert [capi.maniSpringSet_GetSpringName(s, i) for i in range(3)] == ["tail", "ear", None]
    assert capi.maniSpringSet_GetStepRate(s) == (90.0, 30.0)
    assert capi.maniSpringSet_GetSkeletonIdentity(s) == skeleton.identity
    assert capi.maniSpringSet_GetIdentity(s) == s.identity != 0
    assert capi.maniSpringSet_GetStateSize(s) == s.state_size > 0
    for bad in (None, object(), SpringSet.__new__(SpringSet)):
        assert capi.maniSpringSet_GetSpringCount(bad) == 0
        assert capi.maniSpringSet_GetIdentity(bad) == 0
        assert capi.maniSpringSet_GetSkeletonIdentity(bad) == 0
        assert capi.maniSpringSet_GetSpringName(bad, 0) is None
        assert capi.maniSpringSet_GetStepRate(bad) == (0.0, 0.0)
        assert capi.maniSpringSet_GetStateSize(bad) == 0


def test_the_same_source_builds_the_same_bytes(skeleton):
    source = scene.tail_set_source(skeleton, colliders=[c for c, _ in COLLIDERS.values()],
                                   groups=[[0, 1], [2, 3, 4]], limit=LimitSource())
    assert built(source) == built(source)


def _source(skeleton, **kw):
    return scene.tail_set_source(skeleton, **kw)


@pytest.mark.parametrize("change, error, reason, item, other", [
    (lambda s: setattr(s, "reference_rate", 0.0), rt.InvalidError, BuildReason.Option, 0, 0),
    (lambda s: setattr(s, "step_rate", float("nan")), rt.InvalidError, BuildReason.Option, 1, 0),
    (lambda s: setattr(s, "step_rate", 1e4), rt.LimitError, BuildReason.Option, 1, 0),
    (lambda s: setattr(s, "reference_rate", 1001.0), rt.LimitError, BuildReason.Option, 0, 0),
    (lambda s: setattr(s, "springs", s.springs * 1025), rt.LimitError, BuildReason.Count, 1025, 0),
    (lambda s: setattr(s.springs[0], "name", "x" * 256), rt.LimitError, BuildReason.Name, 0, 0),
    (lambda s: setattr(s.springs[0], "name", ""), rt.InvalidError, BuildReason.Name, 0, 0),
    (lambda s: s.springs.append(SpringSource("tail", [JointSource(1), JointSource(7)])),
     rt.InvalidError, BuildReason.DuplicateName, 1, 0),
    (lambda s: setattr(s.springs[0], "joints", s.springs[0].joints[:1]), rt.InvalidError,
     BuildReason.Count, 0, 0),
    (lambda s: setattr(s.springs[0].joints[2], "bone", 99), rt.InvalidError, BuildReason.Joint, 0, 2),
    (lambda s: setattr(s.springs[0].joints[2], "bone", 7), rt.InvalidError, BuildReason.Joint, 0, 2),
    (lambda s: s.springs.append(SpringSource("ear", [JointSource(5), JointSource(6)])),
     rt.InvalidError, BuildReason.Joint, 1, 0),
    (lambda s: setattr(s.springs[0], "center", 7), rt.InvalidError, BuildReason.Joint, 0, rt.NO_BONE),
    (lambda s: setattr(s.springs[0], "center", 3), rt.InvalidError, BuildReason.Joint, 0, rt.NO_BONE),
    (lambda s: setattr(s.springs[0].joints[1], "drag", 1.5), rt.InvalidError, BuildReason.Weight, 0, 1),
    (lambda s: setattr(s.springs[0].joints[1], "stiffness", -1.0), rt.InvalidError,
     BuildReason.Weight, 0, 1),
    (lambda s: setattr(s.springs[0].joints[0], "hit_radius", float("inf")), rt.InvalidError,
     BuildReason.NotFinite, 0, 0),
    (lambda s: setattr(s.springs[0].joints[0], "gravity_dir", (0, 0, 0)), rt.InvalidError,
     BuildReason.Weight, 0, 0),
    (lambda s: setattr(s.springs[0].joints[3], "limit", LimitSource(7)), rt.InvalidError,
     BuildReason.Scalar, 0, 3),
    (lambda s: setattr(s.springs[0].joints[3], "limit", LimitSource(1, -0.1)), rt.InvalidError,
     BuildReason.Scalar, 0, 3),
    (lambda s: setattr(s.springs[0].joints[3], "limit", LimitSource(1, 1.0, 0, (0, 0, 0, 0))),
     rt.InvalidError, BuildReason.Scalar, 0, 3),
    (lambda s: s.colliders.append(ColliderSource(1, 9)), rt.InvalidError, BuildReason.Attribute, 0, 0),
    (lambda s: s.colliders.append(ColliderSource(40)), rt.InvalidError, BuildReason.Attribute, 0, 1),
    (lambda s: s.colliders.append(ColliderSource(1, offset=(0, float("nan"), 0))), rt.InvalidError,
     BuildReason.Attribute, 0, 2),
    (lambda s: s.colliders.append(ColliderSource(1, radius=-1.0)), rt.InvalidError,
     BuildReason.Attribute, 0, 3),
    (lambda s: s.colliders.append(ColliderSource(1, 1, tail=(1e39, 0, 0))), rt.InvalidError,
     BuildReason.Attribute, 0, 4),
    (lambda s: s.colliders.append(ColliderSource(1, 4, normal=(0, 0, 0))), rt.InvalidError,
     BuildReason.Attribute, 0, 5),
    (lambda s: s.collider_groups.append([3]), rt.InvalidError, BuildReason.Input, 0, 0),
    (lambda s: setattr(s.springs[0], "collider_groups", [0]), rt.InvalidError, BuildReason.Input, 0, 0),
])
def test_build_refusals(skeleton, change, error, reason, item, other):
    source = _source(skeleton)
    change(source)
    b = rt.Builder()
    with pytest.raises(error) as e:
        capi.maniBuildSpringSet(b, source)
    assert (e.value.reason, e.value.item, e.value.other) == (reason, item, other)
    assert capi.maniBuilder_GetMisuse(b) == 0


def test_build_misuse(skeleton):
    b = rt.Builder()
    for bad in (None, SpringSetSource(None), SpringSetSource(rt.Skeleton.__new__(rt.Skeleton))):
        with pytest.raises(rt.InvalidError):
            capi.maniBuildSpringSet(b, bad)
    assert capi.maniBuilder_GetMisuse(b) == 3
    with pytest.raises(rt.InvalidError):
        capi.maniBuildSpringSet(None, _source(skeleton))


def test_open_refusals(skeleton):
    good = built(_source(skeleton, colliders=[c for c, _ in COLLIDERS.values()],
                         groups=[[0, 1], [2, 3, 4]], limit=LimitSource()))
    capi.maniOpenSpringSet(good)
    with pytest.raises(rt.InvalidError):
        capi.maniOpenSpringSet(None)
    misaligned = np.frombuffer(bytearray(len(good) + 1), np.uint8)[1:]
    misaligned[:] = np.frombuffer(good, np.uint8)
    with pytest.raises(rt.InvalidError):
        capi.maniOpenSpringSet(misaligned)
    later = bytearray(good)
    struct.pack_into("<H", later, 6, 2)
    with pytest.raises(rt.VersionError):
        capi.maniOpenSpringSet(bytes(later))
    newer = bytearray(good)
    struct.pack_into("<H", newer, 32 + 8 * 0 + 4, 1)        # the first section from minor 1
    with pytest.raises(rt.VersionError):
        capi.maniOpenSpringSet(bytes(newer))
    fields, sections = section_fields(good)
    check_fields_blamed(good, fields, capi.maniOpenSpringSet)
    check_random_corruption(good, capi.maniOpenSpringSet, trials=600)
    from fuzz_files import reseal
    off = sections[b"JVAL"][0]
    for at, value, fmt in ((off + 4 * 5, 1.5, "<f"),                # a keep past 1
                           (off + 4 * 0, -1.0, "<f"),               # a hit radius below 0
                           (sections[b"JBON"][0] + 4, 0, "<I"),     # a joint above the one before
                           (sections[b"CBON"][0], 99, "<I"),        # a collider's bone past
                           (sections[b"LINK"][0], 9, "<I"),         # a link past the colliders
                           (sections[b"CVAL"][0] + 4 * 7, 2.0, "<f")):   # a normal not unit
        data = bytearray(good)
        struct.pack_into(fmt, data, at, value)
        with pytest.raises(rt.FormatError) as e:
            capi.maniOpenSpringSet(reseal(data))
        assert e.value.offset == at


def test_init_refusals(skeleton):
    s = make_set(skeleton)
    other = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), scene.tail_skeleton_source(5)))
    for bad in ((None, skeleton), (s, None), (s, other), (SpringSet.__new__(SpringSet), skeleton)):
        with pytest.raises(rt.InvalidError):
            capi.maniInitSpringState(*bad)
    misaligned = np.frombuffer(bytearray(s.state_size + 1), np.uint8)[1:]
    with pytest.raises(rt.InvalidError):
        capi.maniInitSpringState(s, skeleton, misaligned)
    with pytest.raises(rt.CapacityError):
        capi.maniInitSpringState(s, skeleton, bytearray(s.state_size - 8))
    with pytest.raises(rt.CapacityError):
        capi.maniInitSpringState(s, skeleton, bytearray(s.state_size), s.state_size - 1)
    memory = bytearray(s.state_size)
    state = capi.maniInitSpringState(s, skeleton, memory, len(memory))
    assert state.buffer.ctypes.data == np.frombuffer(memory, np.uint8).ctypes.data


def test_step_and_apply_refusals_leave_everything_unchanged(skeleton):
    s = make_set(skeleton)
    state = SpringState(s, skeleton)
    pose = run(state, skeleton, 10, lambda k: placed(x=0.1 * k))
    other = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), scene.tail_skeleton_source(5)))
    difference = rt.Pose(skeleton)
    rt.compute_pose_difference(skeleton, pose, pose, difference)
    before = bytes(state.buffer)
    bad_steps = [(None, pose, None, None, 0.1), (state, None, None, None, 0.1),
                 (state, rt.Pose(other), None, None, 0.1), (state, difference, None, None, 0.1),
                 (state, pose, None, None, float("nan")), (state, pose, None, None, float("inf")),
                 (state, pose, [0, 0, float("nan"), 0, 0, 0, 1, 1, 1, 1], None, 0.1),
                 (state, pose, None, [0, float("inf"), 0], 0.1),
                 (state, pose, [0] * 10, None, 0.1)]
    for args in bad_steps:
        with pytest.raises(rt.InvalidError):
            capi.maniSpringState_Step(*args)
    assert bytes(state.buffer) == before
    out = rt.Pose(skeleton)
    out.copy_from(pose)
    kept = bytes(out.buffer)
    for args in ((None, out), (state, None), (state, rt.Pose(other)), (state, difference)):
        with pytest.raises(rt.InvalidError):
            capi.maniSpringState_Apply(*args)
    assert bytes(out.buffer) == kept and bytes(state.buffer) == before
    capi.maniSpringState_Reset(None)                     # nothing to reset: nothing happens
    capi.maniSpringState_Apply(state, out)
    assert not out.is_model_current and bytes(out.buffer) != kept


def test_save_and_restore_refusals(skeleton):
    s = make_set(skeleton)
    state = SpringState(s, skeleton)
    run(state, skeleton, 10, lambda k: placed(x=0.1 * k))
    size = capi.maniSpringState_Save(state, None, 0)
    data = capi.maniSpringState_Save(state)
    assert size == len(data)
    out = bytearray(size + 5)
    assert capi.maniSpringState_Save(state, out) == size and bytes(out[:size]) == data
    short = bytearray(b"\x07" * size)
    with pytest.raises(rt.CapacityError) as e:
        capi.maniSpringState_Save(state, short, size - 1)
    assert e.value.size == size and short == bytearray(b"\x07" * size)
    with pytest.raises(rt.InvalidError):
        capi.maniSpringState_Save(None)
    with pytest.raises(rt.InvalidError):
        capi.maniSpringState_Save(state, None, 4)

    fresh = SpringState(s, skeleton)
    before = bytes(fresh.buffer)
    for bad in (None,):
        with pytest.raises(rt.InvalidError):
            capi.maniSpringState_Restore(fresh, bad)
    with pytest.raises(rt.InvalidError):
        capi.maniSpringState_Restore(None, data)
    from fuzz_files import reseal
    _, sections = section_fields(data)
    head = sections[b"SPSH"][0]
    values = sections[b"SPSV"][0]
    abi = bytearray(data)
    struct.pack_into("<I", abi, head, ABI_VERSION + 1)
    with pytest.raises(rt.VersionError):
        capi.maniSpringState_Restore(fresh, reseal(abi))
    version = bytearray(data)
    struct.pack_into("<H", version, 6, 2)
    with pytest.raises(rt.VersionError):
        capi.maniSpringState_Restore(fresh, reseal(version))
    wrong = [(head + 8, struct.pack("<Q", 12345)),                    # another set's identity
             (head + 16, struct.pack("<I", 3)),                       # another bone count
             (values, struct.pack("<d", 1.0)),                        # a remainder past a step
             (values + 8 * 2, struct.pack("<d", 0.5)),                # a flag neither 0 nor 1
             (values + 8 * 7, struct.pack("<d", 2.0)),                # a placement not unit
             (values + 8 * 20, struct.pack("<d", float("nan"))),      # a value not finite
             (values + 8 * 20, struct.pack("<d", 1e300))]             # past binary32
    for at, raw in wrong:
        bad = bytearray(data)
        bad[at:at + len(raw)] = raw
        with pytest.raises(rt.FormatError) as e:
            capi.maniSpringState_Restore(fresh, reseal(bad))
        assert e.value.offset == at, at
    with pytest.raises(rt.FormatError):
        capi.maniSpringState_Restore(fresh, data[:-8])
    still = SpringState(s, skeleton)
    with_motion = bytearray(still.save())
    _, still_sections = section_fields(bytes(with_motion))
    at = still_sections[b"SPSV"][0] + 8 * (20 + 10 * skeleton.bone_count)
    with_motion[at:at + 8] = struct.pack("<d", 0.25)                 # a tail without motion
    with pytest.raises(rt.FormatError) as e:
        capi.maniSpringState_Restore(fresh, reseal(with_motion))
    assert e.value.offset == at
    assert bytes(fresh.buffer) == before
    capi.maniSpringState_Restore(fresh, data)
    assert bytes(fresh.buffer[32:32 + 8 * fresh.values.size]) == \
        bytes(state.buffer[32:32 + 8 * state.values.size])


def test_apply_moves_the_last_steps_tails_on_to_the_host_time(skeleton):
    """At 50 Hz against 120 steps a second a call ends between steps: the first tail is the
    last step's moved on by its velocity for the remainder, on its bone's sphere."""
    state = SpringState(make_set(skeleton), skeleton)
    pose = rt.Pose(skeleton)
    for k in range(37):
        state.step(pose, placed(x=0.4 * math.sin(k / 6)), None, 1 / 50)
    remainder = state.values[0]
    assert 0.1 / 120 < remainder < 0.9 / 120
    p = placed(x=0.4 * math.sin(36 / 6))
    got, _ = tails(state, skeleton, pose, p)
    head = scene.world_points(skeleton, pose, p, [scene.TAIL_ROOT])[0]
    cur, prev = state.tails[0, :3], state.tails[0, 3:]
    ahead = cur + (cur - prev) * remainder * 120
    want = head + (ahead - head) / np.linalg.norm(ahead - head) * scene.SEGMENT
    np.testing.assert_allclose(got[0], want, atol=2e-6)
    assert np.linalg.norm(want - (head + (cur - head) / np.linalg.norm(cur - head) * scene.SEGMENT)) > 1e-4
