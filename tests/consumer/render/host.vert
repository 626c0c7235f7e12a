#version 450
// The consumer's own geometry: an opaque rectangle (NDC corners) at one depth, drawn as a
// four-vertex triangle strip with no vertex buffer.
layout(push_constant) uniform Quad {
  vec4 rect;  // x0, y0, x1, y1 in NDC
  vec4 color;
  float depth;
} quad;

void main() {
  vec2 c = vec2((gl_VertexIndex & 1) != 0 ? quad.rect.z : quad.rect.x,
                (gl_VertexIndex & 2) != 0 ? quad.rect.w : quad.rect.y);
  gl_Position = vec4(c, quad.depth, 1.0);
}
