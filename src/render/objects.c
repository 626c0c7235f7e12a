/* objects.c: the renderer's objects: the streamed object (begin_object, append_object,
 * finish_object) and set_scene / add_object, which are one begin and one append of a whole
 * scene; the checks of a scene's shape, memory and values; remove_object; upload statistics. */
#include "render_internal.h"

#include "splat_project.h"
#include "splat_shared.h"
#include "render_spv_spv.h"

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


uint32_t splat_renderer_scene_count(const splat_renderer *r) { return r ? render_objects_total(r) : 0; }


/* The object's projection pipeline, specialised for its SH storage. */
static VkResult create_project_pipeline(splat_renderer *r, object_gpu *o) {
  const uint32_t data[2] = {o->sh_words, o->sh_format};
  VkSpecializationMapEntry entries[2] = {{0, 0, 4}, {1, 4, 4}};
  VkSpecializationInfo spec = {2, entries, sizeof data, data};
  ssvk_compute_desc cd = {.code = render_spv_project_comp, .code_size = render_spv_project_comp_size,
                          .layout = r->compute_layout, .spec = &spec, .name = "splat project"};
  return ssvk_compute_pipeline(&r->vk, &cd, &o->project);
}


/* Refuses, with a message, a change that would hold more than the renderer's memory limit:
 * `adding` bytes of new object arrays, the frame buffers grown to `total` splats. */
static bool check_memory(splat_renderer *r, uint32_t count, uint32_t sh_degree, uint32_t total, bool replacing,
                         const char *then) {
  uint32_t sh_format, sh_words;
  render_sh_layout(r->sh_precision, (sh_degree + 1) * (sh_degree + 1), &sh_format, &sh_words);
  VkDeviceSize object = render_object_bytes(sh_format, sh_words, count, 1);
  VkDeviceSize frame = (4ull + (r->stereo ? 64u : 32u) + 20u) * total; /* depths, records, sort (about) */
  VkDeviceSize kept = 0;
  if (!replacing)
    for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++) {
      const object_gpu *o = &r->objects[i];
      kept += render_object_bytes(o->sh_format, o->sh_words, o->count, o->chunks);
    }
  VkDeviceSize need = object + frame + kept;
  if (total > render_max_frame_splats(r)) {
    rlog(r, "%u splats in one frame is above this device's maximum of %u (a %u-byte record per splat in one "
            "storage buffer of at most %.2f MiB); %s", total, render_max_frame_splats(r), r->stereo ? 64u : 32u,
         render_mib(r->max_buffer), then);
    return false;
  }
  if (need <= r->memory_limit) return true;
  rlog(r, "a scene of %u splats (SH degree %u) needs about %.2f MiB of device memory (%.2f MiB of splat arrays, "
          "%.2f MiB of frame buffers for %u splats%s); %s %.2f MiB; %s",
       count, sh_degree, render_mib(need), render_mib(object + kept), render_mib(frame), total,
       replacing ? "" : ", with the objects already loaded",
       r->memory_limit_is_budget ? "the renderer's memory budget is" : "the device has", render_mib(r->memory_limit), then);
  return false;
}


/* The scene's shape: a count, a degree its coefficient count matches, every array. `call`
 * and `then` start and end the message. */
static bool check_scene(splat_renderer *r, const splat_scene *sc, const char *call, const char *then) {
  if (!sc || sc->count == 0) {
    rlog(r, "%s: the scene is %s; %s", call, sc ? "empty (count 0)" : "NULL", then);
    return false;
  }
  if (sc->sh_degree > SPLAT_SCENE_MAX_SH_DEGREE || sc->sh_coeffs != (sc->sh_degree + 1) * (sc->sh_degree + 1)) {
    rlog(r, "%s: sh_degree %u with sh_coeffs %u: the degree must be 0..%d and sh_coeffs (degree + 1)^2; %s", call,
         sc->sh_degree, sc->sh_coeffs, SPLAT_SCENE_MAX_SH_DEGREE, then);
    return false;
  }
  const char *missing = !sc->positions ? "positions" : !sc->scales ? "scales" : !sc->rotations ? "rotations"
                        : !sc->opacities ? "opacities" : !sc->sh ? "sh" : NULL;
  if (missing) {
    rlog(r, "%s: the scene's %s array is NULL; %s", call, missing, then);
    return false;
  }
  return true;
}


