/* parallel.c: the renderer's CPU work split over threads (the scene's value checks, the
 * upload's packing) and the float -> half conversion of the SH, with F16C where the CPU has it. */
#include "render_internal.h"

#include "splat_project.h"

#include <pthread.h>
#include <string.h>

typedef struct range_job {
  void (*fn)(void *ctx, uint32_t lo, uint32_t hi);
  void *ctx;
  uint32_t lo, hi;
} range_job;

static void *range_job_run(void *p) {
  range_job *j = p;
  if (j->hi > j->lo) j->fn(j->ctx, j->lo, j->hi);
  return NULL;
}

void render_parallel(uint32_t threads, uint32_t count, void (*fn)(void *ctx, uint32_t lo, uint32_t hi), void *ctx) {
  uint32_t n = threads < count ? threads : count;
  if (n > SPLAT_MAX_UPLOAD_THREADS) n = SPLAT_MAX_UPLOAD_THREADS;
  if (n <= 1) {
    if (count) fn(ctx, 0, count);
    return;
  }
  range_job job[SPLAT_MAX_UPLOAD_THREADS];
  pthread_t tid[SPLAT_MAX_UPLOAD_THREADS];
  bool started[SPLAT_MAX_UPLOAD_THREADS] = {false};
  for (uint32_t t = 0; t < n; t++)
    job[t] = (range_job){fn, ctx, (uint32_t)((uint64_t)count * t / n), (uint32_t)((uint64_t)count * (t + 1) / n)};
  for (uint32_t t = 1; t < n; t++) started[t] = pthread_create(&tid[t], NULL, range_job_run, &job[t]) == 0;
  (void)range_job_run(&job[0]);
  for (uint32_t t = 1; t < n; t++)
    if (started[t])
      (void)pthread_join(tid[t], NULL);
    else
      (void)range_job_run(&job[t]);
}

static void halves_portable(const float *v, uint32_t n, uint32_t *out) {
  for (uint32_t h = 0; h < n; h++) out[h >> 1] |= (uint32_t)splat_float_to_half(v[h]) << (16 * (h & 1));
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
/* Eight at a time with VCVTPS2PH, rounding to nearest even: the same bits as splat_float_to_half
 * for every finite value and infinity (the only values a checked scene holds; NaN payloads
 * would differ). */
__attribute__((target("avx,f16c"))) static void halves_f16c(const float *v, uint32_t n, uint32_t *out) {
  uint32_t h = 0;
  for (; h + 8 <= n; h += 8) {
    __m128i x = _mm256_cvtps_ph(_mm256_loadu_ps(v + h), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128((__m128i *)(void *)(out + (h >> 1)), x);
  }
  if (h < n) halves_portable(v + h, n - h, out + (h >> 1)); /* h is even */
}

/* CPUID leaf 1: F16C (ECX bit 29) and AVX (bit 28) with the OS saving the YMM registers (OSXSAVE,
 * bit 27, and XCR0's SSE and AVX state bits): what VCVTPS2PH on 256-bit registers needs. Read
 * with cpuid.h and xgetbv, which GCC and clang both take (clang rejects
 * __builtin_cpu_supports("f16c")). */
static bool cpu_has_f16c(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const unsigned need = (1u << 27) | (1u << 28) | (1u << 29);
  if ((c & need) != need) return false;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  (void)hi;
  return (lo & 6u) == 6u;
}

static bool have_f16c(void) {
  static int known; /* 0: not asked yet, 1: no, 2: yes; racing first calls store the same value */
  if (!known) known = cpu_has_f16c() ? 2 : 1;
  return known == 2;
}
#endif

void render_pack_halves(const float *v, uint32_t n, uint32_t *out) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  if (have_f16c() && !render_force_portable_halves) {
    halves_f16c(v, n, out);
    return;
  }
#endif
  halves_portable(v, n, out);
}

bool render_force_portable_halves;
