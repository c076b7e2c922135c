"""glTF import figures on the Khronos Fox (../shared/testdata/gltf/Fox/Fox.glb): opening the
GLB, and the whole import a game's asset step does (open, skeleton, skin, influences and
its three clips)."""
import sys
from pathlib import Path

from _figures import emit, median_us

import runtime as rt
from runtime import capi
from runtime.importers.common import ImportClipOptions

FOX = Path(__file__).resolve().parents[1].parent / "shared" / "testdata" / "gltf" / "Fox" / "Fox.glb"


def import_all(data: bytes) -> None:
    options = capi.maniDefaultGltfOptions()
    doc = capi.maniOpenGltf(rt.Builder(), data)
    b = rt.Builder()
    capi.maniBuildGltfSkeleton(b, doc, 0, options)
    skeleton = rt.Skeleton.open(capi.maniBuilder_CopyBuilt(b))
    capi.maniBuildGltfSkin(b, doc, 0, skeleton, options)
    skin = capi.maniOpenSkin(capi.maniBuilder_CopyBuilt(b))
    node = next(i for i in range(capi.maniGltf_GetNodeCount(doc))
                if capi.maniGltf_GetNodeSkin(doc, i) == 0)
    capi.maniBuildGltfInfluences(b, doc, capi.maniGltf_GetNodeMesh(doc, node), 0, skin)
    for a in range(capi.maniGltf_GetAnimationCount(doc)):
        capi.maniBuildGltfClip(b, doc, a, skeleton, options, ImportClipOptions())
    capi.maniCloseGltf(doc)


def main():
    if not FOX.is_file():
        print(f"{FOX} is not staged; no glTF figures", file=sys.stderr)
        return
    data = FOX.read_bytes()
    emit("gltf_open_fox_us", median_us(lambda: capi.maniCloseGltf(
        capi.maniOpenGltf(rt.Builder(), data)), number=20, repeat=9), "us", "lower")
    emit("gltf_import_fox_all_ms", median_us(lambda: import_all(data), number=3, repeat=7) / 1000,
         "ms", "lower", 50)


if __name__ == "__main__":
    main()
