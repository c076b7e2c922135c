"""Skins and influences of a glTF document: a skin's joints found by bone name on an opened
skeleton with its inverse binds, and a primitive's JOINTS_n/WEIGHTS_n sets (from their
views, or from the primitive's Draco stream) as the influences maniBuildInfluences takes."""
from __future__ import annotations

import re

import numpy as np

from ...core.builder import Builder
from ...core.errors import InvalidError, ManiError
from ...core.limits import NO_BONE
from ...deform.influences import InfluenceSource, build_influences
from ...deform.skin import Skin, SkinSource, build_skin
from ...pose.skeleton import opened
from ..common import ImportFormatError, ImportReason
from .document import GltfOptions, opened_document, quiet
from .mesh import primitive, primitive_attributes

R = ImportReason
_SET = re.compile(r"(JOINTS|WEIGHTS)_(0|[1-9][0-9]*)\Z")

__all__ = ["skin_source", "build_gltf_skin", "influence_source", "build_gltf_influences"]


def _builder(builder) -> Builder:
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    return builder


def build_reason(e: ManiError, what: str) -> ImportFormatError:
    """A builder's refusal of what was read: Build, the build reason as the item."""
    return ImportFormatError(f"{what}: the builder refuses it: {e}", R.Build, item=int(e.reason))


@quiet
def skin_source(doc, skin, skeleton, options) -> SkinSource:
    """maniBuildGltfSkin's source: each joint's bone by its bone name (Bone for a joint the
    skeleton lacks, item the joint), the inverse binds (MAT4 floats, one a joint; identity
    without them) conjugated by the basis change."""
    doc = opened_document(doc)
    if isinstance(skin, bool) or not isinstance(skin, int) or not 0 <= skin < len(doc.skin_joints):
        raise InvalidError(f"skin {skin!r} past the {len(doc.skin_joints)} skins")
    skeleton = opened(skeleton)
    if not isinstance(options, GltfOptions):
        raise InvalidError("options must be GltfOptions")
    options = options.checked()
    obj = doc.skins[skin]
    joints = doc.skin_joints[skin]
    bones = []
    for j, node in enumerate(joints):
        b = skeleton.find_bone(doc.names[node])
        if b == NO_BONE:
            raise ImportFormatError(f"skin {skin}: joint {j} (node {node}, "
                                    f"{doc.names[node]!r}) is not a bone of the skeleton",
                                    R.Bone, offset=obj.at, item=j)
        bones.append(b)
    binds = None
    if obj.get("inverseBindMatrices") is not None:
        m = doc.read(obj["inverseBindMatrices"], f"skin {skin}", skin, obj.at,
                     kinds=("MAT4",), components=(5126,))
        if m.shape[0] < len(joints):
            raise ImportFormatError(f"skin {skin}: {m.shape[0]} inverse binds for "
                                    f"{len(joints)} joints", R.Property, offset=obj.at,
                                    item=skin)
        m = m[:len(joints)].reshape(-1, 4, 4).transpose(0, 2, 1)     # columns to rows
        turn = options.turn
        binds = np.empty((len(joints), 3, 4))
        binds[:, :, :3] = turn @ m[:, :3, :3] @ turn.T
        binds[:, :, 3] = (m[:, :3, 3] @ turn.T) * options.unit
    return SkinSource(skeleton, bones, binds)


def build_gltf_skin(builder, doc, skin, skeleton, options) -> bytes:
    """maniBuildGltfSkin."""
    _builder(builder)
    source = skin_source(doc, skin, skeleton, options)
    try:
        return build_skin(builder, source)
    except ManiError as e:
        if e.reason == 0:
            raise
        raise build_reason(e, f"skin {skin}") from None


@quiet
def influence_source(doc, mesh, prim, skin) -> InfluenceSource:
    """maniBuildGltfInfluences' source: every JOINTS_n/WEIGHTS_n pair side by side (zero
    weights dropped at build)."""
    doc = opened_document(doc)
    obj = primitive(doc, mesh, prim)
    if not isinstance(skin, Skin):
        raise InvalidError("skin is not an opened skin")
    attrs = obj.get("attributes")
    at = obj.at
    if not isinstance(attrs, dict):
        raise ImportFormatError(f"mesh {mesh} primitive {prim}: no attributes", R.Property,
                                offset=at, item=prim)
    sets: dict[str, set[int]] = {"JOINTS": set(), "WEIGHTS": set()}
    for name in attrs:
        m = _SET.match(name)
        if m:
            sets[m.group(1)].add(int(m.group(2)))
    if 0 not in sets["JOINTS"]:
        raise ImportFormatError(f"mesh {mesh} primitive {prim}: no JOINTS_0", R.Property,
                                offset=at, item=prim)
    if sets["JOINTS"] != sets["WEIGHTS"] or sets["JOINTS"] != set(range(len(sets["JOINTS"]))):
        raise ImportFormatError(f"mesh {mesh} primitive {prim}: JOINTS_n and WEIGHTS_n sets "
                                "not paired from 0", R.Property, offset=at, item=prim)
    k = len(sets["JOINTS"])
    for i in range(k):      # integer weights must be normalized (KHR_mesh_quantization)
        a = doc.accessor(attrs[f"WEIGHTS_{i}"], f"mesh {mesh} primitive {prim}", prim, at)
        if a.component != 5126 and not a.normalized:
            raise ImportFormatError(f"mesh {mesh} primitive {prim}: WEIGHTS_{i} of integers "
                                    "not normalized", R.Property, offset=a.at, item=prim)
    names = [f"JOINTS_{i}" for i in range(k)] + [f"WEIGHTS_{i}" for i in range(k)]
    kinds = {n: dict(kinds=("VEC4",), components=(5121, 5123), integer=True)
             if n.startswith("J") else dict(kinds=("VEC4",), components=(5126, 5121, 5123))
             for n in names}
    values = primitive_attributes(doc, mesh, prim, names, kinds)
    count = values[names[0]].shape[0]
    for n in names:
        if values[n].shape[0] != count:
            raise ImportFormatError(f"mesh {mesh} primitive {prim}: {n} of another count",
                                    R.Property, offset=at, item=prim)
        if n.startswith("W") and (values[n] < 0).any():
            v = int(np.flatnonzero((values[n] < 0).any(axis=1))[0])
            raise ImportFormatError(f"mesh {mesh} primitive {prim}: vertex {v} has a weight "
                                    "below 0", R.Influence, offset=at, item=v)
    joints = np.concatenate([values[f"JOINTS_{i}"] for i in range(k)], axis=1)
    weights = np.concatenate([values[f"WEIGHTS_{i}"] for i in range(k)], axis=1)
    return InfluenceSource.from_dense(skin, joints, weights)


def build_gltf_influences(builder, doc, mesh, prim, skin) -> bytes:
    """maniBuildGltfInfluences."""
    _builder(builder)
    source = influence_source(doc, mesh, prim, skin)
    try:
        return build_influences(builder, source)
    except ManiError as e:
        if e.reason == 0:
            raise
        raise build_reason(e, f"mesh {mesh} primitive {prim}") from None
