"""An asset file read into what the inspector shows: a skeleton, its clips, and the skinned
mesh parts of its first skin (glTF, GLB, FBX), or for a BVH the skeleton alone (the figure
module puts boxes over it); for glTF also each primitive's morph targets and the weights
that drive them, the VRMC_springBone set and the OMI physics bodies.

Everything comes from the runtime's importers; what they refuse (a runtime ManiError, its
FormatError with the offset) becomes one BadFile line naming the file.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image as PILImage

import runtime as rt
from runtime.importers.bvh import load_bvh
from runtime.importers.common import ImportClipOptions
from runtime.importers.fbx import FbxOptions, open_fbx
from runtime.importers.fbx.skin import control_points
from runtime.importers.gltf import (animation_name, build_gltf_clip, build_gltf_influences,
                                    build_gltf_morph_targets, build_gltf_skeleton, build_gltf_skin,
                                    morph_weights, node_mesh, node_skeleton_source, node_skin,
                                    primitive_count, read_ragdoll, read_springs)
from runtime.importers.gltf.clip import target_names
from runtime.importers.gltf.mesh import primitive, primitive_attributes

from ..errors import BadFile

SUFFIXES = (".gltf", ".glb", ".vrm", ".fbx", ".bvh")
# a BVH bone travels when its translation moves by more than this part of its offset
TRAVEL = 0.1


@dataclass
class Primitive:
    """One skinned draw: bind-pose positions and normals, triangles, influences, colour."""

    positions: np.ndarray          # (v, 3) float32, the skeleton's model space at bind
    normals: np.ndarray            # (v, 3) float32
    indices: np.ndarray            # (t * 3,) uint32
    influences: rt.Influences
    colour: tuple                  # (r, g, b) uint8: the flat colour without a texture
    uv: np.ndarray | None = None   # (v, 2) float32 into `image`, v = 0 its top row
    image: np.ndarray | None = None  # (h, w, 4) uint8 base colour texture
    morph: rt.MorphTargets | None = None   # its targets, applied before skinning
    weight_of: np.ndarray | None = None    # (targets,) each target's Asset.weights index

    def rgba(self) -> np.ndarray:
        """The image the part is drawn with: its texture, else one texel of its colour."""
        if self.image is not None:
            return self.image
        return np.array([[(*self.colour, 255)]], np.uint8)


@dataclass
class Asset:
    """What the inspector draws: the skeleton, its skin, the mesh parts and the clips."""

    name: str
    skeleton: rt.Skeleton
    skin: rt.Skin | None = None
    primitives: list = field(default_factory=list)
    clips: list = field(default_factory=list)          # [(name, rt.Clip)]
    travelling: set = field(default_factory=set)       # bones whose translation the clips move
    weights: list = field(default_factory=list)        # [MorphWeight]: every morph target's
    springs: rt.SpringSet | None = None                # the VRMC_springBone chains
    ragdoll: rt.Ragdoll | None = None                  # the OMI physics bodies on the skeleton

    def weight_names(self) -> list[str]:
        return [w.name for w in self.weights]


@dataclass
class MorphWeight:
    """One morph target's weight on the node that shows its mesh (glTF's targets are a
    channel each at full weight 1, so the channel's weight; FBX's in-betweens each their
    own, as the runtime's clips walk them): named by the target (by `node/target` where two
    meshes' targets share a name); `track` is the clip float track that animates it,
    `default` the file's weight."""

    name: str
    track: bytes
    default: float


# a flat colour per primitive where the file gives none: distinct, mid-bright
PALETTE = ((214, 122, 64), (82, 148, 206), (120, 186, 96), (206, 96, 150), (230, 196, 84),
           (140, 110, 200), (96, 190, 180), (200, 200, 196))


def load(path) -> Asset:
    """The asset in `path`; BadFile (one line) for a missing, unknown or refused file."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise BadFile(path, f"not a {', '.join(SUFFIXES)} file")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise BadFile(path, e.strerror or "cannot be read") from None
    try:
        if suffix == ".bvh":
            return _bvh(path)
        if suffix == ".fbx":
            return _fbx(path, data)
        return _gltf(path, data)
    except rt.ManiError as e:
        raise BadFile(path, f"{type(e).__name__}: {e}") from None


def _opened(data: bytes, kind: str) -> rt.Skeleton | rt.Skin | rt.Influences | rt.Clip:
    return {"skeleton": rt.Skeleton.open, "skin": rt.Skin.open,
            "influences": rt.Influences.open, "clip": rt.Clip.open}[kind](bytes(data))


def smooth_normals(positions: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Area-weighted vertex normals, for a mesh that carries none."""
    tri = indices.reshape(-1, 3)
    p = positions.astype(np.float64)
    faces = np.cross(p[tri[:, 1]] - p[tri[:, 0]], p[tri[:, 2]] - p[tri[:, 0]])
    out = np.zeros_like(p)
    for corner in range(3):
        np.add.at(out, tri[:, corner], faces)
    length = np.linalg.norm(out, axis=1, keepdims=True)
    return (out / np.where(length > 0, length, 1.0)).astype(np.float32)


