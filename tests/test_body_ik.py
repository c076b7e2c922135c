"""bodyik.h: the full-body solvers (XPBD and SDLS) against plain references, their limits,
every refusal of the Returns lines with the pose unchanged bit for bit, and the exact
scratch size."""
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.ik.body import (MAX_BODY_IK_BONES, MAX_BODY_IK_EFFECTORS, BodyBone, BodyEffector,
                             BodyLimit, BodyLimitKind, BodySolve, BodyTopMode,
                             body_ik_scratch_size, solve_body_sdls, solve_body_xpbd)
from runtime.ik.body.description import MAX_IK_ITERATIONS
from runtime.pose.skeleton import BoneSource, SkeletonSource

from runtime_fixtures import humanoid, open_skeleton, reference_model

SK = humanoid(80)
BONE = {SK.bone_name(b): b for b in range(SK.bone_count)}
ENDS = ["head", "hand_l", "hand_r", "toe_l", "toe_r"]
SOLVERS = [solve_body_xpbd, solve_body_sdls]


# ---- plain references ----------------------------------------------------------------------------------

def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def qconj(q):
    return np.array([-q[0], -q[1], -q[2], q[3]])


def qexp(v):
    a = np.linalg.norm(v)
    if a < 1e-15:
        return np.array([0.0, 0.0, 0.0, 1.0])
    return np.append(np.asarray(v) / a * np.sin(a / 2), np.cos(a / 2))


def angle(q):
    """The turn of a rotation, the short way."""
    q = np.asarray(q, dtype=np.float64)
    q = q / np.linalg.norm(q)
    return 2 * np.arctan2(np.linalg.norm(q[:3]), abs(q[3]))


def origins(skeleton, locals_):
    return reference_model(skeleton, np.asarray(locals_, dtype=np.float64))[:, :3, 3]


def unit(q):
    q = np.asarray(q, dtype=np.float64)
    return q / np.linalg.norm(q)


def rotation_only(skeleton, locals_, bone):
    """The model rotation the solvers turn by: the bone's root path's normalized local
    rotations composed, scale left out."""
    path = []
    b = bone
    while b != rt.NO_BONE:
        path.append(b)
        b = skeleton.parent(b)
    q = np.array([0.0, 0.0, 0.0, 1.0])
    for b in reversed(path):
        q = unit(qmul(q, unit(locals_[b, 3:7])))
    return q


def turned_pose(skeleton, bones, rng, scale=0.3):
    """A pose with the given bones turned at random: goals made from it are reachable."""
    pose = rt.Pose(skeleton)
    for b in bones:
        pose.locals[b, 3:7] = unit(qmul(qexp(rng.normal(scale=scale, size=3)), pose.locals[b, 3:7]))
    return pose


def five_goals(rng, scale=0.3, **kw):
    """A solve of the five ends from the hips, goals where a random pose puts them."""
    probe = BodySolve(top=BONE["hips"], effectors=[BodyEffector(BONE[e], (0, 0, 0)) for e in ENDS])
    part = part_of(probe)
    target = turned_pose(SK, part[1:], rng, scale)
    x = origins(SK, target.locals)
    return BodySolve(top=BONE["hips"], effectors=[BodyEffector(BONE[e], tuple(x[BONE[e]]), **kw)
                                                   for e in ENDS], iterations=10, tolerance=1e-4)


def part_of(solve):
    from runtime.ik.body.description import pack
    return pack(SK, solve).part


def scratch_for(solve, skeleton=SK):
    return np.zeros(body_ik_scratch_size(skeleton, solve), dtype=np.uint8)


def solved(solver, solve, pose=None, skeleton=SK):
    pose = pose or rt.Pose(skeleton)
    reached = solver(pose, skeleton, solve, scratch_for(solve, skeleton))
    return pose, reached


def misses(solve, pose, skeleton=SK):
    x = origins(skeleton, pose.locals)
    return np.array([np.linalg.norm(x[e.bone] - e.goal) for e in solve.effectors])


# ---- both solvers -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("solver", SOLVERS)
def test_reachable_goals_are_reached_and_reached_is_honest(solver):
    """SDLS to 1e-4 in 30 iterations; XPBD's Gauss-Seidel passes converge slower, to 1e-4
    (0.05% of a bone) in 200 over paths of up to eight bones."""
    solve = five_goals(np.random.default_rng(1))
    solve.iterations = 200 if solver is solve_body_xpbd else 30
    pose, reached = solved(solver, solve)
    assert reached
    assert misses(solve, pose).max() <= solve.tolerance + 1e-4    # less binary32 rounding
    assert not pose.is_model_current


