/* The creation-time self-test (splatsort_self_test) and AUTO's choice (splatsort_auto_hint,
 * splatsort_choose_algorithm): every algorithm passes on this device and keeps its algorithm;
 * a wrong order and a sort that never finishes (both injected: a real GPU sort by 31 bits
 * checked against 32, and a command buffer held on an event past the timeout) fall back to
 * quaternary, say so in the log, and the sorter then sorts correctly; bad chains are refused. */
#include "check.h"
#include "sort_harness.h"
#include "vkh.h"

#include <stdio.h>
#include <string.h>

static char log_text[8192];

static void capture_log(void *user, const char *message) {
  (void)user;
  size_t used = strlen(log_text);
  snprintf(log_text + used, sizeof log_text - used, "%s\n", message);
  fprintf(stderr, "log: %s\n", message);
}

static VkResult create_flags(vkh_context *ctx, splatsort_algorithm a, uint32_t flags, const void *next,
                             splatsort **out) {
  log_text[0] = 0;
  splatsort_create_info ci = {.next = next, .physical_device = ctx->physical_device, .device = ctx->device,
                              .algorithm = a, .enabled_features = ctx->sort_features, .flags = flags,
                              .log = capture_log};
  return splatsort_create(&ci, out);
}

static VkResult create(vkh_context *ctx, splatsort_algorithm a, const void *next, splatsort **out) {
  return create_flags(ctx, a, 0, next, out);
}

/* A real sort of 50,000 pairs with the sorter, checked against the stable order. */
static void sorts_correctly(vkh_context *ctx, splatsort *s, const char *what) {
  const uint32_t n = 50000;
  sort_buffers b;
  sort_buffers_create(ctx, s, n, 0, true, &b);
  uint32_t *keys = (uint32_t *)((char *)b.keyvals.mapped + sort_region(&b, 0));
  uint32_t *values = (uint32_t *)((char *)b.keyvals.mapped + sort_region(&b, 1));
  static uint32_t input[50000];
  gen_keys(input, n, DIST_FEW_UNIQUE, 77);
  for (uint32_t i = 0; i < n; i++) keys[i] = input[i], values[i] = i;
  VkCommandBuffer cmd = vkh_begin(ctx);
  splatsort_result res;
  CHECK(splatsort_cmd_sort(s, cmd, &b.info, &res) == VK_SUCCESS, "%s: record", what);
  vkh_submit_wait(ctx, cmd);
  uint32_t r = res.pass_count & 1 ? 2 : 0;
  const uint32_t *ok = (uint32_t *)((char *)b.keyvals.mapped + sort_region(&b, r));
  const uint32_t *ov = (uint32_t *)((char *)b.keyvals.mapped + sort_region(&b, r + 1));
  uint32_t bad = check_sorted_indices(input, n, 32, ok, ov);
  CHECK(bad == n, "%s: wrong pair at %u", what, bad);
  sort_buffers_destroy(ctx, &b);
}

/* Late is not wrong. With a 1 or 5 ms timeout, a sort slow on purpose (OneSweep with its
 * lookback fallback on every tile, or radix16 where OneSweep cannot run, first held on the
 * stall's event) is late, and so, on lavapipe (on a fast GPU at 1 ms at least), is quaternary's,
 * queued behind it on the same queue. create succeeds with quaternary, unverified and saying so,
 * or, with FAIL_IF_LATE, fails (a quaternary in time is verified and used either way); either way
 * destroy (or the failed create) waits for both sorts and frees all they used: an object left
 * behind is reported by the validation layer at vkDestroyDevice, a host block by LeakSanitizer. */
