"""FBX's transform rules, as ufbx evaluates them, in binary64.

A model's local is T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1,
which is always a translation, a rotation and a scale: R in the model's RotationOrder
(Euler XYZ means X turns first, R = Rz Ry Rx; spheric turns none, as in ufbx), Rpre and
Rpost in XYZ; with RotationActive 0 or RotationSpaceForLimitOnly 1 only Lcl Rotation
counts, in XYZ. Geometry hangs under its
model by GeometricTranslation, Rotation (XYZ) and Scaling, which nothing inherits.

InheritType 1 (RSrs, and anything unknown) composes the parent's world with the local; 0
(RrSs) and 2 (Rrs) hang the local under the parent's *unscaled* world (its world without its
own scale), the local's translation scaled by the parent's inherited scale and its scale by
that of the nearest RrSs ancestor's scale chain (RrSs takes its parent's, Rrs skips it)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.transform import quats_from_matrices
from .scene import NONE, FbxObject, Scene

__all__ = ["ORDERS", "SPHERIC", "euler_matrix", "rest_order", "Local", "local_of",
           "geometric_of", "Evaluated", "evaluate", "needed", "trs_matrix", "INHERIT_NORMAL", "INHERIT_COMPONENTWISE",
           "INHERIT_IGNORE_PARENT_SCALE"]

INHERIT_NORMAL, INHERIT_COMPONENTWISE, INHERIT_IGNORE_PARENT_SCALE = 1, 0, 2

# RotationOrder 0..5: the axes in the order they turn; 6, spheric, turns nothing (ufbx
# gives it no Euler turn), its angles read back as XYZ
ORDERS = ((0, 1, 2), (0, 2, 1), (1, 2, 0), (1, 0, 2), (2, 0, 1), (2, 1, 0), (0, 1, 2))
SPHERIC = 6


def _axis_matrices(degrees: np.ndarray) -> list[np.ndarray]:
    """(..., 3) angles to the three (..., 3, 3) single-axis rotations."""
    a = np.radians(np.asarray(degrees, dtype=np.float64))
    c, s = np.cos(a), np.sin(a)
    shape = a.shape[:-1] + (3, 3)
    out = []
    for k in range(3):
        m = np.zeros(shape)
        i, j = (k + 1) % 3, (k + 2) % 3
        m[..., k, k] = 1.0
        m[..., i, i] = c[..., k]
        m[..., j, j] = c[..., k]
        m[..., i, j] = -s[..., k]
        m[..., j, i] = s[..., k]
        out.append(m)
    return out


def euler_matrix(degrees, order: int = 0) -> np.ndarray:
    """(..., 3, 3) rotation of Euler angles in degrees turned in RotationOrder `order`
    (the identity in spheric, as ufbx evaluates it)."""
    axes = _axis_matrices(degrees)
    if order == SPHERIC:
        return np.broadcast_to(np.eye(3), axes[0].shape).copy()
    first, second, third = ORDERS[order]
    return axes[third] @ axes[second] @ axes[first]


@dataclass
class Local:
    """A local as translation, rotation matrix and scale (binary64)."""

    translation: np.ndarray
    rotation: np.ndarray
    scale: np.ndarray

    @property
    def quaternion(self) -> np.ndarray:
        return quats_from_matrices(self.rotation)


def trs_matrix(t, r, s) -> np.ndarray:
    """A 4x4 of translation t, rotation matrix r and scale s."""
    m = np.eye(4)
    m[:3, :3] = r * np.broadcast_to(np.asarray(s, dtype=np.float64), (3,))[None, :]
    m[:3, 3] = t
    return m


@np.errstate(all="ignore")
def local_of(obj: FbxObject, values: dict | None = None) -> Local:
    """A model's local from its properties (`values` overriding any of them by name)."""
    def v(name, default):
        if values is not None and name in values:
            return np.asarray(values[name], dtype=np.float64)
        return np.asarray(obj.vector(name, default), dtype=np.float64)
    zero, one = (0.0, 0.0, 0.0), (1.0, 1.0, 1.0)
    t = v(b"Lcl Translation", zero)
    r = v(b"Lcl Rotation", zero)
    s = v(b"Lcl Scaling", one)
    sp, rp = v(b"ScalingPivot", zero), v(b"RotationPivot", zero)
    so, ro = v(b"ScalingOffset", zero), v(b"RotationOffset", zero)
    order = rest_order(obj)
    active = obj.scalar(b"RotationActive", 1.0) != 0
    limit_only = obj.scalar(b"RotationSpaceForLimitOnly", 0.0) != 0
    if active and not limit_only:
        pre = euler_matrix(v(b"PreRotation", zero), 0)
        post = euler_matrix(v(b"PostRotation", zero), 0)
        rot = pre @ euler_matrix(r, order) @ post.T
    else:
        rot = euler_matrix(r, 0)
    translation = t + ro + rp + rot @ (so + sp - s * sp - rp)
    return Local(translation, rot, s)


