"""Scrapkit: a long-eared boxing rodent on two legs, with red gloves and a scarf.

Its forty-frame standby blinks through the five-entry stream 6 8 7 8 6 (open, half,
shut, half, open). Clamped at its last entry, that is one blink per loop. Its jab
carries an eye stream longer than the animation, whose tail is never reached. Its
Blink Step is a dash of half its height in five frames and back.
"""
from __future__ import annotations

from .. import pack
from .secondary import Chain, Collider, Leg, Look, Secondary
from .build import SpeciesBuilder, degrees
from .curves import keys, steps, wave
from .paint import Atlas, colour, eye, plain, spots, stripes, tone, whole

SIDES = (("L", 1.0), ("R", -1.0))
BLINK = (6, 8, 7, 8, 6)


def _skin() -> Atlas:
    fur, cream, dark = colour("#c08a52"), colour("#f3e7d3"), colour("#5b3a22")
    glove, pink = colour("#d8302f"), colour("#f09aa9")
    return (Atlas()
            .add("fur", plain(fur))
            .add("stripes", stripes(fur, dark, every=3))
            .add("belly", plain(cream))
            .add("glove", spots(glove, tone(glove, 140), at=((2, 2),)))
            .add("scarf", stripes(colour("#2f6fd0"), colour("#f2f2f2"), every=3, vertical=True))
            .add("ear", spots(fur, pink, at=((2, 3), (4, 3))))
            .add("nose", plain(colour("#3b2418")))
            .add("muzzle", spots(cream, tone(cream, 75), at=((5, 3),)))
            .add("foot", plain(dark)))

SECONDARY = Secondary(
    looks=(Look(("chest", "head"), shares=(0.3, 0.7), cone=55.0),),
    legs=(Leg("thighL", "shinL", "footL"), Leg("thighR", "shinR", "footR")),
    pelvis="hips",
    chains=(*(Chain(f"ear{side}", (f"ear{side}", f"tip{side}"), stiffness=0.8, gravity=0.1,
                    drag=0.35, radius=0.06) for side, _ in SIDES),
            Chain("tail", ("tail1", "tail2", "tail3"), stiffness=0.5, gravity=0.2, drag=0.3,
                  radius=0.08)),
    colliders=(Collider("head", (0.0, 0.35, 0.0), 0.33), Collider("hips", (0.0, 0.1, 0.05), 0.3)),
)


