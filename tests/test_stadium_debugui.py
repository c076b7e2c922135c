"""The debugger: looking never changes the battle. The same frame with the debugger opened
(and its views, pause and scrub played with) then closed renders exactly as it does
when it was never opened; and its panels and overlay draw what they claim."""
import numpy as np
import pytest

pytest.importorskip("imgui_bundle", reason="the debugger needs imgui-bundle")

from stadium.battle.battler import PoseView  # noqa: E402
from stadium.render.gfx import Graphics  # noqa: E402
from stadium.rig.roster import Roster  # noqa: E402
from stadium.app.viewer import DEBUG_SCREEN, BattleViewer, Options  # noqa: E402

ROSTER = Roster()
SEED = 3


@pytest.fixture(scope="module")
def gfx():
    graphics = Graphics.open_headless(DEBUG_SCREEN)
    yield graphics
    graphics.release()


# Ripplewyrm's entrance swims far off its cell, so the anchor's smoothing is at work
# while the debugger is open.
TEAMS = (("ripplewyrm", "gloopet"), ("flitwren", "scrapkit"))


def viewer(**options):
    o = Options(mode="battle", teams=TEAMS, controllers=("ai", "ai"), seed=SEED,
                fixed_clock=True, **options)
    return BattleViewer(o, ROSTER, overlay=False)


def frame_pixels(v, gfx) -> np.ndarray:
    """The battle frame the renderer finished (160 x 144), and the whole screen."""
    v.draw(gfx)
    canvas = v.renderer.frame if v.effective_look().post else v.renderer.view
    out = np.empty((canvas.height, canvas.width, 3), np.uint8)
    return canvas.read_into(out), gfx.read_screen().copy()


def plain_run(gfx, steps):
    v = viewer()
    v.load(gfx)
    for _ in range(steps):
        v.update(1 / 60)
    pixels = frame_pixels(v, gfx)
    digest = v.match.digest()
    v.release()
    return pixels, digest


def test_opening_and_closing_the_debugger_changes_no_frame(gfx):
    # compared soon after the debugger closes: the anchor's smoothing forgets a wrong
    # start within a second or two, so a leak must be caught before it fades
    steps = 104
    (frame, screen), digest = plain_run(gfx, steps)
    v = viewer()
    v.load(gfx)
    for _ in range(60):     # into Ripplewyrm's entrance
        v.update(1 / 60)
    v.toggle_debug()
    s = v.debug.state
    # look every way there is: another pose path, no anchoring, no blend, the skeleton
    s.pose_paths = ["stadium", "stadium"]
    s.anchor = s.interpolate = False
    s.skeleton = s.names = True
    s.look.shadows = s.look.flash = s.look.post = False
    v.views_changed()
    for _ in range(30):
        v.update(1 / 60)
        v.draw(gfx)
    # pause, scrub the playhead, step once, slow motion
    v.set_paused(True)
    s.scrub = [0.1, 0.2]
    v.views_changed()
    v.draw(gfx)
    v.set_paused(False)
    v.speed = 0.5
    for _ in range(20):
        v.update(1 / 60)          # ten steps at half speed
        v.draw(gfx)
    v.speed = 1.0
    v.toggle_debug()
    assert v.steps == 60 + 30 + 10
    for _ in range(steps - v.steps):
        v.update(1 / 60)
    again, screen_again = frame_pixels(v, gfx)
    assert v.match.digest() == digest
    assert np.array_equal(again, frame), "the battle frame differs after the debugger"
    assert np.array_equal(screen_again, screen), "the screen differs after the debugger"
    v.release()


def to_first_hit(v):
    """Step until just after the first blow lands: the defender flashing and blending into
    its hit (where the two pose paths differ: on a steady state at 60 Hz they agree)."""
    while not any(e.kind == "hit" for e in v.match.battle.log):
        v.update(1 / 60)
    for _ in range(2):
        v.update(1 / 60)
    return next(e.side for e in v.match.battle.log if e.kind == "hit")


