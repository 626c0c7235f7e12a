/* OneSweep-specific sort tests, on top of test_sort's general suite: sizes at the sorter's own
 * tile boundaries, every pass count and partial last digits, indirect counts, two sorts in one
 * command buffer sharing one internal buffer, a dispatch split over x and y, and output
 * identical to the quaternary path; where the sorter has two pass kernels (chosen per sort by
 * max_count), both, at the large kernel's tile boundaries and with one internal buffer shared by
 * sorts that pick different kernels. Every result is compared with the stable CPU reference
 * (keys and payloads), nothing beyond the count may be written, and the validation layer must
 * stay silent.
 *
 * usage: test_onesweep [--force-fallback] [--seed S] */
#include "check.h"
#include "onesweep_shared.h"
#include "sort_harness.h"

#include <string.h>

static vkh_context ctx;
static splatsort *onesweep, *quaternary;
static uint32_t tile;
static uint64_t base_seed = 777;
static uint32_t passed; /* cases; a failed case counts in check.h's failures */
static const uint32_t SENTINEL = 0xDEADBEEFu;
/* Where a sorter with two pass kernels switches to the large-sort one (onesweep.c). */
static const uint32_t SPLIT = 1u << 20;

typedef struct job {
  uint32_t n;          /* elements sorted (after clamping) */
  uint32_t max_count;
  uint32_t key_bits;
  key_dist dist;
  bool indirect;
  uint32_t indirect_value;
  uint64_t seed;
} job;

typedef struct prepared {
  sort_buffers b;
  splatsort_sort_info info;
  uint32_t *ref_k, *ref_v;
} prepared;

/* Fills fresh buffers with the job's pairs (sentinels everywhere else, garbage in the internal
 * buffer) and computes the expected result. */
static void prepare(prepared *p, const job *j) {
  sort_buffers_create(&ctx, onesweep, j->max_count, 1, true, &p->b);
  uint32_t m = j->max_count, n = j->n;
  uint32_t *keys = malloc(sizeof(uint32_t) * m), *vals = malloc(sizeof(uint32_t) * m);
  p->ref_k = malloc(sizeof(uint32_t) * (n ? n : 1));
  p->ref_v = malloc(sizeof(uint32_t) * (n ? n : 1));
  gen_keys(keys, n, j->dist, j->seed);
  for (uint32_t i = 0; i < n; i++) vals[i] = i * 2654435761u ^ (uint32_t)j->seed;
  cpu_sort_pairs(keys, vals, n, j->key_bits, p->ref_k, p->ref_v);
  uint32_t *kv = p->b.keyvals.mapped;
  for (VkDeviceSize i = 0; i < p->b.keyvals.size / 4; i++) kv[i] = SENTINEL;
  memcpy((char *)kv + sort_region(&p->b, 0), keys, sizeof(uint32_t) * n);
  memcpy((char *)kv + sort_region(&p->b, 1), vals, sizeof(uint32_t) * n);
  memset(p->b.internal.mapped, 0xA5, p->b.internal.size);
  free(keys);
  free(vals);
  p->info = p->b.info;
  p->info.key_bits = j->key_bits;
  p->info.count = n;
  if (j->indirect) {
    ((uint32_t *)p->b.count.mapped)[5] = j->indirect_value;
    p->info.count = 0;
    p->info.count_buffer = (splatsort_buffer){p->b.count.buffer, 20, 4};
  }
}

static void release(prepared *p) {
  free(p->ref_k);
  free(p->ref_v);
  sort_buffers_destroy(&ctx, &p->b);
}

static void host_barrier(VkCommandBuffer cmd) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0,
                       NULL);
}

