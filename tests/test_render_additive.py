"""Additive parts (flames) cast no shadow and are composited after every opaque part."""
import numpy as np

from render_fixtures import boxling, gfx  # noqa: F401  (gfx is a fixture)
from stadium.render import diorama
from stadium.render.battle_renderer import BattleRenderer, Look
from stadium.battle.scene import BattleScene
from stadium.render.battlecam import BattleCam
from stadium.render.hours import HOURS
from stadium.rig.rig import StadiumRig

MAP = diorama.build()
CELLS = (MAP.cell("left"), MAP.cell("right"))


def standing(species_pair):
    """Both creatures standing by on the battle cells, no script."""
    pairs = [(species, StadiumRig(species)) for species in species_pair]
    return BattleScene(*pairs, CELLS, choreography=())


def renderer(gfx):
    return BattleRenderer(gfx, MAP, BattleCam.battle(*CELLS))


def actor_depth(renderer):
    layer = renderer.shadow_map.actors
    return np.frombuffer(layer.canvas.depth.read(), np.float32).reshape(layer.size, layer.size)


def texels(renderer, fighter, part):
    """Actor-layer texel (row, column) of each of a part's posed vertices."""
    layer = renderer.shadow_map.actors
    model = np.asarray(fighter.matrix, float).T      # stored as GL's transpose
    sun = np.asarray(layer.matrix, float)
    points = np.c_[part.vertices[:, :3], np.ones(len(part.vertices))] @ model.T @ sun.T
    xy = (points[:, :2] / points[:, 3:] + 1.0) * 0.5 * layer.size
    return np.clip(xy[:, 1].astype(int), 0, layer.size - 1), np.clip(xy[:, 0].astype(int), 0, layer.size - 1)


def test_flames_never_write_the_shadow_map(gfx):
    # the flame out beside the body, so its shadow could not hide in the body's
    species = boxling(flame_at=(0.0, 60.0, 110.0))
    scene = standing((species, species))
    draw = renderer(gfx)
    draw.render(scene, HOURS["day"])
    depth = actor_depth(draw)
    fighter = scene.fighters[0]
    assert (depth[texels(draw, fighter, fighter.rig.parts[0])] < 1.0).any(), "the body must cast"
    rows, cols = texels(draw, fighter, fighter.rig.additive_parts()[0])
    box = depth[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    assert box.size and (box == 1.0).all(), "the flame wrote the shadow map"
    draw.release()


def flame_over_body_pixels(gfx, species):
    """The frame, with shadows and post off so only the draw order decides colour."""
    scene = standing((species, species))
    draw = renderer(gfx)
    frame = draw.render(scene, HOURS["day"], Look(shadows=False, post=False))
    pixels = frame.read_into(np.empty((144, 160, 3), np.uint8))
    draw.release()
    return pixels, scene


def test_flames_add_over_the_body_in_front_of_them(gfx):
    # the flame in front of the body's face: a rig at yaw 0 looks along +Z, and the
    # left creature is turned toward the right one, so put the flame on its near side
    # by placing it on the body's own +Z face; both are drawn, the flame last
    lit, scene = flame_over_body_pixels(gfx, boxling(flame_at=(0.0, 60.0, 36.0)))
    dark, _ = flame_over_body_pixels(gfx, boxling(flame_at=(0.0, 60.0, 5000.0)))
    fighter = scene.fighters[1]      # the far one faces the camera's side
    centre = np.asarray(fighter.matrix, float).T @ np.array([0.0, 60.0, 36.0, 1.0])
    x, y = scene_pixel(centre[:3])
    body_only, with_flame = dark[y, x].astype(int), lit[y, x].astype(int)
    assert (with_flame >= body_only).all() and (with_flame - body_only).sum() > 60


def scene_pixel(point):
    camera = BattleCam.battle(*CELLS)
    x, y = camera.project([point])[0]
    return int(x), int(y)


def test_every_additive_draw_follows_every_opaque_draw(gfx):
    species = boxling()
    scene = standing((species, species))
    draw = renderer(gfx)
    draw.render(scene, HOURS["day"])        # the first frame also draws the backdrop
    order = []
    voxel = draw.voxel
    draw_one = voxel.draw

    def spy(mesh, image, matrix, pull=0.0):
        order.append(voxel.blend_mode == "add")
        draw_one(mesh, image, matrix, pull)

    draw.voxel.draw = spy
    draw.render(scene, HOURS["day"])
    draw.release()
    assert order.count(True) == 2              # one flame each
    first_additive = order.index(True)
    assert all(order[first_additive:])
    # the map comes from the backdrop now: only the creatures' two opaque parts each
    assert order[:first_additive].count(False) == 2 * 2
