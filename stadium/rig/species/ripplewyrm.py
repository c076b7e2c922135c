"""Ripplewyrm: a finned sea serpent, the largest species in the set.

A segmented body rises into a horned head at the front and tapers into a fan tail at
the back, with dorsal fins along it. Its entrance swims more than six body-heights
out across the field and back, which a single battle camera loses unless the rig
anchors it.
"""
from __future__ import annotations

from .. import pack
from .secondary import Chain, Collider, Look, Secondary
from .build import SpeciesBuilder, degrees
from .curves import keys, wave
from .paint import Atlas, colour, eye, plain, scales, spots, stripes, tone, whole

SIDES = (("L", 1.0), ("R", -1.0))
NECK = ("neck1", "neck2")
TAIL = ("tail1", "tail2", "tail3", "tail4", "tail5")


def _skin() -> Atlas:
    teal, pale, fin = colour("#23918f"), colour("#d4f1e2"), colour("#2d52a8")
    gold = colour("#f2cd48")
    return (Atlas()
            .add("scales", scales(teal, tone(teal, 72)))
            .add("back", spots(tone(teal, 85), colour("#6fd0c0")))
            .add("belly", stripes(pale, tone(pale, 82), every=2))
            .add("fin", stripes(fin, tone(fin, 140), every=2, vertical=True))
            .add("horn", plain(gold))
            .add("ridge", plain(tone(fin, 80)))
            .add("mouth", plain(colour("#7a1f2a")))
            .add("tooth", plain(colour("#f5f5ec")))
            .add("head", plain(teal)))

SECONDARY = Secondary(
    looks=(Look(("neck1", "neck2", "head"), shares=(0.2, 0.3, 0.5), cone=50.0),),
    chains=(Chain("tail", (*TAIL, "fan"), stiffness=0.9, gravity=0.05, drag=0.35, radius=0.2),),
    colliders=(Collider("mid", (0.0, 0.1, 0.2), 0.45),),
)


def build() -> pack.Species:
    b = SpeciesBuilder("Ripplewyrm", root_scale=0.55)
    t = _skin()
    skin = b.image(t.image())
    lid = "#23918f"
    open_eye = b.image(eye("open", lid, "#e0a020"))
    closed_eye = b.image(eye("closed", lid, "#e0a020"))
    half_eye = b.image(eye("half", lid, "#e0a020"))
    b.primitive("body", skin)
    b.primitive("eyes", open_eye, channel=0, tex_map={6: open_eye, 7: closed_eye, 8: half_eye})

    b.bone("root")
    b.bone("mid", "root", at=(0, 0.5, 0))
    _segment(b, t, "mid", 0.6, 0.95, -0.3, nub=True)
    parent, at = "mid", (0, 0.05, 0.3)
    for k, (name, tilt) in enumerate(zip(NECK, (-40, -25))):
        b.bone(name, parent, at=at, turn=(degrees(tilt), 0, 0))
        _segment(b, t, name, 0.6, 0.88 - 0.08 * k, 0.0)
        parent, at = name, (0, 0, 0.6)
    b.bone("head", "neck2", at=(0, 0.02, 0.62), turn=(degrees(65), 0, 0))
    _head(b, t)

    parent, at = "mid", (0, 0, -0.3)
    for k, name in enumerate(TAIL):
        width = 0.9 - 0.13 * k
        b.bone(name, parent, at=at)
        _segment(b, t, name, 0.55, width, -0.55, nub=k == 4)
        parent, at = name, (0, 0, -0.55)
    b.bone("fan", "tail5", at=at)
    fan = {"front": t["fin"], "back": t["fin"], "top": t["ridge"]}
    for side, s in SIDES:
        b.block("body", "fan", (s * 0.1, 0, 0), 0.75, 0.5, 0.06, fan, axis="-z",
                end=(1.6, 1.0), shift=(s * 0.45, 0))

    for name in ("mid", *NECK, *TAIL[:4]):
        fin = f"fin_{name}"
        b.bone(fin, name, at=(0, 0.42, -0.28 if name in NECK else -0.3))
        b.block("body", fin, (0, 0, 0.15), 0.4, 0.06, 0.45, {"all": t["fin"]}, end=(1.0, 0.2),
                shift=(0, -0.2))
    for side, s in SIDES:
        for name, parent, z in ((f"pectoral{side}", "neck1", 0.3), (f"pelvic{side}", "tail2", -0.3)):
            b.bone(name, parent, at=(s * 0.42, -0.2, z), turn=(0, 0, degrees(s * -30)))
            b.block("body", name, (0, 0, 0), 0.55, 0.06, 0.4, {"all": t["fin"]},
                    axis="+x" if s > 0 else "-x", end=(0.6, 1.0))

    _standby(b)
    _entrance(b)
    _tidal_lash(b)
    _coil(b)
    _hit(b)
    _faint(b)
    return b.build()


