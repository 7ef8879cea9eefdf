/* same_matrix.h — test helper: two canonical matrices identical bit for bit (sizes, type, and
 * the bytes of all three CSR arrays). A test's own comparison, independent of the library. */
#ifndef ZS_TEST_SAME_MATRIX_H
#define ZS_TEST_SAME_MATRIX_H

#include <stdint.h>
#include <string.h>

#include "zsparse.h"

static inline int zs_test_same_matrix(const zs_matrix *A, const zs_matrix *B) {
  if (!A || !B || zs_matrix_rows(A) != zs_matrix_rows(B) ||
      zs_matrix_cols(A) != zs_matrix_cols(B) || zs_matrix_nnz(A) != zs_matrix_nnz(B) ||
      zs_matrix_type(A) != zs_matrix_type(B))
    return 0;
  const int64_t *ra, *rb;
  const int32_t *ca, *cb;
  const void *va, *vb;
  zs_matrix_csr(A, &ra, &ca, &va);
  zs_matrix_csr(B, &rb, &cb, &vb);
  const size_t n = (size_t)zs_matrix_nnz(A);
  return memcmp(ra, rb, ((size_t)zs_matrix_rows(A) + 1) * sizeof *ra) == 0 &&
         memcmp(ca, cb, n * sizeof *ca) == 0 &&
         memcmp(va, vb, n * zs_type_size(zs_matrix_type(A))) == 0;
}

#endif
