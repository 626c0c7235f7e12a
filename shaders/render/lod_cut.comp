// One level of the LOD cut (src/render/lod_cut.c, docs/lod.md): each node of this level's frontier
// is dropped (outside the widened frustum or behind the near plane), kept (appended to the cut:
// small enough on screen) or opened (its children appended to the next level's frontier, or,
// leaves, to the cut: the projection culls a leaf outside the view).
// The arithmetic is `precise` and in the order of the CPU reference (lod_cut_reference). Appends
// take one global atomic per workgroup (a shared count first), not one per node: at 100M splats a
// cut keeps millions of nodes. With pc.level == LC_LEVEL_CONTROL it is instead the budget's step:
// one invocation sets the next frame's threshold from this frame's count.
#version 450
#extension GL_GOOGLE_include_directive : require

#include "lod_cut_shared.h"

layout(local_size_x = LC_WORKGROUP) in;

layout(push_constant) uniform Push { sp_lod_cut_push pc; };

layout(std430, binding = LC_BIND_SPHERES) readonly buffer Spheres { vec4 spheres[]; }; // interior nodes
layout(std430, binding = LC_BIND_CHILDREN) readonly buffer Children { uvec2 children[]; }; // packed, radius
layout(std430, binding = LC_BIND_FRONTIER_IN) readonly buffer FrontierIn { uint frontier_in[]; };
layout(std430, binding = LC_BIND_FRONTIER_OUT) writeonly buffer FrontierOut { uint frontier_out[]; };
layout(std430, binding = LC_BIND_STATE) coherent buffer State { uint state[]; };
layout(std430, binding = LC_BIND_CUT) writeonly buffer Cut { uint cut[]; };
layout(std430, binding = LC_BIND_PAGES) readonly buffer Pages { uint pages[]; };
layout(std430, binding = LC_BIND_REQUESTS) buffer Requests { uint requests[]; };
layout(std430, binding = LC_BIND_STAMPS) buffer Stamps { uint stamps[]; }; // a stale read costs an atomic, no more

// Whether the pages of leaves [first, first + k) are resident: stamped as drawn if so, asked for
// if not, once a cut: a missing page's stamp is the cut that asked for it (the first node to
// swap it in appends it; a resident page's is the cut that drew it).
bool leaves_resident(uint first, uint k) {
  uint p0 = first / LC_PAGE_LEAVES, p1 = (first + k - 1u) / LC_PAGE_LEAVES;
  bool in0 = pages[p0] != LC_PAGE_NONE, in1 = pages[p1] != LC_PAGE_NONE;
  if (in0 && in1) {
    stamps[p0] = pc.frame;
    stamps[p1] = pc.frame;
    return true;
  }
  // a plain read first: millions of nodes may miss one page, an atomic each would serialise them
  if (!in0 && stamps[p0] != pc.frame && atomicExchange(stamps[p0], pc.frame) != pc.frame) {
    uint at = atomicAdd(requests[0], 1u);
    if (at < pc.request_capacity) requests[1u + at] = p0;
  }
  if (!in1 && p1 != p0 && stamps[p1] != pc.frame && atomicExchange(stamps[p1], pc.frame) != pc.frame) {
    uint at = atomicAdd(requests[0], 1u);
    if (at < pc.request_capacity) requests[1u + at] = p1;
  }
  return false;
}

// 0: drop, 1: keep, 2: open, 3: open and keep fading (a node opened at a size within the blend
// band above tau: it stays in the cut, fading out over its children, docs/lod.md)
uint classify(uint node, float tau, float band) {
  vec4 s = spheres[node - pc.leaf_count]; // frontiers hold interior nodes only; w: the error
  precise float r = uintBitsToFloat(children[node - pc.leaf_count].y) * pc.params.w;
  precise float e = s.w; // the error times sqrt(r) (lod_cut.h)
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
  precise float size = e * sqrt(pc.params.z * pc.params.w / z);
  return size <= tau ? 1u : band > 0.0 && size <= tau * (1.0 + band) ? 3u : 2u;
}

void control() {
  if (gl_LocalInvocationIndex != 0u) return;
  uint n = min(state[LC_STATE_CUT_COUNT], pc.cut_capacity);
  uint groups = (n + LC_PROJECT_WORKGROUP - 1u) / LC_PROJECT_WORKGROUP, x = min(groups, pc.max_groups);
  state[LC_STATE_PROJECT] = x;
  state[LC_STATE_PROJECT + 1u] = x == 0u ? 1u : (groups + x - 1u) / x;
  state[LC_STATE_PROJECT + 2u] = 1u;
  if (pc.budget == 0u) return;
  float tau = uintBitsToFloat(state[LC_STATE_TAU]), prev_tau = uintBitsToFloat(state[LC_STATE_PREV_TAU]);
  float kept = float(state[LC_STATE_CUT_COUNT]), prev = float(state[LC_STATE_PREV_COUNT]);
  float budget = float(max(pc.budget, 1u)), next = tau;
  if (kept > 0.0 && (kept > budget || (kept < LC_BUDGET_LOW * budget && state[LC_STATE_INTERIOR] != 0u))) {
    float slope = LC_SLOPE_DEFAULT, dt = log(tau / prev_tau);
    if (prev_tau > 0.0 && prev > 0.0 && abs(dt) > 1e-3 && kept != prev)
      slope = clamp(log(kept / prev) / dt, LC_SLOPE_MIN, LC_SLOPE_MAX);
    float step = clamp((log(LC_BUDGET_AIM * budget) - log(kept)) / slope, -log(LC_BUDGET_STEP), log(LC_BUDGET_STEP));
    next = clamp(tau * exp(step), LC_TAU_MIN, LC_TAU_MAX);
  }
  state[LC_STATE_PREV_TAU] = floatBitsToUint(tau);
  state[LC_STATE_PREV_COUNT] = state[LC_STATE_CUT_COUNT];
  state[LC_STATE_TAU_NEXT] = floatBitsToUint(next);
}

