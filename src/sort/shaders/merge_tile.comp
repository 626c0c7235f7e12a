#version 450
// Odd-even merge sort, step 1: each workgroup sorts one tile of keys completely in shared
// memory with Batcher's network. When one tile holds every key this is the whole sort and the
// payloads are gathered here; otherwise the sorted keys and their input positions go on to
// the merge stages.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "merge_common.glsl"
layout(constant_id = 0) const uint TILE_LOG = 11;
const uint TILE = 1u << TILE_LOG;
// Up to 1,024 invocations (as the device allows): a count within one tile is sorted by this
// one workgroup alone, and its 78 network stages are its latency.
layout(local_size_x_id = 1) in;
const uint WG = gl_WorkGroupSize.x;
layout(std430, binding = SS_BIND_INTERNAL) buffer Internal { uint data[]; };
layout(push_constant) uniform Push { merge_push pc; };

shared uint s_key[TILE];
shared uint s_pos[TILE];

void main() {
  uint n = merge_count(pc, data[MERGE_H_COUNT]);
  uint base = group_index() * TILE;
  if (base >= n) return; // a whole workgroup past the end of a dispatch split over y
  uint len = min(TILE, n - base);
  uint lid = gl_LocalInvocationID.x;
  for (uint e = lid; e < len; e += WG) {
    s_key[e] = keys_in[base + e];
    s_pos[e] = base + e;
  }
  // Comparators (a, a + k) whose second element is past the end are left out: it acts as an
  // infinite key that no comparator would move.
  // Shifts, not divisions: the stages are the kernel's time, and a tile sorted alone runs on
  // one multiprocessor, bound by its instruction rate.
  for (uint plog = 0u; (1u << plog) < len; plog++) {
    for (uint klog = plog + 1u; klog-- > 0u;) {
      memoryBarrierShared();
      barrier();
      uint k = 1u << klog;
      uint first = klog == plog ? 0u : k; // the first stage of a merge starts at 0, later ones at k
      for (uint s = lid; s < TILE / 2u; s += WG) {
        uint a = first + ((s >> klog) << (klog + 1u)) + (s & (k - 1u)), b = a + k;
        if (b >= len || (a >> (plog + 1u)) != (b >> (plog + 1u))) continue;
        uint ka = s_key[a], kb = s_key[b], ia = s_pos[a], ib = s_pos[b];
        if (merge_after(ka, ia, kb, ib, pc.mask)) {
          s_key[a] = kb, s_key[b] = ka;
          s_pos[a] = ib, s_pos[b] = ia;
        }
      }
    }
  }
  memoryBarrierShared();
  barrier();
  bool whole = n <= TILE;
  for (uint e = lid; e < len; e += WG) {
    keys_out[base + e] = s_key[e];
    if (!whole)
      data[MERGE_H_WORDS + base + e] = s_pos[e];
    else if (pc.keys_only == 0u)
      values_out[base + e] = values_in[s_pos[e]];
  }
}
