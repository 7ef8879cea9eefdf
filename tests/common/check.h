/* check.h — minimal assertion macros for unit tests: count failures, report each with its line. */
#ifndef ZS_TEST_CHECK_H
#define ZS_TEST_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      check_failures++;                                                        \
    }                                                                          \
  } while (0)

/* A status check that also prints the library's message. */
#define CHECK_STATUS(expr, expected)                                                          \
  do {                                                                                        \
    zs_status s_ = (expr);                                                                    \
    if (s_ != (expected)) {                                                                   \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s (%s)\n", __FILE__, __LINE__, #expr, \
              zs_status_name(s_), zs_status_name(expected), zs_last_error());                 \
      check_failures++;                                                                       \
    }                                                                                         \
  } while (0)

#define CHECK_DONE()                                                             \
  do {                                                                           \
    if (check_failures) fprintf(stderr, "%d check(s) failed\n", check_failures); \
    return check_failures ? 1 : 0;                                               \
  } while (0)

#endif