/* Splat i's values as splat_scene.h's "A scene from the host's own arrays" asks: finite
 * positions and SH, scales >= 0, unit rotations, opacities in [0, 1], and SH below sh_limit
 * (sh_limit_of: what the GPU's SH storage holds) (report_values names what is wrong; the two
 * agree). */
static bool splat_ok(const splat_scene *sc, uint32_t i, float sh_limit) {
  const float *p = sc->positions + 3ull * i, *s = sc->scales + 3ull * i, *q = sc->rotations + 4ull * i;
  bool ok = true;
  for (int k = 0; k < 3; k++) ok &= isfinite(p[k]) && s[k] >= 0.0f && !isinf(s[k]);
  float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], o = sc->opacities[i];
  ok &= fabsf(len2 - 1.0f) <= 2e-3f && o >= 0.0f && o <= 1.0f;
  const float *sh = sc->sh + (size_t)i * sc->sh_coeffs * 3;
  for (uint32_t h = 0; h < sc->sh_coeffs * 3; h++) ok &= isfinite(sh[h]) && fabsf(sh[h]) < sh_limit;
  return ok;
}

typedef struct value_scan {
  const splat_scene *sc;
  _Atomic uint32_t first_bad; /* the lowest bad splat found so far, or the count */
  float sh_limit;
} value_scan;

/* The SH magnitude from which the renderer's SH storage cannot hold a value: 16-bit halves round
 * |x| >= 65,520 to infinity (inf and NaN pixels; the largest half is 65,504); 32-bit floats hold
 * any finite value; 8-bit scales by the scene's range. */
static float sh_limit_of(const splat_renderer *r) { return r->sh_precision == SPLAT_SH_PRECISION_16 ? 65520.0f : INFINITY; }

static void scan_values(void *ctx, uint32_t lo, uint32_t hi) {
  value_scan *v = ctx;
  for (uint32_t i = lo; i < hi; i++) {
    if ((i & 4095) == 0 && atomic_load_explicit(&v->first_bad, memory_order_relaxed) < lo) return;
    if (splat_ok(v->sc, i, v->sh_limit)) continue;
    uint32_t was = atomic_load(&v->first_bad);
    while (i < was && !atomic_compare_exchange_weak(&v->first_bad, &was, i)) {}
    return;
  }
}

/* Splats [from, count) one by one until the first bad value, which is named by its index in the
 * object (`first` + its index in the part). */
