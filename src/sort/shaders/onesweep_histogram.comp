#version 450
// OneSweep sort, step 1: counts the digits of every pass in one read of the keys. Each
// workgroup counts a contiguous chunk into shared histograms and adds them to the global
// ones; it also zeroes its share of the pass-0 partition descriptors. Each counter has HC
// copies, picked by the invocation's index, so that a subgroup whose keys share a digit (equal
// keys, the exponent byte of float depths) does not serialise on one shared-memory word.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "onesweep_shared.h"
layout(constant_id = OS_SPEC_HIST_WORKGROUP) const uint HWG = 256;
layout(constant_id = OS_SPEC_HIST_UNROLL) const uint HU = 8;
layout(constant_id = OS_SPEC_HIST_COPIES) const uint HC = 8;
layout(local_size_x_id = OS_SPEC_HIST_WORKGROUP) in;
layout(std430, binding = SS_BIND_INTERNAL) buffer Internal { uint data[]; };
layout(push_constant) uniform Push { os_push pc; };

shared uint s_hist[OS_MAX_PASSES * OS_RADIX * HC];

void main() {
  uint g = group_index();
  uint groups = data[OS_H_HIST_GROUPS];
  if (g >= groups) return;
  uint t = gl_LocalInvocationID.x;
  uint n = data[OS_H_COUNT];
  uint chunk = data[OS_H_HIST_CHUNK];
  for (uint i = t; i < OS_MAX_PASSES * OS_RADIX * HC; i += HWG) s_hist[i] = 0;

  // Pass 0's descriptors must start at zero; split the words evenly over the workgroups.
  uint words = data[OS_H_TILES] * OS_RADIX;
  uint share = (words + groups - 1) / groups;
  uint zero_end = min(g * share + share, words);
  for (uint i = g * share + t; i < zero_end; i += HWG) data[OS_DESC + i] = 0;
  barrier();

  uint key_mask = pc.key_bits >= 32 ? ~0u : (1u << pc.key_bits) - 1u;
  uint copy = t & (HC - 1u);
  uint begin = g * chunk, end = min(begin + chunk, n);
  for (uint base = begin; base < end; base += HWG * HU) {
    uint k[HU];
    for (uint u = 0; u < HU; u++) {
      uint i = base + u * HWG + t;
      k[u] = 0;
      if (i < end) k[u] = keys_in[i] & key_mask;
    }
    for (uint u = 0; u < HU; u++) {
      if (base + u * HWG + t < end) {
        for (uint p = 0; p < OS_MAX_PASSES; p++)
          if (p < pc.passes) atomicAdd(s_hist[(p * OS_RADIX + ((k[u] >> (8 * p)) & 255u)) * HC + copy], 1u);
      }
    }
  }
  barrier();
  for (uint i = t; i < pc.passes * OS_RADIX; i += HWG) {
    uint c = 0;
    for (uint h = 0; h < HC; h++) c += s_hist[i * HC + h];
    if (c != 0) atomicAdd(data[OS_GLOBAL_HIST + i], c);
  }
}
