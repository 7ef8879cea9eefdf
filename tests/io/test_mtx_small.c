/* test_mtx_small.c — small hand-written Matrix Market files (symmetric, skew, pattern, integer,
 * array, gzip, odd spacing) checked entry by entry against dense matrices written by hand. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "mtx_test_util.h"

typedef struct small_case {
  const char *name;
  const char *text;
  int rows, cols, nnz; /* nnz of the canonical matrix (explicit zeros included) */
  zs_mm_field field;
  zs_mm_symmetry symmetry;
  int dense, stored;
  unsigned flags;
  double expect[24]; /* row-major rows x cols */
} small_case;

/* One case per block reads better than one field per line. */
/* clang-format off */
static const small_case cases[] = {
    {"general",
     "%%MatrixMarket matrix coordinate real general\n% comment\n\n3 4 4\n1 1 1.5\n3 4 -2e3\n"
     "2 2 0.25\n1 4 7\n",
     3, 4, 4, ZS_MM_REAL, ZS_MM_GENERAL, 0, 4, 0,
     {1.5, 0, 0, 7, 0, 0.25, 0, 0, 0, 0, 0, -2000}},
    {"symmetric",
     "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 -1\n3 2 -2.5\n3 3 6\n", 3,
     3, 6, ZS_MM_REAL, ZS_MM_SYMMETRIC, 0, 4, 0, {4, -1, 0, -1, 0, -2.5, 0, -2.5, 6}},
    {"skew",
     "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 1 -0.5\n", 3, 3, 4,
     ZS_MM_REAL, ZS_MM_SKEW_SYMMETRIC, 0, 2, 0, {0, -3, 0.5, 3, 0, 0, -0.5, 0, 0}},
    {"pattern", "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 3\n2 1\n2 2\n", 2, 3,
     3, ZS_MM_PATTERN, ZS_MM_GENERAL, 0, 3, 0, {0, 0, 1, 1, 1, 0}},
    {"pattern-symmetric",
     "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n3 2\n", 3, 3, 5,
     ZS_MM_PATTERN, ZS_MM_SYMMETRIC, 0, 3, 0, {1, 0, 1, 0, 0, 1, 1, 1, 0}},
    {"integer",
     "%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 -7\n2 1 +12\n2 2 0\n", 2, 2, 3,
     ZS_MM_INTEGER, ZS_MM_GENERAL, 0, 3, 0, {-7, 0, 12, 0}},
    {"integer-symmetric",
     "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 5\n2 2 9007199254740993\n",
     2, 2, 3, ZS_MM_INTEGER, ZS_MM_SYMMETRIC, 0, 2, 0, {0, 5, 5, 9007199254740992.0}},
    {"explicit-zeros-kept",
     "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 0\n2 1 0.0\n", 2, 2, 2,
     ZS_MM_REAL, ZS_MM_GENERAL, 0, 2, 0, {0, 0, 0, 0}},
    {"explicit-zeros-dropped",
     "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 2 0\n2 1 -0.0\n2 2 3\n", 2, 2, 1,
     ZS_MM_REAL, ZS_MM_GENERAL, 0, 3, ZS_MATRIX_DROP_ZEROS, {0, 0, 0, 3}},
    {"duplicates-summed",
     "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 2\n1 1 0.5\n", 2, 2, 2,
     ZS_MM_REAL, ZS_MM_GENERAL, 0, 3, 0, {1.5, 0, 0, 2}},
    {"spacing-crlf-case",
     "%%matrixmarket MATRIX Coordinate REAL General\r\n%c\r\n  \t\r\n 2\t2  2 \r\n\t2 1\t  "
     "1.25e+1\r\n% mid comment\r\n\r\n1   2 -.5",
     2, 2, 2, ZS_MM_REAL, ZS_MM_GENERAL, 0, 2, 0, {0, -0.5, 12.5, 0}},
    {"array",
     "%%MatrixMarket matrix array real general\n% column-major\n2 3\n1\n2\n3\n4\n5\n0\n", 2, 3, 6,
     ZS_MM_REAL, ZS_MM_GENERAL, 1, 6, 0, {1, 3, 5, 2, 4, 0}},
    {"array-symmetric", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n", 3,
     3, 9, ZS_MM_REAL, ZS_MM_SYMMETRIC, 1, 6, 0, {1, 2, 3, 2, 4, 5, 3, 5, 6}},
    {"array-skew", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n", 3, 3, 6,
     ZS_MM_REAL, ZS_MM_SKEW_SYMMETRIC, 1, 3, 0, {0, -1, -2, 1, 0, -3, 2, 3, 0}},
    {"array-integer", "%%MatrixMarket matrix array integer general\n2 2\n-1\n0\n3\n4\n", 2, 2, 4,
     ZS_MM_INTEGER, ZS_MM_GENERAL, 1, 4, 0, {-1, 3, 0, 4}},
    {"array-empty", "%%MatrixMarket matrix array real general\n0 3\n", 0, 3, 0, ZS_MM_REAL,
     ZS_MM_GENERAL, 1, 0, 0, {0}},
    {"empty", "%%MatrixMarket matrix coordinate real general\n4 5 0\n", 4, 5, 0, ZS_MM_REAL,
     ZS_MM_GENERAL, 0, 0, 0, {0}},
    {"values-exact",
     "%%MatrixMarket matrix coordinate real general\n1 4 4\n1 1 0.1\n1 2 "
     "2.2250738585072014e-308\n1 3 4.9406564584124654e-324\n1 4 1.7976931348623157e308\n",
     1, 4, 4, ZS_MM_REAL, ZS_MM_GENERAL, 0, 4, 0,
     {0.1, 2.2250738585072014e-308, 4.9406564584124654e-324, 1.7976931348623157e308}},
};
/* clang-format on */

