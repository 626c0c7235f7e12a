// The splat fragment shared by splat.frag and splat_depth.frag: Gaussian falloff with the
// reference rasterizer's cut-offs. Returns the alpha, or discards.
#include "splat_shared.h" // SPLAT_MAX_ALPHA, SPLAT_MIN_ALPHA
layout(location = 0) flat in vec2 in_mean;
layout(location = 1) flat in vec4 in_conic_opacity;
layout(location = 2) flat in vec4 in_color_z; // rgb, view z

float splat_alpha() {
  vec2 d = gl_FragCoord.xy - in_mean; // both in continuous pixel coordinates (centres at +0.5)
  vec3 conic = in_conic_opacity.xyz;
  float power = -0.5 * (conic.x * d.x * d.x + conic.z * d.y * d.y) - conic.y * d.x * d.y;
  if (power > 0.0) discard;
  float alpha = min(SPLAT_MAX_ALPHA, in_conic_opacity.w * exp(power));
  if (alpha < SPLAT_MIN_ALPHA) discard;
  return alpha;
}
