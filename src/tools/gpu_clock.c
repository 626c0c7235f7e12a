/* gpu_clock: NVML opened at run time for the GPU's clocks (gpu_clock.h), and the warm-up rule. */
#include "gpu_clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <dlfcn.h>
#endif

/* The few NVML declarations used (nvml.h's, restated so that nothing is needed to build). */
typedef int nvml_return;         /* nvmlReturn_t: 0 = NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device;
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };

struct gpu_clock {
  void *lib;
  nvml_return (*shutdown)(void);
  nvml_return (*clock_info)(nvml_device, int, unsigned *);
  nvml_device device;
  uint32_t max_sm;
};

#ifdef __linux__
/* dlsym's object pointer into a function pointer (ISO C has no cast between the two). */
#define SYM(fn, name)                      \
  do {                                     \
    void *sym_ = dlsym(c->lib, name);      \
    memcpy(&(fn), &sym_, sizeof(fn));      \
  } while (0)

/* Loads NVML's functions; false with the reason in note. */
static bool load(gpu_clock *c, const char *library, const gpu_clock_pci *pci, char *note, size_t n) {
  c->lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!c->lib) {
    snprintf(note, n, "unavailable (%s not found)", library);
    return false;
  }
  nvml_return (*init)(void);
  nvml_return (*by_index)(unsigned, nvml_device *);
  nvml_return (*by_pci)(const char *, nvml_device *);
  nvml_return (*max_info)(nvml_device, int, unsigned *);
  SYM(init, "nvmlInit_v2");
  SYM(by_index, "nvmlDeviceGetHandleByIndex_v2");
  SYM(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  SYM(max_info, "nvmlDeviceGetMaxClockInfo");
  SYM(c->shutdown, "nvmlShutdown");
  SYM(c->clock_info, "nvmlDeviceGetClockInfo");
  if (!init || !by_index || !max_info || !c->shutdown || !c->clock_info) {
    snprintf(note, n, "unavailable (%s lacks the NVML functions used)", library);
    return false;
  }
  nvml_return r = init();
  if (r != 0) {
    c->shutdown = NULL; /* nothing to shut down */
    snprintf(note, n, "unavailable (nvmlInit_v2 returned %d)", r);
    return false;
  }
  note[0] = 0;
  r = -1;
  if (pci && by_pci) {
    char id[32];
    snprintf(id, sizeof id, "%x:%x:%x.%x", pci->domain, pci->bus, pci->device, pci->function);
    r = by_pci(id, &c->device);
    if (r != 0) snprintf(note, n, "no NVML device at PCI %s (%d): NVML's device 0", id, r);
  }
  if (r != 0) {
    r = by_index(0, &c->device);
    if (r != 0) {
      snprintf(note, n, "unavailable (no NVML device 0: %d)", r);
      return false;
    }
    if (!pci && !note[0]) snprintf(note, n, "NVML's device 0 (the Vulkan device's PCI address is unknown)");
  }
  unsigned mhz = 0;
  if (max_info(c->device, NVML_CLOCK_SM, &mhz) == 0) c->max_sm = mhz;
  return true;
}
#endif

gpu_clock *gpu_clock_open(const char *library, const gpu_clock_pci *pci, char *note, size_t note_size) {
  char scratch[8];
  if (!note || !note_size) note = scratch, note_size = sizeof scratch;
#ifdef __linux__
  gpu_clock *c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(note, note_size, "unavailable (out of memory)");
    return NULL;
  }
  if (!load(c, library ? library : "libnvidia-ml.so.1", pci, note, note_size)) {
    gpu_clock_close(c);
    return NULL;
  }
  return c;
#else
  (void)library, (void)pci;
  snprintf(note, note_size, "unavailable (NVML is only looked for on Linux)");
  return NULL;
#endif
}

