"""Visual regression: fixed frames rendered headless against tests/golden/.

Regenerate after an intended change with `python -m stadium.app.goldens`; a failure leaves
expected, actual and diff PNGs in tests/golden/_failures/.
"""
import numpy as np
import pytest

from stadium.app import goldens
from stadium.render.gfx import Graphics
from stadium.rig.roster import Roster

ROSTER = Roster()
CASES = goldens.cases(ROSTER)


@pytest.fixture(scope="module")
def gfx():
    graphics = Graphics.open_headless((160, 144))
    yield graphics
    graphics.release()


def test_the_cases_cover_what_the_renderer_promises():
    names = {case.name for case in CASES}
    assert {f"standby_{name}" for name in ROSTER.names} <= names
    assert {"attack_flash", "faint", "shadows_off", "seams_on"} <= names
    assert {f"hour_{hour}" for hour in ("dawn", "day", "dusk", "night")} <= names


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_frame_matches_its_golden(case, gfx):
    problem = goldens.mismatch(case.name, goldens.render(case, gfx, ROSTER))
    if problem:
        pytest.fail(problem)


def test_the_comparison_catches_a_real_change():
    frame = np.zeros((144, 160, 3), np.uint8)
    moved = frame.copy()
    moved[40:60, 40:60] = 200                    # a 20 x 20 shadow gone: 1.7% of the frame
    assert goldens.difference(frame, moved)[0] > goldens.TOLERANCE
    nudged = frame.copy()
    nudged[::2, ::2] = 6                         # rounding noise under the channel limit
    assert goldens.difference(frame, nudged)[0] == 0.0
