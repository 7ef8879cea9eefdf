/* test_sell.c — SELL-C-sigma: the exact arrays of small matrices, bit-exact round trips, refused
 * options, corrupted blobs refused with a message naming what is wrong, and the golden blob. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"
#include "tests/common/blob_parts.h"
#include "tests/common/check.h"
#include "tests/common/generated.h"
#include "tests/common/same_file.h"
#include "tests/common/same_matrix.h"
#include "tests/common/through_file.h"

/* Values 1, 2, 3, ... in the order of the triplets (rows ascending, columns ascending). */
static zs_matrix *from_coo(int64_t rows, int64_t cols, int64_t n, const int64_t *r,
                           const int64_t *c, zs_type t) {
  double *v = calloc((size_t)n + 1, sizeof *v); /* f32: its first half as floats */
  for (int64_t k = 0; v && k < n; k++)
    if (t == ZS_F64)
      v[k] = (double)(k + 1);
    else
      ((float *)v)[k] = (float)(k + 1);
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_from_coo(&A, rows, cols, n, r, c, v, t, 0), ZS_OK);
  free(v);
  return A;
}

/* Array `name` of E holds exactly `n` elements equal to want[] (read as int64, int32 or uint8). */
static void expect_ints(const zs_encoded *E, const char *name, const int64_t *want, uint64_t n) {
  const zsi_array *a = zsi_encoded_array(E, name);
  if (!a || a->count != n) {
    fprintf(stderr, "array '%s': %s\n", name, a ? "wrong count" : "missing");
    check_failures++;
    return;
  }
  for (uint64_t k = 0; k < n; k++) {
    const int64_t got = a->elem_size == 8   ? ((const int64_t *)a->data)[k]
                        : a->elem_size == 4 ? ((const int32_t *)a->data)[k]
                        : a->elem_size == 2 ? ((const uint16_t *)a->data)[k]
                                            : ((const uint8_t *)a->data)[k];
    if (got != want[k]) {
      fprintf(stderr, "array '%s'[%" PRIu64 "] = %" PRId64 ", expected %" PRId64 "\n", name, k, got,
              want[k]);
      check_failures++;
    }
  }
}

/* 5 x 6: rows of 2, 0, 4, 1 and 1 entries (values 1..8 in row order). */
static const int64_t small_r[] = {0, 0, 2, 2, 2, 2, 3, 4}, small_c[] = {0, 2, 1, 3, 4, 5, 5, 0};