gpu_clock *gpu_clock_open_vk(VkPhysicalDevice pd, char *note, size_t note_size) {
  uint32_t n = 0;
  bool has = false;
  vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL);
  VkExtensionProperties *e = calloc(n ? n : 1, sizeof *e);
  if (e && vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e) >= 0)
    for (uint32_t i = 0; i < n; i++) has |= strcmp(e[i].extensionName, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME) == 0;
  free(e);
  if (!has) return gpu_clock_open(NULL, NULL, note, note_size);
  VkPhysicalDevicePCIBusInfoPropertiesEXT bus = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT};
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &bus};
  vkGetPhysicalDeviceProperties2(pd, &p2);
  gpu_clock_pci pci = {bus.pciDomain, bus.pciBus, bus.pciDevice, bus.pciFunction};
  return gpu_clock_open(NULL, &pci, note, note_size);
}

void gpu_clock_close(gpu_clock *c) {
  if (!c) return;
#ifdef __linux__
  if (c->shutdown) c->shutdown();
  if (c->lib) dlclose(c->lib);
#endif
  free(c);
}

bool gpu_clock_read(gpu_clock *c, gpu_clock_sample *s) {
  *s = (gpu_clock_sample){0};
  if (!c) return false;
  unsigned sm = 0, mem = 0;
  if (c->clock_info(c->device, NVML_CLOCK_SM, &sm) != 0) return false;
  if (c->clock_info(c->device, NVML_CLOCK_MEM, &mem) != 0) mem = 0;
  s->sm_mhz = sm, s->mem_mhz = mem;
  return true;
}

uint32_t gpu_clock_max_sm(const gpu_clock *c) { return c ? c->max_sm : 0; }

void gpu_clock_stats_add_sample(gpu_clock_stats *s, uint32_t sm_mhz, uint32_t max_clock) {
  if (!s->samples || sm_mhz < s->min_sm) s->min_sm = sm_mhz;
  if (sm_mhz > s->max_sm) s->max_sm = sm_mhz;
  if (max_clock) s->max_clock = max_clock;
  s->below += s->max_clock && sm_mhz < s->max_clock;
  s->samples++;
}

void gpu_clock_stats_add(gpu_clock *c, gpu_clock_stats *s) {
  gpu_clock_sample r;
  if (gpu_clock_read(c, &r)) gpu_clock_stats_add_sample(s, r.sm_mhz, gpu_clock_max_sm(c));
}

void gpu_clock_stats_merge(gpu_clock_stats *a, const gpu_clock_stats *b) {
  if (!b->samples) return;
  if (!a->samples || b->min_sm < a->min_sm) a->min_sm = b->min_sm;
  if (b->max_sm > a->max_sm) a->max_sm = b->max_sm;
  if (b->max_clock) a->max_clock = b->max_clock;
  a->samples += b->samples;
  a->below += b->below;
}

const char *gpu_clock_stats_cell(const gpu_clock_stats *s, char *buf, size_t size) {
  if (!s->samples)
    snprintf(buf, size, "-");
  else if (s->below)
    snprintf(buf, size, "%u<%u", s->min_sm, s->max_clock);
  else
    snprintf(buf, size, "%u", s->min_sm);
  return buf;
}

const char *gpu_clock_stats_text(const gpu_clock_stats *s, char *buf, size_t size) {
  if (!s->samples)
    snprintf(buf, size, "SM clock: no readings");
  else if (s->below)
    snprintf(buf, size, "SM clock %u-%u MHz, %u of %u readings below its maximum %u MHz", s->min_sm, s->max_sm,
             s->below, s->samples, s->max_clock);
  else if (s->max_clock)
    snprintf(buf, size, "SM clock %u MHz in all %u readings (its maximum)", s->min_sm, s->samples);
  else
    snprintf(buf, size, "SM clock %u-%u MHz in %u readings (maximum unknown)", s->min_sm, s->max_sm, s->samples);
  return buf;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_of(const double *v, uint32_t n) {
  double *w = malloc(sizeof(double) * n);
  if (!w) return 0;
  memcpy(w, v, sizeof(double) * n);
  qsort(w, n, sizeof *w, cmp_double);
  double m = n & 1 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
  free(w);
  return m;
}

bool gpu_clock_settled(const double *times, uint32_t count, uint32_t window, double tolerance) {
  if (!window || count < 2 * window) return false;
  double last = median_of(times + count - window, window), before = median_of(times + count - 2 * window, window);
  double d = last > before ? last - before : before - last;
  return d <= tolerance * before;
}
