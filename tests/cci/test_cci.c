/* test_cci.c — CCI: bit-exact round trips, the opcode optimiser, refusal of corrupted blobs,
 * the golden blob, and column-index savings on the shared matrices. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"
#include "tests/common/backend_test.h"
#include "tests/common/blob_parts.h"
#include "tests/common/check.h"
#include "tests/common/generated.h"
#include "tests/common/same_matrix.h"
#include "tests/common/test_matrices.h"
#include "tests/common/through_file.h"
#include "tests/common/typed_element.h"

/* ---- matrices ---- */
static zs_matrix *from_coo(int64_t rows, int64_t cols, int64_t n, const int64_t *r,
                           const int64_t *c, zs_type t) {
  double *v = malloc((size_t)(n ? n : 1) * 8);
  float *vf = malloc((size_t)(n ? n : 1) * 4);
  for (int64_t k = 0; k < n; k++) v[k] = 0.25 * (double)(k % 13) - 1.5, vf[k] = (float)v[k];
  zs_matrix *A = NULL;
  CHECK_STATUS(
      zs_matrix_from_coo(&A, rows, cols, n, r, c, t == ZS_F64 ? (void *)v : (void *)vf, t, 0),
      ZS_OK);
  free(v), free(vf);
  return A;
}

/* Empty rows, one long row spanning most columns, a row at the far right edge. */
static zs_matrix *ragged(zs_type t) {
  int64_t r[6000], c[6000], n = 0;
  for (int64_t j = 0; j < 3000; j++) r[n] = 7, c[n++] = j * 3 + (j % 2);
  for (int64_t i = 20; i < 200; i += 9)
    for (int64_t k = 0; k < 1 + i % 40; k++) r[n] = i, c[n++] = (i * 37 + k * k * 11) % 9001;
  r[n] = 299, c[n++] = 9000;
  return from_coo(300, 9001, n, r, c, t);
}

/* Columns 2^31 - 2 apart: immediates need 31 and 32 bits, beyond the paper's 29. */
static zs_matrix *widest(zs_type t) {
  const int64_t big = INT32_MAX;
  const int64_t r[] = {0, 0, 1, 2, 2, 2};
  const int64_t c[] = {0, big - 1, big - 1, 0, 1, big - 1};
  return from_coo(3, big, 6, r, c, t);
}

static const char *const options[] = {NULL,           "slices=1", "slices=1,opcodes=auto",
                                      "opcodes=auto", "slices=2", "slices=32,opcodes=auto"};
#define N_OPTIONS (sizeof options / sizeof *options)

/* Encode, validate through a .zsm round trip, decode, compare bit for bit. */
static void roundtrip_one(const char *what, const zs_matrix *A, const char *opts, int via_file) {
  zs_encoded *E = NULL, *L = NULL;
  zs_matrix *B = NULL;
  zs_status s = zs_encode(&E, A, ZS_FORMAT_CCI, opts);
  if (s != ZS_OK) {
    fprintf(stderr, "%s [%s]: encode: %s\n", what, opts ? opts : "", zs_last_error());
    check_failures++;
    return;
  }
  const zsi_format_ops *f = zsi_format_lookup(ZS_FORMAT_CCI);
  CHECK_STATUS(f->validate(E), ZS_OK);
  if (via_file) L = zs_test_through_file(E, "test-cci"); /* load runs validate */
  CHECK_STATUS(zs_decode(&B, L ? L : E), ZS_OK);
  if (!zs_test_same_matrix(A, B)) {
    fprintf(stderr, "%s [%s]: decoded matrix differs\n", what, opts ? opts : "");
    check_failures++;
  }
  zs_matrix_destroy(&B);
  zs_encoded_destroy(&L);
  zs_encoded_destroy(&E);
}

static void roundtrip_all(const char *what, zs_matrix *A) {
  for (size_t o = 0; o < N_OPTIONS; o++) roundtrip_one(what, A, options[o], o < 2);
  zs_matrix_destroy(&A);
}