/* ---- exact layouts, worked by hand (docs/formats/sell.md) ---- */
static int test_layout(void) {
  zs_matrix *A = from_coo(5, 6, 8, small_r, small_c, ZS_F64);
  zs_encoded *E = NULL;
  /* c = 2, natural order: slices {0, 1} 2 wide, {2, 3} 4 wide, {4, past the end} 1 wide; padding
   * repeats the row's last column (0 for an empty row) with value +0. */
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_SELL, "c=2"), ZS_OK);
  if (E) {
    CHECK(zs_test_param(E, "c") == 2 && zs_test_param(E, "sigma") == 1 &&
          !zsi_encoded_array(E, "perm"));
    expect_ints(E, "slice_ptr", (const int64_t[]){0, 4, 12, 14}, 4);
    expect_ints(E, "row_len", (const int64_t[]){2, 0, 4, 1, 1}, 5);
    CHECK(zs_test_array(E, "row_len")->elem_size == 1);
    expect_ints(E, "col_idx", (const int64_t[]){0, 0, 2, 0, 1, 5, 3, 5, 4, 5, 5, 5, 0, 0}, 14);
    const double want[] = {1, 0, 2, 0, 3, 7, 4, 0, 5, 0, 6, 0, 8, 0};
    const zsi_array *v = zs_test_array(E, "values");
    CHECK(v && v->count == 14 && memcmp(v->data, want, sizeof want) == 0);
  }
  zs_encoded_destroy(&E);
  /* sigma = 4: rows 0..3 sorted longest first (2, 0, 3, 1), row 4 alone in its window. */
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_SELL, "c=2,sigma=4"), ZS_OK);
  if (E) {
    expect_ints(E, "perm", (const int64_t[]){2, 0, 3, 1, 4}, 5);
    expect_ints(E, "slice_ptr", (const int64_t[]){0, 8, 10, 12}, 4);
    expect_ints(E, "row_len", (const int64_t[]){4, 2, 1, 0, 1}, 5);
    expect_ints(E, "col_idx", (const int64_t[]){1, 0, 3, 2, 4, 2, 5, 2, 5, 0, 0, 0}, 12);
  }
  zs_encoded_destroy(&E);
  /* c = 1 stores no padding at all; c = 8 one slice as wide as the longest row. */
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_SELL, "c=1"), ZS_OK);
  if (E) expect_ints(E, "slice_ptr", (const int64_t[]){0, 2, 2, 6, 7, 8}, 6);
  zs_encoded_destroy(&E);
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_SELL, "c=8"), ZS_OK);
  if (E) expect_ints(E, "slice_ptr", (const int64_t[]){0, 32}, 2);
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);

  /* A row of 300 entries among rows of one: row_len takes 2 bytes, the slice 300 columns. */
  int64_t r[340], c[340];
  int64_t n = 0;
  for (int64_t j = 0; j < 300; j++) r[n] = 3, c[n++] = j;
  for (int64_t i = 0; i < 40; i++)
    if (i != 3) r[n] = i, c[n++] = i;
  /* from_coo wants row order: sort by (row, column) */
  for (int64_t a = 1; a < n; a++)
    for (int64_t b = a; b > 0 && (r[b - 1] > r[b] || (r[b - 1] == r[b] && c[b - 1] > c[b])); b--) {
      const int64_t tr = r[b], tc = c[b];
      r[b] = r[b - 1], c[b] = c[b - 1], r[b - 1] = tr, c[b - 1] = tc;
    }
  A = from_coo(40, 300, n, r, c, ZS_F32);
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_SELL, NULL), ZS_OK);
  if (E) {
    CHECK(zs_test_array(E, "row_len")->elem_size == 2);
    expect_ints(E, "slice_ptr", (const int64_t[]){0, 32 * 300, 32 * 300 + 32}, 3);
  }
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);

  /* No rows, and rows without entries: no entries stored, widths 0. */
  A = from_coo(0, 7, 0, NULL, NULL, ZS_F64);
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_SELL, "sigma=64"), ZS_OK);
  if (E) expect_ints(E, "slice_ptr", (const int64_t[]){0}, 1);
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
  A = from_coo(70, 3, 0, NULL, NULL, ZS_F64);
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_SELL, NULL), ZS_OK);
  if (E) expect_ints(E, "slice_ptr", (const int64_t[]){0, 0, 0, 0}, 4);
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
  CHECK_DONE();
}

/* ---- round trips, and options refused ---- */
static const char *const options[] = {NULL,         "c=1",   "c=4,sigma=8",   "c=64,sigma=64",
                                      "sigma=1024", "c=256", "c=8,sigma=2048"};
#define N_OPTIONS (sizeof options / sizeof *options)

/* Encode, validate through a .zsm round trip, decode, compare bit for bit. */
static void roundtrip_all(const char *what, zs_matrix *A) {
  for (size_t o = 0; o < N_OPTIONS; o++) {
    zs_encoded *E = NULL, *L = NULL;
    zs_matrix *B = NULL;
    if (zs_encode(&E, A, ZS_FORMAT_SELL, options[o]) != ZS_OK) {
      fprintf(stderr, "%s [%s]: encode: %s\n", what, options[o], zs_last_error());
      check_failures++;
      continue;
    }
    L = zs_test_through_file(E, "test-sell"); /* load runs validate */
    CHECK_STATUS(zs_decode(&B, L ? L : E), ZS_OK);
    if (!zs_test_same_matrix(A, B)) {
      fprintf(stderr, "%s [%s]: decoded matrix differs\n", what, options[o]);
      check_failures++;
    }
    zs_matrix_destroy(&B);
    zs_encoded_destroy(&L);
    zs_encoded_destroy(&E);
  }
  zs_matrix_destroy(&A);
}

