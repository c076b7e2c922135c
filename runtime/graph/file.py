"""Graphs opened in place (maniGraph): the file graph/format.py lays out, checked whole at the
open, then read through the queries.

The open decodes the node table into Python records once (a graph is small and the update
walks them every frame), so bytes changed after the open cannot move a read; names are
read in place from the file's name tables.
"""
from __future__ import annotations

import math

import numpy as np

from ..core import args, container, names
from ..core.container import Container, FileKind
from ..core.errors import FormatError
from .format import (ARITY, CLIP_ADDITIVE, CLIP_SLOT, DATABASE_SLOT, FLAG_DIFFERENCE, FLAG_MIRRORED,
                     FORMAT_MINOR, FORMAT_VERSION, HEADER, MAP_SLOT, NODE, PARAMETER, PARAMETER_BOUNDED, AT_BONES,
                     AT_CLIPS, AT_DATABASES, AT_EVENTS, AT_MAPS, AT_MASKS, AT_MODELS, AT_NODES,
                     AT_PARAMETERS, AT_SLOTS, AT_SPRINGS, AT_SYNC, Facts, decode, word_f32,
                     word_i32)
from .limits import (GRAPH_NONE, MAX_GRAPH_CLIPS, MAX_GRAPH_DATABASES, MAX_GRAPH_EVENTS, MAX_GRAPH_MODELS,
                     MAX_GRAPH_NODES, MAX_GRAPH_PARAMETERS, MAX_GRAPH_RETARGET_MAPS,
                     MAX_GRAPH_SPRING_SETS, MAX_GRAPH_SYNC_GROUPS, NO_PARAMETER)
from .source import PASS_ON_KINDS, VALUE_WIDTH, NodeKind, ParameterType
from ..core.limits import MAX_BONES, NO_TRACK

PREFIXES = (b"P", b"C", b"Y", b"D", b"M", b"S", b"E")
KNOWN = {tag: 0 for tag in (b"GRPH", b"PARM", b"CLPS", b"DBSL", b"DBCL", b"MDSL", b"SPSL", b"RMAP",
                            b"NODE", b"INPT", b"NDAT", b"MASK")}
for _p in PREFIXES:
    KNOWN.update(names.tags(_p))
WHOLE_TYPES = (ParameterType.bool_, ParameterType.trigger, ParameterType.int_)
INT32 = (-(1 << 31), (1 << 31) - 1)


class Node:
    """One node as the open decoded it."""

    __slots__ = ("kind", "difference", "mirrored", "place", "inputs", "data", "slot")

    def __init__(self, kind, difference, mirrored, place, inputs, data, slot):
        self.kind = kind
        self.difference = difference
        self.mirrored = mirrored
        self.place = place
        self.inputs = inputs
        self.data = data
        self.slot = slot


class Parameter:
    __slots__ = ("type", "default", "bounds")

    def __init__(self, type_, default, bounds):
        self.type = type_
        self.default = default          # four numbers
        self.bounds = bounds            # (lo, hi) or None