static void late_is_not_wrong(vkh_context *ctx, const splatsort_self_test *test) {
  const splatsort_algorithm slow[] = {SPLATSORT_ALGORITHM_ONESWEEP, SPLATSORT_ALGORITHM_RADIX16};
  const uint32_t timeouts[] = {1, 5};
  uint32_t lates = 0; /* cases where quaternary was late too */
  for (size_t t = 0; t < 2; t++) {
    for (int fail = 0; fail < 2; fail++) {
      splatsort_self_test late = *test;
      late.timeout_ms = timeouts[t];
      late.flags = SPLATSORT_SELF_TEST_INJECT_STALL_BIT | (fail ? SPLATSORT_SELF_TEST_FAIL_IF_LATE_BIT : 0);
      splatsort *s = (splatsort *)(uintptr_t)1;
      VkResult r = VK_ERROR_FEATURE_NOT_PRESENT;
      size_t a = 0;
      for (; a < 2 && r == VK_ERROR_FEATURE_NOT_PRESENT; a++)
        r = create_flags(ctx, slow[a], SPLATSORT_CREATE_FORCE_LOOKBACK_FALLBACK_BIT, &late, &s);
      const char *name = splatsort_algorithm_name(slow[a - 1]);
      char first_late[128];
      snprintf(first_late, sizeof first_late, "the %s sort of %u pairs did not finish within %u ms", name,
               20011u, timeouts[t]);
      printf("%s, %u ms%s: %s\n", name, timeouts[t], fail ? ", FAIL_IF_LATE" : "", vkh_result_name(r));
      CHECK(strstr(log_text, first_late) && strstr(log_text, "falling back from the"), "%s, %u ms: late, falls back\n%s",
            name, timeouts[t], log_text);
      /* quaternary, queued behind the slow sort, is late on lavapipe; a fast GPU may finish it in time */
      bool q_late = strstr(log_text, "the quaternary sort of") != NULL;
      lates += q_late;
      if (!q_late) {
        CHECK(r == VK_SUCCESS && s && splatsort_get_algorithm(s) == SPLATSORT_ALGORITHM_QUATERNARY &&
                  strstr(log_text, "the quaternary sort passed"),
              "%s, %u ms: quaternary in time: create succeeds with it, verified (%s)\n%s", name, timeouts[t],
              vkh_result_name(r), log_text);
        if (r == VK_SUCCESS && s) sorts_correctly(ctx, s, "after a slow sort's fallback");
      } else if (!fail) {
        CHECK(r == VK_SUCCESS && s && splatsort_get_algorithm(s) == SPLATSORT_ALGORITHM_QUATERNARY &&
                  strstr(log_text, "did not finish in time and was not verified"),
              "%s, %u ms: create succeeds with quaternary, unverified (%s)\n%s", name, timeouts[t], vkh_result_name(r),
              log_text);
        if (r == VK_SUCCESS && s) sorts_correctly(ctx, s, "after a late self-test");
      } else {
        CHECK(r == VK_ERROR_INITIALIZATION_FAILED && s == NULL &&
                  strstr(log_text, "was late; create fails (SPLATSORT_SELF_TEST_FAIL_IF_LATE_BIT)"),
              "%s, %u ms, FAIL_IF_LATE: create fails (%s)\n%s", name, timeouts[t], vkh_result_name(r), log_text);
      }
      if (r == VK_SUCCESS) splatsort_destroy(s);
    }
  }
  CHECK(lates > 0, "the late path: quaternary was never late (4 cases at 1 and 5 ms)");
}

/* --trust-device: no injected fault. Every algorithm is created with the self-test and must
 * then sort correctly, whether it kept its algorithm or fell back. Run where the device
 * misreports its subgroup size (lavapipe with LP_NATIVE_VECTOR_WIDTH=2048 reports 64 and runs
 * 16-wide), it is the self-test catching a real wrong order. */
