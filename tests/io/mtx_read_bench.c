/* mtx_read_bench.c — times zs_matrix_read (not a test; speed belongs to bench/).
 *   mtx-read-bench gen FILE MB [17|13]   write a random coordinate real general file of about
 *                                        MB megabytes, values with 17 significant digits (%.17g,
 *                                        what zs_matrix_write emits) or 13 (%.13e, SuiteSparse)
 *   mtx-read-bench read FILE [f64|f32] [repeats]   read it, print seconds and MB/s (best run) */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "zsparse.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int gen(const char *path, double mb, int digits) {
  FILE *f = fopen(path, "w");
  if (!f) return perror(path), 1;
  const int64_t n = 2000000;
  const uint64_t target = (uint64_t)(mb * 1e6);
  uint64_t x = 88172645463325252u;
  /* Estimate the entry count from a sample line length (~18 bytes of indices + value). */
  const int64_t nnz = (int64_t)(target / (digits == 17 ? 40 : 36));
  fprintf(f,
          "%%%%MatrixMarket matrix coordinate real general\n%" PRId64 " %" PRId64 " %" PRId64 "\n",
          n, n, nnz);
  for (int64_t k = 0; k < nnz; k++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int64_t i = (int64_t)(k * n / nnz) + 1, j = (int64_t)(x % (uint64_t)n) + 1;
    double v = (double)(x >> 11) / 9007199254740992.0 - 0.5;
    if (digits == 17)
      fprintf(f, "%" PRId64 " %" PRId64 " %.17g\n", i, j, v);
    else
      fprintf(f, "%" PRId64 " %" PRId64 " %.13e\n", i, j, v);
  }
  return fclose(f) != 0;
}

int main(int argc, char **argv) {
  if (argc >= 4 && strcmp(argv[1], "gen") == 0)
    return gen(argv[2], atof(argv[3]), argc > 4 ? atoi(argv[4]) : 17);
  if (argc < 3 || strcmp(argv[1], "read") != 0) {
    fprintf(stderr, "usage: %s gen FILE MB [17|13] | read FILE [f64|f32] [repeats]\n", argv[0]);
    return 2;
  }
  zs_type t = argc > 3 && strcmp(argv[3], "f32") == 0 ? ZS_F32 : ZS_F64;
  int reps = argc > 4 ? atoi(argv[4]) : 3;
  struct stat st;
  if (stat(argv[2], &st) != 0) return perror(argv[2]), 1;
  double best = 1e30;
  int64_t nnz = 0;
  for (int r = 0; r < reps; r++) {
    zs_matrix *A = NULL;
    double t0 = now();
    zs_status s = zs_matrix_read(&A, argv[2], t, 0, NULL, 0);
    double dt = now() - t0;
    if (s != ZS_OK) return fprintf(stderr, "%s\n", zs_last_error()), 1;
    nnz = zs_matrix_nnz(A);
    zs_matrix_destroy(&A);
    if (dt < best) best = dt;
  }
  printf("%s: %.1f MB, nnz %" PRId64 ", %s: best of %d %.3f s, %.1f MB/s, %.1f M entries/s\n",
         argv[2], (double)st.st_size / 1e6, nnz, t == ZS_F64 ? "f64" : "f32", reps, best,
         (double)st.st_size / 1e6 / best, (double)nnz / 1e6 / best);
  return 0;
}