class Graph:
    """A graph file opened in place (maniGraph)."""

    def __init__(self, data):
        buf = container.as_buffer(data)
        c = Container(buf, FileKind.graph, FORMAT_VERSION, FORMAT_MINOR, KNOWN, required=tuple(KNOWN))
        c.array(b"GRPH", "<u1", (HEADER.size,))
        at = c.offset_of(b"GRPH")
        (skeleton, mirror, bones, n, p, nc, ns, nd, nm, nsp, nr, slots, ne, nk) = HEADER.unpack_from(buf, at)
        for value, lo, hi, where in ((bones, 1, MAX_BONES, AT_BONES), (n, 1, MAX_GRAPH_NODES, AT_NODES),
                                     (p, 0, MAX_GRAPH_PARAMETERS, AT_PARAMETERS),
                                     (nc, 0, MAX_GRAPH_CLIPS, AT_CLIPS),
                                     (ns, 0, MAX_GRAPH_SYNC_GROUPS, AT_SYNC),
                                     (nd, 0, MAX_GRAPH_DATABASES, AT_DATABASES),
                                     (nm, 0, MAX_GRAPH_MODELS, AT_MODELS),
                                     (nsp, 0, MAX_GRAPH_SPRING_SETS, AT_SPRINGS),
                                     (nr, 0, MAX_GRAPH_RETARGET_MAPS, AT_MAPS),
                                     (slots, 1, n, AT_SLOTS), (ne, 0, MAX_GRAPH_EVENTS, AT_EVENTS),
                                     (nk, 0, 2 * n, AT_MASKS)):
            if not lo <= value <= hi:
                raise FormatError(f"count {value} out of range", at + where)
        c.check_count(n, at + AT_NODES, {b"NODE": (NODE.size, 0)})
        c.check_count(p, at + AT_PARAMETERS, {b"PARM": (PARAMETER.size, 0), **names.count_items(b"P")})
        c.check_count(nc, at + AT_CLIPS, {b"CLPS": (CLIP_SLOT.size, 0), **names.count_items(b"C")})
        c.check_count(ns, at + AT_SYNC, names.count_items(b"Y"))
        c.check_count(nd, at + AT_DATABASES, {b"DBSL": (DATABASE_SLOT.size, 0), **names.count_items(b"D")})
        c.check_count(nm, at + AT_MODELS, {b"MDSL": (8, 0), **names.count_items(b"M")})
        c.check_count(nsp, at + AT_SPRINGS, {b"SPSL": (8, 0), **names.count_items(b"S")})
        c.check_count(nr, at + AT_MAPS, {b"RMAP": (MAP_SLOT.size, 0)})
        c.check_count(ne, at + AT_EVENTS, names.count_items(b"E"))
        c.check_count(nk, at + AT_MASKS, {b"MASK": (4 * bones, 0)})

        self.parameters = _parameters(c, p)
        self._names = {prefix: names.NameTable(c, prefix, count) for prefix, count in
                       zip(PREFIXES, (p, nc, ns, nd, nm, nsp, ne))}
        self.clip_identities, self.clip_flags, self.clip_maps = _clip_slots(c, nc, nr)
        self.database_identities, self.database_clips = _database_slots(c, nd, nc)
        self.model_identities = [int(v) for v in c.array(b"MDSL", "<u8", (nm,))]
        self.spring_set_identities = [int(v) for v in c.array(b"SPSL", "<u8", (nsp,))]
        maps = c.array(b"RMAP", "<u8", (nr, 2))
        self.map_identities = [int(v) for v in maps[:, 0]]
        self.map_source_identities = [int(v) for v in maps[:, 1]]
        _check_map_slots(c, self.map_identities, self.clip_maps)
        masks = c.array(b"MASK", "<f4", (nk, bones))
        bad = np.flatnonzero(~((masks >= 0) & (masks <= 1)).reshape(-1))
        if bad.size:
            raise FormatError("mask weight outside 0 to 1", c.offset_of(b"MASK", 4 * int(bad[0])))
        self.masks = masks.copy()
        facts = Facts([q.type for q in self.parameters], nc, ns, nk, ne, int(bones), int(nsp), int(nd),
                      int(nm))
        self.nodes = _nodes(c, n, slots, facts, self.clip_flags, int(mirror))
        c.finish()
        self.data = buf
        self.identity = c.identity
        self.skeleton_identity = int(skeleton)
        self.mirror_identity = int(mirror)
        self.bone_count = int(bones)
        self.slot_count = int(slots)
        self.sync_group_count = int(ns)
        self.event_names = [self._names[b"E"].name(k) for k in range(ne)]
        self._opened = True

    @classmethod
    def open(cls, data) -> "Graph":
        return cls(data)

    # ---- queries
    @property
    def node_count(self) -> int:
        return len(self.nodes)

    @property
    def parameter_count(self) -> int:
        return len(self.parameters)

    @property
    def clip_count(self) -> int:
        return len(self.clip_identities)

    @property
    def output_node(self) -> int:
        return len(self.nodes) - 1

    def find_parameter(self, name) -> int:
        if name is None:
            return NO_PARAMETER
        return self._names[b"P"].find(name)

    def parameter_name(self, k: int) -> str | None:
        return self._names[b"P"].name(k, "parameter")

    def parameter_type(self, k: int) -> ParameterType | None:
        k = args.integer(k, "parameter")
        return self.parameters[k].type if 0 <= k < len(self.parameters) else None

    def clip_name(self, k: int) -> str | None:
        return self._names[b"C"].name(k, "clip")

    def database_name(self, k: int) -> str | None:
        return self._names[b"D"].name(k, "database")

    def model_name(self, k: int) -> str | None:
        return self._names[b"M"].name(k, "model")

    def spring_set_name(self, k: int) -> str | None:
        return self._names[b"S"].name(k, "slot")

    def node_kind(self, k: int) -> int:
        k = args.integer(k, "node")
        return int(self.nodes[k].kind) if 0 <= k < len(self.nodes) else 0

    def node_inputs(self, k: int) -> list[int]:
        k = args.integer(k, "node")
        return list(self.nodes[k].inputs) if 0 <= k < len(self.nodes) else []

    def node_place(self, k: int) -> int:
        k = args.integer(k, "node")
        return self.nodes[k].place if 0 <= k < len(self.nodes) else GRAPH_NONE


