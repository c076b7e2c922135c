"""Morph targets from FBX blend shapes, as ufbx reads them.

A set is a BlendShape deformer (its channels the BlendShapeChannel children, each channel's
shapes its Shape geometries, in connection order), or, before 7.2, a mesh holding Shape
children (a channel each, named as the shape). A channel's shapes sit at FullWeights / 100
(1 without), sorted by that weight; a shape after another of the same weight is left out,
as is a channel without shapes. In a binary file Blender writes, FullWeights are instead
the shape's per-vertex weights (over 100), folded into its offsets. A shape's Indexes and
Vertices (offsets) and Normals give its rows, indices past the control points skipped.

At rest a channel's weight is DeformPercent / 100, walked from the zero shape through its
targets' full weights (linear between the two around it, past the last extrapolated)."""
from __future__ import annotations

import math

import numpy as np

from ...core.errors import CapacityError, ManiError
from ...deform.morph import MorphSemantic
from ...deform.morph_build import (MorphAttribute, MorphChannelSource, MorphSource,
                                   MorphTargetSource, build_morph_targets)
from ..common import ImportFormatError, ImportReason
from .scene import NONE, Scene
from .skeleton import FbxOptions, basis

__all__ = ["morph_sets", "MorphSet", "build", "rest_weights"]


class MorphSet:
    """One set: the mesh model, the record holding the control points, and its channels:
    (name, [(full weight, shape record, shape name)] sorted and deduplicated, channel
    object or None)."""

    def __init__(self, model: int, points, channels: list, item: int):
        self.model, self.points, self.channels, self.item = model, points, channels, item


def _blender(scene: Scene) -> bool:
    creator = scene.doc.top.child(b"Creator")
    name = creator.string(0) if creator is not None else None
    return scene.doc.binary and bool(name) and name.startswith(b"Blender")


def _full_weights(rec, item: int) -> np.ndarray | None:
    """A channel's FullWeights (decoded here: a set is counted without its numbers being
    judged; one not finite is refused where the weights are used)."""
    child = rec.child(b"FullWeights")
    if child is None:
        return None
    try:
        return child.array(np.float64)
    except ImportFormatError:
        return np.array([math.nan])


def _check_finite(s: "MorphSet") -> None:
    for _name, shapes, ch in s.channels:
        for w, _rec, _n, per_vertex in shapes:
            if not math.isfinite(w) or (per_vertex is not None and not np.isfinite(per_vertex).all()):
                raise ImportFormatError("a FullWeights value not finite", ImportReason.Data,
                                        offset=ch.record.offset if ch is not None else 0,
                                        item=ch.index if ch is not None else s.item)


def _points_of(scene: Scene, model: int):
    if model == NONE:
        return None
    obj = scene.objects[scene.models[model]]
    if obj.record.child(b"Vertices") is not None:
        return obj.record
    for c in scene.children.get(obj.index, ()):
        g = scene.objects[c]
        if g.kind == b"Geometry" and g.record.child(b"Vertices") is not None:
            return g.record
    return None


def _geometry_model(scene: Scene, obj: int) -> tuple[int, object]:
    for p in scene._parents_all(obj):
        o = scene.objects[p]
        if o.kind == b"Geometry":
            for q in scene._parents_all(p):
                if q in scene.model_of:
                    return scene.model_of[q], o.record
            return NONE, o.record
        if p in scene.model_of:
            return scene.model_of[p], _points_of(scene, scene.model_of[p])
    return NONE, None


def _keyed(shapes: list) -> list:
    """Shapes sorted by full weight, a repeat of a weight left out."""
    out = []
    for w, rec, name, weights in sorted(shapes, key=lambda s: (math.isnan(s[0]), s[0])):
        if out and out[-1][0] == w:
            continue
        out.append((w, rec, name, weights))
    return out


def morph_sets(scene: Scene) -> list[MorphSet]:
    """The document's sets in the spec's order."""
    blender = _blender(scene)
    sets = []
    for obj in scene.objects:
        if obj.kind != b"Deformer" or obj.subclass != b"BlendShape":
            continue
        model, points = _geometry_model(scene, obj.index)
        channels = []
        for c in scene.children.get(obj.index, ()):
            ch = scene.objects[c]
            if ch.kind != b"Deformer" or ch.subclass != b"BlendShapeChannel":
                continue
            full = _full_weights(ch.record, ch.index)
            shapes = [s for s in scene.children.get(c, ())
                      if scene.objects[s].kind == b"Geometry" and scene.objects[s].subclass == b"Shape"]
            entries = []
            for k, s in enumerate(shapes):
                weight, per_vertex = 1.0, None
                if full is not None and k < full.size:
                    if not blender:
                        weight = float(full[k]) / 100.0
                    else:
                        per_vertex = full / 100.0
                entries.append((weight, scene.objects[s].record, scene.objects[s].name, per_vertex))
            if entries:
                channels.append((ch.name, _keyed(entries), ch))
        sets.append(MorphSet(model, points, channels, obj.index))
    if scene.version < 7200:
        holders = []
        for m in range(len(scene.models)):
            rec = scene.objects[scene.models[m]].record
            if rec.child(b"Shape") is not None:
                holders.append((m, rec, rec))
            else:
                for c in scene.children.get(scene.models[m], ()):
                    g = scene.objects[c]
                    if g.kind == b"Geometry" and g.record.child(b"Shape") is not None:
                        holders.append((m, g.record, g.record))
        for m, holder, points in holders:
            channels = []
            for shape in holder.all(b"Shape"):
                name = shape.string(0) or b""
                channels.append((name, [(1.0, shape, name, None)], None))
            sets.append(MorphSet(m, points, channels, scene.models[m]))
    return sets


