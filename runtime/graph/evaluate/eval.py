"""maniGraphInstance_Evaluate and EvaluateSubset, for one instance or many of one binding.

Each node of weight above 0, in order, writes its slot: a clip sampled at its playhead (a
retargeted clip sampled on its map's source skeleton, then carried through the map; a motion
matching node's entry's clip, mirrored for a mirrored entry; a learned node's model
decompressed at its state, or the pose its last update cached when the cached state's
bytes are the state's, the rest pose before its first state or when the model gives a
value past the float range: the evaluation then completes and raises FormatError, the
node marked failed); a
blend, a space or a machine blending its weighted inputs by the shares the update kept; a
mask or a one-shot blending base and overlay bone by bone; an additive layer adding its
difference; a select, time scale or seek passing its input on; an inertialize node putting
its decaying offset (or its dead blend) onto its input; a pose parameter's pose; a mirror,
IK, full-body or springs node its input mirrored, solved or sprung by the library's own
kernels (graph/evaluate/solvers.py; a full-body node lane by lane through ik.body's
solve_packed). Then the
output's slot is the pose. An instance never updated gives the rest pose.

Instances are lanes: each node is one compiled kernel (graph/evaluate/kernels.py) over every
lane, writing the lanes that weigh it, so a hundred instances cost the calls of one, and one
instance is simply a batch of one; a run of plain nodes (graph/evaluate/program.py) is one
call for all of them. What each node's call takes (its slots, inputs, clip
samples, masks, on the bones evaluated) is worked out once per binding and subset plan, as
its step. Under a subset plan the bones are the plan's only; each bone's arithmetic being
the same, the planned bones come out bit for bit as a full evaluation writes them, and an
inertialize node keeps and updates its poses on those bones only.
"""
from __future__ import annotations

import math
import threading
from operator import attrgetter

import numpy as np

from . import kernels, program, solvers
from .program import ADDITIVE, CLIP, COPY, MASK, MIX, ONE_SHOT, SELECT, Program
from ...core import jit, threads
from ...core.errors import CapacityError, FormatError, InvalidError
from ...core.memory import caller_bytes
from ..update.learned import work as learned_work
from ..update.driver import SPAN_LANES
from ..limits import GRAPH_NONE
from ..source import BodySolver, InertializeMethod, NodeKind
from ...ik.body.description import scratch_size as body_scratch
from ...ik.body.frames import solve_packed
from ...ik.chain import path_to
from ...ik.kernels import CCD, FABRIK
from ...core.transform import IDENTITY
from ...mapping.retarget_kernels import retarget_locals
from ...pose.blend import _add as add_differences, _difference as pose_difference
from ...pose.pose import Pose
from ..solving import chain_limits, solver_bones
from ..springs import spring_values, written_bones
from ...physics.spring import SPRING_MAX_STEPS

class _Lanes:
    """One evaluation's instances, their scalars (lanes, scalars) and slots."""

    __slots__ = ("insts", "S", "slots", "locals", "own", "transfer", "failed")

    def __init__(self, insts, S, slots, locals_, transfer, own):
        self.insts = insts
        self.S = S
        self.slots = slots
        self.locals = locals_            # the poses written, (lanes, bones, 10)
        self.own = own                   # S is the instance's own (written in place)
        self.transfer = transfer         # a mapped clip's working memory (None: no map slots)
        self.failed = []                 # learned nodes whose model failed


class Steps:
    """What an evaluation of a binding's graph runs, on some bones: each node's step (a
    function of the lanes) in node order, then the output; the plain nodes' ops are in one
    table (graph/evaluate/program.py), each run of them one step."""

    def __init__(self, b, bones: np.ndarray):
        self.rows = bones
        self.rests = np.ascontiguousarray(b.rests_soa[:, bones])
        self.count = b.graph.slot_count + 1         # the graph's slots, then the rest pose
        self.size = b.layout.size
        self.local = threading.local()              # each thread's working arrays
        self.output = b.graph.nodes[-1].slot
        self.last = b.layout.nodes[-1]
        self.where = np.full(b.skeleton.bone_count, -1, dtype=np.int64)   # bone -> its row
        self.where[bones] = np.arange(bones.size)
        self.program = Program(b, bones, self.rests)
        self.nodes = self.program.runs([_MAKE[node.kind](b, self, k, node) for k, node in enumerate(b.graph.nodes)])


