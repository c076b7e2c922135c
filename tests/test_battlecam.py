"""BattleCam: two named cells land on two fixed frame pixels, solved, not tuned."""
import math

import numpy as np
import pytest

from stadium.render import diorama
from stadium.render.battlecam import BATTLE_PIXELS, BattleCam, NoSolution

MAP = diorama.build()

PAIRS = [
    (("left", "right"), ((42.0, 120.0), (118.0, 84.0))),
    (("door", "pond"), ((120.0, 60.0), (36.0, 96.0))),
    (("clearing", "meadow"), ((40.0, 50.0), (110.0, 120.0))),
]


@pytest.mark.parametrize("names, pixels", PAIRS)
def test_two_cells_land_within_half_a_pixel(names, pixels):
    cells = [MAP.cell(name) for name in names]
    camera = BattleCam.solve(*cells, *pixels, pitch=math.radians(-35), fov_y=math.radians(40))
    landed = camera.project(cells)
    assert np.abs(landed - np.array(pixels)).max() < 0.5
    # in front of the camera, and the camera above the map
    assert (camera.distance(cells) > 0).all()
    assert camera.eye[1] > max(cell[1] for cell in cells)


def test_the_battle_framing_puts_the_battle_cells_on_their_pixels():
    camera = BattleCam.battle(MAP.cell("left"), MAP.cell("right"))
    landed = camera.project([MAP.cell("left"), MAP.cell("right")])
    assert np.abs(landed - np.array(BATTLE_PIXELS)).max() < 0.5


def test_moving_a_target_pixel_moves_the_camera_not_the_rule():
    cells = [MAP.cell("left"), MAP.cell("right")]
    moved = ((60.0, 110.0), (100.0, 70.0))
    camera = BattleCam.solve(*cells, *moved, pitch=math.radians(-30), fov_y=math.radians(38))
    assert np.abs(camera.project(cells) - np.array(moved)).max() < 0.5


def test_the_pitch_and_field_of_view_are_kept_as_given():
    cells = [MAP.cell("left"), MAP.cell("right")]
    camera = BattleCam.solve(*cells, *BATTLE_PIXELS, pitch=math.radians(-28), fov_y=math.radians(44))
    forward = camera.forward
    assert math.isclose(math.asin(forward[1]), math.radians(-28), abs_tol=1e-9)
    assert camera.fov_y == pytest.approx(math.radians(44))


def test_fit_depth_encloses_the_map():
    camera = BattleCam.battle(MAP.cell("left"), MAP.cell("right"))
    camera.fit_depth(MAP.corners())
    along = camera.distance(MAP.corners())
    assert camera.near <= along.min() and along.max() <= camera.far


def test_an_impossible_framing_is_refused_with_a_reason():
    # two cells stacked vertically cannot sit side by side on one frame row
    with pytest.raises(NoSolution, match="cannot land"):
        BattleCam.solve((0, 0, 0), (0, 10, 0), (20, 72), (140, 72),
                        pitch=math.radians(-30), fov_y=math.radians(40))
