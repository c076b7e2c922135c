"""The battle's overlay, drawn into the 160 x 144 frame like the rest of the picture:
both hit point boxes, the message box with the move menu, and the result. No GL and no
font files: numpy rectangles and stadium.render.pixelfont's glyphs in an RGBA image that the
viewer presents over the frame, scaled by the same whole number.

Laid out out of the creatures' way on the frame the camera fixes: the rival's box top
left over the trees, ours right of our creature above the message box, the message box
along the bottom (growing a line upward when the move menu is up), and the result over
the loser's empty half of the field.
"""
from __future__ import annotations

import numpy as np

from ..render import pixelfont
from ..battle.match import Hud

FRAME = (160, 144)
PANEL = (246, 244, 232, 240)
EDGE = (44, 46, 64, 255)
INK = (36, 36, 48, 255)
SOFT_INK = (118, 118, 132, 255)
SHADE = (0, 0, 0, 96)
BAR_BACK = (70, 72, 86, 255)
BAR_GOOD, BAR_HALF, BAR_LOW = (72, 200, 96, 255), (236, 196, 52, 255), (226, 72, 58, 255)
KEY_INK = (190, 84, 40, 255)

RIVAL_BOX = (3, 3, 72, 21)           # x, y, width, height in frame pixels
PLAYER_BOX = (85, 89, 72, 27)
MESSAGE_BOX = (1, 129, 158, 14)
MENU_BOX = (1, 118, 158, 25)
# The result, over the field of the side that lost (empty by then), so the winner stays
# in view: low when the rival won, high when we did.
RESULT_BOXES = ((16, 4, 128, 40), (16, 96, 128, 40))     # by winner: ours, the rival's
# what stands over the field while the battle is under way: the creatures keep clear
FIELD_BOXES = (RIVAL_BOX, PLAYER_BOX, MENU_BOX)


def bar_colour(fraction: float):
    return BAR_GOOD if fraction > 0.5 else BAR_HALF if fraction > 0.2 else BAR_LOW


def _fill(image, x, y, w, h, colour) -> None:
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, image.shape[1]), min(y + h, image.shape[0])
    if x1 > x0 and y1 > y0:
        image[y0:y1, x0:x1] = colour


def _box(image, box) -> tuple[int, int, int, int]:
    """A panel with a one-pixel edge, its corners cut, and a soft shadow."""
    x, y, w, h = box
    _fill(image, x + 1, y + h, w - 1, 1, SHADE)
    _fill(image, x + w, y + 1, 1, h, SHADE)
    _fill(image, x + 1, y, w - 2, h, EDGE)
    _fill(image, x, y + 1, w, h - 2, EDGE)
    _fill(image, x + 1, y + 1, w - 2, h - 2, PANEL)
    return box


def paint(hud: Hud) -> np.ndarray:
    """(144, 160, 4) uint8 RGBA, row 0 at the bottom (GL's order)."""
    image = np.zeros((FRAME[1], FRAME[0], 4), np.uint8)
    player, rival = (list(hud.sides) + [None, None])[:2]
    if rival is not None:
        _side(image, RIVAL_BOX, rival, numbers=False)
    if player is not None:
        _side(image, PLAYER_BOX, player, numbers=True)
    if hud.message or hud.menu:
        x, y, w, h = _box(image, MENU_BOX if hud.menu else MESSAGE_BOX)
        pixelfont.draw(image, pixelfont.fit(hud.message, w - 8), x + 4, y + 3, INK)
        if hud.menu:
            half = (w - 8) // 2
            for k, name in enumerate(hud.menu):
                at = x + 4 + k * half
                at = pixelfont.draw(image, f"{k + 1}", at, y + 14, KEY_INK) + 3
                pixelfont.draw(image, pixelfont.fit(name, half - 12), at, y + 14, INK)
    if hud.result:
        x, y, w, h = _box(image, RESULT_BOXES[hud.winner])
        lines = [(hud.result[0], INK, 5)] + [(line, INK, 17) for line in hud.result[1:2]] \
            + [("R: battle again", SOFT_INK, 29)]
        for text, colour, dy in lines:
            text = pixelfont.fit(text, w - 8)
            pixelfont.draw(image, text, x + (w - pixelfont.width(text)) // 2, y + dy, colour)
    return image[::-1].copy()


def _side(image, box, side, numbers: bool) -> None:
    x, y, w, h = _box(image, box)
    pixelfont.draw(image, pixelfont.fit(side.name, w - 22), x + 4, y + 2, INK)
    # the team: a pip a member, lit while it can still fight
    for k, alive in enumerate(side.team):
        px = x + w - 5 - (len(side.team) - 1 - k) * 5 - 3
        _fill(image, px, y + 3, 3, 3, BAR_LOW if alive else SOFT_INK)
        if not alive:
            _fill(image, px + 1, y + 4, 1, 1, PANEL)
    bar_y = y + 14
    pixelfont.draw(image, "HP", x + 4, bar_y - 2, SOFT_INK)
    bx, bw = x + 17, w - 21
    _fill(image, bx - 1, bar_y - 1, bw + 2, 5, EDGE)
    _fill(image, bx, bar_y, bw, 3, BAR_BACK)
    fraction = min(max(float(side.shown), 0.0), 1.0)
    if fraction > 0:
        _fill(image, bx, bar_y, max(1, round(bw * fraction)), 3, bar_colour(fraction))
    if numbers:
        shown = int(np.ceil(fraction * side.max_hp - 1e-6))
        label = f"{shown}/{side.max_hp}"
        pixelfont.draw(image, label, x + w - 4 - pixelfont.width(label), bar_y + 5, INK)
