/* crash_report.c: linked into every test program of the release build (tests/CMakeLists.txt),
 * so that a crash in CI names where it happened: the signal, its code and address, and the
 * crashing thread's frames, then the default action (the test still dies of the signal). Issue
 * 33: a SIGBUS in a CI run left nothing but "Bus error". The sanitizer build has ASan's reports
 * instead, and does not link this. */
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void put(const char *s) { (void)!write(2, s, strlen(s)); }

static void put_hex(unsigned long v) {
  char b[19] = "0x";
  for (int i = 0; i < 16; i++) b[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
  b[18] = 0;
  put(b);
}

static void on_crash(int sig, siginfo_t *info, void *context) {
  (void)context;
  /* async-signal-safe only: write(2), strsignal's table is not, so the number */
  char num[12] = {0};
  int n = sig, k = 10;
  do num[--k] = (char)('0' + n % 10), n /= 10; while (n && k);
  put("\ncrash_report: signal ");
  put(num + k);
  put(" (code ");
  put_hex((unsigned long)info->si_code);
  put(", address ");
  put_hex((unsigned long)info->si_addr);
  put("); the crashing thread's frames:\n");
  void *frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), 2);
  /* SA_RESETHAND put the default action back: returning re-executes the faulting instruction
   * (or, for a sent signal, this raises it again) */
  if (info->si_code <= 0) raise(sig);
}

__attribute__((constructor)) static void crash_report_install(void) {
  void *frames[1];
  backtrace(frames, 1); /* loads libgcc's unwinder now, not inside the handler */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_crash;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  const int sigs[] = {SIGBUS, SIGSEGV, SIGILL, SIGFPE};
  for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);
}
