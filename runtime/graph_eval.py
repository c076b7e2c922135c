"""maniGraphInstance_Evaluate and EvaluateSubset, for one instance or many of one binding.

Each node of weight above 0, in order, writes its slot: a clip sampled at its playhead; a
blend, a space or a machine blending its weighted inputs by the shares the update kept; a
mask or a one-shot blending base and overlay bone by bone; an additive layer adding its
difference; a select, time scale or seek passing its input on; an inertialize node putting
its decaying offset (or its dead blend) onto its input; a pose parameter's pose. Then the
output's slot is the pose. An instance never updated gives the rest pose.

Instances are lanes: every node runs once for all the lanes that weigh it (graph_kernels
works on component-major (10, lanes, bones) poses), so a hundred instances cost little more
numpy calls than one, and one instance is simply a batch of one. The clip nodes of every
lane are sampled first, in one call, from the binding's side-by-side samples. Under a
subset plan the bones are the plan's only; each bone's arithmetic being the same, the
planned bones come out bit for bit as a full evaluation writes them, and an inertialize node
keeps and updates its poses on those bones only.
"""
from __future__ import annotations

import threading

import numpy as np

from . import graph_kernels as K
from .errors import CapacityError, InvalidError
from .graph_source import Curve, InertializeMethod, NodeKind
from .graph_update import curve
from .pose import Pose, PoseBatch

_local = threading.local()
SEGMENTS_IN_NUMPY = 32          # clip rows an evaluation finds in numpy rather than one by one
_COMPONENTS = np.arange(10)[None, :, None]


class _Lanes:
    """One evaluation's instances, their scalars, the slots and the bones it computes."""

    __slots__ = ("insts", "b", "Ss", "slots", "plan", "rows", "m", "rests", "sampled", "at")

    def __init__(self, insts, slots, plan):
        self.insts = insts
        self.b = insts[0].binding
        self.Ss = [inst.S.tolist() for inst in insts]
        self.slots = slots
        self.plan = plan
        self.rows = None if plan is None else plan.bones
        self.m = len(insts)
        self.rests = self.b.rests_soa if plan is None else self.b.rests_soa[:, plan.bones]
        self.sampled = None
        self.at = {}

    def get(self, slot: int, R) -> np.ndarray:
        return self.slots[slot] if R is None else self.slots[slot][:, R]

    def put(self, slot: int, R, value) -> None:
        if R is None:
            self.slots[slot] = value
        else:
            self.slots[slot][:, R] = value

    def column(self, array: np.ndarray) -> np.ndarray:
        """A per-bone array on the bones evaluated."""
        return array if self.rows is None else array[..., self.rows]


def evaluate(inst, out: Pose, scratch=None, plan=None) -> None:
    """One instance's pose (all bones, or the plan's) into `out`; the model left stale."""
    if not isinstance(out, Pose) or not out.of(inst.binding.skeleton):
        raise InvalidError("not a pose of the graph's skeleton")
    evaluate_lanes([inst], [out], scratch, plan)


def evaluate_lanes(insts: list, outs, scratch=None, plan=None) -> None:
    """Instances of one binding evaluated together: lane k's pose into outs[k] (a list of
    poses) or into row k of a PoseBatch."""
    b = insts[0].binding
    nodes = b.graph.nodes
    bases = b.layout.nodes
    nb = b.skeleton.bone_count if plan is None else plan.bones.size
    slots = _slots(b, scratch, len(insts), nb, plan)
    e = _Lanes(insts, slots, plan)
    m = e.m
    Ss = e.Ss
    _sample_whole(e)
    for k, node in enumerate(nodes):
        base = bases[k]
        live = [lane for lane in range(m) if Ss[lane][base] > 0.0]
        if live:
            _EVALS[node.kind](e, k, node, base, live, None if len(live) == m else np.array(live))
    out_slot = nodes[-1].slot
    last = bases[-1]
    rows = slice(None) if plan is None else plan.bones
    result = np.moveaxis(slots[out_slot], 0, -1)
    rests = e.rests.T
    if isinstance(outs, PoseBatch):
        outs.locals[:, rows] = result
        for lane in range(m):
            if not Ss[lane][last] > 0.0:
                outs.locals[lane, rows] = rests
        outs.mark_kind(False)
        return
    for lane, out in enumerate(outs):
        out.locals[rows] = result[lane] if Ss[lane][last] > 0.0 else rests
        out.mark_kind(False)