static int trust_device(vkh_context *ctx, const splatsort_self_test *test) {
  printf("device: %s, reported subgroup size %u\n", ctx->props.deviceName, ctx->subgroup_size);
  for (int a = 1; a < SPLATSORT_ALGORITHM_COUNT; a++) {
    splatsort *s = NULL;
    double t0 = now_seconds();
    VkResult r = create(ctx, (splatsort_algorithm)a, NULL, &s);
    double plain = now_seconds() - t0;
    splatsort_destroy(s);
    if (r == VK_ERROR_FEATURE_NOT_PRESENT) continue;
    s = NULL;
    t0 = now_seconds();
    r = create(ctx, (splatsort_algorithm)a, test, &s);
    double checked = now_seconds() - t0;
    printf("%s: create %.1f ms, with the self-test %.1f ms\n", splatsort_algorithm_name((splatsort_algorithm)a),
           1e3 * plain, 1e3 * checked);
    CHECK(r == VK_SUCCESS && s, "%s: create with the self-test: %s", splatsort_algorithm_name((splatsort_algorithm)a),
          vkh_result_name(r));
    if (!s) continue;
    printf("%s: %s\n", splatsort_algorithm_name((splatsort_algorithm)a),
           splatsort_get_algorithm(s) == (splatsort_algorithm)a ? "passed its self-test, kept"
                                                                : "failed its self-test, fell back to quaternary");
    sorts_correctly(ctx, s, splatsort_algorithm_name((splatsort_algorithm)a));
    splatsort_destroy(s);
  }
  vkh_destroy(ctx);
  CHECK(ctx->validation_messages == 0, "%u validation messages", ctx->validation_messages);
  return check_report("test_self_test --trust-device");
}