def build() -> pack.Species:
    b = SpeciesBuilder("Scrapkit", root_scale=0.45)
    t = _skin()
    skin = b.image(t.image())
    lid = "#c08a52"
    open_eye = b.image(eye("open", lid, "#2d6a2d"))
    closed_eye = b.image(eye("closed", lid, "#2d6a2d"))
    half_eye = b.image(eye("half", lid, "#2d6a2d"))
    b.primitive("body", skin)
    b.primitive("eyes", open_eye, channel=0, tex_map={6: open_eye, 7: closed_eye, 8: half_eye})

    b.bone("root")
    b.bone("hips", "root", at=(0, 0.95, 0))
    b.box("body", "hips", (-0.38, -0.2, -0.3), (0.38, 0.25, 0.3),
          {"all": t["fur"], "front": t["belly"]})
    b.bone("chest", "hips", at=(0, 0.25, 0))
    b.block("body", "chest", (0, 0, 0), 0.7, 0.8, 0.6, {"all": t["stripes"],
            "front": t["belly"]}, end=(1.05, 0.95))
    b.box("body", "chest", (-0.44, 0.6, -0.33), (0.44, 0.76, 0.33), t["scarf"])
    b.bone("head", "chest", at=(0, 0.74, 0.02))
    b.box("body", "head", (-0.44, 0, -0.36), (0.44, 0.72, 0.4), t["fur"])
    b.block("body", "head", (0, 0.2, 0.4), 0.24, 0.46, 0.3, {"all": t["muzzle"],
            "top": t["fur"]}, axis="+z", end=(0.8, 0.8))
    b.box("body", "head", (-0.08, 0.32, 0.62), (0.08, 0.42, 0.68), t["nose"])
    for side, s in SIDES:
        b.quad("eyes", "head", (s * 0.2, 0.52, 0.405), (0.22, 0.24), whole())
        b.bone(f"ear{side}", "head", at=(s * 0.26, 0.7, -0.05), turn=(0, 0, degrees(s * -14)))
        b.block("body", f"ear{side}", (0, 0, 0), 0.4, 0.3, 0.12, {"all": t["fur"],
                "front": t["ear"]}, end=(0.85, 1.0))
        b.bone(f"tip{side}", f"ear{side}", at=(0, 0.4, 0))
        b.block("body", f"tip{side}", (0, 0, 0), 0.3, 0.26, 0.12, {"all": t["fur"],
                "front": t["ear"]}, end=(0.4, 0.8))

        b.bone(f"arm{side}", "chest", at=(s * 0.5, 0.55, 0), turn=(0, 0, degrees(s * 10)))
        b.block("body", f"arm{side}", (0, 0, 0), 0.36, 0.2, 0.2, t["fur"], axis="-y")
        b.bone(f"fore{side}", f"arm{side}", at=(0, -0.36, 0), turn=(degrees(-70), 0, 0))
        b.block("body", f"fore{side}", (0, 0, 0), 0.3, 0.18, 0.18, t["fur"], axis="-y")
        b.bone(f"fist{side}", f"fore{side}", at=(0, -0.3, 0))
        b.box("body", f"fist{side}", (-0.17, -0.3, -0.17), (0.17, 0.02, 0.19), t["glove"])

        b.bone(f"thigh{side}", "hips", at=(s * 0.22, -0.15, 0))
        b.block("body", f"thigh{side}", (0, 0, 0), 0.35, 0.26, 0.28, t["fur"], axis="-y")
        b.bone(f"shin{side}", f"thigh{side}", at=(0, -0.35, 0))
        b.block("body", f"shin{side}", (0, 0, 0), 0.3, 0.2, 0.2, t["fur"], axis="-y")
        b.bone(f"foot{side}", f"shin{side}", at=(0, -0.3, 0))
        b.box("body", f"foot{side}", (-0.15, -0.15, -0.15), (0.15, 0, 0.32), t["foot"])

    parent, at = "hips", (0, 0.05, -0.3)
    for k, (length, width, tilt) in enumerate(((0.35, 0.16, 30), (0.3, 0.16, 20), (0.3, 0.34, 10))):
        name = f"tail{k + 1}"
        b.bone(name, parent, at=at, turn=(degrees(tilt), 0, 0))
        b.block("body", name, (0, 0, 0), length, width, width,
                t["stripes"] if k < 2 else t["fur"], axis="-z", end=(0.3, 0.3) if k == 2 else (1, 1))
        parent, at = name, (0, 0, -length)

    _standby(b)
    _entrance(b)
    _jab(b)
    _blink_step(b)
    _hit(b)
    _faint(b)
    return b.build()


def _guard(m, n):
    """Fists up in front of the face: the pose every move returns to."""
    for side, s in SIDES:
        m.turn(f"arm{side}", x=keys(n, (0, degrees(-25)), (n - 1, degrees(-25))),
               z=s * keys(n, (0, degrees(-8)), (n - 1, degrees(-8))))
        m.turn(f"fore{side}", x=keys(n, (0, degrees(-45)), (n - 1, degrees(-45))))


def _standby(b):
    n = 40
    m = b.animation(pack.STANDBY, n)
    _guard(m, n)
    m.move("hips", y=wave(n, 0.06, 2))
    for side, s in SIDES:
        m.turn(f"arm{side}", x=wave(n, degrees(10), 2, 0.25 if s > 0 else 0.75))
        m.turn(f"thigh{side}", x=wave(n, degrees(6), 2, 0.5))
        m.turn(f"shin{side}", x=wave(n, degrees(-10), 2, 0.5))
        m.turn(f"tip{side}", x=wave(n, degrees(14), 1, 0.1 * s))
    m.turn("tail1", y=wave(n, degrees(18), 1))
    m.turn("tail2", y=wave(n, degrees(18), 1, 0.15))
    b.texture_streams(pack.STANDBY, BLINK)


