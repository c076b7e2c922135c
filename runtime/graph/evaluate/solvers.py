"""The mirror and IK nodes' evaluation, compiled: each lane's input pose handed to the
library's own kernels (mapping's mirror loop, ik's two-bone, aim and chain solvers), so a
node's output is the solver's on its input, bit for bit.

A lane's slot holds the bones evaluated (all, or a subset plan's) component-major; the
solvers read (bones, 10) rows by skeleton index. A mirror node gathers the evaluated bones
into rows (its table's partners renumbered to rows), mirrors them and scatters them back. An
IK node copies its input on, gathers the root path of its chain's end into skeleton-indexed
rows (a plan holds every bone of that path: graph/subset.py adds it), solves, and scatters
the path back. Goals, poles and end rotations come from the node's constants or its
parameters' values in S; a weight is the node's times its float parameter clamped to 0..1.
A springs node steps its state (kept in the lane's S) by the seconds its updates counted,
then applies it (physics/kernels.py's step and apply, on the whole pose).
"""
from __future__ import annotations

import math

import numpy as np

from .kernels import _copy
from ...core.jit import kernel, reads, scalar, writes
from ...ik.kernels import aim, chain, two_bone
from ...mapping.kernels import mirror_locals
from ...physics import kernels as spring_kernels

_S, _SLOTS, _IDS = writes(np.float64, 2), writes(np.float32, 4), writes(np.int64, 1)
_I = scalar(np.int64)
_PARENTS, _RESTS = reads(np.uint32, 1), reads(np.float32, 2)
_F64 = reads(np.float64, 1)


@kernel(signature=(_S, _I, _SLOTS, _I, _I, reads(np.int64, 2), reads(np.float64, 2), _I))
def mirror_node(S, base, slots, src, out, table, turns, axis):
    """Each weighted lane's input mirrored (mapping/kernels.py's mirror_locals); table's
    first column the partner's row."""
    m = table.shape[0]
    a = np.empty((m, 10), dtype=np.float32)
    b = np.empty((m, 10), dtype=np.float32)
    for lane in range(S.shape[0]):
        if not S[lane, base] > 0.0:
            continue
        for r in range(m):
            for c in range(10):
                a[r, c] = slots[src, c, lane, r]
        mirror_locals(table, turns, axis, a, b)
        for r in range(m):
            for c in range(10):
                slots[out, c, lane, r] = b[r, c]


@kernel(inner=True)
def _gather(slots, out, lane, path, where, work):
    for i in path:
        r = where[i]
        for c in range(10):
            work[i, c] = slots[out, c, lane, r]


@kernel(inner=True)
def _scatter(work, path, where, slots, lane, out):
    for i in path:
        r = where[i]
        for c in range(10):
            slots[out, c, lane, r] = work[i, c]


@kernel(inner=True)
def _fill(S, lane, constants, ats, places, widths, weight_at, weight_place, params):
    """A lane's solve parameters: the constants, each parameter-given vector (ats[j] into
    params[places[j]], widths[j] long) over them, the weight times its parameter."""
    for j in range(constants.shape[0]):
        params[j] = constants[j]
    for j in range(ats.shape[0]):
        if ats[j] >= 0:
            for c in range(widths[j]):
                params[places[j] + c] = S[lane, ats[j] + c]
    if weight_at >= 0:
        v = S[lane, weight_at]
        v = 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)
        params[weight_place] = constants[weight_place] * v


_SOLVE = (_S, _I, _SLOTS, _I, _I, _IDS, _IDS, _PARENTS, _F64, _IDS, _IDS, _IDS, _I, _I)


@kernel(signature=_SOLVE + (_IDS,))
def two_bone_node(S, base, slots, src, out, path, where, parents, constants, ats, places, widths,
                  weight_at, weight_place, bones):
    """ik's two_bone on each weighted lane's input; bones start, middle, end."""
    work = np.empty((parents.shape[0], 10), dtype=np.float32)
    params = np.empty(constants.shape[0])
    for lane in range(S.shape[0]):
        if not S[lane, base] > 0.0:
            continue
        _copy(slots, src, lane, out)
        _gather(slots, out, lane, path, where, work)
        _fill(S, lane, constants, ats, places, widths, weight_at, weight_place, params)
        if two_bone(parents, work, bones[0], bones[1], bones[2], params) >= 0:
            _scatter(work, path, where, slots, lane, out)


@kernel(signature=_SOLVE + (_IDS, _F64))
def aim_node(S, base, slots, src, out, path, where, parents, constants, ats, places, widths,
             weight_at, weight_place, bones, shares):
    """ik's aim on each weighted lane's input."""
    work = np.empty((parents.shape[0], 10), dtype=np.float32)
    params = np.empty(constants.shape[0])
    for lane in range(S.shape[0]):
        if not S[lane, base] > 0.0:
            continue
        _copy(slots, src, lane, out)
        _gather(slots, out, lane, path, where, work)
        _fill(S, lane, constants, ats, places, widths, weight_at, weight_place, params)
        if aim(parents, work, bones, shares, params) >= 0:
            _scatter(work, path, where, slots, lane, out)


