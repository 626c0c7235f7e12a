/* sortbench: GPU timing of the sort paths. For each size, algorithm, key width and key
 * distribution it runs warm-up sorts, then timed sorts (GPU timestamps around each sort
 * only), verifies the result against the stable CPU reference, and prints the spread of the
 * times (median, p90, p99, max) as a table, CSV or JSON. --processes K repeats the whole
 * measurement in K fresh processes and reports the spread of their medians. Exit status 1 if
 * any result is wrong or the validation layer reported anything. */
#include "sort_harness.h"
#include "onesweep_shared.h"

#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LIST 32
#define MAX_ALGOS 8
#define MAX_STAGES 20
#define MAX_OS_VARIANTS 8
#define MAX_SORTERS (MAX_ALGOS + MAX_OS_VARIANTS)

/* --os-variant: one OneSweep sorter per entry, each with its own tuning. */
typedef struct os_variant {
  char label[64]; /* the entry as given: rows say "onesweep[<label>]" */
  splatsort_onesweep_tuning tuning;
} os_variant;

typedef struct spread {
  double p50, p90, p99, min, max;
} spread;

typedef struct row {
  uint32_t n, key_bits;
  const char *algo, *dist;
  spread total, copy;
  double stage_median[MAX_STAGES];
  uint32_t stages;
  uint32_t lookback_steps, lookback_fallbacks; /* last run, OneSweep with --lookback-stats */
  bool verified, skipped, has_copy, has_lookback;
} row;

typedef enum alloc_mode { ALLOC_ONE, ALLOC_SEPARATE, ALLOC_DEDICATED } alloc_mode;
static const char *const alloc_names[] = {"one", "separate", "dedicated"};

typedef struct options {
  uint32_t sizes[MAX_LIST], nsizes;
  uint32_t bits[MAX_LIST], nbits;
  key_dist dists[DIST_COUNT];
  uint32_t ndists;
  splatsort_algorithm algos[MAX_ALGOS];
  uint32_t nalgos;
  uint32_t runs, warmup, processes;
  double warmup_ms;
  uint64_t seed;
  bool csv, json, stages, copy, lookback, pipeline_stats, transient_staging;
  bool cpu_reference, readback; /* --verify: full = both, cpu-only, readback-only, none */
  bool linear_check;            /* --verify check: read-back checked in O(n), no CPU sort */
  bool fresh_host_memory;       /* --host-memory fresh: glibc's default, large blocks go back to the OS */
  uint32_t idle_ms;
  bool max_count_each;          /* --max-count each: a sort of N gets max_count N, not the largest --n */
  const char *timeline;
  alloc_mode alloc;
  os_variant os_variants[MAX_OS_VARIANTS];
  uint32_t n_os_variants;
  bool *parent_only; /* argv entries the --processes children leave out */
} options;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values (cub_sort.cu uses the same rule). */
static double rank_pct(const double *v, uint32_t n, double p) {
  uint32_t k = (uint32_t)ceil(p / 100.0 * n - 1e-9);
  if (k < 1) k = 1;
  if (k > n) k = n;
  return v[k - 1];
}

static spread summarise(double *v, uint32_t n) {
  spread s = {0};
  if (!n) return s;
  qsort(v, n, sizeof *v, cmp_double);
  s.p50 = n & 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.p90 = rank_pct(v, n, 90);
  s.p99 = rank_pct(v, n, 99);
  s.min = v[0];
  s.max = v[n - 1];
  return s;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: sortbench [--n 1M,4M,16M] [--algo quaternary,onesweep,radix16,merge,auto|all] [--key-bits 32,24,16]\n"
          "                 [--dist uniform,...|all] [--runs 50] [--warmup 5] [--warmup-ms 200] [--seed S]\n"
          "                 [--csv | --json] [--stages] [--copy] [--alloc one|separate|dedicated]\n"
          "                 [--lookback-stats] [--pipeline-stats] [--processes K] [--timeline FILE]\n"
          "                 [--idle-ms MS] [--verify check|full|cpu-only|readback-only|none]\n"
          "                 [--staging persistent|transient] [--host-memory keep|fresh]\n"
          "                 [--os-variant old/new/...] [--max-count largest|each]\n"
          "  sizes take K/M suffixes (binary); distributions: uniform equal sorted reverse few-unique\n"
          "  top-bits bottom-bits float-depth. Times are GPU timestamps around each sort, in ms;\n"
          "  p50/p90/p99/max are over the timed runs (nearest rank). Keys and CPU references of every\n"
          "  configuration are made before the first measurement; each configuration is warmed up\n"
          "  with --warmup sorts and then until --warmup-ms of GPU time have passed.\n"
          "  --copy            also time the copy that restores the input before each sort (same bytes,\n"
          "                    same command buffer): tells memory slowdowns from kernel slowdowns\n"
          "  --alloc           one buffer with four regions (default, as a renderer does), four buffers\n"
          "                    with their own allocations, or four dedicated allocations\n"
          "  --lookback-stats  OneSweep counts its lookback steps and fallbacks (slower; diagnosis)\n"
          "  --pipeline-stats  print the driver's statistics of each sort pipeline (registers, ...)\n"
          "  --timeline FILE   append every run's times (sort, copy, stages) to FILE as CSV\n"
          "  --idle-ms MS      leave the GPU idle for MS ms before each configuration's timed runs\n"
          "  --verify MODE     check (default): the result is read back and checked in one linear\n"
          "                    pass (a permutation of the inputs, ordered by key then input index:\n"
          "                    the stable sort) without sorting on the CPU; full: compared with a\n"
          "                    CPU reference sort made before measuring; the others leave out one\n"
          "                    or both (the result is reported as 'skip')\n"
          "  --staging MODE    uploads and read-backs through one kept host-visible buffer (default)\n"
          "                    or a fresh one per copy (transient; slow-mode experiment)\n"
          "  --host-memory     keep (default): host memory freed between configurations stays in the\n"
          "                    process and is reused; fresh: glibc's default, large blocks are\n"
          "                    returned to the OS and faulted in anew (slow-mode experiment)\n"
          "  --processes K     run everything in K fresh processes; print each configuration's\n"
          "                    per-process medians and their spread (with --csv: every child row)\n"
          "  --os-variant L    '/'-separated OneSweep pass kernels, each its own sorter in this process,\n"
          "                    its rows labelled onesweep[entry]: old (variant=48: late counts and late\n"
          "                    header, the kernel before issue 22), new (early=1: early counts, early\n"
          "                    header; an error where the device cannot run them), default (the\n"
          "                    library's choice), or a tuning string as in SPLATSORT_ONESWEEP_TUNING,\n"
          "                    optionally after old or new (new,keys=12). Entries start from\n"
          "                    SPLATSORT_ONESWEEP_TUNING; each sorter's kernels go to stderr. Labels\n"
          "                    have ';' for ',' (CSV); default is labelled default;two-kernels where\n"
          "                    the sorter picks its kernel per sort by max_count (>= 1M: the large one)\n"
          "  --max-count M     the sorts' max_count: largest (default: the largest --n, as a renderer\n"
          "                    sizing its buffers once would) or each (N itself: the OneSweep kernel\n"
          "                    a host with buffers sized for N gets)\n");
}