def is_open(graph) -> bool:
    return isinstance(graph, Graph) and getattr(graph, "_opened", False)


# ---- open checks ----------------------------------------------------------------------------------
def _parameters(c: Container, count: int) -> list[Parameter]:
    rows = c.array(b"PARM", "<u4", (count, 8))
    base = c.offset_of(b"PARM")
    out = []
    for k, row in enumerate(rows.tolist()):
        at = base + PARAMETER.size * k
        try:
            kind = ParameterType(row[0])
        except ValueError:
            raise FormatError(f"parameter {k}: type unknown", at) from None
        if row[1] > PARAMETER_BOUNDED or (row[1] and kind not in (ParameterType.int_, ParameterType.float_)):
            raise FormatError(f"parameter {k}: flags unknown", at + 4)
        width = VALUE_WIDTH[kind]
        if kind in WHOLE_TYPES:
            default = [float(word_i32(row[2]))]
            if kind != ParameterType.int_ and default[0] not in (0.0, 1.0):
                raise FormatError(f"parameter {k}: default not 0 or 1", at + 8)
            rest = row[3:6]
        else:
            default = [word_f32(w) for w in row[2:2 + width]]
            for j, v in enumerate(default):
                if not math.isfinite(v):
                    raise FormatError(f"parameter {k}: default not finite", at + 8 + 4 * j)
            rest = row[2 + width:6]
            if kind == ParameterType.quaternion and abs(math.sqrt(sum(v * v for v in default)) - 1) > 1e-5:
                raise FormatError(f"parameter {k}: default quaternion not of unit length", at + 8)
        for j, w in enumerate(rest):
            if w:
                raise FormatError(f"parameter {k}: unused default word set", at + 24 - 4 * len(rest) + 4 * j)
        bounds = None
        if row[1]:
            if kind == ParameterType.int_:
                lo, hi = float(word_i32(row[6])), float(word_i32(row[7]))
            else:
                lo, hi = word_f32(row[6]), word_f32(row[7])
            if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
                raise FormatError(f"parameter {k}: bounds out of order", at + 24)
            if not lo <= default[0] <= hi:
                raise FormatError(f"parameter {k}: default outside its bounds", at + 8)
            bounds = (lo, hi)
        elif row[6] or row[7]:
            raise FormatError(f"parameter {k}: bounds without the flag", at + (24 if row[6] else 28))
        out.append(Parameter(kind, tuple(default + [0.0] * (4 - len(default))), bounds))
    return out


