"""A moderngl renderer for Dear ImGui's draw data, for a window and a headless context
alike (no PyOpenGL, no window of its own).

ImGui (imgui-bundle, with ``renderer_has_textures`` set) hands its textures over as
data: the font atlas arrives with status WantCreate, later growth as WantUpdates, and
this creates or rewrites moderngl textures for them and tells ImGui their ids. Other
images (the shadow map view) are registered here under an id of their own and drawn
with ``imgui.image(imgui.ImTextureRef(id), size)``.
"""
from __future__ import annotations

import ctypes

import moderngl
import numpy as np

from ...paths import SHADERS


class ImGuiRenderer:
    def __init__(self, gfx):
        from imgui_bundle import imgui

        self.imgui = imgui
        self.gfx = gfx
        ctx = gfx.ctx
        self.program = gfx.new_shader(SHADERS / "imgui.vert", SHADERS / "imgui.frag")
        self.program["u_texture"].value = 0
        self._vbo = ctx.buffer(reserve=1 << 16, dynamic=True)
        self._ibo = ctx.buffer(reserve=1 << 16, dynamic=True)
        self._vao = self._make_vao()
        self.textures: dict[int, moderngl.Texture] = {}
        self._owned: set[int] = set()
        self._next_id = 1
        io = imgui.get_io()
        io.backend_flags |= imgui.BackendFlags_.renderer_has_textures.value
        platform = imgui.get_platform_io()
        platform.renderer_texture_max_width = platform.renderer_texture_max_height = 4096

    def _make_vao(self):
        return self.gfx.ctx.vertex_array(
            self.program, [(self._vbo, "2f 2f 4f1", "in_pos", "in_uv", "in_col")],
            index_buffer=self._ibo, index_element_size=self.imgui.INDEX_SIZE)

    # ------------------------------------------------------------ textures

    def register(self, texture: moderngl.Texture) -> int:
        """An id ImGui can draw `texture` by (the caller keeps owning it)."""
        key = self._next_id
        self._next_id += 1
        self.textures[key] = texture
        return key

    def replace(self, key: int, texture: moderngl.Texture) -> None:
        self.textures[key] = texture

    def _update_textures(self) -> None:
        imgui = self.imgui
        for tex in imgui.get_platform_io().textures:
            status = tex.status
            if status == imgui.ImTextureStatus.ok or status == imgui.ImTextureStatus.destroyed:
                continue
            if status == imgui.ImTextureStatus.want_create:
                pixels = np.ascontiguousarray(tex.get_pixels_array(), np.uint8)
                texture = self.gfx.ctx.texture((tex.width, tex.height), 4, pixels.tobytes())
                texture.filter = (moderngl.LINEAR, moderngl.LINEAR)
                texture.repeat_x = texture.repeat_y = False
                key = self.register(texture)
                self._owned.add(key)
                tex.set_tex_id(key)
                tex.status = imgui.ImTextureStatus.ok
            elif status == imgui.ImTextureStatus.want_updates:
                texture = self.textures[tex.tex_id]
                whole = np.asarray(tex.get_pixels_array(), np.uint8).reshape(tex.height, tex.width, 4)
                for r in tex.updates:
                    block = np.ascontiguousarray(whole[r.y:r.y + r.h, r.x:r.x + r.w])
                    texture.write(block.tobytes(), viewport=(r.x, r.y, r.w, r.h))
                tex.status = imgui.ImTextureStatus.ok
            elif status == imgui.ImTextureStatus.want_destroy:
                key = tex.tex_id
                texture = self.textures.pop(key, None)
                if texture is not None and key in self._owned:
                    texture.release()
                    self._owned.discard(key)
                tex.set_tex_id(0)
                tex.status = imgui.ImTextureStatus.destroyed

    # ------------------------------------------------------------ drawing

    def render(self, draw_data) -> None:
        """Draw the frame's lists onto the current target (the whole screen)."""
        imgui = self.imgui
        self._update_textures()
        ctx = self.gfx.ctx
        width, height = draw_data.display_size
        scale = draw_data.framebuffer_scale
        fb_w, fb_h = int(width * scale[0]), int(height * scale[1])
        if fb_w <= 0 or fb_h <= 0:
            return
        x0, y0 = draw_data.display_pos
        left, right, top, bottom = x0, x0 + width, y0, y0 + height
        projection = np.array([
            [2.0 / (right - left), 0.0, 0.0, 0.0],
            [0.0, 2.0 / (top - bottom), 0.0, 0.0],
            [0.0, 0.0, -1.0, 0.0],
            [(right + left) / (left - right), (top + bottom) / (bottom - top), 0.0, 1.0],
        ], np.float32)
        self.program["u_projection"].write(projection.tobytes())
        ctx.enable_only(moderngl.BLEND)
        ctx.blend_func = (moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA,
                          moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA)
        ctx.blend_equation = moderngl.FUNC_ADD
        previous = ctx.fbo.viewport
        ctx.fbo.viewport = (0, 0, fb_w, fb_h)
        try:
            for commands in draw_data.cmd_lists:
                vcount, icount = commands.vtx_buffer.size(), commands.idx_buffer.size()
                if not vcount or not icount:
                    continue
                vbytes = vcount * imgui.VERTEX_SIZE
                ibytes = icount * imgui.INDEX_SIZE
                if vbytes > self._vbo.size or ibytes > self._ibo.size:
                    self._grow(vbytes, ibytes)
                self._vbo.write(ctypes.string_at(commands.vtx_buffer.data_address(), vbytes))
                self._ibo.write(ctypes.string_at(commands.idx_buffer.data_address(), ibytes))
                for command in commands.cmd_buffer:
                    cx0, cy0, cx1, cy1 = command.clip_rect
                    cx0, cy0 = (cx0 - x0) * scale[0], (cy0 - y0) * scale[1]
                    cx1, cy1 = (cx1 - x0) * scale[0], (cy1 - y0) * scale[1]
                    if cx1 <= cx0 or cy1 <= cy0:
                        continue
                    texture = self.textures.get(command.tex_ref.get_tex_id())
                    if texture is None:
                        continue
                    texture.use(0)
                    ctx.scissor = (int(cx0), int(fb_h - cy1), int(cx1 - cx0), int(cy1 - cy0))
                    # 32-bit indices: without renderer_has_vtx_offset ImGui keeps every
                    # command's vtx_offset 0
                    self._vao.render(moderngl.TRIANGLES, vertices=command.elem_count,
                                     first=command.idx_offset)
        finally:
            ctx.scissor = None
            ctx.fbo.viewport = previous
            ctx.disable(moderngl.BLEND)

    def _grow(self, vbytes: int, ibytes: int) -> None:
        self._vao.release()
        if vbytes > self._vbo.size:
            self._vbo.release()
            self._vbo = self.gfx.ctx.buffer(reserve=max(vbytes, 2 * self._vbo.size), dynamic=True)
        if ibytes > self._ibo.size:
            self._ibo.release()
            self._ibo = self.gfx.ctx.buffer(reserve=max(ibytes, 2 * self._ibo.size), dynamic=True)
        self._vao = self._make_vao()

    def release(self) -> None:
        for key in list(self._owned):
            self.textures.pop(key).release()
        self._owned.clear()
        self._vao.release()
        self._vbo.release()
        self._ibo.release()
        self.program.release()
