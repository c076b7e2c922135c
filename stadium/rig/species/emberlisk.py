"""Emberlisk: an upright fire salamander with a burning tail tip.

The flame is its own additive primitive, so it composites over the body and casts no
shadow, and it flickers between two images through a texture stream. The claw swipe
carries the consecutive rotations (0, 20976, 32736) then (0, -19936, -5904), an arm
raised overhead then slashed down in one frame, which must hold rather than blend
through the body. The tail whirl spins the whole body, so one rotation component
steps from 32700 to -32700 and must blend the 136-unit short way.
"""
from __future__ import annotations

import numpy as np

from .. import pack
from .secondary import Chain, Collider, Leg, Look, Secondary
from .build import SpeciesBuilder, degrees
from .curves import keys, wave
from .paint import Atlas, colour, eye, flame, plain, scales, spots, stripes, tone, whole

SIDES = (("L", 1.0), ("R", -1.0))
SWIPE = (0, 20976, 32736), (0, -19936, -5904)


def _skin() -> Atlas:
    red, gold, dark = colour("#e2562c"), colour("#f7c548"), colour("#962a1c")
    return (Atlas()
            .add("hide", scales(red, tone(red, 78)))
            .add("plain", plain(red))
            .add("belly", stripes(gold, tone(gold, 82), every=2))
            .add("spine", plain(dark))
            .add("claw", plain(colour("#f3e6cf")))
            .add("mouth", spots(red, dark, at=((5, 2), (5, 4))))
            .add("spots", spots(red, gold)))

SECONDARY = Secondary(
    looks=(Look(("chest", "neck", "head"), shares=(0.2, 0.3, 0.5), cone=55.0),),
    legs=(Leg("thighL", "shinL", "footL"), Leg("thighR", "shinR", "footR")),
    pelvis="hips",
    # the tail holds its curl up (a flame burns upright): stiff, and no weight to droop
    chains=(Chain("tail", ("tail1", "tail2", "tail3", "tail4", "flame"), stiffness=1.2,
                  gravity=0.0, drag=0.3, radius=0.12),),
    colliders=(Collider("hips", (0.0, 0.05, 0.05), 0.32), Collider("spine", (0.0, 0.3, 0.0), 0.3)),
)


