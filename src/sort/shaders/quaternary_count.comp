#version 450
// Quaternary sort, step (a): digit counts of one 512-element chunk, written digit-major
// (counts[d * chunks + chunk]) so one exclusive scan of the list gives every chunk's
// global offset per digit.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "quaternary_shared.h"
#include "scan512.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = SS_BIND_INTERNAL) buffer Internal { uint data[]; };
layout(push_constant) uniform Push { quaternary_push pc; };

void main() {
  uint chunk = group_index();
  uint chunks = data[QUATERNARY_H_CHUNKS];
  if (chunk >= chunks) return;
  uint n = data[QUATERNARY_H_COUNT];
  uint t = gl_LocalInvocationID.x;
  uint base = chunk * QUATERNARY_CHUNK;
  uint i0 = base + t, i1 = base + t + 256;
  uint a = i0 < n ? digit_bit((keys_in[i0] >> pc.shift) & pc.mask) : 0;
  uint b = i1 < n ? digit_bit((keys_in[i1] >> pc.shift) & pc.mask) : 0;
  uint total = scan512(a, b);
  if (t < 4) {
    uint valid = min(n - base, QUATERNARY_CHUNK);
    uint c0 = digit_field(total, 0), c1 = digit_field(total, 1), c2 = digit_field(total, 2);
    uint c = t == 0 ? c0 : t == 1 ? c1 : t == 2 ? c2 : valid - c0 - c1 - c2;
    data[QUATERNARY_H_WORDS + t * chunks + chunk] = c;
  }
}
