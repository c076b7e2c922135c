"""Skeletons from an FBX scene: the options' basis, the bones a skeleton takes (its models,
the models between them and their common root, or a model's subtree), the helper bones
FBX's scale inheritance needs, and where the root hangs.

A model whose InheritType is not RSrs hangs under its parent's unscaled world; in a
skeleton that is a helper bone, `parent#unscaled`, under the parent's own anchor with the
parent's translation and rotation and no scale. Every world the runtime composes from these
bones then equals the one FBX defines.

The options' basis B (a signed permutation taking the file's right, up and front axes to
the options', times the file's unit over the options') changes every world W to B W B^-1:
a local's translation goes through B, its rotation and scale are conjugated."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.errors import CapacityError, InvalidError, ManiError
from ...core.limits import NO_BONE
from ...core.transform import decompose_affine, quats_from_matrices
from ...pose.skeleton import BoneSource, SkeletonSource, build_skeleton
from ..common import ImportFormatError, ImportReason
from .scene import NONE, Axis, Scene
from .transform import INHERIT_NORMAL, Evaluated, trs_matrix

__all__ = ["FbxOptions", "default_fbx_options", "basis", "skeleton_models",
           "subtree_models", "skeleton_source", "build", "placement", "HELPER_SUFFIX"]

HELPER_SUFFIX = b"#unscaled"


@dataclass
class FbxOptions:
    """maniFbxOptions: the axes and unit skeletons, skins and clips are built in, and
    whether a skeleton's placement is folded into its root."""

    right: Axis = Axis.PositiveX
    up: Axis = Axis.PositiveY
    front: Axis = Axis.PositiveZ
    unit_meters: float = 1.0
    fold_placement: bool = False

    def checked(self, what: str = "options") -> "FbxOptions":
        axes = []
        for field in ("right", "up", "front"):
            v = getattr(self, field)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 5:
                raise InvalidError(f"{what}.{field} must be an Axis, not {v!r}")
            axes.append(Axis(v))
        if len({a // 2 for a in axes}) != 3:
            raise InvalidError(f"{what}'s axes must be three different axes")
        unit = self.unit_meters
        if isinstance(unit, bool) or not isinstance(unit, (int, float)) \
                or not math.isfinite(unit) or not unit > 0 or not math.isfinite(1.0 / unit):
            raise InvalidError(f"{what}.unit_meters must be finite and above 0, not {unit!r}")
        if not isinstance(self.fold_placement, bool):
            raise InvalidError(f"{what}.fold_placement must be a bool")
        return FbxOptions(*axes, float(unit), self.fold_placement)


def default_fbx_options() -> FbxOptions:
    """maniDefaultFbxOptions: X right, Y up, Z front, metres, placement kept apart."""
    return FbxOptions()


def _axis_vector(a: Axis) -> np.ndarray:
    v = np.zeros(3)
    v[a // 2] = -1.0 if a % 2 else 1.0
    return v


def basis(scene: Scene, options: FbxOptions) -> tuple[np.ndarray, float]:
    """(P, u): the signed permutation taking the file's axes to the options', and the
    factor taking the file's unit to the options'."""
    s = scene.settings()
    src = np.stack([_axis_vector(s.right), _axis_vector(s.up), _axis_vector(s.front)], 1)
    dst = np.stack([_axis_vector(options.right), _axis_vector(options.up),
                    _axis_vector(options.front)], 1)
    return dst @ src.T, s.unit_meters / options.unit_meters


def skeleton_models(scene: Scene, skeleton: int) -> list[int]:
    """A skeleton's models, the models between them and their common root, in model order."""
    wanted = scene.skeletons[skeleton]
    paths = []
    for m in wanted:
        path = []
        x = m
        while x != NONE:
            path.append(x)
            x = scene.model_parent[x]
        paths.append(path[::-1])        # top first
    common = 0
    while all(len(p) > common for p in paths) and len({p[common] for p in paths}) == 1:
        common += 1
    keep: set[int] = set()
    for p in paths:
        keep.update(p[max(common - 1, 0):])
    return sorted(keep)


def subtree_models(scene: Scene, model: int) -> list[int]:
    """A model and every model below it, the model first, then in model order."""
    out = []
    stack = [model]
    while stack:
        m = stack.pop()
        out.append(m)
        stack.extend(scene.model_children[m])
    return [model] + sorted(out[1:])


def _convert(t, r, s, P, u):
    """A local in the options' basis: translation through u P, rotation and scale
    conjugated by P."""
    rot = P @ r @ P.T
    scale = np.abs(P) @ s
    return u * (P @ t), quats_from_matrices(rot), scale


@np.errstate(all="ignore")
def skeleton_source(scene: Scene, models: list[int], ev: Evaluated,
                    options: FbxOptions) -> tuple[SkeletonSource, list[bytes], list[int]]:
    """The bone sources of `models` (whose first ancestor in the list, or none, is each
    one's parent), helpers after the model they undo the scale of; the bone names and the
    model (or NONE-negated helper: -1 - model) each bone stands for."""
    P, u = basis(scene, options)
    inside = set(models)
    top = [m for m in models if scene.model_parent[m] not in inside]
    needs_helper = {scene.model_parent[m] for m in models
                    if m not in top and ev.mode[m] != INHERIT_NORMAL}
    index: dict = {}
    bones: list[BoneSource] = []
    names: list[bytes] = []
    stands: list[int] = []
    pending = list(models)
    for m in pending:
        index[m] = len(bones)
        bones.append(None)
        names.append(scene.bone_names[m])
        stands.append(m)
        if m in needs_helper:
            index[-1 - m] = len(bones)
            bones.append(None)
            names.append(scene.bone_names[m] + HELPER_SUFFIX)
            stands.append(-1 - m)
    fold = options.fold_placement
    for m in models:
        local = ev.locals[m]
        p = scene.model_parent[m]
        if m in top:
            anchor = NO_BONE
        elif ev.mode[m] != INHERIT_NORMAL:
            anchor = index[-1 - p]
        else:
            anchor = index[p]
        t, q, s = _convert(local.translation, local.rotation, local.scale, P, u)
        if anchor == NO_BONE and fold:
            t, q, s = _folded(scene, m, ev, P, u, local.translation, local.rotation, local.scale)
        bones[index[m]] = BoneSource(names[index[m]], anchor, tuple(t), tuple(q), tuple(s))
        if m in needs_helper:
            ht, hq, hs = _convert(local.translation, local.rotation, np.ones(3), P, u)
            if anchor == NO_BONE and fold:
                ht, hq, hs = _folded(scene, m, ev, P, u, local.translation, local.rotation,
                                     np.ones(3))
            bones[index[-1 - m]] = BoneSource(names[index[-1 - m]], anchor, tuple(ht),
                                              tuple(hq), tuple(hs))
    return SkeletonSource(bones), names, stands


def _above(scene: Scene, model: int, ev: Evaluated) -> np.ndarray:
    """The world a model hangs under: its parent's world, or its unscaled world when the
    model does not inherit its scale normally; identity at the top."""
    p = scene.model_parent[model]
    if p == NONE:
        return np.eye(4)
    return ev.world[p] if ev.mode[model] == INHERIT_NORMAL else ev.unscaled[p]


def _converted_matrix(m: np.ndarray, P, u) -> np.ndarray:
    B = np.eye(4)
    B[:3, :3] = u * P
    Binv = np.eye(4)
    Binv[:3, :3] = P.T / u
    return B @ m @ Binv


@np.errstate(all="ignore")
def placement(scene: Scene, root: int, ev: Evaluated, options: FbxOptions) -> np.ndarray:
    """maniFbx_GetSkeletonPlacement's affine (3, 4) float32."""
    if options.fold_placement or scene.model_parent[root] == NONE:
        out = np.zeros((3, 4), dtype=np.float32)
        out[:, :3] = np.eye(3)
        return out
    P, u = basis(scene, options)
    m = _converted_matrix(_above(scene, root, ev), P, u)
    bad = ~(np.abs(m[:3]) < np.finfo(np.float32).max)
    if bad.any():
        raise ImportFormatError("a placement past the binary32 range", ImportReason.Matrix,
                                item=scene.models[root])
    return m[:3].astype(np.float32)


@np.errstate(all="ignore")
def _folded(scene, m, ev, P, u, t, r, s):
    """A root's local with its placement composed in; Matrix when that has shear."""
    world = _converted_matrix(_above(scene, m, ev) @ trs_matrix(t, r, s), P, u)
    with np.errstate(all="ignore"):
        if not np.isfinite(world).all() or not (np.abs(world) < 3e38).all():
            raise ImportFormatError("a folded root past the binary32 range",
                                    ImportReason.Matrix, item=scene.models[m])
    d = decompose_affine(world[:3].astype(np.float32)).astype(np.float64)
    back = trs_matrix(d[0:3], _quat_matrix(d[3:7]), d[7:10])
    size = max(1.0, float(np.abs(world[:3]).max()))
    if np.abs(back - world).max() > 1e-4 * size:
        raise ImportFormatError("a placement that does not fold into the root (shear)",
                                ImportReason.Matrix, item=scene.models[m])
    return d[0:3], d[3:7], d[7:10]


def _quat_matrix(q) -> np.ndarray:
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def build(builder, scene: Scene, models: list[int], ev: Evaluated, options: FbxOptions) -> bytes:
    """Builds the skeleton of `models` into the builder; what the skeleton builder refuses
    is a FormatError (Build, its reason the item)."""
    source, names, stands = skeleton_source(scene, models, ev, options)
    try:
        return build_skeleton(builder, source)
    except (CapacityError, ImportFormatError):
        raise
    except ManiError as exc:
        if exc.reason == 0:
            raise
        raise ImportFormatError(f"the skeleton builder refuses it: {exc}",
                                ImportReason.Build, item=int(exc.reason)) from None
