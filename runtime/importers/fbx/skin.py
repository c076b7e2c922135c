"""Skins and influences from FBX clusters, as ufbx reads them.

A skin's clusters (SubDeformer Cluster children of the Deformer Skin) that link a model are
its joints, in cluster order. A cluster's `Transform` is the mesh node relative to its bone
at bind (ufbx's mesh_node_to_bone); where it is all zeros, it is the inverse of the bone's
bind world (the cluster's `TransformLink`, else the bone's matrix in a BindPose, else the
bone's rest world) times the mesh node's world. The inverse bind is that times the mesh's
geometric transform, in the options' basis.

Influences: each cluster's `Indexes` and `Weights`, indices past the control points (or
below 0) skipped, one index given twice by a cluster summed; blend weights from the skin's
`BlendIndexes` (or `Indexes`) and `BlendWeights` over a default of 1 for a dual quaternion
skin and 0 otherwise, unless the skin is linear."""
from __future__ import annotations

import numpy as np

from ...core.errors import CapacityError, ManiError
from ...core.limits import NO_BONE
from ...deform.influences import InfluenceSource, build_influences
from ...deform.skin import SkinSource, build_skin
from ..common import ImportFormatError, ImportReason
from .scene import NONE, Scene
from .skeleton import FbxOptions, basis
from .transform import Evaluated, geometric_of

__all__ = ["skin_joints", "inverse_binds", "build", "build_influences_of", "control_points"]


def skin_joints(scene: Scene, skin: int) -> list[tuple[int, int]]:
    """(cluster object, linked model) of each joint of a skin, in cluster order."""
    out = []
    for c in scene.clusters[skin]:
        m = scene.linked_model(c)
        if m != NONE:
            out.append((c, m))
    return out


def _matrix(rec, what: str, item: int) -> np.ndarray | None:
    """A 16-number column-major record as a 4x4, None when absent."""
    if rec is None:
        return None
    values = rec.array()
    if values.size != 16:
        raise ImportFormatError(f"{what} of {values.size} numbers, not 16",
                                ImportReason.Property, offset=rec.offset, item=item)
    m = values.reshape(4, 4).T.copy()
    if not np.isfinite(m).all():
        raise ImportFormatError(f"{what} not finite", ImportReason.Matrix, offset=rec.offset,
                                item=item)
    return m


def _bind_pose_matrices(scene: Scene) -> dict[int, np.ndarray]:
    """Model -> its matrix in the first BindPose that gives it."""
    out: dict[int, np.ndarray] = {}
    for obj in scene.objects:
        if obj.kind != b"Pose" or obj.subclass != b"BindPose":
            continue
        for node in obj.record.all(b"PoseNode"):
            ref = node.child(b"Node")
            mat = node.child(b"Matrix")
            if ref is None or mat is None:
                continue
            key = scene._ref(ref, 0)
            o = scene.by_id.get(key)
            m = scene.model_of.get(o) if o is not None else None
            if m is not None and m not in out:
                try:
                    out[m] = _matrix(mat, "a bind pose matrix", obj.index)
                except ImportFormatError:
                    continue
    return out


@np.errstate(all="ignore")
def _affine_inverse(m: np.ndarray, item: int) -> np.ndarray:
    if np.abs(m[3] - (0, 0, 0, 1)).max() > 1e-6:
        raise ImportFormatError("a bind that is not affine", ImportReason.Matrix, item=item)
    block = m[:3, :3]
    det = np.linalg.det(block)
    scale = max(np.abs(block).max(), 1e-300)
    if not np.isfinite(det) or abs(det) <= 1e-12 * scale ** 3:
        raise ImportFormatError("a bind that is not invertible", ImportReason.Matrix, item=item)
    return np.linalg.inv(m)


@np.errstate(all="ignore")
def inverse_binds(scene: Scene, skin: int, ev: Evaluated, options: FbxOptions) -> np.ndarray:
    """(joints, 3, 4) inverse binds in the options' basis (binary64)."""
    mesh = scene.skin_model[skin]
    mesh_world = ev.world[mesh] if mesh != NONE else np.eye(4)
    geo = geometric_of(scene.objects[scene.models[mesh]]) if mesh != NONE else np.eye(4)
    poses = None
    P, u = basis(scene, options)
    B = np.eye(4)
    B[:3, :3] = u * P
    Binv = np.eye(4)
    Binv[:3, :3] = P.T / u
    out = []
    for cluster, model in skin_joints(scene, skin):
        rec = scene.objects[cluster].record
        if (rec.child(b"Mode") is not None
                and rec.child(b"Mode").string(0) == b"Additive"):
            raise ImportFormatError("an additive cluster", ImportReason.Property, item=cluster)
        to_bone = _matrix(rec.child(b"Transform"), "a cluster's Transform", cluster)
        if to_bone is None or not to_bone.any():
            link = _matrix(rec.child(b"TransformLink"), "a cluster's TransformLink", cluster)
            if link is None or not link.any():
                if poses is None:
                    poses = _bind_pose_matrices(scene)
                link = poses.get(model, ev.world[model])
            to_bone = _affine_inverse(link, cluster) @ mesh_world
        else:
            _affine_inverse(to_bone, cluster)
        out.append((B @ to_bone @ geo @ Binv)[:3])
    return np.array(out).reshape(-1, 3, 4)


