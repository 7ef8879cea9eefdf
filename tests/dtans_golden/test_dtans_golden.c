/* test_dtans_golden.c — the CSR-dtANS layout is frozen: golden blobs decode to the matrices they
 * were made from, and today's encoder writes them again byte for byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"
#include "tests/common/blob_parts.h"
#include "tests/common/check.h"
#include "tests/common/same_file.h"
#include "tests/common/same_matrix.h"
#include "tests/common/test_random.h"

/* Each golden matrix is rebuilt from triplets made here (exact dyadic values, so f32 and f64
 * agree with the recorded files on every platform). */
typedef struct triplets {
  int64_t n, cap;
  int64_t *r, *c;
  double *v;
} triplets;

static void put(triplets *t, int64_t r, int64_t c, double v) {
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 256;
    t->r = realloc(t->r, (size_t)t->cap * 8), t->c = realloc(t->c, (size_t)t->cap * 8);
    t->v = realloc(t->v, (size_t)t->cap * 8);
  }
  t->r[t->n] = r, t->c[t->n] = c, t->v[t->n] = v, t->n++;
}

typedef struct golden {
  const char *file, *options;
  zs_type type;
  int64_t rows, cols;
  void (*fill)(triplets *);
  int value_mode; /* what the blob must use: 0 coded, 1 constant, 2 raw, 3 joint, 4 packed */
  int long_rows;  /* 1: some rows must be stored apart as plain CSR */
} golden;

/* The worked example of docs/formats/dtans.md: delta escapes, 21 coded values. */
static void fill_example(triplets *t) {
  static const int64_t r[] = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3};
  static const int64_t c[] = {0, 1, 0, 1, 2, 3, 4, 5, 6, 9, 11, 1, 2, 3, 8, 2, 3};
  static const double v[] = {4, -1, -1, 4, -1, -1, -1, -1, -1, 0.5, -1, -1, 4, -1, -1, -1, 4};
  for (size_t k = 0; k < sizeof r / sizeof *r; k++) put(t, r[k], c[k], v[k]);
  for (int k = 0; k < 36; k++) put(t, 4, 2 * k, 1 + (k % 18) / 8.0);
  for (int k = 0; k <= 16; k++) put(t, 5, k * (k + 1) / 2, 4);
}

/* The worked example of packed rows in docs/formats/dtans.md ("Version 5"). */
static void fill_example5(triplets *t) {
  put(t, 0, 0, 2), put(t, 0, 5, 1);
  put(t, 1, 1, 1), put(t, 1, 2, 2), put(t, 1, 7, 1);
  put(t, 2, 3, 2);
}

/* A tridiagonal pattern of ones over two slices of 32 rows. */
static void fill_constant(triplets *t) {
  for (int64_t i = 0; i < 40; i++)
    for (int64_t j = i - 1; j <= i + 1; j++)
      if (j >= 0 && j < 30) put(t, i, j, 1.0);
}

/* Random rows (0 to 11 nonzeros, some empty) with many distinct values; with long_rows=9 the
 * rows of 10 and 11 are stored apart. */
static void fill_raw(triplets *t) {
  uint64_t s = 7;
  for (int64_t i = 0; i < 100; i++) {
    const int64_t len = (int64_t)(zs_test_lcg(&s, 33) % 12);
    for (int64_t k = 0; k < len; k++)
      put(t, i, (int64_t)(zs_test_lcg(&s, 33) % 150),
          ((double)(zs_test_lcg(&s, 33) % 4001) - 2000) / 64);
  }
}

/* Rows of 16 to 23 nonzeros with many distinct values: raw values, whose first segment steps are
 * full (stored position-major) and whose last ones are not (decoding order). */
static void fill_raw_steps(triplets *t) {
  uint64_t s = 5;
  for (int64_t i = 0; i < 70; i++) {
    const int64_t len = 16 + (int64_t)(zs_test_lcg(&s, 33) % 8),
                  start = (int64_t)(zs_test_lcg(&s, 33) % 120);
    for (int64_t k = 0; k < len; k++)
      put(t, i, start + k, ((double)(zs_test_lcg(&s, 33) % 4001) - 2000) / 64);
  }
}

/* A 2-D 5-point stencil on a 12 x 12 grid with two coefficients and a few other values: the
 * encoder takes (delta, value) pairs (joint mode). */
