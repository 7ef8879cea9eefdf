/* test_csb.c — CSB-baseline and GCSB: layouts worked by hand, round trips (generated and shared
 * matrices), corrupted blobs refused, memory against CSR, golden files. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"
#include "tests/common/blob_parts.h"
#include "tests/common/check.h"
#include "tests/common/generated.h"
#include "tests/common/same_file.h"
#include "tests/common/same_matrix.h"
#include "tests/common/test_matrices.h"
#include "tests/common/test_random.h"
#include "tests/common/typed_element.h"

static zs_matrix *from_triplets(zs_type t, int64_t rows, int64_t cols, int64_t n, const int64_t *r,
                                const int64_t *c, const double *v) {
  float *f = malloc((size_t)(n ? n : 1) * sizeof *f);
  for (int64_t k = 0; k < n; k++) f[k] = (float)v[k];
  zs_matrix *A = NULL;
  zs_status s =
      zs_matrix_from_coo(&A, rows, cols, n, r, c, t == ZS_F64 ? (const void *)v : f, t, 0);
  free(f);
  if (s != ZS_OK) fprintf(stderr, "from_coo: %s\n", zs_last_error());
  return A;
}

/* Random entries with a few explicit zeros (structure that must survive). */
static zs_matrix *random_matrix(zs_type t, int64_t rows, int64_t cols, int64_t n, uint64_t seed) {
  int64_t *r = malloc((size_t)(n ? n : 1) * 8), *c = malloc((size_t)(n ? n : 1) * 8);
  double *v = malloc((size_t)(n ? n : 1) * 8);
  for (int64_t k = 0; k < n; k++) {
    r[k] = (int64_t)(zs_test_lcg(&seed, 17) % (uint64_t)rows),
    c[k] = (int64_t)(zs_test_lcg(&seed, 17) % (uint64_t)cols);
    v[k] = k % 23 ? (double)(int64_t)(zs_test_lcg(&seed, 17) % 2001 - 1000) / 64 : 0.0;
  }
  zs_matrix *A = from_triplets(t, rows, cols, n, r, c, v);
  free(r), free(c), free(v);
  return A;
}

static const zs_encoded *validated(const zs_encoded *E) {
  const zs_status s = zsi_format_lookup(E->format)->validate(E);
  if (s != ZS_OK) fprintf(stderr, "validate: %s\n", zs_last_error());
  return s == ZS_OK ? E : NULL;
}

/* Encode, validate, decode: the same matrix bit for bit. */
static void roundtrip(const char *what, const zs_matrix *A, zs_format f, const char *opts) {
  zs_encoded *E = NULL;
  zs_matrix *B = NULL;
  zs_status s = zs_encode(&E, A, f, opts);
  if (s != ZS_OK) {
    fprintf(stderr, "%s %s:%s: encode: %s\n", what, zs_format_name(f), opts ? opts : "",
            zs_last_error());
    check_failures++;
    return;
  }
  CHECK(E->nnz == zs_matrix_nnz(A));
  CHECK(validated(E) != NULL);
  CHECK_STATUS(zs_decode(&B, E), ZS_OK);
  if (!B || !zs_test_same_matrix(A, B)) {
    fprintf(stderr, "%s %s:%s: decoded matrix differs\n", what, zs_format_name(f),
            opts ? opts : "");
    check_failures++;
  }
  zs_matrix_destroy(&B);
  zs_encoded_destroy(&E);
}

static void roundtrip_all(const char *what, const zs_matrix *A) {
  static const char *const csb_opts[] = {NULL, "beta=2", "beta=256", "beta=512"};
  static const char *const gcsb_opts[] = {NULL, "beta=2,group=1", "beta=4,group=3",
                                          "beta=256,group=32", "beta=1024,group=5"};
  for (size_t i = 0; i < sizeof csb_opts / sizeof *csb_opts; i++)
    roundtrip(what, A, ZS_FORMAT_CSB, csb_opts[i]);
  for (size_t i = 0; i < sizeof gcsb_opts / sizeof *gcsb_opts; i++)
    roundtrip(what, A, ZS_FORMAT_GCSB, gcsb_opts[i]);
}

/* ---- a 4 x 4 matrix with beta = 2, worked out by hand from docs/formats/csb.md ----
 *   [1 2 . .]   blocks (row-major): (0,0) holds 1 2 3, (0,1) holds 4, (1,0) holds 6,
 *   [3 . . 4]   (1,1) holds 5 8 7 (Morton order: (0,0), (1,0), (1,1) in the block).
 *   [. . 5 .]
 *   [. 6 8 7] */