def steps(b, plan=None) -> Steps:
    """A binding's steps, for every bone or a plan's (made on first use, then kept on the
    binding or the plan)."""
    if plan is not None:
        if plan.evaluation is None:
            plan.evaluation = Steps(b, plan.bones)
        return plan.evaluation
    if b.evaluation is None:
        b.evaluation = Steps(b, np.arange(b.skeleton.bone_count, dtype=np.intp))
    return b.evaluation


def evaluate(inst, out: Pose, scratch=None, plan=None) -> None:
    """One instance's pose (all bones, or the plan's) into `out`; the model left stale."""
    if not isinstance(out, Pose) or not out.of(inst.binding.skeleton):
        raise InvalidError("not a pose of the graph's skeleton")
    evaluate_lanes([inst], out.locals[None], scratch, plan)
    out.mark_kind(False)


def evaluate_lanes(insts: list, locals_: np.ndarray, scratch=None, plan=None) -> None:
    """Lane k's pose into locals_[k] (lanes, bones, 10). Many lanes are cut into spans, one
    a thread (core.threads), each evaluated on its own (its slots its own, or its share of
    the scratch): every kernel computes a lane from that lane's scalars and slots alone,
    with the same operations whatever lanes share its call, so the poses are the same bits
    on any number of threads."""
    b = insts[0].binding
    st = steps(b, plan)
    m = len(insts)
    buf = None
    if scratch is not None:
        buf = caller_bytes(scratch, name="scratch")
        if buf.size < b.scratch_bytes * m:
            raise CapacityError(f"{buf.size} bytes of scratch for {b.scratch_bytes * m}", size=b.scratch_bytes * m)
    if m == 1:
        failed = _lanes(b, st, insts, insts[0].scalars[None], locals_, buf, True)
    else:
        parts = {}

        def span(lo, hi):
            mine = insts[lo:hi]
            S = np.stack(list(map(_scalars, mine)), out=_mine(st, "S", hi - lo))
            parts[lo] = _lanes(b, st, mine, S, locals_[lo:hi],
                               None if buf is None else buf[lo * b.scratch_bytes:hi * b.scratch_bytes], False)
        threads.run_spans(span, 0, m, SPAN_LANES)
        failed = [k for lo in sorted(parts) for k in parts[lo]]
    if failed:
        raise FormatError(f"learned nodes {sorted(set(failed))}: their model gave a value past the float range", 0)


_scalars = attrgetter("scalars")


def _lanes(b, st: Steps, insts: list, S: np.ndarray, locals_: np.ndarray, buf, own: bool) -> list:
    """Some lanes evaluated, their scalars S (the instance's own when `own`); the learned
    nodes that failed."""
    slots, rest = _slots(st, buf, S.shape[0])
    e = _Lanes(insts, S, slots, locals_, _transfer(b, st, rest) if b.maps else None, own)
    for step in st.nodes:
        step(e)
    if not st.program.writes:
        kernels.write_out(S, st.last, slots, st.output, st.rows, locals_)
    return e.failed


def _mine(st: Steps, what: str, m: int) -> np.ndarray:
    """This thread's slots (filled with the rest pose once) or lanes' scalars, for m lanes."""
    mine = st.local.__dict__.setdefault(what, {})
    got = mine.get(m)
    if got is None:
        if len(mine) > 8:
            mine.clear()
        if what == "S":
            got = mine[m] = np.empty((m, st.size))
        else:
            got = mine[m] = np.empty((st.count, 10, m, st.rows.size), dtype=np.float32)
            got[...] = st.rests[:, None, :]
    return got