static int test_roundtrip(void) {
  for (int k = 0; k < 2; k++) {
    const zs_type t = k ? ZS_F64 : ZS_F32;
    roundtrip_all("ragged", ragged(t));
    roundtrip_all("widest", widest(t));
    roundtrip_all("stencil3d-27", zs_test_generate("stencil3d:n=12,points=27", t));
    roundtrip_all("stencil2d", zs_test_generate("stencil2d:n=40", t));
    roundtrip_all("elasticity3d", zs_test_generate("elasticity3d:n=6", t));
    roundtrip_all("erdos_renyi", zs_test_generate("erdos_renyi:rows=3000,cols=5000,per_row=9", t));
    roundtrip_all("rmat", zs_test_generate("rmat:scale=11,per_row=8", t));
    roundtrip_all("empty-0x5", from_coo(0, 5, 0, NULL, NULL, t));
    roundtrip_all("empty-5x0", from_coo(5, 0, 0, NULL, NULL, t));
    roundtrip_all("no-entries", from_coo(9, 4, 0, NULL, NULL, t));
    const int64_t one = 0;
    roundtrip_all("1x1", from_coo(1, 1, 1, &one, &one, t));
  }
  /* Options that must be refused, naming the key. */
  zs_matrix *A = zs_test_generate("stencil2d:n=8", ZS_F64);
  zs_encoded *E = NULL;
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CCI, "slices=3"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "slices") != NULL);
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CCI, "slices=64"), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CCI, "opcodes=huffman"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "opcodes") != NULL);
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CCI, "lanes=8"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(E == NULL);
  zs_matrix_destroy(&A);
  CHECK_DONE();
}

/* ---- figures ---- */
typedef struct figures {
  double code_saved, index_saved, code_bits, index_bits;
} figures;

static void take(void *ctx, const char *name, double v) {
  figures *f = ctx;
  if (strcmp(name, "code_saved_pct") == 0) f->code_saved = v;
  if (strcmp(name, "index_saved_pct") == 0) f->index_saved = v;
  if (strcmp(name, "code_bits_per_nnz") == 0) f->code_bits = v;
  if (strcmp(name, "index_bits_per_nnz") == 0) f->index_bits = v;
}

static figures figures_of(const zs_matrix *A, const char *opts) {
  figures f = {0, 0, 0, 0};
  zs_encoded *E = NULL;
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CCI, opts), ZS_OK);
  if (E) CHECK_STATUS(zs_encoded_stats(E, take, &f), ZS_OK);
  zs_encoded_destroy(&E);
  return f;
}

/* The optimiser never does worse than the paper's set, and on the 3-D stencils it does better;
 * the paper's set on the default layout keeps its table (entries 0,2,4,6 = '0', 1,3,5,7 =
 * 3-bit opcodes of 5, 15, 20, 29 bits). */
static int test_opcodes(void) {
  const char *const specs[] = {"stencil3d:n=16,points=27", "elasticity3d:n=8",
                               "erdos_renyi:rows=4000,per_row=12", "banded:rows=4000"};
  for (size_t m = 0; m < sizeof specs / sizeof *specs; m++) {
    zs_matrix *A = zs_test_generate(specs[m], ZS_F64);
    for (int S = 1; S <= 8; S *= 8) {
      char paper[32], opt[48];
      snprintf(paper, sizeof paper, "slices=%d", S);
      snprintf(opt, sizeof opt, "slices=%d,opcodes=auto", S);
      const figures p = figures_of(A, paper), o = figures_of(A, opt);
      printf("%-34s S=%d paper %.2f bits/nnz, auto %.2f bits/nnz (codes)\n", specs[m], S,
             p.code_bits, o.code_bits);
      CHECK(o.code_bits <= p.code_bits + 1e-9);
    }
    zs_matrix_destroy(&A);
  }
  zs_matrix *A = zs_test_generate("stencil2d:n=8", ZS_F32);
  zs_encoded *E = NULL;
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CCI, NULL), ZS_OK);
  const zsi_array *t = E ? zsi_encoded_array(E, "optable") : NULL;
  CHECK(t && t->count == 8);
  if (t) {
    const uint32_t *e = t->data;
    const uint32_t want[8] = {
        0x000101, 0x050308, 0x000101, 0x0f0312, 0x000101, 0x140317, 0x000101, 0x1d0320,
    };
    for (int i = 0; i < 8; i++) CHECK(e[i] == want[i]);
  }
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
  CHECK_DONE();
}