def _slots(b, scratch, m: int, nb: int, plan) -> np.ndarray:
    """The slots, (slots, 10, lanes, bones): the caller's scratch, filled with the rest pose
    (so a lane a node does not weigh still reads finite values), or this thread's own,
    filled once."""
    count = b.graph.slot_count
    rests = (b.rests_soa if plan is None else b.rests_soa[:, plan.bones])[:, None, :]
    if scratch is None:
        cache = getattr(_local, "slots", None)
        if cache is None:
            cache = _local.slots = {}
        key = (id(b), m, nb, None if plan is None else id(plan))
        slots = cache.get(key)
        if slots is None or slots.shape != (count, 10, m, nb):
            if len(cache) > 64:
                cache.clear()
            slots = cache[key] = np.empty((count, 10, m, nb), dtype=np.float32)
            slots[...] = rests
        return slots
    try:
        buf = np.frombuffer(scratch, dtype=np.uint8)
    except (TypeError, ValueError) as exc:
        raise InvalidError(f"scratch not a writable buffer: {exc}") from None
    if not buf.flags.writeable:
        raise InvalidError("scratch is read-only")
    if buf.ctypes.data % 8:
        raise InvalidError("scratch not aligned to 8")
    need = b.scratch_bytes * m
    if buf.size < need:
        raise CapacityError(f"{buf.size} bytes of scratch for {need}", size=need)
    slots = buf[:40 * count * m * nb].view(np.float32).reshape(count, 10, m, nb)
    slots[...] = rests
    return slots


# ---- per kind -------------------------------------------------------------------------------------------
def _sample_whole(e: _Lanes) -> None:
    """Every weighted clip node of every lane whose clip tracks every bone, sampled in one
    kernel call from the binding's side-by-side samples; each node copies its rows in turn."""
    b = e.b
    times, runs = [], []
    for r in b.whole_runs:
        base = r.base
        lanes = [S[base + 2] for S in e.Ss if S[base] > 0.0]
        if lanes:
            e.at[r.node] = len(times)
            times += lanes
            runs += [r.index] * len(lanes)
    if not times:
        return
    if len(times) < SEGMENTS_IN_NUMPY:       # a few: clip.segment itself is quicker
        clip_runs = b.clip_runs
        got = [clip_runs[r].clip.segment(t) for r, t in zip(runs, times)]
        offsets = [clip_runs[r].offset for r in runs]
        i = np.array([g[0] + o for g, o in zip(got, offsets)], dtype=np.intp)
        j = np.array([g[1] + o for g, o in zip(got, offsets)], dtype=np.intp)
        f = [g[2] for g in got]
    else:                                   # many: the same arithmetic over arrays
        runs = np.array(runs, dtype=np.intp)
        i, j, f = K.segments(np.array(times), b.run_rate[runs], b.run_duration[runs], b.run_last[runs])
        offset = b.run_offset[runs]
        i += offset
        j += offset
    if e.plan is None:
        a, c = np.take(b.all_samples, i, axis=1), np.take(b.all_samples, j, axis=1)
        dots = np.take(b.all_dots, i, axis=0)
    else:
        bones = e.plan.bones[None, :]
        a, c, dots = (b.all_samples[:, i[:, None], bones], b.all_samples[:, j[:, None], bones],
                      b.all_dots[i[:, None], bones])
    e.sampled = K.sample(a, c, dots, K.factors(f))


def _clip(e: _Lanes, k, node, base, live, R):
    r = e.b.runs[k]
    if r.whole:
        start = e.at[k]
        e.put(node.slot, R, e.sampled[:, start:start + len(live)])
        return
    segments = [r.clip.segment(e.Ss[lane][base + 2]) for lane in live]
    fac = K.factors([s[2] for s in segments])
    ij = np.array([s[:2] for s in segments], dtype=np.intp)
    if e.plan is None:
        src, dst, fill = None, r.tracked, r.fill_soa
        value = K.sample(r.samples_soa[:, ij[:, 0]], r.samples_soa[:, ij[:, 1]], r.dots[ij[:, 0]], fac)
    else:
        src, dst, fill = e.plan.clip_rows(r)
        rows = src[None, :]
        value = K.sample(r.samples_soa[:, ij[:, 0, None], rows], r.samples_soa[:, ij[:, 1, None], rows],
                         r.dots[ij[:, 0, None], rows], fac)
    full = np.empty((10, len(live), fill.shape[1]), dtype=np.float32)
    full[...] = fill[:, None, :]
    full[:, :, dst] = value
    e.put(node.slot, R, full)


