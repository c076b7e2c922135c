"""The battle viewer's entry point: arguments, then a call.

With no arguments it opens a window on the default battle (keys: --help); where no
window can open it renders a few frames headless and says where they went.
"""
import argparse
import sys
from pathlib import Path

from stadium import launch
from stadium.battle_renderer import Look
from stadium.headless import parse_frames
from stadium.hours import HOUR_ORDER
from stadium.viewer import Options, keys_help


def arguments(argv):
    parser = argparse.ArgumentParser(
        description="Stadium: two species battle in a voxel diorama at 160 x 144.",
        epilog="keys in the window:\n" + keys_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--species", metavar="LEFT,RIGHT",
                        help="bundled species names or .pack paths (default: the first two)")
    parser.add_argument("--hour", choices=HOUR_ORDER, default="day")
    parser.add_argument("--seed", type=int, default=0, help="which default battle (default 0)")
    parser.add_argument("--scale", type=int, default=None,
                        help="whole-number pixel scale (default 4 in a window, 1 headless)")
    parser.add_argument("--headless", action="store_true", help="render files, open no window")
    parser.add_argument("--frames", type=parse_frames, metavar="N,N,A:B[:STEP]",
                        help="60 Hz steps to render headless (default: a few key moments)")
    parser.add_argument("--out", type=Path, help="folder for PNG frames (default out/battle)")
    parser.add_argument("--gif", type=Path, help="write an animated GIF here")
    parser.add_argument("--no-shadows", action="store_true")
    parser.add_argument("--no-post", action="store_true", help="no tilt-shift or depth of field")
    parser.add_argument("--seams", action="store_true", help="draw the voxel seams")
    parser.add_argument("--standby", action="store_true",
                        help="no scripted battle: both creatures simply stand by")
    args = parser.parse_args(argv)
    species = None
    if args.species is not None:
        species = tuple(name.strip() for name in args.species.split(","))
        if len(species) != 2 or not all(species):
            parser.error(f"--species wants LEFT,RIGHT, got {args.species!r}")
    if args.scale is not None and args.scale < 1:
        parser.error("--scale must be a whole number of at least 1")
    return args, species


def main(argv=None):
    args, species = arguments(argv)
    look = Look(shadows=not args.no_shadows, seams=args.seams, post=not args.no_post)
    options = Options(species=species, hour=args.hour, seed=args.seed, look=look,
                      scripted=not args.standby)
    headless_only = args.headless or args.frames is not None or args.out is not None \
        or args.gif is not None
    scale = args.scale or (1 if headless_only else 4)
    return launch.run(options, headless_only=headless_only, scale=scale,
                      frames=args.frames, out=args.out, gif=args.gif)


if __name__ == "__main__":
    sys.exit(main())