@pytest.mark.parametrize("solver", SOLVERS)
def test_only_the_parts_rotations_change_and_lengths_hold(solver):
    solve = five_goals(np.random.default_rng(2), scale=0.6)
    before = rt.Pose(SK)
    pose, _ = solved(solver, solve)
    part = part_of(solve)
    off = np.setdiff1d(np.arange(SK.bone_count), part)
    assert np.array_equal(pose.locals[off], before.locals[off])
    assert np.array_equal(pose.locals[:, 0:3], before.locals[:, 0:3])      # no stretch asked
    assert np.array_equal(pose.locals[:, 7:10], before.locals[:, 7:10])
    assert not np.array_equal(pose.locals[part[1:], 3:7], before.locals[part[1:], 3:7])


@pytest.mark.parametrize("solver", SOLVERS)
def test_goals_already_met_change_nothing(solver):
    pose = rt.Pose(SK)
    x = origins(SK, pose.locals)
    solve = BodySolve(top=BONE["hips"], effectors=[BodyEffector(BONE[e], tuple(x[BONE[e]])) for e in ENDS])
    copy = pose.buffer.copy()
    assert solver(pose, SK, solve, scratch_for(solve))
    assert np.array_equal(pose.buffer[32:], copy[32:])


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_locked_bone_does_not_turn(solver):
    solve = five_goals(np.random.default_rng(3), scale=0.5)
    locked = [BONE["spine1"], BONE["arm_l"], BONE["leg_r"]]
    solve.bones = [BodyBone(b, stiffness=1.0) for b in locked]
    solve.iterations = 50
    before = rt.Pose(SK)
    pose, _ = solved(solver, solve)
    assert np.array_equal(pose.locals[locked], before.locals[locked])
    assert not np.array_equal(pose.locals[BONE["forearm_l"]], before.locals[BONE["forearm_l"]])


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_held_top_keeps_its_local_and_a_free_top_moves(solver):
    solve = five_goals(np.random.default_rng(4), scale=0.4)
    top = solve.top
    before = rt.Pose(SK)
    solve.top_mode = BodyTopMode.held
    pose, _ = solved(solver, solve)
    assert np.array_equal(pose.locals[top], before.locals[top])
    solve.top_mode = BodyTopMode.pinned
    pose, _ = solved(solver, solve)
    assert np.array_equal(pose.locals[top, 0:3], before.locals[top, 0:3])
    assert not np.array_equal(pose.locals[top, 3:7], before.locals[top, 3:7])
    # every goal a step away: only a free top reaches them all (pre-pull moves it by the
    # mean miss first: XPBD's passes alone move a whole body slowly)
    shifted = dataclasses.replace(solve, top_mode=BodyTopMode.free, iterations=200, pre_pull=1.0, effectors=[
        dataclasses.replace(e, goal=tuple(np.array(e.goal) + (0.0, 0.3, 0.0))) for e in solve.effectors])
    pose, reached = solved(solver, shifted)
    assert not np.array_equal(pose.locals[top, 0:3], before.locals[top, 0:3])
    assert misses(shifted, pose).max() < 5e-3
    pinned, _ = solved(solver, dataclasses.replace(shifted, top_mode=BodyTopMode.pinned))
    assert misses(shifted, pinned).max() > 0.05


def limit_turn(rest, local, axis):
    """The turn from rest about `axis` (a twist angle) and the swing left, plainly."""
    d = unit(qmul(unit(local), qconj(unit(rest))))
    if d[3] < 0:
        d = -d
    p = d[:3] @ axis
    twist = unit(np.append(p * np.asarray(axis), d[3]))
    swing = qmul(d, qconj(twist))
    return 2 * np.arctan2(twist[:3] @ axis, twist[3]), angle(swing)


@pytest.mark.parametrize("solver", SOLVERS)
def test_limits_are_never_exceeded(solver):
    rng = np.random.default_rng(5)
    axis = unit(rng.normal(size=3))
    limits = {BONE["forearm_l"]: BodyLimit(BodyLimitKind.hinge, tuple(axis), -0.3, 0.2),
              BONE["arm_r"]: BodyLimit(BodyLimitKind.cone, tuple(axis), 0.0, 0.25),
              BONE["spine0"]: BodyLimit(BodyLimitKind.twist, (0.0, 1.0, 0.0), -0.1, 0.05)}
    for trial in range(3):
        solve = five_goals(rng, scale=0.8)
        solve.bones = [BodyBone(b, limit=l) for b, l in limits.items()]
        pose, _ = solved(solver, solve)
        for b, l in limits.items():
            twist, swing = limit_turn(SK.rests[b, 3:7], pose.locals[b, 3:7], np.array(l.axis))
            if l.kind == BodyLimitKind.hinge:
                assert l.low - 1e-5 <= twist <= l.high + 1e-5 and swing < 1e-5
            elif l.kind == BodyLimitKind.cone:
                assert swing <= l.high + 1e-5
            else:
                assert l.low - 1e-5 <= twist <= l.high + 1e-5


