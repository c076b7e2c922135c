"""The debugger's bones: the skeleton overlay over the battle frame (joints, bones, the
hovered and the picked one named) and the searchable bone list of the inspected battler.

A bone is (side, pack bone); its name is the converted species' (RuntimeSpecies.bone_label).
"""
from __future__ import annotations

import math

import numpy as np

PICK_RADIUS = 9.0          # pixels
BONE_COLOURS = ((120, 255, 160, 220), (255, 150, 120, 220))
HOVERED, PICKED = (255, 255, 255, 255), (255, 216, 80, 255)


def joints(viewer, frame_rect):
    """Per visible battler: (side, screen points (n, 2), parents)."""
    out = []
    # glm's matrix as numpy is the math matrix (clip = M p); a fighter's matrix is kept
    # in GL's byte order, the transpose, so a row of points multiplies it on the left
    view_proj = np.asarray(viewer.renderer.view_proj, np.float64).T
    x, y, w, h = frame_rect
    for side, f in enumerate(viewer.match.battlers):
        if f is None or not f.visible:
            continue
        origins = np.asarray(f.rig.pivot, np.float64)[:, :, 3]
        world = np.c_[origins, np.ones(len(origins))] @ np.asarray(f.matrix, np.float64)
        clip = world @ view_proj
        ndc = clip[:, :2] / clip[:, 3:4]
        points = np.c_[x + (ndc[:, 0] + 1) * 0.5 * w, y + (1 - ndc[:, 1]) * 0.5 * h]
        out.append((side, points, f.species.parents))
    return out


def label(viewer, bone) -> str:
    side, b = bone
    battler = viewer.match.battlers[side]
    return f"{battler.species.name} {battler.rts.bone_label(b)}"


def overlay(ui, viewer, frame_rect, act: bool) -> None:
    """The skeletons over the frame; the bone under the mouse is hovered, a click picks it
    (and inspects its battler)."""
    imgui, state = ui.imgui, ui.state
    draw = imgui.get_foreground_draw_list()
    mouse = imgui.get_mouse_pos()
    over_ui = imgui.get_io().want_capture_mouse
    nearest, best = None, PICK_RADIUS
    skeletons = joints(viewer, frame_rect)
    for side, points, parents in skeletons:
        col = imgui.IM_COL32(*BONE_COLOURS[side])
        for b, p in enumerate(parents):
            if p >= 0:
                draw.add_line(imgui.ImVec2(*points[p]), imgui.ImVec2(*points[b]), col, 1.5)
        for b, pt in enumerate(points):
            draw.add_circle_filled(imgui.ImVec2(*pt), 2.5, imgui.IM_COL32(255, 255, 255, 230))
            d = math.hypot(pt[0] - mouse.x, pt[1] - mouse.y)
            if d < best and not over_ui:
                nearest, best = (side, b), d
    if nearest is not None or not ui.listed_hover:
        ui.hovered = nearest
    if act and nearest is not None and imgui.is_mouse_clicked(0):
        pick(ui, nearest)
    for mark, colour in ((ui.hovered, HOVERED), (state.picked, PICKED)):
        if mark is None:
            continue
        side, bone = mark
        for s, points, _ in skeletons:
            if s == side and bone < len(points):
                _name_at(imgui, draw, points[bone], label(viewer, mark), imgui.IM_COL32(*colour))


def _name_at(imgui, draw, pt, name: str, colour) -> None:
    draw.add_circle(imgui.ImVec2(*pt), 6.0, colour, 0, 2.0)
    size = imgui.calc_text_size(name)
    draw.add_rect_filled(imgui.ImVec2(pt[0] + 8, pt[1] - 18),
                         imgui.ImVec2(pt[0] + 14 + size.x, pt[1] - 3), imgui.IM_COL32(20, 20, 30, 210))
    draw.add_text(imgui.ImVec2(pt[0] + 11, pt[1] - 17), colour, name)


def pick(ui, bone) -> None:
    """Pick a bone: its battler becomes the one inspected (and scrubbed)."""
    ui.state.picked = bone
    ui.state.side = bone[0]


def listed(battler, search: str) -> list[int]:
    """The battler's bones whose names hold `search` (any case), in skeleton order."""
    wanted = search.strip().lower()
    return [k for k in range(len(battler.species.parents))
            if wanted in battler.rts.bone_label(k).lower()]


def bone_list(ui, viewer, act: bool) -> None:
    """The inspected battler's bones, filtered by what is typed: hovering a row marks the
    bone on the frame, clicking picks it."""
    imgui, state = ui.imgui, ui.state
    b = viewer.match.battlers[state.side]
    if b is None:
        imgui.text_disabled("nobody on this cell")
        return
    imgui.set_next_item_width(-1)
    changed, text = imgui.input_text_with_hint("##find bone", "find a bone", state.bone_filter)
    if changed and act:
        state.bone_filter = text
    parents = b.species.parents
    ui.listed_hover = False
    imgui.begin_child("bones", imgui.ImVec2(0, 0))
    for k in listed(b, state.bone_filter):
        name, p = b.rts.bone_label(k), parents[k]
        under = f"  on {b.rts.bone_label(p)}" if p >= 0 else "  root"
        chosen = state.picked == (state.side, k)
        clicked, _ = imgui.selectable(f"{name}{under}##bone{k}", chosen)
        if imgui.is_item_hovered():
            ui.hovered, ui.listed_hover = (state.side, k), True
        if clicked and act:
            pick(ui, (state.side, k))
    imgui.end_child()