/* The buffers are allocated once per process for the largest size and shared by every run,
 * as a renderer would (max_count = the largest size, count = N). */
typedef struct bench_buffers {
  alloc_mode mode;
  sort_buffers one;   /* ALLOC_ONE */
  vkh_buffer kv[4];   /* otherwise: keys, values, tmp keys, tmp values */
  vkh_buffer internal;
  vkh_buffer pristine;
  splatsort_sort_info info;
} bench_buffers;

static void bench_buffers_create(vkh_context *ctx, splatsort *sorter, uint32_t max_n, alloc_mode mode,
                                 bench_buffers *bb) {
  memset(bb, 0, sizeof *bb);
  bb->mode = mode;
  if (mode == ALLOC_ONE) {
    sort_buffers_create(ctx, sorter, max_n, 0, false, &bb->one);
    bb->info = bb->one.info;
  } else {
    splatsort_memory_requirements mr;
    VK_CHECK(splatsort_get_memory_requirements(sorter, max_n, &mr));
    static const char *names[4] = {"keys", "values", "tmp keys", "tmp values"};
    for (int i = 0; i < 4; i++)
      bb->kv[i] = vkh_buffer_create_ex(ctx, mr.keyval_size, mr.keyval_usage, false, mode == ALLOC_DEDICATED, names[i]);
    bb->internal = vkh_buffer_create_ex(ctx, mr.internal_size, mr.internal_usage, false, mode == ALLOC_DEDICATED,
                                        "internal");
    bb->info = (splatsort_sort_info){.max_count = max_n, .count = max_n,
                                     .keys = {bb->kv[0].buffer, 0, mr.keyval_size},
                                     .values = {bb->kv[1].buffer, 0, mr.keyval_size},
                                     .tmp_keys = {bb->kv[2].buffer, 0, mr.keyval_size},
                                     .tmp_values = {bb->kv[3].buffer, 0, mr.keyval_size},
                                     .internal = {bb->internal.buffer, 0, mr.internal_size}};
  }
  bb->pristine = vkh_buffer_create(ctx, 8ull * max_n, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, false, "pristine");
}

static void bench_buffers_destroy(vkh_context *ctx, bench_buffers *bb) {
  if (bb->mode == ALLOC_ONE) sort_buffers_destroy(ctx, &bb->one);
  for (int i = 0; i < 4; i++) vkh_buffer_destroy(ctx, &bb->kv[i]);
  vkh_buffer_destroy(ctx, &bb->internal);
  vkh_buffer_destroy(ctx, &bb->pristine);
}

/* The buffer and offset behind a splatsort_buffer of bb (for reading results back). */
static vkh_buffer *owner(bench_buffers *bb, VkBuffer b) {
  if (bb->mode == ALLOC_ONE) return b == bb->one.internal.buffer ? &bb->one.internal : &bb->one.keyvals;
  for (int i = 0; i < 4; i++)
    if (bb->kv[i].buffer == b) return &bb->kv[i];
  return &bb->internal;
}

static void copy_input(VkCommandBuffer cmd, bench_buffers *bb, const splatsort_sort_info *info, uint32_t n) {
  VkBufferCopy ck = {0, info->keys.offset, 4ull * n}, cv = {4ull * n, info->values.offset, 4ull * n};
  vkCmdCopyBuffer(cmd, bb->pristine.buffer, info->keys.buffer, 1, &ck);
  vkCmdCopyBuffer(cmd, bb->pristine.buffer, info->values.buffer, 1, &cv);
}

/* One configuration's input (and, with --verify full, expected output), made before any GPU
 * measurement: host work between measurements was measured to slow the GPU's memory traffic
 * that follows (bench/results/2026-11-23-h100/SLOWMODE.md). */
typedef struct prepared {
  uint32_t *keys, *vals, *ref_k, *ref_v;
} prepared;

static void prepare(const options *o, uint32_t n, uint32_t key_bits, key_dist dist, uint64_t seed, prepared *p) {
  p->keys = malloc(sizeof(uint32_t) * (n ? n : 1) * (o->cpu_reference ? 4 : 2));
  p->vals = p->keys + n, p->ref_k = p->vals + n, p->ref_v = p->ref_k + n;
  gen_keys(p->keys, n, dist, seed);
  for (uint32_t i = 0; i < n; i++) p->vals[i] = i;
  if (o->cpu_reference) cpu_sort_pairs(p->keys, p->vals, n, key_bits, p->ref_k, p->ref_v);
}

static void record_sort_run(VkCommandBuffer cmd, splatsort *sorter, bench_buffers *bb, splatsort_sort_info *info,
                            uint32_t n, VkQueryPool copy_pool, uint32_t copy_query) {
  if (copy_pool) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, copy_pool, copy_query);
  if (n) copy_input(cmd, bb, info, n);
  if (copy_pool) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, copy_pool, copy_query + 1);
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
  VK_CHECK(splatsort_cmd_sort(sorter, cmd, info, NULL));
  VkMemoryBarrier after = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                           .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &after, 0,
                       NULL, 0, NULL);
}

/* Warm-up: `warmup` sorts, then more submissions until at least warmup_ms of GPU time have
 * passed (a slowdown after host work was seen to last up to ~0.2 s of GPU work). */
