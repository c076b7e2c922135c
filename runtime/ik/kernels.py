"""The solvers' kernels: each reads a pose's locals, works in binary64 frames of the end's
root path (chain.py), and writes the locals it turns; binary32 stored.

Every kernel checks what only the skeleton can tell (ancestry, a chain's length, a limit's
bone and axis) before it writes anything, answering a refusal as a negative code (the names
below) for the Python layer to raise."""
import math

import numpy as np

from ..core.jit import kernel, reads, scalar, writes
from .chain import (NO_PLACE, applied, frames, load, path_to, place_of, point, recompose,
                    refresh, reposition, rotation, set_local_rotation, settle, turn,
                    turn_rotation, turned)
from .joints import LimitKind
from .limits import MAX_IK_CHAIN_BONES, REACH
from ..core.rotations import (TINY, across, add, arc, axis_angle, bounded, cross, dot, length,
                        partial, perpendicular, qconj, qmul, qunit, rotate, scaled,
                        signed_angle, sub, twist_about, unit)

NOT_ANCESTORS = -1      # bones not each an ancestor of the next (or a root not of the end)
CHAIN_TOO_LONG = -2     # a chain past MAX_IK_CHAIN_BONES
LIMIT_OFF_CHAIN = -3    # a limit's bone not on the chain
HINGE_ALONG_BONE = -4   # a hinge limit's axis along its bone's axis

HINGE, TWIST = int(LimitKind.hinge), int(LimitKind.twist)        # any other kind is a cone
CCD, FABRIK = 0, 1
ALONG = 1e-3            # a hinge whose sine with its bone's axis is under this lies along it


# ---- two-bone ------------------------------------------------------------------------------

@kernel(inner=True)
def _softened(distance, reach, soften):
    """The distance the chain spans for a goal `distance` away: the goal's own up to
    (1 - soften) of the reach, then closing on the reach exponentially, as smooth as a line
    there (slope 1), so the chain never snaps straight."""
    if soften <= 0.0:
        return distance
    knee = (1.0 - soften) * reach
    span = reach - knee
    if distance <= knee or span <= 0.0:
        return distance
    return knee + span * (1.0 - math.exp(-(distance - knee) / span))


@kernel(inner=True, inline=True)
def _about(axis, c, s):
    """The turn about the unit axis by the angle of cosine c and sine s, w >= 0: each of the
    half angle's cosine and sine found from whichever is the larger (no arccosine, no
    trigonometry, well conditioned at every angle)."""
    if c >= 0.0:
        w = math.sqrt(0.5 * (1.0 + c))
        h = s / (2.0 * w)
    else:
        h = math.copysign(math.sqrt(0.5 * (1.0 - c)), s)
        w = s / (2.0 * h)
    return (axis[0] * h, axis[1] * h, axis[2] * h, w)


@kernel(inner=True)
def _two_bone_places(path, start, middle):
    """Places of start and middle on the end's path, or NO_PLACE for both when the bones are
    not each an ancestor of the next."""
    k = path.shape[0]
    jm = place_of(path, middle, k - 2)
    js = place_of(path, start, jm - 1) if jm > 0 else NO_PLACE
    if jm == NO_PLACE or js == NO_PLACE:
        return NO_PLACE, NO_PLACE
    return js, jm


