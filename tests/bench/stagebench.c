/* stagebench: GPU time of the depth-sort stage (splatsort_depth.h) on N splat centres, split
 * into the key pass (cull, keys, compaction) and the sort, medians of --runs timed runs after a
 * warm-up that lasts until the times settle, GPU timestamps; the SM clock is read before and after
 * the timed runs where NVML is there (gpu_clock.h). The centres are random points in front of a
 * camera, all visible; the visible count the stage writes is checked against N.
 *
 * usage: stagebench [--n 1M,6M] [--algo quaternary,onesweep,radix16,merge|all] [--key-bits 32,16] [--runs 30]
 *                   [--warmup 10] [--warmup-max-ms 10000] [--key-pass one,three]
 * --key-pass: the key pass in one dispatch (the default) and/or as three
 * (SPLATSORT_DEPTH_CREATE_THREE_PASS_KEYS_BIT), one row each, for an A/B in one process. */
#include "gpu_clock.h"
#include "sort_harness.h"
#include "splatsort_depth.h"
#include "util.h"

#include <getopt.h>
#include <math.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, uint32_t n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n ? v[n / 2] : 0.0;
}

/* Column-major: clip = (1.5 x, 1.5 y, 0, z + 5) of a camera at z = -5 looking down +z. */
static void view_proj(float m[16]) {
  memset(m, 0, 16 * sizeof(float));
  m[0] = 1.5f, m[5] = 1.5f, m[11] = 1.0f, m[15] = 5.0f;
}

enum { WARMUP_MAX_RUNS = 2000 };
static double warmup_max_ms = 10000; /* --warmup-max-ms */

/* The SM clock, read beside the measurements (NULL: no NVML here). */
static gpu_clock *clock_reader;

/* Records `runs` stage runs into one command buffer, timed into pool (VK_NULL_HANDLE: untimed),
 * and waits for them. Between runs, the stage's contract: no earlier use of scratch, indices or
 * draw_count still running. The next run begins with a transfer (vkCmdUpdateBuffer of the
 * scratch header), so TRANSFER is among the destination stages (synchronisation validation
 * caught it missing). */
static void submit_runs(vkh_context *ctx, splatsort_depth *stage, splatsort_depth_info di, uint32_t tc, uint32_t runs,
                        VkQueryPool pool) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                         VK_ACCESS_TRANSFER_WRITE_BIT};
  VkCommandBuffer cmd = vkh_begin(ctx);
  for (uint32_t r = 0; r < runs; r++) {
    di.query_pool = pool;
    di.first_query = r * tc;
    VK_CHECK(splatsort_depth_cmd_sort(stage, cmd, &di, NULL));
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0,
                         NULL);
  }
  vkh_submit_wait(ctx, cmd);
}

/* Warm-up: batches of 10 timed runs until at least `min_runs` and the stage times have settled
 * (gpu_clock_settled), at most WARMUP_MAX_RUNS runs or --warmup-max-ms of GPU time (the
 * batch that passes it is finished). An idle GPU
 * drops its clock and ramps it back under load (docs/performance.md). Returns the run count;
 * *settled whether the rule was met. pool holds at least tc * 10 queries. */
