"""The debugger's matching view, for roam mode: a panel with what drives the trainer (the
motion database or the learned model) and the memory each takes, the entry and frame the
motion-matching node plays (or the learned node's state), its jumps, and the feature costs
of what plays (the database frame's features, or the learned state's) against the query
made of it, channel by channel; and an overlay on the frame drawing the desired trajectory
(the keys' springs FUTURE seconds ahead) and the matched one (the playing features'
trajectory, where they put the root). Only reads the roam scene.
"""
from __future__ import annotations

import numpy as np

from runtime.matching.database_build import MatchChannelKind

DESIRED, MATCHED, ROOT = (90, 200, 255, 255), (255, 160, 60, 255), (255, 255, 255, 255)


def project(viewer, frame_rect, points) -> np.ndarray:
    """World points (k, 3) as screen points (k, 2) in the frame."""
    view_proj = np.asarray(viewer.renderer.view_proj, np.float64).T
    x, y, w, h = frame_rect
    p = np.asarray(points, np.float64).reshape(-1, 3)
    clip = np.c_[p, np.ones(len(p))] @ view_proj
    ndc = clip[:, :2] / clip[:, 3:4]
    return np.c_[x + (ndc[:, 0] + 1) * 0.5 * w, y + (1 - ndc[:, 1]) * 0.5 * h]


def playing(loc) -> np.ndarray:
    """The raw features of what plays: the database frame's, or the learned state's first
    feature_count values (normalized by the model's normalization)."""
    state = loc.learned_state() if loc.driver == "learned" else None
    if state is None:
        db = loc.database
        return db.frame_features(loc.frame).astype(np.float64) * db.scales + db.offsets
    offsets, scales = loc.model.normalization()
    f = loc.model.feature_count
    return state[:f] * scales.astype(np.float64) + offsets


def query(loc) -> np.ndarray:
    """The raw query the driving node makes of what plays: its features, the desired
    trajectory's in their places."""
    q = playing(loc).astype(np.float32)
    q[q.size - loc.trajectory.size:] = loc.trajectory
    return q


def channel_costs(loc) -> list[tuple[str, float]]:
    """Per channel, the squared normalized differences between the query and what plays
    (for the database, what a search adds up for the frame, less the biases)."""
    db = loc.database
    if loc.driver == "database":            # the very features the search reads
        features = db.frame_features(loc.frame)
    else:
        features = ((playing(loc) - db.offsets) / db.scales).astype(np.float32)
    diff = ((query(loc) - db.offsets) / db.scales - features).astype(np.float32)
    sk = loc.trainer
    rows = []
    for k in range(db.channel_count):
        c = db.channel(k)
        first = db.channel_first_feature(k)
        last = db.channel_first_feature(k + 1) if k + 1 < db.channel_count else db.feature_count
        kind = MatchChannelKind(c.kind).name
        where = sk.bone_name(c.bone) if "bone" in kind else "root"
        rows.append((f"{kind} {where}", float(np.sum(diff[first:last] ** 2))))
    return rows


def memory(loc) -> tuple[int, int, int]:
    """(database bytes, its clips' bytes, learned model bytes (0 without one)): what each
    driver needs in memory to play."""
    clips = sum(memoryview(c.data).nbytes for c in loc.motion.baked)
    model = 0 if loc.model is None else memoryview(loc.model.data).nbytes
    return memoryview(loc.database.data).nbytes, clips, model


def driver_lines(loc) -> list[str]:
    """What drives the trainer and what each driver takes in memory."""
    db, clips, model = memory(loc)
    lines = [f"driven by the {loc.driver_name}" + ("" if loc.model is None else "   (l switches)"),
             f"database {(db + clips) / 1e6:.2f} MB: features {db / 1e6:.2f} + clips {clips / 1e6:.2f}"]
    if loc.model is not None:
        lines.append(f"learned model {model / 1e6:.3f} MB ({(db + clips) / model:.0f}x smaller)")
    return lines


def matched_trajectory(loc) -> np.ndarray:
    """The frame's trajectory positions, (x, z) on the mocap's ground where they put the
    character's root."""
    raw = playing(loc)
    n = len(loc.predicted)
    local = raw[raw.size - 4 * n:raw.size - 2 * n].reshape(n, 2)
    from stadium.roam.locomotion import turn_y

    return np.array([loc.position + turn_y(loc.yaw, p) for p in local])


def _world(roam, ground_xz) -> np.ndarray:
    xz = np.array([roam.world_xz(p) for p in ground_xz])
    y = np.array([roam.diorama.ground(x, z) for x, z in xz]) + 0.02
    return np.c_[xz[:, 0], y, xz[:, 1]]


def overlay(ui, viewer, frame_rect) -> None:
    imgui = ui.imgui
    draw = imgui.get_foreground_draw_list()
    v = imgui.ImVec2
    roam = viewer.roam
    loc = roam.locomotion
    for points, colour in ((loc.predicted, DESIRED), (matched_trajectory(loc), MATCHED)):
        screen = project(viewer, frame_rect, _world(roam, np.vstack([loc.position, points])))
        for a, b in zip(screen[:-1], screen[1:]):
            draw.add_line(v(*a), v(*b), imgui.IM_COL32(*colour), 2.0)
        for pt in screen[1:]:
            draw.add_circle_filled(v(*pt), 3.0, imgui.IM_COL32(*colour))
    root = project(viewer, frame_rect, _world(roam, [loc.position]))[0]
    draw.add_circle(v(*root), 4.0, imgui.IM_COL32(*ROOT), 12, 1.5)


def panel(ui, viewer) -> None:
    imgui = ui.imgui
    roam = viewer.roam
    loc = roam.locomotion
    for line in driver_lines(loc):
        imgui.text(line)
    imgui.separator()
    if loc.driver == "learned":
        imgui.text(f"learned state: {loc.model.latent_count} latent + {loc.model.feature_count} features")
    else:
        names = loc.motion.staged.names
        entry = loc.entry
        mirrored = " (mirrored)" if loc.entry_mirrored[entry] else ""
        imgui.text(f"entry {entry}: {names[loc.entry_clip[entry]]}{mirrored}")
        imgui.text(f"frame {loc.frame}   clip time {loc.time:.3f} s")
    seconds = max(roam.time, 1e-9)
    imgui.text(f"jumps {loc.jumps} ({loc.jumps / seconds:.2f}/s){'   jumped' if loc.jumped else ''}")
    v = roam.velocity
    imgui.text(f"keys {'+'.join(sorted(roam.held)) or '-'}   desired {np.hypot(*v):.0f} cm/s")
    imgui.text_colored(imgui.ImVec4(*(c / 255 for c in DESIRED)), "desired trajectory")
    imgui.same_line()
    imgui.text_colored(imgui.ImVec4(*(c / 255 for c in MATCHED)), "matched trajectory")
    imgui.separator_text("feature costs of the frame playing" if loc.driver == "database"
                         else "feature costs of the learned state")
    rows = channel_costs(loc)
    most = max((c for _, c in rows), default=0.0) or 1.0
    for name, cost in rows:
        imgui.progress_bar(cost / most, imgui.ImVec2(90 * ui.scale, 0), f"{cost:.3f}")
        imgui.same_line()
        imgui.text(name)
