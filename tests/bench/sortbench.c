/* sortbench: GPU timing of the sort paths. For each size, algorithm, key width and key
 * distribution it runs warm-up sorts, then timed sorts (GPU timestamps around each sort
 * only), verifies the result against the stable CPU reference, and prints a table (or CSV /
 * JSON). Exit status 1 if any result is wrong or the validation layer reported anything. */
#include "sort_harness.h"

#include <math.h>
#include <string.h>

#define MAX_LIST 16

typedef struct row {
  uint32_t n, key_bits;
  const char *algo, *dist;
  double median, min, max, stage_median[20];
  uint32_t stages;
  bool verified, supported;
} row;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: sortbench [--n 1M,4M,16M] [--algo quaternary,onesweep|all] [--key-bits 32,24,16]\n"
          "                 [--dist uniform,...|all] [--runs 50] [--warmup 5] [--seed S]\n"
          "                 [--csv | --json] [--stages]\n"
          "  sizes take K/M suffixes (binary); distributions: uniform equal sorted reverse few-unique\n"
          "  top-bits bottom-bits float-depth. Times are GPU timestamps around each sort, in ms.\n");
}

/* Buffers are allocated once per process for the largest size and shared by every run, as a
 * renderer would (max_count = the largest size, count = N). */
typedef struct bench_buffers {
  sort_buffers sort;
  vkh_buffer pristine;
} bench_buffers;

