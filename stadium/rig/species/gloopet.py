"""Gloopet: a jelly blob with eyes on stalks and two stubby pseudopods.

Its body bone squashes and stretches with animated non-uniform scale. The stalks and
arms are its children, turned at rest, so the rule matters here: the body's scale
moves where a child sits but never shears the child itself. Every animation stays
within half a body-height of its tile, so anchoring must leave it exactly as posed.
"""
from __future__ import annotations

from .. import pack
from .secondary import Chain, Collider, Look, Secondary
from .build import SpeciesBuilder, degrees
from .curves import keys, wave
from .paint import Atlas, colour, eye, face, plain, spots, tone, whole

SIDES = (("L", 1.0), ("R", -1.0))


def _skin() -> Atlas:
    jelly, light, deep = colour("#9a5ad6"), colour("#c9a2f2"), colour("#5e2f94")
    return (Atlas()
            .add("jelly", spots(jelly, light, at=((2, 2), (5, 5))))
            .add("plain", plain(jelly))
            .add("face", face(jelly, deep))
            .add("base", plain(tone(jelly, 80)))
            .add("stalk", plain(light))
            .add("eyeball", plain(colour("#f4f0ff")))
            .add("hand", spots(light, jelly, at=((3, 3),))))

SECONDARY = Secondary(
    looks=tuple(Look((f"stalk{side}", f"eye{side}"), shares=(0.6, 0.4), cone=40.0)
                for side, _ in SIDES),
    chains=tuple(Chain(f"arm{side}", (f"arm{side}", f"hand{side}"), stiffness=0.6, gravity=0.3,
                       drag=0.3, radius=0.1) for side, _ in SIDES),
    colliders=(Collider("body", (0.0, 0.5, 0.0), 0.55),),
)


def build() -> pack.Species:
    b = SpeciesBuilder("Gloopet", root_scale=0.5)
    t = _skin()
    skin = b.image(t.image())
    lid = "#f4f0ff"
    open_eye = b.image(eye("open", lid, "#d03a6a"))
    closed_eye = b.image(eye("closed", lid, "#d03a6a"))
    half_eye = b.image(eye("half", "#c9a2f2", "#d03a6a"))
    b.primitive("body", skin)
    b.primitive("eyes", open_eye, channel=0, tex_map={6: open_eye, 7: closed_eye, 8: half_eye})

    b.bone("root")
    b.bone("body", "root", at=(0, 0.1, 0))
    b.box("body", "body", (-0.75, -0.1, -0.65), (0.75, 0.35, 0.65), t["base"])
    b.box("body", "body", (-0.65, 0.35, -0.58), (0.65, 0.95, 0.58), {"all": t["jelly"],
          "front": t["face"]})
    b.block("body", "body", (0, 0.95, 0), 0.35, 1.1, 0.95, t["plain"], end=(0.6, 0.6))
    b.bone("crown", "body", at=(0, 1.3, 0))
    b.block("body", "crown", (0, 0, 0), 0.3, 0.25, 0.25, t["stalk"], end=(0.2, 0.2),
            shift=(0.1, 0))
    b.bone("drip", "body", at=(0, 0.1, -0.6))
    b.block("body", "drip", (0, 0, 0), 0.3, 0.3, 0.2, t["plain"], axis="-z", end=(0.4, 0.6))
    for side, s in SIDES:
        b.bone(f"stalk{side}", "body", at=(s * 0.3, 1.15, 0.2),
               turn=(degrees(-10), 0, degrees(s * -25)))
        b.block("body", f"stalk{side}", (0, 0, 0), 0.45, 0.12, 0.12, t["stalk"])
        b.bone(f"eye{side}", f"stalk{side}", at=(0, 0.45, 0), turn=(0, 0, degrees(s * 25)))
        b.box("body", f"eye{side}", (-0.17, 0, -0.17), (0.17, 0.34, 0.17), t["eyeball"])
        b.quad("eyes", f"eye{side}", (0, 0.17, 0.175), (0.3, 0.3), whole())
        b.bone(f"arm{side}", "body", at=(s * 0.68, 0.45, 0.1), turn=(0, 0, degrees(s * -40)))
        b.block("body", f"arm{side}", (0, 0, 0), 0.45, 0.28, 0.28, t["plain"],
                axis="+x" if s > 0 else "-x", end=(0.8, 0.8))
        b.bone(f"hand{side}", f"arm{side}", at=(s * 0.45, 0, 0))
        lo, hi = sorted((0.0, s * 0.3))
        b.box("body", f"hand{side}", (lo, -0.18, -0.18), (hi, 0.18, 0.18), t["hand"])

    _standby(b)
    _entrance(b)
    _goo_slap(b)
    _bounce(b)
    _hit(b)
    _faint(b)
    return b.build()