static void warm_up(vkh_context *ctx, splatsort *sorter, bench_buffers *bb, const options *o, splatsort_sort_info info,
                    uint32_t n) {
  VkQueryPool pool;
  VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                               .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
  VK_CHECK(vkCreateQueryPool(ctx->device, &qpi, NULL, &pool));
  info.query_pool = VK_NULL_HANDLE;
  double elapsed = 0, period = ctx->props.limits.timestampPeriod * 1e-6;
  uint32_t reps = o->warmup;
  for (uint32_t round = 0; round < 20 && reps; round++) {
    VkCommandBuffer cmd = vkh_begin(ctx);
    vkCmdResetQueryPool(cmd, pool, 0, 2);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, 0);
    for (uint32_t r = 0; r < reps; r++) record_sort_run(cmd, sorter, bb, &info, n, VK_NULL_HANDLE, 0);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 1);
    vkh_submit_wait(ctx, cmd);
    uint64_t ts[2];
    VK_CHECK(vkGetQueryPoolResults(ctx->device, pool, 0, 2, sizeof ts, ts, 8,
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    double ms = (double)(ts[1] - ts[0]) * period;
    elapsed += ms;
    if (elapsed >= o->warmup_ms || ms <= 0) break;
    double per = ms / reps, want = (o->warmup_ms - elapsed) / per + 1;
    reps = want > 2000 ? 2000 : (uint32_t)want;
  }
  vkDestroyQueryPool(ctx->device, pool, NULL);
}