def _segment(b, t, bone, length, width, z0, nub=False):
    """One body segment: scaled core, pale belly plate, side ridges, maybe a spine nub."""
    h = width * 0.8
    b.box("body", bone, (-width / 2, -h / 2, z0), (width / 2, h / 2, z0 + length),
          {"all": t["scales"], "top": t["back"], "bottom": t["belly"]})
    b.box("body", bone, (-width * 0.35, -h / 2 - 0.08, z0 + 0.04),
          (width * 0.35, -h / 2 + 0.02, z0 + length - 0.04), t["belly"])
    for s in (1.0, -1.0):
        x0, x1 = sorted((s * width / 2, s * (width / 2 + 0.07)))
        b.box("body", bone, (x0, -0.08, z0 + 0.08), (x1, 0.12, z0 + length - 0.08), t["ridge"])
    if nub:
        b.box("body", bone, (-0.08, h / 2, z0 + 0.18), (0.08, h / 2 + 0.1, z0 + 0.38),
              t["ridge"])


def _head(b, t):
    b.box("body", "head", (-0.42, -0.22, -0.3), (0.42, 0.38, 0.35), t["head"])
    b.block("body", "head", (0, 0.02, 0.35), 0.5, 0.66, 0.34,
            {"all": t["head"], "top": t["back"], "bottom": t["belly"]}, axis="+z",
            end=(0.75, 0.8))
    b.box("body", "head", (-0.44, 0.3, -0.1), (0.44, 0.44, 0.3), t["ridge"])
    for side, s in SIDES:
        b.quad("eyes", "head", (s * 0.25, 0.24, 0.355), (0.2, 0.2), whole())
    b.bone("jaw", "head", at=(0, -0.2, 0.25))
    b.box("body", "jaw", (-0.3, -0.14, 0), (0.3, 0.02, 0.55), {"all": t["belly"],
          "top": t["mouth"]})
    for s in (1.0, -1.0):
        b.block("body", "jaw", (s * 0.18, 0.02, 0.45), 0.12, 0.07, 0.07, t["tooth"],
                end=(0.1, 0.1))
    for side, s in SIDES:
        b.bone(f"horn{side}", "head", at=(s * 0.28, 0.38, -0.15), turn=(degrees(-50), 0, 0))
        b.block("body", f"horn{side}", (0, 0, 0), 0.6, 0.14, 0.16, t["horn"], end=(0.2, 0.2),
                shift=(s * 0.1, -0.12))
        b.bone(f"whisker{side}", "head", at=(s * 0.32, 0.0, 0.7))
        b.block("body", f"whisker{side}", (0, 0, 0), 0.6, 0.05, 0.05, t["horn"],
                axis="+x" if s > 0 else "-x", end=(0.4, 0.4), shift=(-0.2 * s, 0.2))


def _undulate(m, n, amplitude, cycles, phase=0.0, envelope=1.0):
    """A travelling side-to-side wave down the body, the tail swinging widest;
    ``envelope`` (per frame) fades it, e.g. to rest between two swims."""
    for k, name in enumerate(TAIL):
        m.turn(name, y=envelope * wave(n, amplitude * (0.5 + 0.15 * k), cycles,
                                       phase - 0.12 * (k + 1)))
    m.turn("fan", y=envelope * wave(n, amplitude, cycles, phase - 0.8))
    for k, name in enumerate(NECK):
        m.turn(name, z=envelope * wave(n, amplitude * 0.25, cycles, phase + 0.1 * (k + 1)))