@pytest.mark.parametrize("solver", SOLVERS)
def test_the_model_of_the_pose_need_not_be_current(solver):
    rng = np.random.default_rng(6)
    solve = five_goals(rng)
    a = turned_pose(SK, [BONE["hips"], BONE["spine0"]], rng)     # above and in the part
    b = rt.Pose(SK)
    b.copy_from(a)
    b.compute_model(SK)
    b.model[...] = 7.0          # a model that is wrong must not matter
    solver(a, SK, solve, scratch_for(solve))
    solver(b, SK, solve, scratch_for(solve))
    assert np.array_equal(a.locals, b.locals)


def test_preferred_angles_and_pull_chains_act_first():
    """With no effector pulling, a preferred angle by its weight is the result: the rest
    turned by it (nlerp toward it by a weight below 1)."""
    solve = five_goals(np.random.default_rng(7))
    idle = dataclasses.replace(solve, effectors=[dataclasses.replace(e, strength=0.0) for e in solve.effectors])
    arm = BONE["arm_l"]
    turn = (0.0, 0.0, 0.7)
    want = unit(qmul(qexp(turn), SK.rests[arm, 3:7]))
    for weight in (1.0, 0.5):
        idle.bones = [BodyBone(arm, preferred=turn, preferred_weight=weight)]
        for solver in SOLVERS:
            pose, reached = solved(solver, idle)
            assert reached
            rest = unit(SK.rests[arm, 3:7])
            expect = want if weight == 1.0 else unit(rest + weight * (want - rest))
            assert angle(qmul(unit(pose.locals[arm, 3:7]), qconj(expect))) < 1e-6
    solve.iterations = 1
    solve.bones = []
    pulled = [dataclasses.replace(e, pull_chain=1.0) for e in solve.effectors]
    a, _ = solved(solve_body_xpbd, dataclasses.replace(solve, effectors=pulled))
    b, _ = solved(solve_body_xpbd, solve)
    assert misses(solve, a).mean() < misses(solve, b).mean()


# ---- XPBD -------------------------------------------------------------------------------------------------

def soft_solve(rng):
    """Goals out of reach held against stiffness: the pose the passes converge to is a
    balance of compliances."""
    solve = five_goals(rng, scale=0.5, strength=0.6)
    solve.effectors = [dataclasses.replace(e, goal=tuple(np.array(e.goal) * 1.1)) for e in solve.effectors]
    solve.bones = [BodyBone(BONE[n], stiffness=0.5) for n in ("spine0", "spine1", "arm_l", "upleg_r")]
    solve.tolerance = 0.0
    return solve


def test_xpbd_converged_pose_does_not_depend_on_the_count():
    """Stated bound, for goals out of reach held against stiffness (bones ~0.2 long): the
    poses at 50, 100 and 200 iterations lie within 0.03 of one another, each step closer
    (100 to 200 under half of 50 to 200), and 200 to 256 within 1e-3: the pose the passes
    converge to, not the count, is what strength and stiffness set."""
    solve = soft_solve(np.random.default_rng(8))
    got = {}
    for n in (5, 50, 100, 200, 256):
        solve.iterations = n
        pose, reached = solved(solve_body_xpbd, solve)
        assert not reached
        got[n] = origins(SK, pose.locals)
    far = lambda a, b: np.abs(got[a] - got[b]).max()
    assert max(far(50, 100), far(50, 200), far(100, 200)) < 0.03
    assert far(100, 200) < 0.5 * far(50, 200)
    assert far(200, 256) < 1e-3
    assert far(5, 256) > 0.03        # short of convergence it has acted less


def test_xpbd_stiffness_and_strength_set_the_balance():
    rng = np.random.default_rng(9)
    solve = soft_solve(rng)
    solve.iterations = 150
    stiff = dataclasses.replace(solve, bones=[dataclasses.replace(b, stiffness=0.9) for b in solve.bones])
    weak = dataclasses.replace(solve, effectors=[dataclasses.replace(e, strength=0.2) for e in solve.effectors])
    base = misses(solve, solved(solve_body_xpbd, solve)[0]).sum()
    assert misses(stiff, solved(solve_body_xpbd, stiff)[0]).sum() > base
    assert misses(weak, solved(solve_body_xpbd, weak)[0]).sum() > base


def test_xpbd_stretches_only_where_allowed():
    solve = five_goals(np.random.default_rng(10))
    hand = [e for e in solve.effectors if e.bone == BONE["hand_l"]][0]
    far = np.array(origins(SK, rt.Pose(SK).locals)[BONE["shoulder_l"]]) + (2.0, 0.0, 0.0)
    solve.effectors = [dataclasses.replace(e, goal=tuple(far)) if e is hand else e
                       for e in solve.effectors]
    solve.bones = [BodyBone(BONE["forearm_l"], stretch=0.5)]
    solve.iterations = 100
    before = rt.Pose(SK)
    pose, _ = solved(solve_body_xpbd, solve)
    moved = np.flatnonzero((pose.locals[:, 0:3] != before.locals[:, 0:3]).any(axis=1))
    assert list(moved) == [BONE["forearm_l"]]
    assert np.linalg.norm(pose.locals[BONE["forearm_l"], 0:3]) > 1.05 * np.linalg.norm(
        before.locals[BONE["forearm_l"], 0:3])
    rigid, _ = solved(solve_body_xpbd, dataclasses.replace(solve, bones=[]))
    assert np.array_equal(rigid.locals[:, 0:3], before.locals[:, 0:3])
    assert misses(solve, pose)[1] < misses(solve, rigid)[1]


