/* progress.c — a one-line progress indicator on stderr for work longer than a second. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "core/zs_internal.h"

double zsi_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void zsi_progress_begin(zsi_progress *p, const char *what, uint64_t total, int enabled) {
  p->what = what;
  p->total = total;
  p->start = p->last = zsi_now();
  p->enabled = enabled && isatty(STDERR_FILENO);
  p->shown = 0;
}

void zsi_progress_update(zsi_progress *p, uint64_t done) {
  if (!p->enabled) return;
  double t = zsi_now();
  /* Quiet for the first second, then at most five redraws a second. */
  if (t - p->start < 1.0 || t - p->last < 0.2) return;
  p->last = t;
  p->shown = 1;
  if (p->total)
    fprintf(stderr, "\r%s: %5.1f%% (%.1f s)", p->what, 100.0 * (double)done / (double)p->total,
            t - p->start);
  else
    fprintf(stderr, "\r%s: %llu (%.1f s)", p->what, (unsigned long long)done, t - p->start);
  fflush(stderr);
}

void zsi_progress_end(zsi_progress *p) {
  if (!p->enabled || !p->shown) return;
  fprintf(stderr, "\r%s: done in %.1f s\033[K\n", p->what, zsi_now() - p->start);
}
