/* test_mtx_shared.c — reads every matrix of the test matrices and checks it against an
 * independent scan of the same file (sscanf-based, zlib gzgets). */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "mtx_test_util.h"
#include "tests/common/test_matrices.h"

typedef struct ref_entry {
  uint64_t key; /* row << 32 | col, 0-based */
  uint64_t seq; /* input order, so duplicates sum in the reader's order */
  double val;
} ref_entry;

static int cmp_ref(const void *a, const void *b) {
  const ref_entry *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

typedef struct ref_matrix {
  long rows, cols, stored;
  char field[32], symmetry[32];
  ref_entry *e;
  size_t n;
} ref_matrix;

/* The simplest possible reader: line by line, sscanf, mirror by hand. */
static int ref_read(const char *path, ref_matrix *R) {
  gzFile f = gzopen(path, "rb");
  if (!f) return -1;
  char line[4096], obj[32], fmt[32];
  memset(R, 0, sizeof *R);
  if (!gzgets(f, line, sizeof line) ||
      sscanf(line, "%%%%MatrixMarket %31s %31s %31s %31s", obj, fmt, R->field, R->symmetry) != 4) {
    gzclose(f);
    return -1;
  }
  while (gzgets(f, line, sizeof line) && line[0] == '%') {
  }
  if (sscanf(line, "%ld %ld %ld", &R->rows, &R->cols, &R->stored) != 3) {
    gzclose(f);
    return -1;
  }
  int sym = strcasecmp(R->symmetry, "general") != 0;
  int skew = strcasecmp(R->symmetry, "skew-symmetric") == 0;
  int pattern = strcasecmp(R->field, "pattern") == 0;
  R->e = malloc(sizeof *R->e * (size_t)(2 * R->stored + 1));
  long got = 0;
  uint64_t seq = 0;
  while (gzgets(f, line, sizeof line)) {
    long i, j;
    double v = 1.0;
    if (line[0] == '%' || line[0] == '\n') continue;
    int k = sscanf(line, "%ld %ld %lf", &i, &j, &v);
    if (k < 2 || (!pattern && k < 3)) {
      gzclose(f);
      return -1;
    }
    got++;
    i--, j--;
    R->e[R->n++] = (ref_entry){(uint64_t)i << 32 | (uint64_t)j, seq++, v};
    if (sym && i != j)
      R->e[R->n++] = (ref_entry){(uint64_t)j << 32 | (uint64_t)i, seq++, skew ? -v : v};
  }
  gzclose(f);
  if (got != R->stored) return -1;
  qsort(R->e, R->n, sizeof *R->e, cmp_ref);
  /* Sum duplicates in input order. */
  size_t w = 0;
  for (size_t k = 0; k < R->n; k++) {
    if (w > 0 && R->e[w - 1].key == R->e[k].key)
      R->e[w - 1].val += R->e[k].val;
    else
      R->e[w++] = R->e[k];
  }
  R->n = w;
  return 0;
}

static void check_matrix(const char *file, const zs_matrix *A, const ref_matrix *R, zs_type t) {
  CHECK(zs_matrix_rows(A) == R->rows && zs_matrix_cols(A) == R->cols, "%s: size", file);
  CHECK(zs_matrix_nnz(A) == (int64_t)R->n, "%s (%s): nnz %" PRId64 ", expected %zu", file,
        zs_type_name(t), zs_matrix_nnz(A), R->n);
  if (zs_matrix_nnz(A) != (int64_t)R->n) return;
  const int64_t *rp;
  const int32_t *ci;
  const void *v;
  zs_matrix_csr(A, &rp, &ci, &v);
  size_t k = 0, bad = 0;
  for (int64_t i = 0; i < R->rows; i++)
    for (int64_t p = rp[i]; p < rp[i + 1]; p++, k++) {
      uint64_t key = (uint64_t)i << 32 | (uint64_t)ci[p];
      double ref = R->e[k].val;
      int ok = key == R->e[k].key;
      if (t == ZS_F64)
        ok = ok && memcmp(&((const double *)v)[p], &ref, sizeof ref) == 0;
      else
        /* f32 rounding, or underflow to a subnormal or zero for values below its range */
        ok = ok && fabs((double)((const float *)v)[p] - ref) <= 6e-8 * fabs(ref) + 1e-45;
      if (!ok && bad++ < 3)
        fprintf(stderr, "%s (%s): entry %zu (row %" PRId64 ", col %d) differs from the reference\n",
                file, zs_type_name(t), k, i, ci[p]);
    }
  CHECK(bad == 0, "%s (%s): %zu entries differ", file, zs_type_name(t), bad);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MATRICES_DIR\n", argv[0]);
    return 1;
  }
  const char *dir = zst_matrices_dir(argv[1]);
  char path[4096], line[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *mf = fopen(path, "r");
  if (!mf) {
    perror(path);
    return 1;
  }
  int matrices = 0, refused = 0;
  if (!fgets(line, sizeof line, mf)) return 1; /* column names */
  while (fgets(line, sizeof line, mf)) {
    char *col[12];
    const int nc = zst_manifest_fields(line, col);
    if (nc < 10) continue;
    const char *file = col[0], *symmetry = col[8], *field = col[9];
    long rows = atol(col[5]), cols = atol(col[6]), stored = atol(col[7]);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    matrices++;
    zs_matrix *A = NULL;
    zs_mm_info info;
    if (strcmp(field, "complex") == 0) {
      zs_status s = zs_matrix_read(&A, path, ZS_F64, 0, &info, 0);
      CHECK(s == ZS_ERR_UNSUPPORTED, "%s: status %s", file, zs_status_name(s));
      CHECK(strstr(zs_last_error(), file) && strstr(zs_last_error(), "complex"),
            "%s: message \"%s\"", file, zs_last_error());
      CHECK(A == NULL, "%s: out set on failure", file);
      refused++;
      continue;
    }
    ref_matrix R;
    if (ref_read(path, &R) != 0) {
      CHECK(0, "%s: the reference scan failed", file);
      continue;
    }
    CHECK(R.rows == rows && R.cols == cols && R.stored == stored,
          "%s: the file disagrees with MANIFEST.tsv", file);
    for (int t = 0; t < 2; t++) {
      zs_type type = t ? ZS_F32 : ZS_F64;
      zs_status s = zs_matrix_read(&A, path, type, 0, &info, 0);
      CHECK(s == ZS_OK, "%s: %s", file, zs_last_error());
      if (s != ZS_OK) continue;
      check_matrix(file, A, &R, type);
      CHECK(info.entries_stored == stored, "%s: entries_stored %" PRId64, file,
            info.entries_stored);
      CHECK(info.dense == 0, "%s: dense", file);
      zs_mm_field ef = !strcmp(field, "real")      ? ZS_MM_REAL
                       : !strcmp(field, "integer") ? ZS_MM_INTEGER
                                                   : ZS_MM_PATTERN;
      zs_mm_symmetry es = !strcmp(symmetry, "general")     ? ZS_MM_GENERAL
                          : !strcmp(symmetry, "symmetric") ? ZS_MM_SYMMETRIC
                                                           : ZS_MM_SKEW_SYMMETRIC;
      CHECK(info.field == ef && info.symmetry == es, "%s: info field %d symmetry %d", file,
            (int)info.field, (int)info.symmetry);
      zs_matrix_destroy(&A);
    }
    free(R.e);
  }
  fclose(mf);
  CHECK(matrices >= 30 && refused == 1, "%d matrices, %d refused", matrices, refused);
  printf("%d matrices checked, %d complex refused, %d failures\n", matrices, refused, g_failures);
  return g_failures ? 1 : 0;
}
