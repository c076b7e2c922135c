"""Visual regression of the debugger: the playable battle with the graph inspector open and
the skeleton overlay on, against tests/golden/debug_*.png under the same tolerance as the
show's goldens (tests/test_render_goldens.py). Regenerate with `python -m stadium.goldens`;
a failure leaves expected, actual and diff PNGs in tests/golden/_failures/."""
import numpy as np
import pytest
from PIL import Image

pytest.importorskip("imgui_bundle", reason="the debugger needs imgui-bundle")

from stadium import goldens  # noqa: E402
from stadium.gfx import Graphics  # noqa: E402
from stadium.roster import Roster  # noqa: E402
from stadium.viewer import DEBUG_SCREEN  # noqa: E402

ROSTER = Roster()
CASES = goldens.debug_cases()


@pytest.fixture(scope="module")
def gfx():
    graphics = Graphics.open_headless(DEBUG_SCREEN)
    yield graphics
    graphics.release()


def test_the_cases_cover_the_inspector_and_the_skeleton():
    states = [dict(case.state) for case in CASES]
    assert all(s.get("skeleton") for s in states)
    assert any(s.get("picked") for s in states) and any(s.get("names") for s in states)
    assert any(case.scrub for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_debug_screen_matches_its_golden(case, gfx):
    path = goldens.GOLDEN / f"{case.name}.png"
    assert path.exists(), f"no golden for {case.name}: run python -m stadium.goldens"
    expected = np.asarray(Image.open(path).convert("RGB"))
    actual = goldens.render_debug(case, gfx, ROSTER)
    share, diff = goldens.difference(expected, actual)
    if share > goldens.TOLERANCE:
        folder = goldens.write_failure(case.name, expected, actual, diff)
        pytest.fail(f"{case.name}: {share:.2%} of pixels differ by more than "
                    f"{goldens.CHANNEL}/255 (allowed {goldens.TOLERANCE:.1%}); see {folder}")
