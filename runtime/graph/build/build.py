"""maniBuildGraph: a graph source checked, its subgraphs inlined, its nodes ordered and given
pose slots, and written as the file graph/format.py lays out.

The steps, each refusing before anything is written:

1. The source's lists, then each subgraph's (graph/build/check.py), subgraphs met breadth first:
   the source's nodes keep places 0 to n - 1, the first level of subgraphs' nodes follow in
   order, nested ones after them. A subgraph's parameters take the host's by name (or as
   its `parameters` maps them); its clip slots, sync groups and asset slots join the host's
   by name, new names appended (a clip slot's map is part of what must agree). Then each
   distinct retargeting map the clip slots name gets a map slot, in the order they first
   name it (graph/build/check.py's give_map_slots).
2. Each node (graph/build/nodes.py), in place order; inputs naming a subgraph node read its
   output.
3. The structure: a cycle (Cycle: item the lowest place on it, other its input on it), a
   node the output does not reach (Unreachable: item the lowest such place), then poses
   and differences (Difference: item the node, other the input's position, GRAPH_NONE for
   an output that gives a difference), then the mirror parity (MirrorParity: item a node
   under both a mirrored and an unmirrored path, other the reader reaching it the other way).
4. The order: each node after its inputs, the lowest place first wherever several may go
   next (so a source already in order keeps it, and the output comes last).
5. Pose slots: each node takes the lowest free slot before its inputs' slots are freed,
   and a slot is freed once its last reader has run.

Refusals for the whole source: Count with item 0 and other LIST_NODES for no nodes;
Node with item the given output and other GRAPH_NONE for an output that is no place;
Node with item a subgraph node and other GRAPH_NONE for a subgraph that is not a
GraphSource of the host's skeleton, or whose output is no place of it; Count (LimitError)
for subgraphs nested deeper than MAX_GRAPH_DEPTH (item the subgraph node), more nodes
than MAX_GRAPH_NODES, subgraphs inlined (item the count), or more distinct condition event
names than MAX_GRAPH_EVENTS (item the count); Parameter with item the subgraph node and other
LIST_PARAMETERS << LIST_SHIFT | the parameter (0xFFFFFF for a mapping naming none) for a
parameter the host lacks or has of another type; Clip, Database, Model, SpringSetSlot and
MirrorGraph likewise for a name the host gives another asset.
"""
from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ...core import container, names
from ...core.builder import Builder, enter_build
from ...core.container import FileKind, Section
from ...core.errors import BuildReason, InvalidError, LimitError, ManiError
from .check import Lists, check_lists, give_map_slots, in_subgraph, whole
from ..file import parities
from ..format import (CLIP_SLOT, DATABASE_SLOT, FLAG_DIFFERENCE, FLAG_MIRRORED, FORMAT_MINOR, FORMAT_VERSION,
                      HEADER, MAP_SLOT, NODE, PARAMETER, PARAMETER_BOUNDED, encode, f32_word)
from ..limits import (GRAPH_NONE, LIST_CLIPS, LIST_DATABASES, LIST_MODELS, LIST_NODES,
                      LIST_PARAMETERS, LIST_SHIFT, LIST_SPRING_SETS, LIST_SYNC_GROUPS,
                      MAX_GRAPH_CLIPS, MAX_GRAPH_DATABASES, MAX_GRAPH_DEPTH, MAX_GRAPH_MODELS,
                      MAX_GRAPH_NODES, MAX_GRAPH_SPRING_SETS, MAX_GRAPH_SYNC_GROUPS)
from .nodes import Context, check_node
from ..source import PASS_ON_KINDS, GraphSource, NodeKind, ParameterType, SubgraphNode
from ...pose.skeleton import Skeleton


@dataclass
class _Graph:
    """One graph being inlined: where its nodes start and how its lists map to the host's."""

    source: GraphSource
    base: int
    depth: int
    place: int                      # its subgraph node's place (GRAPH_NONE for the source)
    nodes: list
    parameters: list
    clips: list
    syncs: list
    springs: list = field(default_factory=list)         # its spring set slots -> the host's
    databases: list = field(default_factory=list)       # its database slots -> the host's
    models: list = field(default_factory=list)          # its model slots -> the host's
    subgraphs: dict = field(default_factory=dict)      # local index -> _Graph
    source_parameters: list = field(default_factory=list)   # its own checked parameters


