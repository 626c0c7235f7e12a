/* GPU sort correctness: every case is compared element by element (keys and payloads, so
 * stability is checked) with the stable CPU reference, memory outside the sorted range must
 * be untouched, and the validation layer must stay silent. Sizes sit at the fixed chunk and
 * scan boundaries of the quaternary sort and at the tested sorter's own tile and scan-level
 * boundaries; the other algorithms' outputs must also be identical to quaternary's.
 *
 * usage: test_sort --algo quaternary|onesweep|radix16|merge|auto [--force-fallback]
 *                  [--suite quick|full|large] [--seed S] */
#include "check.h"
#include "sort_harness.h"

#include <string.h>
#include <time.h>

typedef struct sort_case {
  uint32_t n;          /* elements the GPU sorts (after clamping) */
  uint32_t max_count;
  key_dist dist;
  uint32_t key_bits;   /* 1..32 */
  bool indirect;
  uint32_t indirect_value; /* what the count buffer holds (may exceed max_count) */
  uint32_t pad_units;
  bool keys_only;      /* no value buffers: only the keys are sorted, value regions untouched */
  bool compare;        /* the quaternary sorter sorts the same input: outputs identical word for word */
} sort_case;

static vkh_context ctx;
static splatsort *sorter;
static splatsort *quaternary; /* for compare cases; NULL when the tested sorter is quaternary */
static uint64_t base_seed = 20261121;
static uint32_t passed; /* cases; a failed case counts in check.h's failures */
static const uint32_t SENTINEL = 0xDEADBEEFu;
/* Entries per block of the hierarchical scan of the quaternary and radix16 sorts
 * (QUATERNARY_CHUNK). */
#define SCAN_BLOCK 512u

