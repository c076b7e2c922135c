"""The visual regression cases: fixed frames of fixed battles, rendered headless.

    python -m stadium.app.goldens          regenerate tests/golden/*.png from the current code
    python -m stadium.app.goldens --roam   ... roam mode's only (after roam.model is retrained)

Three sets: the show's frames at 160 x 144 (``cases``), the battle's fallen creatures
(``fall_cases``, the faint as a ragdoll's fall, at rest), and the debugger's screens
(``debug_cases``: the playable battle with the debugger open, its graph inspector and
skeleton overlay on) at the debugger's screen size; and roam mode's (``render_roam``,
``render_roam_debug``). Alongside them, the README's
picture of the product: a contact sheet of a seeded battle's key moments (``SHEET``).

A frame matches its golden when at most TOLERANCE of its pixels differ by more than
CHANNEL (of 255) in any channel: loose enough for another machine's rasteriser to
round an edge differently, tight enough that a moved shadow or a lost flash fails.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from ..render import diorama
from ..render.battle_renderer import Look
from ..battle.scene import BattleScene
from ..battle.trainer_clips import missing
from ..render.gfx import Graphics, run_frames
from .launch import default_species
from ..paths import ROOT
from ..rig.rig import StadiumRig
from ..rig.roster import Roster
from .viewer import DEBUG_SCREEN, DT, BattleViewer, Options

GOLDEN = ROOT / "tests" / "golden"
FAILURES = GOLDEN / "_failures"
TOLERANCE = 0.005
CHANNEL = 8

# Frames of the default battle: both standing by (after both entrances, before the
# first attack), and long after the faint.
STANDBY_FRAME = 150
FAINT_FRAME = 720
# The trainers' gestures: both throwing a hand up as their creatures come out, and the
# winner's (left-handed, mirrored) wave after the rival's faint. Those frames, and the
# faint's, show the staged mocap; without it they are not checked.
SENDOUT_FRAME = 66
WAVE_FRAME = 660
TRAINER_PAIR = ("scrapkit", "gloopet")     # small, on the ground: the trainers in full view


@dataclass(frozen=True)
class Case:
    name: str
    species: tuple[str, str]
    frame: int
    hour: str = "day"
    look: Look = field(default_factory=Look)
    scripted: bool = True
    gestures: bool = False          # a trainer is mid-gesture: the frame needs the mocap

    def options(self) -> Options:
        look = Look(self.look.shadows, self.look.seams, self.look.glass, self.look.post)
        return Options(species=self.species, hour=self.hour, look=look, scripted=self.scripted)


def first_flash_frame(roster: Roster, species: tuple[str, str]) -> int:
    """The first frame of the default battle where the one struck is flashing white.
    Found by playing the battle's logic, so it follows the species' own timing."""
    pairs = [(s, StadiumRig(s)) for s in (roster.load(name) for name in species)]
    world = diorama.build()
    scene = BattleScene(*pairs, (world.cell("left"), world.cell("right")))
    for frame in range(1, FAINT_FRAME):
        scene.update(DT)
        if any(f.flash > 0.5 for f in scene.fighters):
            return frame
    raise RuntimeError(f"nobody flashed in the default battle of {species}")


def cases(roster: Roster | None = None) -> list[Case]:
    roster = roster or Roster()
    pair = default_species(roster)
    found = [Case(f"standby_{name}", (name, name), 40, scripted=False) for name in roster.names]
    found += [
        Case("attack_flash", pair, first_flash_frame(roster, pair)),
        Case("faint", pair, FAINT_FRAME, gestures=True),
        Case("trainers_sendout", TRAINER_PAIR, SENDOUT_FRAME, gestures=True),
        Case("trainers_wave", TRAINER_PAIR, WAVE_FRAME, gestures=True),
        Case("shadows_off", pair, STANDBY_FRAME, look=Look(shadows=False)),
        Case("seams_on", pair, STANDBY_FRAME, look=Look(seams=True)),
    ]
    found += [Case(f"hour_{hour}", pair, STANDBY_FRAME, hour=hour)
              for hour in ("dawn", "day", "dusk", "night")]
    return found


def render(case: Case, gfx: Graphics, roster: Roster) -> np.ndarray:
    """The case's frame at 160 x 144, (144, 160, 3) uint8; `gfx` must be that size."""
    viewer = BattleViewer(case.options(), roster, overlay=False)
    pixels = np.empty((gfx.height, gfx.width, 3), np.uint8)
    try:
        run_frames(viewer, gfx, [case.frame], DT, lambda _, g: g.read_screen(pixels))
    finally:
        viewer.release()
    return pixels


