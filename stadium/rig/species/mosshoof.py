"""Mosshoof: a horned, moss-backed grazer on four legs."""
from __future__ import annotations

from .. import pack
from .secondary import Chain, Collider, Leg, Look, Secondary
from .build import SpeciesBuilder, degrees
from .curves import keys, wave
from .paint import Atlas, colour, eye, plain, spots, stripes, tone, whole

SIDES = (("L", 1.0), ("R", -1.0))
LEGS = (("F", "chest", 0.3, -0.4), ("H", "hips", -0.05, -0.35))


def _skin() -> Atlas:
    brown, moss, tan = colour("#8a5634"), colour("#5f9e36"), colour("#d2aa78")
    ivory, hoof = colour("#eee2c2"), colour("#3a2a20")
    return (Atlas()
            .add("hide", plain(brown))
            .add("hide_spots", spots(brown, tone(brown, 75)))
            .add("moss", spots(moss, colour("#8cc84b"), at=((1, 1), (4, 5), (5, 1))))
            .add("moss_dark", stripes(moss, tone(moss, 75), every=2))
            .add("belly", plain(tan))
            .add("muzzle", spots(tan, tone(tan, 70), at=((4, 2), (4, 5))))
            .add("horn", stripes(ivory, tone(ivory, 80), every=2))
            .add("hoof", plain(hoof))
            .add("leg", stripes(brown, tone(brown, 80), every=3))
            .add("ear", plain(tone(brown, 120))))

SECONDARY = Secondary(
    looks=(Look(("neck", "head"), shares=(0.4, 0.6), cone=45.0),),
    legs=tuple(Leg(f"upper{leg}{side}", f"lower{leg}{side}", f"hoof{leg}{side}")
               for leg, *_ in LEGS for side, _ in SIDES),
    pelvis="hips",
    chains=(Chain("tail", ("tail1", "tail2"), stiffness=0.4, gravity=0.3, drag=0.3, radius=0.1),),
    colliders=(Collider("hips", (0.0, 0.0, 0.1), 0.4),),
)


def build() -> pack.Species:
    b = SpeciesBuilder("Mosshoof", root_scale=0.5)
    t = _skin()
    skin = b.image(t.image())
    lid = "#8a5634"
    open_eye = b.image(eye("open", lid, "#6b3d1a"))
    closed_eye = b.image(eye("closed", lid, "#6b3d1a"))
    half_eye = b.image(eye("half", lid, "#6b3d1a"))
    b.primitive("body", skin)
    b.primitive("eyes", open_eye, channel=0, tex_map={6: open_eye, 7: closed_eye, 8: half_eye})

    hide = {"all": t["hide"], "top": t["moss"], "bottom": t["belly"]}
    b.bone("root")
    b.bone("hips", "root", at=(0, 1.3, -0.6))
    b.box("body", "hips", (-0.5, -0.35, -0.45), (0.5, 0.4, 0.4), hide)
    b.bone("spine", "hips", at=(0, 0.05, 0.4))
    b.box("body", "spine", (-0.55, -0.42, 0), (0.55, 0.45, 0.75),
          {"all": t["hide_spots"], "top": t["moss"], "bottom": t["belly"]})
    b.bone("chest", "spine", at=(0, 0, 0.75))
    b.box("body", "chest", (-0.5, -0.4, 0), (0.5, 0.5, 0.5), hide)
    b.box("body", "chest", (-0.45, 0.45, -1.5), (0.45, 0.62, 0.45), t["moss"])
    for k, (x, z) in enumerate(((-0.2, -1.1), (0.15, -0.2))):
        b.box("body", "chest", (x - 0.18, 0.62, z - 0.2), (x + 0.18, 0.8 + 0.04 * k, z + 0.2),
              {"all": t["moss_dark"], "top": t["moss"]})

    b.bone("neck", "chest", at=(0, 0.35, 0.4), turn=(degrees(-35), 0, 0))
    b.block("body", "neck", (0, 0, 0), 0.55, 0.45, 0.45, {"all": t["hide"], "back": t["moss"]},
            end=(0.85, 0.85))
    b.bone("head", "neck", at=(0, 0.55, 0.05), turn=(degrees(35), 0, 0))
    b.box("body", "head", (-0.35, -0.25, -0.2), (0.35, 0.3, 0.45), {"all": t["hide"],
          "top": t["moss"]})
    b.block("body", "head", (0, -0.05, 0.45), 0.38, 0.5, 0.4,
            {"all": t["muzzle"], "top": t["hide"], "bottom": t["belly"]}, axis="+z",
            end=(0.85, 0.8))
    for side, s in SIDES:
        b.quad("eyes", "head", (s * 0.2, 0.19, 0.455), (0.2, 0.2), whole())
    b.bone("jaw", "head", at=(0, -0.25, 0.3))
    b.box("body", "jaw", (-0.22, -0.12, 0), (0.22, 0, 0.5), t["belly"])
    for side, s in SIDES:
        b.bone(f"horn{side}", "head", at=(s * 0.22, 0.3, 0.05), turn=(0, 0, degrees(s * -25)))
        b.block("body", f"horn{side}", (0, 0, 0), 0.55, 0.16, 0.16, t["horn"], end=(0.2, 0.2),
                shift=(s * 0.12, -0.15))
        b.bone(f"ear{side}", "head", at=(s * 0.35, 0.18, -0.1))
        b.block("body", f"ear{side}", (0, 0, 0), 0.28, 0.1, 0.2, t["ear"],
                axis="+x" if s > 0 else "-x", end=(0.5, 0.6))

    b.bone("tail1", "hips", at=(0, 0.2, -0.45), turn=(degrees(20), 0, 0))
    b.block("body", "tail1", (0, 0, 0), 0.35, 0.2, 0.2, t["hide"], axis="-z")
    b.bone("tail2", "tail1", at=(0, 0, -0.35))
    b.block("body", "tail2", (0, 0, 0), 0.4, 0.34, 0.34, t["moss_dark"], axis="-z",
            end=(0.3, 0.3))

    for leg, parent, z, y in LEGS:
        for side, s in SIDES:
            upper, lower, hoof = f"upper{leg}{side}", f"lower{leg}{side}", f"hoof{leg}{side}"
            b.bone(upper, parent, at=(s * 0.35, y, z))
            b.block("body", upper, (0, 0, 0), 0.45, 0.3, 0.34, t["hide"], axis="-y",
                    end=(0.85, 0.85))
            b.bone(lower, upper, at=(0, -0.45, 0))
            b.block("body", lower, (0, 0, 0), 0.4 + (0.05 if leg == "F" else 0.0), 0.22, 0.24,
                    t["leg"], axis="-y")
            b.bone(hoof, lower, at=(0, -0.4 - (0.05 if leg == "F" else 0.0), 0))
            b.box("body", hoof, (-0.15, -0.15, -0.13), (0.15, 0, 0.17), t["hoof"])

    _standby(b)
    _entrance(b)
    _horn_rush(b)
    _moss_stomp(b)
    _hit(b)
    _faint(b)
    return b.build()