@dataclass
class BuiltNode:
    place: int
    kind: NodeKind
    inputs: list            # file indices
    data: object
    difference: bool = False
    mirrored: bool = False
    slot: int = 0


@dataclass
class Built:
    """A checked, ordered graph, as the file holds it."""

    skeleton: Skeleton
    lists: Lists
    nodes: list
    masks: list
    events: list
    slots: int


def _items(value, place, bit):
    if value is None:
        raise InvalidError("nodes not given", reason=BuildReason.Count, item=place, other=bit)
    try:
        out = list(value)
    except TypeError:
        raise InvalidError("nodes not a list", reason=BuildReason.Count, item=place,
                           other=bit) from None
    if not out:
        raise InvalidError("no nodes", reason=BuildReason.Count, item=place, other=bit)
    return out


def _join(host: list, slots: list, bit: int, reason, place: int) -> list[int]:
    """A subgraph's slots joined to the host's by name (the host's settings kept): where
    each went."""
    where = []
    for k, s in enumerate(slots):
        for j, h in enumerate(host):
            if h.raw == s.raw:
                if (h.identity, h.clips, h.map_identity) != (s.identity, s.clips, s.map_identity):
                    raise InvalidError(f"node {place}: its {s.raw!r} is not the host's",
                                       reason=reason, item=place, other=bit << LIST_SHIFT | k)
                where.append(j)
                break
        else:
            host.append(s)
            where.append(len(host) - 1)
    return where


def _subgraph(node: SubgraphNode, place: int, host: _Graph, top: Lists, skeleton, base: int) -> _Graph:
    sub = node.graph
    if not isinstance(sub, GraphSource) or (sub.skeleton is not None and (
            not isinstance(sub.skeleton, Skeleton) or sub.skeleton.identity != skeleton.identity)):
        raise InvalidError(f"node {place}: not a graph of the host's skeleton",
                           reason=BuildReason.Node, item=place, other=GRAPH_NONE)
    if host.depth + 1 > MAX_GRAPH_DEPTH:
        raise LimitError(f"node {place}: subgraphs nested past MAX_GRAPH_DEPTH",
                         reason=BuildReason.Count, item=place, other=LIST_NODES)
    try:
        lists = check_lists(sub, skeleton)
    except ManiError as exc:
        raise in_subgraph(exc, place) from None
    if lists.mirror_identity not in (0, top.mirror_identity):
        raise InvalidError(f"node {place}: a mirror map that is not the host's",
                           reason=BuildReason.MirrorGraph, item=place)
    # parameters by name
    host_names = {p.raw: k for k, p in enumerate(host.source_parameters)}
    if not isinstance(node.parameters, (Mapping, type(None))):
        raise InvalidError(f"node {place}: parameters is not a mapping of names",
                           reason=BuildReason.Parameter, item=place,
                           other=LIST_PARAMETERS << LIST_SHIFT | 0xFFFFFF)
    mapping = {}
    for key, value in (node.parameters or {}).items():
        k = key.encode() if isinstance(key, str) else key
        v = value.encode() if isinstance(value, str) else value
        if not isinstance(k, bytes) or not isinstance(v, bytes) or \
                k not in {p.raw for p in lists.parameters}:
            raise InvalidError(f"node {place}: a parameter mapping naming no parameter",
                               reason=BuildReason.Parameter, item=place,
                               other=LIST_PARAMETERS << LIST_SHIFT | 0xFFFFFF)
        mapping[k] = v
    parameters = []
    for q, p in enumerate(lists.parameters):
        k = host_names.get(mapping.get(p.raw, p.raw))
        if k is None or top.parameters[host.parameters[k]].type != p.type:
            raise InvalidError(f"node {place}: parameter {p.raw!r} missing from the host or of "
                               "another type", reason=BuildReason.Parameter, item=place,
                               other=LIST_PARAMETERS << LIST_SHIFT | q)
        parameters.append(host.parameters[k])
    clips = _join(top.clips, lists.clips, LIST_CLIPS, BuildReason.Clip, place)
    syncs = []
    for k, raw in enumerate(lists.sync_groups):
        if raw not in top.sync_groups:
            top.sync_groups.append(raw)
        syncs.append(top.sync_groups.index(raw))
    databases = _join(top.databases, lists.databases, LIST_DATABASES, BuildReason.Database, place)
    models = _join(top.models, lists.models, LIST_MODELS, BuildReason.Model, place)
    springs = _join(top.spring_sets, lists.spring_sets, LIST_SPRING_SETS, BuildReason.SpringSetSlot,
                    place)
    g = _Graph(sub, base, host.depth + 1, place, _items(sub.nodes, place, LIST_NODES),
               parameters, clips, syncs, springs, databases, models,
               source_parameters=lists.parameters)
    return g