static int test_roundtrip(void) {
  for (int k = 0; k < 2; k++) {
    const zs_type t = k ? ZS_F64 : ZS_F32;
    roundtrip_all("small", from_coo(5, 6, 8, small_r, small_c, t));
    roundtrip_all("stencil2d", zs_test_generate("stencil2d:n=40", t));
    roundtrip_all("stencil3d-27", zs_test_generate("stencil3d:n=10,points=27", t));
    roundtrip_all("erdos_renyi", zs_test_generate("erdos_renyi:rows=3000,cols=5000,per_row=9", t));
    roundtrip_all("rmat", zs_test_generate("rmat:scale=11,per_row=8", t));
    roundtrip_all("empty-0x5", from_coo(0, 5, 0, NULL, NULL, t));
    roundtrip_all("empty-5x0", from_coo(5, 0, 0, NULL, NULL, t));
    roundtrip_all("no-entries", from_coo(9, 4, 0, NULL, NULL, t));
  }
  /* Explicit zeros stay, told apart from padding by row_len. */
  const int64_t r[] = {0, 1, 1}, c[] = {0, 0, 1};
  const double v[] = {0.0, -0.0, 0.0};
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_from_coo(&A, 3, 2, 3, r, c, v, ZS_F64, 0), ZS_OK);
  roundtrip_all("zeros", A);

  A = zs_test_generate("stencil2d:n=8", ZS_F64);
  zs_encoded *E = NULL;
  const char *bad[] = {"c=3", "c=512", "c=0", "sigma=0", "c=4,sigma=6", "sigma=16", "slices=4"};
  const char *names[] = {"'c'", "c", "c", "sigma", "'sigma'", "'sigma'", "slices"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_SELL, bad[i]), ZS_ERR_INVALID_ARGUMENT);
    if (!strstr(zs_last_error(), names[i])) {
      fprintf(stderr, "option %s: message '%s' does not name %s\n", bad[i], zs_last_error(),
              names[i]);
      check_failures++;
    }
    CHECK(E == NULL);
  }
  zs_matrix_destroy(&A);
  CHECK_DONE();
}

/* ---- corrupted blobs: each refused by validate and by decode with ZS_ERR_CORRUPT ---- */
static zs_encoded *fresh(const char *opts) {
  zs_matrix *A = from_coo(5, 6, 8, small_r, small_c, ZS_F64);
  zs_encoded *E = NULL;
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_SELL, opts), ZS_OK);
  zs_matrix_destroy(&A);
  return E;
}

static void expect_corrupt(const char *what, zs_encoded *E, const char *mention) {
  const zsi_format_ops *f = zsi_format_lookup(ZS_FORMAT_SELL);
  const zs_status s = f->validate(E);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", zs_last_error());
  zs_matrix *B = NULL;
  const zs_status d = zs_decode(&B, E); /* decode validates too */
  if (s != ZS_ERR_CORRUPT || d != ZS_ERR_CORRUPT || !strstr(msg, mention)) {
    fprintf(stderr, "corrupt %s: validate %s (%s), decode %s\n", what, zs_status_name(s), msg,
            zs_status_name(d));
    check_failures++;
  }
  zs_matrix_destroy(&B);
  zs_encoded_destroy(&E);
}

/* Element k of array `name` (1, 2, 4 or 8-byte integers, or f64 values) set to v. */
static void poke(zs_encoded *E, const char *name, uint64_t k, double v) {
  zsi_array *a = zs_test_array(E, name);
  if (strcmp(name, "values") == 0)
    ((double *)a->data)[k] = v;
  else if (a->elem_size == 8)
    ((int64_t *)a->data)[k] = (int64_t)v;
  else if (a->elem_size == 4)
    ((int32_t *)a->data)[k] = (int32_t)v;
  else
    ((uint8_t *)a->data)[k] = (uint8_t)v;
}

