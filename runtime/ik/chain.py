"""The frames a solver works in: the model frames of one bone's root path, composed from a
pose's locals alone (the pose's model need not be current, and is never read).

Every solver of ik.h (and the full-body solvers) turns bones of a path from the skeleton's
root down to some bone. `path_to(parents, bone)` gives that path, root first (`root_path`
from Python); `frames` over it are binary64 working copies, per path place i:

    loc (k, 10)    the bone's local transform, as the pose holds it (then as turned)
    pos (k, 3)     its model origin
    rot (k, 4)     its model rotation: the product of the locals' unit rotations, root first
    lin (k, 3, 3)  its model rotation-scale block, as Pose.compute_model composes it

`pos` and `lin` compose as the pose's model does (the homogeneous rotation matrix, column j
scaled by s_j), so a solve's positions are the ones the pose will show. `rot` carries the
turns: a model-space turn R of the bone at place j becomes the local correction
rot_j^-1 R rot_j, applied after its local rotation (`turn`), which is R exactly under
uniform scale and R's rotation part under any other. A turn refreshes that place alone:
the solver recomposes the places below it when it next needs them (`recompose`), so a sweep
that only needs the end can carry it along itself (and `turn_rotation` leaves even the turned
place's matrix for that recomposition).

`settle` then decides what is written: each turned place's correction from the pose's
own rotation, taken a weight's fraction of the way, rounded to binary32; a correction under
KEEP_ANGLE keeps the pose's bits (a solve of its own result writes nothing); it writes the
settled rotations, and only those places, into the pose's locals."""
import math

import numpy as np

from ..core import args
from ..core.errors import InvalidError
from ..core.jit import kernel
from ..pose.skeleton import opened
from .limits import KEEP_ANGLE
from ..core.rotations import angle_of, partial, qconj, qmul, qunit

NO_PLACE = -1


@kernel
def path_to(parents, bone):
    """The bones from the skeleton's root down to `bone`, root first. A parent that is not a
    lower index counts as none (Skeleton.check_parents has refused those)."""
    depth, b = 1, bone
    while True:
        p = np.int64(parents[b])
        if p >= b:
            break
        depth += 1
        b = p
    path = np.empty(depth, dtype=np.int64)
    b = bone
    for i in range(depth - 1, -1, -1):
        path[i] = b
        b = np.int64(parents[b])
    return path


def root_path(skeleton, bone: int) -> np.ndarray:
    """The bones a solve ending at `bone` reads, root first: for a graph's subset plan (an
    IK node needs these bones' locals) and for callers outside a kernel."""
    opened(skeleton)
    bone = args.integer(bone, "bone")
    if not 0 <= bone < skeleton.bone_count:
        raise InvalidError(f"bone {bone} is out of range")
    skeleton.check_parents()
    return path_to(skeleton.parents, bone)


@kernel(inner=True)
def place_of(path, bone, last):
    """The place of `bone` on the path among places 0..last, or NO_PLACE."""
    for i in range(last + 1):
        if path[i] == bone:
            return i
    return NO_PLACE


@kernel(inner=True)
def frames(k, rows):
    """Empty working frames for a path of k bones: loc, pos, rot, lin, and `rows` (k, 3)
    rows of a solver's own per-place numbers, all views of one block (one allocation)."""
    block = np.empty((26 + 3 * rows) * k)
    return (block[:10 * k].reshape((k, 10)), block[10 * k:13 * k].reshape((k, 3)),
            block[13 * k:17 * k].reshape((k, 4)), block[17 * k:26 * k].reshape((k, 3, 3)),
            block[26 * k:].reshape((rows, k, 3)))


@kernel(inner=True, inline=True)
def load(locals_, path, loc, pos, rot, lin):
    """The path's locals into `loc` and every place composed."""
    k = path.shape[0]
    for i in range(k):
        for c in range(10):
            loc[i, c] = np.float64(locals_[path[i], c])
    recompose(loc, pos, rot, lin, 0, k - 1)


