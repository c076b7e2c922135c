"""Visual regression of the debugger: the playable battle with the graph inspector open and
the skeleton overlay on (or the IK and springs panel with its overlays), against tests/golden/debug_*.png under the same tolerance as the
show's goldens (tests/test_render_goldens.py). Regenerate with `python -m stadium.app.goldens`;
a failure leaves expected, actual and diff PNGs in tests/golden/_failures/."""
import pytest

pytest.importorskip("imgui_bundle", reason="the debugger needs imgui-bundle")

from stadium.app import goldens  # noqa: E402
from stadium.render.gfx import Graphics  # noqa: E402
from stadium.rig.roster import Roster  # noqa: E402
from stadium.app.viewer import DEBUG_SCREEN  # noqa: E402

ROSTER = Roster()
CASES = goldens.debug_cases()


@pytest.fixture(scope="module")
def gfx():
    graphics = Graphics.open_headless(DEBUG_SCREEN)
    yield graphics
    graphics.release()


def test_the_cases_cover_the_inspector_and_the_skeleton():
    states = [dict(case.state) for case in CASES]
    assert all(s.get("skeleton") or s.get("ik_overlay") or s.get("spring_overlay") for s in states)
    assert any(s.get("secondary") and s.get("ik_overlay") for s in states)
    assert any(s.get("secondary") and s.get("spring_overlay") for s in states)
    assert any(s.get("picked") for s in states) and any(s.get("names") for s in states)
    assert any(case.scrub for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_debug_screen_matches_its_golden(case, gfx):
    problem = goldens.mismatch(case.name, goldens.render_debug(case, gfx, ROSTER))
    if problem:
        pytest.fail(problem)