def _slots(st: Steps, buf, m: int) -> np.ndarray:
    """The slots, (slots + 1, 10, lanes, bones), the last the rest pose: this thread's own, or
    the caller's scratch bytes (checked big enough) filled with the rest pose (so a lane a
    node does not weigh still reads finite values); and the scratch's bytes past them (None
    for this thread's own)."""
    if buf is None:
        return _mine(st, "slots", m), None
    nb = st.rows.size
    used = 40 * st.count * m * nb
    slots = buf[:used].view(np.float32).reshape(st.count, 10, m, nb)
    slots[...] = st.rests[:, None, :]
    return slots, buf[used:]


def _transfer(b, st, rest):
    """A mapped clip's working memory (binding.transfer_bytes): a source pose as the clip
    kernel writes it (10, bones), the same bone by bone, a target pose and the map's
    scratch, as raw bytes each mapped clip's step views for its skeletons; from the
    scratch's bytes past the slots, or this thread's own."""
    if rest is None:
        rest = st.local.__dict__.get("transfer")
        if rest is None:
            rest = st.local.transfer = np.empty(b.transfer_bytes, dtype=np.uint8)
    return rest


def _clip_transfer(b, st, k, node):
    """A retargeted clip: each weighing lane's clip sampled on the map's source skeleton,
    carried into the graph's by the map's own kernel (as maniRetargetMap_RetargetPose
    carries it), then the rows evaluated written; the whole pose is carried under a plan.
    An additive clip's difference is carried as maniBuildRetargetedClip bakes one: added to
    the source's rest, carried, and taken as the difference from the rest carried (the
    identity difference where that is not finite, a rest scale of 0)."""
    r = b.runs[k]
    clip, (m, src) = r.clip, r.map
    ns, nt = src.bone_count, b.skeleton.bone_count
    where = np.full(ns, -1, dtype=np.intp)
    where[r.tracked] = np.arange(r.tracked.size)
    dense = bool(np.array_equal(where, np.arange(r.samples_soa.shape[2])))
    head = (r.base, r.samples_soa, r.dots, 0, float(clip.sample_rate), float(clip.duration),
            int(clip.sample_count - 1), where, dense, jit.array(r.fill_soa, np.float32))
    tail = (src.parents, b.skeleton.parents, m._ints, m._reals)
    rows, whole = st.rows, st.rows.size == nt
    a, c = 40 * ns, 80 * ns
    additive = r.additive
    if additive:        # a difference is added to the source's rest, carried, and taken from the rest carried
        rest = np.ascontiguousarray(src.rests, dtype=np.float32)
        carried_rest = m.retarget_samples(src, b.skeleton, rest[None])[0]
        one, no_masks = np.ones(1), np.empty((0, ns))   # one difference at weight 1
        none = np.tile(IDENTITY, (nt, 1)).astype(np.float32)

    def step(e):
        mem = e.transfer
        sampled = mem[:a].view(np.float32).reshape(1, 10, 1, ns)
        local = mem[a:c].view(np.float32).reshape(ns, 10)
        out = mem[c:c + 40 * nt].view(np.float32).reshape(nt, 10)
        work = mem[c + 40 * nt:c + 40 * nt + m.scratch_size].view(np.float64).reshape(ns + nt, 4)
        S = e.S
        for lane in range(S.shape[0]):
            if not S[lane, r.base] > 0.0:
                continue
            kernels.sample_clip(S[lane:lane + 1], *head, sampled, 0)
            local[...] = sampled[0, :, 0, :].T
            if additive:
                full = mem[:a].view(np.float32).reshape(ns, 10)     # the sample's memory, read
                full[...] = rest
                add_differences(full, local[None], one, no_masks)
                retarget_locals(*tail, full, out, work)
                if pose_difference(out, carried_rest, out) >= 0:     # not finite: no difference
                    out[...] = none
            else:
                retarget_locals(*tail, local, out, work)
            if whole:
                e.slots[node.slot, :, lane, :] = out.T
            else:
                np.take(out.T, rows, axis=1, out=e.slots[node.slot, :, lane, :], mode="clip")
    return step


