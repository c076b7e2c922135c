"""Meshes of a glTF document: the mesh, primitive and target counts, the mesh and skin a
node instances, the morph weights a node starts with, and a primitive's attributes read
from their accessors or, for a KHR_draco_mesh_compression primitive, from its decoded
stream."""
from __future__ import annotations

import numpy as np

from ...core.errors import CapacityError, InvalidError
from ..common import ImportFormatError, ImportReason
from . import codecs
from .document import (COMPONENTS, NORMALIZE, WIDTHS, Gltf, is_int,
                       is_number, opened_document, quiet)

R = ImportReason
NONE = 0xFFFFFFFF
_DRACO_TYPES = {1: 5120, 2: 5121, 3: 5122, 4: 5123, 6: 5125, 9: 5126}


def _index(value) -> int:
    return value if is_int(value) else -1


def primitives_of(doc: Gltf, mesh) -> list:
    mesh = _index(mesh)
    if not 0 <= mesh < len(doc.meshes):
        return []
    prims = doc.meshes[mesh].get("primitives")
    return prims if isinstance(prims, list) else []


def primitive(doc: Gltf, mesh, prim) -> dict:
    """The primitive's object; InvalidError for a mesh or primitive past its count, Property
    for one that is not an object."""
    if not 0 <= _index(mesh) < len(doc.meshes):
        raise InvalidError(f"mesh {mesh!r} past the {len(doc.meshes)} meshes")
    prims = primitives_of(doc, mesh)
    if not 0 <= _index(prim) < len(prims):
        raise InvalidError(f"primitive {prim!r} past mesh {mesh}'s {len(prims)}")
    obj = prims[prim]
    if not isinstance(obj, dict):
        raise ImportFormatError(f"mesh {mesh} primitive {prim} is not an object", R.Property,
                                offset=doc.meshes[mesh].at, item=prim)
    return obj


def primitive_count(doc, mesh) -> int:
    return len(primitives_of(opened_document(doc), mesh))


def target_count(doc, mesh, prim) -> int:
    prims = primitives_of(opened_document(doc), mesh)
    if not 0 <= _index(prim) < len(prims) or not isinstance(prims[prim], dict):
        return 0
    targets = prims[prim].get("targets")
    return len(targets) if isinstance(targets, list) else 0


def mesh_target_count(doc: Gltf, mesh: int) -> int:
    """A mesh's morph target count: its first primitive's (glTF has every one alike)."""
    return target_count(doc, mesh, 0)


def node_mesh(doc, node) -> int:
    doc = opened_document(doc)
    node = _index(node)
    if not 0 <= node < len(doc.nodes) or doc.nodes[node].mesh < 0:
        return NONE
    return doc.nodes[node].mesh


def node_skin(doc, node) -> int:
    doc = opened_document(doc)
    node = _index(node)
    if not 0 <= node < len(doc.nodes) or doc.nodes[node].skin < 0 or doc.nodes[node].mesh < 0:
        return NONE
    return doc.nodes[node].skin


@quiet
def morph_weights(doc, node, out=None, capacity: int | None = None):
    """maniGltf_GetMorphWeights: (weights, count). The node's weights, else its mesh's, else
    zeros; into `out` (float32) when given, CapacityError (with .count) when it is short
    (what it holds zeroed)."""
    doc = opened_document(doc)
    if not is_int(node) or not 0 <= node < len(doc.nodes):
        raise InvalidError(f"node {node!r} past the {len(doc.nodes)} nodes")
    n = doc.nodes[node]
    if n.mesh < 0:
        raise InvalidError(f"node {node} has no mesh")
    count = mesh_target_count(doc, n.mesh)
    if count == 0:
        raise InvalidError(f"node {node}'s mesh has no morph targets")
    if out is not None:
        if not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.ndim != 1 \
                or not out.flags.writeable:
            raise InvalidError("weights must be a writable 1-d float32 array")
        if capacity is None:
            capacity = out.size
    if capacity is not None:
        if not is_int(capacity) or not 0 <= capacity <= (out.size if out is not None else 0):
            raise InvalidError(f"capacity {capacity!r} past the array")
    weights = np.zeros(count)
    mesh_obj = doc.meshes[n.mesh]
    for given, at, item in ((n.weights, n.at, node), (mesh_obj.get("weights"), mesh_obj.at,
                                                      n.mesh)):
        if given is None:
            continue
        if not isinstance(given, list) or len(given) != count \
                or not all(is_number(w) for w in given):
            raise ImportFormatError(f"weights of {'node' if item == node else 'mesh'} {item} "
                                    f"not {count} numbers", R.Property, offset=at, item=item)
        weights = np.array(given, dtype=np.float64)
        break
    if out is None:
        if capacity:        # a positive capacity with no array
            raise InvalidError("a capacity with no array")
        return weights.astype(np.float32), count
    if capacity < count:
        out[:capacity] = 0
        raise CapacityError(f"{count} weights for a capacity of {capacity}", count=count)
    out[:count] = weights
    return out, count