# ---- glTF and GLB ----------------------------------------------------------------------
GLTF_OPTIONS = rt.GltfOptions(fold_placement=True)     # glTF's Y-up metres, placed at the root
KEYS_RATE = ImportClipOptions(sample_rate=0)           # the file's own key rate, not resampled


def _supplied(path: Path, data: bytes) -> rt.Gltf:
    doc = rt.open_gltf(rt.Builder(), data)
    for b in range(len(doc.list("buffers"))):
        uri = doc.buffer_uri(b)
        if uri is not None:
            where = path.parent / (uri.decode() if isinstance(uri, bytes) else uri)
            try:
                doc.supply_buffer(b, where.read_bytes())
            except OSError:
                raise BadFile(path, f"its buffer {b} file {where.name} cannot be read") from None
    return doc


def _material_colour(doc: rt.Gltf, prim: dict, k: int) -> tuple:
    """The material's base colour factor when it is not plain white, else a palette colour."""
    m = prim.get("material")
    materials = doc.list("materials")
    if isinstance(m, int) and 0 <= m < len(materials) and isinstance(materials[m], dict):
        factor = (materials[m].get("pbrMetallicRoughness") or {}).get("baseColorFactor")
        if isinstance(factor, list) and len(factor) == 4 and factor[:3] != [1, 1, 1]:
            return tuple(int(round(255 * min(max(float(c), 0.0), 1.0) ** (1 / 2.2)))
                         for c in factor[:3])
    return PALETTE[k % len(PALETTE)]


def _gltf(path: Path, data: bytes) -> Asset:
    doc = _supplied(path, data)
    if not doc.skins:
        return _rigid_gltf(path, doc)
    builder = rt.Builder()
    skeleton = _opened(build_gltf_skeleton(builder, doc, 0, GLTF_OPTIONS), "skeleton")
    skin = _opened(build_gltf_skin(builder, doc, 0, skeleton, GLTF_OPTIONS), "skin")
    asset = Asset(path.name, skeleton, skin)
    shown = {}                         # mesh: the first node that shows it with skin 0
    for n in range(len(doc.nodes)):
        if node_skin(doc, n) == 0:
            shown.setdefault(node_mesh(doc, n), n)
    for mesh in sorted(shown):
        for p in range(primitive_count(doc, mesh)):
            obj = primitive(doc, mesh, p)
            if obj.get("mode", 4) != 4:
                continue
            asset.primitives.append(_gltf_primitive(doc, path, asset, shown[mesh], p, obj, skin))
    if not asset.primitives:
        raise BadFile(path, "its first skin has no triangle mesh")
    _gltf_extras(doc, asset)
    return asset


FACING, UP = (0.0, 0.0, 1.0), (0.0, 1.0, 0.0)      # glTF's: a figure faces +Z, head up +Y


def _gltf_extras(doc: rt.Gltf, asset: Asset) -> None:
    """The clips, the weights' display names, the spring set and the ragdoll profile."""
    builder = rt.Builder()
    for a in range(len(doc.animations)):
        clip = _opened(build_gltf_clip(builder, doc, a, asset.skeleton, GLTF_OPTIONS,
                                       KEYS_RATE)[0], "clip")
        name = animation_name(doc, a)
        asset.clips.append((name.decode() if name else f"animation {a}", clip))
    short = [w.name for w in asset.weights]
    for w in asset.weights:
        if short.count(w.name) > 1:
            w.name = w.track.decode("utf-8", "replace")
    springs = read_springs(doc, asset.skeleton, GLTF_OPTIONS)
    if springs.springs:
        asset.springs = rt.SpringSet.open(bytes(rt.build_spring_set(builder, springs)))
    bodies = read_ragdoll(doc, asset.skeleton, GLTF_OPTIONS, FACING, UP)
    if bodies.bodies:
        asset.ragdoll = rt.Ragdoll.open(bytes(rt.build_ragdoll(builder, bodies)))