# ---- each kind's step --------------------------------------------------------------------------------------
def _clip(b, st, k, node):
    r = b.runs[k]
    if r.map is not None:
        return _clip_transfer(b, st, k, node)
    clip = r.clip
    if r.whole:         # the binding's side-by-side samples, every bone tracked: an op
        return st.program.add(CLIP, r.base, node.slot, r.offset, int(clip.sample_count - 1),
                              reals=(float(clip.sample_rate), float(clip.duration)))
    where = np.full(b.skeleton.bone_count, -1, dtype=np.intp)     # its own, the bones it does not track filled
    where[r.tracked] = np.arange(r.tracked.size)
    samples, dots, offset = r.samples_soa, r.dots, 0
    rows, fill = where[st.rows], np.ascontiguousarray(r.fill_soa[:, st.rows])
    dense = bool(np.array_equal(rows, np.arange(samples.shape[2])))
    args = (r.base, samples, dots, offset, float(clip.sample_rate), float(clip.duration),
            int(clip.sample_count - 1), rows, dense, jit.array(fill, np.float32))
    return lambda e: kernels.sample_clip(e.S, *args, e.slots, node.slot)


def _blend(b, st, k, node):
    return _mix(b, st, k, node, node.inputs, b.layout.nodes[k] + 2,
                node.kind == NodeKind.blend and node.data.direct)


def _machine(b, st, k, node):
    m = b.runs[k]
    return _mix(b, st, k, node, m.states, m.at["shares"], False)


def _mix(b, st, k, node, inputs, at, direct):
    lo, hi = st.program.inputs([b.layout.nodes[i] for i in inputs], [b.graph.nodes[i].slot for i in inputs])
    return st.program.add(MIX, b.layout.nodes[k], node.slot, at, lo, hi, int(direct))


def _input_slots(b, node):
    return [b.graph.nodes[i].slot for i in node.inputs]


def _mask(b, st, k, node):
    _, most, base_most, _, m, rest = b.runs[k]
    over, under = st.program.bone_weights(m[st.rows]), st.program.bone_weights(rest[st.rows])
    x, y = _input_slots(b, node)
    return st.program.add(MASK, b.layout.nodes[k], node.slot, x, y, over, under, reals=(most, base_most))


def _one_shot(b, st, k, node):
    _, most, _, _, m, _ = b.runs[k]
    x, y = _input_slots(b, node)
    return st.program.add(ONE_SHOT, b.layout.nodes[k], node.slot, x, y, st.program.bone_weights(m[st.rows]),
                          reals=(most,))


def _additive(b, st, k, node):
    x, y = _input_slots(b, node)
    return st.program.add(ADDITIVE, b.layout.nodes[k], node.slot, b.layout.nodes[node.inputs[1]], x, y)


def _select(b, st, k, node):
    lo, hi = st.program.inputs([b.layout.nodes[i] for i in node.inputs], _input_slots(b, node))
    return st.program.add(SELECT, b.layout.nodes[k], node.slot, lo, hi)


def _pass_through(b, st, k, node):
    """A time scale or seek: its input's pose, as it is (their work is the update's)."""
    return st.program.add(COPY, b.layout.nodes[k], node.slot, b.graph.nodes[node.inputs[0]].slot)


def _pose_parameter(b, st, k, node):
    p = node.data.parameter
    at = b.parameter_base + 4 * p
    index = b.layout.pose_parameters[p]
    base = b.layout.nodes[k]

    def step(e):
        S = e.S
        for lane, inst in enumerate(e.insts):
            if S[lane, base] > 0.0:
                e.slots[node.slot, :, lane] = inst.poses[index][st.rows].T if S[lane, at] != 0.0 else st.rests
    return step