def _clip_slots(c: Container, count: int, maps: int):
    rows = c.array(b"CLPS", "<u1", (count, CLIP_SLOT.size))
    base = c.offset_of(b"CLPS")
    identities, flags, slot_maps = [], [], []
    for k in range(count):
        identity, m, f, r0, r1 = CLIP_SLOT.unpack_from(rows[k].tobytes())
        at = base + CLIP_SLOT.size * k
        if not (m == NO_TRACK or m < maps):
            raise FormatError(f"clip slot {k}: map slot out of range", at + 8)
        if f > 3:
            raise FormatError(f"clip slot {k}: flags unknown", at + 12)
        if r0 or r1:
            raise FormatError(f"clip slot {k}: reserved field set", at + (16 if r0 else 20))
        identities.append(identity)
        flags.append(f)
        slot_maps.append(m)
    return identities, flags, slot_maps


def _check_map_slots(c: Container, identities: list, clip_maps: list) -> None:
    """Each map slot a distinct map that some clip slot names (the build gives one to each
    map the clip slots name, and no more)."""
    base = c.offset_of(b"RMAP")
    named = set(clip_maps)
    for k, identity in enumerate(identities):
        if identity in identities[:k] or k not in named:
            raise FormatError(f"map slot {k}: a map listed twice or named by no clip slot",
                              base + MAP_SLOT.size * k)


def _database_slots(c: Container, count: int, clips: int):
    rows = c.array(b"DBSL", "<u1", (count, DATABASE_SLOT.size))
    listed = c.array(b"DBCL", "<u4")
    base = c.offset_of(b"DBSL")
    identities, lists, first = [], [], 0
    for k in range(count):
        identity, start, n = DATABASE_SLOT.unpack_from(rows[k].tobytes())
        at = base + DATABASE_SLOT.size * k
        if start != first:
            raise FormatError(f"database slot {k}: clip list not where the lists lay it", at + 8)
        if n > listed.size - start:
            raise FormatError(f"database slot {k}: clip list past DBCL", at + 12)
        slots = listed[start:start + n].tolist()
        bad = [j for j, s in enumerate(slots) if s >= clips]
        if bad:
            raise FormatError("database clip slot past the clips", c.offset_of(b"DBCL", 4 * (start + bad[0])))
        identities.append(identity)
        lists.append(slots)
        first += n
    if first != listed.size:
        raise FormatError("DBCL holds more than the slots list", c.size_field(b"DBCL"))
    return identities, lists


def _nodes(c: Container, n: int, slots: int, facts: Facts, clip_flags, mirror: int) -> list[Node]:
    rows = c.array(b"NODE", "<u4", (n, 8)).tolist()
    inputs = c.array(b"INPT", "<u4")
    words = c.array(b"NDAT", "<u4")
    base = c.offset_of(b"NODE")
    words_at = c.offset_of(b"NDAT")
    out, places, first_input, first_word = [], set(), 0, 0
    for k, (kind, flags, place, i0, ni, w0, nw, slot) in enumerate(rows):
        at = base + NODE.size * k
        try:
            kind = NodeKind(kind)
        except ValueError:
            raise FormatError(f"node {k}: kind unknown", at) from None
        if flags & ~(FLAG_DIFFERENCE | FLAG_MIRRORED):
            raise FormatError(f"node {k}: flags unknown", at + 4)
        if place in places or place == GRAPH_NONE:
            raise FormatError(f"node {k}: a place given twice", at + 8)
        places.add(place)
        if i0 != first_input:
            raise FormatError(f"node {k}: inputs not where the table lays them", at + 12)
        least, most = ARITY[kind]
        if not least <= ni <= most or ni > inputs.size - i0:
            raise FormatError(f"node {k}: input count out of range", at + 16)
        mine = inputs[i0:i0 + ni].tolist()
        for j, i in enumerate(mine):
            if i >= k:
                raise FormatError(f"node {k}: an input not before it", c.offset_of(b"INPT", 4 * (i0 + j)))
        if w0 != first_word:
            raise FormatError(f"node {k}: data not where the table lays it", at + 20)
        if nw > words.size - w0:
            raise FormatError(f"node {k}: data past NDAT", at + 24)
        if slot >= slots:
            raise FormatError(f"node {k}: slot past the slots", at + 28)
        data = decode(kind, words[w0:w0 + nw], words_at + 4 * w0, ni, facts)
        if kind == NodeKind.mirror and not mirror:
            raise FormatError(f"node {k}: a mirror node in a graph without a mirror map", at)
        out.append(Node(kind, bool(flags & FLAG_DIFFERENCE), bool(flags & FLAG_MIRRORED), place,
                        mine, data, slot))
        first_input += ni
        first_word += nw
    if first_input != inputs.size:
        raise FormatError("INPT holds more than the nodes read", c.size_field(b"INPT"))
    if first_word != words.size:
        raise FormatError("NDAT holds more than the nodes read", c.size_field(b"NDAT"))
    _check_structure(out, base, clip_flags)
    return out


