#version 330 core
// Shadow depth pass: depth only; cut-out texels cast no shadow.

in vec2 v_uv;

uniform sampler2D u_texture;

void main() {
    if (texture(u_texture, v_uv).a < 0.5) {
        discard;
    }
}
