#version 450
// splat.frag plus a second output blended the same way: (view z * alpha, 0, 0, alpha), whose
// red over alpha is the transmittance-weighted depth of the splats at the pixel.
#extension GL_GOOGLE_include_directive : require
#include "splat_fragment.glsl"
layout(location = 0) out vec4 out_color;
layout(location = 1) out vec4 out_depth;

void main() {
  float alpha = splat_alpha();
  out_color = vec4(in_color_z.rgb * alpha, alpha);
  out_depth = vec4(in_color_z.w * alpha, 0.0, 0.0, alpha);
}
