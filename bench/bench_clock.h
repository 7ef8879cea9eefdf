/* bench_clock.h — the wall clock and the sort order that the C benchmarks share. */
#ifndef ZS_BENCH_CLOCK_H
#define ZS_BENCH_CLOCK_H

#include <time.h>

/* Seconds of the monotonic clock: only differences mean anything. */
static inline double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort's order of doubles, ascending. */
static inline int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif /* ZS_BENCH_CLOCK_H */