static void check_case(const small_case *c, const char *path, zs_type t) {
  zs_matrix *A = NULL;
  zs_mm_info info;
  zs_status s = zs_matrix_read(&A, path, t, c->flags, &info, 0);
  CHECK(s == ZS_OK, "%s (%s): %s", c->name, zs_type_name(t), zs_last_error());
  if (s != ZS_OK) return;
  CHECK(zs_matrix_rows(A) == c->rows && zs_matrix_cols(A) == c->cols && zs_matrix_nnz(A) == c->nnz,
        "%s: %lld x %lld nnz %lld", c->name, (long long)zs_matrix_rows(A),
        (long long)zs_matrix_cols(A), (long long)zs_matrix_nnz(A));
  CHECK(info.field == c->field && info.symmetry == c->symmetry && info.dense == c->dense &&
            info.entries_stored == c->stored,
        "%s: info %d %d %d %lld", c->name, (int)info.field, (int)info.symmetry, info.dense,
        (long long)info.entries_stored);
  if (zs_matrix_rows(A) == c->rows && zs_matrix_cols(A) == c->cols) {
    double *d = to_dense(A);
    for (int k = 0; k < c->rows * c->cols; k++) {
      double e = t == ZS_F64 ? c->expect[k] : (double)(float)c->expect[k];
      CHECK(d[k] == e, "%s (%s): element (%d, %d) is %.17g, expected %.17g", c->name,
            zs_type_name(t), k / c->cols, k % c->cols, d[k], e);
    }
    free(d);
  }
  zs_matrix_destroy(&A);
}

/* Decimal tokens of many shapes (short, 13 and 16-17 digits, exponents, near float midpoints)
 * read as f64 and f32 must match strtod / strtof of the same token bit for bit. */
