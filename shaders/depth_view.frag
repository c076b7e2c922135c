#version 330 core
// A shadow layer's depth for a person to look at: near the sun dark, far light, with
// the stretch that makes a creature's few texels of depth difference visible.

in vec2 v_uv;

uniform sampler2D u_depth;
uniform float u_gamma;

out vec4 frag_color;

void main() {
    float d = texture(u_depth, v_uv).r;
    float g = pow(clamp(d, 0.0, 1.0), u_gamma);
    frag_color = d >= 1.0 ? vec4(0.16, 0.2, 0.32, 1.0) : vec4(g, g, g, 1.0);
}
