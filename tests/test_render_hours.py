"""The hours of the day on the map: water reads as water at every hour."""
import colorsys

import numpy as np
import pytest

from stadium.app import goldens
from stadium.render import diorama
from stadium.render.battlecam import BattleCam
from stadium.render.gfx import Graphics
from stadium.rig.roster import Roster

ROSTER = Roster()
HOURS = [case for case in goldens.cases(ROSTER) if case.name.startswith("hour_")]


@pytest.fixture(scope="module")
def gfx():
    graphics = Graphics.open_headless((160, 144))
    yield graphics
    graphics.release()


def pond_pixels() -> np.ndarray:
    """Frame pixels (row, column) at the centre of every pond cell with water on all
    four sides (at the shore a bank can stand in front of the lower water)."""
    world = diorama.build()
    pond = np.array([[c == "~" for c in row] for row in diorama.MAP])
    inner = pond[1:-1, 1:-1] & pond[:-2, 1:-1] & pond[2:, 1:-1] & pond[1:-1, :-2] & pond[1:-1, 2:]
    cells = [(x + 1, z + 1) for z, x in zip(*np.nonzero(inner))]
    camera = BattleCam.battle(world.cell("left"), world.cell("right"))
    xy = camera.project(np.array([world.cell(c) for c in cells]))
    return np.floor(xy[:, ::-1]).astype(int)


@pytest.mark.parametrize("case", HOURS, ids=[case.name for case in HOURS])
def test_the_pond_is_blue_at_every_hour(case, gfx):
    # dusk's warm light once turned the pond into a grey-brown slab
    frame = goldens.render(case, gfx, ROSTER).astype(float)
    rows, columns = pond_pixels().T
    r, g, b = frame[rows, columns].mean(axis=0) / 255
    _, saturation, _ = colorsys.rgb_to_hsv(r, g, b)
    assert b >= 1.2 * max(r, g), (case.hour, r, g, b)
    assert saturation >= 0.25, (case.hour, saturation)