/* ---- corrupted blobs: each one refused by validate with ZS_ERR_CORRUPT ---- */
static zs_encoded *fresh(void) {
  zs_matrix *A = zs_test_generate("stencil3d:n=5,points=27", ZS_F64);
  zs_encoded *E = NULL;
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CCI, "slices=4"), ZS_OK);
  zs_matrix_destroy(&A);
  return E;
}

static void expect_corrupt(const char *what, zs_encoded *E, const char *mention) {
  const zsi_format_ops *f = zsi_format_lookup(ZS_FORMAT_CCI);
  const zs_status s = f->validate(E);
  zs_matrix *B = NULL;
  const zs_status d = zs_decode(&B, E);
  if (s != ZS_ERR_CORRUPT || d != ZS_ERR_CORRUPT ||
      (mention && !strstr(zs_last_error(), mention))) {
    fprintf(stderr, "corrupt %s: validate %s, decode %s (%s)\n", what, zs_status_name(s),
            zs_status_name(d), zs_last_error());
    check_failures++;
  }
  zs_matrix_destroy(&B);
  zs_encoded_destroy(&E);
}

static int test_corrupt(void) {
  zs_encoded *E;
  E = fresh(), ((uint32_t *)zs_test_array(E, "optable")->data)[3] = 0x000105;
  expect_corrupt("optable count", E, "optable");
  E = fresh(), ((uint32_t *)zs_test_array(E, "optable")->data)[3] = 0x210324;
  expect_corrupt("optable width 33", E, "optable");
  E = fresh(), ((uint32_t *)zs_test_array(E, "optable")->data)[2] = 0x050308;
  expect_corrupt("optable don't-care fill", E, "optable");
  E = fresh(), ((uint32_t *)zs_test_array(E, "optable")->data)[0] = 0x000004;
  expect_corrupt("optable opcode length 4", E, "optable");
  E = fresh(), ((uint32_t *)zs_test_array(E, "cstart")->data)[5] += 1000;
  expect_corrupt("cstart decreasing", E, "cstart");
  E = fresh(), ((uint32_t *)zs_test_array(E, "cstart")->data)[0] = 1;
  expect_corrupt("cstart[0]", E, "cstart");
  E = fresh(), zs_test_array(E, "cstart")->count--;
  expect_corrupt("cstart count", E, "cstart");
  E = fresh(), zs_test_array(E, "codes")->count--;
  expect_corrupt("codes count", E, "codes");
  E = fresh(), ((int64_t *)zs_test_array(E, "row_ptr")->data)[3] = -1;
  expect_corrupt("row_ptr", E, "row_ptr");
  E = fresh(), zs_test_array(E, "values")->elem_size = 4;
  expect_corrupt("values element size", E, "values");
  E = fresh(), E->params[0].value = 3;
  expect_corrupt("slices=3", E, "slices");
  E = fresh(), E->params[1].value = INT64_C(1) << 40;
  expect_corrupt("first_shift", E, "first_shift");
  E = fresh();
  {
    /* a bit past the stream end */
    zsi_array *c = zs_test_array(E, "codes");
    ((uint64_t *)c->data)[c->count - 1] = 1;
    expect_corrupt("padding bits", E, "past the stream end");
  }
  E = fresh();
  {
    /* a stream one bit longer than its codes: its successor starts a bit later */
    uint32_t *cs = zs_test_array(E, "cstart")->data;
    cs[1] += 1;
    expect_corrupt("stream with unused bits", E, NULL);
  }
  /* Every single-bit flip of the codes is refused or decodes to a canonical matrix (never a
   * crash or an out-of-range column: the decoder checks, the sanitizer build watches). */
  zs_encoded *G = fresh();
  zsi_array *c = zs_test_array(G, "codes");
  const uint64_t bits =
      ((uint32_t *)zs_test_array(G, "cstart")->data)[zs_test_array(G, "cstart")->count - 1];
  int refused = 0;
  for (uint64_t b = 0; b < bits; b++) {
    ((uint64_t *)c->data)[b / 64] ^= UINT64_C(1) << (b % 64);
    zs_matrix *B = NULL;
    const zs_status s = zs_decode(&B, G);
    CHECK(s == ZS_OK || s == ZS_ERR_CORRUPT);
    if (s == ZS_OK) {
      const int64_t *rp;
      const int32_t *ci;
      const void *v;
      zs_matrix_csr(B, &rp, &ci, &v);
      for (int64_t i = 0; i < zs_matrix_rows(B); i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
          CHECK(ci[k] >= 0 && ci[k] < zs_matrix_cols(B) && (k == rp[i] || ci[k] > ci[k - 1]));
    }
    refused += s == ZS_ERR_CORRUPT;
    zs_matrix_destroy(&B);
    ((uint64_t *)c->data)[b / 64] ^= UINT64_C(1) << (b % 64);
  }
  printf("bit flips: %d of %" PRIu64 " refused\n", refused, bits);
  CHECK(refused > (int)(bits / 2));
  zs_encoded_destroy(&G);
  CHECK_DONE();
}

/* ---- golden blob: the layout is frozen ---- */
static zs_encoded *golden_encoded(void) {
  /* 6 x 40: a run, a jump, an empty row, a row left of its diagonal, a full slice wrap. */
  const int64_t r[] = {0, 0, 0, 0, 0, 1, 1, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5};
  const int64_t c[] = {0, 1, 2, 3, 30, 2, 39, 0, 1, 5, 6, 7, 8, 9, 10, 11, 12, 20, 21, 33};
  zs_matrix *A = from_coo(6, 40, 20, r, c, ZS_F64);
  zs_encoded *E = NULL;
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CCI, "slices=4"), ZS_OK);
  zs_matrix_destroy(&A);
  return E;
}