int main(int argc, char **argv) {
  vkh_context ctx;
  vkh_options o = vkh_default_options(true);
  vkh_init(&ctx, &o);
  splatsort_self_test test = {.type = SPLATSORT_STRUCTURE_TYPE_SELF_TEST, .queue = ctx.queue,
                              .queue_family_index = ctx.queue_family};
  if (argc > 1 && !strcmp(argv[1], "--trust-device")) return trust_device(&ctx, &test);

  /* every algorithm passes and is kept */
  for (int a = 1; a < SPLATSORT_ALGORITHM_COUNT; a++) {
    splatsort *s = NULL;
    VkResult r = create(&ctx, (splatsort_algorithm)a, &test, &s);
    if (r == VK_ERROR_FEATURE_NOT_PRESENT) {
      printf("skip %s: not on this device\n", splatsort_algorithm_name((splatsort_algorithm)a));
      continue;
    }
    CHECK(r == VK_SUCCESS && s && splatsort_get_algorithm(s) == (splatsort_algorithm)a && !strstr(log_text, "self-test"),
          "%s: self-test passes and keeps the algorithm (%s)", splatsort_algorithm_name((splatsort_algorithm)a),
          vkh_result_name(r));
    splatsort_destroy(s);
  }

  /* a wrong order: fallback to quaternary, named in the log, and the sorter sorts right */
  const splatsort_algorithm fast[] = {SPLATSORT_ALGORITHM_ONESWEEP, SPLATSORT_ALGORITHM_RADIX16,
                                      SPLATSORT_ALGORITHM_MERGE, SPLATSORT_ALGORITHM_AUTO};
  for (size_t i = 0; i < sizeof fast / sizeof *fast; i++) {
    splatsort_self_test wrong = test;
    wrong.flags = SPLATSORT_SELF_TEST_INJECT_WRONG_ORDER_BIT;
    splatsort *s = NULL;
    VkResult r = create(&ctx, fast[i], &wrong, &s);
    if (r == VK_ERROR_FEATURE_NOT_PRESENT) continue;
    char expect[96];
    snprintf(expect, sizeof expect, "falling back from the %s sort to quaternary",
             fast[i] == SPLATSORT_ALGORITHM_AUTO ? "" : splatsort_algorithm_name(fast[i]));
    CHECK(r == VK_SUCCESS && s && splatsort_get_algorithm(s) == SPLATSORT_ALGORITHM_QUATERNARY &&
              strstr(log_text, "the stable order has") && strstr(log_text, fast[i] ? expect : "falling back from the") &&
              strstr(log_text, "the quaternary sort passed"),
          "%s with a wrong order: fallback (%s)\n%s", splatsort_algorithm_name(fast[i]), vkh_result_name(r), log_text);
    if (s) sorts_correctly(&ctx, s, "after the wrong-order fallback");
    splatsort_destroy(s);
  }

  /* a sort that does not finish in time: fallback; destroy waits for the late sort and frees it */
  splatsort_self_test stall = test;
  stall.flags = SPLATSORT_SELF_TEST_INJECT_STALL_BIT;
  /* long enough for quaternary's own test on a loaded CPU (lavapipe), which it also bounds */
  stall.timeout_ms = 3000;
  splatsort *s = NULL;
  VkResult r = create(&ctx, SPLATSORT_ALGORITHM_RADIX16, &stall, &s);
  CHECK(r == VK_SUCCESS && s && splatsort_get_algorithm(s) == SPLATSORT_ALGORITHM_QUATERNARY &&
            strstr(log_text, "did not finish within 3000 ms") && strstr(log_text, "falling back from the radix16"),
        "stalled radix16: fallback (%s)\n%s", vkh_result_name(r), log_text);
  if (s) sorts_correctly(&ctx, s, "after the timeout fallback");
  splatsort_destroy(s);

  late_is_not_wrong(&ctx, &test);

  /* bad chains */
  splatsort_self_test twice = test;
  twice.next = &test;
  splatsort_self_test no_queue = test;
  no_queue.queue = VK_NULL_HANDLE;
  splatsort_self_test bad_flags = test;
  bad_flags.flags = 1u << 7;
  splatsort_auto_hint bad_hint = {.type = SPLATSORT_STRUCTURE_TYPE_AUTO_HINT, .key_bits = 33};
  splatsort_self_test bad_family = test;
  bad_family.queue_family_index = 99;
  struct {
    const void *next;
    const char *words;
  } bad[] = {{&twice, "repeated structure type 2"},
             {&no_queue, "queue is VK_NULL_HANDLE"},
             {&bad_flags, "unknown bits in flags"},
             {&bad_hint, "key_bits 33 is above 32"},
             {&bad_family, "queue_family_index 99 is beyond the device's"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    s = (splatsort *)(uintptr_t)1;
    r = create(&ctx, SPLATSORT_ALGORITHM_QUATERNARY, bad[i].next, &s);
    CHECK(r == VK_ERROR_VALIDATION_FAILED_EXT && s == NULL && strstr(log_text, bad[i].words), "refused: %s (%s)",
          bad[i].words, log_text);
  }

  /* AUTO with a hint gives what splatsort_choose_algorithm says, for counts around every
   * threshold; without a hint, the large-count choice */
  splatsort *q = NULL;
  CHECK(create(&ctx, SPLATSORT_ALGORITHM_QUATERNARY, NULL, &q) == VK_SUCCESS, "quaternary");
  const uint32_t counts[] = {1, 1024, 1025, 4096, 4097, 8192, 8193, 32768, 32769, 131072, 131073, 1u << 20, 0};
  const uint32_t bits[] = {0, 16, 24, 32};
  for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
    for (size_t k = 0; k < sizeof bits / sizeof *bits; k++) {
      splatsort_auto_hint hint = {.type = SPLATSORT_STRUCTURE_TYPE_AUTO_HINT, .max_count = counts[c],
                                  .key_bits = bits[k]};
      splatsort_algorithm want = splatsort_choose_algorithm(q, counts[c], bits[k]);
      s = NULL;
      r = create(&ctx, SPLATSORT_ALGORITHM_AUTO, &hint, &s);
      CHECK(r == VK_SUCCESS && want != SPLATSORT_ALGORITHM_AUTO && splatsort_get_algorithm(s) == want,
            "AUTO for %u keys of %u bits: %s, choose says %s", counts[c], bits[k],
            s ? splatsort_algorithm_name(splatsort_get_algorithm(s)) : "none", splatsort_algorithm_name(want));
      if (c == 0 && k == 0) printf("AUTO on this device:");
      if (k == 3) printf(" %u:%s", counts[c], splatsort_algorithm_name(want));
      splatsort_destroy(s);
    }
  }
  printf("\n");
  s = NULL;
  CHECK(create(&ctx, SPLATSORT_ALGORITHM_AUTO, NULL, &s) == VK_SUCCESS &&
            splatsort_get_algorithm(s) == splatsort_choose_algorithm(q, 0, 32),
        "AUTO without a hint");
  splatsort_destroy(s);
  CHECK(splatsort_choose_algorithm(NULL, 10, 32) == SPLATSORT_ALGORITHM_AUTO, "NULL sorter");
  splatsort_destroy(q);

  vkh_destroy(&ctx);
  CHECK(ctx.validation_messages == 0, "%u validation messages", ctx.validation_messages);
  return check_report("test_self_test");
}
