"""What an FBX document holds as a scene: its objects (in the order of Objects), their
properties (the object's own over its kind's template in Definitions), the connections,
models with their parents, bone names, skins and clusters, limb chains, the skeletons they
make, and the scene's settings.

Both generations read the same way: 7.x objects carry an id, a `name\\x00\\x01Class` (or
`Class::name`) and a subclass, with `Properties70` `P:` entries and `C:` connections of ids;
6.x objects are named `Class::name` (the name is the id), with `Properties60` `Property:`
entries and `Connect:` connections of names."""
from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum

from ..common import ImportFormatError, ImportReason, bone_names
from .document import Document, Record

__all__ = ["Axis", "FbxSettings", "FbxObject", "Scene"]

NONE = 0xFFFFFFFF


class Axis(IntEnum):
    """maniFbxAxis: a signed coordinate axis."""

    PositiveX = 0
    NegativeX = 1
    PositiveY = 2
    NegativeY = 3
    PositiveZ = 4
    NegativeZ = 5


@dataclass
class FbxSettings:
    """maniFbxSettings: the scene's axes, its unit in metres and its frame rate."""

    right: Axis = Axis.PositiveX
    up: Axis = Axis.PositiveY
    front: Axis = Axis.PositiveZ
    unit_meters: float = 0.01
    frame_rate: float = 30.0


# TimeMode's rates (FBX's enum; 0 is the default mode, 14 custom)
_TIME_MODES = (30.0, 120.0, 100.0, 60.0, 50.0, 48.0, 30.0, 30.0, 29.97, 29.97, 25.0, 24.0,
               1000.0, 23.976, None, 96.0, 72.0, 59.94, 119.88)


class FbxObject:
    """One object of Objects: its record, kind (the record's name), class, name without the
    class, subclass, and the properties it names (record of each, found on demand)."""

    __slots__ = ("index", "record", "kind", "id", "name", "cls", "subclass", "props",
                 "template", "value_at")

    def __init__(self, index, record, kind, oid, name, cls, subclass, props, template, value_at):
        self.index, self.record, self.kind, self.id = index, record, kind, oid
        self.name, self.cls, self.subclass = name, cls, subclass
        self.props, self.template, self.value_at = props, template, value_at

    def prop(self, name: bytes) -> tuple[Record, int] | None:
        """The property record named `name` and where its values start, the object's own
        over its template's."""
        rec = self.props.get(name)
        if rec is not None:
            return rec, self.value_at
        if self.template is not None:
            return self.template.get(name)
        return None

    def vector(self, name: bytes, default: tuple) -> tuple:
        """A numeric property of len(default) values; Property for one of other length or
        not numbers."""
        found = self.prop(name)
        if found is None:
            return default
        rec, at = found
        out = tuple(rec.number(at + k) for k in range(len(default)))
        if any(v is None or isinstance(v, bool) for v in out):
            raise ImportFormatError(f"property {name.decode(errors='replace')!r} is not "
                                    f"{len(default)} numbers", ImportReason.Property,
                                    offset=rec.offset, item=self.index)
        out = tuple(float(v) for v in out)
        if not all(math.isfinite(v) for v in out):
            raise ImportFormatError(f"property {name.decode(errors='replace')!r} is not "
                                    "finite", ImportReason.Property, offset=rec.offset,
                                    item=self.index)
        return out

    def scalar(self, name: bytes, default):
        return self.vector(name, (default,))[0]


def _split_name(raw: bytes) -> tuple[bytes, bytes]:
    """(name, class) of `name\\x00\\x01Class` or `Class::name`."""
    if b"\x00\x01" in raw:
        name, _, cls = raw.partition(b"\x00\x01")
        return name, cls
    if b"::" in raw:
        cls, _, name = raw.partition(b"::")
        return name, cls
    return raw, b""


def _props_of(record: Record) -> tuple[dict, int]:
    """A record's Properties70 (values from 4) or Properties60 (values from 3) by name."""
    out: dict = {}
    at = 4
    block = record.child(b"Properties70")
    entry = b"P"
    if block is None:
        block = record.child(b"Properties60")
        entry, at = b"Property", 3
    if block is not None:
        for p in block.children:
            if p.name == entry:
                name = p.string(0)
                if name is not None and name not in out:
                    out[name] = p
    return out, at