def _check_structure(nodes: list[Node], base: int, clip_flags) -> None:
    """Every node reaches the output; differences where the kinds say; no node writes a slot
    a node still to be read holds."""
    n = len(nodes)
    reached = [False] * n
    reached[-1] = True
    for k in range(n - 1, -1, -1):
        if reached[k]:
            for i in nodes[k].inputs:
                reached[i] = True
    if not all(reached):
        raise FormatError("a node the output does not reach", base + NODE.size * reached.index(False))
    for k, node in enumerate(nodes):
        kinds = [nodes[i].difference for i in node.inputs]
        if node.kind == NodeKind.clip:
            want = bool(clip_flags[node.data.slot] & CLIP_ADDITIVE)
        elif node.kind in (NodeKind.pose_parameter, NodeKind.motion_matching,
                           NodeKind.learned_motion_matching):
            want = False
        elif node.kind == NodeKind.additive:
            want = False if (not kinds[0] and kinds[1]) else None
        elif node.kind in (NodeKind.inertialize, *PASS_ON_KINDS):
            want = False if not kinds[0] else None
        else:
            want = kinds[0] if all(d == kinds[0] for d in kinds) else None
        if want is None or want != node.difference or (k == n - 1 and node.difference):
            raise FormatError(f"node {k}: pose or difference wrong", base + NODE.size * k + 4)
    marks, both = parities(nodes)
    if both is not None:
        raise FormatError(f"node {both[0]}: reached both mirrored and not", base + NODE.size * both[0] + 4)
    for k, want in enumerate(marks):
        if want != nodes[k].mirrored:
            raise FormatError(f"node {k}: mirrored mark wrong", base + NODE.size * k + 4)
    last = {}
    for k, node in enumerate(nodes):
        for i in node.inputs:
            last[i] = k
    holder = {}
    for k, node in enumerate(nodes):
        j = holder.get(node.slot)
        if j is not None and last.get(j, -1) >= k:
            raise FormatError(f"node {k}: slot still held by node {j}", base + NODE.size * k + 28)
        holder[node.slot] = k


def parities(nodes) -> tuple[list, tuple | None]:
    """Each node's parity from the output down (whether an odd number of mirror nodes lies
    above it), and the first node found reached both ways with the reader reaching it the
    other way, or None. Nodes are in file order, each after its inputs."""
    out = [None] * len(nodes)
    out[-1] = False
    for k in range(len(nodes) - 1, -1, -1):
        if out[k] is None:
            continue            # unreachable: refused on its own
        below = out[k] ^ (nodes[k].kind == NodeKind.mirror)
        for i in nodes[k].inputs:
            if out[i] is None:
                out[i] = below
            elif out[i] != below:
                return out, (i, k)
    return out, None
