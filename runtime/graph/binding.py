"""Binding a graph to its assets (maniBindGraph), and what the binding works out once for
every instance of it: each node's clip, ranges and subtrees, in Python lists an update walks.

A binding's bytes (GetBindingSize) record which asset binds each slot, by its place in the
assets' lists; the Python object holds the assets themselves, which must outlive it:

    0   u32 magic b"GBND", u32 slot count, u64 the graph's identity
    16  u32[slots] the asset of each clip, database, model, spring set and map slot, in
        that order, then u32 the mirror map (0 or NO_TRACK)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..clip.clip import LoopPolicy, is_open
from ..core import args
from ..core.errors import InvalidError, ManiError
from .file import Graph, is_open as graph_is_open
from .format import CLIP_ADDITIVE, CLIP_ALL_EVENTS
from .evaluate.kernels import soa
from .layout import Layout, machine_offsets
from .limits import GRAPH_NONE
from .source import ClipLoop, ConditionKind, NodeKind, ParameterType
from .update.driver import STEP_MAKERS
from ..core.limits import NO_TRACK
from ..core.memory import caller_block
from ..mapping.mirror import MirrorMap
from ..mapping.retarget import RetargetMap
from ..mapping.retarget_clip import carried_moves, root_turns
from ..physics.spring import SpringSet
from .springs import spring_values
from .matching import MatchRun, database_fits
from .learned import LearnedRun, learned_values, model_fits
from .solving import body_solve
from ..ik.body.description import pack
from ..pose.skeleton import Skeleton
from ..core.transform import IDENTITY

BINDING_MAGIC = 0x444E4247          # "GBND"
BINDING_HEADER = 16
PASS_ON = (NodeKind.time_scale, NodeKind.seek, NodeKind.inertialize)


@dataclass
class GraphAssets:
    """maniGraphAssets: what a graph's slots bind to, found by identity. Lists may be empty
    (None is an empty list)."""

    skeleton: Skeleton
    clips: list = ()
    retarget_maps: list = ()
    source_skeletons: list = ()
    databases: list = ()
    models: list = ()
    spring_sets: list = ()
    mirror_map: object = None


class ClipRun:
    """A clip node as an update and an evaluation read it."""

    __slots__ = ("node", "base", "slot", "clip", "duration", "repeat", "speed", "sync", "leader",
                 "all_events", "event_times", "event_names", "marker_times", "marker_names",
                 "moves", "samples", "dots", "tracked", "whole", "fill", "additive", "offset",
                 "samples_soa", "fill_soa", "map")


class MachineRun:
    __slots__ = ("node", "base", "at", "states", "entry", "limit", "finals", "transitions",
                 "by_source", "any", "latch_events", "state_clips", "finish",
                 "inertializer")


class TransitionRun:
    __slots__ = ("index", "source", "target", "priority", "interruption", "restart", "fade",
                 "duration", "cooldown", "conditions", "triggers")


class GraphBinding:
    """A graph bound to its assets (maniGraphBinding)."""

    def __init__(self, graph: Graph, assets: GraphAssets, memory=None, size: int | None = None):
        if not graph_is_open(graph):
            raise InvalidError("not an opened graph")
        if not isinstance(assets, GraphAssets):
            raise InvalidError("no assets")
        sk = assets.skeleton
        if not isinstance(sk, Skeleton) or sk.identity != graph.skeleton_identity or \
                sk.bone_count != graph.bone_count:
            raise InvalidError("a skeleton that is not the graph's")
        need = binding_size(graph)
        size = None if size is None else args.count(size, "size")
        buf = None if memory is None else caller_block(memory, size, need, "a binding")
        record = []
        # map slots first (a mapped clip slot binds against its map's source), recorded after
        # the spring sets as the layout above gives
        maps_at = (graph.clip_count + len(graph.database_identities) + len(graph.model_identities)
                   + len(graph.spring_set_identities))
        self.maps, map_record = self._bind_maps(graph, assets, sk, maps_at)
        clips = []
        for k, identity in enumerate(graph.clip_identities):
            additive = bool(graph.clip_flags[k] & CLIP_ADDITIVE)
            m = graph.clip_maps[k]
            of = sk.identity if m == NO_TRACK else self.maps[m][0].source_identity
            place = _find(assets.clips, lambda c: is_open(c) and c.identity == identity
                          and c.skeleton_identity == of and c.is_additive == additive)
            if place is None:
                raise _unbound(f"clip slot {k} ({graph.clip_name(k)}): no clip binds it", len(record))
            clips.append(_listed(assets.clips)[place])
            record.append(place)
        for k, identity in enumerate(graph.database_identities):
            place = _find(assets.databases, lambda d: database_fits(graph, k, d, sk, assets.mirror_map))
            if place is None:
                raise _unbound(f"database slot {k}: no database binds it (its identity, of the "
                               "skeleton, of the slot's clips, taking its nodes' queries)", len(record))
            record.append(place)
        for k, identity in enumerate(graph.model_identities):
            place = _find(assets.models, lambda m: model_fits(graph, k, m, sk))
            if place is None:
                raise _unbound(f"model slot {k}: no learned model binds it (its identity, of the "
                               "skeleton, having its nodes' Projectors and query channels)", len(record))
            record.append(place)
        for k, identity in enumerate(graph.spring_set_identities):
            place = _find(assets.spring_sets, lambda a: getattr(a, "identity", None) == identity
                          and getattr(a, "skeleton_identity", None) == sk.identity)
            if place is None:
                raise _unbound(f"spring set slot {k}: no asset binds it", len(record))
            record.append(place)
        record += map_record
        self.spring_sets = []
        for k, identity in enumerate(graph.spring_set_identities):
            s = _listed(assets.spring_sets)[record[len(clips) + len(graph.database_identities)
                                                   + len(graph.model_identities) + k]]
            if not isinstance(s, SpringSet) or s.bone_count != sk.bone_count:
                raise InvalidError(f"spring set slot {k}: not an opened spring set of the skeleton")
            self.spring_sets.append(s)
        mirror = NO_TRACK
        self.mirror_map = None
        if graph.mirror_identity:
            m = assets.mirror_map
            if not isinstance(m, MirrorMap) or not m.is_open or m.identity != graph.mirror_identity:
                raise _unbound("the graph's mirror map is not among the assets", len(record))
            if m.skeleton_identity != sk.identity or m.bone_count != sk.bone_count:
                raise InvalidError("a mirror map of another skeleton")
            mirror = 0
            self.mirror_map = m
        roots = set()
        for k, c in enumerate(clips):
            if c.has_root_motion:
                bone = c.root_motion_fields[0]
                m = graph.clip_maps[k]
                if m != NO_TRACK:
                    bone = self.maps[m][0].follower(bone)
                    if bone < 0:
                        raise InvalidError(f"clip slot {k}: no bone of the graph's skeleton follows "
                                           "its root motion bone alone")
                roots.add(bone)
        if len(roots) > 1:
            raise InvalidError(f"clips whose root motion names different bones: {sorted(roots)}")
        self.databases = [_listed(assets.databases)[record[len(clips) + k]]
                          for k in range(len(graph.database_identities))]
        at = len(clips) + len(graph.database_identities)
        self.models = [_listed(assets.models)[record[at + k]] for k in range(len(graph.model_identities))]
        self.bodies = {}
        for k, node in enumerate(graph.nodes):
            if node.kind == NodeKind.body_ik:
                try:
                    self.bodies[k] = pack(sk, body_solve(node.data))
                except ManiError:
                    raise InvalidError(f"node {k}: a full-body solve the skeleton refuses") from None
        self.graph = graph
        self.skeleton = sk
        self.assets = assets
        self.clips = clips
        self.root_bone = roots.pop() if roots else None
        if buf is not None:
            head = buf[:BINDING_HEADER]
            head[0:8].view("<u4")[:] = (BINDING_MAGIC, len(record) + 1)
            head[8:16].view("<u8")[0] = graph.identity
            buf[BINDING_HEADER:BINDING_HEADER + 4 * (len(record) + 1)].view("<u4")[:] = record + [mirror]
        self.buffer = buf
        self._compile()

    @staticmethod
    def _bind_maps(graph: Graph, assets, sk: Skeleton, at: int):
        """Each map slot's (map, source skeleton): the map of its identity among the maps,
        made from its source skeleton for the graph's, and that skeleton among the source
        skeletons; and the record's places (the map's, in the maps)."""
        bound, record = [], []
        for k, (identity, source) in enumerate(zip(graph.map_identities, graph.map_source_identities)):
            place = _find(assets.retarget_maps, lambda m: isinstance(m, RetargetMap) and m.is_open
                          and m.identity == identity and m.source_identity == source)
            if place is None:
                raise _unbound(f"map slot {k}: no retargeting map binds it", at + k)
            m = _listed(assets.retarget_maps)[place]
            if m.target_identity != sk.identity or m.target_bone_count != sk.bone_count:
                raise InvalidError(f"map slot {k}: a map made for another skeleton")
            found = _find(assets.source_skeletons, lambda s: isinstance(s, Skeleton)
                          and s.identity == source and s.bone_count == m.source_bone_count)
            if found is None:
                raise _unbound(f"map slot {k}: its map's source skeleton is not among the source "
                               "skeletons", at + k)
            src = _listed(assets.source_skeletons)[found]
            src.check_parents()
            bound.append((m, src))
            record.append(place)
        return bound, record

    # ---- sizes
    @property
    def instance_size(self) -> int:
        return self.instance_bytes

    @property
    def transfer_bytes(self) -> int:
        """The scratch one mapped clip's transfer takes: two poses of the largest source
        skeleton (the sample, then its locals bone by bone), a pose of the graph's and the
        map's scratch (0 without map slots)."""
        if not self.maps:
            return 0
        ns = max(m.source_bone_count for m, _ in self.maps)
        return 80 * ns + 40 * self.skeleton.bone_count + max(m.scratch_size for m, _ in self.maps)

    def _compile(self) -> None:
        g = self.graph
        n = g.bone_count
        self.layout = layout = Layout(g, {k: spring_values(self.spring_sets[node.data.slot])
                                          for k, node in enumerate(g.nodes) if node.kind == NodeKind.springs},
                                      {k: learned_values(self.models[node.data.model])
                                       for k, node in enumerate(g.nodes)
                                       if node.kind == NodeKind.learned_motion_matching})
        self.lo = layout.lo_array.copy()
        self.hi = layout.hi_array.copy()
        self.whole = layout.whole_array
        self.parameter_base = layout.parameters
        self.instance_bytes = instance_size(layout, n)
        self.scratch_bytes = 40 * n * (g.slot_count + 4) + 4 * n * 4 + self.transfer_bytes
        self.subset_bytes = 32 + 4 * n
        nodes = g.nodes
        count = len(nodes)
        # subtrees, as sets of nodes
        below = [0] * count
        for k, node in enumerate(nodes):
            bits = 1 << k
            for i in node.inputs:
                bits |= below[i]
            below[k] = bits
        self.subtree = [[i for i in range(k + 1) if below[k] >> i & 1] for k in range(count)]
        # the inertialize node a machine's or select's switches go to: the nearest above, by
        # the highest reader
        inert = [None] * count
        for k in range(count - 1, -1, -1):
            mine = k if nodes[k].kind == NodeKind.inertialize else inert[k]
            for i in nodes[k].inputs:
                if inert[i] is None:
                    inert[i] = mine
        self.inertializer = inert
        self.initial = self._initial_state()
        self.runs = [None] * count
        self.clip_runs = []
        for k, node in enumerate(nodes):
            base = layout.nodes[k]
            if node.kind == NodeKind.clip:
                run = self._clip_run(k, node, base)
                self.clip_runs.append(run)
                self.hi[base + 2] = run.duration
                self.runs[k] = run
            elif node.kind == NodeKind.state_machine:
                self.runs[k] = self._machine_run(k, node, base)
            elif node.kind == NodeKind.motion_matching:
                self.runs[k] = run = MatchRun(self, k, node)
                run.narrow(self.hi, base)
            elif node.kind == NodeKind.learned_motion_matching:
                self.runs[k] = LearnedRun(self, k, node)
            elif node.kind == NodeKind.blend_2d_banded:
                self.runs[k] = _bands(node.data)
            elif node.kind == NodeKind.blend_2d_triangulated:
                self.runs[k] = _triangles(node.data)
            elif node.kind in (NodeKind.mask, NodeKind.one_shot):
                mask_index = node.data.mask
                if mask_index == GRAPH_NONE:
                    m = np.ones(n, dtype=np.float32)
                else:
                    m = g.masks[mask_index]
                root = float(m[self.root_bone]) if self.root_bone is not None else 1.0
                self.runs[k] = (m, float(m.max()), float(1.0 - m.min()), root,
                                np.ascontiguousarray(m, dtype=np.float32),
                                (1.0 - m).astype(np.float32))
        self.shot_length = {}
        for k, node in enumerate(nodes):
            if node.kind == NodeKind.one_shot:
                shot = node.inputs[1]
                length = 0.0
                for i in self.subtree[shot]:
                    r = self.runs[i]
                    if isinstance(r, ClipRun) and r.speed != 0:
                        length = max(length, r.duration / abs(r.speed))
                self.shot_length[k] = length
        self.reset_ranges = [self._ranges(self.subtree[k]) for k in range(count)]
        self.machines = [r for r in self.runs if isinstance(r, MachineRun)]
        self.rests = self.skeleton.rests.astype(np.float32)
        self.rests_soa = soa(self.rests)
        self.sync_groups = {}
        for r in self.clip_runs:
            if r.sync != GRAPH_NONE:
                self.sync_groups.setdefault(r.sync, []).append(r)
        self.deciders = [(k, nodes[k], STEP_MAKERS.get(nodes[k].kind)) for k in range(count - 1, -1, -1)
                         if nodes[k].kind != NodeKind.clip]
        self._side_by_side()
        self.update_tables = None       # what an update reads (graph/update/driver.py), on first use
        self.evaluation = None          # what a full evaluation runs (graph/evaluate/eval.py), on first use

    def _side_by_side(self) -> None:
        """The samples (and rotation dot products) of every clip tracking every bone, one
        clip after another, so one gather samples all the weighted clip nodes of all the
        instances an evaluation has (each clip once, whatever nodes play it)."""
        offsets, samples, dots, at = {}, [], [], 0
        for r in self.clip_runs:
            if not r.whole:
                r.offset = None
                continue
            key = id(r.clip)
            if key not in offsets:
                offsets[key] = at
                samples.append(r.samples)
                dots.append(r.dots)
                at += r.dots.shape[0]
            r.offset = offsets[key]
        n = self.skeleton.bone_count
        # component-major, as graph_kernels works: (10, samples, bones)
        self.all_samples = soa(np.concatenate(samples)) if samples else np.zeros((10, 0, n), np.float32)
        self.all_dots = np.concatenate(dots) if dots else np.zeros((0, n), np.float32)
        for r in self.clip_runs:
            r.samples_soa = None if r.whole else soa(r.samples)
            r.fill_soa = soa(r.fill)

    def _ranges(self, nodes: list) -> list:
        """S ranges holding the state (past the weights) of the nodes given."""
        L = self.layout
        bounds = L.nodes + [L.size]
        out = []
        for k in nodes:
            a, b = bounds[k] + 2, bounds[k + 1]
            if a < b:
                if out and out[-1][1] == a:
                    out[-1] = (out[-1][0], b)
                else:
                    out.append((a, b))
        return out

    def _initial_state(self) -> np.ndarray:
        g, L = self.graph, self.layout
        s = np.zeros(L.size)
        for k, p in enumerate(g.parameters):
            if p.type != ParameterType.pose:
                s[L.parameters + 4 * k:L.parameters + 4 * k + 4] = p.default
        for k, node in enumerate(g.nodes):
            if node.kind == NodeKind.state_machine:
                d = node.data
                at = machine_offsets(L.nodes[k], d.chain_limit, len(d.transitions), 0, 0)
                s[at["states"]] = d.entry
        return s

    def _clip_run(self, k: int, node, base: int) -> ClipRun:
        d = node.data
        clip = self.clips[d.slot]
        r = ClipRun()
        r.node, r.base, r.slot, r.clip = k, base, d.slot, clip
        r.duration = float(clip.duration)
        r.repeat = d.loop == ClipLoop.repeat or (d.loop == ClipLoop.clip and clip.loop_policy == LoopPolicy.repeat)
        r.speed = d.speed
        r.sync = d.sync
        r.leader = d.leader
        r.all_events = bool(self.graph.clip_flags[d.slot] & CLIP_ALL_EVENTS)
        events = [clip.event(i) for i in range(clip.event_count)]
        r.event_times = [e.time for e in events]
        r.event_names = [e.name for e in events]
        markers = [clip.marker(i) for i in range(clip.marker_count)]
        r.marker_times = [m.time for m in markers]
        r.marker_names = [m.name for m in markers]
        m = self.graph.clip_maps[d.slot]
        r.map = None if m == NO_TRACK else self.maps[m]     # sampled on its source, carried
        of = self.skeleton if r.map is None else r.map[1]
        r.moves = None
        if clip.has_root_motion:
            moves = clip.moves.astype(np.float64)
            if r.map is not None:       # the follower's moves, as a baked retargeted clip's
                mp, src = r.map
                bone = clip.root_motion_fields[0]
                moves = carried_moves(mp, *root_turns(mp, src, self.skeleton, bone, mp.follower(bone)),
                                      moves)
            r.moves = moves.tolist()
        r.samples, dots = clip.decoded(of)      # a compressed clip's, decoded once
        # one more row of dot products, for the last sample (a clip of one sample uses it)
        r.dots = np.vstack([dots, np.ones((1, clip.tracked_bone_count), np.float32)])
        tracked = clip.tracked_bones
        n = of.bone_count
        r.whole = tracked.size == n and r.map is None
        r.tracked = tracked
        r.additive = clip.is_additive
        r.fill = (np.tile(IDENTITY, (n, 1)).astype(np.float32) if clip.is_additive
                  else of.rests.astype(np.float32))
        return r

    def _machine_run(self, k: int, node, base: int) -> MachineRun:
        d = node.data
        m = MachineRun()
        m.node, m.base = k, base
        m.states = list(node.inputs)
        m.entry = d.entry
        m.limit = d.chain_limit
        m.finals = set(d.finals)
        latches = sum(1 for t in d.transitions for c in t.conditions if c.kind == ConditionKind.event)
        m.at = machine_offsets(base, d.chain_limit, len(d.transitions), latches, len(m.states))
        pb = self.parameter_base
        runs, latch = [], 0
        m.latch_events = []
        for index, t in enumerate(d.transitions):
            r = TransitionRun()
            r.index, r.source, r.target, r.priority = index, t.source, t.target, t.priority
            r.interruption, r.restart, r.fade = int(t.interruption), int(t.entry) == 0, int(t.fade)
            r.duration, r.cooldown = t.duration, t.cooldown
            r.conditions, r.triggers = [], []
            for c in t.conditions:
                if c.kind == ConditionKind.parameter:
                    r.conditions.append((0, pb + 4 * c.ref, int(c.op), c.value))
                elif c.kind == ConditionKind.trigger:
                    r.conditions.append((1, pb + 4 * c.ref, 0, 0.0))
                    r.triggers.append(pb + 4 * c.ref)
                elif c.kind == ConditionKind.event:
                    r.conditions.append((2, m.at["latches"] + latch, 0, 0.0))
                    m.latch_events.append((m.at["latches"] + latch, self.graph.event_names[c.ref], t.source))
                    latch += 1
                elif c.kind == ConditionKind.state_time:
                    r.conditions.append((3, m.at["time"], 0, c.value))
                else:
                    r.conditions.append((4, 0, 0, 0.0))
            runs.append(r)
        order = sorted(runs, key=lambda r: (-r.priority, r.index))
        m.transitions = runs
        m.by_source = [[r for r in order if r.source == s] for s in range(len(m.states))]
        m.any = [r for r in order if r.source == GRAPH_NONE]
        m.state_clips = [set(i for i in self.subtree[s] if self.graph.nodes[i].kind == NodeKind.clip)
                         for s in m.states]
        m.finish = [self._finish(s) for s in m.states]
        m.inertializer = self.inertializer[k]
        return m

    def _finish(self, node: int):
        """How to tell a state has finished: ("clip", S index, duration, forward) for a
        clamped clip, ("machine", S index) for a machine, None for anything else."""
        g = self.graph
        while g.nodes[node].kind in PASS_ON:
            node = g.nodes[node].inputs[0]
        kind = g.nodes[node].kind
        base = self.layout.nodes[node]
        if kind == NodeKind.clip:
            d = g.nodes[node].data
            clip = self.clips[d.slot]
            repeat = d.loop == ClipLoop.repeat or (d.loop == ClipLoop.clip and clip.loop_policy == LoopPolicy.repeat)
            return None if repeat else ("clip", base + 2, float(clip.duration), d.speed >= 0)
        if kind == NodeKind.state_machine:
            d = g.nodes[node].data
            return ("machine", machine_offsets(base, d.chain_limit, len(d.transitions), 0, 0)["finished"])
        return None


