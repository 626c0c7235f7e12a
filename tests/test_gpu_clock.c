/* gpu_clock without an NVIDIA driver: NVML missing (unavailable, nothing breaks), NVML present
 * through tests/fake_nvml.c (device by PCI address, readings below the maximum), the table cell
 * and summary texts, and the warm-up rule. usage: test_gpu_clock FAKE_NVML_LIBRARY */
#include "check.h"
#include "gpu_clock.h"

#include <string.h>

static void unavailable(void) {
  char note[256];
  gpu_clock *c = gpu_clock_open("libsplatsort-no-such-nvml.so.1", NULL, note, sizeof note);
  CHECK(c == NULL, "opened a library that does not exist");
  CHECK(strstr(note, "unavailable") && strstr(note, "not found"), "note '%s'", note);
  gpu_clock_sample s = {7, 7};
  CHECK(!gpu_clock_read(c, &s) && s.sm_mhz == 0, "read from NULL");
  CHECK(gpu_clock_max_sm(c) == 0, "max of NULL");
  gpu_clock_stats st = {0};
  gpu_clock_stats_add(c, &st);
  CHECK(st.samples == 0, "a reading from NULL was added");
  char buf[128];
  CHECK(!strcmp(gpu_clock_stats_cell(&st, buf, sizeof buf), "-"), "cell '%s'", buf);
  CHECK(!strcmp(gpu_clock_stats_text(&st, buf, sizeof buf), "SM clock: no readings"), "text '%s'", buf);
  gpu_clock_close(c);
}

static void fake(const char *lib) {
  char note[256];
  gpu_clock_pci at = {0, 1, 0, 0}, elsewhere = {0, 0x41, 0, 0};
  gpu_clock *c = gpu_clock_open(lib, &at, note, sizeof note);
  CHECK(c != NULL, "fake NVML at %s: %s", lib, note);
  if (!c) return;
  CHECK(note[0] == 0, "note '%s' for a device found by PCI address", note);
  CHECK(gpu_clock_max_sm(c) == 1980, "max %u", gpu_clock_max_sm(c));
  gpu_clock_sample s;
  CHECK(gpu_clock_read(c, &s) && s.sm_mhz == 1410 && s.mem_mhz == 2619, "read %u/%u", s.sm_mhz, s.mem_mhz);
  gpu_clock_stats st = {0};
  gpu_clock_stats_add(c, &st);
  gpu_clock_stats_add(c, &st);
  CHECK(st.samples == 2 && st.below == 2 && st.min_sm == 1410 && st.max_clock == 1980, "stats %u %u %u %u",
        st.samples, st.below, st.min_sm, st.max_clock);
  gpu_clock_close(c);
  /* A PCI address NVML does not know: device 0, and the note says so. */
  c = gpu_clock_open(lib, &elsewhere, note, sizeof note);
  CHECK(c && strstr(note, "PCI 0:41:0.0") && strstr(note, "device 0"), "note '%s'", note);
  gpu_clock_close(c);
  c = gpu_clock_open(lib, NULL, note, sizeof note);
  CHECK(c && strstr(note, "device 0"), "note '%s'", note);
  gpu_clock_close(c);
}

static void texts(void) {
  char buf[160];
  gpu_clock_stats a = {0}, b = {0};
  for (int i = 0; i < 4; i++) gpu_clock_stats_add_sample(&a, 1980, 1980);
  CHECK(!strcmp(gpu_clock_stats_cell(&a, buf, sizeof buf), "1980"), "cell '%s'", buf);
  CHECK(!strcmp(gpu_clock_stats_text(&a, buf, sizeof buf), "SM clock 1980 MHz in all 4 readings (its maximum)"),
        "text '%s'", buf);
  gpu_clock_stats_add_sample(&b, 375, 1980);
  gpu_clock_stats_merge(&a, &b);
  CHECK(!strcmp(gpu_clock_stats_cell(&a, buf, sizeof buf), "375<1980"), "cell '%s'", buf);
  CHECK(!strcmp(gpu_clock_stats_text(&a, buf, sizeof buf),
                "SM clock 375-1980 MHz, 1 of 5 readings below its maximum 1980 MHz"), "text '%s'", buf);
}

static void settle(void) {
  double t[40];
  for (int i = 0; i < 40; i++) t[i] = i < 10 ? 3.0 : 1.0 + 0.001 * (i % 3);
  CHECK(!gpu_clock_settled(t, 19, 10, 0.02), "settled with fewer than two windows");
  CHECK(!gpu_clock_settled(t, 20, 10, 0.02), "3 ms then 1 ms counted as settled");
  CHECK(gpu_clock_settled(t, 30, 10, 0.02), "1 ms twice not settled");
  t[39] = t[38] = t[37] = t[36] = t[35] = t[34] = 1.5; /* the last window's median moves 50% */
  CHECK(!gpu_clock_settled(t, 40, 10, 0.02), "a 50%% step counted as settled");
  CHECK(!gpu_clock_settled(t, 40, 0, 0.02), "window 0");
}

int main(int argc, char **argv) {
  unavailable();
  if (argc > 1) fake(argv[1]);
  texts();
  settle();
  if (failures) fprintf(stderr, "test_gpu_clock: %d failures\n", failures);
  else printf("test_gpu_clock: ok\n");
  return failures ? 1 : 0;
}
