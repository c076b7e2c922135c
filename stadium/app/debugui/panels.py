"""The viewer's debugger: Dear ImGui panels over the running battle.

    Time       pause, single step, slow motion, the fps, scrubbing the current state's
               playhead of the inspected battler (or of both)
    View       anchoring, half-frame interpolation, the renderer's Look (shadows, seams,
               hit flash, post), the pose path of each battler, the skeleton overlay
               (the hovered and the picked bone named) and the searchable bone list
    Graph      each battler's node tree as maniGraphInstance_InspectNode reports it:
               kind, weight, playhead (a scrubbed one as shown), the machine's state and
               the transition under way
    Parameters the graph's parameters, edited live (a trigger is fired, a float dragged)
    Events     the graphs' events and the battle's, frame by frame, the latest in view
    Frame time in a window the period of the last frames; headless, what each frame cost
               (its steps and its draw); and the sun's two shadow layers
    IK and springs  (in the shadow map's place when open) look-at, planted feet and
               springs switched on or off, the physics paused, what each did the last
               step; over the frame, look goals and cones, foot goals, spring chains and
               colliders (stadium.app.debugui.secondary_view)

The layout is made for BASE_SCREEN and scaled down, text and all, to fit a smaller one.

Everything here is debug state: it is applied only while the debugger is open (closing
it leaves the battle to render exactly as it would have; the IK and springs switches are
the one exception, by design: while one is off the secondary motion moves on without it,
and closing the debugger switches them all back on), and looking never changes the
battle (a scrubbed playhead or another pose path is shown by re-posing the step, not by
playing it; see stadium.battle.battler.Battler.present).
"""
from __future__ import annotations

import collections
from dataclasses import dataclass, field

import numpy as np

from ...render.battle_renderer import Look
from ...battle.battler import POSE_PATHS, PoseView
from . import bones, matching_view, ragdoll_view, secondary_view
from .inputs import ImGuiInput
from .renderer import ImGuiRenderer
from .shadow_view import ShadowView

BASE_SCREEN = (1120, 800)  # the size the layout is made for (and headless screens)
MIN_SCALE = 0.6            # smaller than this and the text cannot be read
PANEL_WIDTH = 440          # the right column
STRIP_HEIGHT = 216         # the strip under the battle frame
TIME_HEIGHT = 270          # the right column's windows: time and view, graph, events
GRAPH_HEIGHT = 300
BONES_WIDTH = 200          # the bone list, in the strip when it is open
FRAME_TIME_WIDTH = 240     # the least the frame time's window has
SPEEDS = (1.0, 0.5, 0.25, 0.1)
FRAME_TIMES = 240
FPS_FRAMES = 60            # the fps readout averages this many frames
KIND_NAMES = {1: "clip", 2: "blend", 3: "blend 1D", 4: "blend 2D banded", 5: "blend 2D",
              6: "mask", 7: "additive", 8: "select", 9: "time scale", 10: "seek",
              11: "state machine", 12: "one-shot", 13: "inertialize", 14: "pose parameter"}
GRAPH_NONE = 0xFFFFFFFF
SIDE_NAMES = ("ours", "rival")


@dataclass
class DebugState:
    """What the debugger shows and how: the frame's Look while it is open, and how each
    battler is looked at (stadium.battle.battler.PoseView)."""

    anchor: bool = True
    interpolate: bool = True
    look: Look = field(default_factory=Look)
    pose_paths: list = field(default_factory=lambda: [None, None])     # None: as played
    skeleton: bool = False
    names: bool = False                  # the bone list open
    bone_filter: str = ""
    scrub: list = field(default_factory=lambda: [None, None])
    scrub_both: bool = False             # the playhead slider moves both battlers
    picked: tuple | None = None          # (side, pack bone)
    side: int = 0                        # whose graph the panels show, and who is scrubbed
    secondary: bool = False              # the IK and springs panel open
    look_at: bool = True
    feet: bool = True
    springs: bool = True
    physics_paused: bool = False
    ik_overlay: bool = False             # look goals and cones, foot goals over the frame
    spring_overlay: bool = False         # spring chains and colliders over the frame
    ragdoll_overlay: bool = False        # a falling creature's bodies over the frame

    def view(self, side: int) -> PoseView | None:
        v = PoseView(self.pose_paths[side], self.interpolate, self.anchor, self.scrub[side])
        return None if v.plain else v


