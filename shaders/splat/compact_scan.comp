#version 450
// Ordered compaction, step 2 (one workgroup): the exclusive prefix sum of the projection
// workgroups' visible counts, in place, and the total into the draw's instanceCount (which is
// also the sort's indirect count).
#extension GL_GOOGLE_include_directive : require
#include "splat_shared.h"
layout(local_size_x = SP_PROJECT_WORKGROUP) in;
layout(std430, binding = SP_BIND_DRAW) buffer Draw { uint draw[]; };
layout(std430, binding = SP_BIND_GROUP_OFFSETS) buffer GroupOffsets { uint group_offsets[]; };
layout(push_constant) uniform Push { sp_project_push pc; };

shared uint partial[SP_PROJECT_WORKGROUP];

void main() {
  uint t = gl_LocalInvocationIndex;
  uint groups = (pc.count + SP_PROJECT_WORKGROUP - 1) / SP_PROJECT_WORKGROUP;
  // each thread owns a contiguous run of groups
  uint per = (groups + SP_PROJECT_WORKGROUP - 1) / SP_PROJECT_WORKGROUP;
  uint begin = min(t * per, groups), end = min(begin + per, groups);
  uint sum = 0u;
  for (uint k = begin; k < end; k++) sum += group_offsets[k];
  partial[t] = sum;
  barrier();
  for (uint offset = 1u; offset < SP_PROJECT_WORKGROUP; offset <<= 1) {
    uint v = t >= offset ? partial[t - offset] : 0u;
    barrier();
    partial[t] += v;
    barrier();
  }
  uint run = partial[t] - sum;
  for (uint k = begin; k < end; k++) {
    uint c = group_offsets[k];
    group_offsets[k] = run;
    run += c;
  }
  if (t == SP_PROJECT_WORKGROUP - 1) draw[SP_DRAW_INSTANCES] = partial[t];
}
