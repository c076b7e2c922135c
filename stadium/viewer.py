"""The playable battle viewer: the default battle in a window, with keys to play with it.

One Game drives both a window and a headless run (see headless.py), so a screenshot
is exactly what the window would show.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import diorama as diorama_module
from .battle_renderer import BattleRenderer, Look
from .battle_scene import CHOREOGRAPHY_SECONDS, BattleScene
from .battlecam import BattleCam
from .gfx import Game, Graphics
from .hours import HOUR_ORDER, HOURS
from .overlay import text_image
from .post import Present, letterbox
from .rig import StadiumRig
from .roster import Roster

DT = 1.0 / 60.0

KEYS = (
    ("tab", "choose the side the keys below act on"),
    ("left / right", "previous / next species on that side"),
    ("1 2", "attack 1 / attack 2 (the other side is hit)"),
    ("3 4 5", "hit / faint / send out again"),
    ("h", "next hour (dawn, day, dusk, night)"),
    ("space", "pause; . steps one frame while paused"),
    ("r", "restart the default battle"),
    ("s g p", "shadows / seams / post effects on and off"),
    ("f12", "screenshot into out/"),
    ("f1", "this list, a status line, or nothing"),
    ("esc", "quit"),
)
_MOVES = {"1": "attack1", "2": "attack2", "3": "hit", "4": "faint", "5": "entrance"}


def keys_help() -> str:
    return "\n".join(f"  {key:<14}{what}" for key, what in KEYS)


@dataclass
class Options:
    """What a viewer shows: the two species (names or .pack paths; None for the default
    pair), the hour, the seed of the battle, the look's toggles, and whether the scripted
    battle runs (off, both simply stand by)."""

    species: tuple[str, str] | None = None
    hour: str = "day"
    seed: int = 0
    look: Look = field(default_factory=Look)
    scripted: bool = True


class BattleViewer(Game):
    """The battle, its renderer and the keys; draws the 160 x 144 frame whole-number
    scaled and letterboxed into whatever screen it is given."""

    def __init__(self, options: Options, roster: Roster, *, overlay: bool):
        self.options = options
        self.roster = roster
        self.species_names = list(options.species)
        self.hour = options.hour
        self.look = options.look
        self.paused = False
        self.side = 0
        self.help_mode = 1 if overlay else 0     # 0 nothing, 1 status line, 2 key list
        self.diorama = diorama_module.build()
        self.cells = (self.diorama.cell("left"), self.diorama.cell("right"))
        self._species = [roster.load(name) for name in self.species_names]
        self.scene = self._new_scene()
        self._overlay_image = None
        self._overlay_stale = True

    def _new_scene(self) -> BattleScene:
        pairs = [(species, StadiumRig(species)) for species in self._species]
        return BattleScene(*pairs, self.cells, seed=self.options.seed,
                           choreography=None if self.options.scripted else ())

    def load(self, gfx: Graphics) -> None:
        self.gfx = gfx
        self.renderer = BattleRenderer(gfx, self.diorama, BattleCam.battle(*self.cells))
        self.present = Present(gfx)
        self.frame_size = self.renderer.camera.size
        self.viewport = letterbox(self.frame_size, (gfx.width, gfx.height))

    def resized(self, width: int, height: int) -> None:
        self.viewport = letterbox(self.frame_size, (width, height))
        self._overlay_stale = True

    def update(self, dt: float) -> None:
        if self.paused:
            return
        self.scene.update(dt)
        if self.scene.scripted and self.scene.time >= CHOREOGRAPHY_SECONDS:
            self._replace_scene()      # the default battle plays again from the top

    def draw(self, gfx: Graphics) -> None:
        frame = self.renderer.render(self.scene, HOURS[self.hour], self.look)
        gfx.clear_screen()
        self.present.draw(frame.color, self.viewport)
        if self.help_mode:
            self._draw_overlay(gfx)

    def _status(self) -> list[tuple[str, ...]]:
        names = [f"[{n}]" if i == self.side else n for i, n in enumerate(self.species_names)]
        state = "paused" if self.paused else ("battle" if self.scene.scripted else "free play")
        status = (f"{names[0]} vs {names[1]}   {self.hour}   {state}   F1: keys",)
        if self.help_mode == 2:
            return [status, ("",)] + list(KEYS)
        return [status]

    def _draw_overlay(self, gfx: Graphics) -> None:
        """The text is remade only after a key or a resize: nothing else changes it."""
        if self._overlay_stale:
            if self._overlay_image is not None:
                self._overlay_image.release()
            rgba = text_image(self._status(), max(14, gfx.height // 36))
            self._overlay_image = gfx.new_image(rgba, repeat=False)
            self._overlay_stale = False
        image = self._overlay_image
        x = (gfx.width - image.width) // 2
        self.present.draw(image.texture, (max(x, 0), 4, image.width, image.height), blend=True)

    def keypressed(self, key: str) -> None:
        self._overlay_stale = True
        if key in ("escape", "q"):
            self.running = False
        elif key == "tab":
            self.side = 1 - self.side
        elif key in ("left", "right"):
            self._change_species(-1 if key == "left" else 1)
        elif key in _MOVES:
            self.scene.trigger(self.side, _MOVES[key])
        elif key == "h":
            self.hour = HOUR_ORDER[(HOUR_ORDER.index(self.hour) + 1) % len(HOUR_ORDER)]
        elif key == "space":
            self.paused = not self.paused
        elif key == "." and self.paused:
            self.scene.update(DT)
        elif key == "r":
            self._replace_scene()
        elif key in ("s", "g", "p"):
            name = {"s": "shadows", "g": "seams", "p": "post"}[key]
            setattr(self.look, name, not getattr(self.look, name))
        elif key == "f12":
            self._screenshot()
        elif key == "f1":
            self.help_mode = (self.help_mode + 1) % 3

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

    def _replace_scene(self) -> None:
        for fighter in self.scene.fighters:
            self.renderer.forget(fighter.rig)
            fighter.rig.release()
        self.scene = self._new_scene()

    def _screenshot(self) -> None:
        from PIL import Image

        folder = Path("out")
        folder.mkdir(exist_ok=True)
        path = folder / f"screenshot_{int(self.scene.time * 60):06d}.png"
        Image.fromarray(self.gfx.read_screen()).save(path)
        print(f"wrote {path}")

    def release(self) -> None:
        for fighter in self.scene.fighters:
            fighter.rig.release()
        self.renderer.release()
        self.present.release()
        if self._overlay_image is not None:
            self._overlay_image.release()

