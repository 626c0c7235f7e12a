#version 450
// Projection: the reference 3DGS preprocess per splat (see src/render/project.c, which this
// mirrors step by step): cull, EWA 2D covariance, conic, radius, SH colour. Fused with the
// depth sort's key pass: the cull here decides the frame's visible set, and each splat also
// writes its depth key (or DS_CULLED) and counts into its block, so the positions are read
// once a frame; fuse_scan.comp and fuse_compact.comp then hand the sort the visible splats in
// slot order.
#extension GL_GOOGLE_include_directive : require
#include "splat_shared.h"
#include "depth_shared.h"
#include "lod_cut_shared.h"
#define DS_COMMON_QUANTISE_ONLY
#include "depth_common.glsl"
layout(local_size_x = SP_PROJECT_WORKGROUP) in;

layout(std430, binding = SP_BIND_POS) readonly buffer Pos { vec4 pos_opacity[]; };
layout(std430, binding = SP_BIND_COV) readonly buffer Shape { uvec4 shape[]; }; // rotation + scale, splat_shared.h
layout(std430, binding = SP_BIND_SH) readonly buffer Sh { uint sh_data[]; };
layout(std430, binding = SP_BIND_PROJECTED) writeonly buffer Projected { uvec4 projected[]; }; // bits, see splat_shared.h
layout(std430, binding = SP_BIND_DEPTHS) writeonly buffer Depths { float depths[]; };
layout(std430, binding = SP_BIND_KEYS) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = SP_BIND_BLOCKS) buffer Blocks { uint blocks[]; };
layout(std430, binding = SP_BIND_HEADER) buffer Header { uint header[]; };
layout(std430, binding = SP_BIND_RAYS) writeonly buffer Rays { vec4 rays[]; }; // SP_PROJECT_RAYS
layout(std430, binding = SP_BIND_LOD_CUT) readonly buffer LodCut { uint lod_cut[]; };
layout(std430, binding = SP_BIND_LOD_STATE) readonly buffer LodState { uint lod_state[]; };
layout(std430, binding = SP_BIND_LOD_PARENT) readonly buffer LodParent { uint lod_parent[]; };
layout(std430, binding = SP_BIND_LOD_SPHERES) readonly buffer LodSpheres { vec4 lod_spheres[]; };
layout(std430, binding = SP_BIND_LOD_PAGES) readonly buffer LodPages { uint lod_pages[]; };
layout(push_constant) uniform Push { sp_project_push pc; };
layout(constant_id = 0) const uint SH_WORDS = 1; // uint32 words of SH per splat
layout(constant_id = 1) const uint SH_FORMAT = SP_SH_FORMAT_F16; // the object's SH storage
// A level-of-detail object's pipeline: thread j projects node lod_cut[j] of the object into the
// object's slot j, where the node is in this dispatch's chunk (limits.w: the chunk's first node;
// its size: the positions' binding); pc.count is the object's slots (its max_cut). Slots past
// the cut's count are culled by the first chunk's dispatch.
layout(constant_id = 2) const bool LOD = false;

const float SH_C0 = 0.28209479177387814;
const float SH_C1 = 0.4886025119029199;
const float SH_C2[5] = float[](1.0925484305920792, -1.0925484305920792, 0.31539156525252005,
                               -1.0925484305920792, 0.5462742152960396);
const float SH_C3[7] = float[](-0.5900435899266435, 2.890611442640554, -0.4570457994644658,
                               0.3731763325901154, -0.4570457994644658, 1.445305721320277,
                               -0.5900435899266435);

// SH value h (coefficient h / 3, channel h % 3) of the splat whose words start at `base`. The
// format is a specialization constant, so each pipeline keeps one branch and no per-splat test.
float sh_at(uint base, uint h) {
  if (SH_FORMAT == SP_SH_FORMAT_F32) return uintBitsToFloat(sh_data[base + h]);
  if (SH_FORMAT == SP_SH_FORMAT_U8) {
    float q = float(bitfieldExtract(sh_data[base + (h >> 2)], int(8u * (h & 3u)), 8));
    // offset + scale * q, unfused: splat_sh8_decode's value bit for bit
    precise float v = uintBitsToFloat(sh_data[SP_SH_MAX_VALUES + h]) + uintBitsToFloat(sh_data[h]) * q;
    return v;
  }
  uint w = sh_data[base + (h >> 1)];
  return (h & 1u) == 0u ? unpackHalf2x16(w).x : unpackHalf2x16(w).y;
}
vec3 sh_coeff(uint base, uint k) {
  return vec3(sh_at(base, 3 * k), sh_at(base, 3 * k + 1), sh_at(base, 3 * k + 2));
}