def _squash(m, n, amount, cycles, phase=0.0):
    """Non-uniform scale on the body: wider as it gets shorter, like a jelly."""
    m.scale("body", x=1 + wave(n, amount, cycles, phase), y=1 - wave(n, amount * 1.25, cycles, phase),
            z=1 + wave(n, amount, cycles, phase))


def _standby(b):
    n = 30
    m = b.animation(pack.STANDBY, n)
    _squash(m, n, 0.08, 2)
    for side, s in SIDES:
        m.turn(f"stalk{side}", z=s * wave(n, degrees(10), 1, 0.2 * s))
        m.turn(f"arm{side}", z=s * wave(n, degrees(12), 2, 0.25))
    m.turn("crown", z=wave(n, degrees(15), 2, 0.5))
    b.texture_streams(pack.STANDBY, [6] * 12 + [8, 7, 8] + [6] * 15)


def _entrance(b):
    n = 36
    m = b.animation(pack.ENTRANCE, n)
    m.scale("body", x=keys(n, (0, 1.5), (12, 0.85), (20, 1.1), (28, 1.0)),
            y=keys(n, (0, 0.25), (12, 1.25), (20, 0.9), (28, 1.0)),
            z=keys(n, (0, 1.5), (12, 0.85), (20, 1.1), (28, 1.0)))
    for side, s in SIDES:
        m.turn(f"arm{side}", z=s * keys(n, (12, 0), (18, degrees(50)), (30, 0)))


def _goo_slap(b):
    n = 28
    m = b.animation(pack.ATTACK1, n)
    m.turn("armR", z=keys(n, (0, 0), (8, degrees(-60)), (13, degrees(45)), (24, 0)),
           y=keys(n, (0, 0), (8, degrees(30)), (13, degrees(-40)), (24, 0)))
    m.turn("body", y=keys(n, (0, 0), (8, degrees(20)), (13, degrees(-25)), (24, 0)))
    m.scale("body", x=keys(n, (8, 1.0), (13, 1.15), (20, 1.0)), y=keys(n, (8, 1.0), (13, 0.88),
                                                                       (20, 1.0)))
    b.texture_streams(pack.ATTACK1, [6] * 8 + [8] * 8 + [6])


def _bounce(b):
    n = 30
    m = b.animation(pack.ATTACK2, n)
    m.move("root", y=keys(n, (0, 0), (6, 0), (13, 0.75), (20, 0)), z=keys(n, (6, 0), (20, 0.5),
                                                                            (29, 0)))
    m.scale("body", x=keys(n, (0, 1), (6, 1.25), (10, 0.85), (20, 1.3), (26, 1.0)),
            y=keys(n, (0, 1), (6, 0.7), (10, 1.2), (20, 0.65), (26, 1.0)),
            z=keys(n, (0, 1), (6, 1.25), (10, 0.85), (20, 1.3), (26, 1.0)))


def _hit(b):
    n = 16
    m = b.animation(pack.HIT, n)
    m.scale("body", x=keys(n, (0, 1), (3, 1.25), (7, 0.92), (11, 1.05), (15, 1.0)),
            y=keys(n, (0, 1), (3, 0.75), (7, 1.08), (11, 0.96), (15, 1.0)))
    m.move("root", z=keys(n, (0, 0), (3, -0.3), (15, 0)))
    b.texture_streams(pack.HIT, [7, 7, 7, 7, 8, 6])


def _faint(b):
    n = 40
    m = b.animation(pack.FAINT, n)
    m.scale("body", x=keys(n, (0, 1), (30, 1.4)), y=keys(n, (0, 1), (30, 0.35)),
            z=keys(n, (0, 1), (30, 1.4)))
    for side, s in SIDES:
        m.turn(f"stalk{side}", z=s * keys(n, (6, 0), (32, degrees(-60))))
        m.turn(f"arm{side}", z=s * keys(n, (0, 0), (24, degrees(30))))
    b.texture_streams(pack.FAINT, [6, 6, 8, 8, 7])