shared uint s_keep, s_interior, s_open, s_keep_base, s_open_base;

void main() {
  if (pc.level == LC_LEVEL_CONTROL) {
    control();
    return;
  }
  uint slot = LC_STATE_LEVEL + 4u * pc.level, next = slot + 4u;
  uint count = min(state[slot + 3u], pc.capacity); // an overflowed level keeps what fitted
  float tau = uintBitsToFloat(state[LC_STATE_TAU]), band = uintBitsToFloat(state[LC_STATE_BLEND]);
  uint stride = gl_NumWorkGroups.x * LC_WORKGROUP;
  // every invocation of a workgroup loops the same number of times: the barriers are uniform
  for (uint at = gl_WorkGroupID.x * LC_WORKGROUP; at < count; at += stride) {
    uint i = at + gl_LocalInvocationIndex;
    if (gl_LocalInvocationIndex == 0u) s_keep = s_interior = s_open = 0u;
    barrier();
    // a node writes n_keep cut entries (itself; or, opened, itself fading and its children when
    // they are leaves: a leaf is always kept, so leaves never enter a frontier and their parent
    // writes them together, in order) and n_open frontier entries (its interior children)
    uint node = 0u, c = 0u, k = 0u, first = 0u, n_keep = 0u, n_open = 0u, mine_keep = 0u, mine_open = 0u;
    if (i < count) {
      uint entry = frontier_in[i];
      node = entry & ~LC_FADING_BIT;
      c = classify(node, tau, band);
      // under a parent drawn fading (the bit on its frontier entry) a node stays whole: it fades in
      // as its parent fades out, and opens (fading itself, in the band) once the parent has gone
      if (c == 3u && entry != node) c = 1u;
      if (c == 1u) {
        n_keep = 1u;
        if (node >= pc.leaf_count) atomicAdd(s_interior, 1u);
      } else if (c >= 2u) {
        uint packed = children[node - pc.leaf_count].x;
        first = packed >> LC_CHILD_SHIFT;
        k = packed & LC_CHILD_MASK;
        if (first < pc.leaf_count && !leaves_resident(first, k)) {
          c = 1u; // its leaves are not resident: drawn at its own level meanwhile
          n_keep = 1u;
          atomicAdd(s_interior, 1u);
        } else {
          n_keep = (c == 3u ? 1u : 0u) + (first < pc.leaf_count ? k : 0u);
          n_open = first < pc.leaf_count ? 0u : k;
        }
      }
      if (n_keep != 0u) mine_keep = atomicAdd(s_keep, n_keep);
      if (n_open != 0u) mine_open = atomicAdd(s_open, n_open);
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
      s_keep_base = s_keep != 0u ? atomicAdd(state[LC_STATE_CUT_COUNT], s_keep) : 0u;
      if (s_interior != 0u) atomicAdd(state[LC_STATE_INTERIOR], s_interior);
      s_open_base = s_open != 0u ? atomicAdd(state[next + 3u], s_open) : 0u;
      if (s_open != 0u) {
        uint end = min(s_open_base + s_open, pc.capacity);
        atomicMax(state[next], min((end + LC_WORKGROUP - 1u) / LC_WORKGROUP, pc.max_groups));
      }
    }
    barrier();
    if (n_keep != 0u) {
      uint to = s_keep_base + mine_keep;
      if (c == 1u || c == 3u) {
        if (to < pc.cut_capacity) cut[to] = c == 1u ? node : node | LC_FADING_BIT;
        to++;
      }
      if (c >= 2u && first < pc.leaf_count)
        for (uint j = 0u; j < k && to + j < pc.cut_capacity; j++) cut[to + j] = first + j;
      if (s_keep_base + mine_keep + n_keep > pc.cut_capacity) atomicOr(state[LC_STATE_OVERFLOW], 2u);
    }
    if (n_open != 0u) {
      uint base = s_open_base + mine_open;
      // a frontier too small keeps the children that fit: every id the next level reads is one
      if (base + k > pc.capacity) atomicOr(state[LC_STATE_OVERFLOW], 1u);
      uint under = c == 3u ? LC_FADING_BIT : 0u;
      for (uint j = 0u; j < k && base + j < pc.capacity; j++) frontier_out[base + j] = (first + j) | under;
    }
  }
}