/* Checks the result of `sorter` on p against the reference; writes a reason on failure. */
static bool check(splatsort *sorter, const prepared *p, const job *j, char *why, size_t why_size) {
  splatsort_result where = splatsort_result_location(sorter, &p->info);
  const char *base = p->b.keyvals.mapped;
  const uint32_t *gk = (const uint32_t *)(base + where.keys.offset), *gv = (const uint32_t *)(base + where.values.offset);
  for (uint32_t i = 0; i < j->n; i++)
    if (gk[i] != p->ref_k[i] || gv[i] != p->ref_v[i]) {
      snprintf(why, why_size, "element %u: got %08x/%08x, expected %08x/%08x", i, gk[i], gv[i], p->ref_k[i],
               p->ref_v[i]);
      return false;
    }
  for (uint32_t r = 0; r < 4; r++) {
    const uint32_t *reg = (const uint32_t *)(base + sort_region(&p->b, r));
    for (uint32_t i = j->n; i < p->b.region / 4; i++)
      if (reg[i] != SENTINEL) {
        snprintf(why, why_size, "region %u word %u beyond the count was written", r, i);
        return false;
      }
  }
  for (VkDeviceSize i = 0; i < p->b.pad / 4; i++)
    if (((const uint32_t *)base)[i] != SENTINEL) {
      snprintf(why, why_size, "padding before the keys was written");
      return false;
    }
  return true;
}

static void report(bool ok, const char *what, const job *j, const char *why) {
  printf("%s %-22s n=%u max=%u bits=%u dist=%s%s seed=%llu%s%s\n", ok ? "ok  " : "FAIL", what, j->n, j->max_count,
         j->key_bits, key_dist_name(j->dist), j->indirect ? " indirect" : "", (unsigned long long)j->seed,
         ok ? "" : ": ", why);
  fflush(stdout);
  if (ok) passed++;
  else failures++;
}

/* One sort with `sorter`; with compare, the quaternary sorter sorts a copy of the same input and
 * the two outputs must be identical word for word. */
static void run(const char *what, job j, bool compare) {
  static uint64_t counter;
  j.seed = base_seed + 1000003ull * ++counter;
  if (!j.max_count) j.max_count = j.n ? j.n : 1;
  if (!j.key_bits) j.key_bits = 32;
  prepared p, q;
  prepare(&p, &j);
  if (compare) prepare(&q, &j);
  uint32_t before = ctx.validation_messages;
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splatsort_cmd_sort(onesweep, cmd, &p.info, NULL));
  if (compare) VK_CHECK(splatsort_cmd_sort(quaternary, cmd, &q.info, NULL));
  host_barrier(cmd);
  vkh_submit_wait(&ctx, cmd);
  char why[256] = "";
  bool ok = check(onesweep, &p, &j, why, sizeof why);
  if (ok && compare) {
    splatsort_result a = splatsort_result_location(onesweep, &p.info), b = splatsort_result_location(quaternary, &q.info);
    const char *pa = p.b.keyvals.mapped, *pb = q.b.keyvals.mapped;
    if (memcmp(pa + a.keys.offset, pb + b.keys.offset, 4ull * j.n) ||
        memcmp(pa + a.values.offset, pb + b.values.offset, 4ull * j.n)) {
      ok = false;
      snprintf(why, sizeof why, "onesweep and quaternary outputs differ");
    }
  }
  if (ok && ctx.validation_messages != before) {
    ok = false;
    snprintf(why, sizeof why, "%u validation messages", ctx.validation_messages - before);
  }
  report(ok, what, &j, why);
  release(&p);
  if (compare) release(&q);
}

/* Two sorts recorded back to back into one command buffer, sharing the first job's internal
 * buffer: what the first leaves in the scratch must not disturb the second. */
static void run_shared_scratch(job a, job b2) {
  static uint64_t counter;
  a.seed = base_seed + 7000003ull * ++counter;
  b2.seed = a.seed + 1;
  prepared p, q;
  prepare(&p, &a);
  prepare(&q, &b2);
  /* the internal buffer sized for the larger max_count holds the other's sort too */
  splatsort_buffer internal = a.max_count >= b2.max_count ? p.info.internal : q.info.internal;
  p.info.internal = q.info.internal = internal;
  uint32_t before = ctx.validation_messages;
  VkCommandBuffer cmd = vkh_begin(&ctx);
  VK_CHECK(splatsort_cmd_sort(onesweep, cmd, &p.info, NULL));
  /* the second sort reuses the scratch: the first must be done with it */
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                         VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                           VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                       0, 1, &mb, 0, NULL, 0, NULL);
  VK_CHECK(splatsort_cmd_sort(onesweep, cmd, &q.info, NULL));
  host_barrier(cmd);
  vkh_submit_wait(&ctx, cmd);
  char why[256] = "";
  bool ok = check(onesweep, &p, &a, why, sizeof why);
  report(ok, "shared scratch, 1st", &a, why);
  ok = check(onesweep, &q, &b2, why, sizeof why);
  if (ok && ctx.validation_messages != before) {
    ok = false;
    snprintf(why, sizeof why, "%u validation messages", ctx.validation_messages - before);
  }
  report(ok, "shared scratch, 2nd", &b2, why);
  release(&p);
  release(&q);
}

