#version 330 core
// Voxel3D view pass: texture x per-vertex shade x sun shadow, the hour's tint,
// then the toggles (glass, seams) and the hit flash.
//
// Each toggle is a compile-time variant (SHADOWS, GLASS, SEAMS, ADDITIVE) rather than
// a uniform: on a software rasteriser a branch on a uniform still pays for the work
// inside it, and a creature would pay for the atlas's glass and the grid's seams.

in vec2 v_uv;
in float v_shade;
in vec3 v_local;
in vec3 v_world;

uniform sampler2D u_texture;
uniform float u_flash;          // 0..1 toward flat white: the hit flash

out vec4 frag_color;

#ifdef ADDITIVE

void main() {
    // Flames emit light: no shade, no shadow, no tint; added where they are.
    vec4 texel = texture(u_texture, v_uv);
    vec3 glow = texel.rgb * texel.a;
    frag_color = vec4(mix(glow, vec3(texel.a), u_flash), 1.0);
}

#else

uniform vec3 u_tint;            // the hour
uniform float u_shadow_floor;   // how much light a shadowed surface keeps

#ifdef SHADOWS
uniform sampler2DShadow u_shadow_scenery;   // the diorama, drawn once per sun
uniform sampler2DShadow u_shadow_actors;    // the creatures, every frame
uniform mat4 u_sun_scenery;                 // world -> each layer's clip space
uniform mat4 u_sun_actors;
uniform vec2 u_texel_scenery;               // (1 / size, world units a texel spans)
uniform vec2 u_texel_actors;
uniform vec3 u_sun_dir;                     // unit vector toward the sun

// Four taps of the hardware-filtered comparison, each already a 2x2 bilinear PCF:
// a soft edge about three texels wide.
const vec2 TAPS[4] = vec2[](vec2(-0.6, -0.2), vec2(0.2, -0.6), vec2(0.6, 0.2), vec2(-0.2, 0.6));

// How lit a point is in one layer; outside the layer's window nothing shadows it.
// The point is first moved off its surface along the normal by a texel and a half,
// which keeps a face from shadowing itself at any sun angle (no acne, no bias fiddling).
float layer_light(sampler2DShadow map, mat4 sun, vec2 texel, vec3 normal) {
    vec4 clip = sun * vec4(v_world + normal * (1.5 * texel.y), 1.0);
    vec3 p = clip.xyz / clip.w * 0.5 + 0.5;
    if (p.x <= 0.0 || p.x >= 1.0 || p.y <= 0.0 || p.y >= 1.0 || p.z >= 1.0) {
        return 1.0;
    }
    float lit = 0.0;
    for (int i = 0; i < 4; ++i) {
        lit += texture(map, vec3(p.xy + TAPS[i] * texel.x, p.z - 0.0005));
    }
    return lit * 0.25;
}

float sunlight() {
    vec3 normal = normalize(cross(dFdx(v_world), dFdy(v_world)));
    if (dot(normal, u_sun_dir) <= 0.0) {
        return 0.0;     // turned away from the sun: in its own shade
    }
    return min(layer_light(u_shadow_scenery, u_sun_scenery, u_texel_scenery, normal),
               layer_light(u_shadow_actors, u_sun_actors, u_texel_actors, normal));
}
#endif

#ifdef GLASS
uniform sampler2D u_glass_mask;
uniform vec3 u_glass_tint;      // what glass reflects at this hour
uniform float u_glass_glow;     // and how much it lights up from inside (night)
uniform vec3 u_water_tint;      // the hour's light on water, in place of u_tint
#endif

#ifdef SEAMS
// Distance to the nearest integer plane across the face, in pixels; an axis the
// face lies in has no derivative and draws no line.
float seam() {
    vec3 width = fwidth(v_local);
    vec3 dist = abs(fract(v_local - 0.5) - 0.5) / max(width, vec3(1e-5));
    float nearest = 1e9;
    for (int axis = 0; axis < 3; ++axis) {
        if (width[axis] > 1e-4) {
            nearest = min(nearest, dist[axis]);
        }
    }
    return 1.0 - clamp(nearest - 0.25, 0.0, 1.0);
}
#endif

void main() {
    vec4 texel = texture(u_texture, v_uv);
    if (texel.a < 0.5) {
        discard;
    }
    float light = 1.0;
#ifdef SHADOWS
    light = sunlight();
#endif
    vec3 lit = texel.rgb * v_shade * mix(u_shadow_floor, 1.0, light);
    vec3 rgb = lit * u_tint;
#ifdef GLASS
    // Red: the texel reflects the sky, with glints in diagonal bands.
    // Green: it is lit from inside once the hour turns the lights on.
    // Blue: it is water, which mirrors the sky and keeps its blue when the land warms.
    vec3 mask = texture(u_glass_mask, v_uv).rgb;
    rgb = mix(rgb, lit * u_water_tint, mask.b);
    float sweep = sin(1.3 * (v_world.x - v_world.z)) * 0.5 + 0.5;
    vec3 pane = mix(rgb, u_glass_tint, 0.5) + smoothstep(0.9, 1.0, sweep) * 0.4 * u_tint;
    rgb = mix(rgb, pane, mask.r);
    rgb = mix(rgb, vec3(1.0, 0.86, 0.52), mask.g * u_glass_glow);
#endif
#ifdef SEAMS
    rgb *= 1.0 - 0.3 * seam();
#endif
    // alpha: the sun this surface gets, which the backdrop pass reads back
    frag_color = vec4(mix(rgb, vec3(1.0), u_flash), light);
}

#endif