static zs_matrix *small_matrix(zs_type t) {
  static const int64_t r[] = {0, 0, 1, 1, 2, 3, 3, 3}, c[] = {0, 1, 0, 3, 2, 1, 2, 3};
  static const double v[] = {1, 2, 3, 4, 5, 6, 8, 7};
  return from_triplets(t, 4, 4, 8, r, c, v);
}

static int array_is(const zs_encoded *E, const char *name, uint32_t es, uint64_t n,
                    const int64_t *want) {
  const zsi_array *a = zsi_encoded_array(E, name);
  if (!a || a->elem_size != es || a->count != n) {
    fprintf(stderr, "array %s: missing or wrong size\n", name);
    return 0;
  }
  for (uint64_t i = 0; i < n; i++) {
    int64_t got = es == 2   ? ((const uint16_t *)a->data)[i]
                  : es == 4 ? (int64_t)((const uint32_t *)a->data)[i]
                            : ((const int64_t *)a->data)[i];
    if (!strcmp(name, "values"))
      got = E->type == ZS_F64 ? (int64_t)((const double *)a->data)[i]
                              : (int64_t)((const float *)a->data)[i];
    if (got != want[i]) {
      fprintf(stderr, "array %s[%" PRIu64 "] = %" PRId64 ", expected %" PRId64 "\n", name, i, got,
              want[i]);
      return 0;
    }
  }
  return 1;
}

/* The beta that encoding A in format f with options opts records; -1 on failure. */
static int64_t default_beta(const zs_matrix *A, zs_format f, const char *opts) {
  zs_encoded *E = NULL;
  int64_t beta = -1;
  CHECK_STATUS(zs_encode(&E, A, f, opts), ZS_OK);
  for (int i = 0; E && i < E->n_params; i++)
    if (!strcmp(E->params[i].name, "beta")) beta = E->params[i].value;
  zs_encoded_destroy(&E);
  return beta;
}

static void layout_cases(void) {
  zs_matrix *A = small_matrix(ZS_F64);
  zs_encoded *E = NULL;
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CSB, "beta=2"), ZS_OK);
  if (E) {
    CHECK(array_is(E, "values", 8, 8, (const int64_t[]){1, 2, 3, 4, 6, 5, 8, 7}));
    CHECK(array_is(E, "local_idx", 2, 8, (const int64_t[]){0, 1, 2, 3, 3, 0, 2, 3}));
    CHECK(array_is(E, "block_ptr", 8, 3, (const int64_t[]){0, 2, 4}));
    CHECK(array_is(E, "block_col", 4, 4, (const int64_t[]){0, 1, 0, 1}));
    CHECK(array_is(E, "block_offset", 8, 5, (const int64_t[]){0, 3, 4, 5, 8}));
  }
  zs_encoded_destroy(&E);
  /* Blocks by count: (0,0) and (1,1) hold 3, (0,1) and (1,0) hold 1. */
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_GCSB, "beta=2,group=2"), ZS_OK);
  if (E) {
    CHECK(array_is(E, "values", 8, 8, (const int64_t[]){1, 5, 2, 8, 3, 7, 4, 6}));
    CHECK(array_is(E, "local_idx", 2, 8, (const int64_t[]){0, 0, 1, 2, 2, 3, 3, 3}));
    CHECK(array_is(E, "block_index", 4, 4, (const int64_t[]){0, 3, 1, 2}));
    CHECK(array_is(E, "group_offset", 8, 3, (const int64_t[]){0, 6, 8}));
  }
  zs_encoded_destroy(&E);
  /* One group of four: the two single-element blocks are padded to depth 3 by repeating
   * their index with +0.0. */
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_GCSB, "beta=2,group=4"), ZS_OK);
  if (E) {
    CHECK(array_is(E, "values", 8, 12, (const int64_t[]){1, 5, 4, 6, 2, 8, 0, 0, 3, 7, 0, 0}));
    CHECK(array_is(E, "local_idx", 2, 12, (const int64_t[]){0, 0, 3, 3, 1, 2, 3, 3, 2, 3, 3, 3}));
    CHECK(array_is(E, "group_offset", 8, 2, (const int64_t[]){0, 12}));
  }
  zs_encoded_destroy(&E);
  /* Defaults: beta fills a 128-byte line with values, 32 blocks to a group. */
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_GCSB, NULL), ZS_OK);
  for (int i = 0; E && i < E->n_params; i++) {
    if (!strcmp(E->params[i].name, "beta")) CHECK(E->params[i].value == 16);
    if (!strcmp(E->params[i].name, "group_size")) CHECK(E->params[i].value == 32);
  }
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
  A = small_matrix(ZS_F32);
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CSB, NULL), ZS_OK);
  for (int i = 0; E && i < E->n_params; i++)
    if (!strcmp(E->params[i].name, "beta")) CHECK(E->params[i].value == 32);
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
  /* 8-byte values: 32 when blocks of 16 hold under 4 nonzeros on average and blocks of 32 at
   * least 4 (a 1 %-dense random matrix: ~2.6 and ~10), else 16; an explicit beta wins. */
  A = random_matrix(ZS_F64, 2048, 2048, 41943, 7);
  CHECK(default_beta(A, ZS_FORMAT_GCSB, NULL) == 32);
  CHECK(default_beta(A, ZS_FORMAT_CSB, NULL) == 32);
  CHECK(default_beta(A, ZS_FORMAT_GCSB, "beta=16") == 16);
  zs_matrix_destroy(&A);
  A = random_matrix(ZS_F32, 2048, 2048, 41943, 7);
  CHECK(default_beta(A, ZS_FORMAT_GCSB, NULL) == 32);
  zs_matrix_destroy(&A);
  A = random_matrix(ZS_F64, 512, 512, 13107, 8); /* 5 %: ~12 per block of 16 */
  CHECK(default_beta(A, ZS_FORMAT_GCSB, NULL) == 16);
  zs_matrix_destroy(&A);
  A = random_matrix(ZS_F64, 4096, 4096, 4096, 9); /* ~1 per block at 16 and at 32 */
  CHECK(default_beta(A, ZS_FORMAT_GCSB, NULL) == 16);
  zs_matrix_destroy(&A);
  A = small_matrix(ZS_F32);
  /* Options are checked. */
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CSB, "beta=12"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "power of two") != NULL);
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CSB, "group=4"), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_GCSB, "beta=65536"), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_GCSB, "group=0"), ZS_ERR_INVALID_ARGUMENT);
  zs_matrix_destroy(&A);
}