/* One damage: elements changed (up to four; name NULL ends them), or a parameter. */
typedef struct element {
  const char *name;
  uint64_t k;
  double v;
} element;
typedef struct damage {
  const char *what, *opts, *mention;
  element e[4];
  const char *param;
  int64_t pv;
} damage;

/* c = 2: slice_ptr {0, 4, 12, 14}, row_len {2, 0, 4, 1, 1},
 * col_idx {0, 0, 2, 0 | 1, 5, 3, 5, 4, 5, 5, 5 | 0, 0}; with sigma = 4 perm {2, 0, 3, 1, 4},
 * row_len {4, 2, 1, 0, 1}. */
static const damage damages[] = {
    {"slice_ptr[0]", "c=2", "slice_ptr[0]", .e = {{"slice_ptr", 0, 2}}},
    {"odd slice", "c=2", "slice_ptr[1]", .e = {{"slice_ptr", 1, 3}}},
    {"slices out of order", "c=2", "slice_ptr[2]", .e = {{"slice_ptr", 2, 2}}},
    /* INT64_MIN - slice_ptr[1] would overflow: compared, never subtracted */
    {"slice at INT64_MIN", "c=2", "slice_ptr[2]", .e = {{"slice_ptr", 2, -0x1p63}}},
    {"entries past col_idx", "c=2", "col_idx", .e = {{"slice_ptr", 3, 16}}},
    {"row longer than its slice", "c=2", "row_len[2]", .e = {{"row_len", 2, 5}}},
    {"row_len shifted", "c=2", "padding", .e = {{"row_len", 2, 3}, {"row_len", 3, 2}}},
    {"padding read as an entry", "c=2", "nnz is 8", .e = {{"row_len", 1, 1}}},
    {"padding column of an empty row", "c=2", "padding entry 1", .e = {{"col_idx", 1, 3}}},
    {"padding column", "c=2", "padding entry 11", .e = {{"col_idx", 11, 4}}},
    {"padding value -0", "c=2", "padding entry 13", .e = {{"values", 13, -0.0}}},
    {"column past cols", "c=2", "col_idx[6]", .e = {{"col_idx", 6, 6}}},
    {"columns not ascending", "c=2", "col_idx[6]", .e = {{"col_idx", 6, 1}}},
    {"lengths moved", "c=2", "padding", .e = {{"row_len", 0, 1}, {"row_len", 3, 0}}},
    {"c = 3", "c=2", "'c'", .param = "c", .pv = 3},
    {"sigma = 3", "c=2", "'sigma'", .param = "sigma", .pv = 3},
    {"sigma without perm", "c=2", "perm", .param = "sigma", .pv = 4},
    {"perm repeated", "c=2,sigma=4", "perm[4]", .e = {{"perm", 4, 3}}},
    {"perm outside its window", "c=2,sigma=4", "perm[0]", .e = {{"perm", 0, 4}, {"perm", 4, 2}}},
    {"perm past rows", "c=2,sigma=4", "perm[0]", .e = {{"perm", 0, 5}}},
    {"perm with sigma 1", "c=2,sigma=4", "perm", .param = "sigma", .pv = 1},
    /* rows 3 and 1 swapped with their lengths: a permutation, but not the encoder's order */
    {"window order", "c=2,sigma=4", "order",
     .e = {{"perm", 2, 1}, {"perm", 3, 3}, {"row_len", 2, 0}, {"row_len", 3, 1}}},
};

static int test_corrupt(void) {
  for (size_t i = 0; i < sizeof damages / sizeof *damages; i++) {
    const damage *d = &damages[i];
    zs_encoded *E = fresh(d->opts);
    if (!E) continue;
    for (int j = 0; j < 4 && d->e[j].name; j++) poke(E, d->e[j].name, d->e[j].k, d->e[j].v);
    if (d->param) zs_test_set_param(E, d->param, d->pv);
    expect_corrupt(d->what, E, d->mention);
  }
  /* row_len of 2-byte elements where 1 byte holds every width */
  zs_encoded *E = fresh("c=2");
  if (E) zs_test_array(E, "row_len")->elem_size = 2, zs_test_array(E, "row_len")->count = 2;
  if (E) expect_corrupt("row_len elements", E, "row_len");
  CHECK_DONE();
}

