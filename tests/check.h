/* Assertion macros shared by every test program: a failed check is counted and printed with its
 * file, line and values, and the test goes on so one run shows every failure. */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <math.h>
#include <stdio.h>

/* A test program of several files is compiled with CHECK_SHARED_COUNTER defined (for all of
 * them, so that no file counts on its own) and defines the two counters below in one file. */
#ifdef CHECK_SHARED_COUNTER
#define CHECK_STORAGE extern
#else
#define CHECK_STORAGE static
#endif

/* Failures so far. A test may count one itself where it has already said why (a case that went
 * wrong, a file that did not load). */
CHECK_STORAGE int failures;

/* How many failed checks are printed; 0 prints them all. A broken stage can fail thousands of
 * checks: a test that may see that sets a cap at the start of main. Every failure is counted. */
CHECK_STORAGE int check_print_limit;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond) && (++failures <= check_print_limit || check_print_limit <= 0)) {                  \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                    \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

/* |a - b| <= tol. */
#define CHECK_NEAR(a, b, tol) \
  CHECK(fabs((double)(a) - (double)(b)) <= (tol), "%s = %.9g, expected %.9g", #a, (double)(a), (double)(b))

/* |a - b| <= rel |b|, with |b| taken as at least 1e-6 (an absolute floor near zero). */
#define CHECK_REL(a, b, rel)                                                                       \
  CHECK(fabs((double)(a) - (double)(b)) <= (rel) * fmax(1e-6, fabs((double)(b))), "%s = %.9g, expected %.9g", \
        #a, (double)(a), (double)(b))

/* The three components of v, each within tol of x, y and z. */
#define CHECK_VEC(v, x, y, z, tol) \
  do {                             \
    CHECK_NEAR((v)[0], x, tol);    \
    CHECK_NEAR((v)[1], y, tol);    \
    CHECK_NEAR((v)[2], z, tol);    \
  } while (0)

/* The end of a test's main: prints the verdict under `name` and returns the exit status,
 * 0 when nothing failed, else 1. */
static inline int check_report(const char *name) {
  if (failures) {
    fprintf(stderr, "%s: %d check(s) failed\n", name, failures);
    return 1;
  }
  printf("%s: all checks passed\n", name);
  return 0;
}

#endif
