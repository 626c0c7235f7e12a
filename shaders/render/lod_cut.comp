// One level of the LOD cut (src/render/lod_cut.c, docs/lod.md): each node of this level's frontier
// is dropped (outside the widened frustum or behind the near plane), kept (appended to the cut:
// a leaf, or small enough on screen) or opened (its children appended to the next level's frontier).
// The arithmetic is `precise` and in the order of the CPU reference (lod_cut_reference).
#version 450
#extension GL_GOOGLE_include_directive : require

#include "lod_cut_shared.h"

layout(local_size_x = LC_WORKGROUP) in;

layout(push_constant) uniform Push { sp_lod_cut_push pc; };

layout(std430, binding = LC_BIND_SPHERES) readonly buffer Spheres { vec4 spheres[]; };
layout(std430, binding = LC_BIND_CHILDREN) readonly buffer Children { uint children[]; };
layout(std430, binding = LC_BIND_FRONTIER_IN) readonly buffer FrontierIn { uint frontier_in[]; };
layout(std430, binding = LC_BIND_FRONTIER_OUT) writeonly buffer FrontierOut { uint frontier_out[]; };
layout(std430, binding = LC_BIND_STATE) coherent buffer State { uint state[]; };
layout(std430, binding = LC_BIND_CUT) writeonly buffer Cut { uint cut[]; };

// 0: drop, 1: keep, 2: open
uint classify(uint node) {
  vec4 s = spheres[node];
  float r = s.w;
  precise float x = pc.view[0][0] * s.x + pc.view[1][0] * s.y + pc.view[2][0] * s.z + pc.view[3][0];
  precise float y = pc.view[0][1] * s.x + pc.view[1][1] * s.y + pc.view[2][1] * s.z + pc.view[3][1];
  precise float z = pc.view[0][2] * s.x + pc.view[1][2] * s.y + pc.view[2][2] * s.z + pc.view[3][2];
  float near_z = pc.params.x;
  precise float back = z + r;
  if (back <= near_z) return 0u;
  // the sphere wholly beyond one of the four planes x = +-lim_x z, y = +-lim_y z
  precise float rx = r * pc.frustum.z, ry = r * pc.frustum.w;
  precise float px = pc.frustum.x * z, py = pc.frustum.y * z;
  precise float right = x - px, left = -x - px, down = y - py, up = -y - py;
  if (right > rx || left > rx || down > ry || up > ry) return 0u;
  if (node < pc.leaf_count) return 1u;
  if (z <= near_z) return 2u; // straddles the near plane: too big
  precise float size = pc.params.z * r / z;
  return size <= pc.params.y ? 1u : 2u;
}

void main() {
  uint slot = LC_STATE_LEVEL + 4u * pc.level, next = slot + 4u;
  uint count = min(state[slot + 3u], pc.capacity); // an overflowed level keeps what fitted
  uint stride = gl_NumWorkGroups.x * LC_WORKGROUP;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
    uint node = frontier_in[i];
    uint c = classify(node);
    if (c == 1u) {
      uint at = atomicAdd(state[LC_STATE_CUT_COUNT], 1u);
      if (at < pc.leaf_count) cut[at] = node; // a cut never holds more nodes than the tree has leaves
      else atomicOr(state[LC_STATE_OVERFLOW], 2u);
    } else if (c == 2u) {
      uint packed = children[node - pc.leaf_count];
      uint first = packed >> LC_CHILD_SHIFT, k = packed & LC_CHILD_MASK;
      uint base = atomicAdd(state[next + 3u], k);
      if (base + k > pc.capacity) {
        atomicOr(state[LC_STATE_OVERFLOW], 1u);
        continue;
      }
      for (uint j = 0u; j < k; j++) frontier_out[base + j] = first + j;
      atomicMax(state[next], min((base + k + LC_WORKGROUP - 1u) / LC_WORKGROUP, pc.max_groups));
    }
  }
}
