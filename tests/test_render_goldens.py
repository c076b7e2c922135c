"""Visual regression: fixed frames rendered headless against tests/golden/.

Regenerate after an intended change with `python -m stadium.app.goldens`; a failure leaves
expected, actual and diff PNGs in tests/golden/_failures/.
"""
import numpy as np
import pytest
from PIL import Image

from stadium.app import goldens
from stadium.battle.trainer_clips import missing
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
    assert {"trainers_sendout", "trainers_wave"} <= names
    assert {f"hour_{hour}" for hour in ("dawn", "day", "dusk", "night")} <= names


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_frame_matches_its_golden(case, gfx):
    if case.gestures and missing():
        pytest.skip(f"the trainers' gestures: {missing()}")
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


@pytest.mark.skipif(missing() is not None, reason=f"the trainers' gestures: {missing()}")
def test_the_readme_sheet_is_the_goldens_battle(gfx, tmp_path):
    # what python -m stadium.app.goldens would write now, against the file in the repo
    fresh = tmp_path / "battle.png"
    goldens.save_sheet(goldens.contact_sheet(goldens.sheet_frames(gfx, ROSTER)), fresh)
    stored = np.asarray(Image.open(goldens.SHEET).convert("RGB"))
    share, _ = goldens.difference(stored, np.asarray(Image.open(fresh).convert("RGB")))
    assert share <= goldens.TOLERANCE, "docs/battle.png is stale: python -m stadium.app.goldens"
    assert goldens.SHEET.stat().st_size < 200_000
    assert stored.shape[0] > 2 * 144 and stored.shape[1] > 3 * 160


def test_the_readme_shows_the_sheet_after_its_two_commands():
    text = (goldens.ROOT / "README.md").read_text()
    opening = text.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert len(opening) == 2 and all(line.startswith("python3 -m venv .venv") for line in opening)
    picture = text.index("](docs/battle.png)")
    assert text.index("```sh") < text.index("```", text.index("```sh") + 3) < picture
    assert picture < len(text) // 4, "near the top"