/* ---- generated matrices: edges of the blocking ---- */
static void generated_cases(void) {
  for (int k = 0; k < 2; k++) {
    const zs_type t = k ? ZS_F64 : ZS_F32;
    zs_matrix *A = random_matrix(t, 300, 200, 4000, 11);
    roundtrip_all("random-300x200", A);
    zs_matrix_destroy(&A);
    A = random_matrix(t, 37, 1001, 500, 12); /* dims not multiples of beta */
    roundtrip_all("random-37x1001", A);
    zs_matrix_destroy(&A);
    /* Empty rows and columns: entries only in rows 3 mod 7 and even columns. */
    int64_t r[600], c[600];
    double v[600];
    uint64_t seed = 5;
    for (int i = 0; i < 600; i++)
      r[i] = 3 + 7 * (int64_t)(zs_test_lcg(&seed, 17) % 60),
      c[i] = 2 * (int64_t)(zs_test_lcg(&seed, 17) % 150), v[i] = i + 1;
    A = from_triplets(t, 430, 333, 600, r, c, v);
    roundtrip_all("empty-rows-cols", A);
    zs_matrix_destroy(&A);
    /* One dense 32 x 32 block, at an offset that straddles blocks for small beta. */
    int64_t dr[1024], dc[1024];
    double dv[1024];
    for (int i = 0; i < 1024; i++) dr[i] = 40 + i / 32, dc[i] = 64 + i % 32, dv[i] = i - 500;
    A = from_triplets(t, 100, 100, 1024, dr, dc, dv);
    roundtrip_all("dense-block", A);
    zs_matrix_destroy(&A);
    /* An explicit zero in a block's last Morton position (local (1,1) of a 2 x 2 block) next
     * to a larger block: padding repeats that index, and the zero must still come back. */
    static const int64_t zr[] = {0, 0, 1, 1, 3}, zc[] = {0, 1, 0, 1, 3};
    static const double zv[] = {1, 2, 3, 4, 0.0};
    A = from_triplets(t, 4, 4, 5, zr, zc, zv);
    roundtrip_all("corner-zero", A);
    zs_matrix_destroy(&A);
    A = from_triplets(t, 0, 9, 0, NULL, NULL, NULL);
    roundtrip_all("0x9", A);
    zs_matrix_destroy(&A);
    A = from_triplets(t, 17, 5, 0, NULL, NULL, NULL);
    roundtrip_all("17x5-empty", A);
    zs_matrix_destroy(&A);
    A = from_triplets(t, 1, 1, 1, (const int64_t[]){0}, (const int64_t[]){0}, (const double[]){2});
    roundtrip_all("1x1", A);
    zs_matrix_destroy(&A);
    if ((A = zs_test_generate("stencil2d:n=40", t))) roundtrip_all("stencil2d", A);
    zs_matrix_destroy(&A);
  }
}

