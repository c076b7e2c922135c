"""The trainer's figure: a voxel-style person of boxes over the trainer skeleton
(runtime.samples.trainer), skinned on the CPU by the runtime into the Voxel3D vertex layout.

Every box belongs to one bone; the three torso boxes share their seams with the spine bone
next to them (half each), so the long body bends as one piece instead of opening cracks
between its boxes. Everything else is rigid, as a voxel figure's limbs are.

Skinning is linear blend (rt.skin_linear), not dual quaternion: all but the torso's seam
vertices follow one bone, where the two methods give the same result and linear is cheaper,
and the seams join neighbouring spine bones that turn only a little against each other,
far from the large twists where linear blending collapses a joint. The vertices come out
as ``x y z u v shade`` rows, like a StadiumRig's, so the renderer draws the trainer
through the same shader as the creatures: sun shadow, hour tint, hit flash and post.

Units are the skeleton's centimetres; the model matrix scales them into the world.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

import runtime as rt
from runtime.samples.trainer import trainer_skeleton_source

from .figure import SkinnedFigure
from .rig import SHADE_BASE, SHADE_X, SHADE_Y, SHADE_Z, RigPart

# The palette's swatches, one texel each in a one-row image, in this order.
SWATCHES = ("skin", "hair", "cap", "shirt", "trim", "pants", "shoes", "eyes", "gloves")
# Per side: the player's trainer in red and blue, the rival's in teal and purple; gloves
# bright against both shirts, so a raised hand shows at 160 x 144.
PALETTES = (
    {"skin": (236, 188, 150), "hair": (70, 44, 30), "cap": (206, 40, 44), "shirt": (44, 92, 196),
     "trim": (240, 240, 236), "pants": (48, 52, 70), "shoes": (200, 52, 48), "eyes": (24, 22, 30),
     "gloves": (250, 250, 246)},
    {"skin": (222, 170, 128), "hair": (28, 26, 40), "cap": (112, 52, 160), "shirt": (28, 136, 124),
     "trim": (30, 34, 40), "pants": (74, 60, 52), "shoes": (40, 40, 48), "eyes": (24, 22, 30),
     "gloves": (250, 214, 80)},
)

# (bone, swatch, low corner, high corner) in the rest pose's model space, centimetres; the
# sides' boxes are written for the left (+x) and mirrored for the right.
_CENTRE = [
    ("pelvis", "pants", (-7.0, 44.0, -4.0), (7.0, 56.0, 4.0)),
    ("spine_lower", "shirt", (-7.5, 56.0, -4.5), (7.5, 63.0, 4.5)),
    ("spine_middle", "shirt", (-7.5, 63.0, -4.5), (7.5, 70.0, 4.5)),
    ("spine_upper", "shirt", (-7.5, 70.0, -4.5), (7.5, 78.0, 4.5)),
    ("spine_lower", "trim", (-7.7, 56.0, -4.7), (7.7, 58.0, 4.7)),        # the belt
    ("neck", "skin", (-2.5, 77.0, -2.5), (2.5, 82.0, 2.5)),
    ("head", "skin", (-8.5, 81.0, -8.0), (8.5, 100.0, 8.5)),
    ("head", "hair", (-9.0, 92.0, -8.6), (9.0, 101.0, 6.0)),
    ("head", "cap", (-9.3, 100.0, -9.0), (9.3, 106.0, 9.0)),
    ("head", "cap", (-8.0, 100.0, 8.5), (8.0, 101.8, 14.5)),              # the brim
    ("head", "trim", (-2.0, 100.5, 8.9), (2.0, 104.5, 9.3)),              # the badge
]
_SIDE = [
    ("eyes", "head", (2.2, 89.0, 8.4), (4.6, 94.0, 8.9)),      # on the head, not a side's bone
    ("shirt", "clavicle", (6.0, 71.0, -3.8), (11.5, 78.0, 3.8)),
    ("shirt", "upper_arm", (9.4, 61.0, -2.6), (13.8, 76.0, 2.6)),
    ("skin", "forearm", (10.6, 48.5, -2.2), (14.6, 61.0, 2.2)),
    ("gloves", "hand", (10.4, 38.5, -2.4), (16.2, 48.5, 3.8)),      # big, bright: a wave reads
    ("pants", "thigh", (0.6, 27.0, -3.0), (6.6, 46.0, 3.0)),
    ("pants", "shin", (0.9, 6.0, -2.8), (6.1, 27.0, 2.8)),
    ("shoes", "foot", (0.6, 0.0, -3.5), (6.4, 6.0, 6.0)),
    ("shoes", "toe", (0.6, 0.0, 6.0), (6.4, 4.0, 10.5)),
]
# the torso's seams: a box's bottom (top) vertices shared half and half with this bone
_BELOW = {"spine_lower": "pelvis", "spine_middle": "spine_lower", "spine_upper": "spine_middle"}

# per face: its normal, and its four corners as (x, y, z) picks of low 0 / high 1,
# counter-clockwise seen from outside
_FACES = (
    ((1, 0, 0), ((1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1))),
    ((-1, 0, 0), ((0, 0, 0), (0, 0, 1), (0, 1, 1), (0, 1, 0))),
    ((0, 1, 0), ((0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 1, 0))),
    ((0, -1, 0), ((0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1))),
    ((0, 0, 1), ((0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1))),
    ((0, 0, -1), ((0, 0, 0), (0, 1, 0), (1, 1, 0), (1, 0, 0))),
)


def boxes() -> list[tuple[str, str, tuple, tuple]]:
    """Every box as (bone, swatch, low, high): the centre's, then each side's (the left's
    written, the right's its mirror through x = 0)."""
    found = list(_CENTRE)
    for swatch, bone, low, high in _SIDE:
        left, right = (bone, bone) if bone == "head" else (f"{bone}.L", f"{bone}.R")
        found.append((left, swatch, low, high))
        found.append((right, swatch, (-high[0], low[1], low[2]), (-low[0], high[1], high[2])))
    return found


def palette_image(side: int) -> np.ndarray:
    """(1, len(SWATCHES), 4) uint8: the side's swatches, one texel each."""
    colours = PALETTES[side]
    return np.array([[(*colours[name], 255) for name in SWATCHES]], np.uint8)


@dataclass(frozen=True, eq=False)
class TrainerModel:
    """What every trainer shares: the skeleton, skin and influences, and the mesh at bind."""

    skeleton: rt.Skeleton
    skin: rt.Skin
    influences: rt.Influences
    positions: np.ndarray      # (v, 3) float32, bind (rest) model space
    normals: np.ndarray        # (v, 3) float32
    uv: np.ndarray             # (v, 2) float32
    indices: np.ndarray        # (t * 3,) uint16
    joints: np.ndarray         # (v, 2) the skin joints of each vertex
    weights: np.ndarray        # (v, 2) their weights
    height: float              # the top of the cap at rest, centimetres


@lru_cache(maxsize=1)
def trainer_model() -> TrainerModel:
    """The figure, built once per process (a few hundred vertices)."""
    builder = rt.Builder()
    skeleton = rt.Skeleton.open(rt.build_skeleton(builder, trainer_skeleton_source()))
    rest = rt.Pose(skeleton)
    rest.compute_model(skeleton)
    n = skeleton.bone_count
    # one joint per bone, in bone order; the inverse bind takes the rest model space to
    # the bone's
    binds = np.empty((n, 3, 4))
    for b in range(n):
        m = np.vstack([rest.model[b].astype(np.float64), (0, 0, 0, 1)])
        binds[b] = np.linalg.inv(m)[:3]
    skin = rt.Skin.open(rt.build_skin(builder, rt.SkinSource(skeleton, list(range(n)), binds)))
    positions, normals, uv, indices, joints, weights = [], [], [], [], [], []
    for bone, swatch, low, high in boxes():
        b = skeleton.find_bone(bone)
        below = skeleton.find_bone(_BELOW[bone]) if bone in _BELOW else None
        above = next((skeleton.find_bone(k) for k, v in _BELOW.items() if v == bone), None)
        corners = np.array([low, high], np.float64)
        u = (SWATCHES.index(swatch) + 0.5) / len(SWATCHES)
        for normal, picks in _FACES:
            first = len(positions)
            for pick in picks:
                p = corners[list(pick), [0, 1, 2]]
                positions.append(p)
                normals.append(normal)
                uv.append((u, 0.5))
                seam = below if pick[1] == 0 else above
                if seam is not None and swatch == "shirt":
                    joints.append((b, seam))
                    weights.append((0.5, 0.5))
                else:
                    joints.append((b, b))
                    weights.append((1.0, 0.0))
            indices += [first, first + 1, first + 2, first, first + 2, first + 3]
    joints, weights = np.array(joints), np.array(weights)
    influences = rt.Influences.open(rt.build_influences(
        builder, rt.InfluenceSource.from_dense(skin, joints, weights)))
    top = max(high[1] for _, _, _, high in boxes())
    return TrainerModel(skeleton, skin, influences, np.array(positions, np.float32),
                        np.array(normals, np.float32), np.array(uv, np.float32),
                        np.array(indices, np.uint16), joints, weights, float(top))


class TrainerLook:
    """What the renderer asks of a species, for a trainer: its images and its height."""

    def __init__(self, side: int, scale: float):
        self.images = [palette_image(side)]
        self.height = trainer_model().height * scale
        self.name = f"trainer {side}"


class TrainerRig(SkinnedFigure):
    """One trainer's skinned figure: a pose in, its one vertex buffer rewritten in place.

    Everything a frame touches is made here: the palette, the normals' target, the shade
    scratch and the skin job over the buffer's position columns, so skinning a pose
    allocates nothing."""

    def __init__(self, model: TrainerModel | None = None):
        model = self.model = model or trainer_model()
        v = len(model.positions)
        self._buffer = np.zeros((v, 6), np.float32)
        self._buffer[:, 3:5] = model.uv
        self._buffer[:, 5] = 1.0
        self._normals = np.empty((v, 3), np.float32)
        self._shade = np.empty(v, np.float32)
        self._shade_dir = np.empty(3, np.float32)
        self.palette = np.empty((model.skin.joint_count, 3, 4), np.float32)
        self._job = rt.SkinJob(model.influences, self.palette, streams=[
            rt.SkinStream(rt.StreamKind.position, model.positions, self._buffer[:, 0:3]),
            rt.SkinStream(rt.StreamKind.normal, model.normals, self._normals)])
        self.parts = [RigPart(self._buffer, model.indices, 0, False)]
        self._opaque = tuple(self.parts)
        self.version = 0

    def skin(self, pose: rt.Pose, yaw: float) -> None:
        """Skin `pose` (its model space current) into the buffer; shade by each normal as the
        world will see it after the model matrix's turn by `yaw` (as StadiumRig.skin)."""
        model = self.model
        model.skin.compute_palette(pose, model.skeleton, out=self.palette)
        rt.skin_linear(self._job)
        cy, sy = math.cos(yaw), math.sin(yaw)
        d = self._shade_dir
        d[0] = SHADE_X * cy - SHADE_Z * sy
        d[1] = SHADE_Y
        d[2] = SHADE_X * sy + SHADE_Z * cy
        np.matmul(self._normals, d, out=self._shade)
        np.add(self._shade, SHADE_BASE, out=self._buffer[:, 5])
        self.version += 1

    def release(self) -> None:
        self.parts = []
        self._opaque = ()
