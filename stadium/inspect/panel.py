"""The inspector's debugger panel on Dear ImGui (imgui-bundle, through the viewer's ImGui
renderer and pygame input, stadium.app.debugui): the clip to play, play/loop, a time slider
to scrub, the overlay's toggles, the spring and ragdoll switches, and a slider for every
morph weight. A slider moved holds its weight over the clip's; "clip weights" lets go.

Without imgui-bundle the window still runs, on its keys alone (`available()` says)."""
from __future__ import annotations

PANEL_WIDTH = 260.0             # screen pixels at layout scale 1
WEIGHT_RANGE = (-1.0, 2.0)      # the sliders' span: glTF weights are 0..1, past it is allowed


def available() -> bool:
    from ..app import debugui
    return debugui.available()


class Panel:
    """ImGui's context, renderer and input for one inspector window."""

    def __init__(self, gfx):
        from imgui_bundle import imgui

        from ..app.debugui.inputs import ImGuiInput
        from ..app.debugui.renderer import ImGuiRenderer
        self.imgui = imgui
        self.context = imgui.create_context()
        imgui.set_current_context(self.context)
        io = imgui.get_io()
        io.set_ini_filename("")
        io.set_log_filename("")
        imgui.style_colors_dark()
        self.renderer = ImGuiRenderer(gfx)
        self.input = ImGuiInput()
        self.frames = 0

    def feed(self, event) -> None:
        self.imgui.set_current_context(self.context)
        self.input.feed(event)

    @property
    def wants_mouse(self) -> bool:
        self.imgui.set_current_context(self.context)
        return self.imgui.get_io().want_capture_mouse

    @property
    def wants_keyboard(self) -> bool:
        self.imgui.set_current_context(self.context)
        return self.imgui.get_io().want_capture_keyboard

    def draw(self, gfx, inspector) -> None:
        """This frame's panel from (and into) the inspector, drawn over the screen."""
        imgui = self.imgui
        imgui.set_current_context(self.context)
        io = imgui.get_io()
        io.display_size = (float(gfx.width), float(gfx.height))
        io.delta_time = 1.0 / 60.0
        gfx.screen.use()
        # headless there is no next frame to lay the window out in: lay out twice
        for _ in range(2 if self.frames == 0 or not gfx.window else 1):
            imgui.new_frame()
            self._panel(gfx, inspector)
            imgui.render()
        gfx.screen.use()
        self.renderer.render(imgui.get_draw_data())
        self.frames += 1

    def _panel(self, gfx, ins) -> None:
        imgui = self.imgui
        imgui.set_next_window_pos((gfx.width - PANEL_WIDTH - 8.0, 8.0), imgui.Cond_.always)
        imgui.set_next_window_size((PANEL_WIDTH, 0.0), imgui.Cond_.always)
        imgui.set_next_window_bg_alpha(0.8)
        imgui.begin("inspect", None, imgui.WindowFlags_.no_collapse)
        names = [name for name, _ in ins.clips]
        changed, k = imgui.combo("clip", ins.clip_index, names)
        if changed:
            ins.pick(k)
        _, ins.playing = imgui.checkbox("play", ins.playing)
        imgui.same_line()
        _, ins.loop = imgui.checkbox("loop", ins.loop)
        if ins.duration > 0:
            changed, t = imgui.slider_float("time", ins.time, 0.0, ins.duration, "%.2f s")
            if changed:
                ins.playing, ins.time = False, t
        _, ins.bones = imgui.checkbox("bones", ins.bones)
        imgui.same_line()
        _, ins.names = imgui.checkbox("names", ins.names)
        figure = ins.figure
        if figure.asset.springs is not None:
            changed, on = imgui.checkbox("spring bones", figure.springs_on)
            if changed:
                ins.toggle_springs()
        if figure.asset.ragdoll is not None:
            _, ins.bodies = imgui.checkbox("bodies", ins.bodies)
            if ins.drop_available:
                imgui.same_line()
                if imgui.button("stand up" if ins.dropped else "drop ragdoll"):
                    ins.toggle_drop()
        weights = figure.asset.weights
        if weights:
            imgui.separator()
            imgui.text("morph weights")
            for k, w in enumerate(weights):
                held = k in figure.overrides
                changed, v = imgui.slider_float(("* " if held else "") + w.name + f"##w{k}",
                                                float(figure.weights[k]), *WEIGHT_RANGE, "%.3f")
                if changed:
                    figure.overrides[k] = v
            if figure.overrides and imgui.button("clip weights"):
                figure.overrides.clear()
        imgui.end()

    def release(self) -> None:
        self.renderer.release()
        self.imgui.destroy_context(self.context)