@kernel(inner=True, inline=True)
def _two_bone_solve(locals_, path, js, jm, params, goal, loc, pos, rot, lin):
    """One pose's two-bone solve, written; whether the end reached the goal."""
    load(locals_, path, loc, pos, rot, lin)
    je = path.shape[0] - 1
    pole = (params[3], params[4], params[5])
    hinge = (params[6], params[7], params[8])
    twist, soften, weight = params[9], params[10], params[11]
    s, m, e = point(pos, js), point(pos, jm), point(pos, je)
    a, b = sub(s, m), sub(e, m)
    la, lb = length(a), length(b)
    eps = 1e-9 * max(la + lb, TINY)
    if length(hinge) >= TINY:
        n = unit(rotate(rotation(rot, jm), hinge))
    else:
        n = unit(cross(b, a))           # the bend the chain has, turned further or back
    pa, pb = across(a, n), across(b, n)
    ra, rb = length(pa), length(pb)
    if length(n) > 0.0 and ra > eps and rb > eps:
        an, bn = dot(a, n), dot(b, n)
        base = la * la + lb * lb - 2.0 * an * bn
        far = math.sqrt(base + 2.0 * ra * rb)
        near = math.sqrt(max(base - 2.0 * ra * rb, 0.0))
        d = min(max(_softened(length(sub(goal, s)), far, soften), near), far)
        cosine = min(max((base - d * d) / (2.0 * ra * rb), -1.0), 1.0)
        sine = math.sqrt(max(1.0 - cosine * cosine, 0.0))
        # the bend is on the side a positive turn about the hinge takes it from straight: the
        # turn by -(the angle of that cosine + the angle from pa to pb), by its cosine and sine
        c, s_ = dot(pa, pb) / (ra * rb), dot(n, cross(pa, pb)) / (ra * rb)
        q = turned(rot, jm, _about(n, cosine * c - sine * s_, -(sine * c + cosine * s_)))
        loc[jm, 3], loc[jm, 4], loc[jm, 5], loc[jm, 6] = q[0], q[1], q[2], q[3]
        reposition(loc, pos, lin, jm, je)       # model rotations below the start not needed
    v = sub(goal, s)
    if length(v) > eps:
        line = unit(v)
        r1 = arc(sub(point(pos, je), s), v)
        bend = across(rotate(r1, sub(m, s)), line)
        aside = across(pole, line)
        c, s_ = (1.0, 0.0) if twist == 0.0 else (math.cos(twist), math.sin(twist))
        lb_, la_ = length(bend), length(aside)
        if lb_ > eps and la_ >= TINY:      # and the turn that puts the bend toward the pole
            cb, sb = dot(bend, aside) / (lb_ * la_), dot(line, cross(bend, aside)) / (lb_ * la_)
            c, s_ = cb * c - sb * s_, sb * c + cb * s_
        q = turned(rot, js, qmul(_about(line, c, s_), r1))
        loc[js, 3], loc[js, 4], loc[js, 5], loc[js, 6] = q[0], q[1], q[2], q[3]
    settle(locals_, path, loc, js, weight)
    reposition(loc, pos, lin, js, je)     # the settled end, for the reach alone
    reached = length(sub(point(pos, je), goal)) <= REACH * max(la + lb, TINY)
    return reached


# two_bone's and aim's one signature each (a first run compiles them aside:
# runtime.core.jit.compile_aside): the parents, the pose's locals, the bones, the params.
_PARENTS, _LOCALS = reads(np.uint32, 1), writes(np.float32, 2)
_I = scalar(np.int64)


@kernel(signature=(_PARENTS, _LOCALS, _I, _I, _I, reads(np.float64, 1)))
def two_bone(parents, locals_, start, middle, end, params):
    """maniPose_SolveTwoBone's work on one pose: 1 reached, 0 not, or NOT_ANCESTORS.
    params: goal 3, pole 3, hinge 3, twist, soften, weight."""
    path = path_to(parents, end)
    js, jm = _two_bone_places(path, start, middle)
    if js == NO_PLACE:
        return NOT_ANCESTORS
    loc, pos, rot, lin, _ = frames(path.shape[0], 0)
    goal = (params[0], params[1], params[2])
    return 1 if _two_bone_solve(locals_, path, js, jm, params, goal, loc, pos, rot, lin) else 0


@kernel
def two_bone_batch(parents, locals_, start, middle, end, params, goals, step, reached):
    """two_bone over (poses, n, 10) locals of one skeleton, pose i's goal goals[i * step]
    (step 1: a goal a pose, 0: one for all); 0 with reached[i] written, or NOT_ANCESTORS
    with nothing written. Each pose by the same operations as alone, so a batch's poses
    equal the single solves bit for bit; the frames are reused pose after pose."""
    path = path_to(parents, end)
    js, jm = _two_bone_places(path, start, middle)
    if js == NO_PLACE:
        return NOT_ANCESTORS
    loc, pos, rot, lin, _ = frames(path.shape[0], 0)
    for i in range(locals_.shape[0]):
        g = i * step
        reached[i] = _two_bone_solve(locals_[i], path, js, jm, params,
                                     (goals[g, 0], goals[g, 1], goals[g, 2]), loc, pos, rot,
                                     lin)
    return 0


@kernel
def within32(values):
    """Whether every value of a (rows, 3) array is finite in binary32 (as args.floats
    checks with within=np.float32: a value past the range once rounded is refused)."""
    for i in range(values.shape[0]):
        for c in range(3):
            if not np.isfinite(np.float32(values[i, c])):
                return False
    return True


# ---- aim ------------------------------------------------------------------------------------