def test_while_open_the_views_do_show(gfx):
    v = viewer(debug=True)
    v.load(gfx)
    to_first_hit(v)
    plain = frame_pixels(v, gfx)[0]
    s = v.debug.state
    s.pose_paths = ["stadium", "stadium"]
    s.look.flash = False
    v.views_changed()
    other = frame_pixels(v, gfx)[0]
    assert not np.array_equal(plain, other)
    s.pose_paths = [None, None]
    s.look.flash = True
    v.views_changed()
    assert np.array_equal(frame_pixels(v, gfx)[0], plain)
    v.release()


def test_a_scrubbed_playhead_is_shown_and_then_forgotten(gfx):
    v = viewer(debug=True)
    v.load(gfx)
    side = to_first_hit(v)
    b = v.match.battlers[side]
    role, playhead, _ = b.state()
    assert role == "hit"
    before = np.concatenate([p.vertices for p in b.rig.parts]).copy()
    saved = bytes(b.instance.save())
    v.set_paused(True)
    scrub = [None, None]
    scrub[side] = playhead + 0.2
    v.debug.state.scrub = scrub
    v.views_changed()
    scrubbed = np.concatenate([p.vertices for p in b.rig.parts]).copy()
    assert not np.array_equal(scrubbed, before)
    assert bytes(b.instance.save()) == saved, "a scrub is a look: the graph does not move"
    v.set_paused(False)         # resuming forgets the scrub
    assert v.debug.state.scrub == [None, None]
    assert np.array_equal(np.concatenate([p.vertices for p in b.rig.parts]), before)
    v.release()


def test_pose_view_plain_means_as_played():
    assert PoseView().plain
    assert not PoseView(pose_path="stadium").plain
    assert not PoseView(scrub=0.0).plain


def test_the_skeleton_overlay_lands_on_the_creatures(gfx):
    from stadium.app.debugui import bones

    v = viewer(debug=True, debug_state=dict(skeleton=True))
    v.load(gfx)
    for _ in range(150):
        v.update(1 / 60)
    v.draw(gfx)
    x, y_gl, w, h = v.viewport
    rect = (x, gfx.height - y_gl - h, w, h)
    joints = bones.joints(v, rect)
    assert len(joints) == 2
    camera = v.renderer.camera
    for side, points, parents in joints:
        f = v.match.battlers[side]
        # the creature's own cell projects among its joints' screen points
        cell = camera.project(f.position[None])[0] * (w / camera.size[0]) + rect[:2]
        assert points[:, 0].min() - 40 < cell[0] < points[:, 0].max() + 40
        assert points[:, 1].min() - 40 < cell[1] < points[:, 1].max() + 40
        assert (points[:, 0] > rect[0]).all() and (points[:, 0] < rect[0] + w).all()
    v.release()


def skin(b) -> np.ndarray:
    return np.concatenate([p.vertices for p in b.rig.parts]).copy()


def test_scrubbing_moves_the_picked_battler_or_both_and_the_inspector_follows(gfx):
    from stadium.app.debugui import bones

    v = viewer(debug=True)
    v.load(gfx)
    side = to_first_hit(v)          # the defender, in its hit reaction
    ui, battlers = v.debug, v.match.battlers
    v.set_paused(True)
    before = [skin(b) for b in battlers]
    played = [b.state()[1] for b in battlers]
    bones.pick(ui, (side, 3))       # picking a bone of the defender inspects it
    assert ui.state.side == side
    ui.scrub_to(v, played[side] + 0.2)
    assert not np.array_equal(skin(battlers[side]), before[side]), "the picked one moves"
    assert np.array_equal(skin(battlers[1 - side]), before[1 - side]), "the other stays"
    assert ui.playhead(battlers[side], side) == pytest.approx(played[side] + 0.2)
    assert ui.playhead(battlers[1 - side], 1 - side) == played[1 - side]
    v.draw(gfx)                     # the panels draw the scrubbed playhead
    ui.state.scrub, ui.state.scrub_both = [None, None], True
    ui.scrub_to(v, played[side] + 0.1)     # both move on by a tenth of a second
    for k, b in enumerate(battlers):
        assert not np.array_equal(skin(b), before[k]), "with both, both move"
        duration = b.rts.clip(b.state()[0]).duration
        assert ui.playhead(b, k) == pytest.approx(min(played[k] + 0.1, duration))
    v.set_paused(False)
    assert ui.state.scrub == [None, None]
    assert ui.playhead(battlers[side], side) == played[side]
    v.release()