static int test_golden(const char *dir, int write) {
  char path[4096];
  snprintf(path, sizeof path, "%s/cci_6x40_f64_s4.zsm", dir);
  zs_encoded *E = golden_encoded();
  if (write) {
    CHECK_STATUS(zs_encoded_save(E, path), ZS_OK);
    zs_encoded_destroy(&E);
    CHECK_DONE();
  }
  /* The file decodes to the matrix, and today's encoder writes the same arrays. */
  zs_encoded *G = NULL;
  CHECK_STATUS(zs_encoded_load(&G, path), ZS_OK);
  if (G && E) {
    CHECK(G->n_arrays == E->n_arrays && G->n_params == E->n_params);
    for (int i = 0; i < E->n_arrays && i < G->n_arrays; i++) {
      const zsi_array *a = &E->arrays[i], *b = zsi_encoded_array(G, a->name);
      CHECK(b && b->count == a->count && b->elem_size == a->elem_size &&
            memcmp(a->data, b->data, a->count * a->elem_size) == 0);
    }
    for (int i = 0; i < E->n_params && i < G->n_params; i++)
      CHECK(strcmp(E->params[i].name, G->params[i].name) == 0 &&
            E->params[i].value == G->params[i].value);
    zs_matrix *A = NULL, *B = NULL;
    CHECK_STATUS(zs_decode(&A, G), ZS_OK);
    CHECK_STATUS(zs_decode(&B, E), ZS_OK);
    CHECK(zs_test_same_matrix(A, B));
    zs_matrix_destroy(&A), zs_matrix_destroy(&B);
  }
  zs_encoded_destroy(&G), zs_encoded_destroy(&E);
  CHECK_DONE();
}

/* ---- the shared matrices: round trip, and column-index bytes saved against CSR ---- */
/* Both value types round trip; the savings (index bytes only, the same in both) are printed once,
 * from the f64 read. */