class Scene:
    """The scene an opened Document holds, indexed once on open (names and links; no
    numbers converted)."""

    def __init__(self, doc: Document):
        self.doc = doc
        self.version = doc.version
        top = doc.top
        self.templates = self._templates(top.child(b"Definitions"))
        self.objects: list[FbxObject] = []
        self.by_id: dict = {}
        objects = top.child(b"Objects")
        modern = doc.version >= 7000
        if objects is not None:
            for rec in objects.children:
                self._add(rec, modern)
        self.settings_record = None
        gs = top.child(b"GlobalSettings")
        if gs is None and objects is not None:
            gs = objects.child(b"GlobalSettings")
        self.settings_record = gs
        self.parents: dict[int, int] = {}          # child object -> parent object (OO)
        self.children: dict[int, list[int]] = {}   # parent object -> OO children, in order
        self.prop_links: list[tuple[int, int, bytes]] = []   # (src, dst, property) OP
        self._connections(top.child(b"Connections"))
        self._index()

    # ---- reading
    def _templates(self, definitions: Record | None) -> dict:
        out: dict = {}
        if definitions is None:
            return out
        for ot in definitions.all(b"ObjectType"):
            kind = ot.string(0)
            for pt in ot.all(b"PropertyTemplate"):
                props, at = _props_of(pt)
                out.setdefault(kind, {k: (v, at) for k, v in props.items()})
        return out

    def _add(self, rec: Record, modern: bool) -> None:
        if rec.name in (b"GlobalSettings",):
            return
        if rec.count() >= 2 and not rec.is_string(0) and rec.is_string(1):
            oid = rec.number(0)
            raw = rec.string(1)
            subclass = rec.string(2) or b""
        elif rec.count() >= 1 and rec.is_string(0):
            raw = rec.string(0)
            oid = raw
            subclass = rec.string(1) or b""
        else:
            return
        name, cls = _split_name(raw)
        if not modern and isinstance(oid, bytes):
            oid = self._key6(raw)
        if oid in self.by_id:
            return
        props, at = _props_of(rec)
        obj = FbxObject(len(self.objects), rec, rec.name, oid, name, cls, subclass, props,
                        self.templates.get(rec.name), at)
        self.by_id[oid] = obj.index
        self.objects.append(obj)

    @staticmethod
    def _key6(raw: bytes) -> bytes:
        """A 6.x object's id: `Class::name`, whichever way the file spells it."""
        name, cls = _split_name(raw)
        return cls + b"::" + name

    def _ref(self, rec: Record, i: int):
        if rec.is_string(i):
            return self._key6(rec.string(i))
        return rec.number(i)

    def _connections(self, block: Record | None) -> None:
        if block is None:
            return
        for c in block.children:
            if c.name not in (b"C", b"Connect") or c.count() < 3:
                continue
            kind = c.string(0)
            src = self.by_id.get(self._ref(c, 1))
            dst = self.by_id.get(self._ref(c, 2))
            if src is None:
                continue
            if kind == b"OO":
                if dst is None or src in self.children.get(dst, ()):
                    continue
                self.children.setdefault(dst, []).append(src)
                self.parents.setdefault(src, dst)
            elif kind == b"OP" and dst is not None:
                self.prop_links.append((src, dst, c.string(3) or b""))

    def _index(self) -> None:
        objs = self.objects
        self.models = [o.index for o in objs if o.kind == b"Model"]
        self.model_of = {o: m for m, o in enumerate(self.models)}
        # a model's parent model: its first OO parent that is a model
        self.model_parent = []
        for o in self.models:
            p = self.parents.get(o)
            self.model_parent.append(self.model_of.get(p, NONE) if p is not None else NONE)
        self._break_loops()
        self.model_children: list[list[int]] = [[] for _ in self.models]
        for m, p in enumerate(self.model_parent):
            if p != NONE:
                self.model_children[p].append(m)
        self.bone_names, self.renamed = bone_names([objs[o].name for o in self.models])
        self.skins = [o.index for o in objs if o.kind == b"Deformer" and o.subclass == b"Skin"]
        self.clusters = [self._children_of(s, b"Deformer", b"Cluster") for s in self.skins]
        self.stacks = [o.index for o in objs if o.kind == b"AnimationStack"]
        self.skin_model = [self._skin_model(s) for s in self.skins]
        self.skeletons, self.skin_skeleton = self._skeletons()

    def _break_loops(self) -> None:
        """A parent chain that comes back to itself is cut where it closes (no model is
        its own ancestor)."""
        state = [0] * len(self.models)          # 0 unseen, 1 on the path, 2 done
        for m in range(len(self.models)):
            path = []
            x = m
            while x != NONE and state[x] == 0:
                state[x] = 1
                path.append(x)
                nxt = self.model_parent[x]
                if nxt != NONE and state[nxt] == 1:
                    self.model_parent[x] = NONE
                    nxt = NONE
                x = nxt
            for y in path:
                state[y] = 2

    def _children_of(self, obj: int, kind: bytes, subclass: bytes) -> list[int]:
        return [c for c in self.children.get(obj, ())
                if self.objects[c].kind == kind and self.objects[c].subclass == subclass]

    def linked_model(self, cluster: int) -> int:
        """The model a cluster links (its Model child), NONE without."""
        for c in self.children.get(cluster, ()):
            if c in self.model_of:
                return self.model_of[c]
        return NONE

    def _skin_model(self, skin: int) -> int:
        """The model of the geometry the skin deforms (6.x: the skin's own parent)."""
        for p in self._parents_all(skin):
            if p in self.model_of:
                return self.model_of[p]
            if self.objects[p].kind == b"Geometry":
                for q in self._parents_all(p):
                    if q in self.model_of:
                        return self.model_of[q]
        return NONE

    def _parents_all(self, obj: int) -> list[int]:
        return [d for d, kids in self.children.items() if obj in kids]

    def is_limb(self, m: int) -> bool:
        obj = self.objects[self.models[m]]
        if obj.subclass in (b"LimbNode", b"Limb", b"Root"):
            return True
        for c in self.children.get(obj.index, ()):
            a = self.objects[c]
            if a.kind == b"NodeAttribute" and a.subclass in (b"LimbNode", b"Limb", b"Root"):
                return True
        return False

    def _skeletons(self) -> tuple[list[list[int]], list[int]]:
        """Sets of models: each skin's linked models, each limb chain (limbs joined to their
        limb parents), joined where they share a model; numbered by lowest skin, then chain."""
        groups: list[set[int]] = []
        for clusters in self.clusters:
            groups.append({m for m in (self.linked_model(c) for c in clusters) if m != NONE})
        limbs = [m for m in range(len(self.models)) if self.is_limb(m)]
        limb_set = set(limbs)
        chain_of: dict[int, int] = {}
        chains: list[set[int]] = []
        for m in limbs:              # object order; a chain is named by its top limb
            top = m
            while self.model_parent[top] in limb_set:
                top = self.model_parent[top]
            if top not in chain_of:
                chain_of[top] = len(chains)
                chains.append(set())
            chains[chain_of[top]].add(m)
        groups.extend(chains)
        # union by shared models
        parent = list(range(len(groups)))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x
        owner: dict[int, int] = {}
        for g, models in enumerate(groups):
            for m in models:
                if m in owner:
                    a, b = find(owner[m]), find(g)
                    if a != b:
                        parent[max(a, b)] = min(a, b)
                else:
                    owner[m] = g
        skeletons: list[list[int]] = []
        number: dict[int, int] = {}
        for g, models in enumerate(groups):
            if not models:
                continue
            r = find(g)
            if r not in number:
                number[r] = len(skeletons)
                skeletons.append([])
            skeletons[number[r]].extend(models)
        skin_skeleton = []
        for s, models in enumerate(groups[:len(self.skins)]):
            skin_skeleton.append(number[find(s)] if models else NONE)
        return [sorted(set(s)) for s in skeletons], skin_skeleton

    # ---- settings
    def settings(self) -> FbxSettings:
        """The scene's settings, FBX's defaults where the file is silent or out of range."""
        out = FbxSettings()
        rec = self.settings_record
        if rec is None:
            return out
        props, at = _props_of(rec)

        def number(name, default):
            p = props.get(name)
            v = None if p is None else p.number(at)
            if v is None or isinstance(v, bool) or not math.isfinite(float(v)):
                return default
            return v

        def axis(name, sign_name, default: Axis) -> Axis:
            a, s = number(name, -1), number(sign_name, 1)
            if not isinstance(a, int) or not 0 <= a <= 2:
                return default
            return Axis(2 * a + (1 if s < 0 else 0))
        right = axis(b"CoordAxis", b"CoordAxisSign", Axis.PositiveX)
        up = axis(b"UpAxis", b"UpAxisSign", Axis.PositiveY)
        front = axis(b"FrontAxis", b"FrontAxisSign", Axis.PositiveZ)
        if len({right // 2, up // 2, front // 2}) == 3:
            out.right, out.up, out.front = right, up, front
        unit = float(number(b"UnitScaleFactor", 1.0))
        if unit > 0:
            out.unit_meters = unit * 0.01
        mode = number(b"TimeMode", 0)
        if isinstance(mode, int) and 0 <= mode < len(_TIME_MODES):
            rate = _TIME_MODES[mode]
            if rate is None:
                custom = float(number(b"CustomFrameRate", 30.0))
                rate = custom if custom > 0 else 30.0
            out.frame_rate = rate
        return out