vec3 sh_color(uint i, vec3 dir) {
  uint base = SP_SH_HEADER_WORDS(SH_FORMAT) + i * SH_WORDS;
  vec3 result = SH_C0 * sh_coeff(base, 0);
  if (pc.sh_degree > 0) {
    float x = dir.x, y = dir.y, z = dir.z;
    result = result - SH_C1 * y * sh_coeff(base, 1) + SH_C1 * z * sh_coeff(base, 2) - SH_C1 * x * sh_coeff(base, 3);
    if (pc.sh_degree > 1) {
      float xx = x * x, yy = y * y, zz = z * z, xy = x * y, yz = y * z, xz = x * z;
      result = result + SH_C2[0] * xy * sh_coeff(base, 4) + SH_C2[1] * yz * sh_coeff(base, 5) +
               SH_C2[2] * (2.0 * zz - xx - yy) * sh_coeff(base, 6) + SH_C2[3] * xz * sh_coeff(base, 7) +
               SH_C2[4] * (xx - yy) * sh_coeff(base, 8);
      if (pc.sh_degree > 2) {
        result = result + SH_C3[0] * y * (3.0 * xx - yy) * sh_coeff(base, 9) +
                 SH_C3[1] * xy * z * sh_coeff(base, 10) + SH_C3[2] * y * (4.0 * zz - xx - yy) * sh_coeff(base, 11) +
                 SH_C3[3] * z * (2.0 * zz - 3.0 * xx - 3.0 * yy) * sh_coeff(base, 12) +
                 SH_C3[4] * x * (4.0 * zz - xx - yy) * sh_coeff(base, 13) +
                 SH_C3[5] * z * (xx - yy) * sh_coeff(base, 14) + SH_C3[6] * x * (xx - 3.0 * yy) * sh_coeff(base, 15);
      }
    }
  }
  return max(result + 0.5, vec3(0.0));
}

// The rotation and scales of a packed shape, as splat_unpack_shape decodes them and cglm's
// glm_quat_mat3 forms R (scaled by 2 / |q|).
mat3 splat_rotation(uvec4 w) {
  ivec4 qi = ivec4(bitfieldExtract(int(w.x), 0, 16), bitfieldExtract(int(w.x), 16, 16),
                   bitfieldExtract(int(w.y), 0, 16), bitfieldExtract(int(w.y), 16, 16));
  vec4 q = vec4(qi) * SP_SNORM16_STEP; // w, x, y, z
  float norm = length(q), s = norm > 0.0 ? 2.0 / norm : 0.0;
  float qw = q.x, x = q.y, y = q.z, z = q.w;
  float xx = s * x * x, xy = s * x * y, wx = s * qw * x;
  float yy = s * y * y, yz = s * y * z, wy = s * qw * y;
  float zz = s * z * z, xz = s * x * z, wz = s * qw * z;
  return mat3(1.0 - yy - zz, xy + wz, xz - wy,  // column 0
              xy - wz, 1.0 - xx - zz, yz + wx,  // column 1
              xz + wy, yz - wx, 1.0 - xx - yy); // column 2
}
vec3 splat_scale(uvec4 w) { return vec3(unpackHalf2x16(w.z), unpackHalf2x16(w.w).x); }

// The 3D covariance R S^2 R^T of splat i's packed shape, as splat_cov3d forms it (project.c).
mat3 splat_cov3d(uint i) {
  uvec4 w = shape[i];
  mat3 R = splat_rotation(w);
  vec3 scale = splat_scale(w);
  mat3 M = mat3(R[0] * scale.x, R[1] * scale.y, R[2] * scale.z);
  return M * transpose(M);
}

