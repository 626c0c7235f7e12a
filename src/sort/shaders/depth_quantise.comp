#version 450
// Depth-sort stage, after the one-pass key pass with key_bits < 32: narrows each visible
// splat's 32-bit key ~bits(w), in place, over the visible depth range the pass left in the
// header (quantise_key): 8 bytes per visible splat.
#extension GL_GOOGLE_include_directive : require
#include "depth_shared.h"
layout(local_size_x = DS_WORKGROUP) in;
layout(std430, binding = DS_BIND_HEADER) readonly buffer Header { uint header[]; };
layout(std430, binding = DS_BIND_KEYS) buffer Keys { uint keys[]; };
layout(push_constant) uniform Push { ds_push pc; };

#define DS_COMMON_QUANTISE_ONLY
#include "depth_common.glsl"

void main() {
  uint i = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * DS_WORKGROUP + gl_LocalInvocationIndex;
  if (i >= header[DS_H_VISIBLE]) return;
  keys[i] = quantise_key(keys[i], uintBitsToFloat(header[DS_H_ZMIN]), uintBitsToFloat(header[DS_H_ZMAX]), pc.key_bits);
}
