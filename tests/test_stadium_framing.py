"""Every species, on either side, stands where its whole standby is seen: inside the
frame and clear of the overlay's boxes (hour by hour the camera is the same, so
this holds at every hour)."""
from __future__ import annotations

import numpy as np
import pytest

from stadium.app import hud
from stadium.app.framing import clearing_shift
from stadium.app.viewer import BattleViewer, Options
from stadium.battle.match import Hud
from stadium.render.battlecam import BattleCam
from stadium.rig import pack
from stadium.rig.rig import StadiumRig
from stadium.rig.roster import Roster

ROSTER = Roster()


def standby_pixels(battler, camera) -> np.ndarray:
    """Every vertex of every standby half-frame, through the battler's own model
    matrix and the camera, in frame pixels."""
    s = battler.species
    rig = StadiumRig(s)
    a = s.ctx[pack.STANDBY]
    model = battler.matrix.astype(np.float64).T         # GL byte order: the transpose
    out = []
    for f in np.arange(0, s.anims[a].frames, 0.5):
        rig.pose(a, f, True)
        rig.skin(0.0)
        local = np.concatenate([p.vertices[:, :3] for p in rig.parts]).astype(np.float64)
        out.append(camera.project((np.c_[local, np.ones(len(local))] @ model.T)[:, :3]))
    return np.concatenate(out)


@pytest.mark.parametrize("name", ROSTER.names)
def test_each_species_stands_in_view_and_clear_of_the_boxes(name):
    v = BattleViewer(Options(mode="battle", teams=((name,), (name,)), controllers=("ai", "ai")),
                     ROSTER, overlay=False)
    for _ in range(40):
        v.update(1 / 60)
    camera = BattleCam.battle(*v.cells)
    for side, battler in enumerate(v.match.battlers):
        px = standby_pixels(battler, camera)
        x0, y0 = px.min(axis=0)
        x1, y1 = px.max(axis=0)
        assert x0 >= 0 and y0 >= 0 and x1 <= 160 and y1 <= 144, (name, side, px.min(0), px.max(0))
        # the boxes over the field, and the result's once this side has won
        for bx, by, bw, bh in hud.FIELD_BOXES + (hud.RESULT_BOXES[side],):
            clear = x1 <= bx or x0 >= bx + bw or y1 <= by or y0 >= by + bh
            assert clear, f"{name} on side {side} runs under the box at {(bx, by, bw, bh)}"
        # and it stands near its cell: moved only as far as that takes
        cell = camera.project(v.cells[side][None])[0]
        foot = camera.project(battler.position[None])[0]
        assert np.linalg.norm(foot - cell) < 48
    v.release()


def test_the_smallest_clearing_shift_is_chosen():
    # a box under a rectangle's bottom edge moves down just past it, plus the margin
    shift = clearing_shift((10, 10, 20, 20), [(0, 0, 100, 15)], (160, 144), margin=2)
    assert tuple(shift) == (0, 7)
    # nothing in the way: no shift
    assert tuple(clearing_shift((10, 40, 20, 50), [(0, 0, 100, 15)], (160, 144))) == (0, 0)
    # off the frame's right edge: back in
    assert tuple(clearing_shift((150, 40, 165, 50), [], (160, 144), margin=1)) == (-6, 0)


def overlap(a, b) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


@pytest.mark.parametrize("winner", [0, 1])
def test_the_result_is_drawn_clear_of_the_winner(winner):
    image = hud.paint(Hud([None, None], "", None, ["You won", "3 turns"], winner))[::-1]
    x, y, w, h = hud.RESULT_BOXES[winner]
    assert tuple(image[y + h // 2, x + 2]) == hud.PANEL      # the result's panel is there
    lx, ly, lw, lh = hud.RESULT_BOXES[1 - winner]
    assert not image[ly:ly + lh, lx:lx + lw, 3].any()        # not where the other goes
    own = (hud.PLAYER_BOX, hud.RIVAL_BOX)[winner]
    assert not overlap(hud.RESULT_BOXES[winner], own)        # the winner's box stays seen
