#version 450
// Compute raster, pass 2 (one workgroup): the blocks' totals -> their first pair (exclusive
// scan, in place, saturating), the pairs needed and written, the ranges pass's indirect
// dispatch, and the pieces' counters reset.
#include "craster_common.glsl"
layout(local_size_x = SP_PROJECT_WORKGROUP) in;
layout(std430, binding = SP_CR_BLOCKS) buffer Blocks { uint blocks[]; };
layout(std430, binding = SP_CR_STATE) writeonly buffer State { uint state[]; };

shared uint sums[SP_PROJECT_WORKGROUP];

void main() {
  uint t = gl_LocalInvocationIndex;
  uint carry = 0u;
  for (uint base = 0u; base < pc.blocks; base += SP_PROJECT_WORKGROUP) {
    uint i = base + t;
    sums[t] = i < pc.blocks ? blocks[i] : 0u;
    barrier();
    for (uint d = 1u; d < SP_PROJECT_WORKGROUP; d <<= 1) {
      uint add = t >= d ? sums[t - d] : 0u;
      barrier();
      sums[t] = sat_add(sums[t], add);
      barrier();
    }
    if (i < pc.blocks) blocks[i] = sat_add(carry, t > 0u ? sums[t - 1u] : 0u); // exclusive
    carry = sat_add(carry, sums[SP_PROJECT_WORKGROUP - 1u]);
    barrier();
  }
  if (t == 0u) {
    uint pairs = min(carry, pc.capacity);
    uint groups = (pairs + SP_PROJECT_WORKGROUP - 1u) / SP_PROJECT_WORKGROUP;
    uint x = min(groups, pc.max_groups_x);
    state[SP_CR_STATE_NEEDED] = carry;
    state[SP_CR_STATE_PAIRS] = pairs;
    state[SP_CR_STATE_DISPATCH] = x;
    state[SP_CR_STATE_DISPATCH + 1] = x == 0u ? 0u : (groups + x - 1u) / x;
    state[SP_CR_STATE_DISPATCH + 2] = 1u;
    state[SP_CR_STATE_EXTRA] = 0u; // craster_pieces.comp counts the extra pieces here
    state[SP_CR_STATE_EXTRA + 1] = 1u;
    state[SP_CR_STATE_EXTRA + 2] = 1u;
    state[SP_CR_STATE_SLOTS] = 0u;
  }
}
