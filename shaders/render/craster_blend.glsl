// Compute raster, pass 6: one workgroup per 16x16 tile, one invocation per pixel, blending the
// tile's list front to back with the reference rasterizer's rules (tests/refrender.c): the
// quad's footprint, alpha = min(SPLAT_MAX_ALPHA, opacity * exp(power)), skip below
// SPLAT_MIN_ALPHA, stop a pixel before its transmittance would fall below SPLAT_T_EPSILON. Records are staged through
// shared memory a workgroup's worth at a time; the tile stops when every pixel has.
// Included by craster_blend.comp (into the renderer's image buffer, over the background) and
// by craster_blend_host_<format>.comp, which define SP_CR_HOST_FORMAT (the host's colour
// image's format qualifier): splats whose centre lies behind the host's depth at a pixel are
// skipped there, and the result is composited over the host's colour in place.
// With SP_CR_PER_PIXEL (craster_blend_pp*.comp: SPLAT_ORDER_PER_PIXEL) each pixel orders its
// splats by their depth along its own ray (project.comp's write_ray) instead of the tile list's
// global order, in two levels (after StopThePop, Radl et al. 2024): each staged batch of the
// tile's list is first sorted by the splats' depths at the tile (at the tile's pixel nearest
// to each splat's centre), then every pixel passes its contributions through a window of
// WINDOW slots kept in depth order and blends whichever is nearest when a new one arrives on a
// full window (so a splat arriving after a farther one was blended is blended late: the
// window's overflow); the window is emptied, nearest first, after the tile's last batch.
// tests/refrender.c (REFRENDER_ORDER_WINDOW) does exactly this on the CPU.
#ifdef SP_CR_PER_PIXEL
#extension GL_EXT_control_flow_attributes : require
#endif
#include "craster_common.glsl"
layout(local_size_x = SP_TILE, local_size_y = SP_TILE) in;
layout(std430, binding = SP_CR_VALUES) readonly buffer Values { uint values[]; };
layout(std430, binding = SP_CR_RANGES) readonly buffer Ranges { uvec2 ranges[]; };
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
shared float s_depth[N];       // depth in the host's projection
shared vec3 s_color[N];
shared uint s_done;

#ifdef SP_CR_PER_PIXEL
layout(constant_id = 0) const uint WINDOW = SP_CR_WINDOW_DEFAULT; // slots of a pixel's window
layout(std430, binding = SP_CR_RAYS) readonly buffer Rays { vec4 rays[]; }; // project.comp's write_ray
shared vec4 s_ray0[N], s_ray1[N]; // the staged splats' ray-depth coefficients
shared uint s_key[N], s_pos[N];   // the batch's tile-level sort: depth keys, places in the batch

// The splat's depth along the ray (u, v, 1) (splat_ray_depth_at).
float ray_depth(vec4 r0, vec4 r1, vec2 uv) {
  float n = r1.y * uv.x + r1.z * uv.y + r1.w;
  float d = r0.x * uv.x * uv.x + r0.y * uv.y * uv.y + 1.0 + 2.0 * (r0.z * uv.x * uv.y + r0.w * uv.x + r1.x * uv.y);
  return n / d;
}

// A depth as a key ordered like the floats (NaNs at the ends); 0 is kept for an empty slot.
uint depth_key(float d) {
  uint b = floatBitsToUint(d);
  return max((b & 0x80000000u) != 0u ? ~b : b | 0x80000000u, 1u);
}

// The batch's n entries (positions base..base+n-1 of the tile's list) sorted by (depth at the
// tile, place in the batch) by a bitonic network over the next power of two >= n (uniform
// over the workgroup: its barriers are); pads sort last. Afterwards s_pos[t] is the place in
// the batch of the t-th nearest.
void sort_batch(uint base, uint n, uvec2 tile_lo) {
  uint t = gl_LocalInvocationIndex;
  uint key = 0xFFFFFFFFu;
  if (t < n) {
    uint rec = values[base + t];
    vec2 m = uintBitsToFloat(projected[2 * rec].xy);
    vec2 q = clamp(m, vec2(tile_lo) + 0.5, vec2(tile_lo) + float(SP_TILE) - 0.5);
    key = depth_key(ray_depth(rays[2 * rec], rays[2 * rec + 1], (q - pc.intrinsics.zw) / pc.intrinsics.xy));
  }
  s_key[t] = key;
  s_pos[t] = t;
  uint width = 1u;
  while (width < n) width <<= 1;
  barrier();
  for (uint k = 2u; k <= width; k <<= 1) {
    for (uint j = k >> 1; j > 0u; j >>= 1) {
      uint p = t ^ j;
      if (t < width && p > t) {
        uint ka = s_key[t], kb = s_key[p], pa = s_pos[t], pb = s_pos[p];
        bool greater = ka > kb || (ka == kb && pa > pb);
        if (greater == ((t & k) == 0u)) {
          s_key[t] = kb, s_key[p] = ka;
          s_pos[t] = pb, s_pos[p] = pa;
        }
      }
      barrier();
    }
  }
}

// The stop rule of the reference: true when this splat would take T below SPLAT_T_EPSILON
// (it and everything after it are not blended).
bool blend_one(inout vec3 C, inout float T, vec4 ca) {
  float test_T = T * (1.0 - ca.a);
  if (test_T < SPLAT_T_EPSILON) return true;
  C += ca.rgb * (ca.a * T);
  T = test_T;
  return false;
}
#endif

void main() {
  uvec2 pix = gl_WorkGroupID.xy * SP_TILE + gl_LocalInvocationID.xy;
  bool inside = pix.x < pc.width && pix.y < pc.height;
  vec2 f = vec2(pix) + 0.5;
  uvec2 range = ranges[gl_WorkGroupID.y * pc.tiles_x + gl_WorkGroupID.x];
  uint t = gl_LocalInvocationIndex;
  bool done = !inside;
  float T = 1.0;
  vec3 C = vec3(0.0);
#ifdef SP_CR_HOST_FORMAT
  float host_z = inside ? texelFetch(host_depth, ivec2(pix), 0).r : 0.0;
  bool reverse_z = (pc.flags & SP_CR_FLAG_REVERSE_Z) != 0u;
#endif
#ifdef SP_CR_PER_PIXEL
  vec2 uv = (f - pc.intrinsics.zw) / pc.intrinsics.xy;
  uint wkey[WINDOW];
  vec4 wcol[WINDOW]; // colour, alpha
  [[unroll]] for (uint i = 0u; i < WINDOW; i++) wkey[i] = 0u, wcol[i] = vec4(0.0);
#endif
  for (uint base = range.x; base < range.y; base += N) {
    if (t == 0u) s_done = 0u;
    barrier();
    if (done) atomicAdd(s_done, 1u);
    barrier();
    if (s_done == N) break;
#ifdef SP_CR_PER_PIXEL
    sort_batch(base, min(N, range.y - base), gl_WorkGroupID.xy * SP_TILE);
    uint from = base + s_pos[t];
#else
    uint from = base + t;
#endif
    if (from < range.y) {
      uint rec = values[from];
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
      s_depth[t] = depth;
      s_color[t] = vec3(unpackHalf2x16(p1.z), unpackHalf2x16(p1.w).x);
#ifdef SP_CR_PER_PIXEL
      s_ray0[t] = rays[2 * rec];
      s_ray1[t] = rays[2 * rec + 1];
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
      vec4 cc = vec4(s_color[k], alpha);
      [[unroll]] for (uint i = 0u; i < WINDOW; i++) {
        if (ck >= wkey[i]) {
          uint tk = wkey[i];
          vec4 tc = wcol[i];
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