@kernel(inner=True)
def _aim_turn(pos, rot, lin, ja, goal, forward, up, pole, offset, twist, cone, start_forward,
              start_up):
    """The model-space turn that aims the bone at place ja from where it now is: (turn,
    whether it was possible, whether the cone cut it). The forward line from the offset
    point passes through the goal when the point at the goal's distance along it, q, is
    turned onto the goal: the shortest such turn is the arc from q to the goal. Then about
    the line to the goal so the up lies toward the pole (the up as the first arc put it when
    there is no pole across the line), then by the twist."""
    origin = point(pos, ja)
    model = rotation(rot, ja)
    f = unit(rotate(model, forward))
    to_goal = sub(goal, origin)
    beside = across(applied(lin, ja, offset), f)
    distance2, r2 = dot(to_goal, to_goal), dot(beside, beside)
    if distance2 <= r2 or distance2 < TINY * TINY:
        return (0.0, 0.0, 0.0, 1.0), False, False
    q = add(beside, scaled(f, math.sqrt(distance2 - r2)))
    r_arc = arc(q, to_goal)
    line = unit(to_goal)
    aimed = rotate(r_arc, f)
    cut = False
    if math.atan2(length(cross(start_forward, aimed)), dot(start_forward, aimed)) > cone:
        axis = unit(cross(start_forward, aimed))
        if length(axis) == 0.0:
            axis = perpendicular(start_forward)
        line = rotate(axis_angle(axis, cone), start_forward)
        r_arc = arc(f, line)
        cut = True
    u = across(rotate(r_arc, unit(rotate(model, up))), line)
    toward = across(pole, line)
    if length(toward) < TINY:
        toward = across(start_up, line)
    angle = twist
    if length(u) >= TINY and length(toward) >= TINY:
        angle += signed_angle(u, toward, line)
    return qmul(axis_angle(line, angle), r_arc), True, cut


@kernel(signature=(_PARENTS, _LOCALS, reads(np.int64, 1), reads(np.float64, 1),
                   reads(np.float64, 1)))
def aim(parents, locals_, bones, shares, params):
    """maniPose_SolveAim's work: 1 reached, 0 not, or NOT_ANCESTORS. bones root first, the
    aiming bone last; shares >= 0, not all 0. params: goal 3, forward 3 (unit), up 3,
    pole 3, offset 3, twist, cone, weight.

    Bone s turns shares[s] / (its share and the shares after it) of the aim that remains,
    recomputed from where the bones above left the aiming bone; the last bone with a share
    takes all that remains, so the forward meets the goal however the shares fall."""
    m = bones.shape[0]
    path = path_to(parents, bones[m - 1])
    k = path.shape[0]
    places = np.empty(m, dtype=np.int64)
    last = k - 1
    for s in range(m - 1, -1, -1):
        places[s] = place_of(path, bones[s], last) if s == m - 1 else \
            place_of(path, bones[s], last - 1)
        if places[s] == NO_PLACE:
            return NOT_ANCESTORS
        last = places[s]
    loc, pos, rot, lin, _ = frames(k, 0)
    load(locals_, path, loc, pos, rot, lin)
    ja = k - 1
    goal = (params[0], params[1], params[2])
    forward = (params[3], params[4], params[5])
    up = (params[6], params[7], params[8])
    pole = (params[9], params[10], params[11])
    offset = (params[12], params[13], params[14])
    twist, cone, weight = params[15], params[16], params[17]
    start_forward = unit(rotate(rotation(rot, ja), forward))
    first_turn, possible, _ = _aim_turn(pos, rot, lin, ja, goal, forward, up, pole, offset, 0.0,
                                        math.pi, start_forward, (0.0, 0.0, 0.0))
    if not possible:
        return 0
    start_up = rotate(first_turn, unit(rotate(rotation(rot, ja), up)))
    after = np.empty(m)
    total = 0.0
    for s in range(m - 1, -1, -1):
        total += shares[s]
        after[s] = total
    cut = False
    for s in range(m):
        if shares[s] == 0.0:
            continue
        r, possible, cut = _aim_turn(pos, rot, lin, ja, goal, forward, up, pole, offset, twist,
                                     cone, start_forward, start_up)
        if not possible:
            break
        j = places[s]
        turn(loc, pos, rot, lin, j, partial(r, shares[s] / after[s]))
        recompose(loc, pos, rot, lin, j + 1, ja)
    settle(locals_, path, loc, places[0], weight)
    recompose(loc, pos, rot, lin, places[0], ja)
    f = unit(rotate(rotation(rot, ja), forward))
    miss = sub(goal, add(point(pos, ja), applied(lin, ja, offset)))
    reached = (not cut and possible and dot(miss, f) > 0.0
               and length(across(miss, f)) <= REACH * max(length(miss), TINY))
    return 1 if reached else 0


