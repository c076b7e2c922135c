"""F5, F9 and F12 say what they did in the window, not only on the console."""
import numpy as np
import pytest

from stadium.app.viewer import NOTICE_FRAMES, BattleViewer, Options
from stadium.render.gfx import Graphics
from stadium.rig.roster import Roster

ROSTER = Roster()


@pytest.fixture(scope="module")
def gfx():
    graphics = Graphics.open_headless((640, 576))
    yield graphics
    graphics.release()


def screen(v, gfx) -> np.ndarray:
    v.draw(gfx)
    return gfx.read_screen().copy()


def test_save_load_and_screenshot_show_a_notice(gfx, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)             # the keys write into ./out
    v = BattleViewer(Options(mode="battle", controllers=("ai", "ai")), ROSTER, overlay=False)
    v.load(gfx)
    for _ in range(60):
        v.update(1 / 60)
    plain = screen(v, gfx)
    for key, says in (("f9", "no saved battle"), ("f5", "saved the battle"),
                      ("f9", "loaded the battle"), ("f12", "screenshot")):
        v.keypressed(key)
        assert says in v.notice
        shown = screen(v, gfx)
        changed = np.argwhere((shown != plain).any(axis=-1))
        assert len(changed), f"{key}: nothing on screen"
        # a short line near the top of the frame, off the battle's own boxes
        assert changed[:, 0].max() < gfx.height // 3
        for _ in range(NOTICE_FRAMES):
            last = screen(v, gfx)
        assert np.array_equal(last, plain), f"{key}: the notice does not go away"
    assert (tmp_path / "out" / "match.json").exists()
    assert list((tmp_path / "out").glob("screenshot_*.png"))
    v.release()