int main(int argc, char **argv) {
  uint32_t flags = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--force-fallback")) {
      flags |= SPLATSORT_CREATE_FORCE_LOOKBACK_FALLBACK_BIT;
    } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      base_seed = strtoull(argv[++i], NULL, 0);
    } else {
      fprintf(stderr, "usage: test_onesweep [--force-fallback] [--seed S]\n");
      return 2;
    }
  }
  vkh_options o = vkh_default_options(true);
  vkh_init(&ctx, &o);
  onesweep = sort_create_or_die(&ctx, SPLATSORT_ALGORITHM_ONESWEEP, flags);
  quaternary = sort_create_or_die(&ctx, SPLATSORT_ALGORITHM_QUATERNARY, 0);
  tile = splatsort_get_tile_size(onesweep);
  const uint32_t T = tile;
  uint32_t variant = splatsort_get_onesweep_variant(onesweep, 1, NULL), L = 0;
  uint32_t large_variant = splatsort_get_onesweep_variant(onesweep, SPLIT, &L);
  bool two = L != T || large_variant != variant;
  printf("device: %s, subgroup size %u, onesweep tile %u, %s counts (variant %u)%s, seed %llu\n",
         ctx.props.deviceName, ctx.subgroup_size, T, variant & OS_VARIANT_LATE_COUNTS ? "late" : "early", variant,
         flags ? ", forced fallback" : "", (unsigned long long)base_seed);
  if (two)
    printf("from max_count %u: tile %u, %s counts (variant %u)\n", SPLIT, L,
           large_variant & OS_VARIANT_LATE_COUNTS ? "late" : "early", large_variant);

  /* Tile boundaries: the last tile full, one short, one key into a new tile. */
  const uint32_t sizes[] = {1, 2, T - 1, T, T + 1, 2 * T - 1, 2 * T, 2 * T + 1, 7 * T + 3};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    run("tile boundary", (job){.n = sizes[i], .dist = DIST_UNIFORM}, false);
    run("tile boundary", (job){.n = sizes[i], .dist = DIST_FEW_UNIQUE}, false);
  }
  run("tile boundary", (job){.n = 3 * T, .dist = DIST_EQUAL}, false);
  run("tile boundary", (job){.n = 3 * T + 1, .dist = DIST_TOP_BITS}, false);

  /* Pass counts 1..4, full and partial last digits. */
  const uint32_t bits[] = {1, 7, 8, 9, 13, 16, 23, 24, 25, 31, 32};
  for (size_t i = 0; i < sizeof bits / sizeof *bits; i++)
    run("key bits", (job){.n = 3 * T + 17, .key_bits = bits[i], .dist = DIST_UNIFORM}, false);

  /* Indirect counts: inside, zero, exactly max_count, above it (clamped). */
  run("indirect", (job){.n = T + 1, .max_count = 3 * T, .indirect = true, .indirect_value = T + 1}, false);
  run("indirect", (job){.n = 0, .max_count = T, .indirect = true, .indirect_value = 0}, false);
  run("indirect", (job){.n = 2 * T, .max_count = 2 * T, .indirect = true, .indirect_value = 2 * T}, false);
  run("indirect", (job){.n = 2 * T + 3, .max_count = 2 * T + 3, .indirect = true, .indirect_value = 5 * T}, false);
  run("indirect", (job){.n = 1, .max_count = 4 * T, .key_bits = 13, .indirect = true, .indirect_value = 1}, false);

  /* A big sort then a small one in the same scratch, and the other way round. */
  run_shared_scratch((job){.n = 4 * T + 5, .max_count = 4 * T + 5, .key_bits = 32, .dist = DIST_UNIFORM},
                     (job){.n = T + 9, .max_count = 4 * T + 5, .key_bits = 24, .dist = DIST_FEW_UNIQUE});
  run_shared_scratch((job){.n = T - 3, .max_count = 4 * T + 5, .key_bits = 16, .dist = DIST_UNIFORM},
                     (job){.n = 4 * T + 5, .max_count = 4 * T + 5, .key_bits = 32, .dist = DIST_FLOAT_DEPTH});

  /* Identical to the quaternary path. */
  run("same as quaternary", (job){.n = 5 * T + 11, .dist = DIST_FLOAT_DEPTH}, true);
  run("same as quaternary", (job){.n = 2 * T - 5, .key_bits = 13, .dist = DIST_FEW_UNIQUE}, true);
  run("same as quaternary", (job){.n = 3 * T, .key_bits = 24, .dist = DIST_BOTTOM_BITS}, true);

  /* Two kernels: the sort's max_count picks one, whatever its count. */
  if (two) {
    const uint32_t sizes2[] = {1, L - 1, L, L + 1, 2 * L + 1, 7 * L + 3};
    for (size_t i = 0; i < sizeof sizes2 / sizeof *sizes2; i++)
      run("large kernel", (job){.n = sizes2[i], .max_count = SPLIT, .dist = DIST_UNIFORM}, false);
    run("large kernel", (job){.n = 3 * L + 17, .max_count = SPLIT + 1, .key_bits = 16, .dist = DIST_FEW_UNIQUE}, false);
    run("large kernel", (job){.n = 2 * L, .max_count = SPLIT, .indirect = true, .indirect_value = 2 * L}, false);
    run("small kernel", (job){.n = 7 * T + 3, .max_count = SPLIT - 1, .dist = DIST_UNIFORM}, false);
    run("small kernel", (job){.n = T + 1, .max_count = SPLIT - 1, .indirect = true, .indirect_value = T + 1}, false);
    run("large kernel, full", (job){.n = SPLIT + 3, .dist = DIST_FLOAT_DEPTH}, false);
    /* one internal buffer (sized for the larger max_count) for both kernels, either order */
    run_shared_scratch((job){.n = 3 * L + 5, .max_count = SPLIT + 5, .key_bits = 32, .dist = DIST_UNIFORM},
                       (job){.n = 2 * T + 1, .max_count = SPLIT - 1, .key_bits = 32, .dist = DIST_FEW_UNIQUE});
    run_shared_scratch((job){.n = 5 * T + 7, .max_count = SPLIT - 1, .key_bits = 24, .dist = DIST_UNIFORM},
                       (job){.n = 4 * L + 1, .max_count = SPLIT, .key_bits = 32, .dist = DIST_UNIFORM});
  }

  /* Dispatches split over x and y: pretend the device allows 2 workgroups in x (the shader
   * takes tiles from a counter, so extra workgroups must find nothing to do). */
  splatsort_onesweep_tuning narrow = {.type = SPLATSORT_STRUCTURE_TYPE_ONESWEEP_TUNING, .max_workgroups_x = 2};
  const splatsort_onesweep_tuning *env = sort_tuning_from_env();
  if (env) {
    narrow = *env;
    narrow.max_workgroups_x = 2;
  }
  splatsort *wide_sorter = onesweep;
  onesweep = sort_create_tuned_or_die(&ctx, SPLATSORT_ALGORITHM_ONESWEEP, flags, &narrow);
  run("2D dispatch", (job){.n = 8 * T + 1, .dist = DIST_UNIFORM}, false);
  run("2D dispatch", (job){.n = 9 * T, .key_bits = 20, .dist = DIST_UNIFORM}, false);
  if (two) run("2D dispatch, large", (job){.n = 3 * L + 1, .max_count = SPLIT, .dist = DIST_UNIFORM}, false);
  splatsort_destroy(onesweep);
  onesweep = wide_sorter;

  splatsort_destroy(onesweep);
  splatsort_destroy(quaternary);
  vkh_destroy(&ctx);
  CHECK(ctx.validation_messages == 0, "%u validation messages", ctx.validation_messages);
  printf("%u cases passed\n", passed);
  return check_report("test_onesweep");
}
