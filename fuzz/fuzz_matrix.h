/* fuzz_matrix.h — what the reader and loader targets share: a matrix written through one of
 * the writers must read back bit for bit (NaN payloads aside). */
#ifndef ZS_FUZZ_MATRIX_H
#define ZS_FUZZ_MATRIX_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zsparse.h"

/* Same shape, structure and values (NaN equals NaN: the text form has no payload). */
static inline int fuzz_same_matrix(const zs_matrix *A, const zs_matrix *B) {
  if (zs_matrix_rows(A) != zs_matrix_rows(B) || zs_matrix_cols(A) != zs_matrix_cols(B) ||
      zs_matrix_nnz(A) != zs_matrix_nnz(B) || zs_matrix_type(A) != zs_matrix_type(B))
    return 0;
  const int64_t *ra, *rb;
  const int32_t *ca, *cb;
  const void *va, *vb;
  zs_matrix_csr(A, &ra, &ca, &va);
  zs_matrix_csr(B, &rb, &cb, &vb);
  const int64_t rows = zs_matrix_rows(A), nnz = zs_matrix_nnz(A);
  if (memcmp(ra, rb, (size_t)(rows + 1) * sizeof *ra) != 0 ||
      (nnz && memcmp(ca, cb, (size_t)nnz * sizeof *ca) != 0))
    return 0;
  for (int64_t k = 0; k < nnz; k++) {
    const double x =
        zs_matrix_type(A) == ZS_F64 ? ((const double *)va)[k] : (double)((const float *)va)[k];
    const double y =
        zs_matrix_type(A) == ZS_F64 ? ((const double *)vb)[k] : (double)((const float *)vb)[k];
    if (!(isnan(x) && isnan(y)) && memcmp(&x, &y, sizeof x) != 0) return 0;
  }
  return 1;
}

/* Write A as Matrix Market (gzip when gz) through the safe output, read it back with `flags`
 * and abort unless it is the same matrix. Temporary files go to $TMPDIR (tmpfs is best: the
 * writer fsyncs). */
static inline void fuzz_write_read_back(const zs_matrix *A, int gz, unsigned flags) {
  const char *t = getenv("TMPDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/zs-fuzz-out-%ld.mtx%s", t && *t ? t : "/tmp", (long)getpid(),
           gz ? ".gz" : "");
  if (zs_matrix_write(A, path) != ZS_OK) {
    if (!zs_last_error()[0]) abort();
    return; /* a full disk, say: not the target's business */
  }
  zs_matrix *B = NULL;
  const zs_status s = zs_matrix_read(&B, path, zs_matrix_type(A), flags, NULL, 0);
  unlink(path);
  if (s == ZS_ERR_OUT_OF_MEMORY) return;
  if (s != ZS_OK || !fuzz_same_matrix(A, B)) {
    fprintf(stderr, "written matrix does not read back: %s\n", zs_last_error());
    abort();
  }
  zs_matrix_destroy(&B);
}

#endif /* ZS_FUZZ_MATRIX_H */