/* ---- every matrix of the shared collection, both value types ---- */
static void shared_cases(const char *dir) {
  char path[4096], line[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  if (!f) return;
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    char *fields[12];
    const int nf = zst_manifest_fields(line, fields);
    if (nf < 10 || !strcmp(fields[0], "file") || !strcmp(fields[9], "complex")) continue;
    snprintf(path, sizeof path, "%s/%s", dir, fields[0]);
    for (int k = 0; k < 2; k++) {
      zs_matrix *A = NULL;
      CHECK_STATUS(zs_matrix_read(&A, path, k ? ZS_F64 : ZS_F32, 0, NULL, 0), ZS_OK);
      if (!A) continue;
      roundtrip(fields[0], A, ZS_FORMAT_CSB, NULL);
      roundtrip(fields[0], A, ZS_FORMAT_GCSB, NULL);
      roundtrip(fields[0], A, ZS_FORMAT_GCSB, "beta=512,group=7");
      zs_matrix_destroy(&A);
    }
    n++;
  }
  fclose(f);
  CHECK(n >= 2);
  printf("%d shared matrices round-tripped\n", n);
}

/* ---- corrupted blobs: each mutation of a valid encoding is refused, naming what broke ---- */
typedef void (*mutate_fn)(zs_encoded *E);

static void *arr(zs_encoded *E, const char *name) {
  const zsi_array *a = zsi_encoded_array(E, name);
  return a ? a->data : NULL;
}

static void m_beta_odd(zs_encoded *E) { zs_test_set_param(E, "beta", 12); }
static void m_beta_big(zs_encoded *E) { zs_test_set_param(E, "beta", 1 << 20); }
static void m_no_beta(zs_encoded *E) { strcpy(E->params[0].name, "bet"); }
static void m_group0(zs_encoded *E) { zs_test_set_param(E, "group_size", 0); }
static void m_idx_range(zs_encoded *E) { ((uint16_t *)arr(E, "local_idx"))[0] = 0xffff; }
static void m_idx_swap(zs_encoded *E) {
  uint16_t *li = arr(E, "local_idx");
  const uint16_t t = li[0];
  li[0] = li[1], li[1] = t;
}
static void m_bp0(zs_encoded *E) { ((int64_t *)arr(E, "block_ptr"))[0] = 1; }
static void m_bp_order(zs_encoded *E) { ((int64_t *)arr(E, "block_ptr"))[1] = 9; }
static void m_bcol_order(zs_encoded *E) { ((int32_t *)arr(E, "block_col"))[1] = 0; }
static void m_bcol_range(zs_encoded *E) { ((int32_t *)arr(E, "block_col"))[1] = 2; }
static void m_boff(zs_encoded *E) { ((int64_t *)arr(E, "block_offset"))[2] = 3; }
static void m_boff_end(zs_encoded *E) { ((int64_t *)arr(E, "block_offset"))[4] = 7; }
static void m_drop_array(zs_encoded *E) { strcpy(E->arrays[1].name, "local_idy"); }
static void m_elem_size(zs_encoded *E) {
  zsi_array *a = (zsi_array *)zsi_encoded_array(E, "local_idx");
  a->elem_size = 4, a->count /= 2;
}
static void m_go0(zs_encoded *E) { ((int64_t *)arr(E, "group_offset"))[0] = 2; }
static void m_go_mult(zs_encoded *E) { ((int64_t *)arr(E, "group_offset"))[1] = 5; }
static void m_bidx_range(zs_encoded *E) { ((uint32_t *)arr(E, "block_index"))[0] = 4; }
static void m_bidx_order(zs_encoded *E) { /* swap the two 3-element blocks */
  uint32_t *bi = arr(E, "block_index");
  const uint32_t t = bi[0];
  bi[0] = bi[1], bi[1] = t;
}
static void m_bidx_dup(zs_encoded *E) { ((uint32_t *)arr(E, "block_index"))[3] = 0; }
static void m_pad_value(zs_encoded *E) { ((double *)arr(E, "values"))[6] = 1e-300; }
static void m_pad_negzero(zs_encoded *E) { ((double *)arr(E, "values"))[6] = -0.0; }
static void m_pad_idx(zs_encoded *E) { ((uint16_t *)arr(E, "local_idx"))[6] = 2; }
static void m_nnz(zs_encoded *E) { E->nnz = 7; }