// The per-pixel order's ray depth (splat_project_ray_depth, project.c, the same steps): along
// the camera ray tau (u, v, 1) the splat's density exp(-(tau d - t)^T A (tau d - t) / 2), A
// the inverse camera-space covariance, peaks at tau = d^T A t / d^T A d. A is formed from the
// rotation and the inverse squared scales (never by inverting a covariance: a flat splat's is
// singular), the scales relative to the largest and floored at 2^-20, and scaled to A22 = 1,
// which leaves the ratio as it is. Degenerate splats take A = I (the ray's closest point).
void write_ray(uint g, uint i, vec3 t) {
  uvec4 w = shape[i];
  vec3 scale = splat_scale(w);
  float smax = max(scale.x, max(scale.y, scale.z));
  vec4 r0 = vec4(1.0, 1.0, 0.0, 0.0), r1 = vec4(0.0, t); // (a00, a11, a01, a02), (a12, b)
  mat3 V = mat3(pc.view);
  float vdet = determinant(V);
  if (smax > 0.0 && !isinf(smax) && vdet != 0.0 && !isinf(vdet) && !isnan(vdet)) {
    vec3 m = max(scale / smax, vec3(1.0 / 1048576.0));
    vec3 wk = 1.0 / (m * m);
    mat3 M = transpose(inverse(V)) * splat_rotation(w);
    mat3 A = mat3(0.0);
    for (int k = 0; k < 3; k++) A += wk[k] * outerProduct(M[k], M[k]);
    bool finite = !any(isinf(A[0])) && !any(isinf(A[1])) && !any(isinf(A[2])) && !any(isnan(A[0])) &&
                  !any(isnan(A[1])) && !any(isnan(A[2]));
    if (A[2][2] > 0.0 && finite) {
      A /= A[2][2];
      vec3 b = A * t;
      r0 = vec4(A[0][0], A[1][1], A[1][0], A[2][0]);
      r1 = vec4(A[2][1], b);
    }
  }
  rays[2 * g] = r0;
  rays[2 * g + 1] = r1;
}

// Returns the camera-space depth of a visible splat (and writes its record), or 0 when it is
// culled. Comparisons are written as !(pass) like project.c, so NaN culls.
// t: the splat's camera-space centre (view = the camera's view times the object's model).
// mode: the dispatch's SP_PROJECT_* bits.
float project(uint i, uint slot, vec4 po, vec3 t, uint mode) {
  float opacity = po.w;
  if (!(t.z > SPLAT_NEAR_Z)) return 0.0;
  float limx = pc.limits.x, limy = pc.limits.y;
  float txz = t.x / t.z, tyz = t.y / t.z;
  if (!(txz >= -limx && txz <= limx && tyz >= -limy && tyz <= limy)) return 0.0;
  if (!(opacity >= SPLAT_MIN_ALPHA)) return 0.0;

  // EWA: J W Sigma W^T J^T with the reference's clamp of x/z, y/z to +-1.3 tan(fov)
  float fx = pc.intrinsics.x, fy = pc.intrinsics.y;
  float cx_ = clamp(txz, -limx, limx) * t.z, cy_ = clamp(tyz, -limy, limy) * t.z;
  mat3 J = mat3(fx / t.z, 0.0, 0.0,                                       // column 0
                0.0, fy / t.z, 0.0,                                       // column 1
                -(fx * cx_) / (t.z * t.z), -(fy * cy_) / (t.z * t.z), 0.0); // column 2
  mat3 W = mat3(pc.view);
  mat3 Vrk = splat_cov3d(i);

  mat3 T = J * W;
  mat3 cov = T * Vrk * transpose(T);
  float a = cov[0][0] + SPLAT_COV2D_DILATION, b = cov[0][1], c = cov[1][1] + SPLAT_COV2D_DILATION; // the dilation
  float det = a * c - b * b;
  if (!(det > 0.0) || isinf(det)) return 0.0;
  float inv = 1.0 / det;
  vec3 conic = vec3(c * inv, -b * inv, a * inv);
  float mid = 0.5 * (a + c);
  float lambda1 = mid + sqrt(max(SPLAT_EIGEN_FLOOR, mid * mid - det));
  float radius = ceil(SPLAT_RADIUS_SIGMAS * sqrt(lambda1));
  if (isinf(radius) || isnan(radius) || any(isinf(conic)) || any(isnan(conic))) return 0.0;
  // anti-aliased scenes: gsplat's compensation sqrt(det(cov) / det(cov + 0.3 I)) (project.c, step 4b)
  if ((mode & SP_PROJECT_ANTIALIAS) != 0u) opacity *= sqrt(max(0.0, (cov[0][0] * cov[1][1] - b * b) / det));
  vec2 mean = vec2(fx * txz + pc.intrinsics.z, fy * tyz + pc.intrinsics.w);
  float width = float(pc.size & 0xFFFFu), height = float(pc.size >> 16);
  if (!(mean.x + radius > 0.0 && mean.x - radius < width && mean.y + radius > 0.0 && mean.y - radius < height))
    return 0.0;

  vec3 color = sh_color(i, normalize(po.xyz - pc.campos.xyz));


  uint r16 = uint(min(radius, float(SP_MAX_RADIUS)));
  // stored as bits: a packed word seen as a float may be a denormal or NaN pattern
  uint g = floatBitsToUint(pc.campos.w) + slot;
  if ((mode & SP_PROJECT_RAYS) != 0u) write_ray(g, i, t);
  projected[2 * g] = floatBitsToUint(vec4(mean, conic.xy));
  projected[2 * g + 1] = uvec4(floatBitsToUint(conic.z), floatBitsToUint(opacity), packHalf2x16(color.rg),
                               (packHalf2x16(vec2(color.b, 0.0)) & 0xFFFFu) | (r16 << 16));
  return t.z;
}

