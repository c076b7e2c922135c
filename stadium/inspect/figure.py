"""The inspected asset as a Voxel3D rig: its mesh skinned on the CPU by the runtime each
frame straight into one `x y z u v shade` vertex buffer, drawn and shadowed like a
creature (the trainer figure's way, stadium.rig.trainer_model, for any skinned asset).

A BVH has no mesh, so it gets a stick figure: a box along every bone from its parent's
joint to its own, bound rigidly to the parent, over the skeleton's rest pose. A bone whose
translation the clip moves (the hips under a root left at the origin) gets no box: a
rigid box from its parent would stand where the bone has left.
"""
from __future__ import annotations

import numpy as np

import runtime as rt

from ..rig.figure import SkinnedFigure
from ..rig.rig import SHADE_BASE, SHADE_X, SHADE_Y, SHADE_Z, RigPart
from .loading import PALETTE, Asset, Primitive

_SHADE_DIR = np.array([SHADE_X, SHADE_Y, SHADE_Z], np.float32)


class Figure(SkinnedFigure):
    """One asset's skinned vertex rows: `pose(clip, time)` rewrites them in place.

    Every primitive's rows are consecutive slices of one float32 array, so the renderer
    uploads the whole figure in one write; the skin jobs, palette and normal scratch are
    made here, so a frame allocates nothing but what sampling the clip takes."""

    def __init__(self, asset: Asset):
        if not asset.primitives:
            box_figure(asset)
        self.asset = asset
        self.skeleton, self.skin = asset.skeleton, asset.skin
        prims = asset.primitives
        counts = [len(p.positions) for p in prims]
        starts = np.concatenate(([0], np.cumsum(counts))).astype(int)
        total = int(starts[-1])
        self._buffer = np.zeros((total, 6), np.float32)
        self._normals = np.empty((total, 3), np.float32)
        self.palette = np.empty((self.skin.joint_count, 3, 4), np.float32)
        self.images = [p.rgba() for p in prims]
        self.parts, self._jobs = [], []
        for k, (p, s, e) in enumerate(zip(prims, starts[:-1], starts[1:])):
            rows = self._buffer[s:e]
            rows[:, 3:5] = p.uv if p.uv is not None else 0.5
            self._jobs.append(rt.SkinJob(p.influences, self.palette, streams=[
                rt.SkinStream(rt.StreamKind.position, p.positions, rows[:, 0:3]),
                rt.SkinStream(rt.StreamKind.normal, p.normals, self._normals[s:e])]))
            self.parts.append(RigPart(rows, p.indices, k, False))
        self._opaque = tuple(self.parts)
        self.pose_ = rt.Pose(self.skeleton)
        self.version = 0

    def pose(self, clip: rt.Clip | None, time: float) -> None:
        """Sample `clip` at `time` (the rest pose without one) and skin into the rows."""
        pose = self.pose_
        if clip is None:
            pose.set_rest(self.skeleton)
        else:
            clip.sample(self.skeleton, time, pose)
        pose.compute_model(self.skeleton)
        self.skin_pose(pose)

    def skin_pose(self, pose: rt.Pose) -> None:
        """Skin `pose` (its model space current) into the rows and shade them."""
        self.skin.compute_palette(pose, self.skeleton, out=self.palette)
        for job in self._jobs:
            rt.skin_linear(job)
        np.matmul(self._normals, _SHADE_DIR, out=self._buffer[:, 5])
        self._buffer[:, 5] += SHADE_BASE
        self.version += 1


# ---- the stick figure -------------------------------------------------------------------
_CUBE = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], np.float64)
# per face: four corners of _CUBE (bit x 4, y 2, z 1), counter-clockwise from outside
_FACES = ((4, 6, 7, 5), (0, 1, 3, 2), (2, 3, 7, 6), (0, 4, 5, 1), (1, 5, 7, 3), (0, 2, 6, 4))


def _frame(direction: np.ndarray) -> np.ndarray:
    """Columns: two unit axes across `direction`, then `direction` itself."""
    length = np.linalg.norm(direction)
    d = direction / length
    helper = np.array([1.0, 0, 0]) if abs(d[0]) < 0.9 else np.array([0, 1.0, 0])
    a = np.cross(d, helper)
    a /= np.linalg.norm(a)
    return np.stack([a, np.cross(d, a), direction], 1)


def box_figure(asset: Asset) -> None:
    """Give a mesh-less asset (a BVH) a skin of one joint per bone and a box per bone."""
    sk = asset.skeleton
    rest = rt.Pose(sk)
    rest.set_rest(sk)
    rest.compute_model(sk)
    model = np.asarray(rest.model, np.float64)            # (n, 3, 4)
    n = sk.bone_count
    binds = np.empty((n, 3, 4))
    for b in range(n):                                    # once, at load
        binds[b] = np.linalg.inv(np.vstack([model[b], (0, 0, 0, 1)]))[:3]
    builder = rt.Builder()
    asset.skin = rt.Skin.open(rt.build_skin(builder, rt.SkinSource(sk, list(range(n)), binds)))
    joints = model[:, :, 3]
    parents = [-1 if sk.parent(b) == rt.NO_BONE else sk.parent(b) for b in range(n)]
    lengths = [np.linalg.norm(joints[b] - joints[p]) for b, p in enumerate(parents) if p >= 0]
    width = 0.25 * (np.median(lengths) if lengths else 1.0)
    positions, normals, indices, owner = [], [], [], []
    for b, p in enumerate(parents):
        if p < 0 or b in asset.travelling:
            continue
        along = joints[b] - joints[p]
        if np.linalg.norm(along) < 1e-6 * width:
            continue
        axes = _frame(along)
        corners = joints[p] + (_CUBE - (0.5, 0.5, 0)) * (width, width, 1) @ axes.T
        for face in _FACES:
            first = len(positions)
            quad = corners[list(face)]
            normal = np.cross(quad[1] - quad[0], quad[2] - quad[0])
            positions += list(quad)
            normals += [normal / np.linalg.norm(normal)] * 4
            owner += [p] * 4
            indices += [first, first + 1, first + 2, first, first + 2, first + 3]
    owner = np.array(owner)[:, None]
    influences = rt.Influences.open(rt.build_influences(builder, rt.InfluenceSource.from_dense(
        asset.skin, owner, np.ones_like(owner, np.float64))))
    asset.primitives.append(Primitive(np.array(positions, np.float32),
                                      np.array(normals, np.float32),
                                      np.array(indices, np.uint32), influences, PALETTE[0]))
