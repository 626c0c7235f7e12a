/* upload.c: an object's splats packed on the CPU (half-float SH, covariance) and copied to its
 * chunks through a two-half staging ring. */
#include "render_internal.h"

#include "splat_project.h"
#include "splat_shared.h"
#include "render_spv_spv.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>


/* IEEE half from float, round to nearest even; SH values are small and finite. */
static uint16_t to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xFFu, m = x & 0x7FFFFFu;
  if (e == 0xFF) return (uint16_t)(sign | 0x7C00u | (m ? 0x200u : 0));
  int exp = (int)e - 127 + 15;
  if (exp >= 31) return (uint16_t)(sign | 0x7C00u);
  if (exp <= 0) {
    if (exp < -10) return (uint16_t)sign;
    m |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - exp);
    uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)exp << 10) | (m >> 13), rem = m & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
  return (uint16_t)(sign | h);
}


/* Splats [first, first + count) of the scene in the GPU layout (splat_shared.h): positions +
 * opacity, covariances, SH halves (sh_words words a splat, unused halves zero). */
static void pack_splats(const splat_scene *sc, uint32_t first, uint32_t count, uint32_t sh_words, float *pos,
                        float *cov, uint16_t *sh) {
  uint32_t halves = sc->sh_coeffs * 3;
  memset(sh, 0, (size_t)count * sh_words * 4);
  for (uint32_t j = 0; j < count; j++) {
    size_t i = (size_t)first + j;
    memcpy(pos + 4 * j, sc->positions + 3 * i, 12);
    pos[4 * j + 3] = sc->opacities[i];
    float c[6];
    splat_cov3d(sc->scales + 3 * i, sc->rotations + 4 * i, c);
    float *o = cov + 8 * j;
    o[0] = c[0], o[1] = c[1], o[2] = c[2], o[3] = c[3], o[4] = c[4], o[5] = c[5], o[6] = 0, o[7] = 0;
    for (uint32_t h = 0; h < halves; h++) sh[(size_t)j * sh_words * 2 + h] = to_half(sc->sh[i * halves + h]);
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
 * to the chunk's buffers at `at` splats in. */
static VkResult upload_piece(uploader *u, const splat_scene *sc, const object_gpu *o, const object_chunk *c,
                             uint32_t at, uint32_t count) {
  uint32_t k = u->next;
  u->next ^= 1u;
  VkResult res = uploader_wait(u, k);
  if (res != VK_SUCCESS) return res;
  VkDeviceSize base = k * u->half, pos_size = 16ull * count, cov_size = 32ull * count;
  char *m = (char *)u->staging.mapped + base;
  pack_splats(sc, c->first + at, count, o->sh_words, (float *)m, (float *)(m + pos_size),
              (uint16_t *)(m + pos_size + cov_size));
  VkCommandBuffer cmd = u->cmd[k];
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                 .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  res = vkBeginCommandBuffer(cmd, &bi);
  if (res == VK_SUCCESS) {
    VkBufferCopy c0 = {base, 16ull * at, pos_size}, c1 = {base + pos_size, 32ull * at, cov_size},
                 c2 = {base + pos_size + cov_size, 4ull * o->sh_words * at, 4ull * o->sh_words * count};
    vkCmdCopyBuffer(cmd, u->staging.buffer, c->pos.buffer, 1, &c0);
    vkCmdCopyBuffer(cmd, u->staging.buffer, c->cov.buffer, 1, &c1);
    vkCmdCopyBuffer(cmd, u->staging.buffer, c->sh.buffer, 1, &c2);
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
  VkDeviceSize per_splat = 48ull + 4ull * o->sh_words;
  uploader u;
  VkResult res = uploader_begin(r, per_splat * o->count, &u);
  if (res != VK_SUCCESS) return res;
  uint32_t piece = (uint32_t)(u.half / per_splat);
  for (uint32_t c = 0; c < o->chunks && res == VK_SUCCESS; c++)
    for (uint32_t at = 0; at < o->chunk[c].count && res == VK_SUCCESS; at += piece) {
      uint32_t n = o->chunk[c].count - at < piece ? o->chunk[c].count - at : piece;
      res = upload_piece(&u, sc, o, &o->chunk[c], at, n);
    }
  for (uint32_t k = 0; k < 2 && res == VK_SUCCESS; k++) res = uploader_wait(&u, k);
  uploader_end(&u);
  return res;
}

