#version 330 core
// Backdrop pass: the diorama as it was drawn once this hour, colour and depth put
// back into the view. Compiled with SHADOWS it also darkens the pixels a creature's
// shadow falls on now.

in vec2 v_uv;

uniform sampler2D u_color;                  // rgb as lit; alpha: sun the scenery let through
uniform sampler2D u_depth;

#ifdef SHADOWS
uniform sampler2DShadow u_shadow_actors;
uniform mat4 u_clip_to_actors;              // the view's clip space -> the actor layer's
uniform vec2 u_texel_actors;                // (1 / size, world units a texel spans)
uniform float u_shadow_floor;

const vec2 TAPS[4] = vec2[](vec2(-0.6, -0.2), vec2(0.2, -0.6), vec2(0.6, 0.2), vec2(-0.2, 0.6));

// How much sun the actor layer lets through to this pixel's surface. The scenery is
// not in that layer, so it cannot shadow itself there: no offset along the normal is
// needed, only a hair of bias.
float actor_light(float depth) {
    // one product: the layer's matrix is affine, so it commutes with the divide
    vec4 clip = u_clip_to_actors * vec4(vec3(v_uv, depth) * 2.0 - 1.0, 1.0);
    vec3 p = clip.xyz / clip.w * 0.5 + 0.5;
    if (p.x <= 0.0 || p.x >= 1.0 || p.y <= 0.0 || p.y >= 1.0 || p.z >= 1.0) {
        return 1.0;
    }
    float lit = 0.0;
    for (int i = 0; i < 4; ++i) {
        lit += texture(u_shadow_actors, vec3(p.xy + TAPS[i] * u_texel_actors.x, p.z - 0.0005));
    }
    return lit * 0.25;
}
#endif

out vec4 frag_color;

void main() {
    vec4 colour = texture(u_color, v_uv);
    float depth = texture(u_depth, v_uv).r;
    gl_FragDepth = depth;
#ifdef SHADOWS
    if (depth < 1.0) {
        float actors = actor_light(depth);
        float scenery = colour.a;
        if (actors < scenery) {
            // the light this pixel was drawn with, swapped for the darker one
            colour.rgb *= mix(u_shadow_floor, 1.0, actors) / mix(u_shadow_floor, 1.0, scenery);
        }
    }
#endif
    frag_color = vec4(colour.rgb, 1.0);
}
