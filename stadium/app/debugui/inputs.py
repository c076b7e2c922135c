"""pygame's events as Dear ImGui's input (mouse, wheel, keys and text)."""
from __future__ import annotations


class ImGuiInput:
    def __init__(self):
        import pygame
        from imgui_bundle import imgui

        self.pygame = pygame
        self.imgui = imgui
        K, k = pygame, imgui.Key
        self.keys = {
            K.K_LEFT: k.left_arrow, K.K_RIGHT: k.right_arrow, K.K_UP: k.up_arrow,
            K.K_DOWN: k.down_arrow, K.K_PAGEUP: k.page_up, K.K_PAGEDOWN: k.page_down,
            K.K_HOME: k.home, K.K_END: k.end, K.K_INSERT: k.insert, K.K_DELETE: k.delete,
            K.K_BACKSPACE: k.backspace, K.K_RETURN: k.enter, K.K_ESCAPE: k.escape,
            K.K_KP_ENTER: k.keypad_enter, K.K_TAB: k.tab, K.K_SPACE: k.space,
            K.K_LCTRL: k.left_ctrl, K.K_RCTRL: k.right_ctrl, K.K_LALT: k.left_alt,
            K.K_RALT: k.right_alt, K.K_LSHIFT: k.left_shift, K.K_RSHIFT: k.right_shift,
            K.K_a: k.a, K.K_c: k.c, K.K_v: k.v, K.K_x: k.x, K.K_y: k.y, K.K_z: k.z,
        }
        self.modifiers = {
            K.K_LCTRL: k.mod_ctrl, K.K_RCTRL: k.mod_ctrl, K.K_LSHIFT: k.mod_shift,
            K.K_RSHIFT: k.mod_shift, K.K_LALT: k.mod_alt, K.K_RALT: k.mod_alt,
        }
        self.buttons = {1: 0, 3: 1, 2: 2}

    def feed(self, event) -> None:
        """Pass one pygame event on to ImGui's io."""
        pg, io = self.pygame, self.imgui.get_io()
        if event.type == pg.MOUSEMOTION:
            io.add_mouse_pos_event(float(event.pos[0]), float(event.pos[1]))
        elif event.type in (pg.MOUSEBUTTONDOWN, pg.MOUSEBUTTONUP):
            button = self.buttons.get(event.button)
            if button is not None:
                io.add_mouse_pos_event(float(event.pos[0]), float(event.pos[1]))
                io.add_mouse_button_event(button, event.type == pg.MOUSEBUTTONDOWN)
        elif event.type == pg.MOUSEWHEEL:
            io.add_mouse_wheel_event(float(event.x) * 0.5, float(event.y) * 0.5)
        elif event.type in (pg.KEYDOWN, pg.KEYUP):
            down = event.type == pg.KEYDOWN
            if event.key in self.keys:
                io.add_key_event(self.keys[event.key], down)
            if event.key in self.modifiers:
                io.add_key_event(self.modifiers[event.key], down)
            if down:
                for char in event.unicode or "":
                    if 32 <= ord(char) < 0x10000 and ord(char) != 127:
                        io.add_input_character(ord(char))
        elif event.type == getattr(pg, "WINDOWLEAVE", -1):
            io.add_mouse_pos_event(-3.4e38, -3.4e38)