def _inline(source: GraphSource, skeleton, top: Lists) -> list[_Graph]:
    """Every graph in breadth-first order, each with its places and its lists' mapping."""
    root = _Graph(source, 0, 0, GRAPH_NONE, _items(source.nodes, 0, LIST_NODES),
                  list(range(len(top.parameters))), list(range(len(top.clips))),
                  list(range(len(top.sync_groups))), list(range(len(top.spring_sets))),
                  list(range(len(top.databases))), list(range(len(top.models))),
                  source_parameters=top.parameters)
    graphs, queue = [], deque([root])
    next_place = filed = len(root.nodes)     # places given; nodes the file will hold
    _node_limit(filed)
    while queue:
        g = queue.popleft()
        graphs.append(g)
        for k, node in enumerate(g.nodes):
            if isinstance(node, SubgraphNode):
                sub = _subgraph(node, g.base + k, g, top, skeleton, next_place)
                next_place += len(sub.nodes)
                filed += len(sub.nodes) - 1         # its nodes in place of the subgraph node
                _node_limit(filed)
                g.subgraphs[k] = sub
                queue.append(sub)
    for what, items, bit, limit in (("clip slots", top.clips, LIST_CLIPS, MAX_GRAPH_CLIPS),
                                    ("sync groups", top.sync_groups, LIST_SYNC_GROUPS, MAX_GRAPH_SYNC_GROUPS),
                                    ("databases", top.databases, LIST_DATABASES, MAX_GRAPH_DATABASES),
                                    ("models", top.models, LIST_MODELS, MAX_GRAPH_MODELS),
                                    ("spring sets", top.spring_sets, LIST_SPRING_SETS, MAX_GRAPH_SPRING_SETS)):
        if len(items) > limit:
            raise LimitError(f"{len(items)} {what} past the limit", reason=BuildReason.Count,
                             item=len(items), other=bit)
    top.maps = give_map_slots(top.clips)
    return graphs


def _node_limit(count: int) -> None:
    """The file holds every node but the subgraph nodes, each of which its nodes replace."""
    if count > MAX_GRAPH_NODES:
        raise LimitError(f"{count} nodes past MAX_GRAPH_NODES", reason=BuildReason.Count, item=count,
                         other=LIST_NODES)


def _resolve(g: _Graph, k: int) -> int:
    """The place a reader of node k of graph g reads: a subgraph node's output, followed."""
    while k in g.subgraphs:
        sub = g.subgraphs[k]
        out = whole(sub.source.output)
        if out is None or not 0 <= out < len(sub.nodes):
            raise InvalidError(f"node {sub.place}: its graph's output is no place of it",
                               reason=BuildReason.Node, item=sub.place, other=GRAPH_NONE)
        g, k = sub, out
    return g.base + k


def check(source: GraphSource) -> Built:
    """Every refusal the build makes, in the module's order; the graph as the file holds it."""
    skeleton = source.skeleton
    top = check_lists(source, skeleton)
    graphs = _inline(source, skeleton, top)
    types = [p.type for p in top.parameters]
    masks, events = [], []
    flat = {}               # place -> (kind, input places, data)
    for g in graphs:
        ctx = Context(skeleton, g.parameters, types, g.clips, g.syncs, masks, events,
                      bool(top.mirror_identity), g.springs, g.databases, g.models)
        for k, node in enumerate(g.nodes):
            if k in g.subgraphs:
                continue
            place = g.base + k
            kind, local, data = check_node(node, place, ctx)
            inputs = []
            for position, i in enumerate(local):
                j = whole(i)
                if j is None or not 0 <= j < len(g.nodes):
                    raise InvalidError(f"node {place}: input {i!r} is no place of its graph",
                                       reason=BuildReason.Input, item=place, other=position)
                inputs.append(_resolve(g, j))
            flat[place] = (kind, inputs, data)
    output = whole(source.output)
    root = graphs[0]
    if output is None or not 0 <= output < len(root.nodes):
        given = output & 0xFFFFFFFF if output is not None else GRAPH_NONE
        raise InvalidError("the output is no place of the source", reason=BuildReason.Node,
                           item=given, other=GRAPH_NONE)
    output = _resolve(root, output)
    order = _order(flat, output)
    return _finish(skeleton, top, flat, order, masks, events)


