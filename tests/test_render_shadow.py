"""The sun's shadow is the pose's own: it moves with the animation, sits at the feet,
and goes away when shadows are off."""
import numpy as np
from pyglm import glm

from render_fixtures import boxling, gfx, posed_rig  # noqa: F401  (gfx is a fixture)
from stadium.render.battle_renderer import RigMeshes
from stadium.render.voxel3d import FORMAT, ShadowMap, Voxel3D

SIZE = 160
# the sun in the south, halfway up: the arm, swinging in the east-west plane, throws
# its shadow north across open ground whichever way it points
SUN = np.array([0.0, 1.0, 1.0]) / np.sqrt(2.0)


def _ground(gfx):
    """A white 6 x 6 quad at y = 0 around the origin, facing up."""
    rows = np.array([[-3, 0, -3, 0, 0, 1], [3, 0, -3, 1, 0, 1],
                     [3, 0, 3, 1, 1, 1], [-3, 0, 3, 0, 1, 1]], np.float32)
    mesh = gfx.new_mesh(FORMAT, rows, usage="static")
    mesh.set_vertex_map(np.array([0, 1, 2, 0, 2, 3], np.uint32))
    white = gfx.new_image(np.full((1, 1, 4), 255, np.uint8))
    return mesh, white


def _box(low, high):
    return np.array([[x, y, z] for x in (low[0], high[0]) for y in (low[1], high[1])
                     for z in (low[2], high[2])], float)


def ground_shadow(gfx, rig, species, *, shadows=True):
    """Pixels of the ground, seen from straight above, that the rig's shadow darkens.

    Only the ground is drawn in the view, so every dark pixel is shadow, never body."""
    ground, white = _ground(gfx)
    model = np.ascontiguousarray(np.diag([species.root_scale] * 3 + [1.0]), np.float32)
    identity = np.eye(4, dtype=np.float32)
    shadow_map = ShadowMap(gfx, 256, 256)
    shadow_map.aim(SUN, _box((-3, 0, -3), (3, 0, 3)), _box((-1.5, 0, -1.5), (1.5, 2, 1.5)))
    shadow_map.begin(shadow_map.scenery)       # the ground casts nothing: left clear
    shadow_map.begin(shadow_map.actors)
    meshes = RigMeshes(gfx, rig, species)
    meshes.upload()
    meshes.cast(shadow_map, model)
    voxel = Voxel3D(gfx, white)
    canvas = gfx.new_canvas(SIZE, SIZE)
    eye = glm.vec3(0, 8, 0)
    view_proj = glm.ortho(-3, 3, -3, 3, 1, 20) * glm.lookAt(eye, glm.vec3(0), glm.vec3(0, 0, -1))
    voxel.begin(canvas, view_proj, eye, shadow_map if shadows else None, sun_dir=tuple(SUN),
                tint=(1, 1, 1), shadow_floor=0.5, glass_tint=(1, 1, 1), glass_glow=0.0,
                water_tint=(1, 1, 1), clear_rgb=(0, 0, 0))
    voxel.draw(ground, white, identity)
    pixels = canvas.read_into(np.empty((SIZE, SIZE, 3), np.uint8))
    for item in (ground, white, shadow_map, meshes, voxel, canvas):
        item.release()
    return pixels[..., 0] < 200


def test_two_poses_cast_two_different_shadows(gfx):
    species = boxling()
    down = ground_shadow(gfx, posed_rig(species, 0), species)
    up = ground_shadow(gfx, posed_rig(species, 1), species)
    assert down.sum() > 200 and up.sum() > 200
    # the body's share is common to both; the raised arm moves the rest
    assert (down & up).sum() > 100
    assert (down ^ up).sum() > 40


def test_the_shadow_starts_at_the_feet(gfx):
    species = boxling()
    shadow = ground_shadow(gfx, posed_rig(species, 0), species)
    # the body's footprint is the 0.6 x 0.6 square around the origin: the ground
    # right beside it is shadowed
    half = SIZE // 2
    footprint = int(0.3 / 6 * SIZE)
    around = shadow[half - footprint - 3:half + footprint + 3, half - footprint - 3:half + footprint + 3]
    assert around.any()


def test_no_shadow_map_no_shadow(gfx):
    species = boxling()
    assert not ground_shadow(gfx, posed_rig(species, 1), species, shadows=False).any()