def build() -> pack.Species:
    b = SpeciesBuilder("Emberlisk", root_scale=0.5)
    t = _skin()
    skin = b.image(t.image())
    lid = "#e2562c"
    open_eye = b.image(eye("open", lid, "#2a7a2a"))
    closed_eye = b.image(eye("closed", lid, "#2a7a2a"))
    half_eye = b.image(eye("half", lid, "#2a7a2a"))
    flame_a, flame_b = b.image(flame(0)), b.image(flame(1))
    b.primitive("body", skin)
    b.primitive("eyes", open_eye, channel=0, tex_map={6: open_eye, 7: closed_eye, 8: half_eye})
    b.primitive("flame", flame_a, additive=True, channel=1, tex_map={0: flame_a, 1: flame_b})

    hide = {"all": t["hide"]}
    b.bone("root")
    b.bone("hips", "root", at=(0, 1.1, 0))
    b.box("body", "hips", (-0.42, -0.25, -0.35), (0.42, 0.3, 0.32), hide)
    b.bone("spine", "hips", at=(0, 0.3, 0))
    b.block("body", "spine", (0, 0, 0), 0.55, 0.78, 0.62, hide, end=(0.92, 0.92))
    b.box("body", "spine", (-0.24, -0.2, 0.2), (0.24, 0.62, 0.36), t["belly"])
    b.bone("chest", "spine", at=(0, 0.55, 0))
    b.box("body", "chest", (-0.44, 0, -0.3), (0.44, 0.45, 0.32), t["spots"])
    for k in range(3):
        b.block("body", "spine", (0, 0.1 + 0.22 * k, -0.3), 0.22, 0.1, 0.2, t["spine"],
                axis="-z", end=(1.0, 0.1), shift=(0, 0.08))
    b.bone("neck", "chest", at=(0, 0.45, 0.05))
    b.block("body", "neck", (0, 0, 0), 0.22, 0.36, 0.36, t["plain"])
    b.bone("head", "neck", at=(0, 0.2, 0.05))
    b.box("body", "head", (-0.36, 0, -0.32), (0.36, 0.52, 0.36), t["plain"])
    b.block("body", "head", (0, 0.22, 0.36), 0.38, 0.6, 0.3,
            {"all": t["plain"], "top": t["spots"], "bottom": t["belly"]}, axis="+z",
            end=(0.8, 0.7))
    for side, s in SIDES:
        b.quad("eyes", "head", (s * 0.19, 0.41, 0.365), (0.2, 0.2), whole())
    b.bone("jaw", "head", at=(0, 0.1, 0.3))
    b.box("body", "jaw", (-0.26, -0.1, 0), (0.26, 0.04, 0.42), {"all": t["belly"],
          "top": t["mouth"]})
    b.bone("crest", "head", at=(0, 0.52, -0.05))
    for k in range(2):
        b.block("body", "crest", (0, 0, 0.12 - 0.26 * k), 0.32 - 0.08 * k, 0.1, 0.26,
                t["spine"], end=(1.0, 0.1), shift=(0, -0.12))

    for side, s in SIDES:
        b.bone(f"arm{side}", "chest", at=(s * 0.5, 0.34, 0.05), turn=(0, 0, degrees(s * 12)))
        b.block("body", f"arm{side}", (0, 0, 0), 0.4, 0.22, 0.22, t["hide"], axis="-y")
        b.bone(f"fore{side}", f"arm{side}", at=(0, -0.4, 0), turn=(degrees(-55), 0, 0))
        b.block("body", f"fore{side}", (0, 0, 0), 0.34, 0.2, 0.2, t["hide"], axis="-y",
                end=(0.9, 0.9))
        b.bone(f"hand{side}", f"fore{side}", at=(0, -0.34, 0))
        b.box("body", f"hand{side}", (-0.13, -0.16, -0.12), (0.13, 0, 0.14), t["plain"])
        for k in (-1, 1):
            b.block("body", f"hand{side}", (k * 0.06, -0.16, 0.06), 0.14, 0.06, 0.06,
                    t["claw"], axis="-y", end=(0.2, 0.2))
        b.bone(f"thigh{side}", "hips", at=(s * 0.3, -0.1, 0))
        b.block("body", f"thigh{side}", (0, 0, 0), 0.45, 0.32, 0.34, t["hide"], axis="-y",
                end=(0.8, 0.8))
        b.bone(f"shin{side}", f"thigh{side}", at=(0, -0.45, 0))
        b.block("body", f"shin{side}", (0, 0, 0), 0.4, 0.22, 0.22, t["hide"], axis="-y")
        b.bone(f"foot{side}", f"shin{side}", at=(0, -0.4, 0))
        b.box("body", f"foot{side}", (-0.17, -0.15, -0.14), (0.17, 0, 0.3), t["plain"])

    parent, at = "hips", (0, -0.05, -0.3)
    # down and back from the hips, then curling up so the flame burns upright
    for k, (length, width, tilt) in enumerate(((0.45, 0.42, -20), (0.42, 0.34, 5),
                                               (0.36, 0.26, 25), (0.3, 0.2, 35))):
        name = f"tail{k + 1}"
        b.bone(name, parent, at=at, turn=(degrees(tilt), 0, 0))
        b.block("body", name, (0, 0, 0), length, width, width * 0.85,
                {"all": t["hide"], "bottom": t["belly"]}, axis="-z", end=(0.8, 0.8))
        parent, at = name, (0, 0, -length)
    b.bone("flame", parent, at=at, turn=(degrees(-45), 0, 0))
    sides = {face: whole(size=16) for face in ("front", "back", "left", "right")}
    for height, width in ((1.0, 0.56), (0.62, 0.34)):
        b.block("flame", "flame", (0, 0, 0), height, width, width, sides, end=(0.15, 0.15))

    _standby(b)
    _entrance(b)
    _claw_swipe(b)
    _tail_whirl(b)
    _hit(b)
    _faint(b)
    return b.build()


