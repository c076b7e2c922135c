"""run_battle.py's command line: the options, checked whole and against each other, and
the files they name read and checked, before anything runs or is written.

Every refusal is one line on stderr naming the option or the file and the problem, and
exit code 2 (stadium.errors); a bug in our code still shows its traceback.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..errors import BadInput, BadOption
from ..render.battle_renderer import Look
from ..render.hours import HOUR_ORDER
from . import checks, launch
from .headless import DEFAULT_FRAMES, MAX_FRAME, MAX_GIF_FRAMES, gif_frames, gif_timing, parse_frames
from .viewer import Options, keys_help

PROG = "run_battle"
POSE_PATHS = ("runtime", "stadium")
BLENDS = ("inertialize", "crossfade")


class Parser(argparse.ArgumentParser):
    """argparse, refusing in one line (its usage is what --help is for)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (--help lists the options)\n")


def _frames(text: str) -> list[int]:
    try:
        return parse_frames(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _at_least_one(what: str):
    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{value}: {what} is 1 or more")
        return value
    return whole


def parser() -> Parser:
    p = Parser(
        prog=PROG,
        description="Stadium: a battle of two teams in a voxel diorama at 160 x 144, every "
                    "creature animated by a graph (or the seeded show: --show).",
        epilog="keys in the window:\n" + keys_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--teams", metavar="A,B,C/D,E,F",
                   help="the two teams, up to three species each, ours first "
                        "(default: the bundled species, three a side)")
    p.add_argument("--species", metavar="LEFT,RIGHT",
                   help="bundled species names or .pack paths: the show's pair, or a "
                        "battle of one against one")
    p.add_argument("--seed", type=int, default=None,
                   help="battle: play both sides by the opponent logic with this seed, "
                        "no input needed; show: which default show (default 0)")
    p.add_argument("--script", type=Path, metavar="FILE",
                   help='a scripted battle, JSON: {"teams": [[...], [...]], "seed": N, '
                        '"moves": [[1, 2, ...], [...]], "pose_paths": [...], "blend": ...}, '
                        "every key optional (moves by turn; past them the opponent logic plays)")
    p.add_argument("--roam", action="store_true",
                   help="before the battle, walk the trainer around the village (arrows or "
                        "WASD, shift runs) to the red mark, where the battle starts; needs the "
                        "staged mocap in ../shared. A script's \"roam\": [[step, \"up+shift\"], "
                        "...] holds those keys from each step on (headless: frames count from "
                        "the roam's start)")
    p.add_argument("--learned", type=Path, metavar="MODEL",
                   help="with --roam: the trainer driven by this learned model (python -m "
                        "stadium.roam.learned trains one; default assets/learned/roam.model), "
                        "l switching between it and the motion database")
    p.add_argument("--show", action="store_true",
                   help="the seeded show of two species instead of the battle")
    p.add_argument("--pose-path", metavar="PATH[,PATH]",
                   help="runtime (the graph's pose drives the rig; the default) or stadium "
                        "(the rig poses at the graph's playhead), for both sides or OURS,RIVAL")
    p.add_argument("--blend", choices=BLENDS,
                   help="how the battler graph blends state changes (default inertialize)")
    p.add_argument("--debug", action="store_true", help="open with the debugger (F3)")
    p.add_argument("--hour", choices=HOUR_ORDER, default="day")
    p.add_argument("--scale", type=_at_least_one("the scale"),
                   help="whole-number pixel scale (default 4 in a window, 1 headless; at most "
                        "what the GL context can draw)")
    p.add_argument("--headless", action="store_true", help="render files, open no window")
    p.add_argument("--frames", type=_frames, metavar="N,N,A:B[:STEP]",
                   help="headless: the frames to render (default: a few key moments). Frame N "
                        "is the battle N steps of 1/60 s from its start, also after --load "
                        "(a saved battle goes on from the step it was saved at), and "
                        f"frame_NNNN.png is named by that number; at most frame {MAX_FRAME}")
    p.add_argument("--out", type=Path, help="folder for PNG frames (default out/battle)")
    p.add_argument("--gif", type=Path, help="write an animated GIF here "
                                            f"(at most {MAX_GIF_FRAMES} frames)")
    p.add_argument("--hashes", type=Path, metavar="FILE",
                   help="headless: write a line a frame (frame, pixel hash, battle hash)")
    p.add_argument("--load", type=Path, metavar="FILE", help="continue a saved battle")
    p.add_argument("--save-at", type=_at_least_one("the step to save after"), metavar="N",
                   help="save the battle after step N (counted like --frames)")
    p.add_argument("--save", type=Path, metavar="FILE", help="where --save-at writes it")
    p.add_argument("--no-shadows", action="store_true")
    p.add_argument("--no-post", action="store_true", help="no tilt-shift or depth of field")
    p.add_argument("--seams", action="store_true", help="draw the voxel seams")
    p.add_argument("--standby", action="store_true",
                   help="no scripted play: the show's pair stand by; in the battle "
                        "both sides wait, standing by, and nobody moves")
    return p


# ------------------------------------------------------------ one option at a time


def _species(text: str) -> tuple[str, str]:
    species = tuple(name.strip() for name in text.split(","))
    if len(species) != 2 or not all(species):
        raise BadOption("--species", f"wants LEFT,RIGHT, got {text!r}")
    return species


def _teams(text: str) -> tuple:
    teams = tuple(tuple(n.strip() for n in team.split(",") if n.strip()) for team in text.split("/"))
    if len(teams) != 2 or not all(1 <= len(t) <= 3 for t in teams):
        raise BadOption("--teams", f"wants A,B,C/D,E,F (one to three a side), got {text!r}")
    return teams


def _pose_paths(text: str) -> tuple[str, str]:
    paths = tuple(p.strip() for p in text.split(","))
    paths = paths * 2 if len(paths) == 1 else paths
    if len(paths) != 2 or any(p not in POSE_PATHS for p in paths):
        raise BadOption("--pose-path", f"wants runtime or stadium (or OURS,RIVAL), got {text!r}")
    return paths


def _writable(option: str, path: Path, *, folder: bool) -> None:
    """BadOption unless `path` can be written as a folder (or a file) from here."""
    if folder and path.exists() and not path.is_dir():
        raise BadOption(option, f"{path} is a file; {option} names a folder for the frames")
    if not folder and path.is_dir():
        raise BadOption(option, f"{path} is a folder; {option} names a file to write")
    there = path.parent if not folder or not path.exists() else path
    while not there.exists():
        there = there.parent
    if not there.is_dir():
        raise BadOption(option, f"{there} is a file, so {path} cannot be made")
    if not os.access(there, os.W_OK | os.X_OK):
        raise BadOption(option, f"{there} cannot be written to")


# ------------------------------------------------------------ options against each other


def _conflicts(args, script: dict | None) -> None:
    """Options that would silently override others: refused, the first one found."""
    given = {name for name, value in vars(args).items() if value not in (None, False)}
    pairs = [
        ("teams", "species", "both name the teams: give one"),
        ("load", "teams", "a saved battle has its own teams"),
        ("load", "species", "a saved battle has its own teams"),
        ("load", "seed", "a saved battle goes on with its own random draws"),
        ("load", "script", "a saved battle goes on as it was saved, not as a script says"),
        ("load", "pose_path", "a saved battle keeps its pose paths"),
        ("load", "blend", "a saved battle keeps its graphs' blend"),
        ("load", "standby", "a saved battle keeps who plays each side"),
        ("script", "standby", "a script plays its moves, nobody stands by"),
        ("roam", "load", "a saved battle goes on from where it was saved, past the roam"),
        ("roam", "show", "the show has no trainer to walk"),
        ("roam", "save_at", "a roam is not saved: the battle after it starts fresh"),
        ("show", "load", "the show is not a battle and has nothing to load"),
        ("show", "script", "the show plays its own choreography, not a script"),
        ("show", "teams", "the show is a pair: --species LEFT,RIGHT"),
        ("show", "save_at", "the show is not a battle and has nothing to save"),
        ("show", "pose_path", "the show's creatures have no graphs to take a pose path"),
        ("show", "blend", "the show's creatures have no graphs to blend"),
    ]
    if script is not None:
        for key, option in (("teams", "teams"), ("teams", "species"), ("seed", "seed"),
                            ("pose_paths", "pose_path"), ("blend", "blend")):
            if key in script:
                pairs.append(("script", option, f"the script names its own {key.replace('_', ' ')}"))
    if args.learned is not None and not args.roam:
        raise BadOption("--learned", "drives roam's trainer: give --roam too")
    if script is not None and "roam" in script and not args.roam:
        raise BadOption("--script", "its \"roam\" keys walk the trainer: give --roam too")
    for first, second, why in pairs:
        if first in given and second in given:
            raise BadOption(f"--{first.replace('_', '-')}",
                            f"conflicts with --{second.replace('_', '-')}: {why}")


# ------------------------------------------------------------ the whole command


def headless_only(args) -> bool:
    return args.headless or any(v is not None for v in (args.frames, args.out, args.gif, args.hashes))


def battle_options(args, look: Look, script: dict | None, headless: bool) -> Options:
    species = _species(args.species) if args.species else None
    teams = _teams(args.teams) if args.teams else (((species[0],), (species[1],)) if species else None)
    seed = args.seed if args.seed is not None else 0
    pose_paths = _pose_paths(args.pose_path) if args.pose_path else ("runtime", "runtime")
    blend = args.blend or "inertialize"
    if args.standby:
        controllers = ("human", "human")
    elif args.seed is not None or headless:
        controllers = ("ai", "ai")
    else:
        controllers = ("human", "ai")
    scripts = ((), ())
    if script is not None:
        from ..battle.match import script_setup
        from ..rig.roster import Roster
        from .viewer import default_teams

        setup = script_setup(script, teams=teams or default_teams(Roster()), seed=seed,
                             pose_paths=pose_paths, blend=blend)
        teams, seed, controllers = setup.teams, setup.seed, setup.controllers
        scripts, pose_paths, blend = setup.scripts, setup.pose_paths, setup.blend
    return Options(species=None, hour=args.hour, seed=seed, look=look, mode="battle", teams=teams,
                   controllers=controllers, scripts=scripts, pose_paths=pose_paths, blend=blend,
                   debug=args.debug, load=args.load, save_at=args.save_at, save_path=args.save)


def _frames_to_render(args, start: int, headless: bool) -> list[int] | None:
    """The frames a headless run renders, checked against where the battle starts."""
    if not headless:
        return None
    frames = args.frames
    if frames is None:
        shown = gif_frames() if args.gif is not None and args.out is None else DEFAULT_FRAMES
        frames = [start + f for f in shown]
    elif frames[0] < start:
        raise BadOption("--frames", f"frame {frames[0]} is before the saved battle's step "
                                    f"{start} (frames count from the battle's start)")
    if frames[-1] > MAX_FRAME:
        raise BadOption("--frames", f"frame {frames[-1]} is past frame {MAX_FRAME}, the most "
                                    "a headless run renders")
    if args.gif is not None and len(gif_timing(frames)) > MAX_GIF_FRAMES:
        raise BadOption("--gif", f"{len(gif_timing(frames))} frames is more than a GIF here holds "
                                 f"({MAX_GIF_FRAMES}): fewer --frames, or a longer step")
    return frames


def _check_saving(args, start: int, frames: list[int] | None) -> None:
    if (args.save_at is None) != (args.save is None):
        raise BadOption("--save-at" if args.save is None else "--save", "--save-at and --save go together")
    if args.save_at is None:
        return
    if args.save_at <= start:
        raise BadOption("--save-at", f"step {args.save_at} is not after the saved battle's step {start}")
    if frames is not None and args.save_at > frames[-1]:
        raise BadOption("--save-at", f"step {args.save_at} is past the last frame rendered "
                                     f"({frames[-1]}): the battle would never be saved")
    _writable("--save", args.save, folder=False)


def request(args) -> tuple[Options, dict]:
    """The viewer's options and launch.run's keywords, everything checked (BadInput)."""
    script = checks.read_script(args.script) if args.script is not None else None
    _conflicts(args, script)
    headless = headless_only(args)
    look = Look(shadows=not args.no_shadows, seams=args.seams, post=not args.no_post)
    start = checks.read_save(args.load)["frame"] if args.load is not None else 0
    if args.show:
        species = _species(args.species) if args.species else None
        options = Options(species=species, hour=args.hour, seed=args.seed or 0, look=look,
                          scripted=not args.standby, mode="show", debug=args.debug)
    else:
        options = battle_options(args, look, script, headless)
        if args.roam:
            from ..roam.motion import missing

            why = missing()
            if why is not None:
                raise BadOption("--roam", why)
            options.mode = "roam"
            options.roam_keys = tuple(tuple(k) for k in (script or {}).get("roam", ()))
            if args.learned is not None:
                from ..roam.learned import open_model

                open_model(args.learned)
                options.roam_model, options.roam_driver = args.learned, "learned"
    frames = _frames_to_render(args, start, headless)
    _check_saving(args, start, frames)
    if args.out is not None:
        _writable("--out", args.out, folder=True)
    for option, path in (("--gif", args.gif), ("--hashes", args.hashes)):
        if path is not None:
            _writable(option, path, folder=False)
    scale = args.scale or (1 if headless else 4)
    return options, dict(headless_only=headless, scale=scale, frames=frames, out=args.out,
                         gif=args.gif, hashes=args.hashes)


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        options, run = request(args)
    except BadInput as error:
        return launch.refuse(error)
    return launch.run(options, **run)


if __name__ == "__main__":
    sys.exit(main())
