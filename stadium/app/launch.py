"""What run_battle.py calls: a window on the battle, or headless frames where there is
no display; input that cannot be used (stadium.errors.BadInput: a pack that will not
load, a species that is not there, a saved battle the runtime refuses, a scale past the
GL context's limits) reported in one line and exit code 2."""
from __future__ import annotations

import sys
from pathlib import Path

from runtime.core import jit

from . import headless
from ..render.battlecam import FRAME
from ..render.gfx import Graphics, WindowUnavailable, run_window
from ..errors import BadFile, BadInput
from ..paths import SPECIES
from ..rig.roster import Roster
from .viewer import DEBUG_SCREEN, DT, BattleViewer, Options
from .window import desktop_size, fit_desktop

DEFAULT_OUT = Path("out") / "battle"
INTERACTIVE = ("human", "ai")        # the window's default: you against the opponent logic


def default_species(roster: Roster) -> tuple[str, str]:
    """The bundled default show's pair: the first two bundled species."""
    names = roster.names
    if not names:
        raise BadFile(SPECIES, "no species packs (.pack) here")
    return names[0], names[1 % len(names)]


def refuse(error: BadInput) -> int:
    """Say what was wrong with the input, in one line; the exit code for it."""
    print(f"run_battle: {' '.join(str(error).split())}", file=sys.stderr)
    return 2


def run(options: Options, *, headless_only: bool, scale: int,
        frames: list[int] | None = None, out: Path | None = None,
        gif: Path | None = None, roster: Roster | None = None,
        hashes: Path | None = None) -> int:
    """Open the viewer, or render headless; the process exit code.

    Species None in `options` means the default pair (the show); teams None the bundled
    teams (the battle). Headless, PNGs go to `out` (or out/battle when no GIF was asked
    for either), the GIF to `gif`, and a line of hashes a frame to `hashes`.
    """
    roster = roster or Roster()
    jit.on_first_compile(lambda: print("run_battle: compiling the runtime's kernels, once for "
                                       "these sources on this machine (up to a minute)",
                                       flush=True))
    try:
        return _run(options, roster, headless_only, scale, frames, out, gif, hashes)
    except BadInput as error:
        return refuse(error)


def window_size(scale: int, debug: bool, desktop) -> tuple[int, int]:
    """The window's size: the frame at `scale`, or the debugger's screen, no larger than the
    desktop holds (the frame letterboxes into what it gets); a scale that does not fit says
    so once."""
    if debug:
        # the debugger's layout scales down to a smaller desktop (debugui.panels.layout)
        return fit_desktop(DEBUG_SCREEN, desktop)
    wanted = (FRAME[0] * scale, FRAME[1] * scale)
    size = fit_desktop(wanted, desktop)
    if size != wanted:
        most = max(1, min(size[0] // FRAME[0], size[1] // FRAME[1]))
        print(f"run_battle: --scale {scale} is larger than this screen; the window opens at "
              f"{size[0]} x {size[1]} (--scale {most} fits)", file=sys.stderr)
    return size


def _run(options, roster, headless_only, scale, frames, out, gif, hashes) -> int:
    if options.mode == "show" and options.species is None:
        options.species = default_species(roster)
    viewer = BattleViewer(options, roster, overlay=not headless_only)
    if not headless_only:
        size = window_size(scale, options.debug, desktop_size())
        try:
            gfx = Graphics.open_window(size, "Stadium battle", resizable=True)
        except WindowUnavailable as why:
            print(f"run_battle: no window here ({why}); rendering headless instead")
            if options.mode in ("battle", "roam") and tuple(options.controllers) == INTERACTIVE:
                # nobody can press a key here: the opponent logic plays your side too
                viewer.release()
                options.controllers = ("ai", "ai")
                viewer = BattleViewer(options, roster, overlay=False)
            viewer.help_mode = 0
        else:
            try:
                run_window(viewer, gfx, dt=DT)
            finally:
                viewer.release()
                gfx.release()
            return 0
    if out is None and gif is None and hashes is None:
        out = DEFAULT_OUT
    if frames is None:
        frames = headless.gif_frames() if gif is not None and out is None \
            else [viewer.steps + f for f in headless.DEFAULT_FRAMES]
    written = headless.render(viewer, frames, scale=scale, out=out, gif=gif, hashes=hashes)
    pngs = [path for path in written if path.suffix == ".png"]
    if pngs:
        print(f"run_battle: wrote {len(pngs)} frame(s) to {pngs[0].parent}/")
    if gif is not None:
        print(f"run_battle: wrote {gif}")
    if hashes is not None:
        print(f"run_battle: wrote {hashes}")
    return 0
