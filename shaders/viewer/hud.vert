#version 450
// HUD text and panels: stb_easy_font quads in text units, mapped to the framebuffer.
#include "hud_shared.h"

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec4 in_color;
layout(location = 0) out vec4 out_color;
layout(push_constant) uniform Push { hud_push pc; };

void main() {
  gl_Position = vec4(in_position.xy * pc.transform.xy + pc.transform.zw, 0.0, 1.0);
  out_color = in_color;
}