@dataclass(frozen=True)
class DebugCase:
    """A seeded battle played by the opponent logic to `frame`, the debugger open with
    `state` (stadium.app.debugui.panels.DebugState's fields); with `scrub` the battle is then
    paused and that battler's playhead scrubbed by that many seconds."""

    name: str
    frame: int
    state: tuple = ()
    seed: int = 3
    scrub: tuple | None = None       # (side, seconds past the playhead)

    def options(self) -> Options:
        return Options(mode="battle", controllers=("ai", "ai"), seed=self.seed, debug=True,
                       fixed_clock=True, debug_state=dict(self.state))


def debug_cases() -> list[DebugCase]:
    return [
        # the first blow lands: the inspector on our attacker, the skeletons over both,
        # a bone of the rival picked
        DebugCase("debug_inspector", 180, (("skeleton", True), ("picked", (1, 5)))),
        # the rival's hit reaction paused and scrubbed, on the Stadium path without the
        # half-frame blend, the bone list open
        DebugCase("debug_scrub_names", 180,
                  (("skeleton", True), ("names", True), ("side", 1), ("interpolate", False),
                   ("pose_paths", [None, "stadium"])), scrub=(1, 0.1)),
        # both standing by, each looking at the other: the IK and springs panel open, the
        # look goals, cones and foot goals over the frame
        DebugCase("debug_look_at", 150, (("secondary", True), ("ik_overlay", True))),
        # the tail whirl, its tail swinging: the spring chains and their colliders over
        # the frame, the rival's panel
        DebugCase("debug_springs", 170, (("secondary", True), ("spring_overlay", True),
                                         ("side", 1))),
        # the first faint (seed 3's: ours, at step 624), half a second into its fall: the
        # IK and springs panel with the fall's line, its ragdoll bodies over the frame
        # beside both skeletons
        DebugCase("debug_ragdoll", 654, (("secondary", True), ("ragdoll_overlay", True),
                                         ("skeleton", True))),
    ]


def render_debug(case: DebugCase, gfx: Graphics, roster: Roster) -> np.ndarray:
    """The case's whole screen, (h, w, 3) uint8; `gfx` must be DEBUG_SCREEN's size."""
    viewer = BattleViewer(case.options(), roster, overlay=False)
    try:
        viewer.load(gfx)
        for _ in range(case.frame):
            viewer.update(DT)
        if case.scrub is not None:
            side, seconds = case.scrub
            viewer.set_paused(True)
            scrub = [None, None]
            scrub[side] = viewer.match.battlers[side].state()[1] + seconds
            viewer.debug.state.scrub = scrub
            viewer.views_changed()
        viewer.draw(gfx)
        return gfx.read_screen().copy()
    finally:
        viewer.release()


# Roam mode: the trainer walked by a script (left, up the field, a run, a stop) from the
# roam's start, caught walking, turning, running and standing; and the debugger's matching
# view mid-walk. The same again driven by the shipped learned model (assets/learned/
# roam.model), and its debugger's view. All need the staged mocap.
ROAM_SCRIPT = ((0, "left"), (60, "up+left"), (150, "up"), (240, "up+shift"), (300, ""))
ROAM_FRAMES = (("roam_walk", 45), ("roam_turn", 130), ("roam_run", 285), ("roam_stop", 420))
ROAM_DEBUG = ("debug_roam_matching", 100)
ROAM_LEARNED_FRAMES = tuple((name.replace("roam_", "roam_learned_"), frame)
                            for name, frame in ROAM_FRAMES)
ROAM_LEARNED_DEBUG = ("debug_roam_learned", 100)


def roam_options(debug: bool = False, driver: str = "database") -> Options:
    return Options(mode="roam", controllers=("ai", "ai"), roam_keys=ROAM_SCRIPT, debug=debug,
                   fixed_clock=True, roam_driver=driver)


def render_roam(gfx: Graphics, roster: Roster, driver: str = "database") -> dict[str, np.ndarray]:
    """ROAM_FRAMES' frames (ROAM_LEARNED_FRAMES' driven by the learned model), each
    (144, 160, 3) uint8; `gfx` must be 160 x 144."""
    viewer = BattleViewer(roam_options(driver=driver), roster, overlay=False)
    shots, pixels = {}, np.empty((gfx.height, gfx.width, 3), np.uint8)
    names = dict((frame, name) for name, frame in
                 (ROAM_FRAMES if driver == "database" else ROAM_LEARNED_FRAMES))

    def keep(frame, g):
        g.read_screen(pixels)
        shots[names[frame]] = pixels.copy()
    try:
        run_frames(viewer, gfx, sorted(names), DT, keep)
    finally:
        viewer.release()
    return shots


