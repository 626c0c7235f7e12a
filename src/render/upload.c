/* upload.c: an object's splats packed on the CPU (shape, SH at the object's precision) by the
 * renderer's upload threads and copied to its chunks through a staging ring of a few pieces. */
#define _POSIX_C_SOURCE 200809L /* sysconf(_SC_NPROCESSORS_ONLN), clock_gettime */
#include "render_internal.h"

#include "splat_project.h"
#include "splat_shared.h"
#include "render_spv_spv.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


double render_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


/* One splat's SH values at the object's format (splat_shared.h), into its `sh_words` words. */
static void pack_sh(const object_gpu *o, const float *v, uint32_t values, uint32_t *out) {
  if (o->sh_format == SP_SH_FORMAT_F32) {
    memcpy(out, v, 4ull * values);
  } else if (o->sh_format == SP_SH_FORMAT_U8) {
    for (uint32_t h = 0; h < values; h++)
      out[h >> 2] |= (uint32_t)splat_sh8_encode(v[h], o->sh8_scale[h], o->sh8_offset[h]) << (8 * (h & 3));
  } else {
    render_pack_halves(v, values, out);
  }
}


/* Splats [first, first + count) of the scene in the GPU layout (splat_shared.h): positions +
 * opacity, packed shapes, SH (sh_words words a splat, unused bits zero). */
static void pack_splats(const splat_scene *sc, const object_gpu *o, uint32_t first, uint32_t count, float *pos,
                        uint32_t *shape, uint32_t *sh) {
  uint32_t values = sc->sh_coeffs * 3;
  memset(sh, 0, (size_t)count * o->sh_words * 4);
  for (uint32_t j = 0; j < count; j++) {
    size_t i = (size_t)first + j;
    memcpy(pos + 4 * j, sc->positions + 3 * i, 12);
    pos[4 * j + 3] = sc->opacities[i];
    splat_pack_shape(sc->scales + 3 * i, sc->rotations + 4 * i, shape + 4 * j);
    pack_sh(o, sc->sh + i * values, values, sh + (size_t)j * o->sh_words);
  }
}


void render_pack_splats(const splat_scene *sc, const object_gpu *o, uint32_t first, uint32_t count, float *pos,
                        uint32_t *shape, uint32_t *sh) {
  pack_splats(sc, o, first, count, pos, shape, sh);
}


/* A slice of a piece for one thread: scene splats [first, first + count) and where they go. */
typedef struct pack_job {
  const splat_scene *sc;
  const object_gpu *o;
  uint32_t first, count;
  float *pos;
  uint32_t *shape, *sh;
} pack_job;


static void *pack_job_run(void *p) {
  pack_job *j = p;
  pack_splats(j->sc, j->o, j->first, j->count, j->pos, j->shape, j->sh);
  return NULL;
}


/* pack_splats over up to `threads` threads, each a contiguous slice (whole splats, so no two
 * write one word); the calling thread packs the first slice and any whose thread did not start. */
static void pack_parallel(uint32_t threads, uint32_t min_splats, const splat_scene *sc, const object_gpu *o,
                          uint32_t first, uint32_t count, float *pos, uint32_t *shape, uint32_t *sh) {
  uint32_t most = count / (min_splats ? min_splats : 1);
  uint32_t n = threads < most ? threads : most ? most : 1;
  if (n > SPLAT_MAX_UPLOAD_THREADS) n = SPLAT_MAX_UPLOAD_THREADS;
  pack_job job[SPLAT_MAX_UPLOAD_THREADS];
  pthread_t tid[SPLAT_MAX_UPLOAD_THREADS];
  bool started[SPLAT_MAX_UPLOAD_THREADS] = {false};
  for (uint32_t t = 0; t < n; t++) {
    uint32_t lo = (uint32_t)((uint64_t)count * t / n), hi = (uint32_t)((uint64_t)count * (t + 1) / n);
    job[t] = (pack_job){sc, o, first + lo, hi - lo, pos + 4ull * lo, shape + 4ull * lo, sh + (size_t)o->sh_words * lo};
  }
  for (uint32_t t = 1; t < n; t++) started[t] = pthread_create(&tid[t], NULL, pack_job_run, &job[t]) == 0;
  if (n) (void)pack_job_run(&job[0]);
  for (uint32_t t = 1; t < n; t++)
    if (started[t])
      (void)pthread_join(tid[t], NULL);
    else
      (void)pack_job_run(&job[t]);
}


