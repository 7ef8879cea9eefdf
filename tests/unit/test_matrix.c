/* test_matrix.c — zs_matrix construction: sorting, duplicate sums, zeros, validation, limits. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/check.h"
#include "zsparse.h"

static void test_coo_canonical(void) {
  /* 3x4 with unsorted columns, a duplicate (summed in input order) and an explicit zero. */
  const int64_t r[] = {2, 0, 0, 2, 0, 1};
  const int64_t c[] = {3, 2, 0, 3, 2, 1};
  const double v[] = {1.5, 2.0, -1.0, 0.25, 3.0, 0.0};
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_from_coo(&A, 3, 4, 6, r, c, v, ZS_F64, 0), ZS_OK);
  if (!A) return;
  const int64_t *rp;
  const int32_t *ci;
  const void *vals;
  zs_matrix_csr(A, &rp, &ci, &vals);
  const double *x = vals;
  CHECK(zs_matrix_rows(A) == 3 && zs_matrix_cols(A) == 4 && zs_matrix_nnz(A) == 4);
  CHECK(rp[0] == 0 && rp[1] == 2 && rp[2] == 3 && rp[3] == 4);
  CHECK(ci[0] == 0 && ci[1] == 2 && ci[2] == 1 && ci[3] == 3);
  CHECK(x[0] == -1.0 && x[1] == 5.0 && x[2] == 0.0 && x[3] == 1.75);
  zs_matrix_destroy(&A);
  CHECK(A == NULL);

  CHECK_STATUS(zs_matrix_from_coo(&A, 3, 4, 6, r, c, v, ZS_F64, ZS_MATRIX_DROP_ZEROS), ZS_OK);
  CHECK(A && zs_matrix_nnz(A) == 3);
  zs_matrix_destroy(&A);
}

static void test_coo_errors(void) {
  const int64_t r[] = {0, 1, 5};
  const int64_t c[] = {0, 1, 0};
  const double v[] = {1, 2, 3};
  zs_matrix *A = (zs_matrix *)(uintptr_t)0x1; /* must stay untouched on failure */
  CHECK_STATUS(zs_matrix_from_coo(&A, 3, 3, 3, r, c, v, ZS_F64, 0), ZS_ERR_OUT_OF_RANGE);
  CHECK(strstr(zs_last_error(), "entry 2") != NULL);
  CHECK(A == (zs_matrix *)(uintptr_t)0x1);
  const double nan_v[] = {1, NAN, 3};
  const int64_t r2[] = {0, 1, 2};
  CHECK_STATUS(zs_matrix_from_coo(&A, 3, 3, 3, r2, c, nan_v, ZS_F64, 0), ZS_ERR_OUT_OF_RANGE);
  CHECK(strstr(zs_last_error(), "NaN") != NULL);
  zs_matrix *B = NULL;
  CHECK_STATUS(zs_matrix_from_coo(&B, 3, 3, 3, r2, c, nan_v, ZS_F64, ZS_MATRIX_ALLOW_NONFINITE),
               ZS_OK);
  zs_matrix_destroy(&B);
  CHECK_STATUS(zs_matrix_from_coo(&A, INT64_C(1) << 31, 3, 0, NULL, NULL, NULL, ZS_F64, 0),
               ZS_ERR_OVERFLOW);
  CHECK_STATUS(zs_matrix_from_coo(&A, 3, 3, (INT64_C(1) << 62) + 1, r, c, v, ZS_F64, 0),
               ZS_ERR_OVERFLOW);
  CHECK_STATUS(zs_matrix_from_coo(&A, -1, 3, 0, NULL, NULL, NULL, ZS_F64, 0),
               ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_matrix_from_coo(&A, 3, 3, 3, r2, c, v, (zs_type)7, 0), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_matrix_from_coo(&A, 3, 3, 3, NULL, c, v, ZS_F64, 0), ZS_ERR_INVALID_ARGUMENT);
  CHECK(A == (zs_matrix *)(uintptr_t)0x1);
}