static void corrupt_case(const char *opts, zs_format f, mutate_fn m, const char *needle) {
  zs_matrix *A = small_matrix(ZS_F64);
  zs_encoded *E = NULL;
  CHECK_STATUS(zs_encode(&E, A, f, opts), ZS_OK);
  if (!E) return;
  m(E);
  const zs_status s = zsi_format_lookup(f)->validate(E);
  if (s != ZS_ERR_CORRUPT || !strstr(zs_last_error(), needle)) {
    fprintf(stderr, "%s:%s mutation (expect '%s'): %s: %s\n", zs_format_name(f), opts, needle,
            zs_status_name(s), zs_last_error());
    check_failures++;
  }
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
}

static void corrupt_cases(void) {
  const zs_format C = ZS_FORMAT_CSB, G = ZS_FORMAT_GCSB;
  corrupt_case("beta=2", C, m_beta_odd, "beta");
  corrupt_case("beta=2", C, m_beta_big, "beta");
  corrupt_case("beta=2", C, m_no_beta, "beta");
  corrupt_case("beta=2", C, m_idx_range, "local_idx");
  corrupt_case("beta=2", C, m_idx_swap, "Morton");
  corrupt_case("beta=2", C, m_bp0, "block_ptr");
  corrupt_case("beta=2", C, m_bp_order, "block_ptr");
  corrupt_case("beta=2", C, m_bcol_order, "block_col");
  corrupt_case("beta=2", C, m_bcol_range, "block_col");
  corrupt_case("beta=2", C, m_boff, "block_offset");
  corrupt_case("beta=2", C, m_boff_end, "block_offset");
  corrupt_case("beta=2", C, m_drop_array, "local_idx");
  corrupt_case("beta=2", C, m_elem_size, "local_idx");
  corrupt_case("beta=2", C, m_nnz, "values");
  corrupt_case("beta=2,group=4", G, m_beta_odd, "beta");
  corrupt_case("beta=2,group=4", G, m_group0, "group_size");
  corrupt_case("beta=2,group=4", G, m_idx_range, "local_idx");
  corrupt_case("beta=2,group=4", G, m_elem_size, "local_idx");
  corrupt_case("beta=2,group=4", G, m_go0, "group_offset");
  corrupt_case("beta=2,group=2", G, m_go_mult, "group_offset");
  corrupt_case("beta=2,group=4", G, m_bidx_range, "block_index");
  corrupt_case("beta=2,group=4", G, m_bidx_order, "block_index");
  corrupt_case("beta=2,group=4", G, m_bidx_dup, "block_index");
  corrupt_case("beta=2,group=4", G, m_pad_value, "padding");
  corrupt_case("beta=2,group=4", G, m_pad_negzero, "padding");
  corrupt_case("beta=2,group=4", G, m_pad_idx, "");
  corrupt_case("beta=2,group=4", G, m_nnz, "nnz");
  /* An index inside its block but outside the matrix: 3 x 3 with beta = 2 has a half block. */
  zs_matrix *A = from_triplets(ZS_F64, 3, 3, 1, (const int64_t[]){2}, (const int64_t[]){2},
                               (const double[]){1});
  zs_encoded *E = NULL;
  CHECK_STATUS(zs_encode(&E, A, C, "beta=2"), ZS_OK);
  if (E) {
    ((uint16_t *)arr(E, "local_idx"))[0] = 3; /* local (1,1): row 3 of a 3-row matrix */
    CHECK_STATUS(zsi_format_lookup(C)->validate(E), ZS_ERR_CORRUPT);
    CHECK(strstr(zs_last_error(), "outside") != NULL);
  }
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
}

/* ---- memory against CSR: the bound on the matrices GCSB is made for ---- */
static double stat_value;
static const char *stat_wanted;
static void grab(void *ctx, const char *name, double value) {
  (void)ctx;
  if (!strcmp(name, stat_wanted)) stat_value = value;
}
static double stat(const zs_encoded *E, const char *name) {
  stat_wanted = name, stat_value = -1;
  zs_encoded_stats(E, grab, NULL);
  return stat_value;
}

