"""FBX import figures: the open's rate on the largest staged binary file (its records,
properties and lengths all checked; arrays left undecoded, as the open leaves them), and a
whole import of the staged sausage (open, skeleton, skin, influences, clip at the file's
rate) from its binary 6.1 file."""
import sys
from pathlib import Path

from _figures import emit, median_us

import runtime as rt
from runtime.importers.common import default_import_clip_options
from runtime.importers.fbx import FbxOptions, open_fbx
from runtime.deform.skin import Skin

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "testdata" / "fbx"


def import_sausage(data: bytes) -> None:
    builder = rt.Builder()
    fbx = open_fbx(builder, data)
    opts = FbxOptions()
    skeleton_bytes = fbx.build_skeleton(builder, 0, opts)
    skeleton = rt.Skeleton.open(skeleton_bytes)
    skin = Skin(fbx.build_skin(builder, 0, skeleton, opts))
    fbx.build_influences(builder, 0, skin)
    clip_options = default_import_clip_options()
    clip_options.sample_rate = 0.0
    fbx.build_clip(builder, 0, skeleton, opts, clip_options)
    fbx.close()


def main():
    files = sorted(SHARED.glob("*binary*.fbx"), key=lambda p: p.stat().st_size)
    if not files:
        print(f"no staged FBX files under {SHARED}", file=sys.stderr)
        return
    data = files[-1].read_bytes()
    builder = rt.Builder()
    us = median_us(lambda: open_fbx(builder, data).close(), number=5, repeat=9)
    emit("fbx_open_mb_per_s", len(data) / 1e6 / (us / 1e6), "MB/s", "higher", None)
    sausage = (SHARED / "maya_game_sausage_6100_binary_wiggle.fbx").read_bytes()
    emit("fbx_import_sausage_ms", median_us(lambda: import_sausage(sausage), number=1, repeat=9)
         / 1000, "ms", "lower", 100)


if __name__ == "__main__":
    main()
