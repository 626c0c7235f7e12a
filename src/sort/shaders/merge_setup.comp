#version 450
// Odd-even merge sort, indirect counts: reads and clamps the count and writes every indirect
// dispatch (merge levels the count does not reach get none).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "merge_shared.h"
layout(local_size_x = 1) in;
layout(std430, binding = SS_BIND_INTERNAL) buffer Internal { uint data[]; };
layout(push_constant) uniform Push { merge_push pc; };

void main() {
  uint n = min(count_buf[pc.count_index], pc.max_count);
  uint tile = 1u << pc.tile_log;
  uint pairs = (n / 2u + MERGE_WORKGROUP - 1u) / MERGE_WORKGROUP;
  data[MERGE_H_COUNT] = n;
  WRITE_DISPATCH(data, MERGE_H_DISPATCH + 4u * MERGE_E_TILES, (n + tile - 1u) / tile, pc.max_groups_x);
  uint gather = n > tile && pc.keys_only == 0u ? (n + MERGE_WORKGROUP - 1u) / MERGE_WORKGROUP : 0u;
  WRITE_DISPATCH(data, MERGE_H_DISPATCH + 4u * MERGE_E_GATHER, gather, pc.max_groups_x);
  for (uint i = 0u; i < pc.merges; i++) {
    // runs of tile << i keys: merged only where a second run exists
    bool needed = pc.tile_log + i < 31u && n > (tile << i);
    WRITE_DISPATCH(data, MERGE_H_DISPATCH + 4u * (MERGE_E_MERGE + i), needed ? pairs : 0u, pc.max_groups_x);
  }
}
