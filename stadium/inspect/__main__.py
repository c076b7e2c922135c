"""python -m stadium.inspect FILE [--headless --out DIR]: look at a glTF, GLB, FBX or BVH
asset in the diorama, skinned by the runtime.

Headless it writes every clip's frames and a contact sheet; otherwise it opens a window
to play, pause, scrub and loop the clips with the skeleton and its bone names drawn. A
file that cannot be used is one line on stderr and exit code 2."""
from __future__ import annotations

import argparse
import sys

from ..errors import BadInput, BadOption


def parse(argv) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m stadium.inspect", description=__doc__.split("\n")[0])
    p.add_argument("file", help="a .gltf, .glb (.vrm), .fbx or .bvh file")
    p.add_argument("--headless", action="store_true", help="write PNGs instead of a window")
    p.add_argument("--out", help="the directory for the PNGs (with --headless)")
    p.add_argument("--frames", type=int, default=8, help="frames per clip on the sheet")
    p.add_argument("--scale", type=int, default=2, help="frame pixels per battle pixel")
    args = p.parse_args(argv)
    if args.headless and not args.out:
        raise BadOption("--out", "--headless needs a directory to write to")
    if not args.headless and args.out:
        raise BadOption("--out", "only with --headless")
    if not 1 <= args.frames <= 64:
        raise BadOption("--frames", f"{args.frames} is not 1 to 64")
    if not 1 <= args.scale <= 4:
        raise BadOption("--scale", f"{args.scale} is not 1 to 4")
    return args


def run(argv=None) -> int:
    from .figure import Figure
    from .loading import load
    try:
        args = parse(argv)
        figure = Figure(load(args.file))
        if args.headless:
            from .headless import inspect_headless
            for path in inspect_headless(figure, args.out, frames=args.frames, scale=args.scale):
                print(path)
        else:
            from .window import inspect_window
            inspect_window(figure, scale=args.scale)
    except BadInput as e:
        print(f"stadium.inspect: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(run())
