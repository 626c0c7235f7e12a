#version 450
// OneSweep sort: reads the element count (direct or from the caller's buffer), clamps it,
// writes the tile count and the indirect dispatches of the histogram and pass kernels, and
// zeroes the global digit counts and the per-pass tile counters.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "onesweep_shared.h"
layout(local_size_x = 256) in;
layout(std430, binding = SS_BIND_INTERNAL) buffer Internal { uint data[]; };
layout(push_constant) uniform Push { os_push pc; };

void main() {
  uint t = gl_LocalInvocationID.x;
  for (uint i = t; i < OS_MAX_PASSES * OS_RADIX; i += 256) data[OS_GLOBAL_HIST + i] = 0;
  if (t < OS_MAX_PASSES) data[OS_H_TILE_COUNTER + t] = 0;
  if (t != 0) return;
  data[OS_H_STAT_STEPS] = 0;
  data[OS_H_STAT_FALLBACKS] = 0;
  uint n = pc.indirect != 0 ? min(count_buf[pc.count_index], pc.max_count) : min(pc.count, pc.max_count);
  uint tiles = (n + pc.tile - 1) / pc.tile;
  // Enough histogram workgroups to fill the device, each reading a contiguous chunk.
  uint groups = min((n + pc.hist_min_keys - 1) / pc.hist_min_keys, pc.hist_max_groups);
  uint chunk = groups == 0 ? 0 : (n + groups - 1) / groups;
  chunk = (chunk + pc.hist_workgroup - 1) / pc.hist_workgroup * pc.hist_workgroup;
  groups = chunk == 0 ? 0 : (n + chunk - 1) / chunk;
  data[OS_H_COUNT] = n;
  data[OS_H_TILES] = tiles;
  data[OS_H_HIST_GROUPS] = groups;
  data[OS_H_HIST_CHUNK] = chunk;
  WRITE_DISPATCH(data, OS_H_DISPATCH_HIST, groups, pc.max_groups_x);
  WRITE_DISPATCH(data, OS_H_DISPATCH_TILES, tiles, pc.max_groups_x);
}
