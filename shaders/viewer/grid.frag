#version 450
// Opaque grey lines.
layout(location = 0) out vec4 out_color;
void main() { out_color = vec4(0.55, 0.55, 0.55, 1.0); }