def _inertialize(b, st, k, node):
    d = node.data
    base = b.layout.nodes[k]
    at = base + 2
    first = b.layout.inertial_poses[k]
    src = b.graph.nodes[node.inputs[0]].slot
    if d.method == InertializeMethod.dead_blending:
        def run(S, inst, e, lane):
            kernels.dead_blending(S, at, d.half_life_scale, d.half_life_min, d.half_life_max,
                                  inst.poses, first, st.rows, e.slots, src, lane, node.slot)
    else:
        def run(S, inst, e, lane):
            kernels.inertialization(S, at, inst.poses, first, st.rows, e.slots, src, lane, node.slot)

    def step(e):
        S = e.S
        for lane, inst in enumerate(e.insts):
            if S[lane, base] > 0.0:
                run(S[lane], inst, e, lane)
                if not e.own:           # what it keeps, into the instance's own scalars
                    inst.scalars[at:at + 10] = S[lane, at:at + 10]
    return step


def _matching(b, st, k, node):
    """A motion matching node: each weighing lane's entry's clip sampled at its playhead
    (Clip.sample), mirrored through the database's map for a mirrored entry; the rest pose
    before its first search has found a frame."""
    r = b.runs[k]
    base = b.layout.nodes[k]
    sk = b.skeleton
    local = threading.local()           # each thread's two poses: instances evaluate on any thread

    def step(e):
        S = e.S
        poses = getattr(local, "poses", None)
        if poses is None:
            poses = local.poses = (Pose(sk), Pose(sk))
        pose, mirrored = poses
        for lane in range(S.shape[0]):
            if not S[lane, base] > 0.0:
                continue
            if not S[lane, base + 2]:
                e.slots[node.slot, :, lane] = st.rests
                continue
            entry = int(S[lane, base + 3])
            r.plays[entry].clip.sample(sk, float(S[lane, base + 4]), pose)
            out = pose
            if r.mirrored[entry]:
                r.mirror.mirror_pose(sk, pose, mirrored)
                out = mirrored
            e.slots[node.slot, :, lane] = out.locals[st.rows].T
    return step


def _learned(b, st, k, node):
    """A learned node: each weighing lane's cached pose when its cached state is its state
    (byte for byte), else its model decompressed at its state; the rest pose before its first
    state, and for a lane whose model fails (marked failed, in the instance's own scalars)."""
    r = b.runs[k]
    base, n = b.layout.nodes[k], r.model.state_count
    sk = b.skeleton
    local = threading.local()           # each thread's working memory

    def step(e):
        S = e.S
        for lane, inst in enumerate(e.insts):
            if not S[lane, base] > 0.0:
                continue
            if not S[lane, r.has]:
                e.slots[node.slot, :, lane] = st.rests
                continue
            state = S[lane, r.state:r.state + n]
            if S[lane, r.cached] and state.tobytes() == S[lane, r.cache_state:r.cache_state + n].tobytes():
                e.slots[node.slot, :, lane] = inst.poses[r.pose][st.rows].T
                continue
            w = learned_work(r, sk, local)
            w.state[:] = state
            try:
                r.model.decompress(w.state, w.out, w.scratch)
            except FormatError:
                e.slots[node.slot, :, lane] = st.rests
                S[lane, r.failed] = inst.scalars[r.failed] = 1.0
                e.failed.append(k)
                continue
            e.slots[node.slot, :, lane] = w.out.pose.locals[st.rows].T
    return step


def _mirror(b, st, k, node):
    """The map's table on the rows evaluated: each row's partner as a row."""
    m = b.mirror_map
    table = np.array(m._bones[st.rows], dtype=np.int64)
    table[:, 0] = st.where[table[:, 0]]
    turns = np.ascontiguousarray(m._turns[st.rows], dtype=np.float64)
    src = b.graph.nodes[node.inputs[0]].slot
    base, axis = b.layout.nodes[k], int(m._axis)
    return lambda e: solvers.mirror_node(e.S, base, e.slots, src, node.slot, table, turns, axis)


def _at(b, parameter) -> int:
    return -1 if parameter == GRAPH_NONE else b.parameter_base + 4 * parameter