static void fill_joint(triplets *t) {
  for (int64_t i = 0; i < 144; i++) {
    const int64_t x = i % 12, y = i / 12;
    const int64_t nb[5] = {y > 0 ? i - 12 : -1, x > 0 ? i - 1 : -1, i, x < 11 ? i + 1 : -1,
                           y < 11 ? i + 12 : -1};
    for (int k = 0; k < 5; k++)
      if (nb[k] >= 0) put(t, i, nb[k], nb[k] == i ? 4.0 : i % 29 == 3 ? 0.125 * k : -1.0);
  }
}

/* A 5-point stencil on a 9 x 7 grid (63 rows: two slices, the second partial; 9 templates) with
 * a few values (`few`) or a distinct dyadic value per nonzero; 9-point ones: every value 1. */
static void fill_grid(triplets *t, int points, int few) {
  for (int64_t i = 0; i < 63; i++) {
    const int64_t x = i % 9, y = i / 9;
    for (int64_t dy = -1; dy <= 1; dy++)
      for (int64_t dx = -1; dx <= 1; dx++) {
        if ((points == 5 && dx && dy) || x + dx < 0 || x + dx > 8 || y + dy < 0 || y + dy > 6)
          continue;
        const int64_t j = i + 9 * dy + dx, n = t->n;
        put(t, i, j,
            points == 9 ? 1.0
            : few       ? (j == i       ? 4.0
                           : n % 5 == 2 ? 0.5
                                        : -1.0)
                        : (double)n / 4 - 40);
      }
  }
}
static void fill_grid_few(triplets *t) { fill_grid(t, 5, 1); }
static void fill_grid_many(triplets *t) { fill_grid(t, 5, 0); }
static void fill_grid_ones(triplets *t) { fill_grid(t, 9, 0); }

static const golden goldens[] = {
    {"dtans_6x140_coded_escapes_f64.zsm", NULL, ZS_F64, 6, 140, fill_example, 0, 0},
    {"dtans_40x30_constant_r1_f32.zsm", "rows_per_lane=1", ZS_F32, 40, 30, fill_constant, 1, 0},
    {"dtans_100x150_raw_r2_long9_f32.zsm", "values=raw,rows_per_lane=2,long_rows=9", ZS_F32, 100,
     150, fill_raw, 2, 1},
    {"dtans_144x144_joint_f64.zsm", NULL, ZS_F64, 144, 144, fill_joint, 3, 0},
    {"dtans_70x150_raw_steps_f64.zsm", "values=raw", ZS_F64, 70, 150, fill_raw_steps, 2, 0},
    /* column_mode 1: raw columns beside joint values, escaped pairs and a long row among them */
    {"dtans_100x150_raw_columns_long9_f64.zsm", "columns=raw,long_rows=9", ZS_F64, 100, 150,
     fill_raw, 3, 1},
    /* version 3: rows encoded longest first (row_perm), a long row among them */
    {"dtans_100x150_rows_by_length_f64.zsm", "values=raw,long_rows=9,row_order=length", ZS_F64, 100,
     150, fill_raw, 2, 1},
    /* version 4: columns renumbered by count (col_perm), rows by length, a long row among them */
    {"dtans_100x150_cols_by_count_f64.zsm",
     "values=raw,long_rows=9,row_order=length,col_order=frequency", ZS_F64, 100, 150, fill_raw, 2,
     1},
    /* version 5, template rows: packed ids (3 values: 2 bits), raw values, one constant value
     * with the interior rows of 9 stored apart */
    {"dtans5_63x63_packed_f64.zsm", "values=packed", ZS_F64, 63, 63, fill_grid_few, 4, 0},
    {"dtans5_63x63_packed_f32.zsm", "templates=on", ZS_F32, 63, 63, fill_grid_few, 4, 0},
    {"dtans5_63x63_raw_f64.zsm", "templates=on,values=raw", ZS_F64, 63, 63, fill_grid_many, 2, 0},
    {"dtans5_63x63_raw_f32.zsm", "templates=on,values=raw", ZS_F32, 63, 63, fill_grid_many, 2, 0},
    {"dtans5_63x63_constant_long8_f64.zsm", "templates=on,long_rows=8", ZS_F64, 63, 63,
     fill_grid_ones, 1, 1},
    {"dtans5_63x63_constant_f32.zsm", "templates=on", ZS_F32, 63, 63, fill_grid_ones, 1, 0},
    /* version 5, packed rows: the worked example (packed ids), random rows with raw values and
     * long rows apart, the grid's rows packed instead of templated */
    {"dtans5_3x8_packed_rows_f64.zsm", "row_kind=packed,values=packed", ZS_F64, 3, 8, fill_example5,
     4, 0},
    {"dtans5_100x150_packed_rows_long9_f64.zsm", "row_kind=packed,values=raw,long_rows=9", ZS_F64,
     100, 150, fill_raw, 2, 1},
    {"dtans5_63x63_packed_rows_f32.zsm", "row_kind=packed", ZS_F32, 63, 63, fill_grid_few, 4, 0},
    /* version 5, packed rows with the rows by length (row_perm) and the columns by count
     * (col_perm), a long row among them */
    {"dtans5_100x150_packed_rows_ordered_long9_f64.zsm",
     "row_kind=packed,values=raw,long_rows=9,row_order=length,col_order=frequency", ZS_F64, 100,
     150, fill_raw, 2, 1},
};