@kernel(signature=_SOLVE + (_RESTS, _I, _I, _I, _I, _IDS, _IDS, reads(np.float64, 2), _I))
def chain_node(S, base, slots, src, out, path, where, parents, constants, ats, places, widths,
               weight_at, weight_place, rests, root, end, iterations, rotation_at, kinds, bones,
               data, mode):
    """ik's chain (CCD or FABRIK) on each weighted lane's input; a rotation parameter's
    value normalized as the solver's front door normalizes a rotation."""
    work = np.empty((parents.shape[0], 10), dtype=np.float32)
    params = np.empty(constants.shape[0])
    report = np.zeros(1, dtype=np.int64)
    for lane in range(S.shape[0]):
        if not S[lane, base] > 0.0:
            continue
        _copy(slots, src, lane, out)
        _gather(slots, out, lane, path, where, work)
        _fill(S, lane, constants, ats, places, widths, weight_at, weight_place, params)
        if rotation_at >= 0:
            x, y, z, w = params[6], params[7], params[8], params[9]
            size = math.sqrt(x * x + y * y + z * z + w * w)
            params[6], params[7], params[8], params[9] = x / size, y / size, z / size, w / size
        if chain(parents, rests, work, root, end, params, iterations, kinds, bones, data, mode,
                 report) >= 0:
            _scatter(work, path, where, slots, lane, out)


_U1, _U2, _F2 = reads(np.uint32, 1), reads(np.uint32, 2), reads(np.float32, 2)


@kernel(signature=(_S, _I, _SLOTS, _I, _I, _IDS, _RESTS, _PARENTS, _I, _IDS, _F64,
                   scalar(np.float64), _I, _U2, _U1, _F2, _U1, _F2, _U1, _U1, _F2, _U1, _I))
def springs_node(S, base, slots, src, out, rows, rests, parents, at, ats, force, rate, max_steps,
                 springs, jbones, jvalues, lkinds, lvalues, ckinds, cbones, cvalues, links, reach):
    """physics' step (the seconds due at S[base + 2], then none) and apply on each weighted
    lane's input, the state's values at S[at:]. The bones a plan leaves out read as the rest
    pose (the springs read none of them: graph/subset.py plans their joints' root paths,
    colliders' bones and centers)."""
    n = parents.shape[0]
    work = np.empty((n, 10), dtype=np.float32)
    locals_ = np.zeros((n + 1, 10))
    world, out_world = np.zeros((n, 3, 4)), np.zeros((n, 3, 4))
    turns, out_turns = np.zeros((n, 4)), np.zeros((n, 4))
    table = np.zeros((ckinds.shape[0], 8))
    placement = np.empty(10)
    f = np.empty(3)
    count = spring_kernels.AT_LOCALS + 10 * n + 6 * jbones.shape[0]
    for lane in range(S.shape[0]):
        if not S[lane, base] > 0.0:
            continue
        _copy(slots, src, lane, out)
        work[:, :] = rests
        for r in range(rows.shape[0]):
            for c in range(10):
                work[rows[r], c] = slots[out, c, lane, r]
        placement[:] = 0.0
        placement[6] = placement[7] = placement[8] = placement[9] = 1.0
        if ats[0] >= 0:
            for c in range(3):
                placement[c] = S[lane, ats[0] + c]
        if ats[1] >= 0:
            x, y, z, w = S[lane, ats[1]], S[lane, ats[1] + 1], S[lane, ats[1] + 2], S[lane, ats[1] + 3]
            size = math.sqrt(x * x + y * y + z * z + w * w)
            placement[3], placement[4], placement[5], placement[6] = x / size, y / size, z / size, w / size
        for c in range(3):
            f[c] = force[c] + (S[lane, ats[2] + c] if ats[2] >= 0 else 0.0)
        values = S[lane, at:at + count]
        tails = values[spring_kernels.AT_LOCALS + 10 * n:].reshape((jbones.shape[0], 6))
        spring_kernels.step(parents, work, placement, f, S[lane, base + 2], rate, max_steps,
                            springs, jbones, jvalues, lkinds, lvalues, ckinds, cbones, cvalues,
                            links, values, tails, locals_, world, turns, table)
        S[lane, base + 2] = 0.0
        spring_kernels.apply(parents, work, rate, springs, jbones, jvalues, lkinds, lvalues, ckinds,
                             cbones, cvalues, links, values, tails, locals_, world, turns,
                             out_world, out_turns, table, reach)
        for r in range(rows.shape[0]):
            for c in range(10):
                slots[out, c, lane, r] = work[rows[r], c]
