#version 450
// Quaternary sort, step (c): recomputes each element's rank among the chunk's elements of
// the same digit (stable: earlier elements first) and writes key and payload to
// scanned_counts[digit][chunk] + rank.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "quaternary_shared.h"
#include "scan512.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = SS_BIND_INTERNAL) readonly buffer Internal { uint data[]; };
layout(push_constant) uniform Push { quaternary_push pc; };

void scatter(uint i, uint key, uint d, uint prefix, uint local, uint chunk, uint chunks) {
  uint rank = d < 3 ? digit_field(prefix, d)
                    : local - digit_field(prefix, 0) - digit_field(prefix, 1) - digit_field(prefix, 2);
  uint pos = data[QUATERNARY_H_WORDS + d * chunks + chunk] + rank;
  keys_out[pos] = key;
  if (pc.keys_only == 0) values_out[pos] = values_in[i];
}

void main() {
  uint chunk = group_index();
  uint chunks = data[QUATERNARY_H_CHUNKS];
  if (chunk >= chunks) return;
  uint n = data[QUATERNARY_H_COUNT];
  uint t = gl_LocalInvocationID.x;
  uint base = chunk * QUATERNARY_CHUNK;
  uint i0 = base + t, i1 = base + t + 256;
  uint k0 = i0 < n ? keys_in[i0] : 0, k1 = i1 < n ? keys_in[i1] : 0;
  uint d0 = (k0 >> pc.shift) & pc.mask, d1 = (k1 >> pc.shift) & pc.mask;
  uint a = i0 < n ? digit_bit(d0) : 0;
  uint b = i1 < n ? digit_bit(d1) : 0;
  scan512(a, b);
  if (i0 < n) scatter(i0, k0, d0, a, t, chunk, chunks);
  if (i1 < n) scatter(i1, k1, d1, b, t + 256, chunk, chunks);
}
