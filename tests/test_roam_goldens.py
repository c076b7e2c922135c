"""Roam mode's visual goldens (stadium.app.goldens: ROAM_FRAMES and ROAM_DEBUG, and the same
driven by the shipped learned model: ROAM_LEARNED_FRAMES and ROAM_LEARNED_DEBUG), rendered
headless from the scripted roam; they need the staged mocap and skip without it. After
roam.model is retrained: python -m stadium.app.goldens --roam."""
import pytest

from runtime.samples import mocap
from stadium.app import goldens
from stadium.app.viewer import DEBUG_SCREEN
from stadium.render.gfx import Graphics
from stadium.rig.roster import Roster

pytestmark = pytest.mark.skipif(not mocap.available(), reason="no staged mocap in ../shared")


@pytest.mark.parametrize("driver, frames", [("database", goldens.ROAM_FRAMES),
                                            ("learned", goldens.ROAM_LEARNED_FRAMES)])
def test_roam_frames_match_their_goldens(driver, frames):
    gfx = Graphics.open_headless((160, 144))
    try:
        shots = goldens.render_roam(gfx, Roster(), driver)
    finally:
        gfx.release()
    assert set(shots) == {name for name, _ in frames}
    problems = [p for p in (goldens.mismatch(name, frame) for name, frame in shots.items()) if p]
    assert not problems, problems


@pytest.mark.parametrize("driver, name", [("database", goldens.ROAM_DEBUG[0]),
                                          ("learned", goldens.ROAM_LEARNED_DEBUG[0])])
def test_roam_debugger_matches_its_golden(driver, name):
    pytest.importorskip("imgui_bundle")
    gfx = Graphics.open_headless(DEBUG_SCREEN)
    try:
        screen = goldens.render_roam_debug(gfx, Roster(), driver)
    finally:
        gfx.release()
    problem = goldens.mismatch(name, screen)
    assert problem is None, problem