@np.errstate(all="ignore")
def geometric_of(obj: FbxObject) -> np.ndarray:
    """The 4x4 from a model to its geometry."""
    t = np.asarray(obj.vector(b"GeometricTranslation", (0.0, 0.0, 0.0)))
    r = euler_matrix(obj.vector(b"GeometricRotation", (0.0, 0.0, 0.0)), 0)
    s = np.asarray(obj.vector(b"GeometricScaling", (1.0, 1.0, 1.0)))
    return trs_matrix(t, r, s)


def rest_order(obj: FbxObject) -> int:
    """A model's RotationOrder at rest, XYZ where out of range (as ufbx reads it)."""
    order = int(obj.scalar(b"RotationOrder", 0.0))
    return order if 0 <= order <= SPHERIC else 0


def inherit_mode(obj: FbxObject) -> int:
    mode = obj.scalar(b"InheritType", 1.0)
    return int(mode) if mode in (0.0, 2.0) else INHERIT_NORMAL


@dataclass
class Evaluated:
    """Every model's effective local (after its inheritance's changes), world, unscaled
    world (4x4) and the scale its children inherit; mode per model."""

    locals: list[Local]
    world: np.ndarray
    unscaled: np.ndarray
    inherit_scale: np.ndarray
    mode: list[int]


def model_order(scene: Scene) -> list[int]:
    """Models with every parent before its children, otherwise in model order."""
    done = [False] * len(scene.models)
    out = []
    for m in range(len(scene.models)):
        path = []
        x = m
        while x != NONE and not done[x]:
            path.append(x)
            done[x] = True
            x = scene.model_parent[x]
        out.extend(reversed(path))
    return out


def needed(scene: Scene, only) -> set | None:
    """The models `only` names and every ancestor of them (None: all)."""
    if only is None:
        return None
    out: set = set()
    for m in only:
        while m != NONE and m not in out:
            out.add(m)
            m = scene.model_parent[m]
    return out


@np.errstate(all="ignore")
def evaluate(scene: Scene, values: dict | None = None, only=None) -> Evaluated:
    """The scene's models evaluated at rest (their properties), or with `values`
    ({model: {property: value}}) in place of some; with `only`, just those models and
    their ancestors (the others' worlds left zero), so a model elsewhere whose properties
    are refused refuses nothing here."""
    n = len(scene.models)
    objs = [scene.objects[o] for o in scene.models]
    locals_: list = [None] * n
    world = np.zeros((n, 4, 4))
    unscaled = np.zeros((n, 4, 4))
    inherit = np.ones((n, 3))
    modes = [inherit_mode(o) for o in objs]
    scale_node = [NONE] * n
    keep = needed(scene, only)
    for m in model_order(scene):
        if keep is not None and m not in keep:
            continue
        local = local_of(objs[m], None if values is None else values.get(m))
        p = scene.model_parent[m]
        mode = modes[m]
        if p == NONE or mode == INHERIT_NORMAL:
            parent_world = np.eye(4) if p == NONE else world[p]
            world[m] = parent_world @ trs_matrix(local.translation, local.rotation, local.scale)
            unscaled[m] = parent_world @ trs_matrix(local.translation, local.rotation, 1.0)
            inherit[m] = local.scale
            if p != NONE:
                scale_node[m] = NONE
        else:
            scale_node[m] = p if mode == INHERIT_COMPONENTWISE else scale_node[p]
            parent_scale = inherit[scale_node[m]] if scale_node[m] != NONE else np.ones(3)
            local = Local(local.translation * inherit[p], local.rotation,
                          local.scale * parent_scale)
            world[m] = unscaled[p] @ trs_matrix(local.translation, local.rotation, local.scale)
            unscaled[m] = unscaled[p] @ trs_matrix(local.translation, local.rotation, 1.0)
            inherit[m] = local.scale
        locals_[m] = local
    return Evaluated(locals_, world, unscaled, inherit, modes)
