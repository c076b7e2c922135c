"""The battle viewer's entry point: arguments, then a call.

With no arguments it opens a window on the playable battle (keys: --help); where no
window can open it plays a seeded battle headless and says where the frames went.
"""
import argparse
import sys
from pathlib import Path

from stadium.app import launch
from stadium.render.battle_renderer import Look
from stadium.app.headless import parse_frames
from stadium.render.hours import HOUR_ORDER
from stadium.app.viewer import Options, keys_help, read_script

POSE_PATHS = ("runtime", "stadium")


def arguments(argv):
    parser = argparse.ArgumentParser(
        description="Stadium: a battle of two teams in a voxel diorama at 160 x 144, every "
                    "creature animated by a graph (or the seeded show: --show).",
        epilog="keys in the window:\n" + keys_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--teams", metavar="A,B,C/D,E,F",
                        help="the two teams, up to three species each, ours first "
                             "(default: the bundled species, three a side)")
    parser.add_argument("--species", metavar="LEFT,RIGHT",
                        help="bundled species names or .pack paths: the show's pair, or a "
                             "battle of one against one")
    parser.add_argument("--seed", type=int, default=None,
                        help="battle: play both sides by the opponent logic with this seed, "
                             "no input needed; show: which default show (default 0)")
    parser.add_argument("--script", type=Path, metavar="FILE",
                        help='a scripted battle, JSON: {"teams": [[...], [...]], "seed": N, '
                             '"moves": [[1, 2, ...], [...]]} (moves by turn; past them the '
                             "opponent logic plays)")
    parser.add_argument("--show", action="store_true",
                        help="the seeded show of two species instead of the battle")
    parser.add_argument("--pose-path", default="runtime", metavar="PATH[,PATH]",
                        help="runtime (the graph's pose drives the rig) or stadium (the rig "
                             "poses at the graph's playhead), for both sides or OURS,RIVAL")
    parser.add_argument("--blend", choices=("inertialize", "crossfade"), default="inertialize",
                        help="how the battler graph blends state changes")
    parser.add_argument("--debug", action="store_true", help="open with the debugger (F3)")
    parser.add_argument("--hour", choices=HOUR_ORDER, default="day")
    parser.add_argument("--scale", type=int, default=None,
                        help="whole-number pixel scale (default 4 in a window, 1 headless)")
    parser.add_argument("--headless", action="store_true", help="render files, open no window")
    parser.add_argument("--frames", type=parse_frames, metavar="N,N,A:B[:STEP]",
                        help="60 Hz steps to render headless (default: a few key moments)")
    parser.add_argument("--out", type=Path, help="folder for PNG frames (default out/battle)")
    parser.add_argument("--gif", type=Path, help="write an animated GIF here")
    parser.add_argument("--hashes", type=Path, metavar="FILE",
                        help="headless: write a line a frame (frame, pixel hash, battle hash)")
    parser.add_argument("--load", type=Path, metavar="FILE", help="continue a saved battle")
    parser.add_argument("--save-at", type=int, metavar="N", help="save the battle after N steps")
    parser.add_argument("--save", type=Path, metavar="FILE", help="where --save-at writes it")
    parser.add_argument("--no-shadows", action="store_true")
    parser.add_argument("--no-post", action="store_true", help="no tilt-shift or depth of field")
    parser.add_argument("--seams", action="store_true", help="draw the voxel seams")
    parser.add_argument("--standby", action="store_true",
                        help="no scripted play: the show's pair stand by; in the battle "
                             "both sides wait, standing by, and nobody moves")
    args = parser.parse_args(argv)
    species = None
    if args.species is not None:
        species = tuple(name.strip() for name in args.species.split(","))
        if len(species) != 2 or not all(species):
            parser.error(f"--species wants LEFT,RIGHT, got {args.species!r}")
    if args.scale is not None and args.scale < 1:
        parser.error("--scale must be a whole number of at least 1")
    paths = tuple(p.strip() for p in args.pose_path.split(","))
    if len(paths) == 1:
        paths = paths * 2
    if len(paths) != 2 or any(p not in POSE_PATHS for p in paths):
        parser.error(f"--pose-path wants runtime or stadium (or OURS,RIVAL), got {args.pose_path!r}")
    args.pose_paths = paths
    if args.teams is not None:
        teams = tuple(tuple(n.strip() for n in team.split(",") if n.strip())
                      for team in args.teams.split("/"))
        if len(teams) != 2 or not all(1 <= len(t) <= 3 for t in teams):
            parser.error(f"--teams wants A,B,C/D,E,F (one to three a side), got {args.teams!r}")
        args.team_names = teams
    else:
        args.team_names = None
    if (args.save_at is None) != (args.save is None):
        parser.error("--save-at and --save go together")
    return args, species


def battle_options(args, species, look, headless_only: bool) -> Options:
    teams = args.team_names or (((species[0],), (species[1],)) if species else None)
    seed = args.seed if args.seed is not None else 0
    if args.standby:
        controllers = ("human", "human")
    elif args.seed is not None or headless_only:
        controllers = ("ai", "ai")
    else:
        controllers = ("human", "ai")
    scripts = ((), ())
    pose_paths, blend = args.pose_paths, args.blend
    if args.script is not None:
        from stadium.battle.match import script_setup
        from stadium.rig.roster import Roster
        from stadium.app.viewer import default_teams

        setup = script_setup(read_script(args.script),
                             teams=teams or default_teams(Roster()), seed=seed,
                             pose_paths=pose_paths, blend=blend)
        teams, seed, controllers = setup.teams, setup.seed, setup.controllers
        scripts, pose_paths, blend = setup.scripts, setup.pose_paths, setup.blend
    return Options(species=None, hour=args.hour, seed=seed, look=look, mode="battle", teams=teams,
                   controllers=controllers, scripts=scripts, pose_paths=pose_paths, blend=blend,
                   debug=args.debug, load=args.load, save_at=args.save_at, save_path=args.save)


def main(argv=None):
    args, species = arguments(argv)
    look = Look(shadows=not args.no_shadows, seams=args.seams, post=not args.no_post)
    headless_only = args.headless or args.frames is not None or args.out is not None \
        or args.gif is not None or args.hashes is not None
    if args.show:
        options = Options(species=species, hour=args.hour, seed=args.seed or 0, look=look,
                          scripted=not args.standby, mode="show", debug=args.debug)
    else:
        try:
            options = battle_options(args, species, look, headless_only)
        except (OSError, ValueError) as error:
            print(f"run_battle: {error}", file=sys.stderr)
            return 2
    scale = args.scale or (1 if headless_only else 4)
    return launch.run(options, headless_only=headless_only, scale=scale,
                      frames=args.frames, out=args.out, gif=args.gif, hashes=args.hashes)


if __name__ == "__main__":
    sys.exit(main())
