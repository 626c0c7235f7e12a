/* Key distributions, the O(n) result check and GPU buffer setup for the sort tests and sortbench. */
#include "sort_harness.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *dist_names[DIST_COUNT] = {"uniform", "equal", "sorted", "reverse",
                                             "few-unique", "top-bits", "bottom-bits", "float-depth"};

const char *key_dist_name(key_dist d) { return d < DIST_COUNT ? dist_names[d] : "?"; }

key_dist key_dist_parse(const char *name) {
  for (int d = 0; d < DIST_COUNT; d++)
    if (strcmp(name, dist_names[d]) == 0) return (key_dist)d;
  return DIST_COUNT;
}

uint32_t float_to_sortable(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (u & 0x80000000u) ? ~u : u | 0x80000000u;
}

void gen_keys(uint32_t *keys, uint32_t n, key_dist dist, uint64_t seed) {
  uint64_t st = seed;
  uint32_t few[16];
  for (int i = 0; i < 16; i++) few[i] = (uint32_t)splitmix64(&st);
  uint32_t equal = (uint32_t)splitmix64(&st);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t r = (uint32_t)splitmix64(&st);
    switch (dist) {
    case DIST_UNIFORM: keys[i] = r; break;
    case DIST_EQUAL: keys[i] = equal; break;
    case DIST_SORTED: keys[i] = (uint32_t)((uint64_t)i * 0xFFFFFFFFull / (n ? n : 1)); break;
    case DIST_REVERSE: keys[i] = (uint32_t)((uint64_t)(n - 1 - i) * 0xFFFFFFFFull / (n ? n : 1)); break;
    case DIST_FEW_UNIQUE: keys[i] = few[r & 15]; break;
    case DIST_TOP_BITS: keys[i] = r & 0xF0000000u; break;
    case DIST_BOTTOM_BITS: keys[i] = r & 0xFu; break;
    case DIST_FLOAT_DEPTH: {
      /* view-space depths of a scene around the camera: mostly positive, some negative */
      float u = (float)(r >> 8) / 16777216.0f;
      float z = -5.0f + 200.0f * u * u;
      keys[i] = float_to_sortable(z);
      break;
    }
    default: keys[i] = r; break;
    }
  }
}

uint32_t check_sorted_indices(const uint32_t *keys, uint32_t n, uint32_t key_bits, const uint32_t *out_keys,
                              const uint32_t *out_values) {
  uint32_t mask = key_bits >= 32 ? 0xFFFFFFFFu : (1u << key_bits) - 1u;
  uint8_t *seen = calloc((size_t)n / 8 + 1, 1);
  uint32_t bad = n;
  for (uint32_t i = 0; i < n && bad == n; i++) {
    uint32_t v = out_values[i];
    if (v >= n || (seen[v >> 3] >> (v & 7)) & 1u || keys[v] != out_keys[i]) {
      bad = i;
      break;
    }
    seen[v >> 3] |= (uint8_t)(1u << (v & 7));
    if (i > 0) {
      uint32_t a = out_keys[i - 1] & mask, b = out_keys[i] & mask;
      if (a > b || (a == b && out_values[i - 1] >= v)) bad = i;
    }
  }
  free(seen);
  return bad;
}

bool sort_tuning_parse(const char *text, splatsort_onesweep_tuning *t, char *err, size_t err_size) {
  static const struct {
    const char *key;
    size_t offset;
  } keys[] = {
      {"wg", offsetof(splatsort_onesweep_tuning, workgroup_size)},
      {"keys", offsetof(splatsort_onesweep_tuning, keys_per_invocation)},
      {"spin", offsetof(splatsort_onesweep_tuning, lookback_spin)},
      {"window", offsetof(splatsort_onesweep_tuning, lookback_window)},
      {"hu", offsetof(splatsort_onesweep_tuning, histogram_unroll)},
      {"hc", offsetof(splatsort_onesweep_tuning, histogram_copies)},
      {"sg", offsetof(splatsort_onesweep_tuning, required_subgroup_size)},
      {"variant", offsetof(splatsort_onesweep_tuning, variant)},
      {"maxx", offsetof(splatsort_onesweep_tuning, max_workgroups_x)},
  };
  memset(t, 0, sizeof *t);
  t->type = SPLATSORT_STRUCTURE_TYPE_ONESWEEP_TUNING;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", text);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '='), *end = NULL;
    unsigned long v = eq ? strtoul(eq + 1, &end, 10) : 0;
    if (!eq || end == eq + 1 || *end || v > 65536) {
      snprintf(err, err_size, "tuning: bad entry '%s' (expected key=number)", tok);
      return false;
    }
    *eq = 0;
    bool known = false;
    for (size_t k = 0; k < sizeof keys / sizeof *keys && !known; k++)
      if (!strcmp(tok, keys[k].key)) {
        *(uint32_t *)((char *)t + keys[k].offset) = (uint32_t)v;
        known = true;
      }
    static const struct {
      const char *key;
      uint32_t bit;
    } flags[] = {{"wide", SPLATSORT_ONESWEEP_WIDE_BALLOT_BIT},
                 {"stats", SPLATSORT_ONESWEEP_STATISTICS_BIT},
                 {"early", SPLATSORT_ONESWEEP_EARLY_COUNTS_BIT},
                 {"two", SPLATSORT_ONESWEEP_TWO_KERNELS_BIT}};
    for (size_t k = 0; k < sizeof flags / sizeof *flags && !known; k++)
      if (!strcmp(tok, flags[k].key)) {
        t->flags = v ? t->flags | flags[k].bit : t->flags & ~flags[k].bit;
        known = true;
      }
    if (!known) {
      snprintf(err, err_size,
               "tuning: unknown key '%s' (wg, keys, spin, window, hu, hc, sg, wide, stats, early, two, variant, maxx)", tok);
      return false;
    }
  }
  return true;
}

