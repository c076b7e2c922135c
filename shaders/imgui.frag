#version 330 core
// ImGui's vertex colour times its texture (the font atlas, or a registered image).

in vec2 v_uv;
in vec4 v_col;

uniform sampler2D u_texture;

out vec4 frag_color;

void main() {
    frag_color = v_col * texture(u_texture, v_uv);
}