def _solver(b, st, k, node):
    """An IK node: its input passed on where the plan holds none of the bones it writes
    (graph/subset.py's solver_bones), else solved."""
    d = node.data
    kind = node.kind
    src = b.graph.nodes[node.inputs[0]].slot
    base = b.layout.nodes[k]
    written, end = solver_bones(b.skeleton, node)
    if not np.isin(written, st.rows).any():
        return st.program.add(COPY, base, node.slot, src)
    path = path_to(b.skeleton.parents, end)
    parents = b.skeleton.parents
    ints = lambda *v: np.array(v, dtype=np.int64)      # noqa: E731
    if kind == NodeKind.two_bone_ik:
        constants = np.array([*d.goal, *d.pole, *d.hinge, d.twist, d.soften, d.weight])
        head = (path, st.where, parents, constants, ints(_at(b, d.goal_parameter), _at(b, d.pole_parameter)),
                ints(0, 3), ints(3, 3), _at(b, d.weight_parameter), 11)
        bones = ints(d.start, d.middle, d.end)
        return lambda e: solvers.two_bone_node(e.S, base, e.slots, src, node.slot, *head, bones)
    if kind == NodeKind.aim_ik:
        constants = np.array([*d.goal, *d.forward, *d.up, *d.pole, *d.offset, d.twist,
                              min(d.cone, math.pi), d.weight])
        head = (path, st.where, parents, constants, ints(_at(b, d.goal_parameter), _at(b, d.pole_parameter)),
                ints(0, 9), ints(3, 3), _at(b, d.weight_parameter), 17)
        bones, shares = ints(*d.bones), np.array(d.shares, dtype=np.float64)
        return lambda e: solvers.aim_node(e.S, base, e.slots, src, node.slot, *head, bones, shares)
    size = math.sqrt(sum(v * v for v in d.rotation))
    constants = np.array([*d.goal, *d.pole, *(v / size for v in d.rotation), d.rotation_weight,
                          d.tolerance, min(d.step, math.pi), d.weight])
    rotation_at = _at(b, d.rotation_parameter)
    head = (path, st.where, parents, constants,
            ints(_at(b, d.goal_parameter), _at(b, d.pole_parameter), rotation_at), ints(0, 3, 6),
            ints(3, 3, 4), _at(b, d.weight_parameter), 13)
    kinds, bones, data = chain_limits(d)
    tail = (b.skeleton.rests, d.root, d.end, d.iterations, rotation_at, kinds, bones, data,
            CCD if kind == NodeKind.ccd_ik else FABRIK)
    return lambda e: solvers.chain_node(e.S, base, e.slots, src, node.slot, *head, *tail)


def _springs(b, st, k, node):
    """A springs node: its input passed on where the plan holds none of its joints (its set
    not stepped), else stepped and applied."""
    d = node.data
    s = b.spring_sets[d.slot]
    src = b.graph.nodes[node.inputs[0]].slot
    base = b.layout.nodes[k]
    if not np.isin(written_bones(s), st.rows).any():
        return st.program.add(COPY, base, node.slot, src)
    ats = np.array([_at(b, d.position_parameter), _at(b, d.rotation_parameter),
                    _at(b, d.force_parameter)], dtype=np.int64)
    rows = np.asarray(st.rows, dtype=np.int64)
    sk = b.skeleton
    first, last = base + 2, base + 3 + spring_values(s)
    args = (rows, b.rests, sk.parents, base + 3, ats, np.array(d.force, dtype=np.float64),
            float(s.step_rate), SPRING_MAX_STEPS, s.springs, s.joint_bones, s.joint_values,
            s.limit_kinds, s.limit_values, s.collider_kinds, s.collider_bones, s.collider_values,
            s.links, int(s.collider_reach))

    def step(e):
        solvers.springs_node(e.S, base, e.slots, src, node.slot, *args)
        if not e.own:           # what it keeps, into the instances' own scalars
            for lane, inst in enumerate(e.insts):
                inst.scalars[first:last] = e.S[lane, first:last]
    return step


