"""A glTF primitive's morph targets as the runtime's (maniBuildGltfMorphTargets): a channel a
target at full weight 1, named as clips name its weight tracks' tail; position, normal,
tangent, texture coordinate and colour deltas read (other semantics left), in the output's
basis, VEC3 colours given alpha 0; each target keeps only the vertices it moves."""
from __future__ import annotations

import re

import numpy as np

from ...core.builder import Builder
from ...core.errors import InvalidError, ManiError
from ...deform.morph import MAX_MORPH_ATTRIBUTES, MorphSemantic
from ...deform.morph_build import (MorphAttribute, MorphChannelSource, MorphSource,
                                   MorphTargetSource, build_morph_targets)
from ..common import ImportFormatError, ImportReason
from . import space
from .clip import target_names
from .document import GltfOptions, opened_document, quiet
from .mesh import primitive
from .skin import build_reason

R = ImportReason
_SEMANTIC = re.compile(r"(POSITION|NORMAL|TANGENT)\Z|(TEXCOORD|COLOR)_(0|[1-9][0-9]*)\Z")
_KINDS = {MorphSemantic.position: ("VEC3",), MorphSemantic.normal: ("VEC3",),
          MorphSemantic.tangent: ("VEC3",), MorphSemantic.texcoord: ("VEC2",),
          MorphSemantic.color: ("VEC3", "VEC4")}
_NAMES = {"POSITION": MorphSemantic.position, "NORMAL": MorphSemantic.normal,
          "TANGENT": MorphSemantic.tangent, "TEXCOORD": MorphSemantic.texcoord,
          "COLOR": MorphSemantic.color}

__all__ = ["morph_source", "build_gltf_morph_targets"]


def _semantic(name: str):
    m = _SEMANTIC.match(name)
    if m is None:
        return None
    if m.group(1):
        return _NAMES[m.group(1)], 0
    return _NAMES[m.group(2)], int(m.group(3))


@quiet
def morph_source(doc, mesh, prim, options) -> MorphSource:
    doc = opened_document(doc)
    obj = primitive(doc, mesh, prim)
    if not isinstance(options, GltfOptions):
        raise InvalidError("options must be GltfOptions")
    options = options.checked()
    targets = obj.get("targets")
    if not isinstance(targets, list) or not targets:
        raise InvalidError(f"mesh {mesh} primitive {prim} has no morph targets")
    attrs = obj.get("attributes")
    at = obj.at
    if not isinstance(attrs, dict) or "POSITION" not in attrs:
        raise ImportFormatError(f"mesh {mesh} primitive {prim}: no POSITION", R.Property,
                                offset=at, item=prim)
    n = doc.accessor(attrs["POSITION"], f"mesh {mesh} primitive {prim}", prim, at).count
    used: dict[tuple, int] = {}
    for t, target in enumerate(targets):
        if not isinstance(target, dict):
            raise ImportFormatError(f"mesh {mesh} primitive {prim}: target {t} not an object",
                                    R.Property, offset=at, item=t)
        for name in target:
            key = _semantic(name)
            if key is None:
                continue
            if name not in attrs:
                raise ImportFormatError(f"mesh {mesh} primitive {prim}: target {t} moves "
                                        f"{name}, which the primitive lacks", R.Property,
                                        offset=at, item=t)
            used.setdefault(key, 0)
    order = sorted(used)
    if len(order) > MAX_MORPH_ATTRIBUTES:
        raise ImportFormatError(f"mesh {mesh} primitive {prim}: {len(order)} attributes past "
                                f"{MAX_MORPH_ATTRIBUTES}", R.Property, offset=at, item=prim)
    names = target_names(doc, mesh)
    channels = []
    for t, target in enumerate(targets):
        deltas = []
        for semantic, set_ in order:
            name = [k for k, v in _NAMES.items() if v == semantic][0]
            name = name if semantic in (0, 1, 2) else f"{name}_{set_}"
            if name not in target:
                deltas.append(None)
                continue
            d = doc.read(target[name], f"mesh {mesh} primitive {prim} target {t} {name}", t,
                         at, kinds=_KINDS[semantic], count=n)
            if semantic == MorphSemantic.position:
                d = space.points(options, d)
            elif semantic in (MorphSemantic.normal, MorphSemantic.tangent):
                d = space.directions(options, d)
            elif semantic == MorphSemantic.color and d.shape[1] == 3:
                d = np.concatenate([d, np.zeros((n, 1))], axis=1)
            deltas.append(d)
        moved = np.zeros(n, bool)
        for d in deltas:
            if d is not None:
                moved |= (d != 0).any(axis=1)
        rows = np.flatnonzero(moved)
        kept = [None if d is None else d[rows] for d in deltas]
        name = names[t] if t < len(names) else b"%d" % t
        channels.append(MorphChannelSource(name, [MorphTargetSource(1.0, kept, rows)]))
    return MorphSource(n, [MorphAttribute(int(s), k) for s, k in order], channels)


def build_gltf_morph_targets(builder, doc, mesh, prim, options) -> bytes:
    """maniBuildGltfMorphTargets."""
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    source = morph_source(doc, mesh, prim, options)
    try:
        return build_morph_targets(builder, source)
    except ManiError as e:
        if e.reason == 0:
            raise
        raise build_reason(e, f"mesh {mesh} primitive {prim}'s targets") from None
