#version 450
// The reference grid: GRID_LINES lines along each axis of the plane, from gl_VertexIndex alone.
#extension GL_GOOGLE_include_directive : require
#include "grid_shared.h"
layout(push_constant) uniform Push { grid_push pc; };

void main() {
  uint line = uint(gl_VertexIndex) / 2u, end = uint(gl_VertexIndex) % 2u;
  float t = float(line % GRID_LINES) / float(GRID_LINES - 1) * 2.0 - 1.0;
  float s = end == 0u ? -1.0 : 1.0;
  vec3 p = line < GRID_LINES ? pc.origin.xyz + t * pc.u.xyz + s * pc.v.xyz
                             : pc.origin.xyz + s * pc.u.xyz + t * pc.v.xyz;
  gl_Position = pc.view_proj * vec4(p, 1.0);
}
