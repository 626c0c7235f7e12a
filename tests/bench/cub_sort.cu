// cub_sort: times cub::DeviceRadixSort::SortPairs (uint32 keys, uint32 values) as the reference
// for splatsort's sortbench. Built by hand on a CUDA machine, never by CMake:
//   nvcc -O3 -arch=sm_90 -o cub_sort tests/bench/cub_sort.cu
// usage: cub_sort [--n 1M,3M,6M,16M,32M] [--key-bits 32,24,16] [--runs 50] [--warmup 5] [--seed S]
// Sizes take K/M suffixes (binary, as sortbench). Prints CSV with sortbench's columns:
//   device,n,algo,key_bits,dist,median_ms,min_ms,max_ms,mpairs_per_s,verified,p90_ms,p99_ms
// Two variants per size: "cub" sorts a DoubleBuffer (input overwritten, no copy: what
// splatsort does with its tmp buffers) and "cub_const" sorts const input into separate output.
// The input is restored before every run, outside the timed region; each run is timed alone
// with CUDA events; the last run's output is compared with a stable CPU LSD sort.
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../ref_sort.h" // the CPU reference sort, shared with the sort tests and sortbench
#include "../util.h"     // splitmix64 and the size lists, shared with sortbench

#define CUDA_CHECK(expr)                                                                            \
  do {                                                                                              \
    cudaError_t e_ = (expr);                                                                        \
    if (e_ != cudaSuccess) {                                                                        \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(e_)); \
      exit(1);                                                                                      \
    }                                                                                               \
  } while (0)

// Sizes as sortbench reads them; util.h's parser takes at most this many.
static bool parse_list(const char *s, std::vector<uint32_t> &out) {
  uint32_t v[64];
  uint32_t n = parse_size_list(s, v, 64);
  out.assign(v, v + n);
  return n > 0;
}

// The reference sort of ref_sort.h, on vectors.
static void cpu_sort(const std::vector<uint32_t> &k, const std::vector<uint32_t> &v, uint32_t bits,
                     std::vector<uint32_t> &ok, std::vector<uint32_t> &ov) {
  ok.resize(k.size());
  ov.resize(v.size());
  cpu_sort_pairs(k.data(), v.data(), (uint32_t)k.size(), bits, ok.data(), ov.data());
}

struct stats {
  double median, min, max, p90, p99;
};

// Percentile by the nearest-rank method on sorted times (sortbench uses the same rule).
static double rank_pct(const std::vector<float> &t, double p) {
  size_t k = (size_t)(p / 100.0 * (double)t.size() + 0.999999);
  if (k < 1) k = 1;
  if (k > t.size()) k = t.size();
  return t[k - 1];
}

static stats summarise(std::vector<float> t) {
  std::sort(t.begin(), t.end());
  size_t n = t.size();
  double med = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  return {med, t.front(), t.back(), rank_pct(t, 90), rank_pct(t, 99)};
}

