// Depth-sort stage: the splat count, the cull test and key value, and the quantisation, shared
// by the key-pass shaders so that both forms of the pass (and the one-pass lookback's fallback)
// decide every splat bit-identically. The includer declares pc and, unless it defines
// DS_COMMON_QUANTISE_ONLY, centers[] (words) and count_buf[]; with DS_COMMON_VEC4 also
// centers4[] (vec4). ds_key_value, ds_depth_key and quantise_key need neither: a host that
// culls and keys in its own pass (the splat renderer's projection) includes this with
// DS_COMMON_QUANTISE_ONLY for keys bit-identical to the stage's.

// The key value of a visible splat at p whose clip w is w: w, or with `radial` its distance to
// the camera at cam (at least 1e-30: a key value > 0 means visible).
float ds_key_value(vec3 p, float w, bool radial, vec3 cam) {
  return radial ? max(length(p - cam), 1e-30) : w;
}

// The 32-bit key of a key value w > 0: w orders like its bits, so ascending keys are back to
// front.
uint ds_depth_key(float w) { return ~floatBitsToUint(w); }

#ifndef DS_COMMON_QUANTISE_ONLY
uint splat_count() {
  uint n = (pc.flags & DS_FLAG_INDIRECT) != 0 ? count_buf[pc.count_index] : pc.count;
  return min(n, pc.max_count);
}

// Splat i's x, y, z and, where the host gave it, opacity. One 16-byte load where the centres
// are vec4s, except for the last splat without opacity: the host's range may end 4 bytes
// after its z.
vec4 load_center(uint i) {
#ifdef DS_COMMON_VEC4
  if ((pc.flags & DS_FLAG_VEC4) != 0 && ((pc.flags & DS_FLAG_OPACITY_CULL) != 0 || i + 1u < pc.max_count))
    return centers4[i];
#endif
  uint at = i * pc.stride;
  float o = (pc.flags & DS_FLAG_OPACITY_CULL) != 0 ? uintBitsToFloat(centers[at + 3]) : 1.0;
  return vec4(uintBitsToFloat(centers[at]), uintBitsToFloat(centers[at + 1]), uintBitsToFloat(centers[at + 2]), o);
}

// The key value (clip w, or the distance to the camera) of a visible splat with centre
// record c (load_center), or 0 when it is culled.
float centre_w(vec4 c) {
  vec4 p = vec4(c.xyz, 1.0);
  if ((pc.flags & DS_FLAG_OPACITY_CULL) != 0 && !(c.w >= 1.0 / 255.0)) return 0.0;
  // Column by column without fused multiply-adds (precise): a host that computes its own view
  // depth in this order (as the splat renderer's projection does) gets bit-identical keys.
  precise vec4 clip = pc.view_proj[0] * p.x + pc.view_proj[1] * p.y + pc.view_proj[2] * p.z + pc.view_proj[3];
  float lim = pc.margin * clip.w;
  bool inside = clip.w > pc.near && abs(clip.x) <= lim && abs(clip.y) <= lim; // false for NaN
  if (!inside) return 0.0;
  return ds_key_value(p.xyz, clip.w, (pc.flags & DS_FLAG_RADIAL) != 0, vec3(pc.cam_x, pc.cam_y, pc.cam_z));
}

float visible_w(uint i) { return centre_w(load_center(i)); }

#endif

// A narrower key from a visible splat's 32-bit key ~bits(w), over the visible depth range
// [zmin, zmax]: key = min(round((1 - (w - zmin)/(zmax - zmin)) * (2^bits - 1)), 2^bits - 1):
// ascending order stays back to front and the sort needs fewer passes.
uint quantise_key(uint key, float zmin, float zmax, uint bits) {
  float w = uintBitsToFloat(~key);
  float u = zmax > zmin ? clamp((w - zmin) / (zmax - zmin), 0.0, 1.0) : 0.0;
  uint top = (1u << bits) - 1u;
  return min(uint((1.0 - u) * float(top) + 0.5), top); // top + 0.5 rounds up at 24 bits
}