def _spring_nodes(doc: rt.Gltf) -> set:
    """Every node the VRMC_springBone extension names (joints, colliders, centers)."""
    e = (doc.json.get("extensions") or {}).get("VRMC_springBone")
    found = set()

    def walk(value):
        if isinstance(value, dict):
            for k, v in value.items():
                if k in ("node", "center") and isinstance(v, int):
                    found.add(v)
                else:
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
    walk(e)
    return found


def _rigid_gltf(path: Path, doc: rt.Gltf) -> Asset:
    """A document without skins: the node hierarchy of one root holding a mesh (the first
    one an animation moves, else the first) as the skeleton, each mesh bound whole to its
    node's bone (a joint per bone, identity inverse binds, so a vertex in its node's space
    lands where the node puts it). Other roots are not shown, but for those holding a node
    the spring bones name (a collider beside the chain): they join the skeleton as roots
    of their own."""
    def subtree(n):
        out, stack = [], [n]
        while stack:
            out.append(stack.pop())
            stack.extend(doc.nodes[out[-1]].children)
        return out
    roots = [n for n, node in enumerate(doc.nodes) if node.parent == -1
             and any(doc.nodes[k].mesh >= 0 for k in subtree(n))]
    if not roots:
        raise BadFile(path, "no mesh to inspect")
    moved = {c.get("target", {}).get("node") for a in doc.animations if isinstance(a, dict)
             for c in a.get("channels", []) if isinstance(c, dict)}
    roots.sort(key=lambda r: not moved.intersection(subtree(r)))
    named = _spring_nodes(doc)
    shown = [roots[0]] + [r for r in roots[1:] if named.intersection(subtree(r))]
    bones = []
    for r in shown:
        first = len(bones)
        for b in node_skeleton_source(doc, r, GLTF_OPTIONS).bones:
            if b.parent != rt.NO_BONE:
                b.parent += first
            bones.append(b)
    builder = rt.Builder()
    skeleton = _opened(rt.build_skeleton(builder, rt.SkeletonSource(bones)), "skeleton")
    n = skeleton.bone_count
    skin = rt.Skin.open(rt.build_skin(builder, rt.SkinSource(
        skeleton, list(range(n)), np.tile(np.eye(4)[:3], (n, 1, 1)))))
    asset = Asset(path.name, skeleton, skin)
    for node in [k for r in shown for k in subtree(r)]:
        mesh = doc.nodes[node].mesh
        if mesh < 0:
            continue
        bone = skeleton.find_bone(doc.node_bone_name(node))
        for p in range(primitive_count(doc, mesh)):
            obj = primitive(doc, mesh, p)
            if obj.get("mode", 4) == 4:
                asset.primitives.append(_gltf_primitive(doc, path, asset, node, p, obj,
                                                        (skin, bone)))
    if not asset.primitives:
        raise BadFile(path, "no triangle mesh to inspect")
    _gltf_extras(doc, asset)
    return asset


def _gltf_primitive(doc, path: Path, asset: Asset, node: int, p: int, obj: dict,
                    skin) -> Primitive:
    mesh, k = doc.nodes[node].mesh, len(asset.primitives)
    names = ["POSITION"] + (["NORMAL"] if "NORMAL" in obj.get("attributes", {}) else [])
    attrs = primitive_attributes(doc, mesh, p, names, {})
    positions = np.ascontiguousarray(attrs["POSITION"], np.float32)
    draco = (obj.get("extensions") or {}).get("KHR_draco_mesh_compression")
    if draco is not None:
        indices = _draco_faces(doc, draco["bufferView"])
    elif "indices" in obj:
        indices = doc.read(obj["indices"], f"mesh {mesh} primitive {p} indices", p, obj.at,
                           integer=True).astype(np.uint32).ravel()
    else:
        indices = np.arange(len(positions) - len(positions) % 3, dtype=np.uint32)
    if indices.size and int(indices.max()) >= len(positions) or indices.size % 3:
        raise BadFile(path, f"mesh {mesh} primitive {p}: indices past its {len(positions)} "
                            "vertices, or not whole triangles")
    normals = (np.ascontiguousarray(attrs["NORMAL"], np.float32) if "NORMAL" in attrs
               else smooth_normals(positions, indices))
    if isinstance(skin, tuple):            # a rigid mesh: (the skin, its node's bone)
        skin, bone = skin
        whole = np.full((len(positions), 1), bone)
        influences = rt.Influences.open(rt.build_influences(rt.Builder(),
                                        rt.InfluenceSource.from_dense(skin, whole, np.ones(whole.shape))))
    else:
        influences = _opened(build_gltf_influences(rt.Builder(), doc, mesh, p, skin),
                             "influences")
    out = Primitive(positions, normals, indices, influences, _material_colour(doc, obj, k))
    if obj.get("targets"):
        _gltf_morph(doc, asset, node, p, out)
    image = _base_texture(doc, path, obj)
    if image is not None and "TEXCOORD_0" in obj.get("attributes", {}):
        uv = primitive_attributes(doc, mesh, p, ["TEXCOORD_0"], {})["TEXCOORD_0"]
        out.uv, out.image = np.ascontiguousarray(uv, np.float32), image
    return out