def _body(b, st, k, node):
    """A body IK node: its input passed on where the plan holds none of its part; else, lane
    by lane, the lane's pose (the plan's bones; the rest pose elsewhere, which the part's
    root paths never read) solved as ik.body's front door solves it, the effectors' goals
    and rotations from their parameters."""
    p = b.bodies[k]
    d = node.data
    src = b.graph.nodes[node.inputs[0]].slot
    base = b.layout.nodes[k]
    if not np.isin(p.part, st.rows).any():
        return st.program.add(COPY, base, node.slot, src)
    goal_at = [(i, _at(b, e[1])) for i, e in enumerate(d.effectors) if e[1] != GRAPH_NONE]
    rot_at = [(i, _at(b, e[2])) for i, e in enumerate(d.effectors) if e[2] != GRAPH_NONE]
    sk, rows = b.skeleton, st.rows
    floats = body_scratch(p) // 8
    sdls = d.solver == BodySolver.sdls

    def step(e):
        goals, rots = p.goals.copy(), p.rots.copy()
        work = b.rests.copy()
        scratch = np.zeros(floats)
        for lane in range(e.S.shape[0]):
            if not e.S[lane, base] > 0.0:
                continue
            for i, at in goal_at:
                goals[i] = e.S[lane, at:at + 3]
            for i, at in rot_at:
                q = e.S[lane, at:at + 4]
                rots[i] = q / np.sqrt((q * q).sum())
            work[rows] = e.slots[src, :, lane, :].T
            solve_packed(p, work, sk, goals, rots, scratch, sdls)
            e.slots[node.slot, :, lane, :] = work[rows].T
    return step


_MAKE = {NodeKind.clip: _clip, NodeKind.blend: _blend, NodeKind.blend_1d: _blend,
         NodeKind.blend_2d_banded: _blend, NodeKind.blend_2d_triangulated: _blend,
         NodeKind.mask: _mask, NodeKind.additive: _additive, NodeKind.select: _select,
         NodeKind.time_scale: _pass_through, NodeKind.seek: _pass_through, NodeKind.state_machine: _machine,
         NodeKind.one_shot: _one_shot, NodeKind.inertialize: _inertialize,
         NodeKind.pose_parameter: _pose_parameter, NodeKind.mirror: _mirror,
         NodeKind.two_bone_ik: _solver, NodeKind.aim_ik: _solver, NodeKind.ccd_ik: _solver,
         NodeKind.fabrik_ik: _solver, NodeKind.springs: _springs, NodeKind.body_ik: _body,
         NodeKind.motion_matching: _matching, NodeKind.learned_motion_matching: _learned}

_KERNELS = {NodeKind.clip: kernels.sample_clip, NodeKind.blend: kernels.mix,
            NodeKind.blend_1d: kernels.mix, NodeKind.blend_2d_banded: kernels.mix,
            NodeKind.blend_2d_triangulated: kernels.mix, NodeKind.mask: kernels.mask,
            NodeKind.additive: kernels.additive, NodeKind.select: kernels.select,
            NodeKind.time_scale: kernels.copy_input, NodeKind.seek: kernels.copy_input,
            NodeKind.state_machine: kernels.mix, NodeKind.one_shot: kernels.one_shot,
            NodeKind.mirror: solvers.mirror_node,
            NodeKind.two_bone_ik: solvers.two_bone_node, NodeKind.aim_ik: solvers.aim_node,
            NodeKind.ccd_ik: solvers.chain_node, NodeKind.fabrik_ik: solvers.chain_node,
            NodeKind.springs: solvers.springs_node}


def evaluation_kernels(graph) -> list:
    """The kernels an evaluation of `graph` calls, each of one declared signature: the plain
    nodes' program first, then the nodes' own in node order, each once, the output's last
    (for instance.compile_graph_aside)."""
    return [program.run, *dict.fromkeys(k for k in map(_kernel_of, graph.nodes) if k is not None),
            kernels.write_out]


def _kernel_of(node):
    """The kernel of one declared signature that evaluates the node (None: there is none)."""
    if node.kind == NodeKind.inertialize:
        dead = node.data.method == InertializeMethod.dead_blending
        return kernels.dead_blending if dead else kernels.inertialization
    return _KERNELS.get(node.kind)