def build(builder, scene: Scene, skin: int, skeleton, ev: Evaluated, options: FbxOptions) -> bytes:
    """maniBuildFbxSkin's build: joints found by their models' bone names."""
    joints = skin_joints(scene, skin)
    bones = []
    for cluster, model in joints:
        bone = skeleton.find_bone(scene.bone_names[model])
        if bone == NO_BONE:
            raise ImportFormatError(f"the skeleton has no bone "
                                    f"{scene.bone_names[model].decode(errors='replace')!r}",
                                    ImportReason.Bone, item=cluster)
        bones.append(bone)
    binds = inverse_binds(scene, skin, ev, options)
    if (np.abs(binds) >= np.finfo(np.float32).max).any():
        raise ImportFormatError("an inverse bind past the binary32 range", ImportReason.Matrix,
                                item=joints[0][0] if joints else 0)
    return _built(build_skin, builder, SkinSource(skeleton, bones, binds))


def _built(fn, builder, source) -> bytes:
    try:
        return fn(builder, source)
    except (CapacityError, ImportFormatError):
        raise
    except ManiError as exc:
        if exc.reason == 0:
            raise
        raise ImportFormatError(f"the builder refuses it: {exc}", ImportReason.Build,
                                item=int(exc.reason)) from None


def control_points(scene: Scene, skin: int):
    """The record holding the skin's mesh's control points (its Geometry, or the 6.x
    model itself), None without."""
    for p in scene._parents_all(scene.skins[skin]):
        obj = scene.objects[p]
        if obj.kind == b"Geometry" and obj.record.child(b"Vertices") is not None:
            return obj
    mesh = scene.skin_model[skin]
    if mesh != NONE:
        obj = scene.objects[scene.models[mesh]]
        if obj.record.child(b"Vertices") is not None:
            return obj
        for c in scene.children.get(obj.index, ()):
            g = scene.objects[c]
            if g.kind == b"Geometry" and g.record.child(b"Vertices") is not None:
                return g
    return None


@np.errstate(all="ignore")
def build_influences_of(builder, scene: Scene, skin: int, built, method: int) -> bytes:
    """maniBuildFbxInfluences's build; `method` 0 linear, 1 dual quaternion, 2 blended."""
    geo = control_points(scene, skin)
    if geo is None:
        raise ImportFormatError("a skin's mesh without control points", ImportReason.Property,
                                item=scene.skins[skin])
    count = geo.record.child(b"Vertices").array().size // 3
    vs, js, ws = [], [], []
    for j, (cluster, _model) in enumerate(skin_joints(scene, skin)):
        rec = scene.objects[cluster].record
        ir, wr = rec.child(b"Indexes"), rec.child(b"Weights")
        if ir is None and wr is None:
            continue
        idx = ir.array(np.float64) if ir is not None else np.zeros(0)
        w = wr.array(np.float64) if wr is not None else np.zeros(0)
        if idx.size != w.size:
            raise ImportFormatError("Indexes and Weights of different counts",
                                    ImportReason.Property, offset=rec.offset, item=cluster)
        if not np.isfinite(w).all():
            raise ImportFormatError("a weight not finite", ImportReason.Data, offset=rec.offset,
                                    item=cluster)
        if (w < 0).any():
            raise ImportFormatError("a weight below 0", ImportReason.Influence,
                                    offset=rec.offset, item=cluster)
        keep = (idx >= 0) & (idx < count) & (idx == np.floor(idx))
        idx, w = idx[keep].astype(np.int64), w[keep]
        uniq, inv = np.unique(idx, return_inverse=True)
        summed = np.bincount(inv, weights=w, minlength=uniq.size)
        vs.append(uniq)
        js.append(np.full(uniq.size, j, dtype=np.int64))
        ws.append(summed)
    v = np.concatenate(vs) if vs else np.zeros(0, dtype=np.int64)
    jj = np.concatenate(js) if js else np.zeros(0, dtype=np.int64)
    w = np.concatenate(ws) if ws else np.zeros(0)
    order = np.lexsort((jj, v))
    v, jj, w = v[order], jj[order], w[order]
    offsets = np.concatenate(([0], np.cumsum(np.bincount(v, minlength=count))))
    blend = None
    if method != 0:
        blend = _blend_weights(scene, skin, count, 1.0 if method == 1 else 0.0)
    return _built(build_influences, builder, InfluenceSource(built, offsets, jj, w, blend))


def _blend_weights(scene: Scene, skin: int, count: int, default: float) -> np.ndarray:
    rec = scene.objects[scene.skins[skin]].record
    out = np.full(count, default)
    ir = rec.child(b"BlendIndexes") or rec.child(b"Indexes")
    wr = rec.child(b"BlendWeights")
    if ir is None or wr is None:
        return out
    idx, w = ir.array(np.float64), wr.array(np.float64)
    n = min(idx.size, w.size)
    idx, w = idx[:n], w[:n]
    if not np.isfinite(w).all() or ((w < 0) | (w > 1)).any():
        raise ImportFormatError("a blend weight outside 0 to 1", ImportReason.Influence,
                                offset=wr.offset, item=scene.skins[skin])
    keep = (idx >= 0) & (idx < count) & (idx == np.floor(idx))
    out[idx[keep].astype(np.int64)] = w[keep]
    return out