def render_roam_debug(gfx: Graphics, roster: Roster, driver: str = "database") -> np.ndarray:
    """The debugger's screen over the roam at ROAM_DEBUG's frame; `gfx` DEBUG_SCREEN's size."""
    viewer = BattleViewer(roam_options(debug=True, driver=driver), roster, overlay=False)
    try:
        viewer.load(gfx)
        for _ in range(ROAM_DEBUG[1]):
            viewer.update(DT)
        viewer.draw(gfx)
        return gfx.read_screen().copy()
    finally:
        viewer.release()


# The faint as a fall: each species against itself, seeded, the opponent logic on both
# sides; the loser shown FALL_SHOWN_AFTER steps after its fall came to rest (the battle
# holds a fainted creature stadium.battle.battle.FAINT_HOLD steps before it leaves).
FALL_SEED = 3
FALL_SHOWN_AFTER = 30


def fall_cases(roster: Roster) -> list[str]:
    return [f"fall_{name}" for name in roster.names]


def render_fall(name: str, gfx: Graphics, roster: Roster) -> np.ndarray:
    """Case `fall_<species>`'s frame (HUD included), (144, 160, 3) uint8; `gfx` must be
    160 x 144."""
    species = name.removeprefix("fall_")
    options = Options(mode="battle", teams=((species,), (species,)), controllers=("ai", "ai"),
                      seed=FALL_SEED, fixed_clock=True)
    viewer = BattleViewer(options, roster, overlay=False)
    try:
        viewer.load(gfx)
        match, rested = viewer.match, None
        while rested is None or match.frame < rested + FALL_SHOWN_AFTER:
            viewer.update(DT)
            if rested is None and any(match.fainted(side) for side in (0, 1)):
                rested = match.frame
            if match.frame > 20000:
                raise RuntimeError(f"nobody's fall came to rest in {species}'s battle")
        viewer.draw(gfx)
        return gfx.read_screen().copy()
    finally:
        viewer.release()


# The README's contact sheet: a seeded battle, played by the opponent logic on both
# sides, caught at moments its own log names (event kind, its n-th time, steps after).
SHEET = ROOT / "docs" / "battle.png"
SHEET_SEED = 3
SHEET_TEAMS = (("emberlisk", "mosshoof"), ("scrapkit", "ripplewyrm"))
SHEET_MOMENTS = (("sendout", 2, 24), ("turn", 1, 10), ("hit", 1, 1), ("faint", 1, 40),
                 ("sendout", 3, 70), ("result", 1, 30))
SHEET_COLUMNS, SHEET_ZOOM, SHEET_GAP = 3, 2, 4


def sheet_frames(gfx: Graphics, roster: Roster) -> list[np.ndarray]:
    """The battle's frames (HUD included) at SHEET_MOMENTS, each (144, 160, 3) uint8;
    `gfx` must be 160 x 144."""
    options = Options(mode="battle", teams=SHEET_TEAMS, controllers=("ai", "ai"),
                      seed=SHEET_SEED, fixed_clock=True)
    viewer = BattleViewer(options, roster, overlay=False)
    shots = {}
    try:
        viewer.load(gfx)
        log = viewer.match.battle.log
        while len(shots) < len(SHEET_MOMENTS):
            viewer.update(DT)
            for k, (kind, nth, after) in enumerate(SHEET_MOMENTS):
                seen = [e.frame for e in log if e.kind == kind]
                if k not in shots and len(seen) >= nth and viewer.match.frame == seen[nth - 1] + after:
                    viewer.draw(gfx)
                    shots[k] = gfx.read_screen().copy()
            if viewer.match.frame > 20000:
                raise RuntimeError("the contact sheet's battle never reached its moments")
    finally:
        viewer.release()
    return [shots[k] for k in range(len(SHEET_MOMENTS))]


