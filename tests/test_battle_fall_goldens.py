"""The faint as a fall, seen: each species fainted in a seeded battle, lying at rest on
the diorama's ground, against tests/golden/fall_<species>.png (regenerate with
`python -m stadium.app.goldens`)."""
import pytest

from stadium.app import goldens
from stadium.render.gfx import Graphics
from stadium.rig.roster import Roster

pytest.importorskip("mujoco")

ROSTER = Roster()


@pytest.fixture(scope="module")
def gfx():
    graphics = Graphics.open_headless((160, 144))
    yield graphics
    graphics.release()


def test_every_species_has_a_fall_golden():
    assert goldens.fall_cases(ROSTER) == [f"fall_{name}" for name in ROSTER.names]


@pytest.mark.parametrize("name", goldens.fall_cases(ROSTER))
def test_a_fallen_creature_at_rest_matches_its_golden(name, gfx):
    problem = goldens.mismatch(name, goldens.render_fall(name, gfx, ROSTER))
    if problem:
        pytest.fail(problem)


def test_the_debugger_shows_a_fall_s_bodies():
    """Its golden (tests/test_render_debug_goldens.py renders every debug case): a case
    with the ragdoll overlay, during a fall."""
    cases = [c for c in goldens.debug_cases() if dict(c.state).get("ragdoll_overlay")]
    assert cases and all(dict(c.state).get("secondary") for c in cases)