/* ---- the cpu backend gives CSR's bits with sigma = 1, and CSR's y sorted (sell.md) ---- */
/* out[0..2]: y = A x, z = Aᵀ w, then the pair's y and z (n = rows + cols each), for format f. */
static void cpu_products(zs_context *ctx, const zs_matrix *A, zs_format f, const char *opts,
                         const double *x, const double *w, double *out) {
  const int64_t m = zs_matrix_rows(A), n = zs_matrix_cols(A);
  zs_encoded *E = NULL;
  zs_operator *op = NULL;
  zs_vector *vx = NULL, *vw = NULL, *vy = NULL, *vz = NULL;
  CHECK_STATUS(zs_encode(&E, A, f, opts), ZS_OK);
  CHECK_STATUS(zs_operator_create(&op, ctx, E, "cpu", NULL), ZS_OK);
  CHECK_STATUS(zs_vector_create(&vx, ctx, "cpu", ZS_F64, n), ZS_OK);
  CHECK_STATUS(zs_vector_create(&vw, ctx, "cpu", ZS_F64, m), ZS_OK);
  CHECK_STATUS(zs_vector_create(&vy, ctx, "cpu", ZS_F64, m), ZS_OK);
  CHECK_STATUS(zs_vector_create(&vz, ctx, "cpu", ZS_F64, n), ZS_OK);
  if (op && vx && vw && vy && vz) {
    zs_vector_upload(vx, x), zs_vector_upload(vw, w);
    zs_vector_fill(vy, 0.5), zs_vector_fill(vz, -0.25);
    CHECK_STATUS(zs_spmv(op, ZS_OP_N, 1.5, vx, -2.0, vy), ZS_OK);
    CHECK_STATUS(zs_spmv(op, ZS_OP_T, 0.75, vw, 3.0, vz), ZS_OK);
    zs_vector_download(vy, out), zs_vector_download(vz, out + m);
    CHECK_STATUS(zs_spmv_pair(op, 1.0, vx, 0.5, vy, -1.0, vw, 0.0, vz), ZS_OK);
    zs_vector_download(vy, out + m + n), zs_vector_download(vz, out + 2 * m + n);
  }
  zs_vector_destroy(&vx), zs_vector_destroy(&vw), zs_vector_destroy(&vy), zs_vector_destroy(&vz);
  zs_operator_destroy(&op);
  zs_encoded_destroy(&E);
}

static int test_csr_bits(void) {
  zs_context *ctx = NULL;
  CHECK_STATUS(zs_context_create(&ctx), ZS_OK);
  const char *specs[] = {"stencil2d:n=300", "erdos_renyi:rows=20000,cols=15000,per_row=11",
                         "rmat:scale=14,per_row=9", "banded:rows=50000,width=40,per_row=7"};
  for (size_t i = 0; ctx && i < sizeof specs / sizeof *specs; i++) {
    zs_matrix *A = zs_test_generate(specs[i], ZS_F64);
    if (!A) continue;
    const int64_t m = zs_matrix_rows(A), n = zs_matrix_cols(A), len = 2 * (m + n);
    double *x = malloc((size_t)n * 8), *w = malloc((size_t)m * 8);
    double *a = calloc((size_t)len, 8), *b = calloc((size_t)len, 8);
    for (int64_t j = 0; j < n; j++) x[j] = 1.0 / (double)(j % 17 + 1) - 0.3;
    for (int64_t j = 0; j < m; j++) w[j] = (double)(j % 13) * 0.37 - 1.1;
    cpu_products(ctx, A, ZS_FORMAT_CSR, NULL, x, w, a);
    /* natural order: every product has CSR's bits. Sorted windows: the products of A (y, and the
     * pair's y) keep each row's order, so CSR's bits too; the threads write them through
     * position-order sums on matrices of fewer than 8 x (threads - 1) x sigma rows
     * (ZS_NUM_THREADS=3 here: R-MAT and Erdős–Rényi) and directly on the others. Aᵀ's sums
     * follow the sorted positions (docs/formats/sell.md), so z is not compared. */
    cpu_products(ctx, A, ZS_FORMAT_SELL, "c=8", x, w, b);
    if (memcmp(a, b, (size_t)len * 8) != 0) {
      fprintf(stderr, "%s: sell's cpu products differ from csr's in their bits\n", specs[i]);
      check_failures++;
    }
    memset(b, 0, (size_t)len * 8);
    cpu_products(ctx, A, ZS_FORMAT_SELL, "c=8,sigma=4096", x, w, b);
    if (memcmp(a, b, (size_t)m * 8) != 0 || memcmp(a + m + n, b + m + n, (size_t)m * 8) != 0) {
      fprintf(stderr, "%s: sorted sell's cpu y differs from csr's in its bits\n", specs[i]);
      check_failures++;
    }
    free(x), free(w), free(a), free(b);
    zs_matrix_destroy(&A);
  }
  zs_context_destroy(&ctx);
  CHECK_DONE();
}