/* The fuzz corpus (fuzz/corpus/dtans) is made from the golden matrices and four more. */
static void fill_escapes_f32(triplets *t) {
  uint64_t s = 11;
  for (int64_t i = 0; i < 100; i++) {
    const int64_t len = (int64_t)(zs_test_lcg(&s, 33) % 6);
    for (int64_t k = 0; k < len; k++) {
      const int64_t c = (int64_t)(zs_test_lcg(&s, 33) % 400);
      put(t, i, c,
          zs_test_lcg(&s, 33) % 4 ? (double)(zs_test_lcg(&s, 33) % 3)
                                  : (double)(zs_test_lcg(&s, 33) % 100000));
    }
  }
}

static void fill_sparse_rows(triplets *t) {
  put(t, 3, 0, 2.5), put(t, 3, 7, 2.5), put(t, 9, 9, -2.5);
}

static void fill_nothing(triplets *t) { (void)t; }

static void fill_long_row(triplets *t) {
  put(t, 0, 0, 1), put(t, 2, 299, 1);
  for (int k = 0; k < 150; k++) put(t, 1, 2 * k + (k % 3 == 0), (double)(k % 40));
}

/* A dense band over a sparse tail: with lane_symbols=16 the slices have different lengths. */
static void fill_dense_sparse(triplets *t) {
  for (int64_t i = 0; i < 400; i++)
    for (int64_t k = 0; k < (i < 64 ? 20 : 1); k++) put(t, i, (i + 3 * k) % 300, (double)(k % 3));
}

/* More distinct values than a table holds: the joint mode escapes the pairs of the rarer ones. */
static void fill_many_values(triplets *t) {
  uint64_t s = 5;
  for (int64_t i = 0; i < 900; i++)
    for (int64_t k = 0; k < 5; k++)
      put(t, i, (i + 60 * k) % 300, (double)(zs_test_lcg(&s, 33) % 100000) / 8);
}

static const golden corpus[] = {
    {"coded-f32-r3.zsm", "values=coded,rows_per_lane=3", ZS_F32, 100, 400, fill_escapes_f32, 0, 0},
    {"sparse-rows-f64.zsm", NULL, ZS_F64, 12, 12, fill_sparse_rows, 3, 0},
    {"empty-f64.zsm", NULL, ZS_F64, 5, 5, fill_nothing, 2, 0},
    {"long-row-f64.zsm", NULL, ZS_F64, 3, 301, fill_long_row, 0, 0},
    {"long-row-apart-f64.zsm", "long_rows=40", ZS_F64, 3, 301, fill_long_row, 0, 1},
    {"slices-by-symbols-f64.zsm", "lane_symbols=16", ZS_F64, 400, 300, fill_dense_sparse, 3, 0},
    {"joint-escapes-f64.zsm", "values=joint,columns=deltas", ZS_F64, 900, 300, fill_many_values, 3,
     0},
};

static zs_matrix *golden_matrix(const golden *g) {
  triplets t = {0, 0, NULL, NULL, NULL};
  g->fill(&t);
  if (g->type == ZS_F32) /* from_coo reads values of the matrix's type */
    for (int64_t k = 0; k < t.n; k++) ((float *)t.v)[k] = (float)t.v[k];
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_from_coo(&A, g->rows, g->cols, t.n, t.r, t.c, t.v, g->type, 0), ZS_OK);
  free(t.r), free(t.c), free(t.v);
  return A;
}

