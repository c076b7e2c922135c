"""glTF import figures on the Khronos Fox (../shared/testdata/gltf/Fox/Fox.glb): opening the
GLB, and the whole import a game's asset step does (open, skeleton, skin, influences and
its three clips); and the asset inspector's frame on CesiumMan (pose, CPU skin into the
voxel rows, upload to the GPU)."""
import sys
from pathlib import Path

from _figures import emit, median_us

import runtime as rt
from runtime import capi
from runtime.importers.common import ImportClipOptions

GLTF = Path(__file__).resolve().parents[1].parent / "shared" / "testdata" / "gltf"
FOX = GLTF / "Fox" / "Fox.glb"
CESIUM = GLTF / "CesiumMan" / "CesiumMan.glb"


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


def inspector_frame_us() -> float | None:
    """One inspector frame's CPU side: sample the clip, skin into the rows, upload them."""
    from stadium.inspect.figure import Figure
    from stadium.inspect.loading import load
    from stadium.inspect.stage import Actor
    from stadium.render.battle_renderer import RigMeshes
    from stadium.render.gfx import Graphics
    try:
        gfx = Graphics.open_headless((160, 144))
    except Exception as e:          # no headless GL on this machine
        print(f"no headless GL ({e}); no inspector figure", file=sys.stderr)
        return None
    figure = Figure(load(CESIUM))
    meshes = RigMeshes(gfx, figure, Actor(figure, 1.0).species)
    _, clip = figure.asset.clips[0]
    clock = [0.0]

    def frame():
        clock[0] = (clock[0] + 1 / 60) % clip.duration
        figure.pose(clip, clock[0])
        meshes.upload()
    try:
        return median_us(frame, number=50, repeat=9)
    finally:
        meshes.release()
        gfx.release()


def main():
    if not FOX.is_file():
        print(f"{FOX} is not staged; no glTF figures", file=sys.stderr)
        return
    data = FOX.read_bytes()
    emit("gltf_open_fox_us", median_us(lambda: capi.maniCloseGltf(
        capi.maniOpenGltf(rt.Builder(), data)), number=20, repeat=9), "us", "lower")
    emit("gltf_import_fox_all_ms", median_us(lambda: import_all(data), number=3, repeat=7) / 1000,
         "ms", "lower", 50)
    if CESIUM.is_file():
        us = inspector_frame_us()
        if us is not None:
            emit("inspector_frame_us", us, "us", "lower", 2000)


if __name__ == "__main__":
    main()
