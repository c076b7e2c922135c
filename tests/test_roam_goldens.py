"""Roam mode's visual goldens (stadium.app.goldens: ROAM_FRAMES and ROAM_DEBUG), rendered
headless from the scripted roam; they need the staged mocap and skip without it."""
import pytest

from runtime.samples import mocap
from stadium.app import goldens
from stadium.app.viewer import DEBUG_SCREEN
from stadium.render.gfx import Graphics
from stadium.rig.roster import Roster

pytestmark = pytest.mark.skipif(not mocap.available(), reason="no staged mocap in ../shared")


def test_roam_frames_match_their_goldens():
    gfx = Graphics.open_headless((160, 144))
    try:
        shots = goldens.render_roam(gfx, Roster())
    finally:
        gfx.release()
    assert set(shots) == {name for name, _ in goldens.ROAM_FRAMES}
    problems = [p for p in (goldens.mismatch(name, frame) for name, frame in shots.items()) if p]
    assert not problems, problems


def test_roam_debugger_matches_its_golden():
    pytest.importorskip("imgui_bundle")
    gfx = Graphics.open_headless(DEBUG_SCREEN)
    try:
        screen = goldens.render_roam_debug(gfx, Roster())
    finally:
        gfx.release()
    problem = goldens.mismatch(goldens.ROAM_DEBUG[0], screen)
    assert problem is None, problem
