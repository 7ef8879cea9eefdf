/* test_mtx_roundtrip.c — random matrices written with zs_matrix_write and read back are
 * bit-identical (f32, f64, explicit zeros, empty rows, extreme values, plain and .gz). */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mtx_test_util.h"
#include "tests/common/same_matrix.h"
#include "tests/common/test_random.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

/* A finite value of `type`: random bit patterns (subnormals, huge, tiny, -0), small integers,
 * short decimals and zeros, so both the fast and the strtod paths are exercised. */
static void random_value(zs_type t, void *dst, int64_t k) {
  uint64_t r = zs_test_splitmix64(&rng_state);
  int kind = (int)(r % 5);
  double d;
  if (kind == 0) {
    d = 0.0;
  } else if (kind == 1) {
    d = (double)((int64_t)(zs_test_splitmix64(&rng_state) % 2001) - 1000);
  } else if (kind == 2) {
    d = (double)((int64_t)(zs_test_splitmix64(&rng_state) % 200001) - 100000) / 1000.0;
  } else {
    for (;;) {
      uint64_t bits = zs_test_splitmix64(&rng_state);
      if (t == ZS_F64) {
        memcpy(&d, &bits, sizeof d);
      } else {
        uint32_t b32 = (uint32_t)bits;
        float f;
        memcpy(&f, &b32, sizeof f);
        d = f;
      }
      if (isfinite(d)) break;
    }
  }
  if (t == ZS_F64)
    ((double *)dst)[k] = d;
  else
    ((float *)dst)[k] = (float)d;
}

static zs_matrix *random_matrix(zs_type t, int64_t rows, int64_t cols, int64_t nnz) {
  int64_t *ri = malloc(sizeof *ri * (size_t)(nnz + 1)),
          *ci = malloc(sizeof *ci * (size_t)(nnz + 1));
  void *v = malloc(zs_type_size(t) * (size_t)(nnz + 1));
  for (int64_t k = 0; k < nnz; k++) {
    /* Only even rows get entries: half the rows stay empty. */
    ri[k] = (int64_t)(zs_test_splitmix64(&rng_state) % (uint64_t)((rows + 1) / 2)) * 2;
    ci[k] = (int64_t)(zs_test_splitmix64(&rng_state) % (uint64_t)cols);
    random_value(t, v, k);
  }
  zs_matrix *A = NULL;
  /* Built as a pattern first: duplicate positions merge, and each stored entry then gets one
   * random value (summed duplicates would be sums, not the values drawn). */
  zs_status s = zs_matrix_from_coo(&A, rows, cols, nnz, ri, ci, NULL, t, 0);
  if (s != ZS_OK) {
    fprintf(stderr, "from_coo: %s\n", zs_last_error());
    exit(1);
  }
  /* Pattern build gave the canonical structure; now give every stored entry a random value. */
  const int64_t *rp;
  const int32_t *cidx;
  zs_matrix_csr(A, &rp, &cidx, NULL);
  int64_t n = zs_matrix_nnz(A);
  void *vals = malloc(zs_type_size(t) * (size_t)(n + 1));
  for (int64_t k = 0; k < n; k++) random_value(t, vals, k);
  zs_matrix *B = NULL;
  s = zs_matrix_from_csr(&B, rows, cols, rp, cidx, vals, t, 0);
  if (s != ZS_OK) {
    fprintf(stderr, "from_csr: %s\n", zs_last_error());
    exit(1);
  }
  zs_matrix_destroy(&A);
  free(ri), free(ci), free(v), free(vals);
  return B;
}