def _gltf_morph(doc: rt.Gltf, asset: Asset, node: int, p: int, prim: Primitive) -> None:
    """The primitive's morph targets, each channel tied to the asset's weight of its node's
    target (one weight for the same target of every primitive of the mesh)."""
    mesh = doc.nodes[node].mesh
    prim.morph = rt.MorphTargets.open(bytes(build_gltf_morph_targets(rt.Builder(), doc, mesh, p,
                                                                     GLTF_OPTIONS)))
    defaults, _ = morph_weights(doc, node)
    tracks = {w.track: i for i, w in enumerate(asset.weights)}
    weight_of = []
    for t, name in enumerate(target_names(doc, mesh)):
        track = doc.names[node] + b"/" + name
        if track not in tracks:
            tracks[track] = len(asset.weights)
            asset.weights.append(MorphWeight(name.decode("utf-8", "replace"), track,
                                             float(defaults[t])))
        weight_of.append(tracks[track])
    prim.weight_of = np.array(weight_of, np.int64)


def _draco_faces(doc: rt.Gltf, view: int) -> np.ndarray:
    """A Draco primitive's triangles, in the decoded vertex order the runtime reads its
    attributes in (the runtime's importer keeps only the attributes)."""
    import DracoPy
    data = doc.view_bytes(view, view, "a Draco stream").tobytes()
    try:
        return np.asarray(DracoPy.decode(data).faces, np.uint32).ravel()
    except Exception as e:      # noqa: BLE001 - the decoder's refusals are the file's
        raise rt.FormatError(f"Draco stream of view {view} refused ({e})", 0) from None


def _base_texture(doc: rt.Gltf, path: Path, prim: dict) -> np.ndarray | None:
    """The material's base colour texture (set 0) as RGBA, when its image is a PNG or JPEG
    in a buffer view or a file beside the document; None otherwise (the flat colour then)."""
    try:
        material = doc.list("materials")[prim["material"]]
        info = material["pbrMetallicRoughness"]["baseColorTexture"]
        if info.get("texCoord", 0) != 0:
            return None
        image = doc.list("images")[doc.list("textures")[info["index"]]["source"]]
        if "bufferView" in image:
            raw = doc.view_bytes(image["bufferView"], image["bufferView"], "an image").tobytes()
        elif not str(image.get("uri", "data:")).startswith("data:"):
            raw = (path.parent / image["uri"]).read_bytes()
        else:
            return None
        return np.asarray(PILImage.open(io.BytesIO(raw)).convert("RGBA"))
    except (KeyError, IndexError, TypeError, OSError, ValueError, rt.ManiError):
        return None             # no texture to show, or one we cannot read: the flat colour


# ---- FBX -------------------------------------------------------------------------------
def _fbx(path: Path, data: bytes) -> Asset:
    fbx = open_fbx(rt.Builder(), data)
    if fbx.skin_count == 0 and fbx.morph_count == 0:
        raise BadFile(path, "no skin or blend shape to inspect")
    settings = fbx.read_settings()
    options = FbxOptions(unit_meters=settings.unit_meters, fold_placement=True)
    builder = rt.Builder()
    if fbx.skin_count == 0:
        return _blend_shape_fbx(path, fbx, settings, options)
    skeleton = _opened(fbx.build_skeleton(builder, fbx.skin_skeleton(0), options), "skeleton")
    skin = _opened(fbx.build_skin(builder, 0, skeleton, options), "skin")
    influences = _opened(fbx.build_influences(builder, 0, skin), "influences")
    geo = control_points(fbx._scene, 0)
    positions = geo.record.child(b"Vertices").array().reshape(-1, 3).astype(np.float32)
    polygons = geo.record.child(b"PolygonVertexIndex")
    if polygons is None:
        raise BadFile(path, "its skinned mesh has no polygons")
    indices = fan_triangles(polygons.array(np.int64), len(positions))
    asset = Asset(path.name, skeleton, skin, [Primitive(
        positions, smooth_normals(positions, indices), indices, influences, PALETTE[0])])
    _fbx_clips(fbx, asset, settings, options)
    return asset


