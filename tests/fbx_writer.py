"""A small FBX writer for tests: a scene of models (names, parents, transform properties)
as binary 7.x (either byte order, arrays raw or zlib) or ASCII (6.1 or 7.x), so the reader
can be held against ufbx on what the staged files do not cover."""
from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

MAGIC = b"Kaydara FBX Binary  \x00\x1a"


@dataclass
class Node:
    """A record: name, properties (int, float, str/bytes, or ("d", [floats]) arrays)."""

    name: str
    props: list = field(default_factory=list)
    children: list = field(default_factory=list)


@dataclass
class ModelSpec:
    name: str
    parent: int = -1
    props: dict = field(default_factory=dict)     # "Lcl Translation": (x, y, z), ...
    subclass: str = "Null"


_TYPES = {"InheritType": "enum", "RotationOrder": "enum", "RotationActive": "bool"}


def _p70(name, values) -> Node:
    kind = _TYPES.get(name)
    if isinstance(values, (int, float)):
        return Node("P", [name, kind or "double", "", "", values])
    return Node("P", [name, "Lcl Translation" if name.startswith("Lcl") else "Vector3D", "", "A"
                      if name.startswith("Lcl") else "", *[float(v) for v in values]])


@dataclass
class SkinSpec:
    """A skin on model `mesh`'s geometry: control points and, per cluster, its linked
    model, Indexes, Weights and (4x4 column-major, None to leave out) Transform and
    TransformLink; `extra` records on the skin deformer (SkinningType, BlendWeights...)."""

    mesh: int
    vertices: list
    clusters: list          # (model, indexes, weights, transform, transform_link)
    extra: list = field(default_factory=list)


@dataclass
class CurveSpec:
    """One animated component: model, property ("Lcl Rotation"), component 0..2, key times
    in KTime ticks, values, and per key the KeyAttrFlags and four KeyAttrDataFloat."""

    model: int
    prop: str
    component: int
    ticks: list
    values: list
    flags: list = None
    data: list = None
    layer: int = 0


@dataclass
class BlendSpec:
    """Blend shapes on model `mesh`'s geometry: control points and channels of (name,
    DeformPercent, FullWeights or None, [(shape name, indexes, offsets, normals or None)])."""

    mesh: int
    vertices: list
    channels: list