static bool report_values(splat_renderer *r, const splat_scene *sc, uint32_t from, uint32_t first,
                          const char *call, const char *then) {
  const uint32_t halves = sc->sh_coeffs * 3;
  for (uint32_t i = from; i < sc->count; i++) {
    const float *p = sc->positions + 3ull * i, *s = sc->scales + 3ull * i, *q = sc->rotations + 4ull * i;
    const float *sh = sc->sh + (size_t)i * halves;
    float o = sc->opacities[i];
    for (int k = 0; k < 3; k++) {
      if (!isfinite(p[k])) {
        rlog(r, "%s: splat %u: position %c is %g (positions must be finite); %s", call, first + i, "xyz"[k], p[k], then);
        return false;
      }
      if (!(s[k] >= 0.0f) || isinf(s[k])) {
        rlog(r, "%s: splat %u: scale %d is %g (scales are activated, exp(log scale): finite and >= 0); %s", call, first + i,
             k, s[k], then);
        return false;
      }
    }
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(fabsf(len2 - 1.0f) <= 2e-3f)) {
      rlog(r, "%s: splat %u: rotation (%g, %g, %g, %g) has length %g (rotations are unit quaternions w, x, y, z); "
              "%s", call, first + i, q[0], q[1], q[2], q[3], sqrtf(len2), then);
      return false;
    }
    if (!(o >= 0.0f && o <= 1.0f)) {
      rlog(r, "%s: splat %u: opacity %g is outside [0, 1] (opacities are activated, sigmoid(logit)); %s", call, first + i,
           o, then);
      return false;
    }
    for (uint32_t h = 0; h < halves; h++) {
      if (!isfinite(sh[h])) {
        rlog(r, "%s: splat %u: SH coefficient %u, channel %u is %g (must be finite); %s", call, first + i, h / 3, h % 3,
             sh[h], then);
        return false;
      }
      if (!(fabsf(sh[h]) < sh_limit_of(r))) {
        rlog(r, "%s: splat %u: SH coefficient %u, channel %u is %g, beyond what 16-bit SH hold (a half is infinity "
                "from +-65520; SH precision 32 takes it); %s", call, first + i, h / 3, h % 3, sh[h], then);
        return false;
      }
    }
  }
  return true;
}

/* Every value checked on the upload threads; the first bad one (the lowest splat) is named. */
static bool check_values(splat_renderer *r, const splat_scene *sc, uint32_t threads, uint32_t first,
                         const char *call, const char *then) {
  value_scan v = {sc, sc->count, sh_limit_of(r)};
  render_parallel(threads, sc->count, scan_values, &v);
  uint32_t bad = atomic_load(&v.first_bad);
  return bad == sc->count || report_values(r, sc, bad, first, call, then);
}


/* An object's arrays for desc's splats in chunks (none resident) and its projection pipeline;
 * on failure nothing is left. */
static VkResult object_begin(splat_renderer *r, const splat_object_desc *d, object_gpu *o) {
  *o = (object_gpu){.count = d->count, .sh_degree = d->sh_degree, .scene_flags = d->flags};
  render_sh_layout(r->sh_precision, (d->sh_degree + 1) * (d->sh_degree + 1), &o->sh_format, &o->sh_words);
  uint32_t per = render_chunk_splats(r, o->sh_format, o->sh_words);
  o->chunks = (o->count + per - 1) / per;
  o->chunk = render_host_alloc(r->vk.allocator, sizeof *o->chunk * o->chunks);
  VkResult res = o->chunk ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
  const VkBufferUsageFlags sd = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | r->extra_usage;
  for (uint32_t c = 0; c < o->chunks && res == VK_SUCCESS; c++) {
    object_chunk *ch = &o->chunk[c];
    ch->first = c * per;
    ch->count = o->count - ch->first < per ? o->count - ch->first : per;
    ssvk_buffer *const bufs[] = {&ch->pos, &ch->cov, &ch->sh};
    const VkDeviceSize sizes[] = {16ull * ch->count, 16ull * ch->count,
                                  4ull * (SP_SH_HEADER_WORDS(o->sh_format) + (VkDeviceSize)o->sh_words * ch->count)};
    const VkBufferUsageFlags usages[] = {sd, sd, sd};
    const char *const names[] = {"splat positions", "splat shapes", "splat SH"};
    res = render_create_buffers(r, "scene", bufs, sizes, usages, names, 3);
  }
  if (res == VK_SUCCESS) res = create_project_pipeline(r, o);
  if (res != VK_SUCCESS) render_object_destroy(r, o);
  return res;
}


/* Copies a checked part after the resident splats, which it then joins. 8-bit SH: the first
 * part sets the object's tables (splat_renderer.h says what that means for later parts). */
