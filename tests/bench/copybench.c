/* copybench: the host -> device copy rates a scene upload is bounded by, on this machine:
 *   memcpy:   host memory into a mapped staging buffer (HOST_VISIBLE | HOST_COHERENT), on T
 *             threads, through a ring of pieces (the CPU side of an upload);
 *   transfer: vkCmdCopyBuffer from host-visible staging into a DEVICE_LOCAL buffer, pieces of
 *             the ring in one submission (the link: PCIe / C2C), GPU timestamps and wall time;
 *   both:     the two overlapped as the renderer's upload does (pack piece k while the GPU copies
 *             the others, a fence a piece), with memcpy standing in for the packing: the best
 *             an upload through this ring can do.
 * Medians of --runs; GB/s are 10^9 bytes a second. Prints one table; `--threads 1,16` for rows.
 *
 * usage: copybench [--mib 2048] [--piece-mib 16] [--pieces 4] [--threads 1,4,16] [--runs 5] */
#include "vkh.h"

#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_PIECES = 16, MAX_THREADS = 64, MAX_ROWS = 8, MAX_RUNS = 50 };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[n / 2];
}

typedef struct slice {
  uint8_t *to;
  const uint8_t *from;
  size_t bytes;
} slice;

static void *copy_slice(void *p) {
  slice *s = p;
  memcpy(s->to, s->from, s->bytes);
  return NULL;
}

/* memcpy of `bytes` on `threads` threads, each a contiguous slice. */
static void copy_parallel(uint8_t *to, const uint8_t *from, size_t bytes, int threads) {
  slice s[MAX_THREADS];
  pthread_t tid[MAX_THREADS];
  threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
  for (int t = 0; t < threads; t++) {
    size_t lo = bytes * (size_t)t / (size_t)threads, hi = bytes * (size_t)(t + 1) / (size_t)threads;
    s[t] = (slice){to + lo, from + lo, hi - lo};
  }
  for (int t = 1; t < threads; t++)
    if (pthread_create(&tid[t], NULL, copy_slice, &s[t]) != 0) (void)copy_slice(&s[t]), tid[t] = 0;
  (void)copy_slice(&s[0]);
  for (int t = 1; t < threads; t++)
    if (tid[t]) pthread_join(tid[t], NULL);
}

typedef struct bench {
  vkh_context ctx;
  size_t total, piece;
  int pieces;
  uint8_t *host;
  vkh_buffer staging, device;
  VkCommandBuffer cmd[MAX_PIECES];
  VkFence fence[MAX_PIECES];
  VkQueryPool queries;
} bench;

static void record_copy(bench *b, VkCommandBuffer cmd, VkDeviceSize from, VkDeviceSize to, VkDeviceSize bytes) {
  VkBufferCopy c = {from, to, bytes};
  vkCmdCopyBuffer(cmd, b->staging.buffer, b->device.buffer, 1, &c);
}

/* The ring's pieces copied to the device in one submission, `total` bytes in all: seconds by
 * GPU timestamps (*gpu) and by the wall. */
static double transfer_once(bench *b, double *gpu) {
  VkCommandBuffer cmd = vkh_begin(&b->ctx);
  vkCmdResetQueryPool(cmd, b->queries, 0, 2);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, b->queries, 0);
  for (size_t at = 0, k = 0; at < b->total; at += b->piece, k = (k + 1) % (size_t)b->pieces) {
    size_t n = b->total - at < b->piece ? b->total - at : b->piece;
    record_copy(b, cmd, k * b->piece, at, n);
  }
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b->queries, 1);
  double t0 = now_s();
  vkh_submit_wait(&b->ctx, cmd);
  double wall = now_s() - t0;
  uint64_t ts[2];
  VK_CHECK(vkGetQueryPoolResults(b->ctx.device, b->queries, 0, 2, sizeof ts, ts, 8,
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  *gpu = (double)(ts[1] - ts[0]) * b->ctx.props.limits.timestampPeriod * 1e-9;
  return wall;
}

/* memcpy into the ring only (no GPU): seconds for `total` bytes. */
static double memcpy_once(bench *b, int threads) {
  double t0 = now_s();
  for (size_t at = 0, k = 0; at < b->total; at += b->piece, k = (k + 1) % (size_t)b->pieces) {
    size_t n = b->total - at < b->piece ? b->total - at : b->piece;
    copy_parallel((uint8_t *)b->staging.mapped + k * b->piece, b->host + at, n, threads);
  }
  return now_s() - t0;
}

/* The upload's pipeline: piece k filled once its previous copy is done, then submitted. */
static double both_once(bench *b, int threads) {
  bool pending[MAX_PIECES] = {false};
  double t0 = now_s();
  for (size_t at = 0, k = 0; at < b->total; at += b->piece, k = (k + 1) % (size_t)b->pieces) {
    size_t n = b->total - at < b->piece ? b->total - at : b->piece;
    if (pending[k]) {
      VK_CHECK(vkWaitForFences(b->ctx.device, 1, &b->fence[k], VK_TRUE, UINT64_MAX));
      VK_CHECK(vkResetFences(b->ctx.device, 1, &b->fence[k]));
    }
    copy_parallel((uint8_t *)b->staging.mapped + k * b->piece, b->host + at, n, threads);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_CHECK(vkBeginCommandBuffer(b->cmd[k], &bi));
    record_copy(b, b->cmd[k], k * b->piece, at, n);
    VK_CHECK(vkEndCommandBuffer(b->cmd[k]));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &b->cmd[k]};
    VK_CHECK(vkQueueSubmit(b->ctx.queue, 1, &si, b->fence[k]));
    pending[k] = true;
  }
  for (int k = 0; k < b->pieces; k++)
    if (pending[k]) {
      VK_CHECK(vkWaitForFences(b->ctx.device, 1, &b->fence[k], VK_TRUE, UINT64_MAX));
      VK_CHECK(vkResetFences(b->ctx.device, 1, &b->fence[k]));
    }
  return now_s() - t0;
}