def _fbx_clips(fbx, asset: Asset, settings, options: FbxOptions) -> None:
    builder = rt.Builder()
    rate = settings.frame_rate if settings.frame_rate > 0 else 30.0
    for c in range(fbx.clip_count):
        fbx.build_clip(builder, c, asset.skeleton, options, ImportClipOptions(sample_rate=rate))
        name = fbx.clip_name(c)
        asset.clips.append((name.decode() if name else f"take {c}",
                            _opened(builder.built(), "clip")))


def _blend_shape_fbx(path: Path, fbx, settings, options: FbxOptions) -> Asset:
    """An FBX without skins but with blend shapes: the first blend shape's mesh model and
    its subtree as the skeleton, the mesh bound whole to its model's bone (identity
    inverse binds, the control points in the model's space and the output's basis, as the
    targets' deltas are), the shapes' targets morphing it by the file's weights and the
    takes' DeformPercent tracks (the runtime walks a channel's in-betweens into target
    weights; the inspector weighs targets)."""
    from runtime.importers.fbx.morph import morph_sets
    from runtime.importers.fbx.skeleton import basis
    model = fbx.morph_model(0)
    builder = rt.Builder()
    skeleton = _opened(fbx.build_model_skeleton(builder, model, options), "skeleton")
    n = skeleton.bone_count
    skin = rt.Skin.open(rt.build_skin(builder, rt.SkinSource(
        skeleton, list(range(n)), np.tile(np.eye(4)[:3], (n, 1, 1)))))
    record = morph_sets(fbx._open_scene())[0].points       # the mesh's Geometry record
    P, u = basis(fbx._scene, options)
    raw = record.child(b"Vertices").array().reshape(-1, 3)
    positions = np.ascontiguousarray(u * raw @ P.T, np.float32)
    polygons = record.child(b"PolygonVertexIndex")
    if polygons is None:
        raise BadFile(path, "its blend shape mesh has no polygons")
    indices = fan_triangles(polygons.array(np.int64), len(positions))
    bone = skeleton.find_bone(fbx.model_bone_name(model))
    whole = np.full((len(positions), 1), bone)
    influences = rt.Influences.open(rt.build_influences(builder, rt.InfluenceSource.from_dense(
        skin, whole, np.ones(whole.shape))))
    prim = Primitive(positions, smooth_normals(positions, indices), indices, influences,
                     PALETTE[0])
    prim.morph = rt.MorphTargets.open(bytes(fbx.build_morph_targets(rt.Builder(), 0, options)))
    if prim.morph.vertex_count != len(positions):
        raise BadFile(path, f"its blend shapes move {prim.morph.vertex_count} vertices of "
                            f"{len(positions)}")
    defaults = fbx.morph_weights(0)
    prefix = fbx.model_bone_name(model) + b"/"
    asset = Asset(path.name, skeleton, skin, [prim])
    for t in range(prim.morph.target_count):
        name = prim.morph.target_name(t)
        asset.weights.append(MorphWeight(name, prefix + name.encode(), float(defaults[t])))
    prim.weight_of = np.arange(prim.morph.target_count, dtype=np.int64)
    _fbx_clips(fbx, asset, settings, options)
    return asset


def fan_triangles(polygon_index: np.ndarray, count: int) -> np.ndarray:
    """FBX's PolygonVertexIndex (a polygon's last index stored as ~i) as a triangle fan
    per polygon; polygons naming a vertex past `count` are dropped."""
    ends = polygon_index < 0
    vertex = np.where(ends, ~polygon_index, polygon_index)
    stops = np.flatnonzero(ends)
    starts = np.concatenate(([0], stops[:-1] + 1))
    out = []
    for s, e in zip(starts, stops):          # once per polygon, at load time
        ring = vertex[s:e + 1]
        if len(ring) < 3 or ring.max() >= count or ring.min() < 0:
            continue
        out.append(np.stack([np.full(len(ring) - 2, ring[0]), ring[1:-1], ring[2:]], 1))
    return (np.concatenate(out).ravel() if out else np.zeros(0, np.int64)).astype(np.uint32)


# ---- BVH -------------------------------------------------------------------------------
def _bvh(path: Path) -> Asset:
    bvh = load_bvh(path)
    skeleton = bvh.clip_source.skeleton
    clip = _opened(rt.build_clip(rt.Builder(), bvh.clip_source), "clip")
    travelling = {c.bone for c in bvh.clip_source.channels
                  if c.path == rt.ChannelPath.translation and np.ptp(c.values, axis=0).max()
                  > TRAVEL * np.linalg.norm(np.asarray(c.values)[0])}
    return Asset(path.name, skeleton, clips=[(path.stem, clip)], travelling=travelling)
