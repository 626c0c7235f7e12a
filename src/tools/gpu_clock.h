/* gpu_clock: the GPU's SM and memory clocks, read through NVIDIA's NVML when the driver has it,
 * so that a benchmark can tell a slow kernel from a GPU that had not yet raised its clock (an
 * idle GPU drops its clock and ramps it back in steps: docs/performance.md). NVML is opened at
 * run time (dlopen of libnvidia-ml.so.1), never linked: without it every call says
 * "unavailable" and the tools work as before. Also the warm-up rule the benchmarks share. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

typedef struct gpu_clock gpu_clock;

/* A PCI address (VK_EXT_pci_bus_info's fields), to pick the NVML device the Vulkan one is. */
typedef struct gpu_clock_pci {
  uint32_t domain, bus, device, function;
} gpu_clock_pci;

/* Opens NVML from `library` (NULL: "libnvidia-ml.so.1") and picks the device at `pci` (NULL:
 * NVML's device 0). Returns NULL when there is no clock to read, with the reason in `note`;
 * otherwise `note` says which device was picked and how ("" when by PCI address). */
gpu_clock *gpu_clock_open(const char *library, const gpu_clock_pci *pci, char *note, size_t note_size);

/* The same for a Vulkan device: by its PCI address where it has VK_EXT_pci_bus_info, else
 * NVML's device 0 (with a note saying so). */
gpu_clock *gpu_clock_open_vk(VkPhysicalDevice pd, char *note, size_t note_size);

/* Closes NVML; NULL is accepted. */
void gpu_clock_close(gpu_clock *c);

/* One reading: SM and memory clocks now, in MHz. False (and zeros) when the read failed or c is NULL. */
typedef struct gpu_clock_sample {
  uint32_t sm_mhz, mem_mhz;
} gpu_clock_sample;
bool gpu_clock_read(gpu_clock *c, gpu_clock_sample *s);

/* The device's maximum SM clock in MHz (0 when unknown). */
uint32_t gpu_clock_max_sm(const gpu_clock *c);

/* Readings gathered over a measurement. Zero-initialise; gpu_clock_stats_add ignores a NULL c. */
typedef struct gpu_clock_stats {
  uint32_t samples, below;   /* readings, and of them those below the maximum SM clock */
  uint32_t min_sm, max_sm;   /* over the readings */
  uint32_t max_clock;        /* the device's maximum SM clock */
} gpu_clock_stats;

/* Reads the clock once and adds it to s (nothing when c is NULL or the read fails). */
void gpu_clock_stats_add(gpu_clock *c, gpu_clock_stats *s);
/* Adds one reading (for callers, and tests, that read themselves). */
void gpu_clock_stats_add_sample(gpu_clock_stats *s, uint32_t sm_mhz, uint32_t max_clock);
/* Merges b into a. */
void gpu_clock_stats_merge(gpu_clock_stats *a, const gpu_clock_stats *b);

/* A short cell for a table: "1980" when every reading was at the maximum, "1410<1980" when the
 * lowest was below it, "-" without readings. Returns buf. */
const char *gpu_clock_stats_cell(const gpu_clock_stats *s, char *buf, size_t size);

/* A sentence for a summary, e.g. "SM clock 1980 MHz in all 24 readings (its maximum)" or
 * "SM clock 375-1980 MHz, 3 of 24 readings below its maximum 1980 MHz", or
 * "SM clock: no readings". Returns buf. */
const char *gpu_clock_stats_text(const gpu_clock_stats *s, char *buf, size_t size);

/* The benchmarks' warm-up rule: the times have settled when the median of the last `window`
 * times is within `tolerance` (0.02 = 2%) of the median of the `window` before. False while
 * there are fewer than 2 * window times. */
bool gpu_clock_settled(const double *times, uint32_t count, uint32_t window, double tolerance);

/* The defaults the tools use: windows of 10, 2%. */
enum { GPU_CLOCK_SETTLE_WINDOW = 10 };
#define GPU_CLOCK_SETTLE_TOLERANCE 0.02
