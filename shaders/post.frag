#version 330 core
// Post pass: a tilt-shift band and a depth of field, both read as a blur radius
// per pixel, so the diorama looks like a miniature while the creatures stay sharp.

in vec2 v_uv;

uniform sampler2D u_color;
uniform sampler2D u_depth;
uniform vec2 u_texel;           // 1 / frame size
uniform float u_pixel;          // frame pixels per 160 x 144 pixel
uniform float u_near;
uniform float u_far;
uniform vec2 u_focus_range;     // view distances kept sharp (the two battle cells)
uniform vec2 u_focus_band;      // v range kept sharp by the tilt-shift
uniform float u_max_blur;       // in 160 x 144 pixels

out vec4 frag_color;

const vec2 RING[8] = vec2[](
    vec2(1.0, 0.0), vec2(0.707, 0.707), vec2(0.0, 1.0), vec2(-0.707, 0.707),
    vec2(-1.0, 0.0), vec2(-0.707, -0.707), vec2(0.0, -1.0), vec2(0.707, -0.707));

float view_distance(float depth) {
    float z = depth * 2.0 - 1.0;
    return 2.0 * u_near * u_far / (u_far + u_near - z * (u_far - u_near));
}

void main() {
    vec3 centre = texture(u_color, v_uv).rgb;
    float depth = texture(u_depth, v_uv).r;
    float dist = view_distance(depth);
    // Depth of field: zero inside the focus range, growing with relative distance
    // outside it; the sky (depth 1) counts as far.
    float outside = max(u_focus_range.x - dist, dist - u_focus_range.y);
    float dof = depth >= 1.0 ? 1.0 : clamp(outside / u_focus_range.y * 2.5, 0.0, 1.0);
    // Tilt-shift: zero inside the band, growing toward the top and bottom edges.
    float tilt = max(u_focus_band.x - v_uv.y, v_uv.y - u_focus_band.y);
    tilt = clamp(tilt / 0.3, 0.0, 1.0);
    float radius = u_max_blur * u_pixel * max(dof, tilt);
    if (radius < 0.2 * u_pixel) {
        frag_color = vec4(centre, 1.0);
        return;
    }
    vec3 sum = centre;
    float weight = 1.0;
    for (int i = 0; i < 8; ++i) {
        vec2 at = v_uv + RING[i] * radius * u_texel;
        // A sharp, nearer neighbour must not bleed over a blurred background.
        float near_weight = view_distance(texture(u_depth, at).r) < dist - 0.5 ? 0.25 : 1.0;
        sum += texture(u_color, at).rgb * near_weight;
        weight += near_weight;
    }
    frag_color = vec4(sum / weight, 1.0);
}