# ---- chains: limits, CCD, FABRIK ------------------------------------------------------------

@kernel(inner=True)
def bone_axes(rests, path, first, axes):
    """Each chain place's bone axis in its own frame: toward the next bone of the chain as
    the skeleton's rest has it; the end's, toward no child, continues its parent's line (its
    rest translation seen from its own frame). (1, 0, 0) for a bone of no length. Into
    axes, (k, 3)."""
    k = path.shape[0]
    for i in range(first, k):
        b = path[i]
        if i < k - 1:
            c = path[i + 1]
            v = (np.float64(rests[c, 0]), np.float64(rests[c, 1]), np.float64(rests[c, 2]))
        else:
            q = qunit((np.float64(rests[b, 3]), np.float64(rests[b, 4]),
                       np.float64(rests[b, 5]), np.float64(rests[b, 6])))
            v = rotate(qconj(q), (np.float64(rests[b, 0]), np.float64(rests[b, 1]),
                                  np.float64(rests[b, 2])))
        u = unit(v)
        if length(u) == 0.0:
            u = (1.0, 0.0, 0.0)
        axes[i, 0], axes[i, 1], axes[i, 2] = u[0], u[1], u[2]


@kernel(inner=True)
def limited(q, rest, kind, axis, bone_axis, low, high):
    """The local rotation q within a limit, measured from the rest rotation (the turn
    rest^-1 q, in the bone's own frame). A hinge keeps only the turn's twist about its axis,
    its angle clamped to [low, high]; a twist limit clamps the twist about the bone's axis
    and keeps the swing; a cone cuts the swing off the bone's axis to `high` and keeps the
    twist."""
    delta = qmul(qconj(rest), q)
    if kind == HINGE:
        angle = min(max(twist_about(delta, axis), low), high)
        delta = axis_angle(axis, angle)
    else:
        angle = twist_about(delta, bone_axis)
        own_twist = axis_angle(bone_axis, angle)
        swing = qmul(delta, qconj(own_twist))
        if kind == TWIST:
            delta = qmul(swing, axis_angle(bone_axis, min(max(angle, low), high)))
        else:
            delta = qmul(bounded(swing, high), own_twist)
    return qunit(qmul(rest, delta))


@kernel(inner=True, inline=True)
def _limit(loc, pos, rot, lin, i, rests, path, kinds, places, data, axes, limited_places):
    """Place i's limits applied in their order (its frame refreshed)."""
    if not limited_places[i]:
        return
    b = path[i]
    rest = qunit((np.float64(rests[b, 3]), np.float64(rests[b, 4]), np.float64(rests[b, 5]),
                  np.float64(rests[b, 6])))
    for n in range(kinds.shape[0]):
        if places[n] != i:
            continue
        q = qunit((loc[i, 3], loc[i, 4], loc[i, 5], loc[i, 6]))
        q = limited(q, rest, kinds[n], (data[n, 0], data[n, 1], data[n, 2]),
                    (axes[i, 0], axes[i, 1], axes[i, 2]), data[n, 3], data[n, 4])
        set_local_rotation(loc, pos, rot, lin, i, q)


@kernel(inner=True)
def _end_rotation(loc, pos, rot, lin, je, wanted, share):
    """The end bone turned a `share` of the way from its model rotation to the wanted one."""
    model = rotation(rot, je)
    turn(loc, pos, rot, lin, je, partial(qmul(wanted, qconj(model)), share))


@kernel(inner=True)
def _pole_turn(loc, pos, rot, lin, jr, je, goal, pole):
    """FABRIK's first step: the chain turned about the root-to-goal line so its bend (the
    joints' mean offset from the line) faces the pole, the turn scaled down as the bend
    shrinks under a twentieth of the chain's length (near the line its side is noise)."""
    root = point(pos, jr)
    line = unit(sub(goal, root))
    aside = across(pole, line)
    if length(line) == 0.0 or length(aside) < TINY:
        return
    bend = (0.0, 0.0, 0.0)
    chain = 0.0
    for i in range(jr + 1, je + 1):
        chain += length(sub(point(pos, i), point(pos, i - 1)))
        if i < je:
            bend = add(bend, across(sub(point(pos, i), root), line))
    size = length(bend) / max(je - jr - 1, 1)
    if size < TINY or chain < TINY:
        return
    share = min(size / (0.05 * chain), 1.0)
    turn(loc, pos, rot, lin, jr, axis_angle(line, share * signed_angle(bend, aside, line)))
    recompose(loc, pos, rot, lin, jr + 1, je)


