"""The viewer's debugger: Dear ImGui panels over the running battle.

    Time       pause, single step, slow motion, scrubbing the current state's playhead
    View       anchoring, half-frame interpolation, shadows, seams, hit flash, post,
               the pose path of each battler, the skeleton overlay and its names
    Graph      each battler's node tree as maniGraphInstance_InspectNode reports it:
               kind, weight, playhead, the machine's state and the transition under way
    Parameters the graph's parameters, edited live (a trigger is fired, a float dragged)
    Events     the graphs' events and the battle's, frame by frame
    Frame time the period of the last frames, and the sun's two shadow layers

Everything here is debug state: it is applied only while the debugger is open (closing
it leaves the battle to render exactly as it would have), and looking never changes the
battle (a scrubbed playhead or another pose path is shown by re-posing the step, not by
playing it; see stadium.battle.battler.Battler.present).
"""
from __future__ import annotations

import collections
import math
from dataclasses import dataclass, field

import numpy as np

from ...render.battle_renderer import Look
from ...battle.battler import POSE_PATHS, PoseView
from ...rig.convert import ROLES, bone_name
from .inputs import ImGuiInput
from .renderer import ImGuiRenderer
from .shadow_view import ShadowView

PANEL_WIDTH = 440          # the right column
STRIP_HEIGHT = 216         # the strip under the battle frame
TIME_HEIGHT = 252          # the right column's windows: time and view, graph, events
GRAPH_HEIGHT = 318
SPEEDS = (1.0, 0.5, 0.25, 0.1)
PICK_RADIUS = 9.0          # pixels
FRAME_TIMES = 240
KIND_NAMES = {1: "clip", 2: "blend", 3: "blend 1D", 4: "blend 2D banded", 5: "blend 2D",
              6: "mask", 7: "additive", 8: "select", 9: "time scale", 10: "seek",
              11: "state machine", 12: "one-shot", 13: "inertialize", 14: "pose parameter"}
GRAPH_NONE = 0xFFFFFFFF
SIDE_NAMES = ("ours", "rival")


