"""Frame-rate figures for the battle renderer, headless.

A frame is the whole loop a viewer pays for: the battle's update (pose, anchor, skin
both rigs), the render (shadow, view and post passes) and reading the finished frame
back. Timed at 160 x 144 and at 4x (640 x 576), on the default battle, median of
repeats. Prints one JSON object a figure, one a line.
"""
import statistics
import time

import numpy as np
from _figures import emit

from stadium.render import diorama
from stadium.render.battle_renderer import BattleRenderer, Look
from stadium.battle.scene import BattleScene
from stadium.render.battlecam import BattleCam
from stadium.render.gfx import Graphics
from stadium.render.hours import HOURS
from stadium.app.launch import default_species
from stadium.rig.rig import StadiumRig
from stadium.rig.roster import Roster

DT = 1 / 60
FRAMES = {1: 180, 4: 45}     # frames a repeat, by scale: about a second each
REPEATS = 5
WARMUP = 30


def measure(gfx, scale: int) -> dict:
    """Median frames a second and per-phase microseconds over REPEATS runs."""
    roster = Roster()
    species = [roster.load(name) for name in default_species(roster)]
    world = diorama.build()
    cells = (world.cell("left"), world.cell("right"))
    renderer = BattleRenderer(gfx, world, BattleCam.battle(*cells), scale=scale)
    scene = BattleScene(*[(s, StadiumRig(s)) for s in species], cells)
    hour, look = HOURS["day"], Look()
    pixels = np.empty((renderer.frame.height, renderer.frame.width, 3), np.uint8)
    clock = time.perf_counter
    frames = FRAMES[scale]
    for _ in range(WARMUP):
        scene.update(DT)
        renderer.render(scene, hour, look).read_into(pixels)
    runs = []
    for _ in range(REPEATS):
        update = submit = readback = 0.0
        start = clock()
        for _ in range(frames):
            t0 = clock()
            scene.update(DT)
            t1 = clock()
            frame = renderer.render(scene, hour, look)
            t2 = clock()
            frame.read_into(pixels)
            t3 = clock()
            update, submit, readback = update + t1 - t0, submit + t2 - t1, readback + t3 - t2
        runs.append((frames / (clock() - start), update, submit, readback))
    renderer.release()
    fps = statistics.median(r[0] for r in runs)
    per_frame = lambda k: statistics.median(r[k] for r in runs) / frames * 1e6
    return {"fps": fps, "update": per_frame(1), "submit": per_frame(2), "readback": per_frame(3)}


def main():
    gfx = Graphics.open_headless((160, 144))
    small = measure(gfx, 1)
    large = measure(gfx, 4)
    gfx.release()
    emit("render_fps_160", small["fps"], "fps", "higher", 120)
    emit("render_fps_640", large["fps"], "fps", "higher")
    emit("cpu_update_us", small["update"], "us", "lower")
    emit("gl_submit_us", small["submit"], "us", "lower")
    emit("readback_us", small["readback"], "us", "lower")


if __name__ == "__main__":
    main()
