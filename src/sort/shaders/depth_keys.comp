#version 450
// Depth-sort stage, step 1: per splat, clip = view_proj * centre; culled when w <= near,
// outside |x|,|y| <= margin * w, or (optionally) nearly transparent. A visible splat's key is
// ~bits(w): w > 0 orders like its bits, so ascending keys are back to front. Also each
// workgroup's visible count (for the ordered compaction) and the visible depth range (for
// quantised keys).
#extension GL_GOOGLE_include_directive : require
#include "depth_shared.h"
layout(local_size_x = DS_WORKGROUP) in;
layout(std430, binding = DS_BIND_CENTERS) readonly buffer Centers { uint centers[]; };
layout(std430, binding = DS_BIND_COUNT) readonly buffer CountBuf { uint count_buf[]; };
layout(std430, binding = DS_BIND_HEADER) buffer Header { uint header[]; };
layout(std430, binding = DS_BIND_DEPTH) writeonly buffer Depth { uint depth_keys[]; };
layout(std430, binding = DS_BIND_GROUPS) writeonly buffer Groups { uint group_counts[]; };
layout(push_constant) uniform Push { ds_push pc; };

shared uint wg_visible, wg_zmin, wg_zmax;

#include "depth_common.glsl"

void main() {
  uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  uint i = group * DS_WORKGROUP + gl_LocalInvocationIndex;
  uint n = splat_count();
  if (gl_LocalInvocationIndex == 0) {
    wg_visible = 0u;
    wg_zmin = 0x7F7FFFFFu;
    wg_zmax = 0u;
  }
  barrier();
  float w = i < n ? visible_w(i) : 0.0;
  if (i < pc.max_count) depth_keys[i] = w > 0.0 ? ds_depth_key(w) : DS_CULLED;
  if (w > 0.0) {
    atomicAdd(wg_visible, 1u);
    if (pc.key_bits < 32) {
      atomicMin(wg_zmin, floatBitsToUint(w));
      atomicMax(wg_zmax, floatBitsToUint(w));
    }
  }
  barrier();
  if (gl_LocalInvocationIndex == 0) {
    if (group * DS_WORKGROUP < pc.max_count) group_counts[group] = wg_visible;
    if (pc.key_bits < 32 && wg_visible != 0u) {
      atomicMin(header[DS_H_ZMIN], wg_zmin);
      atomicMax(header[DS_H_ZMAX], wg_zmax);
    }
  }
}