def test_the_bone_list_finds_bones_by_name(gfx):
    from stadium.app.debugui import bones

    v = viewer(debug=True, debug_state={"names": True, "skeleton": True})
    v.load(gfx)
    to_first_hit(v)
    b = v.match.battlers[0]
    every = bones.listed(b, "")
    assert every == list(range(len(b.species.parents)))
    name = b.rts.bone_label(every[-1])
    assert bones.listed(b, name.upper()) == [every[-1]]
    assert bones.listed(b, "no such bone") == []
    v.debug.state.bone_filter = name
    v.draw(gfx)                     # the list and the overlay draw with a search on
    v.release()


def test_the_debugger_fits_a_768_pixel_high_display():
    from stadium.app.debugui.panels import frame_area, layout
    from stadium.app.window import fit_desktop

    for desktop in ((1366, 768), (1024, 768), (1920, 1080)):
        width, height = fit_desktop(DEBUG_SCREEN, desktop)
        assert width <= desktop[0] and height <= desktop[1] - 48
        area = frame_area(width, height)
        assert area[0] >= 3 * 160 and area[1] >= 3 * 144, "the frame at three times at least"
        for bone_list in (False, True):
            rects = layout(width, height, 3 * 144, bone_list)
            for name, (x, y, w, h) in rects.items():
                assert x >= 0 and y >= 0 and x + w <= width and y + h <= height, name
                assert w >= 160 and h >= 100, name
            boxes = list(rects.values())
            for i, (ax, ay, aw, ah) in enumerate(boxes):
                for bx, by, bw, bh in boxes[i + 1:]:
                    assert ax + aw <= bx or bx + bw <= ax or ay + ah <= by or by + bh <= ay


def test_headless_the_frame_time_is_each_frames_work_and_the_fps_is_shown(gfx):
    import time

    v = viewer(debug=True)
    v.options.fixed_clock = False
    v.load(gfx)
    v.debug.fixed_clock = False
    v.draw(gfx)
    start = time.perf_counter()
    for _ in range(120):
        v.update(1 / 60)
    v.draw(gfx)
    apart = (time.perf_counter() - start) * 1000.0
    times = list(v.debug.frame_times)
    assert len(times) == 2 and all(t > 0 for t in times)
    # not the time between two draws far apart: one step and one render
    assert times[-1] < apart / 4
    assert v.debug.fps == pytest.approx(2000.0 / sum(times))
    v.release()


def test_the_ik_and_springs_switches_reach_the_battlers_and_close_with_the_debugger(gfx):
    """The panel's switches are the match's while the debugger is open: pausing the physics
    holds every spring state as it is, look-at off lets go of the goal; closing the
    debugger puts them all back on."""
    from stadium.battle.secondary import Switches

    v = viewer(debug=True, debug_state=dict(secondary=True, ik_overlay=True,
                                            spring_overlay=True))
    v.load(gfx)
    for _ in range(150):
        v.update(1 / 60)
    v.draw(gfx)
    s = v.debug.state
    s.physics_paused, s.look_at = True, False
    v.views_changed()
    assert v.match.switches == Switches(look=False, paused=True)
    springs = [b.secondary.springs for b in v.match.battlers if b.secondary.springs is not None]
    held = [bytes(state.save()) for state in springs]
    for _ in range(20):
        v.update(1 / 60)
    v.draw(gfx)
    assert [bytes(state.save()) for state in springs] == held, "paused springs do not move"
    assert all(b.secondary.readout.look_weight == 0.0 for b in v.match.battlers)
    v.toggle_debug()
    assert v.match.switches == Switches()
    v.update(1 / 60)
    assert [bytes(state.save()) for state in springs] != held
    assert all(b.secondary.switches == Switches() for b in v.match.battlers)
    v.release()
