#version 330 core
// Voxel3D view pass: one vertex of the diorama or of a skinned rig, in the shared
// x y z u v shade format.

in vec3 position;
in vec2 texcoord;
in float shade;

uniform mat4 u_model;
uniform mat4 u_view_proj;
uniform vec3 u_eye;
uniform float u_pull;    // world units toward the camera, view pass only

out vec2 v_uv;
out float v_shade;
out vec3 v_local;        // model space, where the seams' integer planes live
out vec3 v_world;        // the true position: shadows are looked up from it

void main() {
    vec4 world = u_model * vec4(position, 1.0);
    v_uv = texcoord;
    v_shade = shade;
    v_local = position;
    // Only the depth is pulled; the shadow lookup keeps the true position, or the
    // shadow would be dragged off the body that casts it.
    v_world = world.xyz;
    // Moving a point along its own view ray changes its depth and nothing else on
    // screen, so a pulled model wins depth ties with the tile it stands on without
    // shifting by a pixel.
    vec3 toward = u_eye - world.xyz;
    float reach = length(toward);
    vec3 pulled = world.xyz + toward * (min(u_pull, 0.5 * reach) / max(reach, 1e-6));
    gl_Position = u_view_proj * vec4(pulled, 1.0);
}
