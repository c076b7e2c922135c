"""The inspected asset as a Voxel3D rig: its mesh skinned on the CPU by the runtime each
frame straight into one `x y z u v shade` vertex buffer, drawn and shadowed like a
creature (the trainer figure's way, stadium.rig.trainer_model, for any skinned asset).

Before skinning, a primitive's morph targets move its bind positions and normals by the
weights of the frame: the file's defaults, the clip's weight tracks over them, the
inspector's overrides (sliders, --morph) over both. After sampling, a VRM's spring bones
step on the clip's pose (at SPRING_STEP substeps across a long jump in time, so a sheet's
far-apart frames sway as a played clip would) and turn their joints.

A BVH has no mesh, so it gets a stick figure: a box along every bone from its parent's
joint to its own, bound rigidly to the parent, over the skeleton's rest pose. A bone whose
translation the clip moves (the hips under a root left at the origin) gets no box: a
rigid box from its parent would stand where the bone has left.
"""
from __future__ import annotations

import math

import numpy as np

import runtime as rt

from ..rig.figure import SkinnedFigure
from ..rig.rig import SHADE_BASE, SHADE_X, SHADE_Y, SHADE_Z, RigPart
from .loading import PALETTE, Asset, Primitive

_SHADE_DIR = np.array([SHADE_X, SHADE_Y, SHADE_Z], np.float32)
SPRING_STEP = 1.0 / 60.0       # seconds: the longest spring call; a longer jump is cut up


class Figure(SkinnedFigure):
    """One asset's skinned vertex rows: `pose(clip, time)` rewrites them in place.

    Every primitive's rows are consecutive slices of one float32 array, so the renderer
    uploads the whole figure in one write; the skin and morph jobs, palette and normal
    scratch are made here, so a frame allocates nothing but what sampling the clip takes."""

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
        self.parts, self._jobs, self._morphs = [], [], []
        for k, (p, s, e) in enumerate(zip(prims, starts[:-1], starts[1:])):
            rows = self._buffer[s:e]
            rows[:, 3:5] = p.uv if p.uv is not None else 0.5
            positions, normals = p.positions, p.normals
            if p.morph is not None:
                positions, normals = positions.copy(), normals.copy()
                self._morphs.append(_morph_job(p, positions, normals))
            self._jobs.append(rt.SkinJob(p.influences, self.palette, streams=[
                rt.SkinStream(rt.StreamKind.position, positions, rows[:, 0:3]),
                rt.SkinStream(rt.StreamKind.normal, normals, self._normals[s:e])]))
            self.parts.append(RigPart(rows, p.indices, k, False))
        self._opaque = tuple(self.parts)
        self.pose_ = rt.Pose(self.skeleton)
        self.version = 0
        # morph weights: the frame's (defaults, then the clip's tracks, then overrides)
        self.defaults = np.array([w.default for w in asset.weights], np.float32)
        self.weights = self.defaults.copy()
        self.overrides: dict[int, float] = {}
        self._tracks = {id(c): _weight_tracks(asset, c) for _, c in asset.clips}
        # spring bones: a state stepped on the clip's pose, restarted on a jump back
        self.springs_on = asset.springs is not None
        if asset.springs is not None:
            self.springs = rt.SpringState(asset.springs, self.skeleton)
            self._between = rt.Pose(self.skeleton)
        self._spring_at = None          # (clip, time) of the last spring call

    def restart_springs(self) -> None:
        """The next pose starts the springs afresh from itself."""
        self._spring_at = None

    def override(self, name: str, weight: float) -> None:
        """Hold the morph weight `name` at `weight` whatever the clip says."""
        self.overrides[self.asset.weight_names().index(name)] = float(weight)

    def pose(self, clip: rt.Clip | None, time: float, elapsed: float | None = None) -> None:
        """Sample `clip` at `time` (the rest pose without one), step the springs on it,
        weigh the morphs and skin into the rows. `elapsed`, the seconds played since the
        last pose (the window's), runs the springs on through a loop's wrap; without it a
        time before the last starts them afresh."""
        pose = self.pose_
        if clip is None:
            pose.set_rest(self.skeleton)
        else:
            clip.sample(self.skeleton, time, pose)
        if self.springs_on:
            self._sway(clip, time, elapsed)
        pose.compute_model(self.skeleton)
        self._weigh(clip, time)
        self.skin_pose(pose)

    def _weigh(self, clip: rt.Clip | None, time: float) -> None:
        w = self.weights
        w[:] = self.defaults
        if clip is not None and id(clip) in self._tracks:
            slots, tracks, floats = self._tracks[id(clip)]
            if slots.size:
                clip.sample_floats(time, out=floats)
                w[slots] = floats[tracks]
        for k, v in self.overrides.items():
            w[k] = v

    def _sway(self, clip: rt.Clip | None, time: float, elapsed: float | None) -> None:
        """Step the springs over the time since the last call on the clip's poses and turn
        the pose's joints; a new clip, or a time before the last unless `elapsed` says how
        long was played, starts them afresh."""
        state, last = self.springs, self._spring_at
        if last is None or last[0] is not clip:
            span = None
        elif elapsed is not None:
            span = max(float(elapsed), 0.0)
        else:
            span = time - last[1] if time >= last[1] else None
        if span is None:
            state.reset()
            span = 0.0
        cuts = max(1, math.ceil(span / SPRING_STEP - 1e-9))
        between = self._between
        length = float(clip.duration) if clip is not None else 0.0
        for k in range(1, cuts):             # a long span: the poses in between too
            at = time - span * (cuts - k) / cuts
            if clip is None:
                between.set_rest(self.skeleton)
            else:
                clip.sample(self.skeleton, at % length if at < 0 < length else at, between)
            state.step(between, delta=span / cuts)
        state.step(self.pose_, delta=span / cuts)
        state.apply(self.pose_)
        self._spring_at = (clip, time)

    def skin_pose(self, pose: rt.Pose) -> None:
        """Morph the bind shapes by `weights`, skin `pose` (its model space current) into
        the rows and shade them."""
        for weight_of, target, job in self._morphs:
            np.take(self.weights, weight_of, out=target)
            rt.apply_morph_targets(job)
        self.skin.compute_palette(pose, self.skeleton, out=self.palette)
        for job in self._jobs:
            rt.skin_linear(job)
        np.matmul(self._normals, _SHADE_DIR, out=self._buffer[:, 5])
        self._buffer[:, 5] += SHADE_BASE
        self.version += 1


def _morph_job(p: Primitive, positions: np.ndarray, normals: np.ndarray) -> tuple:
    """(weight indices, the target weights' scratch, the job writing the morphed positions
    and normals the skin job reads)."""
    target = np.zeros(p.morph.target_count, np.float32)
    job = rt.MorphJob(p.morph, target, streams=[
        rt.MorphStream(rt.MorphSemantic.position, 0, p.positions, positions),
        rt.MorphStream(rt.MorphSemantic.normal, 0, p.normals, normals)])
    return p.weight_of, target, job


def _weight_tracks(asset: Asset, clip: rt.Clip) -> tuple:
    """(weight indices, their float tracks in the clip, the float scratch) for the weights
    the clip animates."""
    found = [(k, clip.find_float_track(w.track)) for k, w in enumerate(asset.weights)]
    found = [(k, t) for k, t in found if 0 <= t < clip.float_track_count]
    slots = np.array([k for k, _ in found], np.int64)
    tracks = np.array([t for _, t in found], np.int64)
    return slots, tracks, np.zeros(clip.float_track_count, np.float32)


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
