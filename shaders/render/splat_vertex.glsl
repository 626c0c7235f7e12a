// One screen-aligned quad per visible splat, in sorted (back-to-front) order: instance i draws
// the splat whose index is the i-th sorted payload; the quad covers mean +- radius. Included by
// splat.vert and, with SP_MULTIVIEW, by splat_multiview.vert: each view (gl_ViewIndex, an eye)
// draws its eye's records, depth_proj.w (uint bits) records after the first eye's.
#include "splat_shared.h"
layout(std430, binding = SP_BIND_PROJECTED) readonly buffer Projected { uvec4 projected[]; }; // bits, see splat_shared.h
layout(std430, binding = SP_BIND_INDICES) readonly buffer Indices { uint sorted_index[]; };
layout(std430, binding = SP_BIND_DEPTHS) readonly buffer Depths { float depths[]; }; // camera-space z
layout(push_constant) uniform Push { sp_raster_push pc; };

layout(location = 0) flat out vec2 out_mean;
layout(location = 1) flat out vec4 out_conic_opacity;
layout(location = 2) flat out vec4 out_color_z; // rgb, and the centre's view z (weighted depth)

void main() {
  uint i = sorted_index[gl_InstanceIndex];
  uint rec = floatBitsToUint(pc.depth_proj.z) + i;
#ifdef SP_MULTIVIEW
  rec += uint(gl_ViewIndex) * floatBitsToUint(pc.depth_proj.w);
#endif
  vec4 p0 = uintBitsToFloat(projected[2 * rec]);
  uvec4 p1 = projected[2 * rec + 1];
  vec2 rg = unpackHalf2x16(p1.z);
  float radius = float(p1.w >> 16);
  vec2 corner = vec2(float(gl_VertexIndex & 1), float(gl_VertexIndex >> 1)) * 2.0 - 1.0;
  vec2 pixel = p0.xy + corner * radius;
  // the quad at the centre's depth in the host's projection (its depth test; no depth write)
  float z = depths[i];
  gl_Position = vec4(pixel * pc.viewport.zw * 2.0 - 1.0, clamp(pc.depth_proj.x + pc.depth_proj.y / z, 0.0, 1.0), 1.0);
  out_mean = p0.xy;
  out_conic_opacity = vec4(p0.zw, uintBitsToFloat(p1.xy));
  out_color_z = vec4(rg, unpackHalf2x16(p1.w).x, z);
}
