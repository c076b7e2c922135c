#version 330 core
// Dear ImGui's draw lists: pixel positions (y down) through an orthographic projection,
// the font atlas (or a registered image) and a per-vertex colour.

in vec2 in_pos;
in vec2 in_uv;
in vec4 in_col;

uniform mat4 u_projection;

out vec2 v_uv;
out vec4 v_col;

void main() {
    v_uv = in_uv;
    v_col = in_col;
    gl_Position = u_projection * vec4(in_pos, 0.0, 1.0);
}
