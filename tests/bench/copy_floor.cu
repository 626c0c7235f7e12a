// copy_floor: the memory floor of one sort pass on a CUDA GPU. A radix-sort pass reads each
// pair (4-byte key, 4-byte payload) and writes it once: 16 bytes a pair. This times a
// device-to-device cudaMemcpyAsync of N pairs (8N bytes read, 8N written) with CUDA events,
// medians of --runs after --warmup, as the floor a pass of ours or CUB's is compared with.
// Built by hand on a CUDA machine, never by CMake:
//   nvcc -O3 -arch=sm_90 -o copy_floor tests/bench/copy_floor.cu
// usage: copy_floor [--n 1M,16M,32M] [--runs 30] [--warmup 5]   (sizes: K/M suffixes, binary)
// Prints CSV: device,n,median_ms,min_ms,tb_per_s (bytes read + written over the median).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(expr)                                                                            \
  do {                                                                                              \
    cudaError_t e_ = (expr);                                                                        \
    if (e_ != cudaSuccess) {                                                                        \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(e_)); \
      exit(1);                                                                                      \
    }                                                                                               \
  } while (0)

static unsigned long parse_size(const char *s) {
  char *end;
  unsigned long v = strtoul(s, &end, 10);
  if (*end == 'K' || *end == 'k') v <<= 10;
  if (*end == 'M' || *end == 'm') v <<= 20;
  return v;
}

int main(int argc, char **argv) {
  std::vector<unsigned long> sizes = {1ul << 20, 3ul << 20, 6ul << 20, 16ul << 20, 32ul << 20};
  int runs = 30, warmup = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--n")) {
      sizes.clear();
      char *list = strdup(argv[i + 1]);
      for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) sizes.push_back(parse_size(t));
      free(list);
    } else if (!strcmp(argv[i], "--runs")) {
      runs = atoi(argv[i + 1]);
    } else if (!strcmp(argv[i], "--warmup")) {
      warmup = atoi(argv[i + 1]);
    } else {
      fprintf(stderr, "usage: copy_floor [--n 1M,16M,32M] [--runs 30] [--warmup 5]\n");
      return 2;
    }
  }
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("device,n,median_ms,min_ms,tb_per_s\n");
  for (unsigned long n : sizes) {
    size_t bytes = n * 8;  // keys and payloads
    void *src, *dst;
    CUDA_CHECK(cudaMalloc(&src, bytes));
    CUDA_CHECK(cudaMalloc(&dst, bytes));
    CUDA_CHECK(cudaMemset(src, 1, bytes));
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    std::vector<float> ms;
    for (int r = 0; r < warmup + runs; r++) {
      CUDA_CHECK(cudaEventRecord(a));
      CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
      CUDA_CHECK(cudaEventRecord(b));
      CUDA_CHECK(cudaEventSynchronize(b));
      float t;
      CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
      if (r >= warmup) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    double med = ms[ms.size() / 2];
    printf("%s,%lu,%.4f,%.4f,%.3f\n", prop.name, n, med, (double)ms[0], 2.0 * (double)bytes / (med * 1e-3) / 1e12);
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    CUDA_CHECK(cudaFree(src));
    CUDA_CHECK(cudaFree(dst));
  }
  return 0;
}
