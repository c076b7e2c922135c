"""python -m stadium.inspect FILE [--headless --out DIR]: look at a glTF, GLB, FBX or BVH
asset in the diorama, skinned by the runtime.

Headless it writes every clip's frames and a contact sheet; otherwise it opens a window
to play, pause, scrub and loop the clips with the skeleton and its bone names drawn, and
the debugger's sliders for the morph weights. `--morph NAME=W,...` holds morph weights
whatever the clip says; `--overlay` draws the bones, the spring chains and colliders and
the physics bodies over the headless frames. A file or option that cannot be used is one
line on stderr and exit code 2."""
from __future__ import annotations

import argparse
import math
import sys

from ..errors import BadInput, BadOption


def parse(argv) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m stadium.inspect", description=__doc__.split("\n")[0])
    p.add_argument("file", help="a .gltf, .glb (.vrm), .fbx or .bvh file")
    p.add_argument("--headless", action="store_true", help="write PNGs instead of a window")
    p.add_argument("--out", help="the directory for the PNGs (with --headless)")
    p.add_argument("--frames", type=int, default=8, help="frames per clip on the sheet")
    p.add_argument("--scale", type=int, default=2, help="frame pixels per battle pixel")
    p.add_argument("--morph", default="", metavar="NAME=W,...",
                   help="morph weights held whatever the clip says")
    p.add_argument("--overlay", action="store_true",
                   help="draw the bones, springs and physics bodies over the frames")
    args = p.parse_args(argv)
    args.morph = morph_weights(args.morph)
    if args.headless and not args.out:
        raise BadOption("--out", "--headless needs a directory to write to")
    if not args.headless and args.out:
        raise BadOption("--out", "only with --headless")
    if not 1 <= args.frames <= 64:
        raise BadOption("--frames", f"{args.frames} is not 1 to 64")
    if not 1 <= args.scale <= 4:
        raise BadOption("--scale", f"{args.scale} is not 1 to 4")
    if args.overlay and not args.headless:
        raise BadOption("--overlay", "only with --headless (the window has its toggles)")
    return args


MAX_WEIGHT = 1000.0     # a morph weight past this is a typo, and past binary32 soon after


def morph_weights(text: str) -> dict[str, float]:
    """`NAME=W,...` as {name: weight}; BadOption for a pair without `=` or a weight that is
    not a finite number."""
    out = {}
    for pair in filter(None, text.split(",")):
        name, eq, value = pair.rpartition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = math.nan
        if not eq or not name or not abs(weight) <= MAX_WEIGHT:
            raise BadOption("--morph", f"{pair!r} is not NAME=W with W a finite number "
                                       f"within +-{MAX_WEIGHT:g}")
        out[name] = weight
    return out


def hold_weights(figure, weights: dict[str, float]) -> None:
    """Override the figure's morph weights; BadOption for a name the asset does not have."""
    known = figure.asset.weight_names()
    for name, weight in weights.items():
        if name not in known:
            raise BadOption("--morph", f"no morph target {name!r} in the file (it has: "
                                       f"{', '.join(known) or 'none'})")
        figure.override(name, weight)


def run(argv=None) -> int:
    from .figure import Figure
    from .loading import load
    try:
        args = parse(argv)
        figure = Figure(load(args.file))
        hold_weights(figure, args.morph)
        if args.headless:
            from .headless import inspect_headless
            for path in inspect_headless(figure, args.out, frames=args.frames, scale=args.scale,
                                         overlay=args.overlay):
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
