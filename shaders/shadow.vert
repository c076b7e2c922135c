#version 330 core
// Shadow depth pass: the same posed vertices as the view pass, seen from the sun,
// with no depth pull (that trick belongs to the camera's depth buffer alone).

in vec3 position;
in vec2 texcoord;

uniform mat4 u_model;
uniform mat4 u_sun;

out vec2 v_uv;

void main() {
    v_uv = texcoord;
    gl_Position = u_sun * u_model * vec4(position, 1.0);
}
