// Compute raster, pass 7: one workgroup per 16x16 tile (or per piece of a crowded tile:
// splat_shared.h, SP_CR_PIECES), one invocation per pixel, blending the tile's list front to back with the reference rasterizer's rules (tests/refrender.c): the
// quad's footprint, alpha = min(SPLAT_MAX_ALPHA, opacity * exp(power)), skip below
// SPLAT_MIN_ALPHA, stop a pixel before its transmittance would fall below SPLAT_T_EPSILON. Records are staged through
// shared memory a workgroup's worth at a time; the tile stops when every pixel has.
// Included by craster_blend.comp (into the renderer's image buffer, over the background) and
// by craster_blend_host_<format>.comp, which define SP_CR_HOST_FORMAT (the host's colour
// image's format qualifier): splats whose centre lies behind the host's depth at a pixel are
// skipped there, and the result is composited over the host's colour in place.
// With SP_CR_PER_PIXEL (craster_blend_pp*.comp: SPLAT_ORDER_PER_PIXEL) each pixel orders its
// splats by their depth along its own ray (craster_common.glsl's ray_depth) instead of the global
// order, in two levels (after StopThePop, Radl et al. 2024): the tile's list comes sorted by the
// splats' depths at the tile (the pair keys, craster_emit.comp), and every pixel passes its
// contributions through a window of WINDOW slots kept in depth order, blending whichever is
// nearest when a new one arrives on a full window (so a splat arriving after a farther one was
// blended is blended late: the window's overflow); the window is emptied, nearest first, after
// the list's end. tests/refrender.c (REFRENDER_ORDER_WINDOW) does exactly this on the CPU.
#ifdef SP_CR_PER_PIXEL
#extension GL_EXT_control_flow_attributes : require
#endif
#include "craster_common.glsl"
layout(local_size_x = SP_TILE, local_size_y = SP_TILE) in;
layout(std430, binding = SP_CR_VALUES) readonly buffer Values { uint values[]; };
layout(std430, binding = SP_CR_RANGES) readonly buffer Ranges { uvec2 ranges[]; };
// crowded tiles' pieces (splat_shared.h): coherent, the last piece reads the others' partials
layout(std430, binding = SP_CR_PIECES) coherent buffer Pieces { uvec4 pieces[]; };
layout(std430, binding = SP_CR_EXTRAS) readonly buffer Extras { uvec2 extras[]; };
layout(std430, binding = SP_CR_PARTIALS) coherent buffer Partials { vec4 partials[]; };
#ifdef SP_CR_HOST_FORMAT
layout(std430, binding = SP_CR_DEPTHS) readonly buffer Depths { float depths[]; }; // camera-space z
layout(binding = SP_CR_HOST_COLOR, SP_CR_HOST_FORMAT) uniform image2D host_color;
layout(binding = SP_CR_HOST_DEPTH) uniform texture2D host_depth;
#else
layout(std430, binding = SP_CR_IMAGE) writeonly buffer Image { uvec2 image[]; };
#endif

const uint N = SP_TILE * SP_TILE;
// The footprint square is staged as its bounds (computed once per record, not per pixel), so a
// pixel outside it costs one shared-memory load and four compares; the rest is loaded only
// inside. (Measured on the H200 at 6M splats, 1080p: 0.815 ms against 0.881 with the square
// recomputed per pixel from (mean, radius), and 0.918 with (mean, radius, opacity) in one vec4.)
shared vec4 s_box[N];          // mean.x - r, mean.x + r, mean.y - r, mean.y + r
shared vec4 s_mean_conic[N];   // mean.xy, conic.xy
shared vec2 s_conic_op[N];     // conic.z, opacity
#ifdef SP_CR_HOST_FORMAT
shared float s_depth[N];       // depth in the host's projection
#endif
#ifndef SP_CR_PER_PIXEL
shared vec3 s_color[N];
#endif
shared uint s_done; // after the list: 1 where this workgroup finished its tile's last piece

#ifdef SP_CR_PER_PIXEL
layout(constant_id = 0) const uint WINDOW = SP_CR_WINDOW_DEFAULT; // slots of a pixel's window
layout(std430, binding = SP_CR_RAYS) readonly buffer Rays { vec4 rays[]; }; // project.comp's write_ray
shared vec4 s_ray0[N], s_ray1[N]; // the staged splats' ray-depth coefficients
shared uvec2 s_halves[N]; // their colours as the record's halves: (r, g), (b, 0)