static void memory_cases(void) {
  static const char *const specs[] = {"stencil2d:n=200", "stencil3d:n=24,points=27",
                                      "banded:rows=20000,width=64,per_row=20",
                                      "erdos_renyi:rows=2048,p=0.05"};
  for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
    for (int k = 0; k < 2; k++) {
      zs_matrix *A = NULL;
      CHECK_STATUS(zs_matrix_generate(&A, specs[i], k ? ZS_F64 : ZS_F32, 0), ZS_OK);
      if (!A) continue;
      zs_encoded *E = NULL;
      CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_GCSB, NULL), ZS_OK);
      if (E) {
        const double ratio = stat(E, "bytes_vs_csr"), pad = stat(E, "padding_overhead");
        const zsi_array *v = zsi_encoded_array(E, "values");
        CHECK(stat(E, "padding_slots") == (double)v->count - (double)E->nnz);
        const double bytes = (double)zs_encoded_bytes(E);
        CHECK(ratio > 0 && fabs(bytes - ratio * stat(E, "csr_bytes")) <= 1e-9 * bytes);
        printf("gcsb %-40s %s: %.3f x CSR bytes, padding %.2f %%\n", specs[i], k ? "f64" : "f32",
               ratio, 100 * pad);
        if (ratio > 1.0) {
          fprintf(stderr, "gcsb %s: %.3f x CSR bytes\n", specs[i], ratio);
          check_failures++;
        }
      }
      zs_encoded_destroy(&E);
      zs_matrix_destroy(&A);
    }
}

/* ---- golden files: the layout is frozen ---- */
static const char *const golden_names[] = {"csb_4x4_beta2_f64.zsm", "gcsb_4x4_beta2_group4_f32.zsm",
                                           "gcsb_37x1001_beta512_group3_f64.zsm"};
static zs_encoded *golden_encoded(int which) {
  zs_matrix *A = which == 0   ? small_matrix(ZS_F64)
                 : which == 1 ? small_matrix(ZS_F32)
                              : random_matrix(ZS_F64, 37, 1001, 60, 12);
  zs_encoded *E = NULL;
  static const char *const opts[] = {"beta=2", "beta=2,group=4", "beta=512,group=3"};
  zs_status s = zs_encode(&E, A, which == 0 ? ZS_FORMAT_CSB : ZS_FORMAT_GCSB, opts[which]);
  zs_matrix_destroy(&A);
  return s == ZS_OK ? E : NULL;
}

static void golden_cases(const char *dir, int write) {
  for (int w = 0; w < 3; w++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, golden_names[w]);
    zs_encoded *E = golden_encoded(w);
    CHECK(E != NULL);
    if (!E) continue;
    if (write) {
      CHECK_STATUS(zs_encoded_save(E, path), ZS_OK);
      zs_encoded_destroy(&E);
      continue;
    }
    /* Loading validates; decoding gives the matrix the encoder was given. */
    zs_encoded *L = NULL;
    zs_matrix *A = NULL, *B = NULL;
    CHECK_STATUS(zs_encoded_load(&L, path), ZS_OK);
    CHECK_STATUS(zs_decode(&A, E), ZS_OK);
    if (L) CHECK_STATUS(zs_decode(&B, L), ZS_OK);
    CHECK(A && B && zs_test_same_matrix(A, B));
    /* Today's encoder writes the same bytes. */
    if (!zs_test_saves_as(E, path, "csb-golden", (size_t)w)) {
      fprintf(stderr, "golden %s: today's encoding differs from the frozen file\n", path);
      check_failures++;
    }
    zs_matrix_destroy(&A), zs_matrix_destroy(&B);
    zs_encoded_destroy(&L), zs_encoded_destroy(&E);
  }
}

/* ---- the cpu kernels give the same bits for every thread count ----
 * Both ops of CSB and GCSB, f32 and f64, with 1, 2, 3 and 5 threads, on a matrix of small blocks
 * and many nonzeros per column (its SpMVT walks block rows into per-chunk buffers) and on one of
 * dense blocks (block columns); the products are also compared with a double reference. So is
 * BiCG's pair on an operator with transpose=atomic (one sweep by chunks of block rows): its z,
 * and its y against the SpMV's bits. */
static void upload_from(zs_vector *v, zs_type t, const double *h, int64_t n, int *ok) {
  void *b = malloc((size_t)(n ? n : 1) * 8);
  for (int64_t i = 0; b && i < n; i++) {
    if (t == ZS_F64)
      ((double *)b)[i] = h[i];
    else
      ((float *)b)[i] = (float)h[i];
  }
  *ok = *ok && b && zs_vector_upload(v, b) == ZS_OK;
  free(b);
}