static bool run_one(vkh_context *ctx, splatsort *sorter, bench_buffers *bb, uint32_t n, uint32_t key_bits,
                    key_dist dist, uint32_t warmup, uint32_t runs, uint64_t seed, row *out) {
  sort_buffers *bp = &bb->sort;
  vkh_buffer *pristine_p = &bb->pristine;
  uint32_t *keys = malloc(sizeof(uint32_t) * (n ? n : 1) * 4);
  uint32_t *vals = keys + n, *ref_k = vals + n, *ref_v = ref_k + n;
  gen_keys(keys, n, dist, seed);
  for (uint32_t i = 0; i < n; i++) vals[i] = i;
  cpu_sort_pairs(keys, vals, n, key_bits, ref_k, ref_v);
  vkh_buffer_write(ctx, pristine_p, 0, keys, 4ull * n);
  vkh_buffer_write(ctx, pristine_p, 4ull * n, vals, 4ull * n);

  uint32_t tc = splatsort_timestamp_count(sorter, key_bits);
  uint32_t total = warmup + runs;
  VkQueryPool pool;
  VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                               .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = tc * total};
  VK_CHECK(vkCreateQueryPool(ctx->device, &qpi, NULL, &pool));
  splatsort_sort_info info = bp->info; /* max_count: the largest size of the run */
  info.count = n;
  info.key_bits = key_bits;
  info.query_pool = pool;
  splatsort_result where = splatsort_result_location(sorter, &info);

  VkCommandBuffer cmd = vkh_begin(ctx);
  for (uint32_t r = 0; r < total; r++) {
    if (n) {
      VkBufferCopy ck = {0, info.keys.offset, 4ull * n}, cv = {4ull * n, info.values.offset, 4ull * n};
      vkCmdCopyBuffer(cmd, pristine_p->buffer, bp->keyvals.buffer, 1, &ck);
      vkCmdCopyBuffer(cmd, pristine_p->buffer, bp->keyvals.buffer, 1, &cv);
    }
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    info.first_query = r * tc;
    VK_CHECK(splatsort_cmd_sort(sorter, cmd, &info, NULL));
    VkMemoryBarrier after = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &after, 0,
                         NULL, 0, NULL);
  }
  vkh_submit_wait(ctx, cmd);

  uint64_t *ts = malloc(sizeof(uint64_t) * tc * total);
  VK_CHECK(vkGetQueryPoolResults(ctx->device, pool, 0, tc * total, sizeof(uint64_t) * tc * total, ts, 8,
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  double period = ctx->props.limits.timestampPeriod * 1e-6; /* ticks -> ms */
  double *ms = malloc(sizeof(double) * (runs ? runs : 1));
  out->stages = tc - 1 < 20 ? tc - 1 : 20;
  for (uint32_t s = 0; s <= out->stages; s++) {
    for (uint32_t r = 0; r < runs; r++) {
      const uint64_t *t = ts + (size_t)(warmup + r) * tc;
      ms[r] = s == 0 ? (double)(t[tc - 1] - t[0]) * period : (double)(t[s] - t[s - 1]) * period;
    }
    qsort(ms, runs, sizeof *ms, cmp_double);
    double med = runs ? (runs & 1 ? ms[runs / 2] : 0.5 * (ms[runs / 2 - 1] + ms[runs / 2])) : 0;
    if (s == 0) {
      out->median = med;
      out->min = runs ? ms[0] : 0;
      out->max = runs ? ms[runs - 1] : 0;
    } else {
      out->stage_median[s - 1] = med;
    }
  }
  /* verify the last run's output */
  uint32_t *gk = malloc(sizeof(uint32_t) * (n ? n : 1) * 2), *gv = gk + n;
  vkh_buffer_read(ctx, &bp->keyvals, where.keys.offset, gk, 4ull * n);
  vkh_buffer_read(ctx, &bp->keyvals, where.values.offset, gv, 4ull * n);
  out->verified = memcmp(gk, ref_k, 4ull * n) == 0 && memcmp(gv, ref_v, 4ull * n) == 0;
  out->supported = true;
  free(gk);
  free(ms);
  free(ts);
  free(keys);
  vkDestroyQueryPool(ctx->device, pool, NULL);
  return out->verified;
}

int main(int argc, char **argv) {
  uint32_t sizes[MAX_LIST] = {1u << 20}, nsizes = 1;
  uint32_t bits[MAX_LIST] = {32}, nbits = 1;
  key_dist dists[DIST_COUNT] = {DIST_UNIFORM};
  uint32_t ndists = 1;
  splatsort_algorithm algos[3] = {SPLATSORT_ALGORITHM_QUATERNARY, SPLATSORT_ALGORITHM_ONESWEEP};
  uint32_t nalgos = 2;
  uint32_t runs = 50, warmup = 5;
  uint64_t seed = 1;
  bool csv = false, json = false, stages = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--n") && v) {
      nsizes = parse_size_list(v, sizes, MAX_LIST);
      if (!nsizes) {
        fprintf(stderr, "sortbench: --n: cannot parse size list '%s' (e.g. 1M,4M,1000)\n", v);
        return 2;
      }
      i++;
    } else if (!strcmp(a, "--key-bits") && v) {
      nbits = parse_size_list(v, bits, MAX_LIST);
      for (uint32_t k = 0; k < nbits; k++)
        if (bits[k] < 1 || bits[k] > 32) nbits = 0;
      if (!nbits) {
        fprintf(stderr, "sortbench: --key-bits: expected values in 1..32, got '%s'\n", v);
        return 2;
      }
      i++;
    } else if (!strcmp(a, "--algo") && v) {
      nalgos = 0;
      char buf[128];
      snprintf(buf, sizeof buf, "%s", v);
      for (char *tok = strtok(buf, ","); tok && nalgos < 3; tok = strtok(NULL, ",")) {
        if (!strcmp(tok, "all")) {
          algos[nalgos++] = SPLATSORT_ALGORITHM_QUATERNARY;
          algos[nalgos++] = SPLATSORT_ALGORITHM_ONESWEEP;
        } else if (!strcmp(tok, "quaternary")) algos[nalgos++] = SPLATSORT_ALGORITHM_QUATERNARY;
        else if (!strcmp(tok, "onesweep")) algos[nalgos++] = SPLATSORT_ALGORITHM_ONESWEEP;
        else if (!strcmp(tok, "auto")) algos[nalgos++] = SPLATSORT_ALGORITHM_AUTO;
        else {
          fprintf(stderr, "sortbench: --algo: unknown algorithm '%s' (quaternary, onesweep, auto, all)\n", tok);
          return 2;
        }
      }
      i++;
    } else if (!strcmp(a, "--dist") && v) {
      ndists = 0;
      char buf[256];
      snprintf(buf, sizeof buf, "%s", v);
      for (char *tok = strtok(buf, ","); tok && ndists < DIST_COUNT; tok = strtok(NULL, ",")) {
        if (!strcmp(tok, "all")) {
          for (int d = 0; d < DIST_COUNT; d++) dists[d] = (key_dist)d;
          ndists = DIST_COUNT;
          break;
        }
        key_dist d = key_dist_parse(tok);
        if (d == DIST_COUNT) {
          fprintf(stderr, "sortbench: --dist: unknown distribution '%s'\n", tok);
          return 2;
        }
        dists[ndists++] = d;
      }
      i++;
    } else if (!strcmp(a, "--runs") && v) {
      runs = (uint32_t)strtoul(v, NULL, 10);
      if (runs < 1 || runs > 10000) {
        fprintf(stderr, "sortbench: --runs must be 1..10000\n");
        return 2;
      }
      i++;
    } else if (!strcmp(a, "--warmup") && v) {
      warmup = (uint32_t)strtoul(v, NULL, 10);
      i++;
    } else if (!strcmp(a, "--seed") && v) {
      seed = strtoull(v, NULL, 0);
      i++;
    } else if (!strcmp(a, "--csv")) {
      csv = true;
    } else if (!strcmp(a, "--json")) {
      json = true;
    } else if (!strcmp(a, "--stages")) {
      stages = true;
    } else {
      fprintf(stderr, "sortbench: unknown or incomplete argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }

  vkh_context ctx;
  vkh_options o = vkh_default_options(false);
  vkh_init(&ctx, &o);
  if (!ctx.props.limits.timestampComputeAndGraphics) {
    fprintf(stderr, "sortbench: the device does not support timestamps on its queue\n");
    return 1;
  }
  fprintf(stderr, "device: %s (subgroup %u), validation %s, %u warm-up + %u timed runs\n", ctx.props.deviceName,
          ctx.subgroup_size, ctx.validation ? "on" : "off", warmup, runs);
  if (csv) printf("device,n,algo,key_bits,dist,median_ms,min_ms,max_ms,mpairs_per_s,verified\n");
  if (json) printf("[\n");
  if (!csv && !json)
    printf("%10s  %-10s  %4s  %-11s  %9s  %9s  %9s  %10s  %s\n", "N", "algorithm", "bits", "keys", "median ms",
           "min ms", "max ms", "Mpairs/s", "verified");
  bool all_ok = true, first = true;
  splatsort *sorters[3] = {NULL};
  splatsort *largest = NULL; /* the sorter that needs the largest internal buffer */
  uint32_t max_n = 1;
  for (uint32_t si = 0; si < nsizes; si++) max_n = sizes[si] > max_n ? sizes[si] : max_n;
  VkDeviceSize largest_internal = 0;
  for (uint32_t ai = 0; ai < nalgos; ai++) {
    splatsort_create_info ci = {.physical_device = ctx.physical_device, .device = ctx.device, .algorithm = algos[ai],
                                .enabled_features = ctx.sort_features, .log = vkh_sort_log};
    VkResult r = splatsort_create(&ci, &sorters[ai]);
    if (r != VK_SUCCESS) {
      fprintf(stderr, "sortbench: %s is not available on this device (%s)\n", splatsort_algorithm_name(algos[ai]),
              vkh_result_name(r));
      all_ok = false;
      continue;
    }
    splatsort_memory_requirements mr;
    if (max_n > splatsort_max_count(sorters[ai]) || splatsort_get_memory_requirements(sorters[ai], max_n, &mr)) {
      fprintf(stderr, "sortbench: n=%u is above this device's maximum %u\n", max_n, splatsort_max_count(sorters[ai]));
      return 1;
    }
    if (mr.internal_size >= largest_internal) largest_internal = mr.internal_size, largest = sorters[ai];
  }
  bench_buffers bb = {0};
  if (largest) {
    sort_buffers_create(&ctx, largest, max_n, 0, false, &bb.sort);
    bb.pristine = vkh_buffer_create(&ctx, 8ull * max_n, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, false, "pristine");
  }
  for (uint32_t ai = 0; ai < nalgos; ai++) {
    splatsort *sorter = sorters[ai];
    if (!sorter) continue;
    const char *aname = splatsort_algorithm_name(splatsort_get_algorithm(sorter));
    for (uint32_t si = 0; si < nsizes; si++)
      for (uint32_t bi = 0; bi < nbits; bi++)
        for (uint32_t di = 0; di < ndists; di++) {
          row rw = {.n = sizes[si], .key_bits = bits[bi], .algo = aname, .dist = key_dist_name(dists[di])};
          all_ok &= run_one(&ctx, sorter, &bb, sizes[si], bits[bi], dists[di], warmup, runs, seed + si * 31 + di, &rw);
          double mps = rw.median > 0 ? rw.n / (rw.median * 1e3) : 0;
          if (csv)
            printf("\"%s\",%u,%s,%u,%s,%.4f,%.4f,%.4f,%.1f,%s\n", ctx.props.deviceName, rw.n, rw.algo, rw.key_bits,
                   rw.dist, rw.median, rw.min, rw.max, mps, rw.verified ? "yes" : "NO");
          else if (json)
            printf("%s  {\"device\": \"%s\", \"n\": %u, \"algo\": \"%s\", \"key_bits\": %u, \"dist\": \"%s\", "
                   "\"median_ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, \"mpairs_per_s\": %.1f, "
                   "\"verified\": %s}",
                   first ? "" : ",\n", ctx.props.deviceName, rw.n, rw.algo, rw.key_bits, rw.dist, rw.median, rw.min,
                   rw.max, mps, rw.verified ? "true" : "false");
          else
            printf("%10u  %-10s  %4u  %-11s  %9.4f  %9.4f  %9.4f  %10.1f  %s\n", rw.n, rw.algo, rw.key_bits, rw.dist,
                   rw.median, rw.min, rw.max, mps, rw.verified ? "yes" : "NO");
          if (stages && !csv && !json) {
            printf("            stages (median ms):");
            for (uint32_t s = 0; s < rw.stages; s++)
              printf(" %s=%.4f", splatsort_timestamp_label(sorter, rw.key_bits, s + 1), rw.stage_median[s]);
            printf("\n");
          }
          first = false;
          fflush(stdout);
        }
    splatsort_destroy(sorter);
  }
  if (json) printf("\n]\n");
  if (largest) {
    sort_buffers_destroy(&ctx, &bb.sort);
    vkh_buffer_destroy(&ctx, &bb.pristine);
  }
  vkh_destroy(&ctx);
  if (ctx.validation_messages) {
    fprintf(stderr, "sortbench: %u validation messages\n", ctx.validation_messages);
    return 1;
  }
  return all_ok ? 0 : 1;
}