uint32_t render_default_upload_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) return 1;
  return n > SPLAT_DEFAULT_UPLOAD_THREADS ? SPLAT_DEFAULT_UPLOAD_THREADS : (uint32_t)n;
}


/* Uploads go through a staging ring of up to UPLOAD_PIECES pieces: the CPU packs one while the
 * GPU copies the others, each piece waited for by its fence before it is packed again. */
#define UPLOAD_PIECE_BYTES (16ull << 20)
#define UPLOAD_PIECES 4u


struct uploader {
  splat_renderer *r;
  ssvk_buffer staging;
  VkDeviceSize piece_bytes;
  uint32_t pieces;
  VkCommandBuffer cmd[UPLOAD_PIECES];
  VkFence fence[UPLOAD_PIECES];
  bool pending[UPLOAD_PIECES];
  uint32_t next;
};
typedef struct uploader uploader;


/* A piece stays pending until its fence is waited for and reset, so that its copy is never
 * freed or its fence reused under the GPU. */
static VkResult uploader_wait(uploader *u, uint32_t k) {
  if (!u->pending[k]) return VK_SUCCESS;
  double t0 = render_seconds();
  const char *call = "vkWaitForFences";
  VkResult res = u->r->vk.fn.vkWaitForFences(u->r->vk.device, 1, &u->fence[k], VK_TRUE, UINT64_MAX);
  u->r->upload_stats.wait_s += render_seconds() - t0;
  if (res == VK_SUCCESS) call = "vkResetFences", res = u->r->vk.fn.vkResetFences(u->r->vk.device, 1, &u->fence[k]);
  u->pending[k] = res != VK_SUCCESS;
  if (res != VK_SUCCESS) rlog(u->r, "uploading splats: %s for a copy failed (%s)", call, ssvk_result_name(res));
  return res;
}


/* Waits for every piece (a failed wait is tried once more) and frees the ring; a copy that may
 * still run (a wait failed twice, the device not lost) keeps what it uses rather than have it
 * freed under the GPU. */
static void uploader_end(uploader *u) {
  VkDevice d = u->r->vk.device;
  bool idle = true;
  for (uint32_t k = 0; k < u->pieces; k++) {
    VkResult res = VK_SUCCESS;
    for (int attempt = 0; attempt < 2 && u->pending[k]; attempt++) res = uploader_wait(u, k);
    if (u->pending[k] && res != VK_ERROR_DEVICE_LOST) {
      idle = false;
      continue;
    }
    if (u->fence[k]) u->r->vk.fn.vkDestroyFence(d, u->fence[k], u->r->vk.allocator);
    if (u->cmd[k]) u->r->vk.fn.vkFreeCommandBuffers(d, u->r->upload_pool, 1, &u->cmd[k]);
  }
  if (idle)
    ssvk_buffer_destroy(&u->r->vk, &u->staging);
  else
    rlog(u->r, "uploading splats: a copy may still run; its staging buffer, command buffer and fence are left "
               "allocated rather than freed under the GPU");
}


/* A ring of `pieces` pieces of piece_bytes (a multiple of 16) each. */
static VkResult uploader_begin(splat_renderer *r, VkDeviceSize piece_bytes, uint32_t pieces, uploader *u) {
  *u = (uploader){.r = r, .piece_bytes = piece_bytes, .pieces = pieces};
  VkResult res = ssvk_buffer_create(&r->vk, pieces * piece_bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, false,
                                    "splat staging", &u->staging);
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = r->upload_pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 1};
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  for (uint32_t k = 0; k < pieces && res == VK_SUCCESS; k++) {
    const char *call = "vkAllocateCommandBuffers";
    res = r->vk.fn.vkAllocateCommandBuffers(r->vk.device, &ai, &u->cmd[k]);
    if (res != VK_SUCCESS) u->cmd[k] = VK_NULL_HANDLE;
    if (res == VK_SUCCESS)
      call = "vkCreateFence", res = r->vk.fn.vkCreateFence(r->vk.device, &fci, r->vk.allocator, &u->fence[k]);
    if (res != VK_SUCCESS) u->fence[k] = VK_NULL_HANDLE;
    if (res != VK_SUCCESS) rlog(r, "uploading splats: %s for the staging ring failed (%s)", call, ssvk_result_name(res));
  }
  if (res != VK_SUCCESS) uploader_end(u);
  return res;
}


