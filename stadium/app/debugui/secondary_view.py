"""The debugger's secondary motion: the IK and springs panel (look-at, planted feet and
springs each switched on or off, the physics paused, and what each did the last step) and
its overlay on the battle frame (look goals and cones, foot goals by contact, spring
chains and their colliders).

The switches are the match's (stadium.battle.secondary.Switches): the viewer sets them
from the debugger's state while it is open and puts them back to all on when it closes;
the overlay only reads.
"""
from __future__ import annotations

import math

import numpy as np

GOAL, CONE, REACHED = (255, 230, 90, 255), (255, 230, 90, 120), (120, 255, 140, 255)
FOOT, CHAIN, COLLIDER = (90, 200, 255, 255), (255, 140, 60, 255), (255, 90, 200, 150)
CONE_POINTS = 16


def project(viewer, frame_rect, battler, model_points) -> np.ndarray:
    """Model points (k, 3) of a battler as screen points (k, 2) in the frame."""
    view_proj = np.asarray(viewer.renderer.view_proj, np.float64).T
    x, y, w, h = frame_rect
    p = np.asarray(model_points, np.float64).reshape(-1, 3)
    world = np.c_[p, np.ones(len(p))] @ np.asarray(battler.matrix, np.float64)
    clip = world @ view_proj
    ndc = clip[:, :2] / clip[:, 3:4]
    return np.c_[x + (ndc[:, 0] + 1) * 0.5 * w, y + (1 - ndc[:, 1]) * 0.5 * h]


def _cone_rim(origin, forward, cone: float, length: float) -> np.ndarray:
    """Points around the rim of a cone of half-angle `cone` about `forward`."""
    f = forward / (np.linalg.norm(forward) or 1.0)
    side = np.cross(f, (0.0, 1.0, 0.0) if abs(f[1]) < 0.9 else (1.0, 0.0, 0.0))
    side /= np.linalg.norm(side)
    up = np.cross(side, f)
    a = np.linspace(0.0, 2 * math.pi, CONE_POINTS, endpoint=False)
    ring = (np.cos(a)[:, None] * side + np.sin(a)[:, None] * up) * math.sin(cone)
    return origin + length * (f * math.cos(cone) + ring)


def overlay(ui, viewer, frame_rect, ik: bool, springs: bool) -> None:
    imgui = ui.imgui
    draw = imgui.get_foreground_draw_list()
    v = imgui.ImVec2
    for battler in viewer.match.battlers:
        sec = None if battler is None or not battler.visible else battler.secondary
        if sec is None:
            continue
        rig, out = sec.rig, sec.readout
        length = 0.5 * rig.height
        if ik and rig.looks:
            goal = project(viewer, frame_rect, battler, out.look_goal)[0]
            for k, (_, _, _, cone, _) in enumerate(rig.looks):
                origin = out.look_origins[k]
                head = project(viewer, frame_rect, battler, origin)[0]
                rim = project(viewer, frame_rect, battler,
                              _cone_rim(origin, out.look_forwards[k], cone, length))
                for a, b in zip(rim, np.roll(rim, -1, axis=0)):
                    draw.add_line(v(*a), v(*b), imgui.IM_COL32(*CONE), 1.0)
                for a in rim[::4]:
                    draw.add_line(v(*head), v(*a), imgui.IM_COL32(*CONE), 1.0)
                colour = REACHED if out.look_reached[k] else GOAL
                alpha = int(80 + 175 * out.look_weight)
                draw.add_line(v(*head), v(*goal), imgui.IM_COL32(*colour[:3], alpha), 2.0)
            draw.add_circle(v(*goal), 5.0, imgui.IM_COL32(*GOAL), 0, 2.0)
        if ik and rig.legs:
            feet = project(viewer, frame_rect, battler, out.foot_goals)
            for k, pt in enumerate(feet):
                r = 2.0 + 4.0 * float(out.contact[k])
                colour = REACHED if out.foot_reached[k] else FOOT
                draw.add_rect(v(pt[0] - r, pt[1] - r), v(pt[0] + r, pt[1] + r),
                              imgui.IM_COL32(*colour), 0.0, 2.0)
        if springs and rig.chain_bones:
            origins = np.asarray(battler.rig.pivot, np.float64)[:, :, 3]
            for _, chain, *_ in rig.resolved.chains:
                pts = project(viewer, frame_rect, battler, origins[list(chain)])
                for a, b in zip(pts[:-1], pts[1:]):
                    draw.add_line(v(*a), v(*b), imgui.IM_COL32(*CHAIN), 2.5)
                for pt in pts[1:]:
                    draw.add_circle_filled(v(*pt), 3.0, imgui.IM_COL32(*CHAIN))
            pivots = np.asarray(battler.rig.pivot, np.float64)
            for bone, offset, radius, tail in rig.resolved.colliders:
                centre = pivots[bone, :, :3] @ np.asarray(offset, float) + pivots[bone, :, 3]
                c, edge = project(viewer, frame_rect, battler,
                                  [centre, centre + (radius, 0.0, 0.0)])
                draw.add_circle(v(*c), float(np.hypot(*(edge - c))), imgui.IM_COL32(*COLLIDER),
                                24, 1.5)


def panel(ui, viewer, act: bool) -> None:
    """The switches, then the inspected battler's last step: look weight and goal, each
    chain reached or not, each foot's contact, the pelvis drop, the springs' steps."""
    imgui, s = ui.imgui, ui.state
    toggles = (("look-at", "look_at"), ("planted feet", "feet"), ("springs", "springs"),
               ("pause physics", "physics_paused"), ("IK goals", "ik_overlay"),
               ("spring overlay", "spring_overlay"), ("ragdoll bodies", "ragdoll_overlay"))
    for k, (label, key) in enumerate(toggles):
        if k % 2:
            imgui.same_line(150.0 * ui.scale)
        changed, value = imgui.checkbox(label, getattr(s, key))
        if changed and act:
            setattr(s, key, value)
            viewer.views_changed()
    b = viewer.match.battlers[s.side]
    sec = None if b is None else b.secondary
    if sec is None:
        imgui.text_disabled("no secondary motion on this cell")
        return
    out = sec.readout
    imgui.separator_text(f"{b.species.name} ({'ours' if s.side == 0 else 'rival'})")
    reached = " ".join("yes" if r else "no" for r in out.look_reached) or "-"
    g = out.look_goal
    imgui.text(f"look weight {out.look_weight:.3f}  reached {reached}")
    imgui.text(f"goal ({g[0]:.2f}, {g[1]:.2f}, {g[2]:.2f})")
    if len(out.contact):
        feet = "  ".join(f"{c:.2f}{'*' if r else ''}" for c, r in zip(out.contact, out.foot_reached))
        imgui.text(f"feet {feet}")
        imgui.text(f"pelvis drop {out.pelvis_drop:.3f}  (* reached)")
    if sec.springs is not None:
        imgui.text(f"springs {len(sec.rig.chain_bones)} chains  "
                   f"{len(sec.rig.colliders)} colliders  steps {out.steps}"
                   f"{'  paused' if s.physics_paused else ''}")
