/* A stand-in for libnvidia-ml.so.1 with the few functions gpu_clock uses, so that its NVML path
 * runs without an NVIDIA driver (test_gpu_clock). SM clock 1410 MHz of a 1980 MHz maximum; the
 * PCI id asked for is kept for the test to read (fake_nvml_last_pci). */
#include <stdio.h>
#include <string.h>

typedef struct nvml_device_st *nvml_device;
static int device_token;
static char last_pci[64];
static int initialised;

const char *fake_nvml_last_pci(void);
int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetHandleByIndex_v2(unsigned index, nvml_device *d);
int nvmlDeviceGetHandleByPciBusId_v2(const char *id, nvml_device *d);
int nvmlDeviceGetClockInfo(nvml_device d, int type, unsigned *mhz);
int nvmlDeviceGetMaxClockInfo(nvml_device d, int type, unsigned *mhz);

const char *fake_nvml_last_pci(void) { return last_pci; }
int nvmlInit_v2(void) { return initialised++, 0; }
int nvmlShutdown(void) { return initialised--, 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned index, nvml_device *d) {
  if (index != 0) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  *d = (nvml_device)&device_token;
  return 0;
}
int nvmlDeviceGetHandleByPciBusId_v2(const char *id, nvml_device *d) {
  snprintf(last_pci, sizeof last_pci, "%s", id);
  if (strcmp(id, "0:1:0.0") != 0) return 6; /* NVML_ERROR_NOT_FOUND */
  *d = (nvml_device)&device_token;
  return 0;
}
int nvmlDeviceGetClockInfo(nvml_device d, int type, unsigned *mhz) {
  if (d != (nvml_device)&device_token || !initialised) return 1;
  *mhz = type == 1 ? 1410 : type == 2 ? 2619 : 0;
  return 0;
}
int nvmlDeviceGetMaxClockInfo(nvml_device d, int type, unsigned *mhz) {
  if (d != (nvml_device)&device_token) return 1;
  *mhz = type == 1 ? 1980 : 2619;
  return 0;
}
