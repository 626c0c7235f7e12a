#version 450
layout(push_constant) uniform Quad {
  vec4 rect;
  vec4 color;
  float depth;
} quad;
layout(location = 0) out vec4 out_color;

void main() { out_color = quad.color; }