def _order(flat: dict, output: int) -> list[int]:
    """Places in file order: inputs first, the lowest place first where there is a choice;
    refuses cycles and nodes the output does not reach."""
    readers = {p: [] for p in flat}
    waiting = {}
    for p, (_, inputs, _) in flat.items():
        distinct = set(inputs)
        waiting[p] = len(distinct)
        for i in distinct:
            readers[i].append(p)
    ready = [p for p, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        p = heapq.heappop(ready)
        order.append(p)
        for r in readers[p]:
            waiting[r] -= 1
            if waiting[r] == 0:
                heapq.heappush(ready, r)
    if len(order) < len(flat):
        stuck = {p for p in flat if waiting[p] > 0}
        # walk inputs within the stuck nodes from the lowest until a place repeats: a cycle
        p, seen = min(stuck), []
        while p not in seen:
            seen.append(p)
            p = next(i for i in flat[p][1] if i in stuck)
        cycle = seen[seen.index(p):]
        low = min(cycle)
        nxt = cycle[(cycle.index(low) + 1) % len(cycle)]
        raise InvalidError(f"node {low} is on a cycle", reason=BuildReason.Cycle, item=low, other=nxt)
    reached, stack = {output}, [output]
    while stack:
        for i in flat[stack.pop()][1]:
            if i not in reached:
                reached.add(i)
                stack.append(i)
    if len(reached) < len(flat):
        low = min(p for p in flat if p not in reached)
        raise InvalidError(f"node {low} is not reached from the output",
                           reason=BuildReason.Unreachable, item=low)
    return order


def _finish(skeleton, top: Lists, flat: dict, order: list, masks: list, events: list) -> Built:
    index = {p: k for k, p in enumerate(order)}
    nodes = []
    for p in order:
        kind, inputs, data = flat[p]
        nodes.append(BuiltNode(p, kind, [index[i] for i in inputs], data))
    for n in nodes:
        n.difference = _difference(n, nodes, top)
    if nodes[-1].difference:
        raise InvalidError("the output gives a difference", reason=BuildReason.Difference,
                           item=nodes[-1].place, other=GRAPH_NONE)
    marks, both = parities(nodes)
    if both is not None:
        node, reader = (nodes[k].place for k in both)
        raise InvalidError(f"node {node} is under both a mirrored and an unmirrored path",
                           reason=BuildReason.MirrorParity, item=node, other=reader)
    for n, mirrored in zip(nodes, marks):
        n.mirrored = mirrored
    slots = assign_slots([n.inputs for n in nodes])
    for n, s in zip(nodes, slots):
        n.slot = s
    return Built(skeleton, top, nodes, masks, events, max(slots) + 1)


def _difference(n: BuiltNode, nodes: list, top: Lists) -> bool:
    """Whether a node gives a difference; refuses (Difference) inputs of the wrong kind."""
    kinds = [nodes[i].difference for i in n.inputs]

    def refuse(position):
        raise InvalidError(f"node {n.place}: input {position} gives the wrong kind of pose",
                           reason=BuildReason.Difference, item=n.place, other=position)
    if n.kind == NodeKind.clip:
        return bool(top.clips[n.data.slot].flags & 1)
    if n.kind in (NodeKind.pose_parameter, NodeKind.motion_matching,
                  NodeKind.learned_motion_matching):
        return False
    if n.kind == NodeKind.additive:
        if kinds[0]:
            refuse(0)
        if not kinds[1]:
            refuse(1)
        return False
    if n.kind in (NodeKind.inertialize, *PASS_ON_KINDS) and kinds[0]:
        refuse(0)
    for position, d in enumerate(kinds):
        if d != kinds[0]:
            refuse(position)
    return kinds[0]


def assign_slots(inputs: list[list[int]]) -> list[int]:
    """Each node's pose slot: the lowest free one, taken before its inputs' slots are freed
    (so no node writes the slot it reads), a slot freed after its last reader."""
    last = {}
    for k, ins in enumerate(inputs):
        for i in ins:
            last[i] = k
    free, slots, count = [], [], 0
    for k, ins in enumerate(inputs):
        if free:
            s = heapq.heappop(free)
        else:
            s, count = count, count + 1
        slots.append(s)
        for i in set(ins):
            if last[i] == k:
                heapq.heappush(free, slots[i])
    return slots


# ---- writing ----------------------------------------------------------------------------------------
def _parameter_record(p) -> bytes:
    whole_type = p.type in (ParameterType.bool_, ParameterType.trigger, ParameterType.int_)
    if whole_type:
        default = [int(p.default[0]) & 0xFFFFFFFF, 0, 0, 0]
    else:
        default = [f32_word(v) for v in p.default]
    lo = hi = 0
    if p.bounds is not None:
        if whole_type:
            lo, hi = int(p.bounds[0]) & 0xFFFFFFFF, int(p.bounds[1]) & 0xFFFFFFFF
        else:
            lo, hi = f32_word(p.bounds[0]), f32_word(p.bounds[1])
    return PARAMETER.pack(int(p.type), PARAMETER_BOUNDED if p.bounds else 0, *default, lo, hi)


def _name_sections(prefix: bytes, raws: list[bytes]) -> list[Section]:
    return names.sections(prefix, raws, [names.hash_name(r) for r in raws])


def write(b: Built) -> bytes:
    """The file of a checked graph (graph/format.py's layout)."""
    L = b.lists
    n = b.skeleton.bone_count
    types = [p.type for p in L.parameters]
    records, inputs, words = [], [], []
    for node in b.nodes:
        data = encode(node.kind, node.data, types)
        flags = (FLAG_DIFFERENCE if node.difference else 0) | (FLAG_MIRRORED if node.mirrored else 0)
        records.append(NODE.pack(int(node.kind), flags,
                                 node.place, len(inputs), len(node.inputs), len(words), len(data),
                                 node.slot))
        inputs += node.inputs
        words += data
    db_clips = [c for s in L.databases for c in s.clips]
    db_records, first = [], 0
    for s in L.databases:
        db_records.append(DATABASE_SLOT.pack(s.identity, first, len(s.clips)))
        first += len(s.clips)
    header = HEADER.pack(b.skeleton.identity, L.mirror_identity, n, len(b.nodes), len(L.parameters),
                         len(L.clips), len(L.sync_groups), len(L.databases), len(L.models),
                         len(L.spring_sets), len(L.maps), b.slots, len(b.events), len(b.masks))
    masks = np.array(b.masks, dtype="<f4").reshape(len(b.masks), n)
    sections = [
        Section(b"GRPH", 0, header),
        Section(b"PARM", 0, b"".join(_parameter_record(p) for p in L.parameters)),
        *_name_sections(b"P", [p.raw for p in L.parameters]),
        Section(b"CLPS", 0, b"".join(CLIP_SLOT.pack(s.identity, s.map_slot, s.flags, 0, 0)
                                     for s in L.clips)),
        *_name_sections(b"C", [s.raw for s in L.clips]),
        *_name_sections(b"Y", L.sync_groups),
        Section(b"DBSL", 0, b"".join(db_records)),
        Section(b"DBCL", 0, np.array(db_clips, dtype="<u4").tobytes()),
        *_name_sections(b"D", [s.raw for s in L.databases]),
        Section(b"MDSL", 0, np.array([s.identity for s in L.models], dtype="<u8").tobytes()),
        *_name_sections(b"M", [s.raw for s in L.models]),
        Section(b"SPSL", 0, np.array([s.identity for s in L.spring_sets], dtype="<u8").tobytes()),
        *_name_sections(b"S", [s.raw for s in L.spring_sets]),
        Section(b"RMAP", 0, b"".join(MAP_SLOT.pack(*m) for m in L.maps)),
        Section(b"NODE", 0, b"".join(records)),
        Section(b"INPT", 0, np.array(inputs, dtype="<u4").tobytes()),
        Section(b"NDAT", 0, np.array(words, dtype="<u4").tobytes()),
        Section(b"MASK", 0, masks.tobytes()),
        *_name_sections(b"E", b.events),
    ]
    return container.write(FileKind.graph, FORMAT_VERSION, FORMAT_MINOR, sections)


def build(source: GraphSource) -> bytes:
    """maniBuildGraph's work: the file of a source the checks accept."""
    if not isinstance(source, GraphSource):
        raise InvalidError("not a graph source")
    if not isinstance(source.skeleton, Skeleton):
        raise InvalidError("the source names no opened skeleton")
    return write(check(source))


def build_graph(builder: Builder, source: GraphSource) -> bytes:
    """maniBuildGraph: builds and keeps the file in the builder in place of any before."""
    enter_build(builder, source, GraphSource, skeleton=Skeleton)
    data = build(source)
    builder.keep(data, "graph")
    return data