/* Packs `count` splats of the part from splat `from` into the next staging piece and copies them
 * to the chunk's buffers at `at` splats in; the first piece of a chunk also its SH header. */
static VkResult upload_piece(uploader *u, const splat_scene *sc, uint32_t from, const object_gpu *o,
                             const object_chunk *c, uint32_t at, uint32_t count) {
  uint32_t k = u->next;
  u->next = (u->next + 1) % u->pieces;
  VkResult res = uploader_wait(u, k);
  if (res != VK_SUCCESS) return res;
  VkDeviceSize header = at == 0 ? 4ull * SP_SH_HEADER_WORDS(o->sh_format) : 0;
  VkDeviceSize base = k * u->piece_bytes, pos_size = 16ull * count, sh_size = 4ull * o->sh_words * count;
  char *m = (char *)u->staging.mapped + base;
  double t0 = render_seconds();
  pack_parallel(u->r->upload_threads, u->r->pack_min_splats, sc, o, from, count, (float *)m, (uint32_t *)(m + pos_size),
                (uint32_t *)(m + 2 * pos_size));
  u->r->upload_stats.pack_s += render_seconds() - t0;
  u->r->upload_stats.bytes += 2 * pos_size + sh_size + header;
  if (header) { /* scale[48], offset[48]: splat_shared.h */
    memcpy(m + 2 * pos_size + sh_size, o->sh8_scale, sizeof o->sh8_scale);
    memcpy(m + 2 * pos_size + sh_size + sizeof o->sh8_scale, o->sh8_offset, sizeof o->sh8_offset);
  }
  VkDeviceSize sh_at = 4ull * (SP_SH_HEADER_WORDS(o->sh_format) + (VkDeviceSize)o->sh_words * at);
  VkCommandBuffer cmd = u->cmd[k];
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  const char *call = "vkBeginCommandBuffer";
  res = u->r->vk.fn.vkBeginCommandBuffer(cmd, &bi);
  if (res == VK_SUCCESS) {
    VkBufferCopy c0 = {base, 16ull * at, pos_size}, c1 = {base + pos_size, 16ull * at, pos_size},
                 c2 = {base + 2 * pos_size, sh_at, sh_size}, c3 = {base + 2 * pos_size + sh_size, 0, header};
    u->r->vk.fn.vkCmdCopyBuffer(cmd, u->staging.buffer, c->pos.buffer, 1, &c0);
    u->r->vk.fn.vkCmdCopyBuffer(cmd, u->staging.buffer, c->cov.buffer, 1, &c1);
    u->r->vk.fn.vkCmdCopyBuffer(cmd, u->staging.buffer, c->sh.buffer, 1, &c2);
    if (header) u->r->vk.fn.vkCmdCopyBuffer(cmd, u->staging.buffer, c->sh.buffer, 1, &c3);
    call = "vkEndCommandBuffer", res = u->r->vk.fn.vkEndCommandBuffer(cmd);
  }
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
  if (res == VK_SUCCESS) call = "vkQueueSubmit", res = u->r->vk.fn.vkQueueSubmit(u->r->queue, 1, &si, u->fence[k]);
  if (res == VK_SUCCESS)
    u->pending[k] = true;
  else
    rlog(u->r, "uploading splats: %s for a copy failed (%s)", call, ssvk_result_name(res));
  return res;
}


/* Splats a piece of the ring holds (0: none, logged). */
static uint32_t piece_splats(splat_renderer *r, const object_gpu *o, VkDeviceSize bytes) {
  VkDeviceSize per_splat = 32ull + 4ull * o->sh_words, header = 4ull * SP_SH_HEADER_WORDS(o->sh_format);
  VkDeviceSize fit = bytes > header ? (bytes - header) / per_splat : 0;
  if (r->upload_piece_splats && r->upload_piece_splats < fit) fit = r->upload_piece_splats;
  if (fit == 0) rlog(r, "uploading splats: a staging piece of %llu bytes holds no splat", (unsigned long long)bytes);
  return fit > UINT32_MAX ? UINT32_MAX : (uint32_t)fit;
}


