"""Flitwren: a perched songbird whose wings carry most of its skeleton.

Each wing is a shoulder, an arm and a hand with nine feather bones, so 24 of its 35
bones are wing. The feathers are light cards, so the body carries most of the vertices.
Its standby beats the wings, which is the case that breaks a median-of-bones body
estimate: the middle bone of the sorted list follows the beating wings. The standby
settles in over four frames before its loop starts.
"""
from __future__ import annotations

from .. import pack
from .secondary import Chain, Collider, Look, Secondary
from .build import SpeciesBuilder, degrees
from .curves import keys, steps, wave
from .paint import Atlas, colour, eye, feathers, plain, spots, stripes, tone, whole

SIDES = (("L", 1.0), ("R", -1.0))


def _skin() -> Atlas:
    blue, cream, navy = colour("#3d8fd6"), colour("#f4e3b1"), colour("#1f4a8a")
    orange, red = colour("#f0962e"), colour("#d8412f")
    return (Atlas()
            .add("back", feathers(blue, tone(blue, 70)))
            .add("side", plain(blue))
            .add("belly", spots(cream, colour("#e2c07e")))
            .add("wing", feathers(blue, navy))
            .add("tip", stripes(navy, tone(navy, 150), every=2, vertical=True))
            .add("beak", plain(orange))
            .add("leg", plain(tone(orange, 85)))
            .add("crest", stripes(red, tone(red, 75)))
            .add("head", plain(blue))
            .add("cheek", spots(blue, cream, at=((4, 1), (4, 5)))))

SECONDARY = Secondary(
    looks=(Look(("neck", "head"), shares=(0.35, 0.65), cone=60.0),),
    chains=(Chain("tail", ("tail", "tailL"), stiffness=0.7, gravity=0.1, drag=0.4, radius=0.08),
            *(Chain(f"wing{side}", (f"arm{side}", f"hand{side}"), stiffness=1.6, gravity=0.05,
                    drag=0.45, radius=0.06) for side, _ in SIDES)),
    colliders=(Collider("body", (0.0, 0.0, 0.0), 0.45),),
)