def _gait(m, n, cycles, stride=degrees(28)):
    """A walk: diagonal legs together, lower legs folding on the way forward."""
    for leg, _, _, _ in LEGS:
        for side, s in SIDES:
            phase = (0.0 if (leg == "F") == (s > 0) else 0.5)
            m.turn(f"upper{leg}{side}", x=wave(n, stride, cycles, phase))
            m.turn(f"lower{leg}{side}", x=wave(n, stride * 0.7, cycles, phase + 0.25) - stride * 0.3)


def _standby(b):
    n = 36
    m = b.animation(pack.STANDBY, n)
    m.turn("neck", x=wave(n, degrees(8), 1))
    m.turn("head", x=wave(n, degrees(6), 1, 0.3))
    m.turn("tail1", y=wave(n, degrees(25), 2))
    m.turn("tail2", y=wave(n, degrees(20), 2, 0.15))
    m.turn("earL", z=wave(n, degrees(15), 3))
    m.move("spine", y=wave(n, 0.03, 2))
    b.texture_streams(pack.STANDBY, [6] * 10 + [8, 7, 7, 8] + [6] * 22)


def _entrance(b):
    n = 50
    m = b.animation(pack.ENTRANCE, n)
    m.move("root", x=keys(n, (0, 6.0), (36, 0.0)))
    m.turn("root", y=keys(n, (0, degrees(-90)), (30, degrees(-90)), (42, 0)))
    _gait(m, n, 5)
    m.turn("neck", x=keys(n, (36, 0), (42, degrees(-25)), (49, 0)))
    m.turn("jaw", x=keys(n, (38, 0), (42, degrees(25)), (48, 0)))


def _horn_rush(b):
    n = 30
    m = b.animation(pack.ATTACK1, n)
    m.move("root", z=keys(n, (0, 0), (8, -0.4), (14, 1.8), (20, 1.8), (29, 0)))
    m.turn("neck", x=keys(n, (0, 0), (8, degrees(-15)), (14, degrees(40)), (20, degrees(40)),
                          (29, 0)))
    m.turn("head", x=keys(n, (8, 0), (14, degrees(20)), (24, 0)))
    _gait(m, n, 2, degrees(20))


def _moss_stomp(b):
    n = 34
    m = b.animation(pack.ATTACK2, n)
    rear = keys(n, (0, 0), (12, degrees(-38)), (18, degrees(-38)), (22, degrees(4)), (33, 0))
    m.turn("hips", x=rear)
    m.move("hips", y=keys(n, (0, 0), (12, 0.25), (20, 0.25), (22, -0.1), (33, 0)))
    for side, s in SIDES:
        m.turn(f"upperF{side}", x=keys(n, (0, 0), (12, degrees(-50)), (20, degrees(-50)),
                                       (22, degrees(10)), (33, 0)))
        m.turn(f"upperH{side}", x=-rear)
    m.turn("neck", x=keys(n, (0, 0), (12, degrees(-20)), (22, degrees(25)), (33, 0)))


def _hit(b):
    n = 16
    m = b.animation(pack.HIT, n)
    m.move("root", z=keys(n, (0, 0), (3, -0.5), (15, 0)))
    m.turn("hips", z=keys(n, (0, 0), (3, degrees(8)), (8, degrees(-5)), (15, 0)))
    m.turn("neck", x=keys(n, (0, 0), (3, degrees(-30)), (15, 0)))
    b.texture_streams(pack.HIT, [7, 7, 7, 7, 7, 8, 6])


def _faint(b):
    n = 44
    m = b.animation(pack.FAINT, n)
    for side, s in SIDES:
        m.turn(f"upperF{side}", x=keys(n, (0, 0), (18, degrees(-70))))
        m.turn(f"lowerF{side}", x=keys(n, (0, 0), (18, degrees(120))))
        m.turn(f"upperH{side}", x=keys(n, (8, 0), (26, degrees(60))))
        m.turn(f"lowerH{side}", x=keys(n, (8, 0), (26, degrees(-110))))
    m.move("root", y=keys(n, (0, 0), (26, -0.85)))
    m.turn("root", z=keys(n, (24, 0), (40, degrees(25))))
    m.turn("neck", x=keys(n, (10, 0), (34, degrees(50))))
    b.texture_streams(pack.FAINT, [6] * 10 + [8, 8, 7])