static void shared_one(const char *name, zs_matrix *A) {
  roundtrip_one(name, A, NULL, 0);
  roundtrip_one(name, A, "slices=1,opcodes=auto", 0);
  if (zs_matrix_type(A) == ZS_F64) {
    const figures p = figures_of(A, NULL), o = figures_of(A, "slices=1,opcodes=auto");
    printf("%-22s %8" PRId64 " %10" PRId64 "  %5.1f%% / %5.1f%%   %5.1f%% / %5.1f%%\n", name,
           zs_matrix_rows(A), zs_matrix_nnz(A), p.code_saved, p.index_saved, o.code_saved,
           o.index_saved);
  }
  zs_matrix_destroy(&A);
}

static int test_shared(const char *dir) {
  printf("%-22s %8s %10s  %s\n", "matrix", "rows", "nnz",
         "saved vs 32-bit CSR col_idx (codes / all index arrays): S=8 paper, S=1 auto");
  const int n = zst_each_matrix(dir, shared_one);
  printf("%d shared matrices round-tripped (f64 and f32 reads)\n", n);
  CHECK(n >= 4);
  CHECK_DONE();
}

/* ---- codes longer than 32 bits on a GPU backend ----
 * Columns 2^30 apart need 30-bit immediates: codes of up to 33 bits, which the GPU kernel
 * reads on its long-code path. x (SpMV) or y (SpMVT) has 2^30 + 1 elements (4 GiB in f32, 8
 * in f64), so this runs only where the backend is usable (exit 77 otherwise). Products are
 * compared with a long-double product of the entries; SpMVT's untouched y must be exactly 0. */
static double hashed(int64_t j) { /* fresh-looking inputs in [-1, 1) */
  return (double)((uint32_t)(j * 2654435761u) >> 8) / 8388608.0 - 1.0;
}