def _standby(b):
    n = 48
    m = b.animation(pack.STANDBY, n)
    _undulate(m, n, degrees(12), 1)
    m.move("mid", y=wave(n, 0.06, 2))
    m.turn("neck1", x=wave(n, degrees(5), 1, 0.25))
    m.turn("head", x=wave(n, degrees(6), 1, 0.5))
    for side, s in SIDES:
        m.turn(f"pectoral{side}", z=s * wave(n, degrees(20), 3))
        m.turn(f"whisker{side}", y=s * wave(n, degrees(15), 2))
    b.texture_streams(pack.STANDBY, [6] * 30 + [8, 7, 7, 8] + [6] * 14)


def _entrance(b):
    n = 64
    m = b.animation(pack.ENTRANCE, n)
    # it rises a little way off, looks about, and swims home to its own tile
    m.move("root", x=keys(n, (0, 5.0), (22, 5.0), (52, 0)))
    m.turn("root", y=keys(n, (0, degrees(-90)), (52, degrees(-90)), (60, 0)))
    m.move("root", y=keys(n, (0, -0.6), (10, 0.0)))
    swimming = keys(n, (0, 0.0), (20, 0.0), (24, 1.0), (50, 1.0), (56, 0.0))
    _undulate(m, n, degrees(22), 4, envelope=swimming)
    m.turn("jaw", x=keys(n, (54, 0), (58, degrees(30)), (63, 0)))


def _tidal_lash(b):
    n = 34
    m = b.animation(pack.ATTACK1, n)
    m.turn("neck1", x=keys(n, (0, 0), (10, degrees(-25)), (16, degrees(30)), (33, 0)))
    m.turn("neck2", x=keys(n, (0, 0), (10, degrees(-15)), (16, degrees(35)), (33, 0)))
    m.turn("jaw", x=keys(n, (8, 0), (14, degrees(35)), (24, 0)))
    m.move("root", z=keys(n, (0, 0), (10, -0.3), (16, 1.2), (33, 0)))
    _undulate(m, n, degrees(18), 2)
    b.texture_streams(pack.ATTACK1, [6] * 8 + [8] * 10 + [6])


def _coil(b):
    n = 40
    m = b.animation(pack.ATTACK2, n)
    curl = keys(n, (0, 0), (14, degrees(32)), (26, degrees(32)), (34, 0))
    for name in TAIL:
        m.turn(name, y=curl)
    m.turn("root", y=keys(n, (0, 0), (14, degrees(-60)), (26, degrees(-60)), (36, 0)))
    m.turn("neck2", x=keys(n, (10, 0), (16, degrees(-20)), (26, degrees(-20)), (34, 0)))
    m.scale("mid", y=keys(n, (14, 1.0), (20, 1.15), (26, 1.0)))


def _hit(b):
    n = 18
    m = b.animation(pack.HIT, n)
    m.move("root", z=keys(n, (0, 0), (3, -0.6), (17, 0)))
    m.turn("neck1", x=keys(n, (0, 0), (3, degrees(-30)), (17, 0)))
    m.turn("head", x=keys(n, (0, 0), (3, degrees(-20)), (17, 0)))
    _undulate(m, n, degrees(10), 2)
    b.texture_streams(pack.HIT, [7, 7, 7, 7, 8, 6])


def _faint(b):
    n = 48
    m = b.animation(pack.FAINT, n)
    m.move("root", y=keys(n, (8, 0), (36, -0.3)))
    m.turn("neck1", x=keys(n, (0, 0), (10, degrees(-15)), (34, degrees(38))))
    m.turn("neck2", x=keys(n, (10, 0), (34, degrees(22))))
    m.turn("head", x=keys(n, (14, 0), (36, degrees(-30))))
    m.turn("mid", z=keys(n, (16, 0), (40, degrees(70))))
    for name in TAIL:
        m.turn(name, y=keys(n, (10, 0), (38, degrees(-12))))
    b.texture_streams(pack.FAINT, [6, 6, 8, 8, 7])