static VkResult object_append(splat_renderer *r, object_gpu *o, const splat_scene *part, bool streaming) {
  if (o->sh_format == SP_SH_FORMAT_U8 && o->resident == 0) splat_sh8_range(part, o->sh8_scale, o->sh8_offset);
  VkResult res = render_upload(r, o, part, streaming);
  if (res != VK_SUCCESS) return res;
  pair_sample_add(&o->pairs, r->vk.allocator, o->count, o->resident, part);
  r->pair_want.generation++;
  o->resident += part->count;
  return res;
}


/* check_values on the upload threads, timed into the upload statistics; an append's part (`part`:
 * often a few thousand splats from a file) on no more threads than render_threads_for gives it. */
static bool validate(splat_renderer *r, const splat_scene *sc, bool part, uint32_t first, const char *call,
                     const char *then) {
  double t0 = render_seconds();
  uint32_t threads = part ? render_threads_for(r, sc->count) : r->upload_threads;
  bool ok = check_values(r, sc, threads, first, call, then);
  r->upload_stats.validate_s = render_seconds() - t0;
  return ok;
}


static void stats_end(splat_renderer *r, uint32_t splats, double t0) {
  splat_upload_stats *s = &r->upload_stats;
  s->splats = splats;
  s->total_s = render_seconds() - t0;
  s->gb_per_s = s->total_s > 0 ? (double)s->bytes / s->total_s / 1e9 : 0;
}


VkResult splat_renderer_upload_stats(const splat_renderer *r, splat_upload_stats *out) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!out) {
    rlog(r, "upload_stats: out is NULL");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  *out = r->upload_stats;
  return VK_SUCCESS;
}


static splat_object_desc desc_of(const splat_scene *sc) {
  return (splat_object_desc){.count = sc->count, .sh_degree = sc->sh_degree, .flags = sc->flags};
}


VkResult splat_renderer_set_scene(splat_renderer *r, const splat_scene *sc) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  double t0 = render_seconds();
  r->upload_stats = (splat_upload_stats){0};
  const char *then = "the previous scene stays";
  if (!check_scene(r, sc, "set_scene", then)) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!check_memory(r, sc->count, sc->sh_degree, sc->count, true, then)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  if (!validate(r, sc, false, 0, "set_scene", then)) return VK_ERROR_VALIDATION_FAILED_EXT;
  object_gpu o;
  scene_gpu s = {0};
  splat_object_desc d = desc_of(sc);
  VkResult res = object_begin(r, &d, &o);
  if (res == VK_SUCCESS) {
    res = object_append(r, &o, sc, false);
    if (res == VK_SUCCESS) res = render_create_frame_buffers(r, &s, sc->count);
    if (res != VK_SUCCESS) render_object_destroy(r, &o), render_frame_buffers_destroy(r, &s);
  }
  if (res != VK_SUCCESS) {
    rlog(r, "uploading a scene of %u splats failed (%s); the previous scene stays", sc->count, ssvk_result_name(res));
    return res;
  }
  /* the caller has made sure no frame still uses the old ones; appends' copies may */
  (void)render_stream_ring_end(r);
  for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++) render_object_destroy(r, &r->objects[i]);
  render_frame_buffers_destroy(r, &r->scene);
  render_craster_release(r);
  r->objects[0] = o;
  r->scene = s;
  r->last_sorted = (splatsort_result){0};
  stats_end(r, sc->count, t0);
  return VK_SUCCESS;
}


/* A new object of d's splats in a free slot, the frame buffers grown to the total; with `sc`
 * (add_object: already shape-checked) its values checked and the whole scene appended. */
