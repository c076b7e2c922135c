"""An asset file read into what the inspector shows: a skeleton, its clips, and the skinned
mesh parts of its first skin (glTF, GLB, FBX), or for a BVH the skeleton alone (the figure
module puts boxes over it).

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
                                    build_gltf_node_skeleton, build_gltf_skeleton, build_gltf_skin,
                                    node_mesh, node_skin,
                                    primitive_count)
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
    meshes = sorted({node_mesh(doc, n) for n in range(len(doc.nodes)) if node_skin(doc, n) == 0})
    for mesh in meshes:
        for p in range(primitive_count(doc, mesh)):
            obj = primitive(doc, mesh, p)
            if obj.get("mode", 4) != 4:
                continue
            asset.primitives.append(_gltf_primitive(doc, path, mesh, p, obj, skin,
                                                    len(asset.primitives)))
    if not asset.primitives:
        raise BadFile(path, "its first skin has no triangle mesh")
    _gltf_clips(doc, asset)
    return asset


def _gltf_clips(doc: rt.Gltf, asset: Asset) -> None:
    builder = rt.Builder()
    for a in range(len(doc.animations)):
        clip = _opened(build_gltf_clip(builder, doc, a, asset.skeleton, GLTF_OPTIONS,
                                       KEYS_RATE)[0], "clip")
        name = animation_name(doc, a)
        asset.clips.append((name.decode() if name else f"animation {a}", clip))


def _rigid_gltf(path: Path, doc: rt.Gltf) -> Asset:
    """A document without skins: the node hierarchy of one root holding a mesh (the first
    one an animation moves, else the first) as the skeleton, each mesh bound whole to its
    node's bone (a joint per bone, identity inverse binds, so a vertex in its node's space
    lands where the node puts it). Other roots are not shown."""
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
    builder = rt.Builder()
    skeleton = _opened(build_gltf_node_skeleton(builder, doc, roots[0], GLTF_OPTIONS),
                       "skeleton")
    n = skeleton.bone_count
    skin = rt.Skin.open(rt.build_skin(builder, rt.SkinSource(
        skeleton, list(range(n)), np.tile(np.eye(4)[:3], (n, 1, 1)))))
    asset = Asset(path.name, skeleton, skin)
    for node in subtree(roots[0]):
        mesh = doc.nodes[node].mesh
        if mesh < 0:
            continue
        bone = skeleton.find_bone(doc.node_bone_name(node))
        for p in range(primitive_count(doc, mesh)):
            obj = primitive(doc, mesh, p)
            if obj.get("mode", 4) == 4:
                asset.primitives.append(_gltf_primitive(
                    doc, path, mesh, p, obj, (skin, bone), len(asset.primitives)))
    if not asset.primitives:
        raise BadFile(path, "no triangle mesh to inspect")
    _gltf_clips(doc, asset)
    return asset


def _gltf_primitive(doc, path: Path, mesh: int, p: int, obj: dict, skin, k: int) -> Primitive:
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
    image = _base_texture(doc, path, obj)
    if image is not None and "TEXCOORD_0" in obj.get("attributes", {}):
        uv = primitive_attributes(doc, mesh, p, ["TEXCOORD_0"], {})["TEXCOORD_0"]
        out.uv, out.image = np.ascontiguousarray(uv, np.float32), image
    return out


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
    if fbx.skin_count == 0:
        raise BadFile(path, "no skin to inspect")
    settings = fbx.read_settings()
    options = FbxOptions(unit_meters=settings.unit_meters, fold_placement=True)
    builder = rt.Builder()
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
    rate = settings.frame_rate if settings.frame_rate > 0 else 30.0
    for c in range(fbx.clip_count):
        fbx.build_clip(builder, c, skeleton, options, ImportClipOptions(sample_rate=rate))
        name = fbx.clip_name(c)
        asset.clips.append((name.decode() if name else f"take {c}",
                            _opened(builder.built(), "clip")))
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