splatsort_onesweep_tuning *sort_tuning_from_env(void) {
  static splatsort_onesweep_tuning t;
  const char *env = getenv("SPLATSORT_ONESWEEP_TUNING");
  if (!env || !*env) return NULL;
  char err[256];
  if (!sort_tuning_parse(env, &t, err, sizeof err)) {
    fprintf(stderr, "error: SPLATSORT_ONESWEEP_TUNING: %s\n", err);
    exit(2);
  }
  return &t;
}

splatsort *sort_create_or_die(vkh_context *ctx, splatsort_algorithm algorithm, uint32_t flags) {
  return sort_create_tuned_or_die(ctx, algorithm, flags, sort_tuning_from_env());
}

splatsort *sort_create_tuned_or_die(vkh_context *ctx, splatsort_algorithm algorithm, uint32_t flags,
                                    const splatsort_onesweep_tuning *tuning) {
  splatsort_create_info ci = {.next = tuning, .physical_device = ctx->physical_device, .device = ctx->device,
                              .algorithm = algorithm, .enabled_features = ctx->sort_features,
                              .flags = flags | vkh_sort_flags(ctx), .log = vkh_sort_log};
  splatsort *s = NULL;
  VkResult r = splatsort_create(&ci, &s);
  if (r != VK_SUCCESS) {
    fprintf(stderr, "error: splatsort_create(%s) failed: %s\n", splatsort_algorithm_name(algorithm),
            vkh_result_name(r));
    exit(1);
  }
  return s;
}

VkDeviceSize sort_region(const sort_buffers *b, uint32_t r) { return b->pad + b->region * r; }

void sort_buffers_create(vkh_context *ctx, splatsort *sorter, uint32_t max_count, uint32_t pad_units,
                         bool host_visible, sort_buffers *b) {
  memset(b, 0, sizeof *b);
  b->max_count = max_count;
  VK_CHECK(splatsort_get_memory_requirements(sorter, max_count, &b->req));
  b->pad = b->req.alignment * pad_units;
  b->region = b->req.keyval_size;
  b->keyvals = vkh_buffer_create(ctx, b->pad + 4 * b->region, b->req.keyval_usage, host_visible, "sort keyvals");
  b->internal = vkh_buffer_create(ctx, b->req.internal_size, b->req.internal_usage, host_visible, "sort internal");
  b->count = vkh_buffer_create(ctx, 256, b->req.count_usage, host_visible, "sort count");
  splatsort_sort_info *i = &b->info;
  i->max_count = max_count;
  i->count = max_count;
  i->keys = (splatsort_buffer){b->keyvals.buffer, sort_region(b, 0), b->region};
  i->values = (splatsort_buffer){b->keyvals.buffer, sort_region(b, 1), b->region};
  i->tmp_keys = (splatsort_buffer){b->keyvals.buffer, sort_region(b, 2), b->region};
  i->tmp_values = (splatsort_buffer){b->keyvals.buffer, sort_region(b, 3), b->region};
  i->internal = (splatsort_buffer){b->internal.buffer, 0, b->req.internal_size};
}

void sort_buffers_destroy(vkh_context *ctx, sort_buffers *b) {
  vkh_buffer_destroy(ctx, &b->keyvals);
  vkh_buffer_destroy(ctx, &b->internal);
  vkh_buffer_destroy(ctx, &b->count);
}

uint32_t sort_algorithms_parse(const char *tool, const char *text, bool allow_auto, splatsort_algorithm *out,
                               uint32_t max) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", text);
  uint32_t n = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    splatsort_algorithm a = SPLATSORT_ALGORITHM_AUTO;
    bool all = !strcmp(tok, "all");
    if (!all && (!splatsort_algorithm_from_name(tok, &a) || (a == SPLATSORT_ALGORITHM_AUTO && !allow_auto))) {
      fprintf(stderr, "%s: --algo: unknown algorithm '%s' (quaternary, onesweep, radix16, merge%s, all)\n", tool, tok,
              allow_auto ? ", auto" : "");
      return 0;
    }
    for (int k = all ? 1 : (int)a; k < (all ? SPLATSORT_ALGORITHM_COUNT : (int)a + 1); k++) {
      if (n == max) {
        fprintf(stderr, "%s: --algo: at most %u algorithms\n", tool, max);
        return 0;
      }
      out[n++] = (splatsort_algorithm)k;
    }
  }
  if (!n) fprintf(stderr, "%s: --algo: no algorithm in '%s'\n", tool, text);
  return n;
}