def test_xpbd_effector_rotation_is_pulled_by_its_weight():
    rng = np.random.default_rng(11)
    solve = five_goals(rng)
    want = unit(rng.normal(size=4))
    hand = BONE["hand_l"]
    solve.effectors[1] = dataclasses.replace(solve.effectors[1], rotation=tuple(want), rotation_weight=1.0)
    solve.iterations = 100
    pose, _ = solved(solve_body_xpbd, solve)
    off = dataclasses.replace(solve, effectors=[dataclasses.replace(e, rotation_weight=0.0) for e in solve.effectors])
    free, _ = solved(solve_body_xpbd, off)
    turn = lambda p: angle(qmul(want, qconj(rotation_only(SK, p.locals, hand))))
    assert turn(pose) < 0.05 < turn(free)


# ---- SDLS -------------------------------------------------------------------------------------------------

SMALL_TOP = "spine2"
SMALL_ENDS = ["hand_l", "head"]


def small_solve(rng, reach=0.05, stiff=0.0, rot=False):
    x = origins(SK, rt.Pose(SK).locals)
    effs = [BodyEffector(BONE[e], tuple(x[BONE[e]] + rng.normal(scale=reach, size=3)),
                         rotation=tuple(unit(rng.normal(size=4))), rotation_weight=0.5 if rot else 0.0,
                         strength=float(rng.uniform(0.5, 1.0))) for e in SMALL_ENDS]
    bones = [BodyBone(BONE["arm_l"], stiffness=stiff)] if stiff else []
    return BodySolve(top=BONE[SMALL_TOP], effectors=effs, bones=bones, iterations=1, tolerance=0.0)


def reference_jacobian(solve, locals_):
    """J by central differences of the plain binary64 composition (positions), the spec's
    rotation rows (the model axis times the reach); the columns' bones, rows' misses."""
    part = part_of(solve)
    ell = np.mean([np.linalg.norm(origins(SK, locals_)[b] - origins(SK, locals_)[SK.parent(b)])
                   for b in part[1:]])
    stiff = {b.bone: b.stiffness for b in solve.bones}
    x0 = origins(SK, locals_)
    top = x0[solve.top]
    rows, misses_ = [], []
    for e in solve.effectors:
        d = np.array(e.goal) - x0[e.bone]
        d *= min(1.0, 0.5 * ell / np.linalg.norm(d))
        misses_.append(e.strength * d)
        if e.rotation_weight > 0:
            reach = np.linalg.norm(x0[e.bone] - top)
            err = unit(qmul(unit(e.rotation), qconj(rotation_only(SK, locals_, e.bone))))
            err = err if err[3] >= 0 else -err
            v = err[:3] / np.linalg.norm(err[:3]) * angle(err)
            v = v * e.strength * e.rotation_weight * reach
            v *= min(1.0, 0.5 * ell / np.linalg.norm(v))
            misses_.append(v)
    cols, scale = [], []
    h = 1e-6
    for b in part:
        c = 1.0 - stiff.get(b, 0.0)
        p = SK.parent(b)
        pq = rotation_only(SK, locals_, p) if p != rt.NO_BONE else np.array([0, 0, 0, 1.0])
        for k in range(3):
            a = np.eye(3)[k]
            col = []
            xs = []
            for sign in (1, -1):
                l2 = locals_.astype(np.float64).copy()
                turn = qmul(qconj(pq), qmul(qexp(sign * h * a), pq))
                l2[b, 3:7] = qmul(turn, unit(l2[b, 3:7]))
                xs.append(origins(SK, l2))
            for e in solve.effectors:
                col.append(e.strength * c * (xs[0][e.bone] - xs[1][e.bone]) / (2 * h))
                if e.rotation_weight > 0:
                    below = b in ancestors(e.bone)
                    reach = np.linalg.norm(x0[e.bone] - top)
                    col.append(a * below * e.strength * e.rotation_weight * reach * c)
            cols.append(np.concatenate(col))
            scale.append(c)
    return part, np.array(cols).T, np.concatenate(misses_), np.array(scale)


def ancestors(bone):
    out = []
    while bone != rt.NO_BONE:
        out.append(bone)
        bone = SK.parent(bone)
    return out


def apply_step(locals_, part, step):
    out = locals_.astype(np.float64).copy()
    for i, b in enumerate(part):
        p = SK.parent(b)
        pq = rotation_only(SK, locals_, p) if p != rt.NO_BONE else np.array([0, 0, 0, 1.0])
        turn = qmul(qconj(pq), qmul(qexp(step[3 * i:3 * i + 3]), pq))
        out[b, 3:7] = unit(qmul(turn, unit(out[b, 3:7])))
    return out


