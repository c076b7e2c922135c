"""Write the bundled species packs: ``python -m stadium.rig.species [directory]``."""
import argparse
import sys

from . import ASSETS, write_all


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stadium.rig.species", description=__doc__)
    parser.add_argument("directory", nargs="?", default=ASSETS,
                        help=f"where the packs go (default {ASSETS})")
    args = parser.parse_args(argv)
    for path in write_all(args.directory):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