static void round_trip(const char *dir, const zs_matrix *A, const char *name, unsigned flags) {
  char path[4200], tmp[4300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  zs_status s = zs_matrix_write(A, path);
  CHECK(s == ZS_OK, "write %s: %s", name, zs_last_error());
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  struct stat st;
  CHECK(stat(tmp, &st) != 0, "%s left behind", tmp);
  zs_matrix *B = NULL;
  zs_mm_info info;
  s = zs_matrix_read(&B, path, zs_matrix_type(A), flags, &info, 0);
  CHECK(s == ZS_OK, "read %s: %s", name, zs_last_error());
  if (s != ZS_OK) return;
  CHECK(zs_test_same_matrix(A, B),
        "%s: read back differs (%" PRId64 " x %" PRId64 ", nnz %" PRId64 " vs %" PRId64 ")", name,
        zs_matrix_rows(A), zs_matrix_cols(A), zs_matrix_nnz(A), zs_matrix_nnz(B));
  CHECK(info.field == ZS_MM_REAL && info.symmetry == ZS_MM_GENERAL && !info.dense &&
            info.entries_stored == zs_matrix_nnz(A),
        "%s: info", name);
  zs_matrix_destroy(&B);
}

int main(void) {
  const char *dir = tmpdir_make();
  int trips = 0;
  for (int rep = 0; rep < 12; rep++) {
    zs_type t = rep % 2 ? ZS_F32 : ZS_F64;
    int64_t rows = 1 + (int64_t)(zs_test_splitmix64(&rng_state) % 300),
            cols = 1 + (int64_t)(zs_test_splitmix64(&rng_state) % 300);
    int64_t nnz = (int64_t)(zs_test_splitmix64(&rng_state) % (uint64_t)(rows * cols / 3 + 1));
    zs_matrix *A = random_matrix(t, rows, cols, nnz);
    char name[64];
    snprintf(name, sizeof name, "r%d.mtx%s", rep, rep % 3 == 0 ? ".gz" : "");
    round_trip(dir, A, name, 0);
    trips++;
    zs_matrix_destroy(&A);
  }
  /* Degenerate shapes. */
  const int64_t shapes[4][2] = {{0, 0}, {5, 0}, {0, 7}, {4, 4}};
  for (int k = 0; k < 4; k++) {
    zs_matrix *A = NULL;
    zs_status s =
        zs_matrix_from_coo(&A, shapes[k][0], shapes[k][1], 0, NULL, NULL, NULL, ZS_F64, 0);
    CHECK(s == ZS_OK, "empty: %s", zs_last_error());
    round_trip(dir, A, k % 2 ? "empty.mtx.gz" : "empty.mtx", 0);
    trips++;
    zs_matrix_destroy(&A);
  }
  /* Infinities need the flag on read. */
  {
    const int64_t ri[3] = {0, 1, 2}, ci[3] = {2, 1, 0};
    const double v[3] = {INFINITY, -INFINITY, -0.0};
    zs_matrix *A = NULL;
    zs_status s = zs_matrix_from_coo(&A, 3, 3, 3, ri, ci, v, ZS_F64, ZS_MATRIX_ALLOW_NONFINITE);
    CHECK(s == ZS_OK, "inf matrix: %s", zs_last_error());
    round_trip(dir, A, "inf.mtx", ZS_MATRIX_ALLOW_NONFINITE);
    trips++;
    char path[4200];
    snprintf(path, sizeof path, "%s/inf.mtx", dir);
    zs_matrix *B = NULL;
    s = zs_matrix_read(&B, path, ZS_F64, 0, NULL, 0);
    CHECK(s == ZS_ERR_OUT_OF_RANGE, "inf read without the flag: %s", zs_status_name(s));
    zs_matrix_destroy(&A);
  }
  /* Writing into a missing directory fails cleanly and names the file. */
  {
    zs_matrix *A = random_matrix(ZS_F64, 3, 3, 3);
    char path[4200];
    snprintf(path, sizeof path, "%s/no/such/dir/x.mtx", dir);
    zs_status s = zs_matrix_write(A, path);
    CHECK(s == ZS_ERR_IO && strstr(zs_last_error(), path), "write to a missing dir: %s %s",
          zs_status_name(s), zs_last_error());
    /* Overwriting an existing file replaces it whole. */
    snprintf(path, sizeof path, "%s/r0.mtx.gz", dir);
    s = zs_matrix_write(A, path);
    CHECK(s == ZS_OK, "overwrite: %s", zs_last_error());
    zs_matrix *B = NULL;
    s = zs_matrix_read(&B, path, ZS_F64, 0, NULL, 0);
    CHECK(s == ZS_OK && zs_test_same_matrix(A, B), "overwrite read back: %s", zs_last_error());
    zs_matrix_destroy(&A), zs_matrix_destroy(&B);
  }
  tmpdir_remove(dir);
  printf("%d round trips, %d failures\n", trips, g_failures);
  return g_failures ? 1 : 0;
}