def reference_sdls_step(J, e, scale):
    """Buss and Kim's step, written from the paper over numpy's SVD, each bone's turn cut
    to pi/4."""
    U, sig, Vt = np.linalg.svd(J, full_matrices=False)
    blocks = J.shape[0] // 3
    rho = np.array([sum(np.linalg.norm(J[3 * l:3 * l + 3, j]) for l in range(blocks))
                    for j in range(J.shape[1])])
    phi = np.zeros(J.shape[1])
    for i, s in enumerate(sig):
        if s <= 1e-10 * sig.max():
            continue
        u, v = U[:, i], Vt[i]
        alpha = u @ e
        N = sum(np.linalg.norm(u[3 * l:3 * l + 3]) for l in range(blocks))
        M = np.abs(v) @ rho / s
        gamma = np.pi / 4 * min(1.0, N / M)
        w = alpha / s * v
        if np.abs(w).max() > gamma:
            w *= gamma / np.abs(w).max()
        phi += w
    phi *= scale
    for i in range(0, phi.size, 3):
        a = np.linalg.norm(phi[i:i + 3])
        if a > np.pi / 4:
            phi[i:i + 3] *= np.pi / 4 / a
    return phi


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from([0.0, 0.4]), st.booleans())
def test_sdls_one_iteration_matches_the_reference_step(seed, stiff, rot):
    rng = np.random.default_rng(seed)
    solve = small_solve(rng, reach=float(rng.uniform(0.02, 0.3)), stiff=stiff, rot=rot)
    pose = rt.Pose(SK)
    start = pose.locals.astype(np.float64).copy()
    part, J, e, scale = reference_jacobian(solve, start)
    want = apply_step(start, part, reference_sdls_step(J, e, scale))
    solve_body_sdls(pose, SK, solve, scratch_for(solve))
    sign = np.where((pose.locals[part, 3:7] * want[part, 3:7]).sum(axis=1) < 0, -1.0, 1.0)
    np.testing.assert_allclose(pose.locals[part, 3:7], want[part, 3:7] * sign[:, None], atol=2e-5)


def test_sdls_small_miss_step_is_the_dense_least_squares_step():
    """With nothing clamped (misses small against every direction's bound), SDLS steps by
    J^+ e: a dense damped least-squares step with its damping going to 0,
    J^T (J J^T + 1e-12 I)^-1 e, here within a percent of the step."""
    for seed in range(5):
        rng = np.random.default_rng(100 + seed)
        solve = small_solve(rng, reach=1e-5)
        pose = rt.Pose(SK)
        start = pose.locals.astype(np.float64).copy()
        part, J, e, scale = reference_jacobian(solve, start)
        dls = J.T @ np.linalg.solve(J @ J.T + 1e-12 * np.eye(J.shape[0]), e)
        want = apply_step(start, part, dls)
        solve_body_sdls(pose, SK, solve, scratch_for(solve))
        step = np.abs(want[part, 3:7] - start[part, 3:7]).max()
        assert step > 1e-6
        assert np.abs(pose.locals[part, 3:7] - want[part, 3:7]).max() <= 1e-2 * step + 1e-7


def test_sdls_turns_each_bone_at_most_a_quarter_turn_an_iteration():
    """Chains of long and short bones (a short bone's small lever asks a large turn of it):
    no bone turns past pi/4 in an iteration, and the bound is reached."""
    rng = np.random.default_rng(12)
    most = 0.0
    for trial in range(240):
        lengths = rng.choice([2.0, 0.05], size=3)
        sk = open_skeleton(SkeletonSource([BoneSource("a", -1)] + [
            BoneSource(f"b{i}", i, (0.0, float(lengths[i]), 0.0),
                       tuple(unit(np.append(rng.normal(scale=0.5, size=3), 1.0)))) for i in range(3)]))
        solve = BodySolve(top=0, effectors=[BodyEffector(3, tuple(rng.normal(size=3)))], iterations=1)
        pose, _ = solved(solve_body_sdls, solve, skeleton=sk)
        before = rt.Pose(sk)
        for b in range(4):
            turn = angle(qmul(unit(pose.locals[b, 3:7]), qconj(unit(before.locals[b, 3:7]))))
            assert turn <= np.pi / 4 + 1e-6
            most = max(most, turn)
    assert most > np.pi / 4 - 1e-4


def test_sdls_refuses_stretch():
    solve = five_goals(np.random.default_rng(13))
    solve.bones = [BodyBone(BONE["arm_l"], stretch=0.1)]
    pose = rt.Pose(SK)
    copy = pose.buffer.copy()
    with pytest.raises(rt.InvalidError):
        solve_body_sdls(pose, SK, solve, scratch_for(solve))
    assert np.array_equal(pose.buffer, copy)
    solve_body_xpbd(pose, SK, solve, scratch_for(solve))          # XPBD takes it


# ---- scratch ---------------------------------------------------------------------------------------------