static void test_csr_input(void) {
  const int64_t rp[] = {0, 3, 3, 5};
  const int32_t ci[] = {4, 0, 2, 1, 1};
  const float v[] = {1, 2, 3, 4, 5};
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_from_csr(&A, 3, 5, rp, ci, v, ZS_F32, 0), ZS_OK);
  if (A) {
    const int64_t *p;
    const int32_t *c;
    const void *vals;
    zs_matrix_csr(A, &p, &c, &vals);
    const float *x = vals;
    CHECK(zs_matrix_nnz(A) == 4 && p[1] == 3 && p[2] == 3 && p[3] == 4);
    CHECK(c[0] == 0 && c[1] == 2 && c[2] == 4 && c[3] == 1);
    CHECK(x[0] == 2 && x[1] == 3 && x[2] == 1 && x[3] == 9);
    zs_matrix *B = NULL;
    CHECK_STATUS(zs_matrix_convert(&B, A, ZS_F64), ZS_OK);
    CHECK(B && zs_matrix_type(B) == ZS_F64 && zs_matrix_nnz(B) == 4);
    zs_matrix_destroy(&B);
    /* Aᵀ is 5 x 3: columns 0, 1, 2, 4 of A hold (0, 2), (2, 9), (0, 3), (0, 1) */
    CHECK_STATUS(zs_matrix_transpose(&B, A), ZS_OK);
    if (B) {
      zs_matrix_csr(B, &p, &c, &vals);
      const float *t = vals;
      CHECK(zs_matrix_rows(B) == 5 && zs_matrix_cols(B) == 3 && zs_matrix_nnz(B) == 4);
      CHECK(p[0] == 0 && p[1] == 1 && p[2] == 2 && p[3] == 3 && p[4] == 3 && p[5] == 4);
      CHECK(c[0] == 0 && c[1] == 2 && c[2] == 0 && c[3] == 0);
      CHECK(t[0] == 2 && t[1] == 9 && t[2] == 3 && t[3] == 1);
    }
    zs_matrix_destroy(&B);
  }
  zs_matrix_destroy(&A);

  const int64_t bad_rp[] = {0, 3, 2, 5};
  CHECK_STATUS(zs_matrix_from_csr(&A, 3, 5, bad_rp, ci, v, ZS_F32, 0), ZS_ERR_OUT_OF_RANGE);
  CHECK(strstr(zs_last_error(), "row 1") != NULL);
  const int32_t bad_ci[] = {4, 0, 2, 5, 1};
  CHECK_STATUS(zs_matrix_from_csr(&A, 3, 5, rp, bad_ci, v, ZS_F32, 0), ZS_ERR_OUT_OF_RANGE);
  CHECK(strstr(zs_last_error(), "entry 3") != NULL);
  const int64_t start1[] = {1, 3, 3, 5};
  CHECK_STATUS(zs_matrix_from_csr(&A, 3, 5, start1, ci, v, ZS_F32, 0), ZS_ERR_OUT_OF_RANGE);
  CHECK(A == NULL);
}

static void test_pattern_and_empty(void) {
  const int64_t r[] = {1, 1};
  const int64_t c[] = {0, 0};
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_from_coo(&A, 2, 1, 2, r, c, NULL, ZS_F64, 0), ZS_OK);
  if (A) {
    const void *vals;
    zs_matrix_csr(A, NULL, NULL, &vals);
    CHECK(zs_matrix_nnz(A) == 1 && ((const double *)vals)[0] == 2.0);
  }
  zs_matrix_destroy(&A);
  CHECK_STATUS(zs_matrix_from_coo(&A, 0, 0, 0, NULL, NULL, NULL, ZS_F32, 0), ZS_OK);
  CHECK(A && zs_matrix_nnz(A) == 0 && zs_matrix_rows(A) == 0);
  zs_matrix_destroy(&A);
  zs_matrix_destroy(&A); /* NULL is accepted */
  zs_matrix_destroy(NULL);
}

/* A random matrix with a long row (sorted by radix passes) and many duplicates. */
static void test_random_sort(void) {
  enum { N = 20000 };
  int64_t *r = malloc(N * sizeof *r), *c = malloc(N * sizeof *c);
  double *v = malloc(N * sizeof *v);
  double dense[50][60] = {{0}};
  uint64_t s = 12345;
  for (int k = 0; k < N; k++) {
    s = s * 6364136223846793005u + 1442695040888963407u;
    r[k] = (k % 7 == 0) ? 3 : (int64_t)((s >> 33) % 50);
    c[k] = (int64_t)((s >> 17) % 60);
    v[k] = (double)((s >> 40) % 64) / 8.0; /* exact sums in any order */
    dense[r[k]][c[k]] += v[k];
  }
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_from_coo(&A, 50, 60, N, r, c, v, ZS_F64, 0), ZS_OK);
  if (A) {
    const int64_t *rp;
    const int32_t *ci;
    const void *vals;
    zs_matrix_csr(A, &rp, &ci, &vals);
    int ok = 1;
    double rebuilt[50][60] = {{0}};
    for (int i = 0; i < 50; i++)
      for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
        if (k > rp[i] && ci[k] <= ci[k - 1]) ok = 0;
        rebuilt[i][ci[k]] = ((const double *)vals)[k];
      }
    CHECK(ok);
    CHECK(memcmp(dense, rebuilt, sizeof dense) == 0);
  }
  zs_matrix_destroy(&A);
  free(r), free(c), free(v);
}

int main(void) {
  test_coo_canonical();
  test_coo_errors();
  test_csr_input();
  test_pattern_and_empty();
  test_random_sort();
  CHECK_DONE();
}