def _bands(d) -> list:
    """A banded space's points as (y, xs, inputs) per band, bands by increasing y."""
    bands = []
    for i, (x, y) in enumerate(d.points):
        if not bands or bands[-1][0] != y:
            bands.append((y, [], []))
        bands[-1][1].append(x)
        bands[-1][2].append(i)
    return bands


def _triangles(d) -> list:
    """A triangulated space's triangles with what barycentric weights need, binary64."""
    out = []
    P = d.points
    for a, b, c in d.triangles:
        ax, ay = P[a]
        e0x, e0y = P[b][0] - ax, P[b][1] - ay
        e1x, e1y = P[c][0] - ax, P[c][1] - ay
        out.append((a, b, c, ax, ay, e0x, e0y, e1x, e1y, e0x * e1y - e1x * e0y))
    return out




def _listed(items) -> list:
    """An asset list: a list or tuple (None is an empty list)."""
    if items is None:
        return []
    if not isinstance(items, (list, tuple)):
        raise InvalidError(f"an asset list must be a list, not {type(items).__name__}")
    return list(items)


def _unbound(message: str, slot: int) -> InvalidError:
    """A refusal for a slot no asset binds; `.unbound` is the slot (clip slots first, then
    database, model, spring set and map slots, then the mirror map)."""
    exc = InvalidError(message)
    exc.unbound = slot
    return exc


def _find(items, test) -> int | None:
    for k, item in enumerate(_listed(items)):
        if test(item):
            return k
    return None



def binding_size(graph: Graph) -> int:
    """maniGraph_GetBindingSize."""
    slots = (graph.clip_count + len(graph.database_identities) + len(graph.model_identities)
             + len(graph.spring_set_identities) + len(graph.map_identities) + 1)
    return BINDING_HEADER + 8 * ((4 * slots + 7) // 8)


INSTANCE_HEADER = 64


def instance_size(layout: Layout, bones: int) -> int:
    return INSTANCE_HEADER + 8 * layout.size + 40 * bones * layout.pose_count


def bind(graph: Graph, assets: GraphAssets, memory=None, size=None) -> GraphBinding:
    """maniBindGraph."""
    return GraphBinding(graph, assets, memory, size)