/* A ring for one upload of `count` splats: a small part in one piece (+16: the piece's rounding
 * down; a header for each chunk it touches), else UPLOAD_PIECES pieces of UPLOAD_PIECE_BYTES. */
static VkResult ring_for(splat_renderer *r, const object_gpu *o, uint32_t count, uploader *u) {
  VkDeviceSize bytes = render_object_bytes(o->sh_format, o->sh_words, count, o->chunks) + 16;
  if (bytes > UPLOAD_PIECE_BYTES) bytes = UPLOAD_PIECE_BYTES;
  if (bytes > r->max_buffer / UPLOAD_PIECES) bytes = r->max_buffer / UPLOAD_PIECES;
  bytes &= ~(VkDeviceSize)15;
  uint32_t piece = piece_splats(r, o, bytes);
  if (!piece) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  uint64_t pieces = count / piece + o->chunks; /* no fewer than it takes */
  return uploader_begin(r, bytes, pieces < UPLOAD_PIECES ? (uint32_t)pieces : UPLOAD_PIECES, u);
}


static VkResult ring_wait_all(uploader *u) {
  VkResult res = VK_SUCCESS;
  for (uint32_t k = 0; k < u->pieces; k++) {
    VkResult w = uploader_wait(u, k);
    if (res == VK_SUCCESS) res = w;
  }
  return res;
}


VkResult render_stream_ring_end(splat_renderer *r) {
  if (!r->stream_ring) return VK_SUCCESS;
  VkResult res = ring_wait_all(r->stream_ring);
  uploader_end(r->stream_ring);
  render_host_free(r->vk.allocator, r->stream_ring);
  r->stream_ring = NULL;
  return res;
}


/* The stream ring, made at the first streamed upload: UPLOAD_PIECES pieces of UPLOAD_PIECE_BYTES. */
static VkResult stream_ring(splat_renderer *r, uploader **out) {
  if (!r->stream_ring) {
    uploader *u = render_host_alloc(r->vk.allocator, sizeof *u);
    if (!u) return VK_ERROR_OUT_OF_HOST_MEMORY;
    VkDeviceSize bytes = UPLOAD_PIECE_BYTES < r->max_buffer / UPLOAD_PIECES ? UPLOAD_PIECE_BYTES
                                                                            : r->max_buffer / UPLOAD_PIECES;
    VkResult res = uploader_begin(r, bytes & ~(VkDeviceSize)15, UPLOAD_PIECES, u);
    if (res != VK_SUCCESS) {
      render_host_free(r->vk.allocator, u);
      return res;
    }
    r->stream_ring = u;
  }
  *out = r->stream_ring;
  return VK_SUCCESS;
}


/* The part's splats (object splats [resident, resident + part->count)) through a staging ring,
 * in pieces that end at chunk ends (render_internal.h says which ring and when it returns). */
VkResult render_upload(splat_renderer *r, object_gpu *o, const splat_scene *sc, bool streaming) {
  if (sc->count == 0) return VK_SUCCESS;
  uploader own, *u = &own;
  VkResult res = streaming ? stream_ring(r, &u) : ring_for(r, o, sc->count, &own);
  if (res != VK_SUCCESS) return res;
  uint32_t piece = piece_splats(r, o, u->piece_bytes);
  if (!piece) res = VK_ERROR_OUT_OF_DEVICE_MEMORY;
  uint32_t at = o->resident, end = o->resident + sc->count, c = 0;
  while (at < end && res == VK_SUCCESS) {
    while (o->chunk[c].first + o->chunk[c].count <= at) c++;
    const object_chunk *ch = &o->chunk[c];
    uint32_t n = ch->first + ch->count - at; /* to the chunk's end, the part's, a piece */
    n = n < end - at ? n : end - at;
    n = n < piece ? n : piece;
    res = upload_piece(u, sc, at - o->resident, o, ch, at - ch->first, n);
    at += n;
  }
  if (streaming && res == VK_SUCCESS) return VK_SUCCESS;
  VkResult w = ring_wait_all(u); /* a failed part is appended again later: none of its copies may be left */
  if (res == VK_SUCCESS) res = w;
  if (!streaming) uploader_end(u);
  return res;
}