def scene_nodes(models: list[ModelSpec], version: int = 7400, arrays=None,
                skin: SkinSpec | None = None, curves: list | None = None,
                span: tuple | None = None, blend: BlendSpec | None = None,
                layers: list | None = None) -> list[Node]:
    """The top records of a 7.x scene: header, settings, objects and connections."""
    header = Node("FBXHeaderExtension", children=[Node("FBXHeaderVersion", [1003]),
                                                   Node("FBXVersion", [version])])
    settings = Node("GlobalSettings", children=[Node("Version", [1000]), Node("Properties70", children=[
        Node("P", ["UpAxis", "int", "Integer", "", 1]), Node("P", ["UpAxisSign", "int", "Integer", "", 1]),
        Node("P", ["FrontAxis", "int", "Integer", "", 2]), Node("P", ["FrontAxisSign", "int", "Integer", "", 1]),
        Node("P", ["CoordAxis", "int", "Integer", "", 0]), Node("P", ["CoordAxisSign", "int", "Integer", "", 1]),
        Node("P", ["UnitScaleFactor", "double", "Number", "", 1.0])])])
    objects = []
    conns = []
    for i, m in enumerate(models):
        props = [_p70(k, v) for k, v in m.props.items()]
        objects.append(Node("Model", [1000 + i, f"{m.name}\x00\x01Model", m.subclass],
                            [Node("Version", [232]), Node("Properties70", children=props)]))
        conns.append(Node("C", ["OO", 1000 + i, 0 if m.parent < 0 else 1000 + m.parent]))
    if arrays:
        geo = Node("Geometry", [5000, "geo\x00\x01Geometry", "Mesh"],
                   [Node("Vertices", [("d", arrays)]), Node("PolygonVertexIndex", [("i", [0, 1, -3])])])
        objects.append(geo)
    if skin is not None:
        objects.append(Node("Geometry", [6000, "mesh\x00\x01Geometry", "Mesh"],
                            [Node("Vertices", [("d", [float(v) for v in skin.vertices])])]))
        conns.append(Node("C", ["OO", 6000, 1000 + skin.mesh]))
        objects.append(Node("Deformer", [7000, "skin\x00\x01Deformer", "Skin"],
                            [Node("Version", [101])] + list(skin.extra)))
        conns.append(Node("C", ["OO", 7000, 6000]))
        for k, (model, idx, w, transform, link) in enumerate(skin.clusters):
            kids = [Node("Version", [100]), Node("Indexes", [("i", [int(i) for i in idx])]),
                    Node("Weights", [("d", [float(x) for x in w])])]
            if transform is not None:
                kids.append(Node("Transform", [("d", [float(x) for x in transform])]))
            if link is not None:
                kids.append(Node("TransformLink", [("d", [float(x) for x in link])]))
            objects.append(Node("Deformer", [8000 + k, "\x00\x01SubDeformer", "Cluster"], kids))
            conns.append(Node("C", ["OO", 8000 + k, 7000]))
            conns.append(Node("C", ["OO", 1000 + model, 8000 + k]))
    if blend is not None:
        objects.append(Node("Geometry", [6100, "bmesh\x00\x01Geometry", "Mesh"],
                            [Node("Vertices", [("d", [float(v) for v in blend.vertices])])]))
        conns.append(Node("C", ["OO", 6100, 1000 + blend.mesh]))
        objects.append(Node("Deformer", [6200, "shapes\x00\x01Deformer", "BlendShape"],
                            [Node("Version", [100])]))
        conns.append(Node("C", ["OO", 6200, 6100]))
        sid = 6400
        for c, (name, percent, full, shapes) in enumerate(blend.channels):
            kids = [Node("Version", [100]), Node("Properties70", children=[
                Node("P", ["DeformPercent", "Number", "", "A", float(percent)])])]
            if full is not None:
                kids.append(Node("FullWeights", [("d", [float(w) for w in full])]))
            objects.append(Node("Deformer", [6300 + c, f"{name}\x00\x01SubDeformer",
                                             "BlendShapeChannel"], kids))
            conns.append(Node("C", ["OO", 6300 + c, 6200]))
            for sname, idx, offsets, normals in shapes:
                skids = [Node("Version", [100]), Node("Indexes", [("i", [int(i) for i in idx])]),
                         Node("Vertices", [("d", [float(x) for x in offsets])])]
                if normals is not None:
                    skids.append(Node("Normals", [("d", [float(x) for x in normals])]))
                objects.append(Node("Geometry", [sid, f"{sname}\x00\x01Geometry", "Shape"], skids))
                conns.append(Node("C", ["OO", sid, 6300 + c]))
                sid += 1
    if curves:
        stack_props = [] if span is None else [
            Node("P", ["LocalStart", "KTime", "Time", "", span[0]]),
            Node("P", ["LocalStop", "KTime", "Time", "", span[1]])]
        objects.append(Node("AnimationStack", [9000, "take\x00\x01AnimStack", ""],
                            [Node("Properties70", children=stack_props)]))
        for ix, props in enumerate(layers or [{}]):
            objects.append(Node("AnimationLayer", [9001 + ix, f"layer{ix}\x00\x01AnimLayer", ""], [
                Node("Properties70", children=[
                    Node("P", [k, "double" if isinstance(v, float) else "enum", "", "A", v])
                    for k, v in props.items()])]))
            conns.append(Node("C", ["OO", 9001 + ix, 9000]))
        nodes: dict = {}
        for k, c in enumerate(curves):
            key = (c.model, c.prop, c.layer)
            if key not in nodes:
                nid = 9100 + len(nodes)
                nodes[key] = nid
                objects.append(Node("AnimationCurveNode", [nid, "\x00\x01AnimCurveNode", ""], [
                    Node("Properties70", children=[
                        Node("P", [f"d|{a}", "Number", "", "A", 0.0]) for a in "XYZ"])]))
                conns.append(Node("C", ["OO", nid, 9001 + c.layer]))
                conns.append(Node("C", ["OP", nid, 1000 + c.model, c.prop]))
            n = len(c.ticks)
            flags = c.flags if c.flags is not None else [0x8 | 0x100] * n
            data = c.data if c.data is not None else [[0.0, 0.0, 0.0, 0.0]] * n
            cid = 9500 + k
            objects.append(Node("AnimationCurve", [cid, "\x00\x01AnimCurve", ""], [
                Node("Default", [0.0]), Node("KeyVer", [4009]),
                Node("KeyTime", [("l", [int(t) for t in c.ticks])]),
                Node("KeyValueFloat", [("f", [float(v) for v in c.values])]),
                Node("KeyAttrFlags", [("i", [int(f) for f in flags])]),
                Node("KeyAttrDataFloat", [("f", [float(x) for row in data for x in row])]),
                Node("KeyAttrRefCount", [("i", [1] * n)])]))
            conns.append(Node("C", ["OP", cid, nodes[(c.model, c.prop, c.layer)],
                                    "d|" + "XYZ"[c.component]]))
    return [header, settings, Node("Objects", children=objects), Node("Connections", children=conns)]