def build() -> pack.Species:
    b = SpeciesBuilder("Flitwren", root_scale=0.5)
    atlas = _skin()
    skin = b.image(atlas.image())
    lid = "#3d8fd6"
    open_eye = b.image(eye("open", lid, "#2b2b2b"))
    closed_eye = b.image(eye("closed", lid, "#2b2b2b"))
    half_eye = b.image(eye("half", lid, "#2b2b2b"))
    b.primitive("body", skin)
    b.primitive("eyes", open_eye, channel=0, tex_map={6: open_eye, 7: closed_eye, 8: half_eye})
    t = atlas

    b.bone("root")
    b.bone("body", "root", at=(0, 1.3, 0))
    body_tiles = {"all": t["side"], "top": t["back"], "front": t["belly"], "bottom": t["belly"]}
    b.box("body", "body", (-0.5, -0.45, -0.55), (0.5, 0.5, 0.55), body_tiles)
    b.box("body", "body", (-0.42, 0.5, -0.5), (0.42, 0.62, 0.3), {"all": t["back"]})
    b.block("body", "body", (0, -0.45, 0.05), 0.2, 0.8, 0.8, t["belly"], axis="-y",
            end=(0.7, 0.7))
    b.bone("neck", "body", at=(0, 0.55, 0.3))
    b.block("body", "neck", (0, 0, 0), 0.32, 0.5, 0.5, t["side"])
    b.bone("head", "neck", at=(0, 0.3, 0.05))
    b.box("body", "head", (-0.4, 0, -0.35), (0.4, 0.7, 0.4),
          {"all": t["head"], "front": t["cheek"], "top": t["back"]})
    b.block("body", "head", (0, 0.7, 0.05), 0.35, 0.12, 0.45, t["crest"], end=(1.0, 0.3),
            shift=(0, -0.25))
    b.block("body", "head", (0, 0.28, 0.4), 0.42, 0.32, 0.24, t["beak"], axis="+z",
            end=(0.05, 0.05))
    for side, s in SIDES:
        b.quad("eyes", "head", (s * 0.21, 0.44, 0.405), (0.2, 0.22), whole())

    b.bone("tail", "body", at=(0, 0.05, -0.55), turn=(degrees(-15), 0, 0))
    b.block("body", "tail", (0, 0, 0), 0.5, 0.5, 0.15, t["wing"], axis="-z", end=(1.4, 0.6))
    for side, s in SIDES:
        b.bone(f"tail{side}", "tail", at=(s * 0.15, 0, -0.45), turn=(0, degrees(s * -14), 0))
        b.block("body", f"tail{side}", (0, 0, 0), 0.6, 0.24, 0.04, {"front": t["tip"],
                "back": t["tip"]}, axis="-z", end=(0.7, 1))
        b.bone(f"thigh{side}", "body", at=(s * 0.25, -0.45, 0.05))
        b.block("body", f"thigh{side}", (0, 0, 0), 0.35, 0.22, 0.26, t["side"], axis="-y",
                end=(0.7, 0.7))
        b.bone(f"shin{side}", f"thigh{side}", at=(0, -0.35, 0))
        b.block("body", f"shin{side}", (0, 0, 0), 0.42, 0.09, 0.09, t["leg"], axis="-y")
        b.box("body", f"shin{side}", (-0.16, -0.5, -0.12), (0.16, -0.42, 0.26), t["leg"])

    ax = {"L": "+x", "R": "-x"}
    for side, s in SIDES:
        b.bone(f"shoulder{side}", "body", at=(s * 0.5, 0.3, 0.05))
        b.block("body", f"shoulder{side}", (0, 0, 0), 0.45, 0.18, 0.55, t["wing"], axis=ax[side])
        b.bone(f"arm{side}", f"shoulder{side}", at=(s * 0.45, 0, 0))
        b.block("body", f"arm{side}", (0, 0, 0), 0.5, 0.12, 0.5, t["wing"], axis=ax[side],
                end=(0.8, 0.9))
        b.bone(f"hand{side}", f"arm{side}", at=(s * 0.5, 0, 0))
        b.block("body", f"hand{side}", (0, 0, 0), 0.4, 0.1, 0.42, t["tip"], axis=ax[side],
                end=(0.6, 0.6))
        card = {"front": t["wing"], "back": t["wing"]}
        for i in range(4):
            name = f"covert{side}{i}"
            b.bone(name, f"arm{side}", at=(s * (0.08 + 0.12 * i), 0, -0.2),
                   turn=(0, degrees(s * -6 * i), 0))
            b.block("body", name, (0, 0, 0), 0.4, 0.16, 0.03, card, axis="-z", end=(0.7, 1))
        tip = {"front": t["tip"], "back": t["tip"]}
        for i in range(5):
            name = f"primary{side}{i}"
            b.bone(name, f"hand{side}", at=(s * (0.04 + 0.08 * i), 0, -0.12),
                   turn=(0, degrees(s * (-28 - 12 * i)), 0))
            b.block("body", name, (0, 0, 0), 0.5 + 0.06 * i, 0.16, 0.03, tip, axis="-z",
                    end=(0.6, 1))

    _standby(b)
    _entrance(b)
    _gust(b)
    _peck(b)
    _hit(b)
    _faint(b)
    return b.build()


def _flap(m, frames, lift, beat, cycles, start=0, phase=0.0):
    """Both wings beating: shoulder leads, arm and hand follow a little later."""
    for side, s in SIDES:
        for bone, share, lag in (("shoulder", 1.0, 0.0), ("arm", 0.5, 0.08), ("hand", 0.45, 0.16)):
            m.turn(f"{bone}{side}", z=s * (lift * share + wave(frames, beat * share, cycles,
                                                                phase - lag, start)))