def _draco(doc: Gltf, mesh: int, prim: int, obj: dict):
    """The primitive's Draco extension read: (decoded attributes by unique id, vertex count,
    {attribute name: unique id}), or None without one."""
    ext = obj.get("extensions")
    e = ext.get(codecs.DRACO_EXTENSION) if isinstance(ext, dict) else None
    if e is None:
        return None
    at = getattr(e, "at", obj.at)
    if not isinstance(e, dict) or not is_int(e.get("bufferView")) \
            or not 0 <= e["bufferView"] < len(doc.views) or not isinstance(e.get("attributes"), dict):
        raise ImportFormatError(f"mesh {mesh} primitive {prim}: a Draco extension without its "
                                "view or attributes", R.Property, offset=at, item=prim)
    v = e["bufferView"]
    data = doc.view_bytes(v, v, f"mesh {mesh} primitive {prim}'s Draco stream")
    cache = getattr(doc, "_draco_cache", None)
    if cache is None:
        cache = doc._draco_cache = {}
    if v not in cache:
        cache[v] = codecs.decode_draco(data.tobytes(), v, doc.views[v].at)
    decoded, count = cache[v]
    names = e["attributes"]
    attrs = obj.get("attributes", {})
    for name, uid in names.items():
        if name not in attrs:
            raise ImportFormatError(f"mesh {mesh} primitive {prim}: Draco names {name}, which "
                                    "the primitive lacks", R.Property, offset=at, item=prim)
        if not is_int(uid) or uid not in decoded:
            raise ImportFormatError(f"mesh {mesh} primitive {prim}: Draco unique id {uid!r} "
                                    "not in the stream", R.Property, offset=at, item=prim)
    return decoded, count, names


def primitive_attributes(doc: Gltf, mesh: int, prim: int, names: list[str],
                         kinds: dict) -> dict:
    """The named attributes of a primitive as doc.read gives them (kinds: its keyword
    arguments per name); Draco-compressed ones from the decoded stream, in its vertex
    order, each accessor matching its decoded attribute."""
    obj = primitive(doc, mesh, prim)
    attrs = obj.get("attributes")
    if not isinstance(attrs, dict):
        raise ImportFormatError(f"mesh {mesh} primitive {prim}: no attributes", R.Property,
                                offset=obj.at, item=prim)
    draco = _draco(doc, mesh, prim, obj)
    out = {}
    for name in names:
        if name not in attrs:
            raise ImportFormatError(f"mesh {mesh} primitive {prim} lacks {name}", R.Property,
                                    offset=obj.at, item=prim)
        want = kinds.get(name, {})
        if draco is not None and name in draco[2]:
            out[name] = _from_draco(doc, mesh, prim, obj, name, attrs[name], draco, want)
        else:
            out[name] = doc.read(attrs[name], f"mesh {mesh} primitive {prim} {name}", prim,
                                 obj.at, **want)
    return out


def _from_draco(doc, mesh, prim, obj, name, index, draco, want) -> np.ndarray:
    decoded, count, names = draco
    a = doc.accessor(index, f"mesh {mesh} primitive {prim} {name}", prim, obj.at)
    values, dtype = decoded[names[name]]
    if a.count != count or values.shape[1] != WIDTHS[a.kind] \
            or _DRACO_TYPES.get(dtype) != a.component or values.shape[0] != count:
        raise ImportFormatError(f"mesh {mesh} primitive {prim}: accessor {index} does not "
                                f"match Draco's {name}", R.Property, offset=a.at, item=prim)
    if want.get("kinds") and a.kind not in want["kinds"] or \
            want.get("components") and a.component not in want["components"]:
        raise ImportFormatError(f"mesh {mesh} primitive {prim}: {name} of a refused type",
                                R.Property, offset=a.at, item=prim)
    raw = values.astype(COMPONENTS[a.component])
    if want.get("integer"):
        if a.normalized or a.component == 5126:
            raise ImportFormatError(f"{name} not whole numbers", R.Property, offset=a.at,
                                    item=prim)
        return raw.astype(np.int64)
    out = raw.astype(np.float64)
    if a.normalized:
        out = np.maximum(out / NORMALIZE[a.component], -1.0)
    if not np.isfinite(out).all():
        raise ImportFormatError(f"{name}: a number not finite", R.Data, offset=a.at, item=index)
    return out