// Stereo's visible set: project()'s first tests (near plane, widened frustum, opacity) for the
// point between the eyes, whose camera-space centre is t; each eye then culls its own records.
bool centre_visible(vec3 t, float opacity) {
  if (!(t.z > SPLAT_NEAR_Z)) return false;
  float txz = t.x / t.z, tyz = t.y / t.z;
  return txz >= -pc.limits.x && txz <= pc.limits.x && tyz >= -pc.limits.y && tyz <= pc.limits.y &&
         opacity >= SPLAT_MIN_ALPHA;
}

shared uint s_count[2]; // a workgroup's slots straddle at most two blocks
shared uint s_zmin, s_zmax;

// Every invocation of the workgroup: splat `slot`'s key, its depth where visible (w > 0), and
// the workgroup's visible splats into their blocks and the key-value range into the header
// (one global atomic each per workgroup, not per splat).
void write_key(uint slot, bool inside, vec3 t, float w) {
  uint first = (pc.base + (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * SP_PROJECT_WORKGROUP) /
               SP_FUSE_BLOCK;
  if (gl_LocalInvocationIndex < 2u) s_count[gl_LocalInvocationIndex] = 0u;
  if (gl_LocalInvocationIndex == 0u) s_zmin = 0x7F7FFFFFu, s_zmax = 0u;
  barrier();
  if (inside) keys[slot] = w > 0.0 ? ds_depth_key(w) : DS_CULLED;
  if (w > 0.0) {
    depths[slot] = t.z;
    atomicAdd(s_count[slot / SP_FUSE_BLOCK - first], 1u);
    atomicMin(s_zmin, floatBitsToUint(w));
    atomicMax(s_zmax, floatBitsToUint(w));
  }
  barrier();
  uint k = gl_LocalInvocationIndex;
  if (k < 2u && s_count[k] != 0u) atomicAdd(blocks[first + k], s_count[k]);
  if (k == 0u && s_zmax != 0u) {
    atomicMin(header[SP_H_ZMIN], s_zmin);
    atomicMax(header[SP_H_ZMAX], s_zmax);
  }
}

// The LOD blend band (docs/lod.md): a node opened at a projected size s within
// [tau, (1 + band) tau] stays in the cut, its opacity times w = 1 - (s / tau - 1) / band (1 where
// it opened, 0 at the band's top), and its children's times 1 - w: the level above fades out as
// the one below fades in, continuously in tau. A node's size here is the cut's.
float lod_size(uint node, out bool in_front) {
  vec4 sp = lod_spheres[node - lod_state[LC_STATE_LEAF_COUNT]]; // an interior node's
  vec3 c = pc.view[0].xyz * sp.x + pc.view[1].xyz * sp.y + pc.view[2].xyz * sp.z + pc.view[3].xyz;
  in_front = c.z > SPLAT_NEAR_Z;
  // the cut's projected error (lod_cut.comp): w = error x sqrt(radius)
  return sp.w * sqrt(max(pc.intrinsics.x, pc.intrinsics.y) * uintBitsToFloat(lod_state[LC_STATE_RADIUS_SCALE]) / c.z);
}
float lod_fade(uint node, bool fading) {
  float band = uintBitsToFloat(lod_state[LC_STATE_BLEND]), tau = uintBitsToFloat(lod_state[LC_STATE_TAU]);
  if (!(band > 0.0)) return 1.0;
  bool in_front;
  if (fading) return 1.0 - clamp((lod_size(node, in_front) / tau - 1.0) / band, 0.0, 1.0);
  uint parent = lod_parent[node];
  if (parent == 0xFFFFFFFFu) return 1.0;
  float s = lod_size(parent, in_front);
  if (!in_front || !(s <= tau * (1.0 + band))) return 1.0; // opened outright: no fade
  return clamp((s / tau - 1.0) / band, 0.0, 1.0);
}

void main() {
  uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  uint i = group * SP_PROJECT_WORKGROUP + gl_LocalInvocationIndex;
  uint slot = pc.base + i; // the frame slot: the splat's, or (LOD) the cut's entry's
  uint mode = floatBitsToUint(pc.limits.z);
  bool inside = i < pc.count, has = inside, fading = false;
  uint node = 0u; // LOD: the cut entry's node id
  if (LOD) {
    // (the stand-in bindings of other objects are never read: LOD is a specialization constant)
    uint cut = min(lod_state[LC_STATE_CUT_COUNT], pc.count), first = floatBitsToUint(pc.limits.w);
    uint entry = i < cut ? lod_cut[i] : 0u;
    node = entry & ~LC_FADING_BIT;
    fading = (entry & LC_FADING_BIT) != 0u;
    // the node's object index: a leaf's in its page's pool slot, an interior node's after the pool
    uint leaves = lod_state[LC_STATE_LEAF_COUNT], obj = lod_state[LC_STATE_POOL_LEAVES] + node - leaves;
    if (i < cut && node < leaves) obj = lod_pages[node / LC_PAGE_LEAVES] * LC_PAGE_LEAVES + node % LC_PAGE_LEAVES;
    has = i < cut && obj - first < uint(pos_opacity.length());
    inside = has || (inside && i >= cut && first == 0u);
    i = obj - first;
  }
  vec4 po = has ? pos_opacity[i] : vec4(0.0);
  if (LOD && has) po.w *= lod_fade(node, fading);
  // Camera space in project.c's operation order, without fused multiply-adds (precise): Vulkan
  // rounds fmul and fadd correctly, so z, and with it the depth key and the draw order, is
  // bit-identical to the CPU's (splat_depth_key); an FMA would move z by a rounding or two and
  // swap nearly coincident splats.
  precise vec3 t = pc.view[0].xyz * po.x + pc.view[1].xyz * po.y + pc.view[2].xyz * po.z + pc.view[3].xyz;
  bool visible = false;
  if (has && (mode & SP_PROJECT_RECORDS) != 0) {
    visible = project(i, slot, po, t, mode) != 0.0;
    // Stereo eyes: the frame's visible set is the centre camera's, which may hold a splat this
    // eye culls; its record must have no area. Mono: the raster sees visible splats only.
    uint g = floatBitsToUint(pc.campos.w) + slot;
    if (!visible && (mode & SP_PROJECT_KEYS) == 0) {
      projected[2 * g] = uvec4(0u);
      projected[2 * g + 1] = uvec4(0u);
    }
  } else if (has) {
    visible = centre_visible(t, po.w);
  }
  if ((mode & SP_PROJECT_KEYS) == 0) return; // uniform over the dispatch: write_key's barriers are safe
  // the stage's key value: its clip w is camera z here (frame.c's culling_proj, exactly)
  float w = visible ? ds_key_value(t, t.z, (mode & SP_PROJECT_RADIAL) != 0u, vec3(0.0)) : 0.0;
  write_key(slot, inside, t, w);
}