/* Every array and parameter of `got` as in `want`, naming the first that differs. */
static void same_blob(const char *label, const zs_encoded *want, const zs_encoded *got) {
  if (got->rows != want->rows || got->cols != want->cols || got->nnz != want->nnz ||
      got->type != want->type || got->n_arrays != want->n_arrays ||
      got->n_params != want->n_params) {
    fprintf(stderr, "%s: sizes, type or the number of arrays/parameters differ\n", label);
    check_failures++;
    return;
  }
  for (int i = 0; i < want->n_params; i++) {
    const zsi_param *p = &want->params[i], *q = &got->params[i];
    if (strcmp(p->name, q->name) || p->value != q->value) {
      fprintf(stderr, "%s: parameter %d: frozen %s=%lld, encoder gives %s=%lld\n", label, i,
              p->name, (long long)p->value, q->name, (long long)q->value);
      check_failures++;
    }
  }
  for (int i = 0; i < want->n_arrays; i++) {
    const zsi_array *a = &want->arrays[i], *b = &got->arrays[i];
    if (strcmp(a->name, b->name) || a->elem_size != b->elem_size || a->count != b->count ||
        memcmp(a->data, b->data, a->count * a->elem_size)) {
      fprintf(stderr, "%s: array %d ('%s', %llu elements) differs from the encoder's '%s' (%llu)\n",
              label, i, a->name, (unsigned long long)a->count, b->name,
              (unsigned long long)b->count);
      check_failures++;
    }
  }
}

static void golden_cases(const char *dir, int write) {
  for (size_t w = 0; w < sizeof goldens / sizeof *goldens; w++) {
    const golden *g = &goldens[w];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, g->file);
    zs_matrix *A = golden_matrix(g);
    zs_encoded *E = NULL, *L = NULL;
    if (A) CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_DTANS, g->options), ZS_OK);
    if (!E) {
      zs_matrix_destroy(&A);
      continue;
    }
    if (zs_test_param(E, "value_mode") != g->value_mode) {
      fprintf(stderr, "%s: value mode %lld, the golden case wants %d\n", g->file,
              (long long)zs_test_param(E, "value_mode"), g->value_mode);
      check_failures++;
    }
    const zsi_array *lr = zsi_encoded_array(E, "long_rows");
    if ((lr && lr->count > 0) != g->long_rows) {
      fprintf(stderr, "%s: %s long rows, the golden case wants %s\n", g->file,
              lr && lr->count ? "has" : "has no", g->long_rows ? "some" : "none");
      check_failures++;
    }
    if (write) { /* as zs_test_saves_as saves it: without the encoder options it keeps */
      zs_encoded plain = *E;
      plain.options = NULL;
      CHECK_STATUS(zs_encoded_save(&plain, path), ZS_OK);
    } else {
      /* (a) the frozen blob loads (validate) and decodes to the matrix, bit for bit */
      zs_matrix *B = NULL;
      CHECK_STATUS(zs_encoded_load(&L, path), ZS_OK);
      if (L) CHECK_STATUS(zs_decode(&B, L), ZS_OK);
      if (!zs_test_same_matrix(A, B)) {
        fprintf(stderr, "%s: the frozen blob does not decode to its matrix\n", g->file);
        check_failures++;
      }
      zs_matrix_destroy(&B);
      /* (b) today's encoder gives the same arrays and parameters, and the same file */
      if (L) same_blob(g->file, L, E);
      if (!zs_test_saves_as(E, path, "dtans-golden", w)) {
        fprintf(stderr, "%s: today's encoding differs from the frozen file\n", path);
        check_failures++;
      }
    }
    zs_encoded_destroy(&L), zs_encoded_destroy(&E);
    zs_matrix_destroy(&A);
  }
}

/* Write the fuzz corpus: the golden blobs and the extra cases, each as the encoder makes it. */
static void write_corpus(const char *dir) {
  const size_t ng = sizeof goldens / sizeof *goldens, nc = sizeof corpus / sizeof *corpus;
  for (size_t w = 0; w < ng + nc; w++) {
    const golden *g = w < ng ? &goldens[w] : &corpus[w - ng];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, g->file);
    zs_matrix *A = golden_matrix(g);
    zs_encoded *E = NULL;
    if (A) CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_DTANS, g->options), ZS_OK);
    if (E) CHECK_STATUS(zs_encoded_save(E, path), ZS_OK);
    zs_encoded_destroy(&E);
    zs_matrix_destroy(&A);
  }
}

int main(int argc, char **argv) {
  if (argc != 3 ||
      (strcmp(argv[1], "check") && strcmp(argv[1], "write") && strcmp(argv[1], "corpus"))) {
    fprintf(stderr,
            "usage: test-dtans-golden check|write|corpus DIR\n"
            "  write: regenerate the golden files (only for a new stream version)\n"
            "  corpus: write the fuzz corpus (fuzz/corpus/dtans) into DIR\n");
    return 2;
  }
  if (!strcmp(argv[1], "corpus"))
    write_corpus(argv[2]);
  else
    golden_cases(argv[2], !strcmp(argv[1], "write"));
  CHECK_DONE();
}
