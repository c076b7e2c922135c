"""Figures for the playable battle: the frame loop where the runtime and the rig meet.

    battle_update_two_us       per 60 Hz step, two battlers on the runtime path: each
                               graph's update and evaluation, its model matrices, its
                               secondary motion (look-at, planted feet, springs stepped
                               and applied), and the rig's work (driven by them, anchored,
                               skinned, textured).
                               The pair is the heaviest bundled one (Ripplewyrm, 1352
                               vertices; Flitwren, 70 runtime bones), made to attack and
                               flinch every second and a half so blends are in the count.
    battle_update_two_plain_us the same without secondary motion (the graph's pose alone)
    battle_update_two_stadium_us  the same on the Stadium path (the rig posing itself at
                               the graphs' playheads), for comparison
    battle_fps_debug_160       the viewer headless with the debugger open (1120 x 800: the
                               160 x 144 frame at 4x beside the panels), a whole frame:
                               battle step, render, HUD, ImGui panels and skeleton overlay,
                               read back
    battle_fps_160             the same viewer without the debugger, 160 x 144

    python benchmarks/battle.py
"""
import statistics
import time

import numpy as np
from _figures import emit, median_us

from stadium.battle.battler import Battler
from stadium.battle.scene import facings
from stadium.render.gfx import Graphics
from stadium.rig.roster import Roster
from stadium.app.viewer import BattleViewer, Options

DT = 1 / 60
PAIR = ("ripplewyrm", "flitwren")
CYCLE = 90                  # steps between one side's attack and the next
CELLS = (np.array([4.75, 1.5, 7.75]), np.array([7.75, 1.5, 5.25]))


def two_battlers(path: str, secondary: bool = True):
    roster = Roster()
    yaws = facings(*CELLS)
    battlers = [Battler(roster.load(name), cell, yaw, pose_path=path, secondary=secondary)
                for name, cell, yaw in zip(PAIR, CELLS, yaws)]
    tick = [0]

    def step():
        t = tick[0]
        if t % CYCLE == 0:
            a = (t // CYCLE) % 2
            battlers[a].trigger("attack1")
        if t % CYCLE == 20:
            battlers[1 - (t // CYCLE) % 2].trigger("hit")
        for b, other in zip(battlers, battlers[::-1]):
            b.look_target = other.head_world()
        for b in battlers:
            b.update(DT)
        for b in battlers:
            b.pose(DT)
        tick[0] += 1

    for _ in range(240):        # past the send-outs
        step()
    step.battlers = battlers    # for benchmarks/fall.py's pair with one falling
    return step


def viewer_fps(debug: bool, frames: int = 120, repeats: int = 5) -> float:
    options = Options(mode="battle", controllers=("ai", "ai"), seed=3, debug=debug,
                      fixed_clock=True, debug_state=dict(skeleton=True) if debug else {})
    viewer = BattleViewer(options, Roster(), overlay=False)
    gfx = Graphics.open_headless(viewer.screen_size(1))
    pixels = np.empty((gfx.height, gfx.width, 3), np.uint8)
    viewer.load(gfx)
    for _ in range(60):
        viewer.update(DT)
        viewer.draw(gfx)
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(frames):
            viewer.update(DT)
            viewer.draw(gfx)
            gfx.read_screen(pixels)
        runs.append(frames / (time.perf_counter() - start))
    viewer.release()
    gfx.release()
    return statistics.median(runs)


def main():
    runtime = median_us(two_battlers("runtime"), number=90, repeat=15)
    plain = median_us(two_battlers("runtime", secondary=False), number=90, repeat=15)
    stadium = median_us(two_battlers("stadium"), number=90, repeat=15)
    fps = viewer_fps(False)
    try:
        import imgui_bundle  # noqa: F401
        debug = viewer_fps(True)
    except ImportError:
        debug = None
    print(f"two battlers a step: runtime path {runtime:.0f} us ({plain:.0f} without secondary "
          f"motion), Stadium path {stadium:.0f} us; viewer {fps:.0f} fps, with the debugger "
          f"{'(imgui-bundle missing)' if debug is None else f'{debug:.0f} fps'}")
    emit("battle_update_two_us", runtime, "us", "lower", 1500)
    emit("battle_update_two_plain_us", plain, "us", "lower")
    emit("battle_update_two_stadium_us", stadium, "us", "lower")
    if debug is not None:
        emit("battle_fps_debug_160", debug, "fps", "higher")
    emit("battle_fps_160", fps, "fps", "higher")


if __name__ == "__main__":
    main()