static void download_to(zs_vector *v, zs_type t, int64_t n, double *out, int *ok) {
  void *b = malloc((size_t)(n ? n : 1) * 8);
  *ok = *ok && b && zs_vector_download(v, b) == ZS_OK;
  for (int64_t i = 0; *ok && i < n; i++) out[i] = zs_test_element(b, t, i);
  free(b);
}

/* which: ZS_OP_N or ZS_OP_T into out; pair_y non-NULL: zs_spmv_pair with x = w = hx instead,
 * z (Aᵀ hx) into out and y (A hx) into pair_y, on the cpu backend of ctx_of[threads]: a context
 * made with that many threads. */
static int cpu_product(zs_context *const *ctx_of, const zs_encoded *E, int threads, zs_op which,
                       const double *hx, double *out, double *pair_y) {
  zs_context *ctx = ctx_of[threads];
  zs_operator *op = NULL;
  zs_vector *x = NULL, *y = NULL, *w = NULL, *z = NULL;
  const zs_type t = E->type;
  const int trans = which == ZS_OP_T && !pair_y;
  const int64_t nx = trans ? E->rows : E->cols, ny = trans ? E->cols : E->rows;
  int ok = zs_operator_create(&op, ctx, E, "cpu", pair_y ? "transpose=atomic" : NULL) == ZS_OK &&
           zs_vector_create(&x, ctx, "cpu", t, nx) == ZS_OK &&
           zs_vector_create(&y, ctx, "cpu", t, ny) == ZS_OK;
  upload_from(x, t, hx, nx, &ok);
  if (pair_y) {
    ok = ok && zs_vector_create(&w, ctx, "cpu", t, E->rows) == ZS_OK &&
         zs_vector_create(&z, ctx, "cpu", t, E->cols) == ZS_OK;
    upload_from(w, t, hx, E->rows, &ok);
    ok = ok && zs_spmv_pair(op, 1.0, x, 0.0, y, 1.0, w, 0.0, z) == ZS_OK;
    download_to(z, t, E->cols, out, &ok);
    download_to(y, t, E->rows, pair_y, &ok);
  } else {
    ok = ok && zs_spmv(op, which, 1.0, x, 0.0, y) == ZS_OK;
    download_to(y, t, ny, out, &ok);
  }
  if (!ok) fprintf(stderr, "cpu product: %s\n", zs_last_error());
  zs_vector_destroy(&x), zs_vector_destroy(&y), zs_vector_destroy(&w), zs_vector_destroy(&z);
  zs_operator_destroy(&op);
  return ok;
}