@kernel
def chain(parents, rests, locals_, root, end, params, iterations, kinds, bones, data, mode,
          report):
    """maniPose_SolveCcd (mode CCD) or maniPose_SolveFabrik (FABRIK): 1 reached, 0 not, or a
    refusal code; report[0] the iterations run. params: goal 3, pole 3, rotation 4 (unit),
    rotation weight, tolerance, step, weight. Limits: kinds, bones, data (axis 3, low, high)
    one row each."""
    path = path_to(parents, end)
    k = path.shape[0]
    je = k - 1
    jr = place_of(path, root, je - 1)
    if jr == NO_PLACE:
        return NOT_ANCESTORS
    if je - jr + 1 > MAX_IK_CHAIN_BONES:
        return CHAIN_TOO_LONG
    places = np.empty(kinds.shape[0], dtype=np.int64)
    limited_places = np.zeros(k, dtype=np.bool_)
    loc, pos, rot, lin, own = frames(k, 3)
    axes, targets, lengths = own[0], own[1], own[2, :, 0]
    bone_axes(rests, path, jr, axes)
    for n in range(kinds.shape[0]):
        places[n] = place_of(path, bones[n], je)
        if places[n] < jr:
            return LIMIT_OFF_CHAIN
        limited_places[places[n]] = True
        if kinds[n] == HINGE:
            i = places[n]
            if length(cross((data[n, 0], data[n, 1], data[n, 2]),
                            (axes[i, 0], axes[i, 1], axes[i, 2]))) < ALONG:
                return HINGE_ALONG_BONE
    load(locals_, path, loc, pos, rot, lin)
    goal = (params[0], params[1], params[2])
    pole = (params[3], params[4], params[5])
    wanted = (params[6], params[7], params[8], params[9])
    share, tolerance, step, weight = params[10], params[11], params[12], params[13]
    if mode == FABRIK:
        _pole_turn(loc, pos, rot, lin, jr, je, goal, pole)
    for i in range(jr, je):
        lengths[i] = length(sub(point(pos, i + 1), point(pos, i)))
    done = 0
    for _ in range(iterations):
        if length(sub(point(pos, je), goal)) <= tolerance:
            break
        done += 1
        if mode == CCD:
            e = point(pos, je)
            for i in range(je - 1, jr - 1, -1):
                origin = point(pos, i)
                before = rotation(rot, i)
                to_end, to_goal = sub(e, origin), sub(goal, origin)
                if length(to_end) > TINY and length(to_goal) > TINY:
                    r = arc(to_end, to_goal)
                    if step > 0.0:
                        r = bounded(r, step)
                    turn_rotation(loc, rot, i, r)
                _limit(loc, pos, rot, lin, i, rests, path, kinds, places, data, axes,
                       limited_places)
                moved = qmul(rotation(rot, i), qconj(before))
                e = add(origin, rotate(moved, sub(e, origin)))
            recompose(loc, pos, rot, lin, jr, je)
        else:
            targets[je, 0], targets[je, 1], targets[je, 2] = goal[0], goal[1], goal[2]
            for i in range(je - 1, jr - 1, -1):
                below = (targets[i + 1, 0], targets[i + 1, 1], targets[i + 1, 2])
                toward = unit(sub(point(pos, i), below))
                if length(toward) == 0.0:
                    toward = unit(sub(point(pos, i), point(pos, i + 1)))
                t = add(below, scaled(toward, lengths[i]))
                targets[i, 0], targets[i, 1], targets[i, 2] = t[0], t[1], t[2]
            for i in range(jr, je):
                origin = point(pos, i)
                there = (targets[i + 1, 0], targets[i + 1, 1], targets[i + 1, 2])
                # the bone as the turns above left it (place i + 1 is stale until refreshed)
                bone = applied(lin, i, (loc[i + 1, 0], loc[i + 1, 1], loc[i + 1, 2]))
                wish = sub(there, origin)
                if length(bone) > TINY and length(wish) > TINY:
                    turn(loc, pos, rot, lin, i, arc(bone, wish))
                _limit(loc, pos, rot, lin, i, rests, path, kinds, places, data, axes,
                       limited_places)
                refresh(loc, pos, rot, lin, i + 1)
    if share > 0.0:
        _end_rotation(loc, pos, rot, lin, je, wanted, share)
    _limit(loc, pos, rot, lin, je, rests, path, kinds, places, data, axes,
           limited_places)
    settle(locals_, path, loc, jr, weight)
    recompose(loc, pos, rot, lin, jr, je)
    reached = length(sub(point(pos, je), goal)) <= tolerance
    report[0] = done
    return 1 if reached else 0