/* ---- golden blob: the layout is frozen ---- */
static zs_matrix *golden_matrix(void) {
  /* 37 x 50 f64, c = 4, sigma = 16: sorted windows, a partial last window and slice, an empty
   * row, a row of 20 entries, padding of every kind. */
  int64_t r[400], c[400], n = 0;
  for (int64_t i = 0; i < 37; i++) {
    const int64_t len = i == 5 ? 0 : i == 17 ? 20 : 1 + (i * 7) % 5;
    for (int64_t k = 0; k < len; k++) r[n] = i, c[n++] = (i + 3 * k) % 50;
    for (int64_t a = n - len + 1; a < n; a++) /* columns ascending inside the row */
      for (int64_t b = a; b > n - len && c[b - 1] > c[b]; b--) {
        const int64_t t = c[b];
        c[b] = c[b - 1], c[b - 1] = t;
      }
  }
  return from_coo(37, 50, n, r, c, ZS_F64);
}

static int test_golden(const char *dir, int write) {
  char path[4096];
  snprintf(path, sizeof path, "%s/sell_37x50_c4_sigma16_f64.zsm", dir);
  zs_matrix *M = golden_matrix();
  zs_encoded *E = NULL;
  CHECK_STATUS(zs_encode(&E, M, ZS_FORMAT_SELL, "c=4,sigma=16"), ZS_OK);
  zs_matrix_destroy(&M);
  if (write) {
    CHECK_STATUS(zs_encoded_save(E, path), ZS_OK);
    zs_encoded_destroy(&E);
    CHECK_DONE();
  }
  /* Today's encoder writes the frozen bytes, and the file decodes to the matrix. */
  CHECK(E && zs_test_saves_as(E, path, "test-sell-golden", 0));
  zs_encoded *G = NULL;
  zs_matrix *A = golden_matrix(), *B = NULL;
  CHECK_STATUS(zs_encoded_load(&G, path), ZS_OK);
  if (G) CHECK_STATUS(zs_decode(&B, G), ZS_OK);
  CHECK(B && zs_test_same_matrix(A, B));
  zs_matrix_destroy(&A), zs_matrix_destroy(&B);
  zs_encoded_destroy(&G), zs_encoded_destroy(&E);
  CHECK_DONE();
}

int main(int argc, char **argv) {
  const char *part = argc > 1 ? argv[1] : "";
  if (strcmp(part, "layout") == 0) return test_layout();
  if (strcmp(part, "roundtrip") == 0) return test_roundtrip();
  if (strcmp(part, "corrupt") == 0) return test_corrupt();
  if (strcmp(part, "csr-bits") == 0) return test_csr_bits();
  if (strcmp(part, "golden") == 0 && argc > 2) return test_golden(argv[2], 0);
  if (strcmp(part, "write-golden") == 0 && argc > 2) return test_golden(argv[2], 1);
  fprintf(stderr,
          "usage: test_sell layout|roundtrip|corrupt|csr-bits|golden DIR|write-golden DIR\n");
  return 2;
}