static void check_decimals(const char *dir) {
  enum { N = 30000 };
  static char tok[N][48];
  uint64_t x = 0x2545F4914F6CDD1Du;
  for (int k = 0; k < N; k++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double u = (double)(x >> 11) / 9007199254740992.0;
    int e = (int)(x % 61) - 30;
    switch (k % 6) {
    case 0: snprintf(tok[k], sizeof tok[k], "%.13e", (u - 0.5) * pow(10, e)); break;
    case 1: snprintf(tok[k], sizeof tok[k], "%.17g", (u - 0.5) * pow(10, e)); break;
    case 2: snprintf(tok[k], sizeof tok[k], "%.6f", (u - 0.5) * 1000); break;
    case 3: snprintf(tok[k], sizeof tok[k], "%d", (int)(x % 100000000) - 50000000); break;
    case 4: {
      /* A float midpoint, printed with 15-16 digits: its double may be the midpoint itself. */
      float f = (float)(u * pow(2, (int)(x % 40) - 20));
      double mid = (double)f + (double)(nextafterf(f, INFINITY) - f) / 2;
      snprintf(tok[k], sizeof tok[k], k % 12 == 4 ? "%.15e" : "%.14e", mid);
      break;
    }
    default: snprintf(tok[k], sizeof tok[k], "%.8e", (u - 0.5) * pow(10, e)); break;
    }
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/decimals.mtx", dir);
  FILE *f = fopen(path, "w");
  fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n1 %d %d\n", N, N);
  for (int k = 0; k < N; k++) fprintf(f, "1 %d %s\n", k + 1, tok[k]);
  fclose(f);
  zs_matrix *A = NULL, *B = NULL;
  CHECK(zs_matrix_read(&A, path, ZS_F64, 0, NULL, 0) == ZS_OK, "%s", zs_last_error());
  CHECK(zs_matrix_read(&B, path, ZS_F32, 0, NULL, 0) == ZS_OK, "%s", zs_last_error());
  if (!A || !B) return;
  const void *va, *vb;
  zs_matrix_csr(A, NULL, NULL, &va);
  zs_matrix_csr(B, NULL, NULL, &vb);
  int bad64 = 0, bad32 = 0;
  for (int k = 0; k < N; k++) {
    double d = strtod(tok[k], NULL);
    float g = strtof(tok[k], NULL);
    if (memcmp(&((const double *)va)[k], &d, sizeof d) != 0 && bad64++ < 3)
      fprintf(stderr, "f64 of %s: %.17g, strtod %.17g\n", tok[k], ((const double *)va)[k], d);
    if (memcmp(&((const float *)vb)[k], &g, sizeof g) != 0 && bad32++ < 3)
      fprintf(stderr, "f32 of %s: %.9g, strtof %.9g\n", tok[k], ((const float *)vb)[k], g);
  }
  CHECK(bad64 == 0 && bad32 == 0, "%d f64 and %d f32 values differ from strtod/strtof", bad64,
        bad32);
  zs_matrix_destroy(&A), zs_matrix_destroy(&B);
}

/* A gzip file of `comment` bytes of comment line, then a 2 x 2 matrix: the file is small, so the
 * reader starts with a small buffer, which must grow for the line (or refuse it past 64 MiB). */
static void write_long_line(const char *path, size_t comment) {
  gzFile g = gzopen(path, "wb");
  CHECK(g != NULL, "gzopen %s", path);
  if (!g) return;
  static char spaces[1 << 16];
  memset(spaces, ' ', sizeof spaces);
  gzputs(g, "%%MatrixMarket matrix coordinate real general\n%");
  for (size_t left = comment; left > 0;) {
    const size_t n = left < sizeof spaces ? left : sizeof spaces;
    CHECK(gzwrite(g, spaces, (unsigned)n) == (int)n, "gzwrite %s", path);
    left -= n;
  }
  gzputs(g, "\n2 2 2\n1 1 3.5\n2 1 -1\n");
  CHECK(gzclose(g) == Z_OK, "gzclose %s", path);
}

static void check_long_lines(const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/long-line.gzdata", dir);
  const size_t fits[2] = {(size_t)100 << 10, (size_t)5 << 20}; /* past the small and large chunk */
  for (int k = 0; k < 2; k++) {
    write_long_line(path, fits[k]);
    zs_matrix *A = NULL;
    CHECK(zs_matrix_read(&A, path, ZS_F64, 0, NULL, 0) == ZS_OK, "a %zu-byte comment line: %s",
          fits[k], zs_last_error());
    if (!A) continue;
    const int64_t *rp;
    const int32_t *ci;
    const void *v;
    zs_matrix_csr(A, &rp, &ci, &v);
    const double *val = v;
    CHECK(zs_matrix_rows(A) == 2 && zs_matrix_nnz(A) == 2 && rp[1] == 1 && ci[0] == 0 &&
              ci[1] == 0 && val[0] == 3.5 && val[1] == -1,
          "the matrix after a %zu-byte comment line", fits[k]);
    zs_matrix_destroy(&A);
  }
  write_long_line(path, (size_t)65 << 20);
  zs_matrix *A = NULL;
  CHECK(zs_matrix_read(&A, path, ZS_F64, 0, NULL, 0) == ZS_ERR_PARSE &&
            strstr(zs_last_error(), "line longer than 64 MiB") != NULL,
        "a 65 MiB line: expected its refusal, got \"%s\"", zs_last_error());
  zs_matrix_destroy(&A);
}

int main(void) {
  const char *dir = tmpdir_make();
  char path[4200];
  int n = 0;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const small_case *c = &cases[k];
    snprintf(path, sizeof path, "%s/%s.mtx", dir, c->name);
    write_bytes(path, c->text, strlen(c->text));
    check_case(c, path, ZS_F64);
    /* f32 of the extreme doubles is not finite or flushes to zero: only the f64 check. */
    if (strcmp(c->name, "values-exact") != 0) check_case(c, path, ZS_F32);
    /* Same content gzip-compressed, under a name without .gz: detection is by content. */
    snprintf(path, sizeof path, "%s/%s.gzdata", dir, c->name);
    gzFile g = gzopen(path, "wb");
    CHECK(g && gzwrite(g, c->text, (unsigned)strlen(c->text)) == (int)strlen(c->text) &&
              gzclose(g) == Z_OK,
          "gzip %s", path);
    check_case(c, path, ZS_F64);
    n++;
  }
  /* The sign of zero survives (-0.0 is kept as an explicit zero, not dropped). */
  snprintf(path, sizeof path, "%s/negzero.mtx", dir);
  const char *nz = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 -0\n";
  write_bytes(path, nz, strlen(nz));
  zs_matrix *A = NULL;
  CHECK(zs_matrix_read(&A, path, ZS_F64, 0, NULL, 0) == ZS_OK, "negzero: %s", zs_last_error());
  if (A) {
    const void *v;
    zs_matrix_csr(A, NULL, NULL, &v);
    CHECK(zs_matrix_nnz(A) == 1 && signbit(((const double *)v)[0]), "-0 lost its sign");
    zs_matrix_destroy(&A);
  }
  check_decimals(dir);
  check_long_lines(dir);
  tmpdir_remove(dir);
  printf("%d small cases, %d failures\n", n, g_failures);
  return g_failures ? 1 : 0;
}