static int parse_list(const char *s, int *out, int max) {
  int n = 0;
  for (char *end; *s && n < max; s = *end ? end + 1 : end) {
    long v = strtol(s, &end, 10);
    if (end == s || v < 1 || v > MAX_THREADS || (*end && *end != ',')) return -1;
    out[n++] = (int)v;
  }
  return n;
}

int main(int argc, char **argv) {
  long mib = 2048, piece_mib = 16;
  int pieces = 4, runs = 5, threads[MAX_ROWS] = {1, 4, 16}, nthreads = 3;
  static const struct option opts[] = {{"mib", 1, 0, 'm'}, {"piece-mib", 1, 0, 'p'}, {"pieces", 1, 0, 'k'},
                                       {"threads", 1, 0, 't'}, {"runs", 1, 0, 'r'}, {0, 0, 0, 0}};
  for (int c; (c = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
    if (c == 'm') mib = atol(optarg);
    else if (c == 'p') piece_mib = atol(optarg);
    else if (c == 'k') pieces = atoi(optarg);
    else if (c == 'r') runs = atoi(optarg);
    else if (c == 't' && (nthreads = parse_list(optarg, threads, MAX_ROWS)) > 0) continue;
    else {
      fprintf(stderr, "usage: copybench [--mib 2048] [--piece-mib 16] [--pieces 4] [--threads 1,4,16] [--runs 5]\n");
      return 2;
    }
  }
  if (mib < 1 || piece_mib < 1 || piece_mib > mib || pieces < 1 || pieces > MAX_PIECES || runs < 1 ||
      runs > MAX_RUNS || nthreads < 1) {
    fprintf(stderr, "copybench: --mib >= --piece-mib >= 1, --pieces 1..%d, --runs 1..%d, --threads 1..%d each\n",
            MAX_PIECES, MAX_RUNS, MAX_THREADS);
    return 2;
  }
  bench b = {.total = (size_t)mib << 20, .piece = (size_t)piece_mib << 20, .pieces = pieces};
  vkh_options o = vkh_default_options(false);
  o.headless = true;
  vkh_init(&b.ctx, &o);
  b.host = malloc(b.total);
  if (!b.host) {
    fprintf(stderr, "copybench: out of memory for %ld MiB\n", mib);
    return 1;
  }
  for (size_t i = 0; i < b.total; i += 4096) b.host[i] = (uint8_t)i; /* pages made resident */
  b.staging = vkh_buffer_create(&b.ctx, b.piece * (size_t)pieces, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, "staging");
  b.device = vkh_buffer_create(&b.ctx, b.total, VK_BUFFER_USAGE_TRANSFER_DST_BIT, false, "device");
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = b.ctx.pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = (uint32_t)pieces};
  VK_CHECK(vkAllocateCommandBuffers(b.ctx.device, &ai, b.cmd));
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  for (int k = 0; k < pieces; k++) VK_CHECK(vkCreateFence(b.ctx.device, &fci, NULL, &b.fence[k]));
  VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
                              .queryCount = 2};
  VK_CHECK(vkCreateQueryPool(b.ctx.device, &qi, NULL, &b.queries));

  printf("copybench: %s, %ld MiB in pieces of %ld MiB, a ring of %d, medians of %d (after one warm-up)\n",
         b.ctx.props.deviceName, mib, piece_mib, pieces, runs);
  double gpu[MAX_RUNS], wall[MAX_RUNS], gb = (double)b.total * 1e-9;
  (void)transfer_once(&b, &gpu[0]);
  for (int r = 0; r < runs; r++) wall[r] = transfer_once(&b, &gpu[r]);
  printf("  transfer (staging -> device, one submission): %.2f GB/s by GPU timestamps, %.2f GB/s wall\n",
         gb / median(gpu, runs), gb / median(wall, runs));
  for (int t = 0; t < nthreads; t++) {
    double m[MAX_RUNS], both[MAX_RUNS];
    (void)memcpy_once(&b, threads[t]);
    for (int r = 0; r < runs; r++) m[r] = memcpy_once(&b, threads[t]);
    (void)both_once(&b, threads[t]);
    for (int r = 0; r < runs; r++) both[r] = both_once(&b, threads[t]);
    printf("  %2d threads: memcpy into staging %.2f GB/s; memcpy + transfer overlapped (the upload's ring) %.2f GB/s\n",
           threads[t], gb / median(m, runs), gb / median(both, runs));
  }
  vkDestroyQueryPool(b.ctx.device, b.queries, NULL);
  for (int k = 0; k < pieces; k++) vkDestroyFence(b.ctx.device, b.fence[k], NULL);
  vkFreeCommandBuffers(b.ctx.device, b.ctx.pool, (uint32_t)pieces, b.cmd);
  vkh_buffer_destroy(&b.ctx, &b.staging);
  vkh_buffer_destroy(&b.ctx, &b.device);
  free(b.host);
  uint32_t messages = b.ctx.validation_messages;
  vkh_destroy(&b.ctx);
  if (messages) fprintf(stderr, "copybench: %u validation messages\n", messages);
  return messages ? 1 : 0;
}