@dataclass
class DebugState:
    anchor: bool = True
    interpolate: bool = True
    shadows: bool = True
    seams: bool = False
    flash: bool = True
    post: bool = True
    pose_paths: list = field(default_factory=lambda: [None, None])     # None: as played
    skeleton: bool = False
    names: bool = False
    scrub: list = field(default_factory=lambda: [None, None])
    picked: tuple | None = None          # (side, pack bone)
    side: int = 0                        # whose graph the panels show

    def view(self, side: int) -> PoseView | None:
        v = PoseView(self.pose_paths[side], self.interpolate, self.anchor, self.scrub[side])
        return None if v.plain else v

    def look(self, base: Look) -> Look:
        return Look(shadows=self.shadows, seams=self.seams, glass=base.glass, post=self.post,
                    flash=self.flash)


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
        self.frame_times = collections.deque([1000.0 / 60.0] * 8, maxlen=FRAME_TIMES)
        self.frames = 0
        self.hovered = None
        self._screen = None
        self._relayout = True
        self._scroll_events = True
        self._event_count = 0

    # ------------------------------------------------------------ layout

    @staticmethod
    def frame_area(width: int, height: int) -> tuple[int, int]:
        """Room left for the battle frame beside the panels (top left of the screen)."""
        return max(160, width - PANEL_WIDTH), max(144, height - STRIP_HEIGHT)

    # ------------------------------------------------------------ input

    def feed(self, event) -> None:
        self.imgui.set_current_context(self.context)
        self.input.feed(event)

    @property
    def wants_keyboard(self) -> bool:
        self.imgui.set_current_context(self.context)
        return self.imgui.get_io().want_text_input

    @property
    def wants_mouse(self) -> bool:
        self.imgui.set_current_context(self.context)
        return self.imgui.get_io().want_capture_mouse

    def record_frame(self, milliseconds: float) -> None:
        self.frame_times.append(1000.0 / 60.0 if self.fixed_clock else milliseconds)

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
        passes = 2 if self.frames == 0 else 1       # a window has vertices from its 2nd frame
        for k in range(passes):
            imgui.new_frame()
            self._panels(gfx, viewer, viewport, act=(k == passes - 1))
            imgui.render()
        gfx.screen.use()
        self.renderer.render(imgui.get_draw_data())
        self.frames += 1

    def _panels(self, gfx, viewer, viewport, act: bool) -> None:
        W, H = gfx.width, gfx.height
        x, y_gl, w, h = viewport
        frame_rect = (x, H - y_gl - h, w, h)
        column = W - PANEL_WIDTH
        match = viewer.match
        self._window("Time and view", (column, 0), (PANEL_WIDTH, TIME_HEIGHT),
                     lambda: self._time_view(viewer, act))
        if match is not None:
            self._window("Graph", (column, TIME_HEIGHT), (PANEL_WIDTH, GRAPH_HEIGHT),
                         lambda: self._graph(viewer, act))
            events_at = TIME_HEIGHT + GRAPH_HEIGHT
            self._window("Events", (column, events_at), (PANEL_WIDTH, max(120, H - events_at)),
                         lambda: self._events(viewer))
        strip_y = frame_rect[1] + h + 4
        strip_h = max(120, H - strip_y)
        self._window("Frame time", (0, strip_y), (max(200, column - 2 * ShadowView.SIDE - 24), strip_h),
                     lambda: self._frame_time())
        self._window("Shadow map", (max(200, column - 2 * ShadowView.SIDE - 24), strip_y),
                     (2 * ShadowView.SIDE + 24, strip_h), lambda: self._shadows(viewer))
        if match is not None and self.state.skeleton:
            self._skeleton(viewer, frame_rect, act)

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
        world = viewer.world
        imgui.text(f"step {viewer.steps}   t {world.time:7.3f} s   "
                   f"{'PAUSED' if viewer.paused else 'running'}")
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
            b = match.battlers[s.side]
            if b is not None:
                role, playhead, _ = b.state()
                duration = b.rts.clip(role).duration
                value = s.scrub[s.side] if s.scrub[s.side] is not None else playhead
                imgui.begin_disabled(not viewer.paused)
                imgui.set_next_item_width(260)
                changed, value = imgui.slider_float(f"{role} playhead##scrub", float(value), 0.0,
                                                    float(max(duration, 1e-6)), "%.3f s")
                imgui.end_disabled()
                if changed and act and viewer.paused:
                    s.scrub[s.side] = value
                    viewer.views_changed()
                if s.scrub[s.side] is not None:
                    imgui.same_line()
                    if imgui.small_button("back") and act:
                        s.scrub[s.side] = None
                        viewer.views_changed()
        imgui.separator_text("view (while the debugger is open)")
        toggles = (("shadows", "shadows"), ("seams", "seams"), ("hit flash", "flash"),
                   ("post", "post"))
        if match is not None:
            toggles = (("anchoring", "anchor"), ("interpolation", "interpolate")) + toggles + \
                (("skeleton", "skeleton"), ("all bone names", "names"))
        else:
            imgui.text_disabled("the show has no graphs: the battle's panels are in the battle")
        for k, (label, key) in enumerate(toggles):
            if k % 3:
                imgui.same_line(140.0 * (k % 3) + 8)
            changed, value = imgui.checkbox(label, getattr(s, key))
            if changed and act:
                setattr(s, key, value)
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
        if self.state.picked is not None and match is not None:
            side, bone = self.state.picked
            b = match.battlers[side]
            if b is not None and bone < len(b.species.parents):
                origin = np.asarray(b.rig.pivot)[bone, :, 3]
                imgui.text_colored(imgui.ImVec4(1.0, 0.85, 0.3, 1.0),
                                   f"picked {b.species.name} {bone_name(bone)}  "
                                   f"origin ({origin[0]:.2f}, {origin[1]:.2f}, {origin[2]:.2f})")

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
        role, playhead, _ = b.state()
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
            self._node_rows(b, g, g.node_count - 1, 0)
            imgui.end_table()
        imgui.separator_text("parameters")
        self._parameters(b, act)

    def _node_rows(self, b, g, k: int, depth: int) -> None:
        imgui = self.imgui
        view = b.instance.inspect(k)
        kind = KIND_NAMES.get(view.kind, str(view.kind))
        node = g.nodes[k]
        if view.kind == 1:
            name = f"clip '{g.clip_name(node.data.slot)}'"
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
            imgui.text_colored(colour, f"{view.playhead:.3f}")
        imgui.table_set_column_index(3)
        if view.kind == 11:
            state = ROLES[view.state] if view.state != GRAPH_NONE else "-"
            text = state
            if view.transition != GRAPH_NONE:
                text += f"  t{view.transition} {view.progress:.0%}"
            imgui.text_colored(colour, text)
        for i in g.node_inputs(k):
            self._node_rows(b, g, i, depth + 1)

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
        times = np.array(self.frame_times, np.float32)
        imgui.text(f"last {times[-1]:5.1f} ms   mean {times.mean():5.1f}   max {times.max():5.1f}")
        avail = imgui.get_content_region_avail()
        imgui.plot_lines("##frametime", times, 0, None, 0.0, max(40.0, float(times.max())),
                         imgui.ImVec2(avail.x, max(40.0, avail.y)))

    def _shadows(self, viewer) -> None:
        imgui = self.imgui
        if viewer.renderer.shadow_map is None or not viewer.effective_look().shadows:
            imgui.text_disabled("shadows are off")
            return
        imgui.text("scenery                          creatures")
        side = ShadowView.SIDE
        imgui.image(imgui.ImTextureRef(self.shadow_id), imgui.ImVec2(2 * side, side),
                    imgui.ImVec2(0, 1), imgui.ImVec2(1, 0))

    # ------------------------------------------------------------ skeleton overlay

    def joints(self, viewer, frame_rect):
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

    def _skeleton(self, viewer, frame_rect, act: bool) -> None:
        imgui = self.imgui
        draw = imgui.get_foreground_draw_list()
        mouse = imgui.get_mouse_pos()
        over_ui = imgui.get_io().want_capture_mouse
        nearest, best = None, PICK_RADIUS
        skeletons = self.joints(viewer, frame_rect)
        bone_col = (imgui.IM_COL32(120, 255, 160, 220), imgui.IM_COL32(255, 150, 120, 220))
        for side, points, parents in skeletons:
            col = bone_col[side]
            for b, p in enumerate(parents):
                if p >= 0:
                    draw.add_line(imgui.ImVec2(*points[p]), imgui.ImVec2(*points[b]), col, 1.5)
            for b, pt in enumerate(points):
                draw.add_circle_filled(imgui.ImVec2(*pt), 2.5, imgui.IM_COL32(255, 255, 255, 230))
                d = math.hypot(pt[0] - mouse.x, pt[1] - mouse.y)
                if d < best:
                    nearest, best = (side, b), d
                if self.state.names:
                    draw.add_text(imgui.ImVec2(pt[0] + 4, pt[1] - 6), imgui.IM_COL32(230, 230, 230, 200),
                                  bone_name(b))
        self.hovered = nearest
        if act and nearest is not None and not over_ui and imgui.is_mouse_clicked(0):
            self.state.picked = nearest
        for mark, colour in ((self.hovered, imgui.IM_COL32(255, 255, 255, 255)),
                             (self.state.picked, imgui.IM_COL32(255, 216, 80, 255))):
            if mark is None:
                continue
            side, bone = mark
            for s, points, parents in skeletons:
                if s == side and bone < len(points):
                    pt = points[bone]
                    draw.add_circle(imgui.ImVec2(*pt), 6.0, colour, 0, 2.0)
                    name = f"{viewer.match.battlers[side].species.name} {bone_name(bone)}"
                    draw.add_rect_filled(imgui.ImVec2(pt[0] + 8, pt[1] - 18),
                                         imgui.ImVec2(pt[0] + 14 + 7 * len(name), pt[1] - 3),
                                         imgui.IM_COL32(20, 20, 30, 210))
                    draw.add_text(imgui.ImVec2(pt[0] + 11, pt[1] - 17), colour, name)

    def release(self) -> None:
        imgui = self.imgui
        imgui.set_current_context(self.context)
        self.renderer.release()
        self.shadow_view.release()
        imgui.destroy_context(self.context)