def contact_sheet(frames: list[np.ndarray]) -> np.ndarray:
    """The frames side by side, SHEET_COLUMNS a row, each zoomed SHEET_ZOOM times."""
    h, w = frames[0].shape[:2]
    cw, ch = w * SHEET_ZOOM + SHEET_GAP, h * SHEET_ZOOM + SHEET_GAP
    rows = -(-len(frames) // SHEET_COLUMNS)
    sheet = np.full((rows * ch + SHEET_GAP, SHEET_COLUMNS * cw + SHEET_GAP, 3), 24, np.uint8)
    for k, frame in enumerate(frames):
        y, x = divmod(k, SHEET_COLUMNS)
        zoomed = frame.repeat(SHEET_ZOOM, axis=0).repeat(SHEET_ZOOM, axis=1)
        sheet[SHEET_GAP + y * ch:][:h * SHEET_ZOOM, SHEET_GAP + x * cw:][:, :w * SHEET_ZOOM] = zoomed
    return sheet


def save_sheet(sheet: np.ndarray, path: Path = SHEET) -> None:
    """As a 256-colour PNG: the pixel art has fewer colours, and the file stays small."""
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(sheet).quantize(256, dither=Image.Dither.NONE).save(path, optimize=True)


def difference(expected: np.ndarray, actual: np.ndarray) -> tuple[float, np.ndarray]:
    """The share of pixels off by more than CHANNEL, and a picture of where."""
    off = (np.abs(expected.astype(np.int16) - actual.astype(np.int16)) > CHANNEL).any(axis=-1)
    picture = (expected // 3).astype(np.uint8)
    picture[off] = (255, 0, 255)
    return float(off.mean()), picture


def write_failure(name: str, expected: np.ndarray, actual: np.ndarray, diff: np.ndarray) -> Path:
    FAILURES.mkdir(parents=True, exist_ok=True)
    for suffix, image in (("expected", expected), ("actual", actual), ("diff", diff)):
        Image.fromarray(image).save(FAILURES / f"{name}_{suffix}.png")
    return FAILURES


def mismatch(name: str, actual: np.ndarray) -> str | None:
    """Compares a render with its golden: None when within the tolerance, else what is
    wrong (expected, actual and diff pictures written to FAILURES)."""
    path = GOLDEN / f"{name}.png"
    if not path.exists():
        return f"no golden for {name}: run python -m stadium.app.goldens"
    expected = np.asarray(Image.open(path).convert("RGB"))
    share, diff = difference(expected, actual)
    if share <= TOLERANCE:
        return None
    folder = write_failure(name, expected, actual, diff)
    return (f"{name}: {share:.2%} of pixels differ by more than {CHANNEL}/255 "
            f"(allowed {TOLERANCE:.1%}); see {folder}")


def main() -> int:
    roster = Roster()
    GOLDEN.mkdir(parents=True, exist_ok=True)
    why = missing()
    if why is not None:
        print(f"the trainers' gestures need the mocap ({why}): refusing to write goldens "
              f"of trainers standing at rest", file=sys.stderr)
        return 1
    gfx = Graphics.open_headless((160, 144))
    try:
        for case in cases(roster):
            path = GOLDEN / f"{case.name}.png"
            Image.fromarray(render(case, gfx, roster)).save(path)
            print(path.relative_to(ROOT))
        for name in fall_cases(roster):
            path = GOLDEN / f"{name}.png"
            Image.fromarray(render_fall(name, gfx, roster)).save(path)
            print(path.relative_to(ROOT))
        save_sheet(contact_sheet(sheet_frames(gfx, roster)))
        print(SHEET.relative_to(ROOT))
        write_roam(gfx, roster)
    finally:
        gfx.release()
    try:
        import imgui_bundle  # noqa: F401
    except ImportError:
        print("imgui-bundle is not installed: the debugger's goldens were left as they are")
        return 0
    gfx = Graphics.open_headless(DEBUG_SCREEN)
    try:
        for case in debug_cases():
            path = GOLDEN / f"{case.name}.png"
            Image.fromarray(render_debug(case, gfx, roster)).save(path)
            print(path.relative_to(ROOT))
        write_roam_debug(gfx, roster)
    finally:
        gfx.release()
    return 0


def write_roam(gfx: Graphics, roster: Roster) -> None:
    for driver in ("database", "learned"):
        for name, frame in render_roam(gfx, roster, driver).items():
            Image.fromarray(frame).save(GOLDEN / f"{name}.png")
            print((GOLDEN / f"{name}.png").relative_to(ROOT))


def write_roam_debug(gfx: Graphics, roster: Roster) -> None:
    for name, driver in ((ROAM_DEBUG[0], "database"), (ROAM_LEARNED_DEBUG[0], "learned")):
        path = GOLDEN / f"{name}.png"
        Image.fromarray(render_roam_debug(gfx, roster, driver)).save(path)
        print(path.relative_to(ROOT))


def main_roam() -> int:
    """Roam's goldens alone (after roam.model is retrained: python -m stadium.roam.learned
    --ship, then python -m stadium.app.goldens --roam)."""
    roster = Roster()
    gfx = Graphics.open_headless((160, 144))
    try:
        write_roam(gfx, roster)
    finally:
        gfx.release()
    gfx = Graphics.open_headless(DEBUG_SCREEN)
    try:
        write_roam_debug(gfx, roster)
    finally:
        gfx.release()
    return 0


if __name__ == "__main__":
    sys.exit(main_roam() if sys.argv[1:] == ["--roam"] else main())