def _flicker(frames: int) -> list[int]:
    """The flame's two images alternating every other frame."""
    return [(f // 2) % 2 for f in range(frames)]


def _tail_sway(m, n, amplitude, cycles, phase=0.0):
    for k in range(4):
        m.turn(f"tail{k + 1}", y=wave(n, amplitude * (0.6 + 0.2 * k), cycles, phase - 0.1 * k))


def _standby(b):
    n = 32
    m = b.animation(pack.STANDBY, n)
    m.move("spine", y=wave(n, 0.025, 2))
    m.turn("head", x=wave(n, degrees(5), 1), y=wave(n, degrees(8), 1, 0.25))
    m.turn("armL", x=wave(n, degrees(6), 2))
    m.turn("armR", x=wave(n, degrees(6), 2, 0.5))
    _tail_sway(m, n, degrees(14), 1)
    m.scale("flame", x=1 + wave(n, 0.1, 4), y=1 + wave(n, 0.18, 4, 0.25), z=1 + wave(n, 0.1, 4))
    b.texture_streams(pack.STANDBY, [6] * 20 + [8, 7, 8] + [6] * 9, _flicker(n))


def _entrance(b):
    n = 42
    m = b.animation(pack.ENTRANCE, n)
    m.move("root", y=keys(n, (0, 4.0), (14, 1.8), (22, 0.0)), z=keys(n, (0, -2.5), (22, 0)))
    m.turn("hips", x=keys(n, (0, degrees(-40)), (22, 0)))
    m.move("hips", y=keys(n, (20, 0), (24, -0.25), (30, 0)))
    m.turn("neck", x=keys(n, (24, 0), (30, degrees(-25)), (38, 0)))
    m.turn("jaw", x=keys(n, (24, 0), (30, degrees(30)), (38, 0)))
    for side, s in SIDES:
        m.turn(f"arm{side}", z=s * keys(n, (24, 0), (30, degrees(45)), (38, 0)))
    m.scale("flame", y=keys(n, (24, 1.0), (30, 1.8), (40, 1.0)))
    b.texture_streams(pack.ENTRANCE, [], _flicker(n))


def _claw_swipe(b):
    n = 30
    m = b.animation(pack.ATTACK1, n)
    raised, slashed = SWIPE
    for f in range(12):
        k = f / 11
        m.set_turn("armR", f, 0, round(raised[1] * k), round(raised[2] * k))
    m.set_turn("armR", 12, *raised)
    m.set_turn("armR", 13, *slashed)
    for f in range(14, n):
        k = max(0.0, 1 - (f - 13) / 10)
        m.set_turn("armR", f, 0, round(slashed[1] * k), round(slashed[2] * k))
    m.turn("chest", y=keys(n, (0, 0), (12, degrees(-20)), (14, degrees(25)), (26, 0)))
    m.move("root", z=keys(n, (0, 0), (12, 0.2), (14, 0.7), (26, 0)))
    m.turn("jaw", x=keys(n, (10, 0), (14, degrees(30)), (22, 0)))
    b.texture_streams(pack.ATTACK1, [6] * 10 + [8] * 8 + [6], _flicker(n))


def _tail_whirl(b):
    n = 36
    m = b.animation(pack.ATTACK2, n)
    # one full turn over 25 frames, crossing the half turn as 32700 then -32700
    spin = np.concatenate([np.linspace(0, 32700, 13), np.linspace(32836, 65536, 12),
                           np.full(n - 25, 65536)])
    m.turn("root", y=spin)
    m.move("root", y=keys(n, (0, 0), (6, 0.3), (22, 0.3), (28, 0)))
    _tail_sway(m, n, degrees(30), 3)
    m.scale("flame", x=keys(n, (0, 1), (12, 1.5), (28, 1)), y=keys(n, (0, 1), (12, 2.0), (28, 1)))
    b.texture_streams(pack.ATTACK2, [], _flicker(n))


def _hit(b):
    n = 16
    m = b.animation(pack.HIT, n)
    m.move("root", z=keys(n, (0, 0), (3, -0.5), (15, 0)))
    m.turn("spine", x=keys(n, (0, 0), (3, degrees(-20)), (15, 0)))
    m.turn("neck", x=keys(n, (0, 0), (3, degrees(-20)), (15, 0)))
    b.texture_streams(pack.HIT, [7, 7, 7, 7, 8, 6], _flicker(n))


def _faint(b):
    n = 44
    m = b.animation(pack.FAINT, n)
    m.turn("root", x=keys(n, (6, 0), (30, degrees(-82))))
    m.move("root", z=keys(n, (6, 0), (30, -0.5)), y=keys(n, (20, 0), (30, 0.25)))
    for side, s in SIDES:
        m.turn(f"arm{side}", z=s * keys(n, (0, 0), (20, degrees(50))))
        m.turn(f"thigh{side}", x=keys(n, (10, 0), (30, degrees(-40))))
    m.turn("neck", x=keys(n, (10, 0), (34, degrees(-30))))
    m.scale("flame", x=keys(n, (0, 1), (40, 0.3)), y=keys(n, (0, 1), (40, 0.25)),
            z=keys(n, (0, 1), (40, 0.3)))
    b.texture_streams(pack.FAINT, [6, 6, 8, 8, 7], _flicker(n))