static void thread_cases(void) {
  /* 20000 x 128, 20000 nonzeros: ~8 per 32 x 32 block (beta 32 in both types), 156 per column. */
  static const struct { int64_t rows, cols, nnz; } shapes[] = {{20000, 128, 20000}, {600, 600, 0}};
  /* One context per thread count: a context's cpu backend keeps the count it was made with. */
  enum { MAX_THREADS = 5 };
  zs_context *ctx_of[MAX_THREADS + 1] = {NULL};
  const char *env = getenv("ZS_NUM_THREADS");
  char *saved = env ? strdup(env) : NULL;
  int have_all = 1;
  for (int t = 1; t <= MAX_THREADS; t++) {
    char n[8];
    snprintf(n, sizeof n, "%d", t);
    setenv("ZS_NUM_THREADS", n, 1);
    CHECK_STATUS(zs_context_create(&ctx_of[t]), ZS_OK);
    have_all &= ctx_of[t] != NULL;
  }
  if (saved)
    setenv("ZS_NUM_THREADS", saved, 1);
  else
    unsetenv("ZS_NUM_THREADS");
  free(saved);
  for (size_t m = 0; have_all && m < 2; m++)
    for (int k = 0; k < 2; k++) {
      const zs_type t = k ? ZS_F64 : ZS_F32;
      zs_matrix *A = NULL;
      if (shapes[m].nnz)
        A = random_matrix(t, shapes[m].rows, shapes[m].cols, shapes[m].nnz, 31);
      else
        CHECK_STATUS(zs_matrix_generate(&A, "banded:rows=600,width=16,per_row=12", t, 0), ZS_OK);
      if (!A) continue;
      const int64_t rows = zs_matrix_rows(A), cols = zs_matrix_cols(A);
      const int64_t *rp;
      const int32_t *ci;
      const void *va;
      zs_matrix_csr(A, &rp, &ci, &va);
      double *hx = malloc((size_t)(rows > cols ? rows : cols) * 8);
      double *ref = malloc((size_t)(rows > cols ? rows : cols) * 8);
      double *y1 = malloc((size_t)(rows > cols ? rows : cols) * 8);
      double *yt = malloc((size_t)(rows > cols ? rows : cols) * 8);
      double *yn = malloc((size_t)rows * 8), *py = malloc((size_t)rows * 8); /* SpMV, pair's y */
      uint64_t seed = 77;
      /* 47 random bits: sums round */
      for (int64_t i = 0; i < (rows > cols ? rows : cols); i++)
        hx[i] = (double)zs_test_lcg(&seed, 17) / 140737488355328.0 - 0.5;
      for (int f = 0; f < 2; f++) {
        zs_encoded *E = NULL;
        CHECK_STATUS(zs_encode(&E, A, f ? ZS_FORMAT_GCSB : ZS_FORMAT_CSB, NULL), ZS_OK);
        for (int w = 0; E && w < 3; w++) { /* N, T, the pair (w = 2, z checked as T) */
          const zs_op which = w ? ZS_OP_T : ZS_OP_N;
          double *pair_y = w == 2 ? py : NULL;
          const int64_t ny = w ? cols : rows;
          for (int64_t i = 0; i < ny; i++) ref[i] = 0;
          for (int64_t r = 0; r < rows; r++)
            for (int64_t p = rp[r]; p < rp[r + 1]; p++) {
              const double a = zs_test_element(va, t, p);
              if (w)
                ref[ci[p]] += a * (t == ZS_F64 ? hx[r] : (double)(float)hx[r]);
              else
                ref[r] += a * (t == ZS_F64 ? hx[ci[p]] : (double)(float)hx[ci[p]]);
            }
          CHECK(cpu_product(ctx_of, E, 1, which, hx, y1, pair_y));
          if (w == 0) memcpy(yn, y1, (size_t)rows * 8);
          if (w == 2 && memcmp(py, yn, (size_t)rows * 8)) {
            fprintf(stderr, "thread case %zu %s %s: the pair's y differs from the SpMV's bits\n", m,
                    f ? "gcsb" : "csb", k ? "f64" : "f32");
            CHECK(0);
          }
          const double eps = t == ZS_F64 ? 1e-12 : 1e-3;
          for (int64_t i = 0; i < ny; i++)
            if (fabs(y1[i] - ref[i]) > eps * (1 + fabs(ref[i]))) {
              fprintf(stderr, "thread case %zu %s %s op %d: y[%" PRId64 "] %g, reference %g\n", m,
                      f ? "gcsb" : "csb", k ? "f64" : "f32", w, i, y1[i], ref[i]);
              CHECK(0);
              break;
            }
          for (int threads = 2; threads <= 5; threads += threads == 3 ? 2 : 1) {
            CHECK(cpu_product(ctx_of, E, threads, which, hx, yt, pair_y));
            if (memcmp(y1, yt, (size_t)ny * 8)) {
              fprintf(stderr, "thread case %zu %s %s op %d: %d threads give other bits\n", m,
                      f ? "gcsb" : "csb", k ? "f64" : "f32", w, threads);
              CHECK(0);
            }
          }
        }
        zs_encoded_destroy(&E);
      }
      free(hx), free(ref), free(y1), free(yt), free(yn), free(py);
      zs_matrix_destroy(&A);
    }
  for (int t = 1; t <= MAX_THREADS; t++) zs_context_destroy(&ctx_of[t]);
}

int main(int argc, char **argv) {
  const char *part = argc > 1 ? argv[1] : "";
  if (!strcmp(part, "layout"))
    layout_cases();
  else if (!strcmp(part, "generated"))
    generated_cases();
  else if (!strcmp(part, "shared") && argc > 2)
    shared_cases(zst_matrices_dir(argv[2]));
  else if (!strcmp(part, "corrupt"))
    corrupt_cases();
  else if (!strcmp(part, "memory"))
    memory_cases();
  else if (!strcmp(part, "threads"))
    thread_cases();
  else if ((!strcmp(part, "golden") || !strcmp(part, "golden-write")) && argc > 2)
    golden_cases(argv[2], !strcmp(part, "golden-write"));
  else {
    fprintf(stderr,
            "usage: test-csb layout|generated|corrupt|memory|threads | shared MATRICES_DIR | "
            "golden DIR |"
            " golden-write DIR\n");
    return 2;
  }
  CHECK_DONE();
}
