#version 450
// Premultiplied colour for the back-to-front "over" blend (ONE, ONE_MINUS_SRC_ALPHA).
#extension GL_GOOGLE_include_directive : require
#include "splat_fragment.glsl"
layout(location = 0) out vec4 out_color;

void main() {
  float alpha = splat_alpha();
  out_color = vec4(in_color_z.rgb * alpha, alpha);
}
