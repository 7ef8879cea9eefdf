/* test_encode.c — CSR and COO encode/decode round trips, option checking, format names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/check.h"
#include "tests/common/same_matrix.h"
#include "zsparse.h"

static zs_matrix *random_matrix(zs_type type, int64_t rows, int64_t cols, int64_t nnz,
                                uint64_t seed) {
  int64_t *r = malloc((size_t)nnz * sizeof *r), *c = malloc((size_t)nnz * sizeof *c);
  double *v = malloc((size_t)nnz * sizeof *v);
  float *f = malloc((size_t)nnz * sizeof *f);
  for (int64_t k = 0; k < nnz; k++) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    r[k] = (int64_t)((seed >> 33) % (uint64_t)rows);
    c[k] = (int64_t)((seed >> 11) % (uint64_t)cols);
    v[k] = (double)(int64_t)(seed >> 20) / 1e12;
    f[k] = (float)v[k];
  }
  zs_matrix *A = NULL;
  zs_status s =
      zs_matrix_from_coo(&A, rows, cols, nnz, r, c, type == ZS_F64 ? (void *)v : f, type, 0);
  free(r), free(c), free(v), free(f);
  return s == ZS_OK ? A : NULL;
}

int main(void) {
  const zs_format formats[] = {ZS_FORMAT_CSR, ZS_FORMAT_COO};
  const zs_type types[] = {ZS_F32, ZS_F64};
  for (int f = 0; f < 2; f++)
    for (int t = 0; t < 2; t++) {
      zs_matrix *A = random_matrix(types[t], 300, 200, 5000, 7 + (uint64_t)f);
      CHECK(A != NULL);
      if (!A) continue;
      zs_encoded *E = NULL;
      CHECK_STATUS(zs_encode(&E, A, formats[f], NULL), ZS_OK);
      if (!E) continue;
      CHECK(zs_encoded_format(E) == formats[f] && zs_encoded_type(E) == types[t]);
      CHECK(zs_encoded_nnz(E) == zs_matrix_nnz(A));
      uint64_t bytes = 0;
      for (int i = 0; i < zs_encoded_array_count(E); i++) {
        size_t es;
        uint64_t count;
        CHECK_STATUS(zs_encoded_array_info(E, i, NULL, &es, &count), ZS_OK);
        bytes += es * count;
      }
      CHECK(bytes == zs_encoded_bytes(E));
      zs_matrix *B = NULL;
      CHECK_STATUS(zs_decode(&B, E), ZS_OK);
      CHECK(B && zs_test_same_matrix(A, B));
      zs_matrix_destroy(&B);
      zs_encoded_destroy(&E);
      CHECK(E == NULL);
      CHECK_STATUS(zs_encode(&E, A, formats[f], "no_such_key=1"), ZS_ERR_INVALID_ARGUMENT);
      CHECK(strstr(zs_last_error(), "no_such_key") != NULL);
      /* Formats without a sparse encoder are refused by name: MAT-VANS with its own route. */
      CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_VANS, NULL), ZS_ERR_UNSUPPORTED);
      CHECK(E == NULL && strstr(zs_last_error(), "'vans'") && strstr(zs_last_error(), "zs_vans_"));
      CHECK_STATUS(zs_encode(&E, A, (zs_format)99, NULL), ZS_ERR_UNSUPPORTED);
      CHECK(E == NULL && strstr(zs_last_error(), "format 99") != NULL);
      zs_matrix_destroy(&A);
    }
  zs_format f;
  CHECK_STATUS(zs_format_from_name("coo", &f), ZS_OK);
  CHECK(f == ZS_FORMAT_COO);
  CHECK_STATUS(zs_format_from_name("nope", &f), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strcmp(zs_format_name(ZS_FORMAT_CSR), "csr") == 0);
  CHECK(zs_format_name((zs_format)99) == NULL);
  CHECK(strcmp(zs_status_name(ZS_ERR_CORRUPT), "ZS_ERR_CORRUPT") == 0);
  CHECK(zs_type_size(ZS_F32) == 4 && zs_type_size(ZS_F64) == 8);
  CHECK_DONE();
}
