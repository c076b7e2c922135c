"""FBX import figures: the open's rate on the largest staged binary file (its records,
properties and lengths all checked; arrays left undecoded, as the open leaves them).

fbx_import_sausage_ms (open, skeleton, skin, influences, clip) waits for the skin,
influence and clip builds (issue 22); it is not printed until they exist."""
import sys
from pathlib import Path

from _figures import emit, median_us

import runtime as rt
from runtime.importers.fbx import open_fbx

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "testdata" / "fbx"


def main():
    files = sorted(SHARED.glob("*binary*.fbx"), key=lambda p: p.stat().st_size)
    if not files:
        print(f"no staged FBX files under {SHARED}", file=sys.stderr)
        return
    data = files[-1].read_bytes()
    builder = rt.Builder()
    us = median_us(lambda: open_fbx(builder, data).close(), number=5, repeat=9)
    emit("fbx_open_mb_per_s", len(data) / 1e6 / (us / 1e6), "MB/s", "higher", None)


if __name__ == "__main__":
    main()
