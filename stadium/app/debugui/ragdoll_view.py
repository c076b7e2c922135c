"""The debugger's ragdoll overlay: a falling creature's bodies (stadium.battle.fall) drawn
over the battle frame where the engine has them (boxes as their twelve edges, spheres and
capsules as outlines), coloured by what the fall is doing, and a line of the fall's state
atop the IK and springs panel. The skin is drawn lifted onto the ground by the fall's lift;
the bodies are not, so the gap between them shows what the lift corrects.

It only reads: pausing the physics (the panel's switch) holds the fall where it is.
"""
from __future__ import annotations

import itertools

import numpy as np

from runtime.core.transform import quat_rotate
from runtime.physics import RagdollShape

from .secondary_view import project

FALLING, RESTING, KINEMATIC = (255, 170, 60, 230), (120, 255, 140, 230), (170, 170, 170, 230)
CORNERS = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))
EDGES = [(a, b) for a, b in itertools.combinations(range(8), 2)
         if np.count_nonzero(CORNERS[a] != CORNERS[b]) == 1]
OUTLINE_SEGMENTS = 20


def colour(fall) -> tuple:
    if fall.kinematic:
        return KINEMATIC
    return RESTING if fall.settling is not None else FALLING


def summary(fall) -> str:
    """The panel's line: the fall's clock, its drives' strength, and what it is doing."""
    doing = ("the clip plays (the engine warned)" if fall.kinematic else
             "still" if fall.still else "settling" if fall.settling is not None else "falling")
    return (f"fall {fall.seconds:.2f} s  drives {fall.engine.strength:.2f}  "
            f"lift {fall.lift:.3f}  {doing}")


def panel(ui, viewer) -> None:
    """Atop the IK and springs panel: the inspected battler's fall, when it falls."""
    b = viewer.match.battlers[ui.state.side]
    if b is not None and b.fall is not None:
        ui.imgui.text(summary(b.fall))


def overlay(ui, viewer, frame_rect) -> None:
    imgui = ui.imgui
    draw = imgui.get_foreground_draw_list()
    v = imgui.ImVec2
    for battler in viewer.match.battlers:
        fall = None if battler is None or not battler.visible else battler.fall
        if fall is None:
            continue
        col = imgui.IM_COL32(*colour(fall))
        bodies = fall.engine.bodies().astype(np.float64)
        for k in range(fall.ragdoll.body_count):
            body = fall.ragdoll.body(k)
            at, turn = bodies[k, 0:3], bodies[k, 3:7]
            size = np.asarray(body.size, np.float64)
            if body.shape == RagdollShape.box:
                corners = at + quat_rotate(np.broadcast_to(turn, (8, 4)), CORNERS * size)
                pts = project(viewer, frame_rect, battler, corners)
                for a, b in EDGES:
                    draw.add_line(v(*pts[a]), v(*pts[b]), col, 1.5)
                continue
            half = size[1] if body.shape == RagdollShape.capsule else 0.0
            ends = at + quat_rotate(np.broadcast_to(turn, (2, 4)), [[0, -half, 0], [0, half, 0]])
            for end in ends:
                c, edge = project(viewer, frame_rect, battler, [end, end + (size[0], 0.0, 0.0)])
                draw.add_circle(v(*c), float(np.hypot(*(edge - c))), col, OUTLINE_SEGMENTS, 1.5)
            if half:
                a, b = project(viewer, frame_rect, battler, ends)
                draw.add_line(v(*a), v(*b), col, 1.5)