static VkResult add_slot(splat_renderer *r, const splat_object_desc *d, const splat_scene *sc, const char *call,
                         uint32_t *id) {
  const char *then = "the objects stay as they were";
  uint32_t slot = 0;
  while (slot < SPLAT_MAX_OBJECTS && r->objects[slot].count) slot++;
  if (slot == SPLAT_MAX_OBJECTS) {
    rlog(r, "%s: already %d objects", call, SPLAT_MAX_OBJECTS);
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  uint64_t sum = (uint64_t)render_objects_total(r) + d->count;
  if (sum > UINT32_MAX) {
    rlog(r, "%s: %llu splats in all is above 2^32 - 1", call, (unsigned long long)sum);
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  uint32_t total = (uint32_t)sum;
  if (!check_memory(r, d->count, d->sh_degree, total, false, then)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  if (sc && !validate(r, sc, false, 0, call, then)) return VK_ERROR_VALIDATION_FAILED_EXT;
  object_gpu o;
  scene_gpu s = {0};
  VkResult res = object_begin(r, d, &o);
  if (res == VK_SUCCESS) {
    if (sc) res = object_append(r, &o, sc, false);
    if (res == VK_SUCCESS && total > r->scene.count) res = render_create_frame_buffers(r, &s, total);
    if (res != VK_SUCCESS) render_object_destroy(r, &o), render_frame_buffers_destroy(r, &s);
  }
  if (res != VK_SUCCESS) {
    rlog(r, "%s: %s %u splats failed (%s); the objects stay as they were", call, sc ? "uploading" : "making room for",
         d->count, ssvk_result_name(res));
    return res;
  }
  if (s.count) {
    render_frame_buffers_destroy(r, &r->scene);
    render_craster_release(r);
    r->scene = s;
    r->last_sorted = (splatsort_result){0};
  }
  r->objects[slot] = o;
  *id = slot;
  return VK_SUCCESS;
}


VkResult splat_renderer_add_object(splat_renderer *r, const splat_scene *sc, uint32_t *id) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  double t0 = render_seconds();
  r->upload_stats = (splat_upload_stats){0};
  if (!id) {
    rlog(r, "add_object: id is NULL");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (!check_scene(r, sc, "add_object", "the objects stay as they were")) return VK_ERROR_VALIDATION_FAILED_EXT;
  splat_object_desc d = desc_of(sc);
  VkResult res = add_slot(r, &d, sc, "add_object", id);
  if (res == VK_SUCCESS) stats_end(r, sc->count, t0);
  return res;
}


/* A desc begin_object takes (logged as `call`'s when not). */
static bool check_desc(splat_renderer *r, const splat_object_desc *d, const char *call) {
  if (d && !d->next && d->count && d->sh_degree <= SPLAT_SCENE_MAX_SH_DEGREE) return true;
  rlog(r, "%s: %s; the objects stay as they were", call,
       !d ? "desc is required" : d->next ? "desc->next must be NULL" : d->count == 0 ? "the count is 0"
                                                                     : "sh_degree is above 3");
  return false;
}


VkResult splat_renderer_begin_object(splat_renderer *r, const splat_object_desc *d, uint32_t *id) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  r->upload_stats = (splat_upload_stats){0};
  if (!id) {
    rlog(r, "begin_object: id is NULL");
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (!check_desc(r, d, "begin_object")) return VK_ERROR_VALIDATION_FAILED_EXT;
  return add_slot(r, d, NULL, "begin_object", id);
}


VkResult splat_renderer_object_fits(splat_renderer *r, const splat_object_desc *d, bool alone) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!check_desc(r, d, "object_fits")) return VK_ERROR_VALIDATION_FAILED_EXT;
  uint64_t total = (alone ? 0 : (uint64_t)render_objects_total(r)) + d->count;
  if (total > UINT32_MAX) {
    rlog(r, "object_fits: %llu splats in all is above 2^32 - 1", (unsigned long long)total);
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  const char *then = alone ? "it does not fit alone" : "it does not fit beside the objects loaded";
  return check_memory(r, d->count, d->sh_degree, (uint32_t)total, alone, then) ? VK_SUCCESS
                                                                                : VK_ERROR_OUT_OF_DEVICE_MEMORY;
}


/* Whether an object is still being filled (its splats not all resident). */
static bool streaming_left(const splat_renderer *r) {
  for (uint32_t i = 0; i < SPLAT_MAX_OBJECTS; i++)
    if (r->objects[i].resident < r->objects[i].count) return true;
  return false;
}


/* The object `id` names, or NULL (logged as `call`'s). */
static object_gpu *find_object(splat_renderer *r, uint32_t id, const char *call) {
  if (id < SPLAT_MAX_OBJECTS && r->objects[id].count) return &r->objects[id];
  rlog(r, "%s: %u is not an object", call, id);
  return NULL;
}


VkResult splat_renderer_append_object(splat_renderer *r, uint32_t id, const splat_scene *part) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  double t0 = render_seconds();
  r->upload_stats = (splat_upload_stats){0};
  object_gpu *o = find_object(r, id, "append_object");
  if (!o) return VK_ERROR_VALIDATION_FAILED_EXT;
  char call[64];
  snprintf(call, sizeof call, "append_object (object %u)", id);
  const char *then = "the object's resident splats stay as they were";
  if (!check_scene(r, part, call, then)) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (part->sh_degree != o->sh_degree) {
    rlog(r, "%s: the part's SH degree is %u, the object's %u; %s", call, part->sh_degree, o->sh_degree, then);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (part->count > o->count - o->resident) {
    rlog(r, "%s: a part of %u splats after the %u resident is more than the object's %u; %s", call, part->count,
         o->resident, o->count, then);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  if (!validate(r, part, true, o->resident, call, then)) return VK_ERROR_VALIDATION_FAILED_EXT;
  VkResult res = object_append(r, o, part, true);
  if (res == VK_SUCCESS && !streaming_left(r)) res = render_stream_ring_end(r); /* the last copies done */
  if (res != VK_SUCCESS) {
    rlog(r, "%s: copying %u splats failed (%s); %s", call, part->count, ssvk_result_name(res), then);
    return res;
  }
  stats_end(r, part->count, t0);
  return VK_SUCCESS;
}


VkResult splat_renderer_finish_object(splat_renderer *r, uint32_t id) {
  if (!r) return VK_ERROR_VALIDATION_FAILED_EXT;
  object_gpu *o = find_object(r, id, "finish_object");
  if (!o) return VK_ERROR_VALIDATION_FAILED_EXT;
  if (!o->resident) {
    rlog(r, "finish_object: object %u has no splat resident (remove it instead)", id);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  VkResult res = render_stream_ring_end(r); /* its copies done before its chunks change */
  if (res != VK_SUCCESS) return res;
  /* chunks past the resident splats freed, the last one's count cut */
  while (o->chunks > 1 && o->chunk[o->chunks - 1].first >= o->resident) {
    object_chunk *ch = &o->chunk[--o->chunks];
    ssvk_buffer *bufs[] = {&ch->pos, &ch->cov, &ch->sh};
    for (size_t i = 0; i < 3; i++) ssvk_buffer_destroy(&r->vk, bufs[i]);
  }
  object_chunk *last = &o->chunk[o->chunks - 1];
  last->count = o->resident - last->first;
  o->count = o->resident;
  return VK_SUCCESS;
}


uint32_t splat_renderer_object_resident(const splat_renderer *r, uint32_t id) {
  return r && id < SPLAT_MAX_OBJECTS ? r->objects[id].resident : 0;
}


VkResult splat_renderer_remove_object(splat_renderer *r, uint32_t id) {
  if (!r || id >= SPLAT_MAX_OBJECTS || !r->objects[id].count) {
    if (r) rlog(r, "remove_object: %u is not an object", id);
    return VK_ERROR_VALIDATION_FAILED_EXT;
  }
  (void)render_stream_ring_end(r); /* appends' copies may still write into it */
  render_object_destroy(r, &r->objects[id]);
  return VK_SUCCESS;
}