static uint32_t warm_up(vkh_context *ctx, splatsort_depth *stage, const splatsort_depth_info *di, uint32_t tc,
                        VkQueryPool pool, uint32_t min_runs, bool *settled) {
  enum { BATCH = GPU_CLOCK_SETTLE_WINDOW };
  double *times = malloc(sizeof(double) * WARMUP_MAX_RUNS), elapsed = 0;
  double period = ctx->props.limits.timestampPeriod * 1e-6;
  uint64_t ts[64 * BATCH];
  uint32_t count = 0;
  *settled = false;
  while (count + BATCH <= WARMUP_MAX_RUNS && elapsed < warmup_max_ms && tc <= 64) {
    submit_runs(ctx, stage, *di, tc, BATCH, pool);
    VK_CHECK(vkGetQueryPoolResults(ctx->device, pool, 0, tc * BATCH, sizeof(uint64_t) * tc * BATCH, ts, 8,
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    for (uint32_t r = 0; r < BATCH; r++, count++)
      elapsed += times[count] = (double)(ts[r * tc + tc - 1] - ts[r * tc]) * period;
    *settled = count >= min_runs &&
               gpu_clock_settled(times, count, GPU_CLOCK_SETTLE_WINDOW, GPU_CLOCK_SETTLE_TOLERANCE);
    if (*settled) break;
  }
  free(times);
  return count;
}

/* One size, one sorter: returns false when the visible count is wrong. */
static bool bench(vkh_context *ctx, const splatsort *sorter, uint32_t n, uint32_t bits, uint32_t runs,
                  uint32_t min_warmup, bool three_pass) {
  splatsort_depth_create_info dci = {.sorter = sorter, .flags = vkh_sort_flags(ctx), .log = vkh_sort_log};
  if (three_pass) dci.flags |= SPLATSORT_DEPTH_CREATE_THREE_PASS_KEYS_BIT;
  splatsort_depth *stage;
  VK_CHECK(splatsort_depth_create(&dci, &stage));
  splatsort_depth_memory_requirements mr;
  VK_CHECK(splatsort_depth_get_memory_requirements(stage, n, &mr));
  vkh_buffer centres = vkh_buffer_create(ctx, 16ull * n, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false, "centres");
  vkh_buffer scratch = vkh_buffer_create(ctx, mr.scratch_size, mr.scratch_usage, false, "scratch");
  vkh_buffer indices = vkh_buffer_create(ctx, mr.indices_size, mr.indices_usage, false, "indices");
  vkh_buffer draw = vkh_buffer_create(ctx, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, "draw");
  float *c = malloc(16ull * n);
  uint64_t st = 7;
  for (uint32_t i = 0; i < n; i++) {
    float z = (float)(splitmix64(&st) % 1000000) / 1e5f + 1.0f; /* 1..11 in front: w = z + 5 */
    float r = 0.6f * (z + 5.0f);                                 /* inside |1.5 x| <= w */
    c[4 * i] = ((float)(splitmix64(&st) % 2000001) / 1e6f - 1.0f) * r / 1.5f;
    c[4 * i + 1] = ((float)(splitmix64(&st) % 2000001) / 1e6f - 1.0f) * r / 1.5f;
    c[4 * i + 2] = z, c[4 * i + 3] = 0.5f;
  }
  vkh_buffer_write(ctx, &centres, 0, c, 16ull * n);
  free(c);
  uint32_t tc = splatsort_depth_timestamp_count(stage, bits);
  VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                               .queryType = VK_QUERY_TYPE_TIMESTAMP,
                               .queryCount = tc * (runs > GPU_CLOCK_SETTLE_WINDOW ? runs : GPU_CLOCK_SETTLE_WINDOW)};
  VkQueryPool pool;
  VK_CHECK(vkCreateQueryPool(ctx->device, &qpi, NULL, &pool));
  splatsort_depth_info di = {.max_count = n, .count = n, .centers = {centres.buffer, 0, centres.size},
                             .center_stride = 16, .opacity_cull = 1, .near_w = 0.2f, .key_bits = bits,
                             .scratch = {scratch.buffer, 0, mr.scratch_size},
                             .indices = {indices.buffer, 0, mr.indices_size}, .draw_count = {draw.buffer, 4, 4}};
  view_proj(di.view_proj);
  bool settled;
  uint32_t warmup = warm_up(ctx, stage, &di, tc, pool, min_warmup, &settled);
  gpu_clock_stats clock = {0};
  gpu_clock_stats_add(clock_reader, &clock);
  submit_runs(ctx, stage, di, tc, runs, pool);
  gpu_clock_stats_add(clock_reader, &clock);
  uint64_t *ts = malloc(sizeof(uint64_t) * tc * runs);
  VK_CHECK(vkGetQueryPoolResults(ctx->device, pool, 0, tc * runs, sizeof(uint64_t) * tc * runs, ts, 8,
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  double period = ctx->props.limits.timestampPeriod * 1e-6;
  double *total = malloc(sizeof(double) * runs * 3), *keys = total + runs, *sort = keys + runs;
  for (uint32_t r = 0; r < runs; r++) {
    const uint64_t *t = ts + (size_t)r * tc;
    total[r] = (double)(t[tc - 1] - t[0]) * period;
    keys[r] = (double)(t[1] - t[0]) * period;
    sort[r] = (double)(t[tc - 1] - t[1]) * period;
  }
  uint32_t visible = ((const uint32_t *)draw.mapped)[1];
  char cell[32], text[160];
  const char *name = splatsort_algorithm_name(splatsort_get_algorithm(sorter));
  printf("%10u  %-10s  %-8s  %4u  %9.4f  %9.4f  %9.4f  %9.1f  %-8s  %6u%s  %s\n", n, name, three_pass ? "three" : "one",
         bits, median(total, runs), median(keys, runs), median(sort, runs), n / (median(total, runs) * 1e3),
         visible == n ? "yes" : "NO", warmup, settled ? " " : "!", gpu_clock_stats_cell(&clock, cell, sizeof cell));
  fflush(stdout);
  if (clock.below)
    fprintf(stderr, "stagebench: warning: n=%u %s %u-bit: %s; the times are not at full clock\n", n, name, bits,
            gpu_clock_stats_text(&clock, text, sizeof text));
  if (!settled)
    fprintf(stderr, "stagebench: warning: n=%u %s %u-bit: the warm-up times had not settled after %u runs\n", n, name,
            bits, warmup);
  free(total);
  free(ts);
  vkDestroyQueryPool(ctx->device, pool, NULL);
  vkh_buffer *bufs[] = {&centres, &scratch, &indices, &draw};
  for (int i = 0; i < 4; i++) vkh_buffer_destroy(ctx, bufs[i]);
  splatsort_depth_destroy(stage);
  return visible == n;
}

/* --algo quaternary,onesweep,radix16,merge|all */
static bool parse_algos(const char *text, bool want[SPLATSORT_ALGORITHM_COUNT]) {
  splatsort_algorithm list[SPLATSORT_ALGORITHM_COUNT];
  uint32_t n = sort_algorithms_parse("stagebench", text, false, list, SPLATSORT_ALGORITHM_COUNT);
  for (int a = 0; a < SPLATSORT_ALGORITHM_COUNT; a++) want[a] = false;
  for (uint32_t i = 0; i < n; i++) want[list[i]] = true;
  return n > 0;
}

int main(int argc, char **argv) {
  uint32_t sizes[16] = {1u << 20}, nsizes = 1, bits[4] = {32}, nbits = 1, runs = 30, min_warmup = 10;
  bool want[SPLATSORT_ALGORITHM_COUNT] = {false, true, true}; /* by splatsort_algorithm: quaternary, onesweep */
  bool want_pass[2] = {true, false};                           /* key pass: one dispatch, three */
  static const struct option opts[] = {{"n", required_argument, NULL, 'n'},
                                       {"algo", required_argument, NULL, 'a'},
                                       {"key-bits", required_argument, NULL, 'b'},
                                       {"runs", required_argument, NULL, 'r'},
                                       {"warmup", required_argument, NULL, 'w'},
                                       {"warmup-max-ms", required_argument, NULL, 'm'},
                                       {"key-pass", required_argument, NULL, 'k'},
                                       {NULL, 0, NULL, 0}};
  for (int ch; (ch = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
    bool ok = true;
    if (ch == 'n') ok = (nsizes = parse_size_list(optarg, sizes, 16)) > 0;
    else if (ch == 'b') ok = (nbits = parse_size_list(optarg, bits, 4)) > 0;
    else if (ch == 'r') ok = (runs = (uint32_t)strtoul(optarg, NULL, 10)) >= 1 && runs <= 1000;
    else if (ch == 'm') ok = (warmup_max_ms = strtod(optarg, NULL)) >= 0;
    else if (ch == 'w') ok = (min_warmup = (uint32_t)strtoul(optarg, NULL, 10)) <= WARMUP_MAX_RUNS;
    else if (ch == 'k') {
      want_pass[0] = strstr(optarg, "one") != NULL, want_pass[1] = strstr(optarg, "three") != NULL;
      ok = want_pass[0] || want_pass[1];
    } else if (ch == 'a') {
      ok = parse_algos(optarg, want);
    } else ok = false;
    for (uint32_t b = 0; b < nbits && ok; b++) ok = bits[b] >= 16 && bits[b] <= 32;
    if (!ok) {
      fprintf(stderr, "usage: stagebench [--n 1M,6M] [--algo quaternary,onesweep,radix16,merge|all] [--key-bits 32,16 (16..32)] "
                      "[--runs 1..1000] [--warmup 0..2000] [--warmup-max-ms 10000] [--key-pass one,three]\n");
      return 2;
    }
  }
  vkh_context ctx;
  vkh_options vo = vkh_default_options(false);
  vkh_init(&ctx, &vo);
  char note[256];
  clock_reader = gpu_clock_open_vk(ctx.physical_device, note, sizeof note);
  printf("device: %s; medians of %u runs, ms\n", ctx.props.deviceName, runs);
  printf("warm-up: at least %u runs, then until the times settle (median of the last %d within %.0f%% of the %d "
         "before; at most %d runs or %.0f ms; '!': not settled)\n", min_warmup, GPU_CLOCK_SETTLE_WINDOW,
         100 * GPU_CLOCK_SETTLE_TOLERANCE, GPU_CLOCK_SETTLE_WINDOW, WARMUP_MAX_RUNS, warmup_max_ms);
  if (clock_reader)
    printf("clock: SM maximum %u MHz (NVML)%s%s\n", gpu_clock_max_sm(clock_reader), note[0] ? "; " : "", note);
  else
    printf("clock: %s\n", note);
  printf("%10s  %-10s  %-8s  %4s  %9s  %9s  %9s  %9s  %-8s  %7s  %s\n", "N", "sorter", "key pass", "bits", "stage",
         "keys", "sort", "Msplats/s", "count ok", "warm-up", "SM MHz");
  bool ok = true;
  for (int a = 1; a < SPLATSORT_ALGORITHM_COUNT; a++) {
    if (!want[a]) continue;
    splatsort *sorter = sort_create_or_die(&ctx, (splatsort_algorithm)a, 0);
    for (uint32_t s = 0; s < nsizes; s++)
      for (uint32_t b = 0; b < nbits; b++)
        for (int p = 0; p < 2; p++)
          if (want_pass[p]) ok &= bench(&ctx, sorter, sizes[s], bits[b], runs, min_warmup, p == 1);
    splatsort_destroy(sorter);
  }
  gpu_clock_close(clock_reader);
  vkh_destroy(&ctx);
  if (ctx.validation_messages) {
    fprintf(stderr, "stagebench: %u validation messages\n", ctx.validation_messages);
    return 1;
  }
  return ok ? 0 : 1;
}