static bool run_case(const sort_case *c, uint64_t seed) {
  sort_buffers b;
  sort_buffers_create(&ctx, sorter, c->max_count, c->pad_units, true, &b);
  uint32_t n = c->n, m = c->max_count;
  uint32_t *keys = malloc(sizeof(uint32_t) * m), *vals = malloc(sizeof(uint32_t) * m);
  uint32_t *ref_k = malloc(sizeof(uint32_t) * (n ? n : 1)), *ref_v = malloc(sizeof(uint32_t) * (n ? n : 1));
  gen_keys(keys, n, c->dist, seed);
  uint64_t st = seed ^ 0xABCDEFull;
  for (uint32_t i = 0; i < n; i++) vals[i] = i ^ ((uint32_t)splitmix64(&st) & 0xFFF00000u);
  for (uint32_t i = n; i < m; i++) keys[i] = vals[i] = SENTINEL;
  cpu_sort_pairs(keys, vals, n, c->key_bits, ref_k, ref_v);

  /* fill every region (tmp ones too) so stray writes are seen */
  uint32_t *kv = b.keyvals.mapped;
  for (VkDeviceSize i = 0; i < b.keyvals.size / 4; i++) kv[i] = SENTINEL;
  memcpy((char *)b.keyvals.mapped + sort_region(&b, 0), keys, sizeof(uint32_t) * m);
  memcpy((char *)b.keyvals.mapped + sort_region(&b, 1), vals, sizeof(uint32_t) * m);
  memset(b.internal.mapped, 0xA5, b.internal.size); /* scratch must not need zeroing */

  splatsort_sort_info info = b.info;
  info.key_bits = c->key_bits;
  info.count = n;
  if (c->keys_only) info.values = info.tmp_values = (splatsort_buffer){0};
  const uint32_t count_word = 3; /* 12 bytes in: a multiple of 4, not of the storage alignment */
  if (c->indirect) {
    ((uint32_t *)b.count.mapped)[count_word] = c->indirect_value;
    info.count = 0;
    info.count_buffer = (splatsort_buffer){b.count.buffer, count_word * 4, 4};
  }
  /* the same input, buffers and count for the quaternary sorter, in the same command buffer */
  sort_buffers qb = {0};
  splatsort_sort_info q_info = {0};
  bool compare = c->compare && quaternary;
  if (compare) {
    sort_buffers_create(&ctx, quaternary, c->max_count, c->pad_units, true, &qb);
    memcpy(qb.keyvals.mapped, b.keyvals.mapped, b.keyvals.size);
    memcpy(qb.count.mapped, b.count.mapped, b.count.size);
    q_info = qb.info;
    q_info.key_bits = info.key_bits;
    q_info.count = info.count;
    if (c->keys_only) q_info.values = q_info.tmp_values = (splatsort_buffer){0};
    if (c->indirect) q_info.count_buffer = (splatsort_buffer){qb.count.buffer, count_word * 4, 4};
  }
  VkQueryPool pool;
  uint32_t queries = splatsort_timestamp_count(sorter, info.key_bits);
  VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                               .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = queries + 2};
  VK_CHECK(vkCreateQueryPool(ctx.device, &qpi, NULL, &pool));
  info.query_pool = pool;
  info.first_query = 2;

  uint32_t before = ctx.validation_messages;
  VkCommandBuffer cmd = vkh_begin(&ctx);
  splatsort_result where;
  VK_CHECK(splatsort_cmd_sort(sorter, cmd, &info, &where));
  if (compare) VK_CHECK(splatsort_cmd_sort(quaternary, cmd, &q_info, NULL));
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0,
                       NULL);
  vkh_submit_wait(&ctx, cmd);

  bool ok = true;
  char why[256] = "";
  splatsort_result loc = splatsort_result_location(sorter, &info);
  if (loc.keys.offset != where.keys.offset || loc.pass_count != where.pass_count) {
    ok = false;
    snprintf(why, sizeof why, "result location differs between cmd_sort and result_location");
  }
  const uint32_t *gk = (const uint32_t *)((char *)b.keyvals.mapped + where.keys.offset);
  const uint32_t *gv = (const uint32_t *)((char *)b.keyvals.mapped + where.values.offset);
  if (c->keys_only) gv = ref_v; /* only the keys are compared; the value regions are checked below */
  for (uint32_t i = 0; ok && i < n; i++) {
    if (gk[i] != ref_k[i] || gv[i] != ref_v[i]) {
      ok = false;
      snprintf(why, sizeof why, "element %u: got key %08x value %08x, expected %08x %08x", i, gk[i], gv[i], ref_k[i],
               ref_v[i]);
    }
  }
  /* nothing beyond n in any region, and nothing in the padding, may change; a keys-only sort
   * leaves the value regions (1: values, 3: tmp values) as they were, apart from the input */
  for (uint32_t r = 0; ok && r < 4; r++) {
    const uint32_t *reg = (const uint32_t *)((char *)b.keyvals.mapped + sort_region(&b, r));
    if (c->keys_only && r == 3)
      for (uint32_t i = 0; ok && i < n; i++)
        if (reg[i] != SENTINEL) {
          ok = false;
          snprintf(why, sizeof why, "keys-only sort wrote tmp value %u", i);
        }
    if (c->keys_only && r == 1)
      for (uint32_t i = 0; ok && i < n; i++)
        if (reg[i] != vals[i]) {
          ok = false;
          snprintf(why, sizeof why, "keys-only sort wrote value %u", i);
        }
    for (uint32_t i = n; ok && i < b.region / 4; i++)
      if (reg[i] != SENTINEL) {
        ok = false;
        snprintf(why, sizeof why, "region %u word %u beyond the count was written", r, i);
      }
  }
  for (VkDeviceSize i = 0; ok && i < b.pad / 4; i++)
    if (kv[i] != SENTINEL) {
      ok = false;
      snprintf(why, sizeof why, "padding before the keys was written");
    }
  uint64_t ts[64] = {0};
  if (ok && queries <= 64 && ctx.props.limits.timestampComputeAndGraphics) {
    VK_CHECK(vkGetQueryPoolResults(ctx.device, pool, 2, queries, sizeof ts, ts, 8,
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    for (uint32_t q = 1; q < queries && ok; q++)
      if (ts[q] < ts[q - 1]) {
        ok = false;
        snprintf(why, sizeof why, "timestamp %u (%s) is before timestamp %u", q,
                 splatsort_timestamp_label(sorter, info.key_bits, q), q - 1);
      }
  }
  if (ok && compare) {
    splatsort_result qr = splatsort_result_location(quaternary, &q_info);
    const char *pa = b.keyvals.mapped, *pq = qb.keyvals.mapped;
    if (memcmp(pa + where.keys.offset, pq + qr.keys.offset, 4ull * n) ||
        (!c->keys_only && memcmp(pa + where.values.offset, pq + qr.values.offset, 4ull * n))) {
      ok = false;
      snprintf(why, sizeof why, "output differs from the quaternary sort's");
    }
  }
  if (ctx.validation_messages != before) {
    ok = false;
    snprintf(why, sizeof why, "%u validation messages", ctx.validation_messages - before);
  }
  vkDestroyQueryPool(ctx.device, pool, NULL);
  if (compare) sort_buffers_destroy(&ctx, &qb);
  printf("%s n=%u max=%u dist=%s bits=%u %s%s pad=%u%s seed=%llu%s%s\n", ok ? "ok  " : "FAIL", n, c->max_count,
         key_dist_name(c->dist), c->key_bits, c->indirect ? "indirect" : "direct", c->keys_only ? " keys-only" : "",
         c->pad_units, compare ? " same-as-quaternary" : "", (unsigned long long)seed, ok ? "" : ": ", why);
  fflush(stdout);
  if (ok) passed++;
  else failures++;
  free(keys);
  free(vals);
  free(ref_k);
  free(ref_v);
  sort_buffers_destroy(&ctx, &b);
  return ok;
}

static void run(uint32_t n, key_dist dist, uint32_t bits) {
  static uint64_t counter;
  sort_case c = {.n = n, .max_count = n ? n : 1, .dist = dist, .key_bits = bits};
  run_case(&c, base_seed + 7919 * ++counter);
}

static void run_indirect(uint32_t value, uint32_t max_count, uint32_t pad) {
  static uint64_t counter = 1000;
  sort_case c = {.n = value < max_count ? value : max_count, .max_count = max_count, .dist = DIST_UNIFORM,
                 .key_bits = 32, .indirect = true, .indirect_value = value, .pad_units = pad};
  run_case(&c, base_seed + 104729 * ++counter);
}

static void run_padded(uint32_t n, uint32_t max_count, uint32_t pad, uint32_t bits) {
  static uint64_t counter = 2000;
  sort_case c = {.n = n, .max_count = max_count, .dist = DIST_UNIFORM, .key_bits = bits, .pad_units = pad};
  run_case(&c, base_seed + 15485863 * ++counter);
}

/* Digit counts per tile that the sorter scans (0: it has no chunk scan). */
static uint32_t scanned_digits(void) {
  switch (splatsort_get_algorithm(sorter)) {
  case SPLATSORT_ALGORITHM_QUATERNARY: return 4;
  case SPLATSORT_ALGORITHM_RADIX16: return 16;
  default: return 0;
  }
}

/* The sorter's own boundaries: its last tile full, one short, one key into the next; where it
 * scans per-tile digit counts, the counts filling one 512-entry scan block exactly and one
 * tile more (the scan's first level boundary). */
static void suite_sorter_boundaries(void) {
  uint32_t t = splatsort_get_tile_size(sorter);
  const uint32_t sizes[] = {t - 1, t, t + 1, 2 * t - 1, 2 * t + 1, 3 * t + t / 2};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    run(sizes[i], DIST_UNIFORM, 32);
    run(sizes[i], DIST_FEW_UNIQUE, 32);
    run(sizes[i], DIST_FLOAT_DEPTH, 24);
  }
  uint32_t digits = scanned_digits();
  if (digits) {
    uint32_t block = SCAN_BLOCK / digits * t; /* keys whose tiles' counts fill one scan block */
    const uint32_t level[] = {block - 1, block, block + 1, block + t, 2 * block + 1};
    for (size_t i = 0; i < sizeof level / sizeof *level; i++) {
      run(level[i], DIST_UNIFORM, 32);
      run(level[i], DIST_BOTTOM_BITS, 32);
    }
  }
  if (splatsort_get_algorithm(sorter) == SPLATSORT_ALGORITHM_MERGE) {
    /* runs of 2, 4 and 8 tiles merged: each merge level full, one key short and one over */
    const uint32_t merged[] = {4 * t - 1, 4 * t, 4 * t + 1, 8 * t - 3, 8 * t + 5, 16 * t + 1};
    for (size_t i = 0; i < sizeof merged / sizeof *merged; i++) {
      run(merged[i], DIST_FEW_UNIQUE, 32);
      run(merged[i], DIST_FLOAT_DEPTH, 17);
    }
  }
}