static int test_long(const char *backend) {
  zs_context *ctx = NULL;
  const int skip_or_fail = zs_test_context_for(backend, &ctx);
  if (skip_or_fail) return skip_or_fail;
  const int64_t rows = 4, cols = (INT64_C(1) << 30) + 1, far = cols - 1;
  /* row 0: nine neighbours, then a jump of ~2^30 inside each slice; row 1 starts far right;
   * row 2 is empty; row 3 jumps between the two ends */
  int64_t r[64], c[64], n = 0;
  for (int64_t j = 0; j < 9; j++) r[n] = 0, c[n++] = j;
  for (int64_t j = 0; j < 9; j++) r[n] = 0, c[n++] = far - 8 + j;
  r[n] = 1, c[n++] = far;
  for (int64_t j = 0; j < 6; j++) r[n] = 3, c[n++] = j;
  for (int64_t j = 0; j < 6; j++) r[n] = 3, c[n++] = far - 5 + j;
  const char *const encodings[] = {"slices=8", "slices=4,opcodes=auto", "slices=2,opcodes=auto",
                                   "slices=1,opcodes=auto"};
  int with_long = 0;
  for (int ti = 0; ti < 2; ti++)
    for (int o = 0; o < 2; o++) { /* N needs x of `cols` elements, T needs y of `cols` */
      const zs_type t = ti ? ZS_F64 : ZS_F32;
      const int64_t n_x = o ? rows : cols, n_y = o ? cols : rows;
      const size_t es = t == ZS_F64 ? 8 : 4;
      zs_matrix *A = from_coo(rows, cols, n, r, c, t);
      void *x = malloc((size_t)n_x * es), *y = malloc((size_t)n_y * es);
      long double want[64] = {0}; /* y at the touched positions: rows (N) or c[k] (T) */
      zs_vector *vx = NULL, *vy = NULL;
      CHECK_STATUS(zs_vector_create(&vx, ctx, backend, t, n_x), ZS_OK);
      CHECK_STATUS(zs_vector_create(&vy, ctx, backend, t, n_y), ZS_OK);
      CHECK(A && x && y);
      if (!A || !x || !y || !vx || !vy) goto next;
      for (int64_t j = 0; j < n_x; j++)
        if (t == ZS_F64)
          ((double *)x)[j] = hashed(j);
        else
          ((float *)x)[j] = (float)hashed(j);
      CHECK_STATUS(zs_vector_upload(vx, x), ZS_OK);
      for (int64_t k = 0; k < n; k++) { /* from_coo's values */
        const long double a =
            t == ZS_F64 ? 0.25 * (double)(k % 13) - 1.5 : (float)(0.25 * (double)(k % 13) - 1.5);
        if (o)
          want[k] = a * (long double)zs_test_element(x, t, r[k]); /* summed per column below */
        else
          want[r[k]] += a * (long double)zs_test_element(x, t, c[k]);
      }
      for (size_t e = 0; e < sizeof encodings / sizeof *encodings; e++) {
        zs_encoded *E = NULL;
        zs_operator *op = NULL;
        CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CCI, encodings[e]), ZS_OK);
        if (!E) continue;
        const zsi_array *tab = zsi_encoded_array(E, "optable");
        for (uint64_t k = 0; tab && k < tab->count; k++)
          if ((((const uint32_t *)tab->data)[k] & 0xff) > 32) with_long++;
        CHECK_STATUS(zs_operator_create(&op, ctx, E, backend, o ? "transpose=atomic" : NULL),
                     ZS_OK);
        CHECK_STATUS(zs_vector_fill(vy, 7.0), ZS_OK); /* beta = 0 must ignore it */
        if (op) CHECK_STATUS(zs_spmv(op, o ? ZS_OP_T : ZS_OP_N, 1.0, vx, 0.0, vy), ZS_OK);
        CHECK_STATUS(zs_vector_download(vy, y), ZS_OK);
        int64_t bad = 0, touched = 0;
        for (int64_t i = 0; i < n_y; i++) {
          long double w = 0;
          if (!o)
            w = want[i];
          else if (i <= 8 || i >= far - 8) /* the only columns with entries */
            for (int64_t k = 0; k < n; k++)
              if (c[k] == i) w += want[k], touched++;
          const double got = zs_test_element(y, t, i);
          /* at most 18 terms, each |a x| <= 1.5: a bound of the rounding in either type */
          const long double tol = t == ZS_F64 ? 1e-13L : 1e-5L;
          if (!(fabsl((long double)got - w) <= tol * 30) && bad++ < 3)
            fprintf(stderr, "long codes %s %s %s: y[%" PRId64 "] = %.9g, want %.9Lg\n",
                    encodings[e], t == ZS_F64 ? "f64" : "f32", o ? "T" : "N", i, got, w);
        }
        CHECK(!o || touched == n);
        if (bad) check_failures++;
        zs_operator_destroy(&op);
        zs_encoded_destroy(&E);
      }
    next:
      zs_vector_destroy(&vx), zs_vector_destroy(&vy);
      free(x), free(y);
      zs_matrix_destroy(&A);
    }
  CHECK(with_long > 0); /* the paper table's `111` widened to 30 bits: 33-bit codes */
  zs_context_destroy(&ctx);
  CHECK_DONE();
}

int main(int argc, char **argv) {
  const char *part = argc > 1 ? argv[1] : "";
  if (strcmp(part, "roundtrip") == 0) return test_roundtrip();
  if (strcmp(part, "opcodes") == 0) return test_opcodes();
  if (strcmp(part, "corrupt") == 0) return test_corrupt();
  if (strcmp(part, "golden") == 0 && argc > 2) return test_golden(argv[2], 0);
  if (strcmp(part, "write-golden") == 0 && argc > 2) return test_golden(argv[2], 1);
  if (strcmp(part, "shared") == 0 && argc > 2) return test_shared(zst_matrices_dir(argv[2]));
  if (strcmp(part, "long") == 0 && argc > 2) return test_long(argv[2]);
  fprintf(stderr,
          "usage: test_cci roundtrip|opcodes|corrupt|golden DIR|write-golden DIR|shared "
          "DIR|long BACKEND\n");
  return 2;
}