SHAPES = [dict(), dict(top_mode=BodyTopMode.free), dict(top_mode=BodyTopMode.held),
          dict(rot=True), dict(locked=True)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("solver", SOLVERS)
def test_the_scratch_size_is_exact(solver, shape):
    shape = dict(shape)
    rot, locked = shape.pop("rot", False), shape.pop("locked", False)
    solve = dataclasses.replace(five_goals(np.random.default_rng(14), rotation_weight=0.5 if rot else 0.0),
                                **shape)
    if locked:
        solve.bones = [BodyBone(BONE["spine0"], stiffness=1.0)]
    size = body_ik_scratch_size(SK, solve)
    assert size > 0 and size % 8 == 0
    assert capi.maniSkeleton_GetBodyIkScratchSize(SK, solve) == size
    big = np.zeros(size + 64, dtype=np.uint8)
    exact = big[:size]
    pose = rt.Pose(SK)
    solver(pose, SK, solve, exact)
    short = rt.Pose(SK)
    copy = short.buffer.copy()
    with pytest.raises(rt.CapacityError):
        solver(short, SK, solve, big[:size - 8])
    assert np.array_equal(short.buffer, copy)
    # what the solve writes lies in the size's bytes: the rest of a larger buffer is untouched
    guard = np.full(size + 64, 0xA5, dtype=np.uint8)
    other = rt.Pose(SK)
    solver(other, SK, solve, guard)
    assert (guard[size:] == 0xA5).all()
    assert np.array_equal(other.locals, pose.locals)


def test_the_size_grows_with_the_part_and_is_0_for_a_refused_solve():
    one = BodySolve(top=BONE["hips"], effectors=[BodyEffector(BONE["head"], (0, 1, 0))])
    two = dataclasses.replace(one, effectors=one.effectors + [BodyEffector(BONE["hand_l"], (0, 1, 0))])
    assert 0 < body_ik_scratch_size(SK, one) < body_ik_scratch_size(SK, two)
    assert body_ik_scratch_size(None, one) == 0
    assert body_ik_scratch_size(SK, None) == 0
    assert body_ik_scratch_size(SK, dataclasses.replace(one, iterations=0)) == 0
    assert capi.maniSkeleton_GetBodyIkScratchSize(SK, dataclasses.replace(one, top=999)) == 0


# ---- refusals -------------------------------------------------------------------------------------------------

def chain(n):
    return open_skeleton(SkeletonSource([BoneSource(f"b{i}", i - 1, (0.0, 0.1, 0.0)) for i in range(n)]))


def base():
    return five_goals(np.random.default_rng(15), rotation_weight=0.3)


def eff(solve, i, **kw):
    effs = list(solve.effectors)
    effs[i] = dataclasses.replace(effs[i], **kw)
    return dataclasses.replace(solve, effectors=effs)


def with_bone(solve, **kw):
    return dataclasses.replace(solve, bones=[BodyBone(BONE["arm_l"], **kw)])


def limit(kind, axis=(1.0, 0.0, 0.0), low=0.0, high=0.0):
    return BodyLimit(kind, axis, low, high)


HIP = BONE["hips"]
REFUSALS = {
    # mani_errorLimit
    "more effectors than the limit": (rt.LimitError, lambda s: dataclasses.replace(s, effectors=[
        BodyEffector(b, (0, 0, 0)) for b in range(1, MAX_BODY_IK_EFFECTORS + 2)])),
    "more settings than the limit": (rt.LimitError, lambda s: dataclasses.replace(s, bones=[
        BodyBone(1)] * (MAX_BODY_IK_BONES + 1))),
    "more iterations than the limit": (rt.LimitError, lambda s: dataclasses.replace(s, iterations=MAX_IK_ITERATIONS + 1)),
    # mani_errorInvalid
    "a top out of range": (rt.InvalidError, lambda s: dataclasses.replace(s, top=SK.bone_count)),
    "a negative top": (rt.InvalidError, lambda s: dataclasses.replace(s, top=-1)),
    "an effector's bone out of range": (rt.InvalidError, lambda s: eff(s, 0, bone=SK.bone_count)),
    "a setting's bone out of range": (rt.InvalidError, lambda s: dataclasses.replace(s, bones=[BodyBone(10 ** 6)])),
    "an effector not below the top": (rt.InvalidError, lambda s: dataclasses.replace(s, top=BONE["spine0"])),
    "a bone twice among the effectors": (rt.InvalidError, lambda s: eff(s, 1, bone=s.effectors[0].bone)),
    "a bone twice among the settings": (rt.InvalidError, lambda s: dataclasses.replace(s, bones=[BodyBone(2), BodyBone(2)])),
    "a setting off the solved part": (rt.InvalidError, lambda s: dataclasses.replace(s, bones=[BodyBone(BONE["finger00_l"])])),
    "no effectors": (rt.InvalidError, lambda s: dataclasses.replace(s, effectors=[])),
    "no iterations": (rt.InvalidError, lambda s: dataclasses.replace(s, iterations=0)),
    "a goal not finite": (rt.InvalidError, lambda s: eff(s, 2, goal=(0.0, float("nan"), 0.0))),
    "a goal past binary32": (rt.InvalidError, lambda s: eff(s, 2, goal=(0.0, 1e39, 0.0))),
    "a rotation not finite": (rt.InvalidError, lambda s: eff(s, 0, rotation=(0.0, 0.0, float("inf"), 1.0))),
    "a rotation of length 0": (rt.InvalidError, lambda s: eff(s, 0, rotation=(0.0, 0.0, 0.0, 0.0))),
    "a preferred angle not finite": (rt.InvalidError, lambda s: with_bone(s, preferred=(float("nan"), 0.0, 0.0))),
    "a limit of an unknown kind": (rt.InvalidError, lambda s: with_bone(s, limit=limit(7))),
    "a hinge low above high": (rt.InvalidError, lambda s: with_bone(s, limit=limit(BodyLimitKind.hinge, low=0.5, high=0.1))),
    "a twist past pi": (rt.InvalidError, lambda s: with_bone(s, limit=limit(BodyLimitKind.twist, low=-4.0, high=0.1))),
    "a cone past pi": (rt.InvalidError, lambda s: with_bone(s, limit=limit(BodyLimitKind.cone, high=3.5))),
    "a cone with a low": (rt.InvalidError, lambda s: with_bone(s, limit=limit(BodyLimitKind.cone, low=0.1, high=0.5))),
    "a limit axis not of length 1": (rt.InvalidError, lambda s: with_bone(s, limit=limit(BodyLimitKind.hinge, (0.0, 2.0, 0.0)))),
    "a limit angle not finite": (rt.InvalidError, lambda s: with_bone(s, limit=limit(BodyLimitKind.hinge, high=float("nan")))),
    "a rotation weight above 1": (rt.InvalidError, lambda s: eff(s, 0, rotation_weight=1.5)),
    "a strength below 0": (rt.InvalidError, lambda s: eff(s, 1, strength=-0.1)),
    "a strength not a number": (rt.InvalidError, lambda s: eff(s, 1, strength=float("nan"))),
    "a pull chain above 1": (rt.InvalidError, lambda s: eff(s, 1, pull_chain=2.0)),
    "a stiffness above 1": (rt.InvalidError, lambda s: with_bone(s, stiffness=1.1)),
    "a stretch above 1": (rt.InvalidError, lambda s: with_bone(s, stretch=1.1)),
    "a preferred weight above 1": (rt.InvalidError, lambda s: with_bone(s, preferred_weight=1.1)),
    "a pre-pull above 1": (rt.InvalidError, lambda s: dataclasses.replace(s, pre_pull=1.1)),
    "a tolerance below 0": (rt.InvalidError, lambda s: dataclasses.replace(s, tolerance=-1e-3)),
    "a tolerance not finite": (rt.InvalidError, lambda s: dataclasses.replace(s, tolerance=float("inf"))),
    "a tolerance of nan": (rt.InvalidError, lambda s: dataclasses.replace(s, tolerance=float("nan"))),
    "a top mode unknown": (rt.InvalidError, lambda s: dataclasses.replace(s, top_mode=3)),
    "an effector not a BodyEffector": (rt.InvalidError, lambda s: dataclasses.replace(s, effectors=[(1, 2, 3)])),
    "a bone not an integer": (rt.InvalidError, lambda s: eff(s, 0, bone=1.5)),
}


def unchanged(call, error=rt.InvalidError):
    pose = rt.Pose(SK)
    pose.locals[3, 3:7] = unit((0.1, 0.2, 0.3, 0.9))     # a pose not at rest, model stale
    pose.compute_model(SK)
    copy = pose.buffer.copy()
    with pytest.raises(error):
        call(pose)
    assert np.array_equal(pose.buffer, copy)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_each_refusal_leaves_the_pose_unchanged(solver, case):
    error, change = REFUSALS[case]
    good = base()
    bad = change(good)
    scratch = np.zeros(max(body_ik_scratch_size(SK, good), 1 << 16), dtype=np.uint8)
    unchanged(lambda p: solver(p, SK, bad, scratch), error=error)
    assert body_ik_scratch_size(SK, bad) == 0


def test_a_solved_part_past_the_limit():
    sk = chain(MAX_BODY_IK_BONES + 1)
    solve = BodySolve(top=0, effectors=[BodyEffector(sk.bone_count - 1, (0, 1, 0))])
    for solver in SOLVERS:
        pose = rt.Pose(sk)
        copy = pose.buffer.copy()
        with pytest.raises(rt.LimitError):
            solver(pose, sk, solve, np.zeros(1 << 16, np.uint8))
        assert np.array_equal(pose.buffer, copy)
    assert body_ik_scratch_size(sk, solve) == 0
    ok = chain(MAX_BODY_IK_BONES)
    solve = BodySolve(top=0, effectors=[BodyEffector(ok.bone_count - 1, (0.5, 5.0, 0))])
    assert solve_body_xpbd(rt.Pose(ok), ok, solve, scratch_for(solve, ok)) in (True, False)


@pytest.mark.parametrize("solver", SOLVERS)
def test_refusals_of_the_arguments(solver):
    solve = base()
    scratch = scratch_for(solve)
    other = humanoid(80, seed=1)
    unchanged(lambda p: solver(None, SK, solve, scratch))
    unchanged(lambda p: solver(p, None, solve, scratch))
    unchanged(lambda p: solver(p, SK, None, scratch))
    unchanged(lambda p: solver(p, SK, solve, None))
    unchanged(lambda p: solver(p, other, solve, scratch))          # a pose of another skeleton
    unchanged(lambda p: solver(p, SK, solve, np.zeros(len(scratch) + 8, np.uint8)[1:]))  # misaligned
    ro = scratch.copy()
    ro.flags.writeable = False
    unchanged(lambda p: solver(p, SK, solve, ro))
    unchanged(lambda p: solver(p, SK, solve, scratch[:-8]), error=rt.CapacityError)
    # a difference
    diff = rt.Pose(SK)
    rt.compute_pose_difference(SK, rt.Pose(SK), rt.Pose(SK), diff)
    copy = diff.buffer.copy()
    with pytest.raises(rt.InvalidError):
        solver(diff, SK, solve, scratch)
    assert np.array_equal(diff.buffer, copy)


def test_c_names_return_reached_and_refuse_as_the_pythonic_api():
    solve = five_goals(np.random.default_rng(16))
    solve.iterations, solve.tolerance = 256, 1e-3
    scratch = bytearray(capi.maniSkeleton_GetBodyIkScratchSize(SK, solve))
    pose = rt.Pose(SK)
    assert capi.maniPose_SolveBodyXpbd(pose, SK, solve, scratch) is True
    pose = rt.Pose(SK)
    assert capi.maniPose_SolveBodySdls(pose, SK, solve, scratch) is True
    with pytest.raises(rt.CapacityError):
        capi.maniPose_SolveBodySdls(pose, SK, solve, scratch[:-8])
    assert capi.MANI_MAX_BODY_IK_EFFECTORS == MAX_BODY_IK_EFFECTORS
    assert capi.MANI_MAX_BODY_IK_BONES == MAX_BODY_IK_BONES
    assert not {"maniSkeleton_GetBodyIkScratchSize", "maniPose_SolveBodyXpbd",
                "maniPose_SolveBodySdls"} & set(capi.PENDING)


@pytest.mark.parametrize("value", [2 ** 64, -2 ** 70, 1.0, None, "1", True])
@pytest.mark.parametrize("where", ["effector", "setting", "top", "mode", "iterations"])
def test_hostile_numbers_in_the_description_are_refused(where, value):
    good = base()
    bad = {"effector": lambda: eff(good, 0, bone=value),
           "setting": lambda: dataclasses.replace(good, bones=[BodyBone(value)]),
           "top": lambda: dataclasses.replace(good, top=value),
           "mode": lambda: dataclasses.replace(good, top_mode=value),
           "iterations": lambda: dataclasses.replace(good, iterations=value)}[where]()
    for solver in SOLVERS:
        unchanged(lambda p: solver(p, SK, bad, scratch_for(good)), error=(rt.InvalidError, rt.LimitError))
    assert body_ik_scratch_size(SK, bad) == 0


def test_xpbd_stretch_follows_its_compliance():
    """Against an effector of strength 0.5 (a hard one would stretch the bone until it
    reached), more stretch (more compliance) lets the bone grow more toward a goal out of
    reach, to a balance the passes approach (bound stated: 200 and 256 iterations within 0.02
    of its length, closer than 100 and 200)."""
    solve = five_goals(np.random.default_rng(17))
    far = np.array(origins(SK, rt.Pose(SK).locals)[BONE["shoulder_l"]]) + (2.0, 0.0, 0.0)
    solve.effectors = [dataclasses.replace(e, goal=tuple(far), strength=0.5) if e.bone == BONE["hand_l"]
                       else e for e in solve.effectors]
    fore = BONE["forearm_l"]
    length = {}
    for stretch in (0.2, 0.5, 0.8):
        for n in (100, 200, 256):
            s = dataclasses.replace(solve, iterations=n, tolerance=0.0,
                                    bones=[BodyBone(fore, stretch=stretch)])
            pose, _ = solved(solve_body_xpbd, s)
            length[stretch, n] = np.linalg.norm(pose.locals[fore, 0:3])
        late = abs(length[stretch, 200] - length[stretch, 256])
        assert late < 0.02 and late < abs(length[stretch, 100] - length[stretch, 200])
    rest = np.linalg.norm(SK.rests[fore, 0:3])
    assert rest < length[0.2, 256] < length[0.5, 256] < length[0.8, 256]