@kernel(inner=True, inline=True)
def refresh(loc, pos, rot, lin, i):
    """Place i's model frame from place i - 1's (or its local alone at place 0)."""
    position(loc, pos, lin, i)
    q = qunit((loc[i, 3], loc[i, 4], loc[i, 5], loc[i, 6]))
    r = q if i == 0 else qmul((rot[i - 1, 0], rot[i - 1, 1], rot[i - 1, 2], rot[i - 1, 3]), q)
    rot[i, 0], rot[i, 1], rot[i, 2], rot[i, 3] = r[0], r[1], r[2], r[3]


@kernel(inner=True, inline=True)
def position(loc, pos, lin, i):
    """Place i's model origin and rotation-scale block alone (refresh without the model
    rotation: what a solver needs of the places it only measures)."""
    tx, ty, tz = loc[i, 0], loc[i, 1], loc[i, 2]
    x, y, z, w = loc[i, 3], loc[i, 4], loc[i, 5], loc[i, 6]
    sx, sy, sz = loc[i, 7], loc[i, 8], loc[i, 9]
    xx, yy, zz, ww = x * x, y * y, z * z, w * w
    l00, l01, l02 = (ww + xx - yy - zz) * sx, 2.0 * (x * y - z * w) * sy, 2.0 * (x * z + y * w) * sz
    l10, l11, l12 = 2.0 * (x * y + z * w) * sx, (ww - xx + yy - zz) * sy, 2.0 * (y * z - x * w) * sz
    l20, l21, l22 = 2.0 * (x * z - y * w) * sx, 2.0 * (y * z + x * w) * sy, (ww - xx - yy + zz) * sz
    if i == 0:
        lin[0, 0, 0], lin[0, 0, 1], lin[0, 0, 2] = l00, l01, l02
        lin[0, 1, 0], lin[0, 1, 1], lin[0, 1, 2] = l10, l11, l12
        lin[0, 2, 0], lin[0, 2, 1], lin[0, 2, 2] = l20, l21, l22
        pos[0, 0], pos[0, 1], pos[0, 2] = tx, ty, tz
        return
    p = i - 1
    for row in range(3):
        a0, a1, a2 = lin[p, row, 0], lin[p, row, 1], lin[p, row, 2]
        lin[i, row, 0] = a0 * l00 + a1 * l10 + a2 * l20
        lin[i, row, 1] = a0 * l01 + a1 * l11 + a2 * l21
        lin[i, row, 2] = a0 * l02 + a1 * l12 + a2 * l22
        pos[i, row] = a0 * tx + a1 * ty + a2 * tz + pos[p, row]


@kernel(inner=True, inline=True)
def recompose(loc, pos, rot, lin, first, last):
    """Places first..last (inclusive) recomposed in order."""
    for i in range(first, last + 1):
        refresh(loc, pos, rot, lin, i)


@kernel(inner=True, inline=True)
def reposition(loc, pos, lin, first, last):
    """Places first..last positioned in order (their model rotations left stale)."""
    for i in range(first, last + 1):
        position(loc, pos, lin, i)


@kernel(inner=True, inline=True)
def point(pos, i):
    return (pos[i, 0], pos[i, 1], pos[i, 2])


@kernel(inner=True, inline=True)
def rotation(rot, i):
    return (rot[i, 0], rot[i, 1], rot[i, 2], rot[i, 3])


@kernel(inner=True, inline=True)
def local_rotation(loc, i):
    return (loc[i, 3], loc[i, 4], loc[i, 5], loc[i, 6])