def _mix(e: _Lanes, node, live, R, inputs, offset: int, direct: bool = False):
    """Weighted inputs blended by the shares at S[offset + j] of each lane (a direct blend's
    rest pose taking what they leave below 1). A lane on one input alone copies it and a
    lane on none gives the rest pose, in a batch as alone, so both agree."""
    bases = e.b.layout.nodes
    nodes = e.b.graph.nodes
    rows = []
    for lane in live:
        S = e.Ss[lane]
        rows.append([(S[offset + j], j) for j, i in enumerate(inputs)
                     if S[offset + j] > 0.0 and S[bases[i]] > 0.0])
    copies, mixed = {}, []
    for x, used in enumerate(rows):
        if not used:
            copies.setdefault(None, []).append(x)
        elif len(used) == 1 and used[0][0] == 1.0:
            copies.setdefault(used[0][1], []).append(x)
        else:
            mixed.append(x)
    if not mixed and len(copies) == 1:                  # every lane on the same input
        j = next(iter(copies))
        if j is None:
            e.put(node.slot, R, e.rests[:, None, :])
        else:
            e.put(node.slot, R, e.get(nodes[inputs[j]].slot, R))
        return
    if mixed:
        # each lane's own inputs, in input order, padded with its first at weight 0: the
        # blend reads at most as many inputs as the busiest lane weighs
        width = max(len(rows[x]) for x in mixed) + (1 if direct else 0)
        slot_ids = np.empty((width, len(mixed)), dtype=np.intp)
        weights = np.zeros((width, len(mixed)), dtype=np.float32)
        lanes = np.empty((width, len(mixed)), dtype=np.intp)
        rest = False
        for c, x in enumerate(mixed):
            used = rows[x]
            lanes[:, c] = live[x]
            slot_ids[:, c] = nodes[inputs[used[0][1]]].slot
            for r, (v, j) in enumerate(used):
                slot_ids[r, c] = nodes[inputs[j]].slot
                weights[r, c] = v
            if direct:
                short = 1.0 - sum(v for v, _ in used)
                if short > 0.0:
                    rest = True
                    weights[len(used), c] = short
                    slot_ids[len(used), c] = -1
        values = e.slots[np.maximum(slot_ids, 0)[:, None, :], _COMPONENTS, lanes[:, None, :]]
        if rest:
            w_at, c_at = np.nonzero(slot_ids < 0)
            values[w_at, :, c_at] = e.rests
        value = K.blend(values, weights[:, None, :, None])
        if len(mixed) == len(live):
            e.put(node.slot, R, value)
            return
    out = np.empty((10, len(live)) + e.slots.shape[3:], dtype=np.float32)
    if mixed:
        out[:, mixed] = value
    lane_ids = np.array(live)
    for j, xs in copies.items():
        out[:, xs] = e.rests[:, None, :] if j is None else e.slots[nodes[inputs[j]].slot][:, lane_ids[xs]]
    e.put(node.slot, R, out)


def _blend(e: _Lanes, k, node, base, live, R):
    _mix(e, node, live, R, node.inputs, base + 2, node.kind == NodeKind.blend and node.data.direct)


def _machine(e: _Lanes, k, node, base, live, R):
    m = e.b.runs[k]
    _mix(e, node, live, R, m.states, m.at["shares"])


def _mask(e: _Lanes, k, node, base, live, R):
    _, most, base_most, _, m, rest = e.b.runs[k]
    if most <= 0.0:
        e.put(node.slot, R, e.get(e.b.graph.nodes[node.inputs[0]].slot, R))
    elif base_most <= 0.0:
        e.put(node.slot, R, e.get(e.b.graph.nodes[node.inputs[1]].slot, R))
    else:
        ids = np.array([e.b.graph.nodes[i].slot for i in node.inputs])
        values = e.slots[ids] if R is None else e.slots[ids][:, :, R]
        weights = np.stack([e.column(rest), e.column(m)])[:, None, None, :]
        e.put(node.slot, R, K.blend(values, weights))


def _one_shot(e: _Lanes, k, node, base, live, R):
    shot = [e.Ss[lane][base + 8] for lane in live]
    _, most, _, _, m, _ = e.b.runs[k]
    base_slot = e.b.graph.nodes[node.inputs[0]].slot
    playing = [x for x, v in enumerate(shot) if v > 0.0 and most > 0.0]
    if not playing:
        e.put(node.slot, R, e.get(base_slot, R))
        return
    lane_ids = np.array(live)
    lanes = lane_ids[playing]
    over = e.column(m)[None, :] * np.array([shot[x] for x in playing], dtype=np.float32)[:, None]
    ids = np.array([base_slot, e.b.graph.nodes[node.inputs[1]].slot])
    value = K.blend(e.slots[ids][:, :, lanes], np.stack([1.0 - over, over])[:, None])
    if len(playing) == len(live):
        e.put(node.slot, R, value)
        return
    out = e.slots[base_slot][:, lane_ids]
    out[:, playing] = value
    e.put(node.slot, R, out)