static bool run_one(vkh_context *ctx, splatsort *sorter, bench_buffers *bb, const options *o, uint32_t n,
                    uint32_t key_bits, key_dist dist, const prepared *p, row *out) {
  uint32_t runs = o->runs; /* warm_up() runs before, in submissions of its own */
  vkh_buffer_write(ctx, &bb->pristine, 0, p->keys, 4ull * n);
  vkh_buffer_write(ctx, &bb->pristine, 4ull * n, p->vals, 4ull * n);
  const uint32_t *ref_k = p->ref_k, *ref_v = p->ref_v;

  uint32_t tc = splatsort_timestamp_count(sorter, key_bits);
  uint32_t total = runs;
  VkQueryPool pool, copy_pool = VK_NULL_HANDLE;
  VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                               .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = tc * total};
  VK_CHECK(vkCreateQueryPool(ctx->device, &qpi, NULL, &pool));
  if (o->copy) {
    qpi.queryCount = 2 * total;
    VK_CHECK(vkCreateQueryPool(ctx->device, &qpi, NULL, &copy_pool));
  }
  splatsort_sort_info info = bb->info; /* max_count: the largest size of the run ... */
  if (o->max_count_each) info.max_count = n ? n : 1; /* ... or this one's (the buffers hold it) */
  info.count = n;
  info.key_bits = key_bits;
  info.query_pool = pool;
  splatsort_result where = splatsort_result_location(sorter, &info);

  warm_up(ctx, sorter, bb, o, info, n);
  VkCommandBuffer cmd = vkh_begin(ctx);
  if (copy_pool) vkCmdResetQueryPool(cmd, copy_pool, 0, 2 * total);
  for (uint32_t r = 0; r < total; r++) {
    info.first_query = r * tc;
    record_sort_run(cmd, sorter, bb, &info, n, copy_pool, 2 * r);
  }
  if (o->idle_ms) usleep(1000u * o->idle_ms);
  vkh_submit_wait(ctx, cmd);

  uint64_t *ts = malloc(sizeof(uint64_t) * tc * total);
  VK_CHECK(vkGetQueryPoolResults(ctx->device, pool, 0, tc * total, sizeof(uint64_t) * tc * total, ts, 8,
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  double period = ctx->props.limits.timestampPeriod * 1e-6; /* ticks -> ms */
  double *ms = malloc(sizeof(double) * (runs ? runs : 1));
  out->stages = tc - 1 < MAX_STAGES ? tc - 1 : MAX_STAGES;
  for (uint32_t s = 0; s <= out->stages; s++) {
    for (uint32_t r = 0; r < runs; r++) {
      const uint64_t *t = ts + (size_t)r * tc;
      ms[r] = s == 0 ? (double)(t[tc - 1] - t[0]) * period : (double)(t[s] - t[s - 1]) * period;
    }
    spread sp = summarise(ms, runs);
    if (s == 0)
      out->total = sp;
    else
      out->stage_median[s - 1] = sp.p50;
  }
  uint64_t *cts = NULL;
  if (copy_pool) {
    cts = malloc(sizeof(uint64_t) * 2 * total);
    VK_CHECK(vkGetQueryPoolResults(ctx->device, copy_pool, 0, 2 * total, sizeof(uint64_t) * 2 * total, cts, 8,
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    for (uint32_t r = 0; r < runs; r++)
      ms[r] = (double)(cts[2 * r + 1] - cts[2 * r]) * period;
    out->copy = summarise(ms, runs);
    out->has_copy = true;
    vkDestroyQueryPool(ctx->device, copy_pool, NULL);
  }
  if (o->timeline) {
    /* Every timed run (the warm-up is a separate submission): when a slowdown starts and ends. */
    FILE *tl = fopen(o->timeline, "a");
    if (!tl) {
      fprintf(stderr, "sortbench: --timeline: cannot open '%s'\n", o->timeline);
      exit(2);
    }
    for (uint32_t r = 0; r < total; r++) {
      const uint64_t *t = ts + (size_t)r * tc;
      fprintf(tl, "%u,%s,%u,%s,%d,%u,%.4f,%.4f", n, splatsort_algorithm_name(splatsort_get_algorithm(sorter)),
              key_bits, key_dist_name(dist), getpid(), r, (double)(t[tc - 1] - t[0]) * period,
              cts ? (double)(cts[2 * r + 1] - cts[2 * r]) * period : 0.0);
      for (uint32_t s = 1; s < tc; s++) fprintf(tl, ",%.4f", (double)(t[s] - t[s - 1]) * period);
      fprintf(tl, "\n");
    }
    fclose(tl);
  }
  free(cts);
  if (o->lookback && splatsort_get_algorithm(sorter) == SPLATSORT_ALGORITHM_ONESWEEP) {
    uint32_t words[16];
    vkh_buffer_read(ctx, owner(bb, info.internal.buffer), info.internal.offset, words, sizeof words);
    out->lookback_steps = words[OS_H_STAT_STEPS];
    out->lookback_fallbacks = words[OS_H_STAT_FALLBACKS];
    out->has_lookback = true;
  }
  /* verify the last run's output */
  out->verified = true;
  out->skipped = !(o->cpu_reference || o->linear_check) || !o->readback;
  if (o->readback) {
    uint32_t *gk = malloc(sizeof(uint32_t) * (n ? n : 1) * 2), *gv = gk + n;
    vkh_buffer_read(ctx, owner(bb, where.keys.buffer), where.keys.offset, gk, 4ull * n);
    vkh_buffer_read(ctx, owner(bb, where.values.buffer), where.values.offset, gv, 4ull * n);
    if (o->cpu_reference) out->verified = memcmp(gk, ref_k, 4ull * n) == 0 && memcmp(gv, ref_v, 4ull * n) == 0;
    if (o->linear_check) out->verified = check_sorted_indices(p->keys, n, key_bits, gk, gv) == n;
    free(gk);
  }
  free(ms);
  free(ts);
  vkDestroyQueryPool(ctx->device, pool, NULL);
  return out->verified;
}

static const char *csv_header =
    "device,n,algo,key_bits,dist,median_ms,min_ms,max_ms,mpairs_per_s,verified,p90_ms,p99_ms,copy_median_ms,"
    "copy_p99_ms,copy_gb_per_s,alloc,lookback_steps,lookback_fallbacks";

static const char *verdict(const row *rw) { return rw->skipped ? "skip" : rw->verified ? "yes" : "NO"; }

static void print_row(const vkh_context *ctx, const options *o, splatsort *sorter, const row *rw, bool first) {
  double mps = rw->total.p50 > 0 ? rw->n / (rw->total.p50 * 1e3) : 0;
  /* the copy reads and writes 8 bytes a pair */
  double gbs = rw->has_copy && rw->copy.p50 > 0 ? 16.0 * rw->n / (rw->copy.p50 * 1e6) : 0;
  if (o->csv) {
    printf("\"%s\",%u,%s,%u,%s,%.4f,%.4f,%.4f,%.1f,%s,%.4f,%.4f,", ctx->props.deviceName, rw->n, rw->algo,
           rw->key_bits, rw->dist, rw->total.p50, rw->total.min, rw->total.max, mps, verdict(rw),
           rw->total.p90, rw->total.p99);
    if (rw->has_copy)
      printf("%.4f,%.4f,%.0f,", rw->copy.p50, rw->copy.p99, gbs);
    else
      printf(",,,");
    printf("%s,", alloc_names[o->alloc]);
    if (rw->has_lookback)
      printf("%u,%u\n", rw->lookback_steps, rw->lookback_fallbacks);
    else
      printf(",\n");
  } else if (o->json) {
    printf("%s  {\"device\": \"%s\", \"n\": %u, \"algo\": \"%s\", \"key_bits\": %u, \"dist\": \"%s\", "
           "\"median_ms\": %.4f, \"p90_ms\": %.4f, \"p99_ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, "
           "\"mpairs_per_s\": %.1f, \"verified\": %s, \"alloc\": \"%s\"",
           first ? "" : ",\n", ctx->props.deviceName, rw->n, rw->algo, rw->key_bits, rw->dist, rw->total.p50,
           rw->total.p90, rw->total.p99, rw->total.min, rw->total.max, mps,
           rw->skipped ? "null" : rw->verified ? "true" : "false",
           alloc_names[o->alloc]);
    if (rw->has_copy)
      printf(", \"copy_median_ms\": %.4f, \"copy_p99_ms\": %.4f, \"copy_gb_per_s\": %.0f", rw->copy.p50, rw->copy.p99,
             gbs);
    if (rw->has_lookback)
      printf(", \"lookback_steps\": %u, \"lookback_fallbacks\": %u", rw->lookback_steps, rw->lookback_fallbacks);
    if (o->stages) {
      printf(", \"stages\": {");
      for (uint32_t s = 0; s < rw->stages; s++)
        printf("%s\"%s\": %.4f", s ? ", " : "", splatsort_timestamp_label(sorter, rw->key_bits, s + 1),
               rw->stage_median[s]);
      printf("}");
    }
    printf("}");
  } else {
    printf("%10u  %-10s  %4u  %-11s  %8.4f  %8.4f  %8.4f  %8.4f  %9.1f  %s", rw->n, rw->algo, rw->key_bits, rw->dist,
           rw->total.p50, rw->total.p90, rw->total.p99, rw->total.max, mps, verdict(rw));
    if (rw->has_copy) printf("  copy %.4f ms (p99 %.4f, %.0f GB/s)", rw->copy.p50, rw->copy.p99, gbs);
    if (rw->has_lookback) printf("  lookback %u steps, %u fallbacks", rw->lookback_steps, rw->lookback_fallbacks);
    printf("\n");
    if (o->stages) {
      printf("            stages (median ms):");
      for (uint32_t s = 0; s < rw->stages; s++)
        printf(" %s=%.4f", splatsort_timestamp_label(sorter, rw->key_bits, s + 1), rw->stage_median[s]);
      printf("\n");
    }
  }
  fflush(stdout);
}

/* The index of v among names, or -1 after a message that names the option and the choices. */
static int parse_choice(const char *opt, const char *v, const char *const *names, int n, const char *choices) {
  for (int k = 0; k < n; k++)
    if (!strcmp(v, names[k])) return k;
  fprintf(stderr, "sortbench: %s: expected %s, got '%s'\n", opt, choices, v);
  return -1;
}

/* --algo quaternary,onesweep,radix16,merge,auto|all (all: the four, not auto) */
static bool parse_algos(options *o, const char *v) {
  o->nalgos = sort_algorithms_parse("sortbench", v, true, o->algos, MAX_ALGOS);
  return o->nalgos > 0;
}

/* --os-variant old/new/default/new,keys=12/variant=3,... */
static bool parse_os_variants(options *o, const char *v) {
  const splatsort_onesweep_tuning *env = sort_tuning_from_env();
  char buf[512];
  snprintf(buf, sizeof buf, "%s", v);
  o->n_os_variants = 0;
  for (char *save = NULL, *e = strtok_r(buf, "/", &save); e; e = strtok_r(NULL, "/", &save)) {
    if (o->n_os_variants == MAX_OS_VARIANTS) {
      fprintf(stderr, "sortbench: --os-variant: at most %u entries\n", MAX_OS_VARIANTS);
      return false;
    }
    os_variant *ov = &o->os_variants[o->n_os_variants++];
    snprintf(ov->label, sizeof ov->label, "%s", e);
    splatsort_onesweep_tuning *t = &ov->tuning;
    if (env)
      *t = *env;
    else
      *t = (splatsort_onesweep_tuning){.type = SPLATSORT_STRUCTURE_TYPE_ONESWEEP_TUNING};
    const char *rest = e;
    size_t len = strcspn(e, ",");
    if (!strncmp(e, "old", len) && len == 3) {
      t->variant |= OS_VARIANT_LATE_COUNTS | OS_VARIANT_LATE_HEADER;
      t->flags &= ~(uint32_t)SPLATSORT_ONESWEEP_EARLY_COUNTS_BIT;
    } else if (!strncmp(e, "new", len) && len == 3) {
      t->variant &= ~(uint32_t)(OS_VARIANT_LATE_COUNTS | OS_VARIANT_LATE_HEADER);
      t->flags |= SPLATSORT_ONESWEEP_EARLY_COUNTS_BIT;
    } else if (strncmp(e, "default", len) || len != 7) {
      len = 0; /* the whole entry is a tuning string */
    }
    rest = e + len + (e[len] == ',');
    if (!*rest) continue;
    splatsort_onesweep_tuning extra;
    char err[256];
    if (!sort_tuning_parse(rest, &extra, err, sizeof err)) {
      fprintf(stderr, "sortbench: --os-variant '%s': %s\n", e, err);
      return false;
    }
    /* the entry's own fields replace the base's; variant bits and flags join them */
#define TAKE(field) t->field = extra.field ? extra.field : t->field
    TAKE(workgroup_size);
    TAKE(keys_per_invocation);
    TAKE(lookback_spin);
    TAKE(lookback_window);
    TAKE(histogram_unroll);
    TAKE(histogram_copies);
    TAKE(required_subgroup_size);
    TAKE(max_workgroups_x);
#undef TAKE
    t->variant |= extra.variant;
    t->flags |= extra.flags;
  }
  return o->n_os_variants > 0;
}

/* Row label: the algorithm, with --os-variant its entry in brackets, ',' made ';' so that the
 * CSV stays parseable; "default" says whether the library picks the kernel per sort. */
static void label_sorter(char *out, size_t size, const splatsort *sorter, const char *entry) {
  const char *name = splatsort_algorithm_name(splatsort_get_algorithm(sorter));
  if (!entry) {
    snprintf(out, size, "%s", name);
    return;
  }
  uint32_t small_tile = 0, large_tile = 0;
  bool two = splatsort_get_onesweep_variant(sorter, 1, &small_tile) !=
                 splatsort_get_onesweep_variant(sorter, 1u << 30, &large_tile) ||
             small_tile != large_tile;
  snprintf(out, size, "%s[%s%s]", name, entry, !strcmp(entry, "default") && two ? ";two-kernels" : "");
  for (char *c = out; *c; c++)
    if (*c == ',') *c = ';';
}

/* stderr: the pass kernel each size of the run gets (by the max_count its sorts pass). */
static void print_kernels(const char *label, const splatsort *sorter, const options *o) {
  uint32_t largest = 1;
  for (uint32_t si = 0; si < o->nsizes; si++) largest = o->sizes[si] > largest ? o->sizes[si] : largest;
  for (uint32_t si = 0; si < o->nsizes; si++) {
    uint32_t max_count = o->max_count_each ? (o->sizes[si] ? o->sizes[si] : 1) : largest, tile = 0;
    uint32_t v = splatsort_get_onesweep_variant(sorter, max_count, &tile);
    fprintf(stderr, "%s: n=%u max_count=%u: pass kernel variant %u (%s counts, %s header), tile %u\n", label,
            o->sizes[si], max_count, v, v & OS_VARIANT_LATE_COUNTS ? "late" : "early",
            v & OS_VARIANT_LATE_HEADER ? "late" : "early", tile);
  }
}

/* --dist uniform,...|all */
static bool parse_dists(options *o, const char *v) {
  o->ndists = 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", v);
  for (char *tok = strtok(buf, ","); tok && o->ndists < DIST_COUNT; tok = strtok(NULL, ",")) {
    if (!strcmp(tok, "all")) {
      for (int d = 0; d < DIST_COUNT; d++) o->dists[d] = (key_dist)d;
      o->ndists = DIST_COUNT;
      break;
    }
    key_dist d = key_dist_parse(tok);
    if (d == DIST_COUNT) {
      fprintf(stderr, "sortbench: --dist: unknown distribution '%s'\n", tok);
      return false;
    }
    o->dists[o->ndists++] = d;
  }
  return true;
}

static const char *max_count_names[] = {"largest", "each"};

enum {
  OPT_N = 256, OPT_KEY_BITS, OPT_ALGO, OPT_DIST, OPT_RUNS, OPT_WARMUP, OPT_WARMUP_MS, OPT_PROCESSES, OPT_ALLOC,
  OPT_SEED, OPT_CSV, OPT_JSON, OPT_STAGES, OPT_COPY, OPT_LOOKBACK, OPT_PIPELINE_STATS, OPT_VERIFY, OPT_HOST_MEMORY,
  OPT_STAGING, OPT_IDLE_MS, OPT_TIMELINE, OPT_OS_VARIANT, OPT_MAX_COUNT
};

static const struct option long_options[] = {
    {"n", required_argument, NULL, OPT_N},
    {"key-bits", required_argument, NULL, OPT_KEY_BITS},
    {"algo", required_argument, NULL, OPT_ALGO},
    {"os-variant", required_argument, NULL, OPT_OS_VARIANT},
    {"max-count", required_argument, NULL, OPT_MAX_COUNT},
    {"dist", required_argument, NULL, OPT_DIST},
    {"runs", required_argument, NULL, OPT_RUNS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"warmup-ms", required_argument, NULL, OPT_WARMUP_MS},
    {"processes", required_argument, NULL, OPT_PROCESSES},
    {"alloc", required_argument, NULL, OPT_ALLOC},
    {"seed", required_argument, NULL, OPT_SEED},
    {"csv", no_argument, NULL, OPT_CSV},
    {"json", no_argument, NULL, OPT_JSON},
    {"stages", no_argument, NULL, OPT_STAGES},
    {"copy", no_argument, NULL, OPT_COPY},
    {"lookback-stats", no_argument, NULL, OPT_LOOKBACK},
    {"pipeline-stats", no_argument, NULL, OPT_PIPELINE_STATS},
    {"verify", required_argument, NULL, OPT_VERIFY},
    {"host-memory", required_argument, NULL, OPT_HOST_MEMORY},
    {"staging", required_argument, NULL, OPT_STAGING},
    {"idle-ms", required_argument, NULL, OPT_IDLE_MS},
    {"timeline", required_argument, NULL, OPT_TIMELINE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* --verify modes and what each does. */
enum { VERIFY_LINEAR = 1, VERIFY_CPU = 2, VERIFY_READBACK = 4 };
static const char *const verify_names[] = {"check", "full", "cpu-only", "readback-only", "none"};
static const unsigned verify_modes[] = {VERIFY_LINEAR | VERIFY_READBACK, VERIFY_CPU | VERIFY_READBACK, VERIFY_CPU,
                                        VERIFY_READBACK, 0};

/* One option with its value v; false after a message. */
static bool apply_option(options *o, int c, const char *v) {
  static const char *const host_memory[] = {"keep", "fresh"}, *const staging[] = {"persistent", "transient"};
  int k;
  switch (c) {
  case OPT_N:
    o->nsizes = parse_size_list(v, o->sizes, MAX_LIST);
    if (!o->nsizes) fprintf(stderr, "sortbench: --n: cannot parse size list '%s' (e.g. 1M,4M,1000; at most 32 values)\n", v);
    return o->nsizes > 0;
  case OPT_KEY_BITS:
    o->nbits = parse_size_list(v, o->bits, MAX_LIST);
    for (uint32_t b = 0; b < o->nbits; b++)
      if (o->bits[b] < 1 || o->bits[b] > 32) o->nbits = 0;
    if (!o->nbits) fprintf(stderr, "sortbench: --key-bits: expected values in 1..32, got '%s'\n", v);
    return o->nbits > 0;
  case OPT_ALGO: return parse_algos(o, v);
  case OPT_DIST: return parse_dists(o, v);
  case OPT_RUNS:
    o->runs = (uint32_t)strtoul(v, NULL, 10);
    if (o->runs < 1 || o->runs > 10000) fprintf(stderr, "sortbench: --runs must be 1..10000\n");
    return o->runs >= 1 && o->runs <= 10000;
  case OPT_WARMUP: o->warmup = (uint32_t)strtoul(v, NULL, 10); return true;
  case OPT_WARMUP_MS: o->warmup_ms = strtod(v, NULL); return true;
  case OPT_PROCESSES:
    o->processes = (uint32_t)strtoul(v, NULL, 10);
    if (o->processes < 1 || o->processes > 100) fprintf(stderr, "sortbench: --processes must be 1..100\n");
    return o->processes >= 1 && o->processes <= 100;
  case OPT_ALLOC:
    k = parse_choice("--alloc", v, alloc_names, 3, "one, separate or dedicated");
    o->alloc = k < 0 ? o->alloc : (alloc_mode)k;
    return k >= 0;
  case OPT_SEED: o->seed = strtoull(v, NULL, 0); return true;
  case OPT_CSV: o->csv = true; return true;
  case OPT_JSON: o->json = true; return true;
  case OPT_STAGES: o->stages = true; return true;
  case OPT_COPY: o->copy = true; return true;
  case OPT_LOOKBACK: o->lookback = true; return true;
  case OPT_PIPELINE_STATS: o->pipeline_stats = true; return true;
  case OPT_VERIFY:
    k = parse_choice("--verify", v, verify_names, 5, "check, full, cpu-only, readback-only or none");
    if (k < 0) return false;
    o->linear_check = verify_modes[k] & VERIFY_LINEAR;
    o->cpu_reference = verify_modes[k] & VERIFY_CPU;
    o->readback = verify_modes[k] & VERIFY_READBACK;
    return true;
  case OPT_HOST_MEMORY:
    k = parse_choice("--host-memory", v, host_memory, 2, "keep or fresh");
    o->fresh_host_memory = k == 1;
    return k >= 0;
  case OPT_STAGING:
    k = parse_choice("--staging", v, staging, 2, "persistent or transient");
    o->transient_staging = k == 1;
    return k >= 0;
  case OPT_IDLE_MS: o->idle_ms = (uint32_t)strtoul(v, NULL, 10); return true;
  case OPT_TIMELINE: o->timeline = v; return true;
  case OPT_OS_VARIANT: return parse_os_variants(o, v);
  case OPT_MAX_COUNT:
    k = parse_choice("--max-count", v, max_count_names, 2, "largest or each");
    o->max_count_each = k == 1;
    return k >= 0;
  default: return false;
  }
}

/* Fills o from the command line; false with *status the exit status (0 after --help). Marks in
 * o->parent_only the arguments that --processes children must not get. */
static bool parse_args(int argc, char **argv, options *o, int *status) {
  *o = (options){.sizes = {1u << 20}, .nsizes = 1, .bits = {32}, .nbits = 1, .dists = {DIST_UNIFORM}, .ndists = 1,
                 .algos = {SPLATSORT_ALGORITHM_QUATERNARY, SPLATSORT_ALGORITHM_ONESWEEP}, .nalgos = 2, .runs = 50,
                 .warmup = 5, .warmup_ms = 200, .seed = 1, .linear_check = true, .readback = true};
  o->parent_only = calloc((size_t)argc + 1, sizeof *o->parent_only);
  *status = 2;
  opterr = 0; /* our own messages, which name the argument */
  /* "+": no reordering, so each option's arguments are argv[first .. optind) */
  for (int first = optind, c; (c = getopt_long(argc, argv, "+:h", long_options, NULL)) != -1; first = optind) {
    if (c == 'h') {
      usage(stdout);
      *status = 0;
      return false;
    }
    if (c == ':' || c == '?') { /* argv[first] is the argument getopt_long could not take */
      fprintf(stderr, "sortbench: unknown or incomplete argument '%s'\n", argv[first]);
      usage(stderr);
      return false;
    }
    if (!apply_option(o, c, optarg)) return false;
    if (c == OPT_PROCESSES || c == OPT_JSON || c == OPT_CSV || c == OPT_STAGES)
      for (int i = first; i < optind; i++) o->parent_only[i] = true;
  }
  if (optind < argc) {
    fprintf(stderr, "sortbench: unknown or incomplete argument '%s'\n", argv[optind]);
    usage(stderr);
    return false;
  }
  return true;
}

/* ---- --processes K: the same measurement in K fresh processes ---- */

typedef struct proc_row {
  char key[96];      /* n,algo,bits,dist,alloc */
  double median[100], p99[100];
  uint32_t count;
  bool all_verified;
} proc_row;

/* Splits one CSV line of our own format (only the device name is quoted). */
static uint32_t split_csv(char *line, char **fields, uint32_t max) {
  uint32_t n = 0;
  char *p = line;
  while (n < max) {
    if (*p == '"') {
      fields[n++] = ++p;
      p = strchr(p, '"');
      if (!p) break;
      *p++ = 0;
    } else {
      fields[n++] = p;
    }
    p = strchr(p, ',');
    if (!p) break;
    *p++ = 0;
  }
  return n;
}

static int run_processes(int argc, char **argv, const options *o) {
  /* Child argument list: ours without --processes K and the output format, plus --csv. */
  char **child = calloc((size_t)argc + 2, sizeof *child);
  int c = 0;
  for (int i = 0; i < argc; i++)
    if (!o->parent_only[i]) child[c++] = argv[i];
  child[c++] = "--csv";
  child[c] = NULL;

  enum { MAX_ROWS = 1024 }; /* configurations: sizes x algorithms x key widths x distributions */
  proc_row *rows = calloc(MAX_ROWS, sizeof *rows);
  uint32_t nrows = 0;
  int status = 0;
  if (o->csv) printf("process,%s\n", csv_header);
  for (uint32_t p = 0; p < o->processes; p++) {
    int fd[2];
    if (pipe(fd) != 0) {
      perror("sortbench: pipe");
      return 1;
    }
    pid_t pid = fork();
    if (pid == 0) {
      dup2(fd[1], 1);
      close(fd[0]);
      close(fd[1]);
      execv("/proc/self/exe", child);
      perror("sortbench: exec");
      _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    char line[1024];
    while (fgets(line, sizeof line, f)) {
      if (!strncmp(line, "device,", 7)) continue;
      line[strcspn(line, "\n")] = 0;
      if (o->csv) printf("%u,%s\n", p, line);
      char *fl[20];
      if (split_csv(line, fl, 20) < 16) continue;
      char key[96];
      snprintf(key, sizeof key, "%s,%s,%s,%s,%s", fl[1], fl[2], fl[3], fl[4], fl[15]);
      uint32_t r = 0;
      while (r < nrows && strcmp(rows[r].key, key)) r++;
      if (r == nrows) {
        if (nrows == MAX_ROWS) {
          if (status == 0)
            fprintf(stderr, "sortbench: more than %d configurations; the rest are left out of the summary\n", MAX_ROWS);
          status = 1;
          continue;
        }
        snprintf(rows[nrows].key, sizeof rows[nrows].key, "%s", key);
        rows[nrows++].all_verified = true;
      }
      if (rows[r].count < 100) {
        rows[r].median[rows[r].count] = atof(fl[5]);
        rows[r].p99[rows[r].count++] = atof(fl[11]);
      }
      rows[r].all_verified &= !strcmp(fl[9], "yes") || !strcmp(fl[9], "skip");
    }
    fclose(f);
    int ws = 0;
    waitpid(pid, &ws, 0);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
      fprintf(stderr, "sortbench: process %u failed (status %d)\n", p, ws);
      status = 1;
    }
  }
  if (!o->csv) {
    printf("%-40s  %9s  %9s  %10s  %12s  %s\n", "n,algo,bits,dist,alloc", "best p50", "worst p50", "worst/best",
           "max p99/p50", "per-process medians (ms)");
    for (uint32_t r = 0; r < nrows; r++) {
      proc_row *pr = &rows[r];
      double best = 1e30, worst = 0, tail = 0;
      for (uint32_t k = 0; k < pr->count; k++) {
        best = fmin(best, pr->median[k]);
        worst = fmax(worst, pr->median[k]);
        if (pr->median[k] > 0) tail = fmax(tail, pr->p99[k] / pr->median[k]);
      }
      printf("%-40s  %9.4f  %9.4f  %9.3fx  %11.3fx ", pr->key, best, worst, best > 0 ? worst / best : 0, tail);
      for (uint32_t k = 0; k < pr->count; k++) printf(" %.4f", pr->median[k]);
      printf("%s\n", pr->all_verified ? "" : "  NOT VERIFIED");
      if (!pr->all_verified) status = 1;
    }
  }
  free(rows);
  free(child);
  return status;
}

int main(int argc, char **argv) {
  options o;
  int status;
  bool parsed = parse_args(argc, argv, &o, &status);
  if (parsed && o.processes) status = run_processes(argc, argv, &o);
  free(o.parent_only); /* only parse_args and run_processes use it */
  o.parent_only = NULL;
  if (!parsed || o.processes) return status;
  if (!o.fresh_host_memory) {
    /* Faulting in hundreds of MB of fresh host memory between measurements was measured to
     * slow every GPU memory access afterwards on the virtualised H100 (SLOWMODE.md): keep
     * freed blocks in the process instead (no mmap for large blocks, no trimming). */
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
  }
  /* SPLATSORT_ONESWEEP_TUNING (tuning runs), plus the lookback statistics when asked for */
  splatsort_onesweep_tuning stats_only = {.type = SPLATSORT_STRUCTURE_TYPE_ONESWEEP_TUNING};
  splatsort_onesweep_tuning *tuning = sort_tuning_from_env();
  if (o.lookback) {
    if (!tuning) tuning = &stats_only;
    tuning->flags |= SPLATSORT_ONESWEEP_STATISTICS_BIT;
  }

  vkh_context ctx;
  vkh_options vo = vkh_default_options(false);
  vo.pipeline_statistics = o.pipeline_stats;
  vkh_init(&ctx, &vo);
  ctx.transient_staging = o.transient_staging;
  if (o.pipeline_stats && !ctx.pipeline_statistics)
    fprintf(stderr, "sortbench: the device offers no pipeline statistics (VK_KHR_pipeline_executable_properties)\n");
  if (!ctx.props.limits.timestampComputeAndGraphics) {
    fprintf(stderr, "sortbench: the device does not support timestamps on its queue\n");
    return 1;
  }
  fprintf(stderr, "device: %s (subgroup %u), validation %s, %u warm-up + %u timed runs, alloc %s\n",
          ctx.props.deviceName, ctx.subgroup_size, ctx.validation ? "on" : "off", o.warmup, o.runs,
          alloc_names[o.alloc]);
  if (o.csv) printf("%s\n", csv_header);
  if (o.json) printf("[\n");
  if (!o.csv && !o.json)
    printf("%10s  %-10s  %4s  %-11s  %8s  %8s  %8s  %8s  %9s  %s\n", "N", "algorithm", "bits", "keys", "p50 ms",
           "p90 ms", "p99 ms", "max ms", "Mpairs/s", "verified");
  bool all_ok = true, first = true;
  /* One sorter per algorithm; OneSweep with --os-variant: one per entry. */
  splatsort *sorters[MAX_SORTERS] = {NULL};
  char labels[MAX_SORTERS][80];
  uint32_t nsorters = 0;
  splatsort *largest = NULL; /* the sorter that needs the largest internal buffer */
  uint32_t max_n = 1;
  for (uint32_t si = 0; si < o.nsizes; si++) max_n = o.sizes[si] > max_n ? o.sizes[si] : max_n;
  VkDeviceSize largest_internal = 0;
  for (uint32_t ai = 0; ai < o.nalgos; ai++) {
    bool variants = o.algos[ai] == SPLATSORT_ALGORITHM_ONESWEEP && o.n_os_variants;
    for (uint32_t vi = 0; vi < (variants ? o.n_os_variants : 1) && nsorters < MAX_SORTERS; vi++) {
      splatsort_onesweep_tuning *t = tuning;
      if (variants) {
        t = &o.os_variants[vi].tuning;
        if (o.lookback) t->flags |= SPLATSORT_ONESWEEP_STATISTICS_BIT;
      }
      splatsort_create_info ci = {.next = t, .physical_device = ctx.physical_device, .device = ctx.device,
                                  .algorithm = o.algos[ai], .enabled_features = ctx.sort_features, .log = vkh_sort_log,
                                  .flags = vkh_sort_flags(&ctx) |
                                           (ctx.pipeline_statistics ? SPLATSORT_CREATE_LOG_PIPELINE_STATISTICS_BIT : 0)};
      splatsort *sorter = NULL;
      VkResult r = splatsort_create(&ci, &sorter);
      if (r != VK_SUCCESS) {
        fprintf(stderr, "sortbench: %s%s%s%s is not available on this device (%s)\n",
                splatsort_algorithm_name(o.algos[ai]), variants ? " [" : "", variants ? o.os_variants[vi].label : "",
                variants ? "]" : "", vkh_result_name(r));
        all_ok = false;
        continue;
      }
      label_sorter(labels[nsorters], sizeof labels[nsorters], sorter, variants ? o.os_variants[vi].label : NULL);
      if (splatsort_get_algorithm(sorter) == SPLATSORT_ALGORITHM_ONESWEEP) print_kernels(labels[nsorters], sorter, &o);
      sorters[nsorters++] = sorter;
      splatsort_memory_requirements mr;
      if (max_n > splatsort_max_count(sorter) || splatsort_get_memory_requirements(sorter, max_n, &mr)) {
        fprintf(stderr, "sortbench: n=%u is above this device's maximum %u\n", max_n, splatsort_max_count(sorter));
        return 1;
      }
      if (mr.internal_size >= largest_internal) largest_internal = mr.internal_size, largest = sorter;
    }
  }
  bench_buffers bb = {0};
  if (largest) bench_buffers_create(&ctx, largest, max_n, o.alloc, &bb);
  prepared *prep = calloc((size_t)o.nsizes * o.nbits * o.ndists, sizeof *prep);
  for (uint32_t si = 0; si < o.nsizes; si++)
    for (uint32_t bi = 0; bi < o.nbits; bi++)
      for (uint32_t di = 0; di < o.ndists; di++)
        prepare(&o, o.sizes[si], o.bits[bi], o.dists[di], o.seed + si * 31 + di,
                &prep[(si * o.nbits + bi) * o.ndists + di]);
  for (uint32_t ai = 0; ai < nsorters; ai++) {
    splatsort *sorter = sorters[ai];
    const char *aname = labels[ai];
    for (uint32_t si = 0; si < o.nsizes; si++)
      for (uint32_t bi = 0; bi < o.nbits; bi++)
        for (uint32_t di = 0; di < o.ndists; di++) {
          row rw = {.n = o.sizes[si], .key_bits = o.bits[bi], .algo = aname, .dist = key_dist_name(o.dists[di])};
          all_ok &= run_one(&ctx, sorter, &bb, &o, o.sizes[si], o.bits[bi], o.dists[di],
                            &prep[(si * o.nbits + bi) * o.ndists + di], &rw);
          print_row(&ctx, &o, sorter, &rw, first);
          first = false;
        }
    splatsort_destroy(sorter);
  }
  if (o.json) printf("\n]\n");
  for (uint32_t i = 0; i < o.nsizes * o.nbits * o.ndists; i++) free(prep[i].keys);
  free(prep);
  if (largest) bench_buffers_destroy(&ctx, &bb);
  vkh_destroy(&ctx);
  if (ctx.validation_messages) {
    fprintf(stderr, "sortbench: %u validation messages\n", ctx.validation_messages);
    return 1;
  }
  return all_ok ? 0 : 1;
}