def _standby(b):
    n, loop = 28, 4
    m = b.animation(pack.STANDBY, n, loop)
    _flap(m, n, degrees(10), degrees(38), 2, start=loop)
    m.move("body", y=wave(n, 0.05, 2, 0.5, loop))
    m.turn("head", x=wave(n, degrees(6), 1, 0.0, loop), y=wave(n, degrees(10), 1, 0.25, loop))
    m.turn("tail", x=wave(n, degrees(5), 2, 0.3, loop))
    blink = [6] * 16 + [8, 7, 8] + [6] * 9
    b.texture_streams(pack.STANDBY, blink)


def _entrance(b):
    n = 48
    m = b.animation(pack.ENTRANCE, n)
    m.move("root", y=keys(n, (0, 3.5), (30, 0.2), (38, 0.0)),
           z=keys(n, (0, -4.0), (30, 0.0)))
    m.turn("body", x=keys(n, (0, degrees(25)), (30, degrees(-10)), (40, 0)))
    _flap(m, n, degrees(15), degrees(50), 4)
    m.turn("thighL", x=keys(n, (0, degrees(-40)), (30, 0)))
    m.turn("thighR", x=keys(n, (0, degrees(-40)), (30, 0)))


def _gust(b):
    n = 30
    m = b.animation(pack.ATTACK1, n)
    sweep = keys(n, (0, 0), (8, degrees(55)), (14, degrees(-35)), (18, degrees(50)),
                 (24, degrees(-30)), (29, 0))
    for side, s in SIDES:
        m.turn(f"shoulder{side}", z=s * sweep, y=s * keys(n, (0, 0), (12, degrees(-30)),
                                                         (26, 0)))
        m.turn(f"arm{side}", z=s * 0.4 * sweep)
    m.turn("body", x=keys(n, (0, 0), (8, degrees(-18)), (16, degrees(8)), (29, 0)))
    m.turn("head", x=keys(n, (0, 0), (8, degrees(15)), (20, degrees(-10)), (29, 0)))


def _peck(b):
    n = 26
    m = b.animation(pack.ATTACK2, n)
    m.move("root", z=keys(n, (0, 0), (6, -0.4), (11, 1.6), (18, 1.6), (25, 0)),
           y=keys(n, (0, 0), (6, 0.2), (11, 0.5), (18, 0.3), (25, 0)))
    m.turn("body", x=keys(n, (0, 0), (6, degrees(-15)), (11, degrees(35)), (18, degrees(30)),
                          (25, 0)))
    m.turn("neck", x=keys(n, (0, 0), (9, degrees(20)), (13, degrees(45)), (18, 0)))
    _flap(m, n, degrees(20), degrees(30), 3)


def _hit(b):
    n = 16
    m = b.animation(pack.HIT, n)
    m.move("root", z=keys(n, (0, 0), (3, -0.6), (15, 0)))
    m.turn("body", x=keys(n, (0, 0), (3, degrees(-25)), (15, 0)))
    for side, s in SIDES:
        m.turn(f"shoulder{side}", z=s * keys(n, (0, 0), (3, degrees(60)), (15, 0)))
    b.texture_streams(pack.HIT, [7, 7, 7, 7, 8, 6])


def _faint(b):
    n = 40
    m = b.animation(pack.FAINT, n)
    m.turn("root", z=keys(n, (0, 0), (10, degrees(10)), (28, degrees(78))))
    m.move("root", y=keys(n, (0, 0), (10, 0.3), (28, -0.35)), x=keys(n, (0, 0), (28, -0.6)))
    for side, s in SIDES:
        m.turn(f"shoulder{side}", z=s * keys(n, (0, 0), (10, degrees(40)), (30, degrees(-55))))
        m.turn(f"hand{side}", z=s * keys(n, (10, 0), (30, degrees(-30))))
    m.turn("neck", x=keys(n, (10, 0), (32, degrees(40))))
    b.texture_streams(pack.FAINT, steps(12, (0, 6), (6, 8), (10, 7)).astype(int))
