#version 450
// After the fused projection (one workgroup): the exclusive prefix sum of the blocks' visible
// counts, in place, so each block knows where its visible splats go; the total is the sort's
// indirect count and the draw's instance count. As the depth-sort stage's depth_scan.comp.
#extension GL_GOOGLE_include_directive : require
#include "splat_shared.h"
layout(local_size_x = SP_PROJECT_WORKGROUP) in;
layout(std430, binding = SP_BIND_BLOCKS) buffer Blocks { uint blocks[]; };
layout(std430, binding = SP_BIND_HEADER) buffer Header { uint header[]; };
layout(std430, binding = SP_BIND_DRAW) writeonly buffer Draw { uint draw[]; };
layout(push_constant) uniform Push { sp_compact_push pc; };

shared uint partial[SP_PROJECT_WORKGROUP];

void main() {
  uint t = gl_LocalInvocationIndex;
  uint n = (pc.count + SP_FUSE_BLOCK - 1) / SP_FUSE_BLOCK;
  uint per = (n + SP_PROJECT_WORKGROUP - 1) / SP_PROJECT_WORKGROUP; // each invocation: a contiguous run
  uint begin = min(t * per, n), end = min(begin + per, n);
  uint sum = 0u;
  for (uint k = begin; k < end; k++) sum += blocks[k];
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
    uint c = blocks[k];
    blocks[k] = run;
    run += c;
  }
  if (t == SP_PROJECT_WORKGROUP - 1) {
    header[SP_H_VISIBLE] = partial[t];
    draw[SP_DRAW_INSTANCES] = partial[t];
  }
}
