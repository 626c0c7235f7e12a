#version 450
// Odd-even merge sort, step 2: one stage of a merge across tiles, in place on the sorted keys
// (the key output buffer) and their input positions: comparators (a, a + k) within runs of
// 2p keys. Batcher's later stages pair keys across any tile boundary, so each stage is its
// own dispatch.
#extension GL_GOOGLE_include_directive : require
#include "sort_bindings.h"
#include "merge_common.glsl"
layout(local_size_x = MERGE_WORKGROUP) in;
layout(std430, binding = SS_BIND_KEYS_OUT) buffer Keys { uint keys[]; };
layout(std430, binding = SS_BIND_INTERNAL) buffer Internal { uint data[]; };
layout(push_constant) uniform Push { merge_push pc; };

void main() {
  uint n = merge_count(pc, data[MERGE_H_COUNT]);
  uint s = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * MERGE_WORKGROUP + gl_LocalInvocationID.x;
  uint k = 1u << pc.stride_log;
  uint first = pc.stride_log == pc.run_log ? 0u : k;
  uint a = first + ((s >> pc.stride_log) << (pc.stride_log + 1u)) + (s & (k - 1u)), b = a + k;
  if (s >= n / 2u || b >= n || (a >> (pc.run_log + 1u)) != (b >> (pc.run_log + 1u))) return;
  uint ka = keys[a], kb = keys[b];
  uint ma = ka & pc.mask, mb = kb & pc.mask;
  if (ma < mb) return; // most comparators of a stage: no position read
  uint ia = data[MERGE_H_WORDS + a], ib = data[MERGE_H_WORDS + b];
  if (!merge_after(ka, ia, kb, ib, pc.mask)) return;
  keys[a] = kb, keys[b] = ka;
  data[MERGE_H_WORDS + a] = ib, data[MERGE_H_WORDS + b] = ia;
}
