#version 450
// After fuse_scan.comp, one workgroup per block: each visible splat's key (quantised to
// key_bits over the visible range, as the depth-sort stage does) and frame slot at its block's
// first place plus its rank in the block. The sort's input is then in slot order, whatever
// order the projection's workgroups ran in, and the stable sort leaves equal keys in slot
// order, as the stage and the CPU reference do.
#extension GL_GOOGLE_include_directive : require
#include "splat_shared.h"
#include "depth_shared.h"
layout(local_size_x = SP_PROJECT_WORKGROUP) in;
layout(std430, binding = SP_BIND_KEYS) readonly buffer Keys { uint keys[]; };
layout(std430, binding = SP_BIND_BLOCKS) readonly buffer Blocks { uint blocks[]; };
layout(std430, binding = SP_BIND_HEADER) readonly buffer Header { uint header[]; };
layout(std430, binding = SP_BIND_SORT_KEYS) writeonly buffer SortKeys { uint sort_keys[]; };
layout(std430, binding = SP_BIND_SORT_VALUES) writeonly buffer SortValues { uint sort_values[]; };
layout(push_constant) uniform Push { sp_compact_push pc; };
#define DS_COMMON_QUANTISE_ONLY
#include "depth_common.glsl"

// The block staged through shared memory so that global reads and writes are coalesced: the
// keys read row by row, each invocation's run of SP_FUSE_ITEMS consecutive slots counted and
// ranked, the visible ones gathered in slot order, then written out row by row. (Each
// invocation reading and writing its run in place made every access a separate 32-byte
// sector: 0.414 ms for the 6M frame's scan, compaction and sort on the H200, against 0.358 for
// the stage's key pass and sort.)
shared uint s_key[SP_FUSE_BLOCK];  // the block's keys, then its visible keys in slot order
shared uint s_slot[SP_FUSE_BLOCK]; // the visible keys' slots
shared uint rank[SP_PROJECT_WORKGROUP];

void main() {
  uint t = gl_LocalInvocationIndex;
  uint block = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  uint base = block * SP_FUSE_BLOCK;
  for (uint j = 0u; j < SP_FUSE_ITEMS; j++) {
    uint k = j * SP_PROJECT_WORKGROUP + t;
    s_key[k] = base + k < pc.count ? keys[base + k] : DS_CULLED;
  }
  barrier();
  uint key[SP_FUSE_ITEMS], mine = 0u;
  for (uint j = 0u; j < SP_FUSE_ITEMS; j++) {
    key[j] = s_key[t * SP_FUSE_ITEMS + j];
    mine += key[j] != DS_CULLED ? 1u : 0u;
  }
  rank[t] = mine;
  barrier();
  for (uint offset = 1u; offset < SP_PROJECT_WORKGROUP; offset <<= 1) { // inclusive scan of the runs
    uint v = t >= offset ? rank[t - offset] : 0u;
    barrier();
    rank[t] += v;
    barrier();
  }
  uint at = rank[t] - mine, total = rank[SP_PROJECT_WORKGROUP - 1u];
  for (uint j = 0u; j < SP_FUSE_ITEMS; j++) // s_key's reads above were before the scan's barriers
    if (key[j] != DS_CULLED) {
      s_key[at] = key[j];
      s_slot[at] = base + t * SP_FUSE_ITEMS + j;
      at++;
    }
  barrier();
  float zmin = uintBitsToFloat(header[SP_H_ZMIN]), zmax = uintBitsToFloat(header[SP_H_ZMAX]);
  uint first = blocks[block];
  for (uint k = t; k < total; k += SP_PROJECT_WORKGROUP) {
    uint q = s_key[k];
    sort_keys[first + k] = pc.key_bits < 32u ? quantise_key(q, zmin, zmax, pc.key_bits) : q;
    sort_values[first + k] = s_slot[k];
  }
}
