#version 450
// Compute raster, pass 6 (after the ranges; one thread a tile): a tile of more than pc.piece
// pairs is cut into pieces of pc.piece pairs (splat_shared.h, SP_CR_PIECES): it takes a partial
// slot a piece and lists its pieces after the first for the blend's second dispatch. At most
// 2 capacity / piece slots and capacity / piece extra pieces are ever taken (a split tile of
// L > piece pairs has ceil(L / piece) < 2 L / piece pieces), which is what craster.c makes.
#include "craster_common.glsl"
layout(local_size_x = SP_PROJECT_WORKGROUP) in;
layout(std430, binding = SP_CR_STATE) buffer State { uint state[]; };
layout(std430, binding = SP_CR_RANGES) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = SP_CR_PIECES) writeonly buffer Pieces { uvec4 pieces[]; };
layout(std430, binding = SP_CR_EXTRAS) writeonly buffer Extras { uvec2 extras[]; };

void main() {
  uint tile = gl_GlobalInvocationID.x;
  if (tile >= pc.tiles_x * pc.tiles_y) return;
  uvec2 r = ranges[tile];
  uint len = r.y - r.x, n = len > pc.piece ? (len + pc.piece - 1u) / pc.piece : 1u, slot = 0u;
  if (n > 1u) {
    slot = atomicAdd(state[SP_CR_STATE_SLOTS], n);
    uint first = atomicAdd(state[SP_CR_STATE_EXTRA], n - 1u);
    for (uint k = 1u; k < n; k++) extras[first + k - 1u] = uvec2(tile, k);
  }
  pieces[tile] = uvec4(slot, n, 0u, 0xFFFFFFFFu); // w: the first piece where every pixel stopped
}
