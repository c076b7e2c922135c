"""The battle viewer: the playable battle (or the seeded show) in a window, with keys to
play it and a debugger to look inside its animation.

Two worlds can be on show:

    "battle"   the playable battle (stadium.battle.match): teams, moves, turns and an opponent,
               every creature an instance of the battler graph, a result at the end
    "show"     the seeded choreography (stadium.battle.scene) the visual goldens use
    "roam"     before the battle: the trainer walks the village on motion matching
               (stadium.roam) until it steps onto the battle spot, and the battle begins

One Game drives both a window and a headless run (see app/headless.py), so a screenshot
is exactly what the window would show.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import runtime as rt

from ..errors import BadFile
from ..paths import SPECIES
from ..render import diorama as diorama_module
from ..render.battle_renderer import BattleRenderer, Look
from ..battle.scene import CHOREOGRAPHY_SECONDS, BattleScene
from ..battle.secondary import Switches
from ..render.battlecam import BattleCam
from ..render.gfx import Game, Graphics
from ..render.hours import HOUR_ORDER, HOURS
from .checks import read_save
from .framing import Framing
from .hud import FIELD_BOXES
from .overlay import text_image
from ..render.post import Present, letterbox
from ..rig.rig import StadiumRig
from ..rig.roster import Roster

DT = 1.0 / 60.0
DEBUG_SCREEN = (1120, 800)
SAVE_PATH = Path("out") / "match.json"
NOTICE_FRAMES = 120     # a notice (saved, loaded, a screenshot) stays two seconds

KEYS = (
    ("arrows / wasd", "roam (--roam): walk the trainer, shift runs; the red mark starts the battle"),
    ("l", "roam: the trainer driven by the motion database / the learned model"),
    ("1 2", "battle: use move 1 / move 2 (show: attack 1 / attack 2)"),
    ("r", "battle again from the start"),
    ("v", "pose path: runtime graph / Stadium rig, both sides"),
    ("f3", "the debugger: graph inspector, time controls, skeleton"),
    ("f5 f9", "save the battle to out/match.json / load it back"),
    ("space", "pause; . steps one frame while paused"),
    ("h", "next hour (dawn, day, dusk, night)"),
    ("s g p", "shadows / seams / post effects on and off"),
    ("tab", "show: choose the side the keys below act on"),
    ("left / right", "show: previous / next species on that side"),
    ("3 4 5", "show: hit / faint / send out again"),
    ("f12", "screenshot into out/"),
    ("f1", "this list, a status line, or nothing"),
    ("esc", "quit"),
)
_MOVES = {"1": "attack1", "2": "attack2", "3": "hit", "4": "faint", "5": "entrance"}


def keys_help() -> str:
    return "\n".join(f"  {key:<14}{what}" for key, what in KEYS)


@dataclass
class Options:
    """What a viewer shows.

    Both worlds: the hour, the seed, the look's toggles, whether the debugger starts
    open. The show: the two species (names or .pack paths; None for the default pair) and
    whether the scripted timeline runs. The battle: the teams (None: the bundled species,
    three a side), who picks each side's moves ("human", "ai" or "script" with its moves
    by turn, 0 or 1), each side's pose path, the graphs' blend, and a saved match to
    continue instead of starting one.
    """

    species: tuple[str, str] | None = None
    hour: str = "day"
    seed: int = 0
    look: Look = field(default_factory=Look)
    scripted: bool = True
    mode: str = "show"
    teams: tuple | None = None
    controllers: tuple = ("human", "ai")
    scripts: tuple = ((), ())
    pose_paths: tuple = ("runtime", "runtime")
    blend: str = "inertialize"
    debug: bool = False
    debug_state: dict = field(default_factory=dict)   # the debugger's settings to open with
    fixed_clock: bool = False        # frame times as if every frame took 1/60 s (goldens)
    load: Path | None = None
    save_at: int | None = None       # write the battle to save_path after this many steps
    save_path: Path | None = None
    roam_keys: tuple = ()            # roam: a script's [step, "keys"] pairs (stadium.roam.scene)
    roam_model: Path | None = None   # roam: the learned model (None: the shipped roam.model)
    roam_driver: str = "database"    # roam: what drives the trainer first (database, learned)


def default_teams(roster: Roster) -> tuple:
    names = roster.names
    if not names:
        raise BadFile(SPECIES, "no species packs (.pack) here")
    six = [names[k % len(names)] for k in range(6)]
    return tuple(six[:3]), tuple(six[3:])


class BattleViewer(Game):
    """The world, its renderer and the keys; draws the 160 x 144 frame whole-number
    scaled and letterboxed into whatever screen it is given (beside the debugger's
    panels when it is open)."""

    def __init__(self, options: Options, roster: Roster, *, overlay: bool):
        self.options = options
        self.roster = roster
        self.hour = options.hour
        self.look = options.look
        self.paused = False
        self.speed = 1.0
        self.steps = 0
        self.side = 0
        self.help_mode = 1 if overlay else 0     # 0 nothing, 1 status line, 2 key list
        self.diorama = diorama_module.build()
        self.cells = (self.diorama.cell("left"), self.diorama.cell("right"))
        self.framing = Framing(BattleCam.battle(*self.cells), self.cells, self.diorama.ground,
                               FIELD_BOXES if options.mode == "battle" else ())
        self.debug = None
        self.debug_open = bool(options.debug)
        if self.debug_open:
            from . import debugui

            if not debugui.available():
                print("the debugger needs imgui-bundle (pip install imgui-bundle)", file=sys.stderr)
                self.debug_open = False
        self.gfx = None
        self.renderer = None
        self._budget = 0.0
        self._last_draw = None
        self._step_ms = 0.0              # the last step's cost, for the debugger headless
        self._hud_image = None
        self._hud_key = None
        self._overlay_image = None
        self._overlay_stale = True
        self.notice = None               # what a key just did, shown for NOTICE_FRAMES
        self._notice_left = 0
        self._notice_image = None
        self._roam_model = None          # roam's learned model, opened once
        if options.mode in ("battle", "roam"):
            from ..battle.match import Match, Setup

            self._Match, self._Setup = Match, Setup
            if options.teams is None:
                options.teams = default_teams(roster)
            self.species_names = [options.teams[0][0], options.teams[1][0]]
            self._species = None
            if options.mode == "roam":
                self.world = self._new_roam()
            else:
                self.world = self._load_match(options.load) if options.load else self._new_match()
        elif options.mode == "show":
            self.species_names = list(options.species)
            self._species = [roster.load(name) for name in self.species_names]
            self.world = self._new_scene()
        else:
            raise ValueError(f"mode is 'battle', 'show' or 'roam', not {options.mode!r}")

    # ------------------------------------------------------------ worlds

    @property
    def match(self):
        return self.world if self.options.mode == "battle" else None

    @property
    def scene(self):
        return self.world if self.options.mode == "show" else None

    @property
    def roam(self):
        return self.world if self.options.mode == "roam" else None

    def _new_roam(self):
        from ..roam.learned import open_model
        from ..roam.scene import RoamScene

        if self._roam_model is None:
            self._roam_model = open_model(self.options.roam_model)
        return RoamScene(self.diorama, self.cells, self.options.roam_keys, self._roam_model,
                         self.options.roam_driver)

    def _begin_battle(self) -> None:
        """The trainer stepped onto the battle spot: the battle, through its own camera."""
        self._drop_world()
        self.options.mode = "battle"
        self.world = self._new_match()
        if self.renderer is not None:
            self.renderer.set_camera(BattleCam.battle(*self.cells))
        self.views_changed()

    def _new_scene(self) -> BattleScene:
        pairs = [(species, StadiumRig(species)) for species in self._species]
        return BattleScene(*pairs, self.cells, seed=self.options.seed,
                           choreography=None if self.options.scripted else (),
                           spots=self.framing.spot, ground=self.diorama.ground)

    def _new_match(self):
        o = self.options
        setup = self._Setup(tuple(tuple(t) for t in o.teams), o.seed, tuple(o.controllers),
                            tuple(tuple(s) for s in o.scripts), tuple(o.pose_paths), o.blend)
        return self._Match(setup, self.roster, self.cells, self.framing.spot, self.diorama.ground)

    def _load_match(self, path: Path):
        """The saved battle, checked whole first (stadium.app.checks); the step count goes
        on from the step it was saved at."""
        state = read_save(path)
        try:
            match = self._Match.load(state, self.roster, self.cells, self.framing.spot,
                                     self.diorama.ground)
        except rt.ManiError as error:
            raise BadFile(path, f"not a usable saved battle: the runtime refuses a graph "
                                f"state in it ({error})") from None
        self.options.teams = match.setup.teams
        self.steps = match.frame
        return match

    def screen_size(self, scale: int) -> tuple[int, int]:
        """The screen a headless run renders to: the scaled frame, or room for the
        debugger's panels beside it."""
        if self.debug_open:
            return DEBUG_SCREEN
        return 160 * scale, 144 * scale

    # ------------------------------------------------------------ the loop

    def load(self, gfx: Graphics) -> None:
        self.gfx = gfx
        self.renderer = BattleRenderer(gfx, self.diorama, BattleCam.battle(*self.cells))
        self.present = Present(gfx)
        self.frame_size = self.renderer.camera.size
        if self.debug_open:
            self._open_debug()
        self._layout(gfx.width, gfx.height)

    def _layout(self, width: int, height: int) -> None:
        if self.debug_open and self.debug is not None:
            aw, ah = self.debug.frame_area(width, height)
            x, top, w, h = letterbox(self.frame_size, (aw, ah))
            self.viewport = (x, height - top - h, w, h)
        else:
            self.viewport = letterbox(self.frame_size, (width, height))

    def resized(self, width: int, height: int) -> None:
        self._layout(width, height)
        self._overlay_stale = True

    def update(self, dt: float) -> None:
        if self.paused:
            return
        self._budget += self.speed if self.debug_open else 1.0
        while self._budget >= 1.0 - 1e-9:
            self._budget -= 1.0
            self._step()

    def _step(self) -> None:
        start = time.perf_counter()
        self.world.update(DT)
        self._step_ms = (time.perf_counter() - start) * 1000.0
        self.steps += 1
        if self.roam is not None:
            if self.roam.arrived:
                self._begin_battle()
        elif self.match is not None:
            self._forget_retired()
            if self.options.save_at == self.steps and self.options.save_path is not None:
                path = Path(self.options.save_path)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(self.match.dumps())
        elif self.scene.scripted and self.scene.time >= CHOREOGRAPHY_SECONDS:
            self._replace_world()      # the default show plays again from the top

    def step_once(self) -> None:
        """One fixed step, paused or not (the debugger's and the '.' key's)."""
        self._step()

    def set_paused(self, paused: bool) -> None:
        self.paused = paused
        if not paused and self.debug is not None:
            self.debug.state.scrub = [None, None]     # a scrub is a look, not a move
            self.views_changed()

    def _forget_retired(self) -> None:
        for rig in self.match.retired:
            if self.renderer is not None:
                self.renderer.forget(rig)
            rig.release()
        self.match.retired.clear()

    def effective_look(self) -> Look:
        if self.debug_open and self.debug is not None:
            return self.debug.state.look
        return self.look

    def views_changed(self) -> None:
        """The debugger's way of looking changed: the battlers show the current step
        that way (nothing moves on)."""
        match = self.match
        if match is None:
            return
        if self.debug_open and self.debug is not None:
            match.views = [self.debug.state.view(0), self.debug.state.view(1)]
            st = self.debug.state
            match.switches = Switches(st.look_at, st.feet, st.springs, st.physics_paused)
        else:
            match.views = [None, None]
            match.switches = Switches()
        match.present()

    def draw(self, gfx: Graphics) -> None:
        now = time.perf_counter()
        if self.debug is not None and gfx.window and self._last_draw is not None:
            self.debug.record_frame((now - self._last_draw) * 1000.0)      # the period
        self._last_draw = now
        if self.roam is not None:
            self.renderer.set_camera(self.roam.camera)
        frame = self.renderer.render(self.world, HOURS[self.hour], self.effective_look())
        if self.debug is not None and not gfx.window:
            # headless frames are drawn far apart: what this one cost, its last step and
            # its render
            self.debug.record_frame(self._step_ms + (time.perf_counter() - now) * 1000.0)
        gfx.clear_screen()
        self.present.draw(frame.color, self.viewport)
        if self.match is not None:
            self._draw_hud(gfx)
        if self.debug_open and self.debug is not None:
            self.debug.draw(gfx, self, self.viewport)
        elif self.help_mode:
            self._draw_overlay(gfx)
        if self._notice_left > 0:
            self._draw_notice(gfx)

    def _draw_hud(self, gfx: Graphics) -> None:
        """The battle's overlay: drawn in frame pixels, redrawn only when it changes, and
        presented over the frame by the same whole-number scale."""
        from dataclasses import asdict

        from . import hud as hud_module

        hud = self.match.hud()
        key = repr(asdict(hud))
        if key != self._hud_key:
            rgba = hud_module.paint(hud)
            if self._hud_image is None:
                self._hud_image = gfx.new_image(rgba, repeat=False)
            else:
                self._hud_image.replace(rgba)
            self._hud_key = key
        self.present.draw(self._hud_image.texture, self.viewport, blend=True)

    def _status(self) -> list[tuple[str, ...]]:
        state = "paused" if self.paused else "running"
        if self.roam is not None:
            status = ("arrows or WASD walk, shift runs: the red mark starts the battle",)
        elif self.match is not None:
            b = self.match.battle
            status = (f"turn {b.turn}  {state}  F1 keys  F3 debugger",)
        else:
            names = [f"[{n}]" if i == self.side else n for i, n in enumerate(self.species_names)]
            mode = state if self.paused else ("battle" if self.scene.scripted else "free play")
            status = (f"{names[0]} vs {names[1]}   {self.hour}   {mode}   F1: keys",)
        if self.help_mode == 2:
            return [status, ("",)] + list(KEYS)
        return [status]

    def _draw_overlay(self, gfx: Graphics) -> None:
        """The text is remade only when it changes (a key, a resize, a new turn)."""
        rows = self._status()
        if rows != getattr(self, "_overlay_rows", None):
            self._overlay_stale = True
            self._overlay_rows = rows
        if self._overlay_stale:
            if self._overlay_image is not None:
                self._overlay_image.release()
            rgba = text_image(rows, max(14, gfx.height // 36))
            self._overlay_image = gfx.new_image(rgba, repeat=False)
            self._overlay_stale = False
        image = self._overlay_image
        x = (gfx.width - image.width) // 2
        y = 4
        if self.match is not None and self.help_mode == 1:
            # the battle's own boxes fill the frame's bottom and top left: the status
            # line goes top right
            x, y = gfx.width - image.width - 4, max(gfx.height - image.height - 4, 0)
        self.present.draw(image.texture, (max(x, 0), y, image.width, image.height), blend=True)

    def notify(self, text: str) -> None:
        """Say what a key did: on the console, and for a moment over the frame."""
        print(text)
        self.notice = text
        self._notice_left = NOTICE_FRAMES
        if self._notice_image is not None:
            self._notice_image.release()
            self._notice_image = None

    def _draw_notice(self, gfx: Graphics) -> None:
        """The notice, centred near the top of the frame, until its frames run out."""
        if self._notice_image is None:
            rgba = text_image([(self.notice,)], max(14, gfx.height // 36))
            self._notice_image = gfx.new_image(rgba, repeat=False)
        image = self._notice_image
        vx, vy, vw, vh = self.viewport
        x = vx + (vw - image.width) // 2
        y = vy + vh - image.height - max(vh // 6, 4)
        self.present.draw(image.texture, (max(x, 0), max(y, 0), image.width, image.height),
                          blend=True)
        self._notice_left -= 1
        if self._notice_left == 0:
            image.release()
            self._notice_image = None

    # ------------------------------------------------------------ input

    def event(self, event) -> None:
        """A pygame event from the window's loop: the debugger sees it first."""
        import pygame

        if self.debug_open and self.debug is not None:
            self.debug.feed(event)
            if event.type == pygame.KEYDOWN and self.debug.wants_keyboard:
                return
        if self.roam is not None and event.type in (pygame.KEYDOWN, pygame.KEYUP):
            from ..roam.scene import KEY_NAMES

            name = pygame.key.name(event.key)
            if name in KEY_NAMES:          # held keys walk: not the toggles they are in battle
                before = self.roam.locomotion.driver
                (self.roam.press if event.type == pygame.KEYDOWN else self.roam.release_key)(name)
                if self.roam.locomotion.driver != before:
                    self.notify(f"driven by the {self.roam.locomotion.driver_name}")
                return
        if event.type == pygame.KEYDOWN:
            self.keypressed(pygame.key.name(event.key))

    def keypressed(self, key: str) -> None:
        self._overlay_stale = True
        if key in ("escape", "q"):
            self.running = False
        elif key == "h":
            self.hour = HOUR_ORDER[(HOUR_ORDER.index(self.hour) + 1) % len(HOUR_ORDER)]
        elif key == "space":
            self.set_paused(not self.paused)
        elif key == "." and self.paused:
            self.step_once()
        elif key == "r":
            self._replace_world()
        elif key in ("s", "g", "p"):
            name = {"s": "shadows", "g": "seams", "p": "post"}[key]
            setattr(self.look, name, not getattr(self.look, name))
        elif key == "f12":
            self._screenshot()
        elif key == "f1":
            self.help_mode = (self.help_mode + 1) % 3
        elif key == "f3":
            self.toggle_debug()
        elif self.match is not None:
            self._battle_key(key)
        elif self.scene is not None:
            self._show_key(key)

    def _battle_key(self, key: str) -> None:
        if key in ("1", "2"):
            self.match.choose(int(key) - 1)
        elif key == "v":
            paths = self.match.setup.pose_paths
            flipped = "stadium" if paths[0] == "runtime" else "runtime"
            self.match.setup.pose_paths = (flipped, flipped)
            self.options.pose_paths = (flipped, flipped)
            for b in self.match.battlers:
                if b is not None:
                    b.pose_path = flipped
            self.match.present()
        elif key == "f5":
            SAVE_PATH.parent.mkdir(parents=True, exist_ok=True)
            SAVE_PATH.write_text(self.match.dumps())
            self.notify(f"saved the battle to {SAVE_PATH}")
        elif key == "f9" and not SAVE_PATH.exists():
            self.notify(f"no saved battle in {SAVE_PATH} yet: F5 saves one")
        elif key == "f9":
            self._drop_world()
            self.world = self._load_match(SAVE_PATH)
            self.views_changed()
            self.notify(f"loaded the battle from {SAVE_PATH}")

    def _show_key(self, key: str) -> None:
        if key == "tab":
            self.side = 1 - self.side
        elif key in ("left", "right"):
            self._change_species(-1 if key == "left" else 1)
        elif key in _MOVES:
            self.scene.trigger(self.side, _MOVES[key])

    def toggle_debug(self) -> None:
        from .window import resize_window

        self.debug_open = not self.debug_open
        if self.debug_open and self.debug is None and self.gfx is not None:
            if not self._open_debug():
                self.debug_open = False
        gfx = self.gfx
        if self.debug_open and gfx is not None and \
                (gfx.width < DEBUG_SCREEN[0] or gfx.height < DEBUG_SCREEN[1]):
            # the panels need room beside the frame: grow the window, and remember its size
            before = (gfx.width, gfx.height)
            if resize_window(gfx, (max(gfx.width, DEBUG_SCREEN[0]), max(gfx.height, DEBUG_SCREEN[1]))):
                self._window_before = before
        if not self.debug_open:
            self.speed = 1.0
            if self.debug is not None:
                self.debug.state.scrub = [None, None]
            before = getattr(self, "_window_before", None)
            if before is not None and gfx is not None:
                resize_window(gfx, before)
                self._window_before = None
        if gfx is not None:
            self._layout(gfx.width, gfx.height)
        self._overlay_stale = True
        self.views_changed()

    def _open_debug(self) -> bool:
        from . import debugui

        if not debugui.available():
            print("the debugger needs imgui-bundle (pip install imgui-bundle)", file=sys.stderr)
            return False
        self.debug = debugui.DebugUI(self.gfx, fixed_clock=self.options.fixed_clock)
        self.debug.state.look = replace(self.look)
        for key, value in self.options.debug_state.items():
            setattr(self.debug.state, key, value)
        self.views_changed()
        return True

    def _change_species(self, by: int) -> None:
        name = self.roster.step(self.species_names[self.side], by)
        try:
            species = self.roster.load(name)
        except ValueError as error:   # a PackError: say so and keep the one we have
            print(error, file=sys.stderr)
            return
        self.species_names[self.side] = name
        self._species[self.side] = species
        old = self.scene.swap(self.side, species, StadiumRig(species))
        self.renderer.forget(old.rig)
        old.rig.release()

    def _drop_world(self) -> None:
        if self.roam is not None:
            for actor in self.roam.trainers:
                if self.renderer is not None:
                    self.renderer.forget(actor.rig)
            self.roam.release()
            return
        for fighter in self.world.fighters:
            if fighter.rig is not None:
                if self.renderer is not None:
                    self.renderer.forget(fighter.rig)
                fighter.rig.release()
        if self.match is not None:
            self._forget_retired()

    def _replace_world(self) -> None:
        self._drop_world()
        if self.roam is not None:
            self.world = self._new_roam()
        elif self.match is not None:
            self.options.load = None
            self.world = self._new_match()
            self.views_changed()
        else:
            self.world = self._new_scene()

    def _screenshot(self) -> None:
        from PIL import Image

        folder = Path("out")
        folder.mkdir(exist_ok=True)
        path = folder / f"screenshot_{self.steps:06d}.png"
        Image.fromarray(self.gfx.read_screen()).save(path)
        self.notify(f"screenshot: {path}")

    def release(self) -> None:
        self._drop_world()
        if self.renderer is not None:
            self.renderer.release()
            self.present.release()
        for image in (self._overlay_image, self._hud_image, self._notice_image):
            if image is not None:
                image.release()
        if self.debug is not None:
            self.debug.release()
            self.debug = None