int main(int argc, char **argv) {
  std::vector<uint32_t> sizes, bits;
  uint32_t runs = 50, warmup = 5;
  uint64_t seed = 12345;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--n" && v) {
      if (!parse_list(v, sizes)) { fprintf(stderr, "cub_sort: --n: cannot parse '%s'\n", v); return 2; }
      i++;
    } else if (a == "--key-bits" && v) {
      if (!parse_list(v, bits)) { fprintf(stderr, "cub_sort: --key-bits: cannot parse '%s'\n", v); return 2; }
      for (uint32_t b : bits)
        if (b < 1 || b > 32) { fprintf(stderr, "cub_sort: --key-bits: %u is outside 1..32\n", b); return 2; }
      i++;
    } else if (a == "--runs" && v) {
      runs = (uint32_t)strtoul(v, nullptr, 10), i++;
      if (runs < 1 || runs > 10000) { fprintf(stderr, "cub_sort: --runs must be 1..10000\n"); return 2; }
    } else if (a == "--warmup" && v) {
      warmup = (uint32_t)strtoul(v, nullptr, 10), i++;
    } else if (a == "--seed" && v) {
      seed = strtoull(v, nullptr, 0), i++;
    } else {
      fprintf(stderr, "usage: cub_sort [--n 1M,3M] [--key-bits 32,24,16] [--runs 50] [--warmup 5] [--seed S]\n");
      return 2;
    }
  }
  if (sizes.empty()) sizes = {1u << 20, 3u << 20, 6u << 20, 16u << 20, 32u << 20};
  if (bits.empty()) bits = {32, 24, 16};

  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  fprintf(stderr, "device: %s, %d SMs, %u warm-up + %u timed runs\n", prop.name, prop.multiProcessorCount, warmup,
          runs);
  printf("device,n,algo,key_bits,dist,median_ms,min_ms,max_ms,mpairs_per_s,verified,p90_ms,p99_ms\n");
  fflush(stdout);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  bool all_ok = true;

  for (size_t si = 0; si < sizes.size(); si++) {
    uint32_t n = sizes[si];
    std::vector<uint32_t> keys(n), vals(n);
    uint64_t st = seed + 31 * si;
    for (uint32_t i = 0; i < n; i++) keys[i] = (uint32_t)splitmix64(&st), vals[i] = i;
    size_t bytes = 4ull * (n ? n : 1);
    uint32_t *src_k, *src_v, *k0, *k1, *v0, *v1;
    CUDA_CHECK(cudaMalloc(&src_k, bytes));
    CUDA_CHECK(cudaMalloc(&src_v, bytes));
    CUDA_CHECK(cudaMalloc(&k0, bytes));
    CUDA_CHECK(cudaMalloc(&k1, bytes));
    CUDA_CHECK(cudaMalloc(&v0, bytes));
    CUDA_CHECK(cudaMalloc(&v1, bytes));
    CUDA_CHECK(cudaMemcpy(src_k, keys.data(), 4ull * n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(src_v, vals.data(), 4ull * n, cudaMemcpyHostToDevice));

    for (uint32_t b : bits) {
      std::vector<uint32_t> ref_k, ref_v;
      cpu_sort(keys, vals, b, ref_k, ref_v);
      for (int variant = 0; variant < 2; variant++) {
        bool dbl = variant == 0;
        size_t temp_bytes = 0;
        cub::DoubleBuffer<uint32_t> dk(k0, k1), dv(v0, v1);
        if (dbl)
          CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, dk, dv, n, 0, (int)b, stream));
        else
          CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k0, k1, v0, v1, n, 0, (int)b, stream));
        void *temp;
        CUDA_CHECK(cudaMalloc(&temp, temp_bytes ? temp_bytes : 1));
        std::vector<float> times;
        const uint32_t *out_k = nullptr, *out_v = nullptr;
        for (uint32_t r = 0; r < warmup + runs; r++) {
          CUDA_CHECK(cudaMemcpyAsync(k0, src_k, 4ull * n, cudaMemcpyDeviceToDevice, stream));
          CUDA_CHECK(cudaMemcpyAsync(v0, src_v, 4ull * n, cudaMemcpyDeviceToDevice, stream));
          dk = cub::DoubleBuffer<uint32_t>(k0, k1);
          dv = cub::DoubleBuffer<uint32_t>(v0, v1);
          CUDA_CHECK(cudaEventRecord(start, stream));
          if (dbl)
            CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, dk, dv, n, 0, (int)b, stream));
          else
            CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, k0, k1, v0, v1, n, 0, (int)b, stream));
          CUDA_CHECK(cudaEventRecord(stop, stream));
          CUDA_CHECK(cudaEventSynchronize(stop));
          float ms = 0;
          CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
          if (r >= warmup) times.push_back(ms);
          out_k = dbl ? dk.Current() : k1;
          out_v = dbl ? dv.Current() : v1;
        }
        std::vector<uint32_t> got_k(n), got_v(n);
        CUDA_CHECK(cudaMemcpy(got_k.data(), out_k, 4ull * n, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(got_v.data(), out_v, 4ull * n, cudaMemcpyDeviceToHost));
        bool ok = got_k == ref_k && got_v == ref_v;
        all_ok &= ok;
        stats s = summarise(times);
        printf("\"%s\",%u,%s,%u,uniform,%.4f,%.4f,%.4f,%.1f,%s,%.4f,%.4f\n", prop.name, n, dbl ? "cub" : "cub_const",
               b, s.median, s.min, s.max, s.median > 0 ? n / (s.median * 1e3) : 0.0, ok ? "yes" : "NO", s.p90, s.p99);
        fflush(stdout);
        CUDA_CHECK(cudaFree(temp));
      }
    }
    CUDA_CHECK(cudaFree(src_k));
    CUDA_CHECK(cudaFree(src_v));
    CUDA_CHECK(cudaFree(k0));
    CUDA_CHECK(cudaFree(k1));
    CUDA_CHECK(cudaFree(v0));
    CUDA_CHECK(cudaFree(v1));
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaStreamDestroy(stream));
  if (!all_ok) fprintf(stderr, "cub_sort: some results differ from the CPU reference\n");
  return all_ok ? 0 : 1;
}
