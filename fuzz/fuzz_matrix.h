/* fuzz_matrix.h — what the reader and loader targets share: a matrix written through one of
 * the writers must read back bit for bit (NaN payloads aside). */
#ifndef ZS_FUZZ_MATRIX_H
#define ZS_FUZZ_MATRIX_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/same_matrix.h"
#include "zsparse.h"

/* A NaN's payload and sign do not survive the text form: such matrices are compared by
 * structure only. */
static inline int fuzz_has_nan(const zs_matrix *A) {
  const void *v;
  zs_matrix_csr(A, NULL, NULL, &v);
  for (int64_t k = 0; k < zs_matrix_nnz(A); k++)
    if (isnan(zs_matrix_type(A) == ZS_F64 ? ((const double *)v)[k] : (double)((const float *)v)[k]))
      return 1;
  return 0;
}

static inline int fuzz_same_matrix(const zs_matrix *A, const zs_matrix *B) {
  if (zs_test_same_matrix(A, B)) return 1;
  if (!fuzz_has_nan(A) || zs_matrix_nnz(A) != zs_matrix_nnz(B)) return 0;
  const int64_t *ra, *rb;
  const int32_t *ca, *cb;
  zs_matrix_csr(A, &ra, &ca, NULL);
  zs_matrix_csr(B, &rb, &cb, NULL);
  return zs_matrix_rows(A) == zs_matrix_rows(B) &&
         memcmp(ra, rb, (size_t)(zs_matrix_rows(A) + 1) * sizeof *ra) == 0 &&
         memcmp(ca, cb, (size_t)zs_matrix_nnz(A) * sizeof *ca) == 0;
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