def layout_scale(width: int, height: int) -> float:
    """How much the layout shrinks to fit a screen smaller than BASE_SCREEN."""
    return max(MIN_SCALE, min(1.0, width / BASE_SCREEN[0], height / BASE_SCREEN[1]))


def frame_area(width: int, height: int) -> tuple[int, int]:
    """Room left for the battle frame beside the panels (top left of the screen)."""
    k = layout_scale(width, height)
    return max(160, width - round(PANEL_WIDTH * k)), max(144, height - round(STRIP_HEIGHT * k))


def layout(width: int, height: int, frame_bottom: int, bone_list: bool,
           secondary: bool = False) -> dict:
    """Each window's (x, y, w, h) on a screen: the right column (time and view, graph,
    events) and the strip under the frame (frame time, the bone list when open, shadows
    or, when open, the IK and springs panel in their place)."""
    k = layout_scale(width, height)
    panel, time_h, graph_h = (round(v * k) for v in (PANEL_WIDTH, TIME_HEIGHT, GRAPH_HEIGHT))
    column = width - panel
    strip_y = min(frame_bottom + 4, height - round(120 * k))
    strip_h = height - strip_y
    bones_w = round(BONES_WIDTH * k) if bone_list else 0
    # the shadow map gives way to the bone list: the frame time keeps room for its text
    shadow_w = min(round((2 * ShadowView.SIDE + 24) * k), column - bones_w - round(FRAME_TIME_WIDTH * k))
    frame_w = column - shadow_w - bones_w
    rects = {"Time and view": (column, 0, panel, time_h),
             "Graph": (column, time_h, panel, graph_h),
             "Events": (column, time_h + graph_h, panel, height - time_h - graph_h),
             "Frame time": (0, strip_y, frame_w, strip_h),
             ("IK and springs" if secondary else "Shadow map"):
                 (frame_w + bones_w, strip_y, shadow_w, strip_h)}
    if bone_list:
        rects["Bones"] = (frame_w, strip_y, bones_w, strip_h)
    return rects