static void run_compare(uint32_t n, key_dist dist, uint32_t bits, bool indirect, bool keys_only) {
  static uint64_t counter = 3000;
  sort_case c = {.n = n, .max_count = n ? n + 5 : 1, .dist = dist, .key_bits = bits, .indirect = indirect,
                 .indirect_value = n, .pad_units = 1, .keys_only = keys_only, .compare = true};
  run_case(&c, base_seed + 49979687 * ++counter);
}

/* The same input through the quaternary sorter gives the same output word for word (both
 * are the stable sort, so this pins the paths to each other, as bit-identical images need). */
static void suite_same_as_quaternary(void) {
  if (!quaternary) return;
  uint32_t t = splatsort_get_tile_size(sorter);
  run_compare(5 * t + 11, DIST_FLOAT_DEPTH, 32, false, false);
  run_compare(2 * t - 5, DIST_FEW_UNIQUE, 13, false, false);
  run_compare(3 * t, DIST_BOTTOM_BITS, 24, true, false);
  run_compare(70001, DIST_UNIFORM, 32, false, true);
  run_compare(70001, DIST_EQUAL, 9, true, false);
}

static void suite_quick(void) {
  static const uint32_t sizes[] = {0, 1, 2, 3, 31, 255, 256, 511, 512, 513, 1023, 1024, 1025, 4095, 7681, 65535};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    for (int d = 0; d < DIST_COUNT; d++) run(sizes[i], (key_dist)d, 32);
  /* scan-level boundaries: 128 chunks of 512 fill one scan block of 4*128 counts */
  static const uint32_t level[] = {65536, 65537, 66048, 66049, 100000};
  for (size_t i = 0; i < sizeof level / sizeof *level; i++)
    for (int d = 0; d < DIST_COUNT; d++) run(level[i], (key_dist)d, 32);
  static const uint32_t bits[] = {1, 2, 3, 4, 8, 13, 16, 17, 24, 30, 31};
  for (size_t i = 0; i < sizeof bits / sizeof *bits; i++) {
    run(10007, DIST_UNIFORM, bits[i]);
    run(70001, DIST_UNIFORM, bits[i]);
  }
  run_indirect(5000, 10000, 0);
  run_indirect(0, 10000, 1);
  run_indirect(10000, 10000, 0);
  run_indirect(123456789, 70000, 2); /* above max_count: clamped */
  run_indirect(66000, 140000, 3);
  run_padded(3000, 5000, 3, 32);
  run_padded(70000, 70001, 1, 24);
  /* keys only (no value buffers): every pass parity of every algorithm, a partial last digit */
  static const uint32_t keys_only[][2] = {{0, 32},     {1, 32},      {513, 32},  {70001, 32},
                                          {70001, 24}, {10007, 13}, {10007, 9}, {3073, 4}};
  for (size_t i = 0; i < sizeof keys_only / sizeof *keys_only; i++) {
    sort_case c = {.n = keys_only[i][0], .max_count = keys_only[i][0] ? keys_only[i][0] : 1, .dist = DIST_FEW_UNIQUE,
                   .key_bits = keys_only[i][1], .keys_only = true};
    run_case(&c, base_seed + 31337 * (i + 1));
  }
  suite_sorter_boundaries();
  suite_same_as_quaternary();
}

