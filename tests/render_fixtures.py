"""Inputs the renderer tests build in code: a tiny species with a flame, and a headless
GL context."""
import numpy as np
import pytest

from stadium.rig import pack
from stadium.rig.rig import StadiumRig

RAW = 100.0          # raw units a world unit
ARM_DOWN, ARM_UP = 0, 14000   # binary angles of the arm's swing about +Z


def _box(lo, hi, bone, uv=((0.0, 0.0), (1.0, 1.0))):
    """A box's 24 vertices (4 per face, outward normals) and its 36 indices."""
    lo, hi = np.asarray(lo, np.float32), np.asarray(hi, np.float32)
    positions, normals = [], []
    for axis in range(3):
        a, b = [i for i in range(3) if i != axis]
        for side in (lo, hi):
            normal = np.zeros(3, np.float32)
            normal[axis] = 1.0 if side is hi else -1.0
            for s, t in ((0, 0), (1, 0), (1, 1), (0, 1)):
                corner = lo.copy()
                corner[axis] = side[axis]
                corner[a] = (lo, hi)[s][a]
                corner[b] = (lo, hi)[t][b]
                positions.append(corner)
                normals.append(normal)
    (u0, v0), (u1, v1) = uv
    uvs = np.tile(np.array([[u0, v0], [u1, v0], [u1, v1], [u0, v1]], np.float32), (6, 1))
    indices = (np.arange(6)[:, None] * 4 + np.array([0, 1, 2, 0, 2, 3])).ravel()
    return pack.Primitive(np.array(positions), np.array(normals),
                          np.full(24, bone, np.int32), uvs, indices.astype(np.uint16), 0)


def boxling(*, flame_at=(0.0, 60.0, -70.0), arm=True) -> pack.Species:
    """A one-metre box creature: a body, an arm on a second bone that swings up in
    animation 1, and an additive flame on a third bone, offset from the body by
    `flame_at` (raw units). Animation 0 holds the arm down, 1 holds it up."""
    parents = np.array([-1, 0, 0], np.int32)
    rest_t = np.array([[0, 0, 0], [30, 70, 0], list(flame_at)], np.float32)
    rest_r = np.zeros((3, 3), np.int32)
    rest_s = np.ones((3, 3), np.float32)
    body = _box((-30, 0, -30), (30, 100, 30), 0)
    prims = [body]
    if arm:
        prims.append(_box((0, -10, -10), (60, 10, 10), 1))
    flame = _box((-12, -12, -12), (12, 12, 12), 2)
    flame.texture, flame.additive = 1, True
    prims.append(flame)

    def holding(angle):
        tracks = [None, (30.0, 70.0, 0.0, 0, 0, angle, 1.0, 1.0, 1.0), None]
        return pack.Animation(4, 0, tracks)

    body_image = np.zeros((8, 8, 4), np.uint8)
    body_image[:] = (200, 90, 40, 255)
    flame_image = np.zeros((8, 8, 4), np.uint8)
    flame_image[:] = (90, 70, 20, 255)
    ctx = [0, pack.NO_ANIM, 1, pack.NO_ANIM, pack.NO_ANIM, pack.NO_ANIM]
    return pack.Species("Boxling", parents, rest_t, rest_r, rest_s, 1.0 / RAW, 1.0,
                        prims, [holding(ARM_DOWN), holding(ARM_UP)], ctx, [],
                        [body_image, flame_image])


def posed_rig(species, anim=0, frame=0.0, yaw=0.0) -> StadiumRig:
    rig = StadiumRig(species)
    rig.pose(anim, frame, True)
    rig.skin(yaw)
    rig.textures(anim)
    return rig


@pytest.fixture(scope="module")
def gfx():
    from stadium.render.gfx import Graphics

    graphics = Graphics.open_headless((160, 144))
    yield graphics
    graphics.release()
