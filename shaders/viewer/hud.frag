#version 450
// Straight alpha: the pipeline blends SRC_ALPHA, ONE_MINUS_SRC_ALPHA over the scene.
layout(location = 0) in vec4 in_color;
layout(location = 0) out vec4 out_color;

void main() { out_color = in_color; }