def target_count(s: MorphSet) -> int:
    return sum(len(shapes) for _, shapes, _ in s.channels)


def _deform_percent(ch) -> float:
    if ch is None:
        return 0.0
    found = ch.prop(b"DeformPercent")
    if found is None:
        rec = ch.record.child(b"DeformPercent")
        v = rec.number(0) if rec is not None else None
    else:
        v = found[0].number(found[1])
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
        return 0.0
    return float(v)


def walk(weight: float, fulls: list[float]) -> list[float]:
    """Each target's effective weight for a channel weight, ufbx's walk: between the two
    knots around the weight (the zero shape at 0 among them), linearly."""
    n = len(fulls)
    out = [0.0] * n
    if n == 0:
        return out
    neg = [k for k in range(n) if fulls[k] < 0]
    last_negative = neg[-1] if neg else -1
    prev = nxt = (0.0, None)
    if weight > 0.0:
        if last_negative >= 0:
            prev = (fulls[last_negative], last_negative)
        for k in range(last_negative + 1, n):
            prev, nxt = nxt, (fulls[k], k)
            if fulls[k] > weight:
                break
    else:
        if last_negative + 1 < n:
            prev = (fulls[last_negative + 1], last_negative + 1)
        for k in range(last_negative, -1, -1):
            prev, nxt = nxt, (fulls[k], k)
            if fulls[k] < weight:
                break
    delta = nxt[0] - prev[0]
    if delta != 0.0:
        t = (weight - prev[0]) / delta
        if prev[1] is not None:
            out[prev[1]] = 1.0 - t
        if nxt[1] is not None:
            out[nxt[1]] = t
    return out


@np.errstate(all="ignore")
def rest_weights(s: MorphSet) -> np.ndarray:
    _check_finite(s)
    out = []
    for _name, shapes, ch in s.channels:
        out.extend(walk(_deform_percent(ch) / 100.0, [w for w, *_ in shapes]))
    return np.asarray(out, dtype=np.float32)


@np.errstate(all="ignore")
def build(builder, scene: Scene, s: MorphSet, options: FbxOptions) -> bytes:
    """Builds a set's targets into the builder."""
    _check_finite(s)
    if s.points is None or s.points.child(b"Vertices") is None:
        raise ImportFormatError("a morph's mesh without control points", ImportReason.Property,
                                item=s.item)
    count = s.points.child(b"Vertices").array().size // 3
    P, u = basis(scene, options)
    with_normals = any(rec.child(b"Normals") is not None
                       for _, shapes, _ in s.channels for _, rec, _, _ in shapes)
    attributes = [MorphAttribute(MorphSemantic.position, 0)]
    if with_normals:
        attributes.append(MorphAttribute(MorphSemantic.normal, 0))
    channels = []
    seen: set = set()
    for c, (name, shapes, ch) in enumerate(s.channels):
        item = ch.index if ch is not None else s.item
        cname = name if name not in seen else name + b"#%d" % c
        seen.add(cname)
        targets = []
        for weight, rec, shape_name, per_vertex in shapes:
            idx_rec, pos_rec = rec.child(b"Indexes"), rec.child(b"Vertices")
            if idx_rec is None or pos_rec is None:
                raise ImportFormatError("a shape without Indexes or Vertices",
                                        ImportReason.Property, offset=rec.offset, item=item)
            idx = idx_rec.array(np.float64)
            pos = pos_rec.array(np.float64)
            nrm_rec = rec.child(b"Normals")
            nrm = nrm_rec.array(np.float64) if nrm_rec is not None else None
            if pos.size != 3 * idx.size or (nrm is not None and nrm.size != pos.size) \
                    or (per_vertex is not None and per_vertex.size != idx.size):
                raise ImportFormatError("a shape's arrays of mismatched sizes",
                                        ImportReason.Property, offset=rec.offset, item=item)
            pos = pos.reshape(-1, 3)
            if per_vertex is not None:
                pos = pos * per_vertex[:, None]
            keep = (idx >= 0) & (idx < count) & (idx == np.floor(idx))
            deltas = [u * pos[keep] @ P.T]
            if with_normals:
                deltas.append(None if nrm is None else nrm.reshape(-1, 3)[keep] @ P.T)
            targets.append(MorphTargetSource(weight, deltas, idx[keep].astype(np.int64),
                                             shape_name or None))
        channels.append(MorphChannelSource(cname, targets))
    source = MorphSource(count, attributes, channels)
    try:
        return build_morph_targets(builder, source)
    except (CapacityError, ImportFormatError):
        raise
    except ManiError as exc:
        if exc.reason == 0:
            raise
        raise ImportFormatError(f"the morph builder refuses it: {exc}", ImportReason.Build,
                                item=int(exc.reason)) from None
