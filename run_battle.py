"""The battle viewer's entry point: arguments, then a call."""
import sys


def main(argv=None):
    print("run_battle: the battle viewer is not there yet (it lands with the Voxel3D renderer issue).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