def _additive(e: _Lanes, k, node, base, live, R):
    layer = node.inputs[1]
    layer_base = e.b.layout.nodes[layer]
    w = [e.Ss[lane][base + 2] if e.Ss[lane][layer_base] > 0.0 else 0.0 for lane in live]
    slot0 = e.b.graph.nodes[node.inputs[0]].slot
    adding = [x for x, v in enumerate(w) if v > 0.0]
    if not adding:
        e.put(node.slot, R, e.get(slot0, R))
        return
    slot1 = e.b.graph.nodes[layer].slot
    if len(adding) == len(live):
        e.put(node.slot, R, K.add(e.get(slot0, R), e.get(slot1, R), np.array(w, dtype=np.float32)[:, None]))
        return
    lane_ids = np.array(live)
    out = e.slots[slot0][:, lane_ids]
    rows = lane_ids[adding]
    out[:, adding] = K.add(e.slots[slot0][:, rows], e.slots[slot1][:, rows],
                           np.array([w[x] for x in adding], dtype=np.float32)[:, None])
    e.put(node.slot, R, out)


def _select(e: _Lanes, k, node, base, live, R):
    by_input = {}
    for lane in live:
        by_input.setdefault(int(e.Ss[lane][base + 2]), []).append(lane)
    for j, lanes in by_input.items():
        src = e.b.graph.nodes[node.inputs[j]].slot
        if len(lanes) == e.m:
            e.slots[node.slot] = e.slots[src]
        else:
            rows = np.array(lanes)
            e.slots[node.slot][:, rows] = e.slots[src][:, rows]


def _pass(e: _Lanes, k, node, base, live, R):
    e.put(node.slot, R, e.get(e.b.graph.nodes[node.inputs[0]].slot, R))


def _pose_parameter(e: _Lanes, k, node, base, live, R):
    p = node.data.parameter
    at = e.b.parameter_base + 4 * p
    index = e.b.layout.pose_parameters[p]
    rows = slice(None) if e.rows is None else e.rows
    for lane in live:
        pose = e.insts[lane].A[index][rows].T if e.Ss[lane][at] != 0.0 else e.rests
        e.slots[node.slot][:, lane] = pose


def _inertialize(e: _Lanes, k, node, base, live, R):
    for lane in live:
        _inertialize_one(e, k, node, base, lane)


def _inertialize_one(e: _Lanes, k, node, base, lane):
    d = node.data
    inst, S = e.insts[lane], e.Ss[lane]
    at = base + 2
    target = e.slots[e.b.graph.nodes[node.inputs[0]].slot][:, lane:lane + 1]
    first = e.b.layout.inertial_poses[k]
    A = inst.A
    rows = slice(None) if e.rows is None else e.rows

    def read(j):                    # one of the node's poses, component-major, one lane
        return np.ascontiguousarray(A[first + j][rows].T)[:, None, :]

    def write(j, value):
        A[first + j][rows] = value[:, 0].T

    def keep(index, value):
        S[index] = value
        inst.S[index] = value
    if S[at + 1]:                                   # pending: capture what it blends from
        if S[at + 5]:
            last, gap = read(0), S[at + 7]
            if S[at + 6] and gap > 0:
                vel = K.difference(last, read(1)) * np.float32(1.0 / gap)
            else:
                vel = np.zeros_like(last)
            write(2, K.difference(last, target) if d.method == InertializeMethod.inertialization else last)
            write(3, vel)
            keep(at + 8, 1.0)
            keep(at, 1.0)
        keep(at + 1, 0.0)
    if S[at] and S[at + 8]:
        cap, vel = read(2), read(3)
        time, duration = S[at + 2], S[at + 3]
        if d.method == InertializeMethod.inertialization:
            c0, c1 = K.quintic(time, duration)
            value = K.apply(target, cap * np.float32(c0) + vel * np.float32(c1))
        else:
            half = min(max(d.half_life_scale * duration, d.half_life_min), d.half_life_max)
            moved = K.apply(cap, vel * np.float32(K.decayed(time, half)))
            alpha = curve(Curve.smooth, time / duration if duration > 0 else 1.0)
            weights = np.array([1.0 - alpha, alpha], dtype=np.float32)[:, None, None, None]
            value = K.blend(np.stack([moved, target]), weights)
    else:
        value = target
    e.slots[node.slot][:, lane:lane + 1] = value
    # keep this output (and the one before) for a switch to blend from
    if S[at + 4] != S[0]:
        if S[at + 5]:
            A[first + 1][rows] = A[first][rows]
        keep(at + 6, S[at + 5])
        keep(at + 7, S[at + 9])
        keep(at + 5, 1.0)
        keep(at + 4, S[0])
    write(0, value)


_EVALS = {NodeKind.clip: _clip, NodeKind.blend: _blend, NodeKind.blend_1d: _blend,
          NodeKind.blend_2d_banded: _blend, NodeKind.blend_2d_triangulated: _blend,
          NodeKind.mask: _mask, NodeKind.additive: _additive, NodeKind.select: _select,
          NodeKind.time_scale: _pass, NodeKind.seek: _pass, NodeKind.state_machine: _machine,
          NodeKind.one_shot: _one_shot, NodeKind.inertialize: _inertialize,
          NodeKind.pose_parameter: _pose_parameter}