@kernel(inner=True, inline=True)
def applied(lin, i, v):
    """Place i's rotation-scale block times v: a point fixed to the bone, from its origin."""
    return (lin[i, 0, 0] * v[0] + lin[i, 0, 1] * v[1] + lin[i, 0, 2] * v[2],
            lin[i, 1, 0] * v[0] + lin[i, 1, 1] * v[1] + lin[i, 1, 2] * v[2],
            lin[i, 2, 0] * v[0] + lin[i, 2, 1] * v[1] + lin[i, 2, 2] * v[2])


@kernel(inner=True, inline=True)
def set_local_rotation(loc, pos, rot, lin, i, q):
    """Place i's local rotation set to the unit q, its frame refreshed."""
    loc[i, 3], loc[i, 4], loc[i, 5], loc[i, 6] = q[0], q[1], q[2], q[3]
    refresh(loc, pos, rot, lin, i)


@kernel(inner=True, inline=True)
def turned(rot, i, r):
    """Place i's local rotation once the model-space turn r turns it about its origin."""
    # the local correction rot_i^-1 r rot_i after the local q is parent^-1 r rot_i
    parent = rotation(rot, i - 1) if i > 0 else (0.0, 0.0, 0.0, 1.0)
    return qunit(qmul(qconj(parent), qmul(r, rotation(rot, i))))


@kernel(inner=True, inline=True)
def turn(loc, pos, rot, lin, i, r):
    """Place i turned by the model-space turn r about its origin (the places below it are
    stale until recomposed)."""
    set_local_rotation(loc, pos, rot, lin, i, turned(rot, i, r))


@kernel(inner=True, inline=True)
def turn_rotation(loc, rot, i, r):
    """`turn` for a solver that needs only place i's rotation until it next recomposes
    (CCD's sweep): its local and model rotations, not its matrix."""
    parent = rotation(rot, i - 1) if i > 0 else (0.0, 0.0, 0.0, 1.0)
    model = qunit(qmul(r, rotation(rot, i)))
    q = qunit(qmul(qconj(parent), model))
    loc[i, 3], loc[i, 4], loc[i, 5], loc[i, 6] = q[0], q[1], q[2], q[3]
    rot[i, 0], rot[i, 1], rot[i, 2], rot[i, 3] = model[0], model[1], model[2], model[3]


@kernel(inner=True, inline=True)
def settle(locals_, path, loc, first, weight):
    """Places first.. of `loc` made what the pose holds, and written into it: each
    rotation's correction from the pose's (its unit form), a `weight` fraction of it,
    rounded to binary32; under KEEP_ANGLE the pose's own bits, not written. Called once no
    refusal can follow (each place reads its own bone's locals alone)."""
    for i in range(first, path.shape[0]):
        b = path[i]
        own = (np.float64(locals_[b, 3]), np.float64(locals_[b, 4]),
               np.float64(locals_[b, 5]), np.float64(locals_[b, 6]))
        if (own[0] == loc[i, 3] and own[1] == loc[i, 4] and own[2] == loc[i, 5]
                and own[3] == loc[i, 6]):
            continue                    # never turned
        start = qunit(own)
        correction = qmul(qconj(start), qunit(local_rotation(loc, i)))
        if weight < 1.0:
            correction = partial(correction, weight)
        if rounding(correction):
            for c in range(4):
                loc[i, 3 + c] = own[c]
            continue
        q = qunit(qmul(start, correction))
        for c in range(4):
            locals_[b, 3 + c] = np.float32(q[c])
            loc[i, 3 + c] = np.float64(locals_[b, 3 + c])


@kernel(inner=True, inline=True)
def rounding(c):
    """Whether the correction c is rounding: a turn under KEEP_ANGLE, or not finite. Its
    half angle's tangent decides the clear cases without the arctangent (x - x^3 / 3 <
    atan x <= x: within a part in 1e11 of x this small)."""
    s, w = math.sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), abs(c[3])
    if s > 0.51 * KEEP_ANGLE * w:
        return False
    if s < 0.49 * KEEP_ANGLE * w:
        return True
    return angle_of(c) < KEEP_ANGLE or not math.isfinite(c[3])