def _binary_prop(v, order: str, compress: bool) -> bytes:
    if isinstance(v, bool):
        return b"C" + bytes([v])
    if isinstance(v, int):
        if -2**31 <= v < 2**31:
            return b"I" + struct.pack(order + "i", v)
        return b"L" + struct.pack(order + "q", v)
    if isinstance(v, float):
        return b"D" + struct.pack(order + "d", v)
    if isinstance(v, (str, bytes)):
        raw = v.encode() if isinstance(v, str) else v
        return b"S" + struct.pack(order + "I", len(raw)) + raw
    kind, values = v
    letter = {"d": "d", "f": "f", "i": "i", "l": "q"}[kind]
    raw = struct.pack(order + letter * len(values), *values)
    if compress:
        data = zlib.compress(raw)
        return kind.encode() + struct.pack(order + "III", len(values), 1, len(data)) + data
    return kind.encode() + struct.pack(order + "III", len(values), 0, len(raw)) + raw


def _binary_node(n: Node, at: int, order: str, wide: bool, compress: bool) -> bytes:
    head = struct.Struct(order + ("QQQB" if wide else "IIIB"))
    props = b"".join(_binary_prop(v, order, compress) for v in n.props)
    name = n.name.encode()
    body_at = at + head.size + len(name) + len(props)
    body = b""
    for c in n.children:
        body += _binary_node(c, body_at + len(body), order, wide, compress)
    if n.children or not n.props:
        body += b"\x00" * head.size
    end = body_at + len(body)
    return head.pack(end, len(n.props), len(props), len(name)) + name + props + body


def write_binary(nodes: list[Node], version: int = 7400, big_endian: bool = False,
                 compress: bool = False) -> bytes:
    order = ">" if big_endian else "<"
    wide = version >= 7500
    out = MAGIC + bytes([1 if big_endian else 0]) + struct.pack(order + "I", version)
    for n in nodes:
        out += _binary_node(n, len(out), order, wide, compress)
    out += b"\x00" * (25 if wide else 13)
    return out + b"\x00" * 16


def _ascii_value(v) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, bytes):
        v = v.decode()
    if isinstance(v, str):
        if "\x00\x01" in v:
            name, _, cls = v.partition("\x00\x01")
            v = f"{cls}::{name}"
        return '"' + v + '"'
    raise TypeError(v)


def write_ascii(nodes: list[Node], version: int = 7400) -> bytes:
    lines = [f"; FBX {version // 1000}.{version // 100 % 10}.{version // 10 % 10} project file"]

    def emit(n: Node, depth: int):
        pad = "\t" * depth
        arrays = [v for v in n.props if isinstance(v, tuple)]
        if arrays:
            values = arrays[0][1]
            body = ",".join(_ascii_value(float(x) if arrays[0][0] in "df" else int(x)) for x in values)
            if version >= 7000:
                lines.append(f"{pad}{n.name}: *{len(values)} {{")
                lines.append(f"{pad}\ta: {body}")
                lines.append(f"{pad}}}")
            else:
                lines.append(f"{pad}{n.name}: {body}")
            return
        text = ", ".join(_ascii_value(v) for v in n.props)
        if n.children:
            lines.append(f"{pad}{n.name}: {text} {{")
            for c in n.children:
                emit(c, depth + 1)
            lines.append(f"{pad}}}")
        else:
            lines.append(f"{pad}{n.name}: {text}")
    for n in nodes:
        emit(n, 0)
    return ("\n".join(lines) + "\n").encode()


def scene_nodes_61(models: list[ModelSpec]) -> list[Node]:
    """The same scene as FBX 6.1 writes it: names as ids, Properties60, Connect."""
    header = Node("FBXHeaderExtension", children=[Node("FBXHeaderVersion", [1003]),
                                                   Node("FBXVersion", [6100])])
    objects = []
    conns = []
    for m in models:
        props = []
        for k, v in m.props.items():
            if isinstance(v, (int, float)):
                props.append(Node("Property", [k, _TYPES.get(k, "double"), "", v]))
            else:
                props.append(Node("Property", [k, "Vector3D", "A", *[float(x) for x in v]]))
        objects.append(Node("Model", [f"Model::{m.name}", m.subclass],
                            [Node("Version", [232]), Node("Properties60", children=props)]))
        parent = "Model::Scene" if m.parent < 0 else f"Model::{models[m.parent].name}"
        conns.append(Node("Connect", ["OO", f"Model::{m.name}", parent]))
    return [header, Node("Objects", children=objects), Node("Connections", children=conns)]
