/* mtx_test_util.h — helpers shared by the Matrix Market tests: temp dirs, files, checks. */
#ifndef MTX_TEST_UTIL_H
#define MTX_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zsparse.h"

static int g_failures = 0;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      g_failures++;                                                            \
    }                                                                          \
  } while (0)

/* A fresh directory under $TMPDIR (or /tmp); removed by tmpdir_remove. */
static inline char *tmpdir_make(void) {
  const char *base = getenv("TMPDIR");
  static char dir[4096];
  snprintf(dir, sizeof dir, "%s/zs-mtx-XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    exit(1);
  }
  return dir;
}

static inline void tmpdir_remove(const char *dir) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", dir);
}

static inline void write_bytes(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

/* Dense copy (row-major) of A's values as double, for small matrices. */
static inline double *to_dense(const zs_matrix *A) {
  int64_t m = zs_matrix_rows(A), n = zs_matrix_cols(A);
  double *d = calloc((size_t)(m * n) + 1, sizeof *d);
  const int64_t *rp;
  const int32_t *ci;
  const void *v;
  zs_matrix_csr(A, &rp, &ci, &v);
  for (int64_t i = 0; i < m; i++)
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      d[i * n + ci[k]] =
          zs_matrix_type(A) == ZS_F64 ? ((const double *)v)[k] : (double)((const float *)v)[k];
  return d;
}

#endif
