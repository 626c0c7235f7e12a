/* Assertion macros shared by the CPU tests: a failed check is counted and printed with its
 * file, line and values, and the test goes on so one run shows every failure. */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <math.h>
#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                        \
  do {                                                                          \
    if (!(cond)) {                                                              \
      failures++;                                                               \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                             \
      fprintf(stderr, "\n");                                                    \
    }                                                                           \
  } while (0)

#define CHECK_NEAR(a, b, tol) \
  CHECK(fabs((double)(a) - (double)(b)) <= (tol), "%s = %.9g, expected %.9g", #a, (double)(a), (double)(b))

#endif
