#version 450
// Depth-sort stage, step 2 (one workgroup): the exclusive prefix sum of the key pass's
// per-workgroup visible counts, in place; the total is the sort's count and, where the host
// asked, its draw's instance (or vertex) count.
#extension GL_GOOGLE_include_directive : require
#include "depth_shared.h"
layout(local_size_x = DS_WORKGROUP) in;
layout(std430, binding = DS_BIND_HEADER) buffer Header { uint header[]; };
layout(std430, binding = DS_BIND_GROUPS) buffer Groups { uint group_offsets[]; };
layout(std430, binding = DS_BIND_DRAW) writeonly buffer Draw { uint draw[]; };
layout(push_constant) uniform Push { ds_push pc; };

shared uint partial[DS_WORKGROUP];

void main() {
  uint t = gl_LocalInvocationIndex;
  uint groups = (pc.max_count + DS_WORKGROUP - 1) / DS_WORKGROUP;
  uint per = (groups + DS_WORKGROUP - 1) / DS_WORKGROUP; // each thread: a contiguous run
  uint begin = min(t * per, groups), end = min(begin + per, groups);
  uint sum = 0u;
  for (uint k = begin; k < end; k++) sum += group_offsets[k];
  partial[t] = sum;
  barrier();
  for (uint offset = 1u; offset < DS_WORKGROUP; offset <<= 1) {
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
  if (t == DS_WORKGROUP - 1) {
    header[DS_H_VISIBLE] = partial[t];
    if ((pc.flags & DS_FLAG_DRAW) != 0) draw[pc.draw_index] = partial[t];
  }
}
