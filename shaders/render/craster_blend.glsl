// Compute raster, pass 6: one workgroup per 16x16 tile, one invocation per pixel, blending the
// tile's list front to back with the reference rasterizer's rules (tests/refrender.c): the
// quad's footprint, alpha = min(SPLAT_MAX_ALPHA, opacity * exp(power)), skip below
// SPLAT_MIN_ALPHA, stop a pixel before its transmittance would fall below SPLAT_T_EPSILON. Records are staged through
// shared memory a workgroup's worth at a time; the tile stops when every pixel has.
// Included by craster_blend.comp (into the renderer's image buffer, over the background) and
// by craster_blend_host_<format>.comp, which define SP_CR_HOST_FORMAT (the host's colour
// image's format qualifier): splats whose centre lies behind the host's depth at a pixel are
// skipped there, and the result is composited over the host's colour in place.
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
  for (uint base = range.x; base < range.y; base += N) {
    if (t == 0u) s_done = 0u;
    barrier();
    if (done) atomicAdd(s_done, 1u);
    barrier();
    if (s_done == N) break;
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
      s_depth[t] = depth;
      s_color[t] = vec3(unpackHalf2x16(p1.z), unpackHalf2x16(p1.w).x);
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
      float test_T = T * (1.0 - alpha);
      if (test_T < SPLAT_T_EPSILON) {
        done = true;
        break;
      }
      C += s_color[k] * (alpha * T);
      T = test_T;
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
