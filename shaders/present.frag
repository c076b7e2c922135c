#version 330 core
// Present pass: the finished frame, sampled nearest, into whatever viewport the
// caller set (a whole-number multiple of 160 x 144, letterboxed).

in vec2 v_uv;

uniform sampler2D u_image;

out vec4 frag_color;

void main() {
    frag_color = texture(u_image, v_uv);
}