// A depth as a key ordered like the floats (NaNs at the ends); 0 is kept for an empty slot
// (refrender_ordkey).
uint depth_key(float z) {
  uint b = floatBitsToUint(z);
  return max((b & 0x80000000u) != 0u ? ~b : b | 0x80000000u, 1u);
}

// The stop rule of the reference: true when this splat would take T below SPLAT_T_EPSILON
// (it and everything after it are not blended). The window holds a splat's colour and alpha
// as halves, (r, g), (b, alpha): three registers a slot with its key, not five; the colour is
// the record's own halves, the alpha rounded to a half (relative error 2^-11).
bool blend_one(inout vec3 C, inout float T, uvec2 packed) {
  vec2 ba = unpackHalf2x16(packed.y);
  float test_T = T * (1.0 - ba.y);
  if (test_T < SPLAT_T_EPSILON) return true;
  C += vec3(unpackHalf2x16(packed.x), ba.x) * (ba.y * T);
  T = test_T;
  return false;
}
#endif

void main() {
  // the first piece of tile (x, y) of the dispatch over tiles, or an extra piece (k >= 1)
  uint tile = gl_WorkGroupID.y * pc.tiles_x + gl_WorkGroupID.x, k = 0u;
  if ((pc.flags & SP_CR_FLAG_EXTRA) != 0u) {
    uvec2 e = extras[linear_group()];
    tile = e.x;
    k = e.y;
  }
  uvec4 piece = pieces[tile]; // first partial slot, pieces
  uvec2 pix = uvec2(tile % pc.tiles_x, tile / pc.tiles_x) * SP_TILE + gl_LocalInvocationID.xy;
  bool inside = pix.x < pc.width && pix.y < pc.height;
  vec2 f = vec2(pix) + 0.5;
  uvec2 range = ranges[tile];
  if (piece.y > 1u) {
    range.x += k * pc.piece;
    range.y = min(range.y, range.x + pc.piece);
  }
  uint t = gl_LocalInvocationIndex;
  bool done = !inside;
  float T = 1.0;
  vec3 C = vec3(0.0);
#ifdef SP_CR_HOST_FORMAT
  float host_z = inside ? texelFetch(host_depth, ivec2(pix), 0).r : 0.0;
  bool reverse_z = (pc.flags & SP_CR_FLAG_REVERSE_Z) != 0u;
#endif
#ifdef SP_CR_PER_PIXEL
  vec2 uv = ray_of(f);
  uint wkey[WINDOW];
  uvec2 wcol[WINDOW]; // colour and alpha as halves (blend_one)
  [[unroll]] for (uint i = 0u; i < WINDOW; i++) wkey[i] = 0u, wcol[i] = uvec2(0u);
#endif
  for (uint base = range.x; base < range.y; base += N) {
    if (t == 0u) {
      s_done = 0u;
      // a split tile: an earlier piece where every pixel stopped makes this one (and the rest)
      // unused by the composite: quit (its partial is never read)
      if (piece.y > 1u && k > 0u && pieces[tile].w < k) s_done = N;
    }
    barrier();
    if (done) atomicAdd(s_done, 1u);
    barrier();
    if (s_done >= N) {
      // every pixel stopped in this piece: the pieces after it need not run
      if (t == 0u && piece.y > 1u && s_done == N) atomicMin(pieces[tile].w, k);
      break;
    }
    if (base + t < range.y) {
      uint rec = values[base + t];
      uvec4 p0 = projected[2 * rec], p1 = projected[2 * rec + 1];
      float depth = 0.0;
#ifdef SP_CR_HOST_FORMAT
      // the quad depth the graphics host pass gives this splat (splat.vert)
      float z = depths[rec - pc.rec_offset];
      depth = clamp(pc.depth_proj.x + pc.depth_proj.y / z, 0.0, 1.0);
#endif
      vec2 m = uintBitsToFloat(p0.xy);
      float r = float(p1.w >> 16);
      s_box[t] = vec4(m.x - r, m.x + r, m.y - r, m.y + r);
      s_mean_conic[t] = uintBitsToFloat(p0);
      s_conic_op[t] = uintBitsToFloat(p1.xy);
#ifdef SP_CR_HOST_FORMAT
      s_depth[t] = depth;
#endif
#ifndef SP_CR_PER_PIXEL
      s_color[t] = vec3(unpackHalf2x16(p1.z), unpackHalf2x16(p1.w).x);
#endif
#ifdef SP_CR_PER_PIXEL
      s_ray0[t] = rays[2 * rec];
      s_ray1[t] = rays[2 * rec + 1];
      s_halves[t] = uvec2(p1.z, p1.w & 0xFFFFu);
#endif
    }
    barrier();
    uint n = min(N, range.y - base);
    for (uint k = 0u; k < n && !done; k++) {
      vec4 box = s_box[k];
      if (!(f.x >= box.x && f.x < box.y && f.y >= box.z && f.y < box.w)) continue;
      vec4 mc = s_mean_conic[k];
      vec2 co = s_conic_op[k];
#ifdef SP_CR_HOST_FORMAT
      // the graphics host pass's depth test: LESS_OR_EQUAL, GREATER_OR_EQUAL with reverse-Z
      if (reverse_z ? !(s_depth[k] >= host_z) : !(s_depth[k] <= host_z)) continue;
#endif
      vec2 d = f - mc.xy;
      float power = -0.5 * (mc.z * d.x * d.x + co.x * d.y * d.y) - mc.w * d.x * d.y;
      if (power > 0.0) continue;
      float alpha = min(SPLAT_MAX_ALPHA, co.y * exp(power));
      if (alpha < SPLAT_MIN_ALPHA) continue;
#ifdef SP_CR_PER_PIXEL
      // into the window (descending keys, slot 0 the farthest; ties: the earlier one nearer);
      // what comes out is the nearest of the window and the new splat
      uint ck = depth_key(ray_depth(s_ray0[k], s_ray1[k], uv));
      uvec2 cc = s_halves[k];
      cc.y |= packHalf2x16(vec2(0.0, alpha)) & 0xFFFF0000u;
      [[unroll]] for (uint i = 0u; i < WINDOW; i++) {
        if (ck >= wkey[i]) {
          uint tk = wkey[i];
          uvec2 tc = wcol[i];
          wkey[i] = ck, wcol[i] = cc;
          ck = tk, cc = tc;
        }
      }
      if (ck != 0u && blend_one(C, T, cc)) {
        done = true;
        break;
      }
#else
      float test_T = T * (1.0 - alpha);
      if (test_T < SPLAT_T_EPSILON) {
        done = true;
        break;
      }
      C += s_color[k] * (alpha * T);
      T = test_T;
#endif
    }
  }
#ifdef SP_CR_PER_PIXEL
  // the window's splats, nearest first
  [[unroll]] for (int i = int(WINDOW) - 1; i >= 0; i--)
    if (!done && wkey[i] != 0u) done = blend_one(C, T, wcol[i]);
#endif
  if (piece.y > 1u) {
    // a piece of a crowded tile: its partial, then the last piece to finish composites them
    partials[(piece.x + k) * N + t] = vec4(C, done && inside ? -T : T);
    memoryBarrierBuffer();
    barrier();
    // s_done, read last before the barrier above, says whether this was the tile's last piece
    if (t == 0u) s_done = atomicAdd(pieces[tile].z, 1u) == piece.y - 1u ? 1u : 0u;
    barrier();
    if (s_done == 0u) return;
    memoryBarrierBuffer();
    C = vec3(0.0);
    T = 1.0;
    for (uint j = 0u; j < piece.y; j++) {
      vec4 p = partials[(piece.x + j) * N + t];
      C += T * p.rgb;
      T *= abs(p.a);
      if (p.a < 0.0) break;
    }
  }
  if (inside) {
#ifdef SP_CR_HOST_FORMAT
    // premultiplied "over" the host's colour, alpha included (the graphics pass's blend)
    vec4 under = imageLoad(host_color, ivec2(pix));
    imageStore(host_color, ivec2(pix), vec4(C, 1.0 - T) + T * under);
#else
    vec3 rgb = C + T * pc.background.rgb;
    image[pix.y * pc.width + pix.x] = uvec2(packHalf2x16(rgb.rg), packHalf2x16(vec2(rgb.b, 1.0)));
#endif
  }
}