static void suite_full(void) {
  suite_quick();
  run(1000000, DIST_UNIFORM, 32);
  run(1000000, DIST_FLOAT_DEPTH, 32);
  run(1000000, DIST_FEW_UNIQUE, 32);
  run(1000000, DIST_UNIFORM, 16);
  run_indirect(777777, 1000000, 1);
}

static void suite_large(void) {
  /* Tiles whose counts fill the second scan level exactly, then one more, which needs a third
   * level: 65536 chunks (33,554,432 keys) of the quaternary sort, 16384 tiles of radix16
   * (50,331,648 keys with 3,072-key tiles); OneSweep takes the quaternary sizes. Devices whose
   * storage range is 2^27 bytes (lavapipe) stop at 33,554,432. */
  uint32_t digits = scanned_digits();
  uint64_t full = digits ? (uint64_t)SCAN_BLOCK * (SCAN_BLOCK / digits) * splatsort_get_tile_size(sorter) : 33554432u;
  const uint64_t sizes[] = {full, full + 1};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    if (sizes[i] > splatsort_max_count(sorter)) {
      printf("skip n=%llu: above this device's maximum %u\n", (unsigned long long)sizes[i],
             splatsort_max_count(sorter));
      continue;
    }
    run((uint32_t)sizes[i], DIST_UNIFORM, 32);
  }
}

