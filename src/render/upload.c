/* upload.c: an object's splats packed on the CPU (shape, SH at the object's precision) and
 * copied to its chunks through a two-half staging ring. */
#include "render_internal.h"

#include "splat_project.h"
#include "splat_shared.h"
#include "render_spv_spv.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>


/* One splat's SH values at the object's format (splat_shared.h), into its `sh_words` words. */
static void pack_sh(const object_gpu *o, const float *v, uint32_t values, uint32_t *out) {
  if (o->sh_format == SP_SH_FORMAT_F32) {
    memcpy(out, v, 4ull * values);
  } else if (o->sh_format == SP_SH_FORMAT_U8) {
    for (uint32_t h = 0; h < values; h++)
      out[h >> 2] |= (uint32_t)splat_sh8_encode(v[h], o->sh8_scale[h], o->sh8_offset[h]) << (8 * (h & 3));
  } else {
    for (uint32_t h = 0; h < values; h++) out[h >> 1] |= (uint32_t)splat_float_to_half(v[h]) << (16 * (h & 1));
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


/* Uploads go through a staging ring of two halves: the CPU packs one piece while the GPU copies
 * the other, each piece waited for by its fence before its half is reused. */
#define UPLOAD_STAGING_BYTES (64ull << 20)


typedef struct uploader {
  splat_renderer *r;
  ssvk_buffer staging;
  VkDeviceSize half;
  VkCommandBuffer cmd[2];
  VkFence fence[2];
  bool pending[2];
  uint32_t next;
} uploader;


static VkResult uploader_wait(uploader *u, uint32_t k) {
  if (!u->pending[k]) return VK_SUCCESS;
  u->pending[k] = false;
  VkResult res = vkWaitForFences(u->r->vk.device, 1, &u->fence[k], VK_TRUE, UINT64_MAX);
  if (res == VK_SUCCESS) res = vkResetFences(u->r->vk.device, 1, &u->fence[k]);
  if (res != VK_SUCCESS) rlog(u->r, "uploading splats: waiting for a copy failed (%s)", ssvk_result_name(res));
  return res;
}


static void uploader_end(uploader *u) {
  VkDevice d = u->r->vk.device;
  for (uint32_t k = 0; k < 2; k++) {
    (void)uploader_wait(u, k);
    if (u->fence[k]) vkDestroyFence(d, u->fence[k], u->r->vk.allocator);
    if (u->cmd[k]) vkFreeCommandBuffers(d, u->r->upload_pool, 1, &u->cmd[k]);
  }
  ssvk_buffer_destroy(&u->r->vk, &u->staging);
}


static VkResult uploader_begin(splat_renderer *r, VkDeviceSize total, uploader *u) {
  *u = (uploader){.r = r};
  VkDeviceSize size = total < UPLOAD_STAGING_BYTES ? total : UPLOAD_STAGING_BYTES;
  if (size > r->max_buffer) size = r->max_buffer;
  u->half = (size / 2) & ~(VkDeviceSize)15;
  VkResult res = ssvk_buffer_create(&r->vk, 2 * u->half, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, false,
                                    "splat staging", &u->staging);
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = r->upload_pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 1};
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  for (uint32_t k = 0; k < 2 && res == VK_SUCCESS; k++) {
    res = vkAllocateCommandBuffers(r->vk.device, &ai, &u->cmd[k]);
    if (res != VK_SUCCESS) u->cmd[k] = VK_NULL_HANDLE;
    if (res == VK_SUCCESS) res = vkCreateFence(r->vk.device, &fci, r->vk.allocator, &u->fence[k]);
    if (res != VK_SUCCESS) u->fence[k] = VK_NULL_HANDLE;
  }
  if (res != VK_SUCCESS) uploader_end(u);
  return res;
}


/* Packs splats [first, first + count) of one chunk into the next staging half and copies them
 * to the chunk's buffers at `at` splats in; the first piece of a chunk also its SH header. */
static VkResult upload_piece(uploader *u, const splat_scene *sc, const object_gpu *o, const object_chunk *c,
                             uint32_t at, uint32_t count) {
  uint32_t k = u->next;
  u->next ^= 1u;
  VkResult res = uploader_wait(u, k);
  if (res != VK_SUCCESS) return res;
  VkDeviceSize header = at == 0 ? 4ull * SP_SH_HEADER_WORDS(o->sh_format) : 0;
  VkDeviceSize base = k * u->half, pos_size = 16ull * count, sh_size = 4ull * o->sh_words * count;
  char *m = (char *)u->staging.mapped + base;
  pack_splats(sc, o, c->first + at, count, (float *)m, (uint32_t *)(m + pos_size), (uint32_t *)(m + 2 * pos_size));
  if (header) { /* scale[48], offset[48]: splat_shared.h */
    memcpy(m + 2 * pos_size + sh_size, o->sh8_scale, sizeof o->sh8_scale);
    memcpy(m + 2 * pos_size + sh_size + sizeof o->sh8_scale, o->sh8_offset, sizeof o->sh8_offset);
  }
  VkDeviceSize sh_at = 4ull * (SP_SH_HEADER_WORDS(o->sh_format) + (VkDeviceSize)o->sh_words * at);
  VkCommandBuffer cmd = u->cmd[k];
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  res = vkBeginCommandBuffer(cmd, &bi);
  if (res == VK_SUCCESS) {
    VkBufferCopy c0 = {base, 16ull * at, pos_size}, c1 = {base + pos_size, 16ull * at, pos_size},
                 c2 = {base + 2 * pos_size, sh_at, sh_size}, c3 = {base + 2 * pos_size + sh_size, 0, header};
    vkCmdCopyBuffer(cmd, u->staging.buffer, c->pos.buffer, 1, &c0);
    vkCmdCopyBuffer(cmd, u->staging.buffer, c->cov.buffer, 1, &c1);
    vkCmdCopyBuffer(cmd, u->staging.buffer, c->sh.buffer, 1, &c2);
    if (header) vkCmdCopyBuffer(cmd, u->staging.buffer, c->sh.buffer, 1, &c3);
    res = vkEndCommandBuffer(cmd);
  }
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
  if (res == VK_SUCCESS) res = vkQueueSubmit(u->r->queue, 1, &si, u->fence[k]);
  if (res == VK_SUCCESS)
    u->pending[k] = true;
  else
    rlog(u->r, "uploading splats: recording or submitting a copy failed (%s)", ssvk_result_name(res));
  return res;
}


/* Every chunk of the object through the staging ring; returns once the last copy is done. */
VkResult render_upload(splat_renderer *r, object_gpu *o, const splat_scene *sc) {
  VkDeviceSize per_splat = 32ull + 4ull * o->sh_words, header = 4ull * SP_SH_HEADER_WORDS(o->sh_format);
  uploader u;
  /* both halves hold the whole object when it is small (+16: the halves' rounding down) */
  VkDeviceSize all = render_object_bytes(o->sh_format, o->sh_words, o->count, o->chunks) + 16;
  VkResult res = uploader_begin(r, 2 * all, &u);
  if (res != VK_SUCCESS) return res;
  uint32_t piece = (uint32_t)((u.half - header) / per_splat);
  for (uint32_t c = 0; c < o->chunks && res == VK_SUCCESS; c++)
    for (uint32_t at = 0; at < o->chunk[c].count && res == VK_SUCCESS; at += piece) {
      uint32_t n = o->chunk[c].count - at < piece ? o->chunk[c].count - at : piece;
      res = upload_piece(&u, sc, o, &o->chunk[c], at, n);
    }
  for (uint32_t k = 0; k < 2 && res == VK_SUCCESS; k++) res = uploader_wait(&u, k);
  uploader_end(&u);
  return res;
}