def _entrance(b):
    n = 44
    m = b.animation(pack.ENTRANCE, n)
    m.move("root", x=keys(n, (0, 4.0), (24, 0.0)), y=keys(n, (0, 0.0), (12, 1.8), (24, 0.0)))
    m.turn("hips", x=keys(n, (0, 0), (24, degrees(-360))))
    for side, s in SIDES:
        m.turn(f"thigh{side}", x=keys(n, (0, 0), (8, degrees(-70)), (20, degrees(-70)), (26, 0)))
        m.turn(f"shin{side}", x=keys(n, (0, 0), (8, degrees(100)), (20, degrees(100)), (26, 0)))
    _guard(m, n)
    m.turn("armR", x=keys(n, (26, 0), (32, degrees(-120)), (40, 0)))


def _jab(b):
    n = 30
    m = b.animation(pack.ATTACK1, n)
    _guard(m, n)
    m.turn("armR", x=keys(n, (0, 0), (6, degrees(15)), (10, degrees(-65)), (18, degrees(-65)),
                          (26, 0)))
    m.turn("foreR", x=keys(n, (0, 0), (6, degrees(-30)), (10, degrees(45)), (18, degrees(45)),
                           (26, 0)))
    m.turn("chest", y=keys(n, (0, 0), (6, degrees(20)), (10, degrees(-30)), (20, degrees(-30)),
                           (28, 0)))
    m.move("root", z=keys(n, (0, 0), (10, 0.5), (20, 0.5), (28, 0)))
    # longer than the animation: its closed-eye tail is never reached
    b.texture_streams(pack.ATTACK1, [6] * 6 + [8] * 26 + [7] * 13)


def _blink_step(b):
    n = 36
    m = b.animation(pack.ATTACK2, n)
    _guard(m, n)
    m.move("root", z=keys(n, (0, 0.0), (6, 0.0), (11, 1.8), (21, 1.8), (26, 0.0)))
    m.move("hips", y=keys(n, (0, 0), (8, -0.3), (11, 0), (24, 0), (26, -0.2), (32, 0)))
    m.turn("armL", x=keys(n, (12, 0), (15, degrees(-70)), (22, 0)))
    m.turn("foreL", x=keys(n, (12, 0), (15, degrees(45)), (22, 0)))
    m.turn("chest", y=keys(n, (12, 0), (15, degrees(25)), (22, 0)))
    b.texture_streams(pack.ATTACK2, steps(36, (0, 6), (8, 8), (12, 6)).astype(int))


def _hit(b):
    n = 16
    m = b.animation(pack.HIT, n)
    _guard(m, n)
    m.move("root", z=keys(n, (0, 0), (3, -0.5), (15, 0)))
    m.turn("chest", x=keys(n, (0, 0), (3, degrees(-22)), (15, 0)))
    m.turn("head", x=keys(n, (0, 0), (3, degrees(-18)), (15, 0)))
    b.texture_streams(pack.HIT, [7, 7, 7, 7, 8, 6])


def _faint(b):
    n = 46
    m = b.animation(pack.FAINT, n)
    m.turn("root", x=keys(n, (8, 0), (30, degrees(-84))))
    m.move("root", z=keys(n, (8, 0), (30, -0.6)), y=keys(n, (20, 0), (30, 0.22)))
    for side, s in SIDES:
        m.turn(f"arm{side}", z=s * keys(n, (0, 0), (24, degrees(70))))
        m.turn(f"ear{side}", x=keys(n, (10, 0), (34, degrees(-50))))
    m.turn("head", x=keys(n, (16, 0), (34, degrees(-25))))
    b.texture_streams(pack.FAINT, [6, 6, 8, 8, 7])