int main(int argc, char **argv) {
  splatsort_algorithm algo = SPLATSORT_ALGORITHM_QUATERNARY;
  uint32_t flags = 0;
  const char *suite = "full";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--algo") && i + 1 < argc) {
      const char *a = argv[++i];
      if (!splatsort_algorithm_from_name(a, &algo)) {
        fprintf(stderr, "test_sort: unknown --algo '%s' (quaternary, onesweep, radix16, merge, auto)\n", a);
        return 2;
      }
    } else if (!strcmp(argv[i], "--force-fallback")) {
      flags |= SPLATSORT_CREATE_FORCE_LOOKBACK_FALLBACK_BIT;
    } else if (!strcmp(argv[i], "--suite") && i + 1 < argc) {
      suite = argv[++i];
    } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      base_seed = strtoull(argv[++i], NULL, 0);
    } else {
      fprintf(stderr, "usage: test_sort --algo quaternary|onesweep|radix16|merge|auto [--force-fallback] "
                      "[--suite quick|full|large] [--seed S]\n");
      return 2;
    }
  }
  vkh_options o = vkh_default_options(true);
  vkh_init(&ctx, &o);
  sorter = sort_create_or_die(&ctx, algo, flags);
  if (splatsort_get_algorithm(sorter) != SPLATSORT_ALGORITHM_QUATERNARY)
    quaternary = sort_create_tuned_or_die(&ctx, SPLATSORT_ALGORITHM_QUATERNARY, 0, NULL);
  printf("device: %s, subgroup size %u, algorithm %s%s, suite %s, seed %llu\n", ctx.props.deviceName,
         ctx.subgroup_size, splatsort_algorithm_name(splatsort_get_algorithm(sorter)),
         flags ? " (forced fallback)" : "", suite, (unsigned long long)base_seed);
  clock_t t0 = clock();
  if (!strcmp(suite, "quick")) suite_quick();
  else if (!strcmp(suite, "large")) suite_large();
  else suite_full();
  splatsort_destroy(sorter);
  splatsort_destroy(quaternary);
  vkh_destroy(&ctx);
  CHECK(ctx.validation_messages == 0, "%u validation messages", ctx.validation_messages);
  printf("cpu time %.1f s\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
  printf("%u cases passed\n", passed);
  return check_report("test_sort");
}