class DebugUI:
    """ImGui's context, its renderer, and the panels, for one viewer."""

    def __init__(self, gfx, *, fixed_clock: bool = False):
        from imgui_bundle import imgui

        self.imgui = imgui
        self.context = imgui.create_context()
        imgui.set_current_context(self.context)
        io = imgui.get_io()
        io.set_ini_filename("")            # no layout remembered between runs
        io.set_log_filename("")
        io.config_flags |= imgui.ConfigFlags_.nav_enable_keyboard.value
        imgui.style_colors_dark()
        style = imgui.get_style()
        style.window_rounding = 3.0
        style.frame_rounding = 2.0
        self.renderer = ImGuiRenderer(gfx)
        self.input = ImGuiInput()
        self.shadow_view = ShadowView(gfx)
        self.shadow_id = self.renderer.register(self.shadow_view.texture)
        self.state = DebugState()
        self.fixed_clock = fixed_clock
        self.frame_times = collections.deque(maxlen=FRAME_TIMES)
        self.frames = 0
        self.hovered = None
        self.listed_hover = False            # the hovered bone is the bone list's
        self.scale = 1.0
        self._screen = None
        self._relayout = True
        self._scroll_events = True
        self._event_count = 0

    frame_area = staticmethod(frame_area)

    # ------------------------------------------------------------ input

    def feed(self, event) -> None:
        self.imgui.set_current_context(self.context)
        self.input.feed(event)

    @property
    def wants_keyboard(self) -> bool:
        self.imgui.set_current_context(self.context)
        return self.imgui.get_io().want_text_input

    def record_frame(self, milliseconds: float) -> None:
        """A frame's time: in a window its period, headless what its steps and draw cost."""
        self.frame_times.append(1000.0 / 60.0 if self.fixed_clock else milliseconds)

    @property
    def fps(self) -> float | None:
        recent = list(self.frame_times)[-FPS_FRAMES:]
        return 1000.0 * len(recent) / sum(recent) if recent and sum(recent) > 0 else None

    # ------------------------------------------------------------ a frame

    def draw(self, gfx, viewer, viewport) -> None:
        """Build this frame's panels from the viewer and draw them over the screen.
        `viewport` is where the battle frame is, in GL's (x, y from the bottom, w, h)."""
        imgui = self.imgui
        imgui.set_current_context(self.context)
        io = imgui.get_io()
        io.display_size = (float(gfx.width), float(gfx.height))
        io.delta_time = 1.0 / 60.0
        if viewer.renderer.shadow_map is not None and viewer.effective_look().shadows:
            self.shadow_view.draw(viewer.renderer.shadow_map)
        gfx.screen.use()
        self._relayout = (gfx.width, gfx.height) != self._screen
        self._screen = (gfx.width, gfx.height)
        self.scale = layout_scale(gfx.width, gfx.height)
        imgui.get_style().font_scale_main = self.scale
        self.window = gfx.window
        # a window has vertices from its 2nd frame, and a child scrolls to where it was
        # told the frame after: headless there is no frame after, so lay out twice
        passes = 2 if self.frames == 0 or not gfx.window else 1
        for k in range(passes):
            imgui.new_frame()
            self._panels(gfx, viewer, viewport, act=(k == passes - 1))
            imgui.render()
        gfx.screen.use()
        self.renderer.render(imgui.get_draw_data())
        self.frames += 1

    def _panels(self, gfx, viewer, viewport, act: bool) -> None:
        x, y_gl, w, h = viewport
        frame_rect = (x, gfx.height - y_gl - h, w, h)
        match = viewer.match
        rects = layout(gfx.width, gfx.height, frame_rect[1] + h,
                       bone_list=match is not None and self.state.names,
                       secondary=match is not None and self.state.secondary)
        bodies = {"Time and view": lambda: self._time_view(viewer, act),
                  "Frame time": self._frame_time,
                  "Shadow map": lambda: self._shadows(viewer)}
        if match is not None:
            bodies.update({"Graph": lambda: self._graph(viewer, act),
                           "Events": lambda: self._events(viewer),
                           "Bones": lambda: bones.bone_list(self, viewer, act),
                           "IK and springs": lambda: (ragdoll_view.panel(self, viewer),
                                                      secondary_view.panel(self, viewer, act))})
        roam = getattr(viewer, "roam", None)
        if roam is not None:           # roam mode: the matching view where the graph goes
            gx, gy, gw, gh = rects.pop("Graph")
            rects["Matching"] = (gx, gy, gw, gh + rects.pop("Events")[3])
            bodies["Matching"] = lambda: matching_view.panel(self, viewer)
        for title, rect in rects.items():
            if title in bodies:
                self._window(title, rect[:2], rect[2:], bodies[title])
        if roam is not None:
            matching_view.overlay(self, viewer, frame_rect)
        if match is not None and self.state.skeleton:
            bones.overlay(self, viewer, frame_rect, act)
        if match is not None and (self.state.ik_overlay or self.state.spring_overlay):
            secondary_view.overlay(self, viewer, frame_rect, self.state.ik_overlay,
                                   self.state.spring_overlay)
        if match is not None and self.state.ragdoll_overlay:
            ragdoll_view.overlay(self, viewer, frame_rect)

    def _window(self, title, pos, size, body) -> None:
        imgui = self.imgui
        # laid out again whenever the screen changes size, left where the user put it
        # otherwise
        cond = imgui.Cond_.always.value if self._relayout else imgui.Cond_.first_use_ever.value
        imgui.set_next_window_pos(imgui.ImVec2(*pos), cond)
        imgui.set_next_window_size(imgui.ImVec2(*size), cond)
        flags = imgui.WindowFlags_.no_collapse.value
        shown, _ = imgui.begin(title, None, flags)
        if shown:
            body()
        imgui.end()

    # ------------------------------------------------------------ time and view

    def _time_view(self, viewer, act: bool) -> None:
        imgui = self.imgui
        s = self.state
        match = viewer.match
        fps = self.fps
        rate = "fps -" if fps is None else (f"fps {fps:4.1f}" if self.window else f"{fps:4.0f} fps of work")
        imgui.text(f"step {viewer.steps}   t {viewer.world.time:7.3f} s   "
                   f"{'PAUSED' if viewer.paused else 'running'}   {rate}")
        if imgui.button("Resume" if viewer.paused else "Pause") and act:
            viewer.set_paused(not viewer.paused)
        imgui.same_line()
        if imgui.button("Step") and act:
            viewer.step_once()
        imgui.same_line()
        imgui.text(" speed")
        for speed in SPEEDS:
            imgui.same_line()
            if imgui.radio_button(f"{speed:g}x", viewer.speed == speed) and act:
                viewer.speed = speed
        if match is not None:
            self._scrubber(viewer, act)
        imgui.separator_text("view (while the debugger is open)")
        toggles = ((s.look, "shadows", "shadows"), (s.look, "seams", "seams"),
                   (s.look, "hit flash", "flash"), (s.look, "post", "post"))
        if match is not None:
            toggles = ((s, "anchoring", "anchor"), (s, "interpolation", "interpolate")) + toggles + \
                ((s, "skeleton", "skeleton"), (s, "bone list", "names"),
                 (s, "IK and springs", "secondary"))
        else:
            imgui.text_disabled("the show has no graphs: the battle's panels are in the battle")
        for k, (owner, label, key) in enumerate(toggles):
            if k % 3:
                imgui.same_line((140.0 * (k % 3) + 8) * self.scale)
            changed, value = imgui.checkbox(label, getattr(owner, key))
            if changed and act:
                setattr(owner, key, value)
                viewer.views_changed()
        if match is not None:
            for side in (0, 1):
                b = match.battlers[side]
                played = b.pose_path if b is not None else match.setup.pose_paths[side]
                imgui.text(f"{SIDE_NAMES[side]:>5} pose path:")
                for path in POSE_PATHS:
                    imgui.same_line()
                    shown = s.pose_paths[side] or played
                    if imgui.radio_button(f"{path}##{side}", shown == path) and act:
                        s.pose_paths[side] = None if path == played else path
                        viewer.views_changed()
        for mark, what, colour in ((self.hovered, "hovered", (1.0, 1.0, 1.0)),
                                   (s.picked, "picked", (1.0, 0.85, 0.3))):
            if mark is None or match is None:
                continue
            side, bone = mark
            b = match.battlers[side]
            if b is not None and bone < len(b.species.parents):
                origin = np.asarray(b.rig.pivot)[bone, :, 3]
                imgui.text_colored(imgui.ImVec4(*colour, 1.0),
                                   f"{what} {bones.label(viewer, mark)}  "
                                   f"origin ({origin[0]:.2f}, {origin[1]:.2f}, {origin[2]:.2f})")

    # ------------------------------------------------------------ scrubbing

    def scrubbed(self, side: int) -> set:
        """The sides the playhead slider moves: the inspected battler, or both."""
        return {0, 1} if self.state.scrub_both else {side}

    def playhead(self, battler, side: int) -> float:
        """The current state's playhead as shown: scrubbed (within its clip) or as played."""
        role, playhead, _ = battler.state()
        scrub = self.state.scrub[side]
        if scrub is None:
            return playhead
        return min(max(float(scrub), 0.0), battler.rts.clip(role).duration)

    def scrub_to(self, viewer, seconds: float) -> None:
        """Show the inspected battler's current state at `seconds` into its clip (and, with
        "both", the other's moved on or back by as much)."""
        s = self.state
        battlers = viewer.match.battlers
        by = seconds - self.playhead(battlers[s.side], s.side)
        for side in self.scrubbed(s.side):
            if battlers[side] is not None:
                s.scrub[side] = self.playhead(battlers[side], side) + by
        viewer.views_changed()

    def _scrubber(self, viewer, act: bool) -> None:
        """One slider over the inspected battler's playhead; with "both" the other battler's
        moves by as much. Only while paused: a scrub is a look, resuming forgets it."""
        imgui = self.imgui
        s = self.state
        battlers = viewer.match.battlers
        b = battlers[s.side]
        if b is None:
            return
        role = b.state()[0]
        duration = b.rts.clip(role).duration
        value = self.playhead(b, s.side)
        imgui.begin_disabled(not viewer.paused)
        imgui.set_next_item_width(210 * self.scale)
        changed, value = imgui.slider_float("##scrub", float(value), 0.0,
                                            float(max(duration, 1e-6)), "%.3f s")
        imgui.same_line()
        imgui.text(f"{SIDE_NAMES[s.side]} {role}")
        imgui.same_line()
        both_changed, both = imgui.checkbox("both", s.scrub_both)
        imgui.end_disabled()
        if both_changed and act:
            s.scrub_both = both
        if changed and act and viewer.paused:
            self.scrub_to(viewer, value)
        if any(x is not None for x in s.scrub):
            imgui.same_line()
            if imgui.small_button("back") and act:
                s.scrub = [None, None]
                viewer.views_changed()

    # ------------------------------------------------------------ the graph

    def _graph(self, viewer, act: bool) -> None:
        imgui = self.imgui
        s = self.state
        match = viewer.match
        for side in (0, 1):
            if side:
                imgui.same_line()
            b = match.battlers[side]
            label = f"{SIDE_NAMES[side]}: {b.species.name if b else '(empty)'}"
            if imgui.radio_button(label, s.side == side) and act:
                s.side = side
        b = match.battlers[s.side]
        if b is None:
            imgui.text_disabled("nobody on this cell")
            return
        role = b.state()[0]
        playhead = self.playhead(b, s.side)
        clip = b.rts.clips[role]
        shown = s.pose_paths[s.side] or b.pose_path
        path = b.pose_path if shown == b.pose_path else f"{b.pose_path}, shown {shown}"
        imgui.text(f"{b.blend}; pose path {path}; pack frame "
                   f"{b.rig.shown_frame(clip.anim, clip.frame(playhead), clip.wrap)}")
        flags = (imgui.TableFlags_.borders_inner_v.value | imgui.TableFlags_.row_bg.value
                 | imgui.TableFlags_.sizing_fixed_fit.value)
        if imgui.begin_table("nodes", 4, flags):
            imgui.table_setup_column("node", imgui.TableColumnFlags_.width_stretch.value)
            imgui.table_setup_column("weight")
            imgui.table_setup_column("playhead")
            imgui.table_setup_column("state")
            imgui.table_headers_row()
            g = b.graph.graph
            scrub = (role, playhead) if s.scrub[s.side] is not None else None
            self._node_rows(b, g, g.node_count - 1, 0, scrub)
            imgui.end_table()
        imgui.separator_text("parameters")
        self._parameters(b, act)

    def _node_rows(self, b, g, k: int, depth: int, scrub) -> None:
        """A node and its inputs; `scrub` (role, seconds) shows that clip's playhead as
        scrubbed."""
        imgui = self.imgui
        view = b.instance.inspect(k)
        kind = KIND_NAMES.get(view.kind, str(view.kind))
        playhead, scrubbed = view.playhead, False
        if view.kind == 1:
            clip = g.clip_name(g.nodes[k].data.slot)
            name = f"clip '{clip}'"
            if scrub is not None and clip == scrub[0]:
                playhead, scrubbed = scrub[1], True
        else:
            name = kind
        imgui.table_next_row()
        imgui.table_set_column_index(0)
        colour = imgui.ImVec4(1, 1, 1, 1) if view.weight > 0 else imgui.ImVec4(0.5, 0.5, 0.55, 1)
        imgui.text_colored(colour, "  " * depth + f"{name} [{b.graph.places[k]}]")
        imgui.table_set_column_index(1)
        imgui.text_colored(colour, f"{view.weight:.3f}")
        imgui.table_set_column_index(2)
        if view.kind in (1, 12):
            if scrubbed:
                imgui.text_colored(imgui.ImVec4(1.0, 0.85, 0.3, 1.0), f"{playhead:.3f} scrubbed")
            else:
                imgui.text_colored(colour, f"{playhead:.3f}")
        imgui.table_set_column_index(3)
        if view.kind == 11:
            text = b.role if view.state != GRAPH_NONE else "-"
            if view.transition != GRAPH_NONE:
                text += f"  t{view.transition} {view.progress:.0%}"
            imgui.text_colored(colour, text)
        for i in g.node_inputs(k):
            self._node_rows(b, g, i, depth + 1, scrub)

    def _parameters(self, b, act: bool) -> None:
        imgui = self.imgui
        from runtime.graph.source import ParameterType

        g = b.graph.graph
        for k in range(g.parameter_count):
            name = g.parameter_name(k)
            kind = g.parameter_type(k)
            value = b.instance.get_parameter(k)
            if kind == ParameterType.trigger:
                if imgui.small_button(f"{name}{' (set)' if value.b else ''}##p{k}") and act:
                    b.instance.set_parameter(k, kind, True)
                imgui.same_line()
            elif kind == ParameterType.float_:
                imgui.new_line()
                lo, hi = g.parameters[k].bounds or (-10.0, 10.0)
                imgui.set_next_item_width(200)
                changed, v = imgui.slider_float(f"{name}##p{k}", float(value.f[0]), float(lo), float(hi))
                if changed and act:
                    b.instance.set_parameter(k, kind, v)
        imgui.new_line()

    # ------------------------------------------------------------ events

    def _events(self, viewer) -> None:
        imgui = self.imgui
        match = viewer.match
        rows = [(e.frame, 0, f"{SIDE_NAMES[e.side]:>5}  graph  {e.name} @ {e.time:.3f} s")
                for e in match.graph_log[-150:]]
        rows += [(e.frame, 1, f"{SIDE_NAMES[e.side] if e.side in (0, 1) else '':>5}  "
                              f"{e.kind:<8} {e.text}") for e in match.battle.log[-150:]]
        rows.sort(key=lambda r: (r[0], r[1]))
        imgui.begin_child("log", imgui.ImVec2(0, 0))
        for frame, source, text in rows[-200:]:
            colour = imgui.ImVec4(0.55, 0.85, 1.0, 1.0) if source == 0 else imgui.ImVec4(1, 1, 1, 1)
            imgui.text_colored(colour, f"{frame:6d}  {text}")
        # follow the newest line unless the reader has scrolled up
        if self._scroll_events:
            imgui.set_scroll_here_y(1.0)
        self._scroll_events = imgui.get_scroll_y() >= imgui.get_scroll_max_y() - 4.0 \
            or len(rows) != self._event_count
        self._event_count = len(rows)
        imgui.end_child()

    # ------------------------------------------------------------ frame time, shadows

    def _frame_time(self) -> None:
        imgui = self.imgui
        if not self.frame_times:
            imgui.text_disabled("no frames timed yet")
            return
        times = np.array(self.frame_times, np.float32)
        imgui.text("a frame's period" if self.window else "a frame's work (step, draw)")
        imgui.text(f"last {times[-1]:.1f} ms  mean {times.mean():.1f}  max {times.max():.1f}")
        avail = imgui.get_content_region_avail()
        # a tenth of headroom over the largest, so its peak is drawn, not cut off
        top = max(20.0, float(times.max()) * 1.1)
        imgui.plot_lines("##frametime", times, 0, f"0 .. {top:.0f} ms", 0.0, top,
                         imgui.ImVec2(avail.x, max(40.0, avail.y)))

    def _shadows(self, viewer) -> None:
        imgui = self.imgui
        if viewer.renderer.shadow_map is None or not viewer.effective_look().shadows:
            imgui.text_disabled("shadows are off")
            return
        imgui.text("scenery  |  creatures")
        avail = imgui.get_content_region_avail()
        side = max(16.0, min(float(ShadowView.SIDE), avail.x / 2, avail.y))
        imgui.image(imgui.ImTextureRef(self.shadow_id), imgui.ImVec2(2 * side, side),
                    imgui.ImVec2(0, 1), imgui.ImVec2(1, 0))

    def release(self) -> None:
        imgui = self.imgui
        imgui.set_current_context(self.context)
        self.renderer.release()
        self.shadow_view.release()
        imgui.destroy_context(self.context)
