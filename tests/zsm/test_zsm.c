/* test_zsm.c — .zsm container: round trips, golden files, refusal of corrupted files, and the
 * record of the encoder options. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/zs_internal.h"
#include "tests/common/le_bytes.h"
#include "tests/common/temp_name.h"
#include "tests/common/test_random.h"

static int failures;
static char dir[512]; /* scratch directory, removed at exit */

#define CHECK(cond, ...)                                                \
  do {                                                                  \
    if (!(cond)) {                                                      \
      failures++;                                                       \
      fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                     \
      fprintf(stderr, "\n");                                            \
    }                                                                   \
  } while (0)

/* ---- files and little-endian fields, written from docs/container.md, not from zsm.c ---- */

typedef struct bytes {
  unsigned char *p;
  size_t n;
} bytes;

static bytes read_all(const char *path) {
  bytes b = {NULL, 0};
  FILE *f = fopen(path, "rb");
  if (!f) return b;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  b.p = malloc(n > 0 ? (size_t)n : 1);
  b.n = fread(b.p, 1, (size_t)n, f);
  fclose(f);
  return b;
}

static void write_all(const char *path, const unsigned char *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, n, f) != n) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  fclose(f);
}

static bytes dup_bytes(bytes b) {
  bytes c = {malloc(b.n + 64), b.n};
  memcpy(c.p, b.p, b.n);
  return c;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static size_t n_params(const bytes *b) { return zs_test_rd32(b->p + 20); }
static size_t n_arrays(const bytes *b) { return zs_test_rd32(b->p + 24); }
static size_t hdr_size(const bytes *b) { return 64 + 40 * n_params(b) + 64 * n_arrays(b) + 4; }
static unsigned char *param_entry(bytes *b, size_t i) { return b->p + 64 + 40 * i; }
static unsigned char *array_entry(bytes *b, size_t i) {
  return b->p + 64 + 40 * n_params(b) + 64 * i;
}
static size_t array_index(bytes *b, const char *name) {
  for (size_t i = 0; i < n_arrays(b); i++)
    if (strcmp((const char *)array_entry(b, i), name) == 0) return i;
  fprintf(stderr, "no array %s\n", name);
  exit(1);
}
/* Recompute the header CRC after an edit, so the check behind it is reached. */
static void refix_header(bytes *b) {
  const size_t at = hdr_size(b) - 4;
  zs_test_wr32(b->p + at, (uint32_t)crc32(0L, b->p, (uInt)at));
}
static void refix_array(bytes *b, size_t i) {
  unsigned char *e = array_entry(b, i);
  zs_test_wr32(e + 36,
               (uint32_t)crc32(0L, b->p + zs_test_rd64(e + 48), (uInt)zs_test_rd64(e + 56)));
  refix_header(b);
}

/* ---- matrices ---- */

static uint64_t rng_state;

/* Random entries (duplicates possible, summed by the builder); every third row left empty. */
static zs_matrix *random_matrix(int64_t rows, int64_t cols, int64_t n, zs_type type,
                                uint64_t seed) {
  rng_state = seed;
  int64_t *ri = malloc(sizeof *ri * (size_t)(n + 1)), *ci = malloc(sizeof *ci * (size_t)(n + 1));
  double *vd = malloc(sizeof *vd * (size_t)(n + 1));
  float *vf = malloc(sizeof *vf * (size_t)(n + 1));
  int64_t k = 0;
  for (int64_t t = 0; t < n && rows > 0 && cols > 0; t++) {
    int64_t r = (int64_t)(zs_test_lcg(&rng_state, 33) % (uint64_t)rows);
    if (rows > 2 && r % 3 == 1) r = (r + 1) % rows;
    ri[k] = r, ci[k] = (int64_t)(zs_test_lcg(&rng_state, 33) % (uint64_t)cols);
    vd[k] = ((double)(zs_test_lcg(&rng_state, 33) % 2000001) - 1000000.0) / 1024.0 +
            1e-7 * (double)(zs_test_lcg(&rng_state, 33) % 977);
    vf[k] = (float)vd[k];
    k++;
  }
  zs_matrix *A = NULL;
  const zs_status s = zs_matrix_from_coo(&A, rows, cols, k, ri, ci,
                                         type == ZS_F64 ? (void *)vd : (void *)vf, type, 0);
  if (s != ZS_OK) {
    fprintf(stderr, "zs_matrix_from_coo: %s\n", zs_last_error());
    exit(1);
  }
  free(ri), free(ci), free(vd), free(vf);
  return A;
}

static zs_encoded *encode(const zs_matrix *A, zs_format f) {
  zs_encoded *E = NULL;
  if (zs_encode(&E, A, f, NULL) != ZS_OK) {
    fprintf(stderr, "zs_encode: %s\n", zs_last_error());
    exit(1);
  }
  return E;
}

/* Field by field and byte for byte; returns the number of differences. */
static int compare_encoded(const zs_encoded *a, const zs_encoded *b, const char *label) {
  const int before = failures;
  CHECK(a->format == b->format && a->type == b->type, "%s: format/type", label);
  CHECK(a->rows == b->rows && a->cols == b->cols && a->nnz == b->nnz, "%s: sizes", label);
  CHECK(a->n_arrays == b->n_arrays && a->n_params == b->n_params, "%s: counts", label);
  if (failures != before) return failures - before;
  for (int i = 0; i < a->n_arrays; i++) {
    const zsi_array *x = &a->arrays[i], *y = &b->arrays[i];
    CHECK(strcmp(x->name, y->name) == 0, "%s: array %d name %s vs %s", label, i, x->name, y->name);
    CHECK(x->elem_size == y->elem_size && x->count == y->count, "%s: array %s shape", label,
          x->name);
    if (x->elem_size == y->elem_size && x->count == y->count)
      CHECK(memcmp(x->data, y->data, x->count * x->elem_size) == 0, "%s: array %s bytes", label,
            x->name);
    CHECK((uintptr_t)y->data % 64 == 0, "%s: array %s not 64-byte aligned", label, y->name);
  }
  for (int i = 0; i < a->n_params; i++)
    CHECK(strcmp(a->params[i].name, b->params[i].name) == 0 &&
              a->params[i].value == b->params[i].value,
          "%s: param %d", label, i);
  return failures - before;
}

/* The decoded CSR of a loaded file against the matrix it was encoded from. */
static void compare_decoded(const zs_encoded *E, const zs_matrix *A, const char *label) {
  zs_matrix *B = NULL;
  CHECK(zs_decode(&B, E) == ZS_OK, "%s: decode: %s", label, zs_last_error());
  if (!B) return;
  const int64_t *rpa, *rpb;
  const int32_t *cia, *cib;
  const void *va, *vb;
  zs_matrix_csr(A, &rpa, &cia, &va);
  zs_matrix_csr(B, &rpb, &cib, &vb);
  const int64_t rows = zs_matrix_rows(A), nnz = zs_matrix_nnz(A);
  CHECK(zs_matrix_rows(B) == rows && zs_matrix_cols(B) == zs_matrix_cols(A) &&
            zs_matrix_nnz(B) == nnz && zs_matrix_type(B) == zs_matrix_type(A),
        "%s: decoded sizes", label);
  if (zs_matrix_nnz(B) == nnz && zs_matrix_rows(B) == rows) {
    CHECK(memcmp(rpa, rpb, (size_t)(rows + 1) * 8) == 0, "%s: row_ptr", label);
    CHECK(memcmp(cia, cib, (size_t)nnz * 4) == 0, "%s: col_idx", label);
    CHECK(memcmp(va, vb, (size_t)nnz * zs_type_size(zs_matrix_type(A))) == 0, "%s: values", label);
  }
  zs_matrix_destroy(&B);
}

static void path_in_dir(char *out, size_t n, const char *name) {
  snprintf(out, n, "%s/%s", dir, name);
}

/* ---- round trips ---- */

static void roundtrip(const zs_matrix *A, zs_format f, const char *label, int add_params) {
  char path[600], path2[600], tmp[640];
  path_in_dir(path, sizeof path, "rt.zsm");
  path_in_dir(path2, sizeof path2, "rt2.zsm");
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  zs_encoded *E = encode(A, f), *L = NULL, *L2 = NULL;
  if (add_params) {
    zsi_encoded_add_param(E, "min", INT64_MIN);
    zsi_encoded_add_param(E, "max", INT64_MAX);
    zsi_encoded_add_param(E, "minus_one", -1);
  }
  CHECK(zs_encoded_save(E, path) == ZS_OK, "%s: save: %s", label, zs_last_error());
  CHECK(!exists(tmp), "%s: %s left behind", label, tmp);
  CHECK(zs_encoded_load(&L, path) == ZS_OK, "%s: load: %s", label, zs_last_error());
  if (L) {
    compare_encoded(E, L, label);
    compare_decoded(L, A, label);
    /* Saving what was loaded gives the same bytes: the layout is a function of the content. */
    CHECK(zs_encoded_save(L, path2) == ZS_OK, "%s: resave: %s", label, zs_last_error());
    bytes a = read_all(path), b = read_all(path2);
    CHECK(a.n == b.n && memcmp(a.p, b.p, a.n) == 0, "%s: resaved bytes differ", label);
    CHECK(a.n == zs_test_rd64(a.p + 56), "%s: recorded length %" PRIu64 " vs %zu", label,
          zs_test_rd64(a.p + 56), a.n);
    for (size_t i = 0; i < n_arrays(&a); i++)
      CHECK(zs_test_rd64(array_entry(&a, i) + 48) % 64 == 0, "%s: array %zu offset unaligned",
            label, i);
    free(a.p), free(b.p);
    CHECK(zs_encoded_load(&L2, path2) == ZS_OK, "%s: reload", label);
  }
  zs_encoded_destroy(&E);
  zs_encoded_destroy(&L);
  zs_encoded_destroy(&L2);
}

static void test_roundtrips(void) {
  static const struct {
    int64_t rows, cols, n;
  } shapes[] = {{37, 53, 300}, {0, 0, 0},   {1, 17, 9}, {17, 1, 9},
                {5, 0, 0},     {10, 10, 0}, {1, 1, 1},  {2000, 2000, 150000}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int t = ZS_F32; t <= ZS_F64; t++) {
      zs_matrix *A =
          random_matrix(shapes[s].rows, shapes[s].cols, shapes[s].n, (zs_type)t, 1234 + s);
      for (int f = ZS_FORMAT_CSR; f <= ZS_FORMAT_COO; f++) {
        char label[128];
        snprintf(label, sizeof label, "%s %" PRId64 "x%" PRId64 " %s", zs_format_name(f),
                 shapes[s].rows, shapes[s].cols, zs_type_name((zs_type)t));
        roundtrip(A, (zs_format)f, label, (int)(s % 2));
      }
      zs_matrix_destroy(&A);
    }
}

/* ---- golden files ---- */

static zs_matrix *golden_csr_matrix(void) {
  static const int64_t r[] = {0, 0, 1, 2, 2, 4, 4}, c[] = {0, 3, 1, 0, 4, 2, 4};
  static const double v[] = {4.0, -1.5, 2.25, -3.0, 0.001, 7.75, -0.5};
  zs_matrix *A = NULL;
  zs_matrix_from_coo(&A, 5, 5, 7, r, c, v, ZS_F64, 0);
  return A;
}
static zs_matrix *golden_coo_matrix(void) {
  static const int64_t r[] = {0, 1, 1, 3}, c[] = {5, 0, 2, 3};
  static const float v[] = {1.5f, -2.0f, 0.25f, 8.0f};
  zs_matrix *A = NULL;
  zs_matrix_from_coo(&A, 4, 6, 4, r, c, v, ZS_F32, 0);
  return A;
}
/* Rows of 1, 3, 0, 2, 1, 2 entries: sigma=4 sorts the first window of four rows. */
static zs_matrix *golden_sell_matrix(void) {
  static const int64_t r[] = {0, 1, 1, 1, 3, 3, 4, 5, 5}, c[] = {2, 0, 1, 3, 0, 3, 1, 2, 3};
  static const double v[] = {1.0, 2.0, -3.0, 4.5, 0.25, -1.0, 6.0, 8.0, -0.125};
  zs_matrix *A = NULL;
  zs_matrix_from_coo(&A, 6, 4, 9, r, c, v, ZS_F64, 0);
  return A;
}
#define GOLDEN_OPTIONS "c=2,sigma=4" /* what the third golden file keeps */

static zs_encoded *golden_encoded(int which) {
  if (which == 2) {
    zs_matrix *A = golden_sell_matrix();
    zs_encoded *E = NULL;
    if (zs_encode(&E, A, ZS_FORMAT_SELL, GOLDEN_OPTIONS) != ZS_OK) {
      fprintf(stderr, "zs_encode sell: %s\n", zs_last_error());
      exit(1);
    }
    zs_matrix_destroy(&A);
    return E;
  }
  zs_matrix *A = which == 0 ? golden_csr_matrix() : golden_coo_matrix();
  zs_encoded *E = encode(A, which == 0 ? ZS_FORMAT_CSR : ZS_FORMAT_COO);
  if (which == 1) {
    zsi_encoded_add_param(E, "alpha", -5);
    zsi_encoded_add_param(E, "big", INT64_C(1) << 40);
  }
  zs_matrix_destroy(&A);
  return E;
}
#define N_GOLDEN 3
static const char *const golden_names[N_GOLDEN] = {"csr_5x5_f64.zsm", "coo_4x6_f32_params.zsm",
                                                   "sell_6x4_f64_options.zsm"};

static int write_golden(const char *out_dir) {
  for (int w = 0; w < N_GOLDEN; w++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", out_dir, golden_names[w]);
    zs_encoded *E = golden_encoded(w);
    if (zs_encoded_save(E, path) != ZS_OK) {
      fprintf(stderr, "%s\n", zs_last_error());
      return 1;
    }
    zs_encoded_destroy(&E);
    printf("wrote %s\n", path);
  }
  return 0;
}

/* Literal expectations from docs/container.md, checked on the committed bytes. */
static void check_golden_layout(bytes *b, int which) {
  /* format, value type, parameters, arrays, rows, cols, nnz */
  static const uint64_t want[N_GOLDEN][7] = {
      {1, 2, 0, 3, 5, 5, 7}, {2, 1, 2, 3, 4, 6, 4}, {8, 2, 2, 6, 6, 4, 9}};
  const uint64_t *w = want[which];
  CHECK(memcmp(b->p, "ZSPARSE\0", 8) == 0, "golden %d magic", which);
  CHECK(zs_test_rd32(b->p + 8) == 1, "golden %d version", which);
  CHECK(zs_test_rd32(b->p + 12) == w[0], "golden %d format", which);
  CHECK(zs_test_rd32(b->p + 16) == w[1], "golden %d type", which);
  CHECK(n_params(b) == w[2] && n_arrays(b) == w[3], "golden %d counts", which);
  CHECK(zs_test_rd32(b->p + 28) == 0, "golden %d reserved", which);
  CHECK(zs_test_rd64(b->p + 32) == w[4] && zs_test_rd64(b->p + 40) == w[5] &&
            zs_test_rd64(b->p + 48) == w[6],
        "golden %d sizes", which);
  CHECK(zs_test_rd64(b->p + 56) == b->n, "golden %d file length", which);
  const size_t h = hdr_size(b);
  CHECK(zs_test_rd32(b->p + h - 4) == (uint32_t)crc32(0L, b->p, (uInt)(h - 4)),
        "golden %d header CRC", which);
  uint64_t expect_off = (h + 63) / 64 * 64;
  for (size_t i = 0; i < n_arrays(b) && i < w[3]; i++) {
    const unsigned char *e = array_entry(b, i);
    CHECK(zs_test_rd64(e + 48) == expect_off, "golden %d array %zu offset %" PRIu64, which, i,
          zs_test_rd64(e + 48));
    CHECK(zs_test_rd64(e + 56) == zs_test_rd64(e + 40) * zs_test_rd32(e + 32),
          "golden %d array %zu length", which, i);
    CHECK(zs_test_rd32(e + 36) ==
              (uint32_t)crc32(0L, b->p + zs_test_rd64(e + 48), (uInt)zs_test_rd64(e + 56)),
          "golden %d array %zu CRC", which, i);
    expect_off = (zs_test_rd64(e + 48) + zs_test_rd64(e + 56) + 63) / 64 * 64;
  }
  if (which == 0) {
    static const char *const names[] = {"row_ptr", "col_idx", "values"};
    static const uint64_t row_ptr[] = {0, 2, 3, 5, 5, 7};
    static const uint32_t col_idx[] = {0, 3, 1, 0, 4, 2, 4};
    for (int i = 0; i < 3; i++)
      CHECK(strcmp((const char *)array_entry(b, (size_t)i), names[i]) == 0, "golden csr name");
    const unsigned char *rp = b->p + zs_test_rd64(array_entry(b, 0) + 48);
    const unsigned char *ci = b->p + zs_test_rd64(array_entry(b, 1) + 48);
    const unsigned char *v = b->p + zs_test_rd64(array_entry(b, 2) + 48);
    for (int i = 0; i < 6; i++)
      CHECK(zs_test_rd64(rp + 8 * i) == row_ptr[i], "golden row_ptr[%d]", i);
    for (int i = 0; i < 7; i++)
      CHECK(zs_test_rd32(ci + 4 * i) == col_idx[i], "golden col_idx[%d]", i);
    /* 4.0 = 0x4010000000000000, -0.5 = 0xBFE0000000000000 as little-endian IEEE doubles. */
    CHECK(zs_test_rd64(v) == UINT64_C(0x4010000000000000), "golden values[0]");
    CHECK(zs_test_rd64(v + 48) == UINT64_C(0xBFE0000000000000), "golden values[6]");
  } else if (which == 2) {
    /* The options record, last: u32 record version 1, u32 text length, the text. */
    const unsigned char *e = array_entry(b, n_arrays(b) - 1);
    const size_t n = strlen(GOLDEN_OPTIONS);
    CHECK(strcmp((const char *)e, "meta.options") == 0 && zs_test_rd32(e + 32) == 1 &&
              zs_test_rd64(e + 40) == 8 + n,
          "golden options entry");
    const unsigned char *r = b->p + zs_test_rd64(e + 48);
    CHECK(zs_test_rd32(r) == 1 && zs_test_rd32(r + 4) == n && memcmp(r + 8, GOLDEN_OPTIONS, n) == 0,
          "golden options record");
    CHECK(strcmp((const char *)param_entry(b, 0), "c") == 0 &&
              zs_test_rd64(param_entry(b, 0) + 32) == 2 &&
              strcmp((const char *)param_entry(b, 1), "sigma") == 0 &&
              zs_test_rd64(param_entry(b, 1) + 32) == 4,
          "golden sell parameters");
  } else {
    CHECK(strcmp((const char *)param_entry(b, 0), "alpha") == 0 &&
              (int64_t)zs_test_rd64(param_entry(b, 0) + 32) == -5,
          "golden param alpha");
    CHECK(strcmp((const char *)param_entry(b, 1), "big") == 0 &&
              zs_test_rd64(param_entry(b, 1) + 32) == UINT64_C(1) << 40,
          "golden param big");
    const unsigned char *ri = b->p + zs_test_rd64(array_entry(b, array_index(b, "row_idx")) + 48);
    const unsigned char *v = b->p + zs_test_rd64(array_entry(b, array_index(b, "values")) + 48);
    CHECK(zs_test_rd32(ri) == 0 && zs_test_rd32(ri + 4) == 1 && zs_test_rd32(ri + 8) == 1 &&
              zs_test_rd32(ri + 12) == 3,
          "golden row_idx");
    /* 1.5f = 0x3FC00000, 8.0f = 0x41000000. */
    CHECK(zs_test_rd32(v) == 0x3FC00000u && zs_test_rd32(v + 12) == 0x41000000u,
          "golden f32 values");
  }
}

static void test_golden(const char *golden_dir) {
  for (int w = 0; w < N_GOLDEN; w++) {
    char path[1024], fresh[600];
    snprintf(path, sizeof path, "%s/%s", golden_dir, golden_names[w]);
    path_in_dir(fresh, sizeof fresh, golden_names[w]);
    bytes g = read_all(path);
    CHECK(g.p != NULL && g.n >= 64, "cannot read golden %s", path);
    if (!g.p || g.n < 64) continue;
    check_golden_layout(&g, w);
    zs_encoded *E = golden_encoded(w), *L = NULL;
    CHECK(zs_encoded_load(&L, path) == ZS_OK, "load golden %s: %s", path, zs_last_error());
    if (L) compare_encoded(E, L, path);
    /* Files without the record load with no options: the transpose gets the defaults. */
    if (L)
      CHECK(w == 2 ? L->options && strcmp(L->options, GOLDEN_OPTIONS) == 0 : L->options == NULL,
            "golden %s: options '%s'", path, L->options ? L->options : "(none)");
    CHECK(zs_encoded_save(E, fresh) == ZS_OK, "save %s", fresh);
    bytes s = read_all(fresh);
    CHECK(s.n == g.n && memcmp(s.p, g.p, g.n) == 0,
          "saving %s again does not reproduce the golden file byte for byte", golden_names[w]);
    free(g.p), free(s.p);
    zs_encoded_destroy(&E);
    zs_encoded_destroy(&L);
  }
}

/* ---- corruption ---- */

static const char *case_path(void) {
  static char path[600];
  path_in_dir(path, sizeof path, "case.zsm");
  return path;
}

/* Load case_path(), which must be refused; returns 1 if refused with a message naming the file
 * and containing `want` (when not NULL). `quiet` skips reporting (used by the sweeps). */
static int refused(const char *want, const char *label, int quiet) {
  const char *path = case_path();
  zs_encoded *E = NULL;
  const zs_status s = zs_encoded_load(&E, path);
  const char *msg = zs_last_error();
  const int ok = (s == ZS_ERR_CORRUPT || s == ZS_ERR_IO) && E == NULL && strstr(msg, path) &&
                 (!want || strstr(msg, want));
  if (!ok && !quiet)
    CHECK(ok, "%s: status %s, message '%s' (wanted '%s')", label, zs_status_name(s), msg,
          want ? want : "");
  zs_encoded_destroy(&E);
  return ok;
}

static int load_refused(const unsigned char *p, size_t n, const char *want, const char *label,
                        int quiet) {
  write_all(case_path(), p, n);
  return refused(want, label, quiet);
}

/* Patch one byte of case_path() in place: the sweeps load thousands of variants, and
 * rewriting the whole file each time costs far more than the load. */
static void patch(int fd, size_t at, unsigned char v) {
  if (pwrite(fd, &v, 1, (off_t)at) != 1) {
    fprintf(stderr, "pwrite: %s\n", strerror(errno));
    exit(1);
  }
}

static bytes saved_bytes(zs_encoded *E) {
  const char *path = case_path();
  if (zs_encoded_save(E, path) != ZS_OK) {
    fprintf(stderr, "save: %s\n", zs_last_error());
    exit(1);
  }
  return read_all(path);
}

static void sweep(bytes base, const char *label) {
  /* Every truncation and every single-bit flip must be refused: every byte is covered by the
   * header CRC, an array CRC, or the zero-padding rule, and CRC32 catches any 1-bit error. */
  int bad_trunc = 0, bad_flip = 0;
  write_all(case_path(), base.p, base.n);
  int fd = open(case_path(), O_RDWR);
  for (size_t cut = base.n; cut-- > 0;) {
    if (ftruncate(fd, (off_t)cut) != 0) exit(1);
    if (!refused(NULL, label, 1)) bad_trunc++;
  }
  close(fd);
  CHECK(bad_trunc == 0, "%s: %d of %zu truncations loaded", label, bad_trunc, base.n);
  bytes b = dup_bytes(base);
  b.p[b.n] = 0;
  CHECK(load_refused(b.p, b.n + 1, "file length", label, 0), "%s: extra byte", label);
  write_all(case_path(), base.p, base.n);
  fd = open(case_path(), O_RDWR);
  for (size_t i = 0; i < base.n; i++)
    for (int bit = 0; bit < 8; bit++) {
      patch(fd, i, base.p[i] ^ (unsigned char)(1u << bit));
      if (!refused(NULL, label, 1) && bad_flip++ < 5)
        fprintf(stderr, "%s: flip at byte %zu bit %d loaded\n", label, i, bit);
      patch(fd, i, base.p[i]);
    }
  close(fd);
  CHECK(bad_flip == 0, "%s: %d single-bit flips loaded", label, bad_flip);

  /* With the header CRC re-fixed, flips reach the structural checks: whatever loads must be
   * a valid matrix (decodable), nothing may crash or leak. */
  const size_t h = hdr_size(&base) - 4;
  fd = open(case_path(), O_RDWR);
  for (size_t i = 0; i < h; i++)
    for (int bit = 0; bit < 8; bit++) {
      memcpy(b.p, base.p, base.n);
      b.p[i] ^= (unsigned char)(1u << bit);
      if (hdr_size(&b) != hdr_size(&base)) continue; /* a count changed: CRC lies elsewhere */
      refix_header(&b);
      patch(fd, i, b.p[i]);
      for (size_t k = h; k < h + 4; k++) patch(fd, k, b.p[k]);
      zs_encoded *E = NULL;
      /* A flipped high bit of rows can make a valid COO file of 2^30 rows; decoding it to
       * CSR would allocate gigabytes, legitimately, so only small results are decoded. */
      if (zs_encoded_load(&E, case_path()) == ZS_OK && E->rows <= 4096) {
        zs_matrix *A = NULL;
        CHECK(zs_decode(&A, E) == ZS_OK, "%s: flip %zu.%d loaded but does not decode", label, i,
              bit);
        zs_matrix_destroy(&A);
      }
      zs_encoded_destroy(&E);
      patch(fd, i, base.p[i]);
      for (size_t k = h; k < h + 4; k++) patch(fd, k, base.p[k]);
    }
  close(fd);
  free(b.p);
}

typedef void (*edit_fn)(bytes *b);
typedef struct crafted_case {
  const char *label;
  edit_fn edit;
  const char *want; /* in the message */
} crafted_case;

static void crafted(bytes base, const char *label, edit_fn edit, const char *want) {
  bytes b = dup_bytes(base);
  edit(&b);
  char l[160];
  snprintf(l, sizeof l, "crafted: %s", label);
  load_refused(b.p, b.n, want, l, 0);
  free(b.p);
}

/* Each edit makes one field wrong and re-fixes the CRCs so that field's own check fires. */
static void e_magic(bytes *b) { b->p[0] = 'X'; }
static void e_version2(bytes *b) { zs_test_wr32(b->p + 8, 2), refix_header(b); }
static void e_version0(bytes *b) { zs_test_wr32(b->p + 8, 0), refix_header(b); }
static void e_format99(bytes *b) { zs_test_wr32(b->p + 12, 99), refix_header(b); }
/* MAT-VANS layers have their own container, never a .zsm. */
static void e_format_vans(bytes *b) { zs_test_wr32(b->p + 12, ZS_FORMAT_VANS), refix_header(b); }
static void e_format_huge(bytes *b) { zs_test_wr32(b->p + 12, 0x80000001u), refix_header(b); }
static void e_type(bytes *b) { zs_test_wr32(b->p + 16, 3), refix_header(b); }
static void e_reserved(bytes *b) { zs_test_wr32(b->p + 28, 1), refix_header(b); }
static void e_rows(bytes *b) { zs_test_wr64(b->p + 32, UINT64_C(1) << 31), refix_header(b); }
static void e_cols_neg(bytes *b) { zs_test_wr64(b->p + 40, (uint64_t)-1), refix_header(b); }
static void e_nnz(bytes *b) { zs_test_wr64(b->p + 48, (UINT64_C(1) << 62) + 1), refix_header(b); }
static void e_nparams(bytes *b) { zs_test_wr32(b->p + 20, 1000000); }
static void e_narrays(bytes *b) { zs_test_wr32(b->p + 24, 0xFFFFFFFFu); }
static void e_narrays64(bytes *b) { zs_test_wr32(b->p + 24, 64); }
static void e_length_field(bytes *b) {
  zs_test_wr64(b->p + 56, zs_test_rd64(b->p + 56) + 64), refix_header(b);
}
static void e_trailing(bytes *b) {
  memset(b->p + b->n, 0, 64);
  b->n += 64;
  zs_test_wr64(b->p + 56, b->n);
  refix_header(b);
}
static void e_header_crc(bytes *b) { b->p[hdr_size(b) - 2] ^= 0x10; }
static void e_name_unterminated(bytes *b) {
  memset(array_entry(b, 1), 'a', 32);
  refix_header(b);
}
static void e_name_nonprint(bytes *b) { array_entry(b, 1)[0] = 0x01, refix_header(b); }
static void e_name_empty(bytes *b) { memset(array_entry(b, 1), 0, 32), refix_header(b); }
static void e_name_junk(bytes *b) { array_entry(b, 1)[31] = 'x', refix_header(b); }
static void e_name_dup(bytes *b) {
  memcpy(array_entry(b, 1), array_entry(b, 0), 32);
  refix_header(b);
}
static void e_elem3(bytes *b) { zs_test_wr32(array_entry(b, 1) + 32, 3), refix_header(b); }
static void e_count_overflow(bytes *b) {
  zs_test_wr64(array_entry(b, 0) + 40, UINT64_C(1) << 62);
  refix_header(b);
}
static void e_count_huge(bytes *b) {
  unsigned char *e = array_entry(b, 2); /* consistent count and length, far beyond the file */
  zs_test_wr64(e + 40, UINT64_C(1) << 40);
  zs_test_wr64(e + 56, (UINT64_C(1) << 40) * zs_test_rd32(e + 32));
  refix_header(b);
}
static void e_length_mismatch(bytes *b) {
  zs_test_wr64(array_entry(b, 1) + 56, zs_test_rd64(array_entry(b, 1) + 56) + 4);
  refix_header(b);
}
static void e_unaligned(bytes *b) {
  zs_test_wr64(array_entry(b, 1) + 48, zs_test_rd64(array_entry(b, 1) + 48) + 8);
  refix_header(b);
}
static void e_overlap(bytes *b) {
  zs_test_wr64(array_entry(b, 1) + 48, zs_test_rd64(array_entry(b, 0) + 48));
  refix_header(b);
}
static void e_descending(bytes *b) {
  zs_test_wr64(array_entry(b, 2) + 48, zs_test_rd64(array_entry(b, 0) + 48));
  refix_header(b);
}
static void e_in_header(bytes *b) { zs_test_wr64(array_entry(b, 0) + 48, 0), refix_header(b); }
static void e_outside(bytes *b) {
  zs_test_wr64(array_entry(b, 2) + 48, (b->n + 63) / 64 * 64 + 128);
  refix_header(b);
}
static void e_offset_wrap(bytes *b) {
  zs_test_wr64(array_entry(b, 2) + 48, UINT64_MAX - 63);
  refix_header(b);
}
static void e_pad_after_header(bytes *b) { b->p[hdr_size(b)] = 0x01; }
static void e_pad_between(bytes *b) {
  const unsigned char *e = array_entry(b, 0);
  b->p[zs_test_rd64(e + 48) + zs_test_rd64(e + 56)] =
      0x80; /* row_ptr (48 bytes) ends inside a 64-byte line */
}
static void e_data_flip(bytes *b) { b->p[zs_test_rd64(array_entry(b, 1) + 48) + 2] ^= 0x04; }
static void e_csr_col_range(bytes *b) {
  const size_t i = array_index(b, "col_idx");
  zs_test_wr32(b->p + zs_test_rd64(array_entry(b, i) + 48), 5); /* cols is 5 */
  refix_array(b, i);
}
static void e_csr_row_ptr(bytes *b) {
  const size_t i = array_index(b, "row_ptr");
  zs_test_wr64(b->p + zs_test_rd64(array_entry(b, i) + 48) + 8, 9);
  refix_array(b, i);
}
static void e_csr_missing(bytes *b) {
  memcpy(array_entry(b, array_index(b, "values")), "valuez", 6);
  refix_header(b);
}
static void e_csr_nnz(bytes *b) { zs_test_wr64(b->p + 48, 6), refix_header(b); }
static void e_param_dup(bytes *b) {
  memcpy(param_entry(b, 1), param_entry(b, 0), 32);
  refix_header(b);
}
static void e_param_name(bytes *b) { param_entry(b, 0)[1] = ' ', refix_header(b); }
static void e_coo_row_range(bytes *b) {
  const size_t i = array_index(b, "row_idx");
  zs_test_wr32(b->p + zs_test_rd64(array_entry(b, i) + 48), 4); /* rows is 4 */
  refix_array(b, i);
}

static void test_corruption(void) {
  zs_encoded *csr = golden_encoded(0), *coo = golden_encoded(1);
  bytes a = saved_bytes(csr), c = saved_bytes(coo);
  sweep(a, "csr 5x5");
  sweep(c, "coo 4x6 params");

  static const crafted_case cases[] = {
      {"wrong magic", e_magic, "magic at offset 0"},
      {"newer version", e_version2, "newer"},
      {"version 0", e_version0, "version at offset 8"},
      {"unknown format id", e_format99, "format id at offset 12"},
      {"format not built in", e_format_vans, "format id"},
      {"format id above INT32_MAX", e_format_huge, "format id"},
      {"value type", e_type, "value type at offset 16"},
      {"reserved", e_reserved, "reserved"},
      {"rows 2^31", e_rows, "rows at offset 32"},
      {"negative cols", e_cols_neg, "cols at offset 40"},
      {"nnz 2^62+1", e_nnz, "nnz at offset 48"},
      {"huge parameter count", e_nparams, "parameter count at offset 20"},
      {"huge array count", e_narrays, "array count at offset 24"},
      {"64 arrays in a small file", e_narrays64, "header bytes"},
      {"recorded length", e_length_field, "file length at offset 56"},
      {"trailing bytes", e_trailing, "follow the last array"},
      {"header CRC", e_header_crc, "header CRC"},
      {"unterminated name", e_name_unterminated, "NUL-terminated"},
      {"non-printable name", e_name_nonprint, "non-printable"},
      {"empty name", e_name_empty, "empty"},
      {"junk after name", e_name_junk, "after its terminating NUL"},
      {"duplicate array name", e_name_dup, "appears twice"},
      {"element size 3", e_elem3, "element size 3"},
      {"count overflow", e_count_overflow, "overflow"},
      {"huge count", e_count_huge, "outside"},
      {"byte length", e_length_mismatch, "byte length"},
      {"unaligned offset", e_unaligned, "multiple of 64"},
      {"overlap", e_overlap, "overlaps array 'row_ptr'"},
      {"descending", e_descending, "ascend"},
      {"offset inside header", e_in_header, "inside the"},
      {"offset outside file", e_outside, "outside"},
      {"offset wraps", e_offset_wrap, "outside"},
      {"padding after header", e_pad_after_header, "padding before array 'row_ptr'"},
      {"padding between arrays", e_pad_between, "padding before array 'col_idx'"},
      {"array data", e_data_flip, "array 'col_idx' at offset"},
      {"csr col_idx out of range", e_csr_col_range, "col_idx"},
      {"csr row_ptr out of order", e_csr_row_ptr, "row_ptr"},
      {"csr values missing", e_csr_missing, "array 'values' is missing"},
      {"csr nnz disagrees", e_csr_nnz, "col_idx"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    crafted(a, cases[i].label, cases[i].edit, cases[i].want);
  crafted(a, "CRC mismatch message", e_data_flip, "CRC mismatch (stored 0x");
  crafted(c, "duplicate parameter", e_param_dup, "parameter 'alpha'");
  crafted(c, "parameter name with space", e_param_name, "parameter 0 at offset 64");
  crafted(c, "coo row out of range", e_coo_row_range, "row_idx");
  crafted(c, "coo: header CRC", e_header_crc, "header CRC");

  /* Short and odd files. */
  load_refused(a.p, 0, "fixed header", "empty file", 0);
  load_refused((const unsigned char *)"ZSPARSE", 8, "needs 64", "8-byte file", 0);
  zs_encoded *E = NULL;
  char missing[600];
  path_in_dir(missing, sizeof missing, "does-not-exist.zsm");
  CHECK(zs_encoded_load(&E, missing) == ZS_ERR_IO && strstr(zs_last_error(), missing),
        "missing file: %s", zs_last_error());
  CHECK(zs_encoded_load(&E, dir) == ZS_ERR_IO && strstr(zs_last_error(), dir), "directory: %s",
        zs_last_error());
  char fifo[600];
  path_in_dir(fifo, sizeof fifo, "fifo.zsm");
  if (mkfifo(fifo, 0600) == 0) {
    CHECK(zs_encoded_load(&E, fifo) == ZS_ERR_IO && strstr(zs_last_error(), "regular"), "fifo: %s",
          zs_last_error());
    remove(fifo);
  }
  CHECK(E == NULL, "out set on failure");
  free(a.p), free(c.p);
  zs_encoded_destroy(&csr);
  zs_encoded_destroy(&coo);
}

/* ---- the record of the encoder options ---- */

static size_t options_record(bytes *b) { return array_index(b, "meta.options"); }
static unsigned char *options_bytes(bytes *b) {
  return b->p + zs_test_rd64(array_entry(b, options_record(b)) + 48);
}
/* Edit the record's bytes in place (same length) and re-fix the CRCs. */
static void e_opt_version0(bytes *b) {
  zs_test_wr32(options_bytes(b), 0), refix_array(b, options_record(b));
}
static void e_opt_length(bytes *b) {
  zs_test_wr32(options_bytes(b) + 4, 10), refix_array(b, options_record(b));
}
static void e_opt_space(bytes *b) { options_bytes(b)[9] = ' ', refix_array(b, options_record(b)); }
static void e_opt_no_equals(bytes *b) {
  options_bytes(b)[9] = 'x', refix_array(b, options_record(b));
}
static void e_opt_empty_value(bytes *b) {
  memcpy(options_bytes(b) + 8, "c=,sigma=44", 11), refix_array(b, options_record(b));
}
static void e_opt_dup(bytes *b) {
  memcpy(options_bytes(b) + 8, "c=2,c=44444", 11), refix_array(b, options_record(b));
}
static void e_opt_bad_key(bytes *b) {
  options_bytes(b)[8] = '-', refix_array(b, options_record(b));
}
/* A record that is not 1-byte elements of at least 8 bytes, written as a plain array (which
 * the writer does not look into) and refused on load. */
static void odd_record(uint32_t elem_size, uint64_t count, const char *label) {
  zs_encoded *F = golden_encoded(2);
  free(F->options);
  F->options = NULL;
  unsigned char *d = NULL;
  zsi_encoded_add_array(F, "meta.options", elem_size, count, (void **)&d);
  memset(d, 0, (size_t)(elem_size * count));
  d[0] = 1;
  CHECK(zs_encoded_save(F, case_path()) == ZS_OK, "%s: save: %s", label, zs_last_error());
  CHECK(refused("not at least 8 bytes", label, 0), "%s", label);
  zs_encoded_destroy(&F);
}

static void test_options(void) {
  zs_encoded *E = golden_encoded(2);
  bytes g = saved_bytes(E);
  CHECK(
      strlen(GOLDEN_OPTIONS) == 11 && zs_test_rd64(array_entry(&g, options_record(&g)) + 40) == 19,
      "the edits below assume an 11-byte text");
  /* Every byte of the record is covered: truncations and flips are refused. */
  sweep(g, "sell with options");
  static const crafted_case cases[] = {
      {"record version 0", e_opt_version0, "version 0"},
      {"text length", e_opt_length, "text length 10 does not fill the record's 19 bytes"},
      {"space in text", e_opt_space, "not printable"},
      {"entry without =", e_opt_no_equals, "not key=value"},
      {"empty value", e_opt_empty_value, "a value is empty"},
      {"key twice", e_opt_dup, "a key appears twice"},
      {"key character", e_opt_bad_key, "not key=value"},
  };
  const uint64_t at = zs_test_rd64(array_entry(&g, options_record(&g)) + 48);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    crafted(g, cases[i].label, cases[i].edit, "record 'meta.options' at offset");
    crafted(g, cases[i].label, cases[i].edit, cases[i].want);
  }
  /* The offsets point at the field: the version, the length, the bad byte of the text. */
  char where[64];
  snprintf(where, sizeof where, "at offset %" PRIu64 ":", at);
  crafted(g, "record version 0: offset", e_opt_version0, where);
  snprintf(where, sizeof where, "at offset %" PRIu64 ":", at + 4);
  crafted(g, "text length: offset", e_opt_length, where);
  snprintf(where, sizeof where, "at offset %" PRIu64 ":", at + 9);
  crafted(g, "space in text: offset", e_opt_space, where);

  odd_record(1, 4, "4-byte record");
  odd_record(2, 10, "2-byte elements");

  /* A record of a later version is skipped: the matrix loads, without options. */
  bytes b = dup_bytes(g);
  zs_test_wr32(options_bytes(&b), 2), zs_test_wr32(options_bytes(&b) + 4, 0xFFFFFFFFu);
  refix_array(&b, options_record(&b));
  write_all(case_path(), b.p, b.n);
  zs_encoded *L = NULL;
  CHECK(zs_encoded_load(&L, case_path()) == ZS_OK, "record version 2: %s", zs_last_error());
  if (L) {
    CHECK(L->options == NULL && L->n_arrays == E->n_arrays, "record version 2 kept");
    compare_encoded(E, L, "record version 2");
  }
  zs_encoded_destroy(&L);
  free(b.p);

  /* The writer refuses options a reader would refuse, and leaves no file. */
  char path[600];
  path_in_dir(path, sizeof path, "keep.zsm");
  static const char *const bad[] = {"c=2,c=2", "c=2 ", "=2", "c", "c=,", "c=2,,sigma=4"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    free(E->options);
    E->options = strdup(bad[i]);
    remove(path);
    CHECK(zs_encoded_save(E, path) == ZS_ERR_INVALID_ARGUMENT && strstr(zs_last_error(), path) &&
              strstr(zs_last_error(), "encoder options") && !exists(path),
          "save with options '%s': %s", bad[i], zs_last_error());
  }
  /* One trailing comma is what the encoders' parser accepts: kept as given. */
  free(E->options);
  E->options = strdup("c=2,sigma=4,");
  CHECK(zs_encoded_save(E, path) == ZS_OK, "trailing comma: %s", zs_last_error());
  CHECK(zs_encoded_load(&L, path) == ZS_OK && L->options && strcmp(L->options, "c=2,sigma=4,") == 0,
        "trailing comma round trip: %s", zs_last_error());
  zs_encoded_destroy(&L);
  /* Room: the options and a note are two more arrays. */
  zs_encoded *F = golden_encoded(2);
  for (int i = F->n_arrays; i < 63; i++) {
    char name[16];
    snprintf(name, sizeof name, "pad%d", i);
    zsi_encoded_add_array(F, name, 1, 1, NULL);
  }
  zsi_encoded_set_note(F, "chosen by hand");
  CHECK(zs_encoded_save(F, path) == ZS_ERR_UNSUPPORTED && strstr(zs_last_error(), "no room"),
        "63 arrays, options and a note: %s", zs_last_error());
  zs_encoded_destroy(&F);
  free(g.p);
  zs_encoded_destroy(&E);
}

/* ---- save errors ---- */

static void test_save_errors(void) {
  char path[600], tmp[640], bad[700];
  path_in_dir(path, sizeof path, "keep.zsm");
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  snprintf(bad, sizeof bad, "%s/no/such/dir/x.zsm", dir);
  zs_encoded *E = golden_encoded(0);
  CHECK(zs_encoded_save(E, bad) == ZS_ERR_IO && strstr(zs_last_error(), bad), "bad dir: %s",
        zs_last_error());
  CHECK(zs_encoded_save(E, path) == ZS_OK, "save: %s", zs_last_error());
  bytes before = read_all(path);

  /* Each refused save leaves the existing file as it was and no temporary behind. */
  zs_encoded *F = golden_encoded(0);
  zsi_encoded_add_array(F, "odd", 3, 2, NULL);
  CHECK(zs_encoded_save(F, path) == ZS_ERR_UNSUPPORTED && strstr(zs_last_error(), "'odd'"),
        "3-byte elements: %s", zs_last_error());
  zs_encoded_destroy(&F);
  F = golden_encoded(0);
  zsi_encoded_add_param(F, "has space", 1);
  CHECK(zs_encoded_save(F, path) == ZS_ERR_INVALID_ARGUMENT && strstr(zs_last_error(), path),
        "bad parameter name: %s", zs_last_error());
  zs_encoded_destroy(&F);
  F = golden_encoded(0);
  ((int32_t *)F->arrays[1].data)[0] = 99;
  CHECK(zs_encoded_save(F, path) == ZS_ERR_CORRUPT && strstr(zs_last_error(), "col_idx") &&
            strstr(zs_last_error(), path),
        "invalid CSR: %s", zs_last_error());
  zs_encoded_destroy(&F);
  bytes after = read_all(path);
  CHECK(before.n == after.n && memcmp(before.p, after.p, before.n) == 0, "refused saves changed %s",
        path);
  CHECK(!exists(tmp), "%s left behind", tmp);
  /* A write that fails half way (file size limit: fwrite fails with EFBIG instead of a
   * signal) must leave the old file and no temporary. */
  zs_matrix *big = random_matrix(300, 300, 20000, ZS_F64, 99);
  F = encode(big, ZS_FORMAT_CSR);
  struct rlimit old, lim;
  getrlimit(RLIMIT_FSIZE, &old);
  lim = old;
  lim.rlim_cur = 4096;
  void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
  if (setrlimit(RLIMIT_FSIZE, &lim) == 0) {
    const zs_status s = zs_encoded_save(F, path);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(s == ZS_ERR_IO && strstr(zs_last_error(), path), "save past the size limit: %s %s",
          zs_status_name(s), zs_last_error());
    bytes now = read_all(path);
    CHECK(now.n == before.n && memcmp(now.p, before.p, now.n) == 0, "failed save changed %s", path);
    CHECK(!exists(tmp), "failed save left %s", tmp);
    free(now.p);
  }
  signal(SIGXFSZ, prev);
  zs_encoded_destroy(&F);
  zs_matrix_destroy(&big);
  CHECK(zs_encoded_save(NULL, path) == ZS_ERR_INVALID_ARGUMENT, "NULL encoded");
  CHECK(zs_encoded_load(NULL, path) == ZS_ERR_INVALID_ARGUMENT, "NULL out");
  free(before.p), free(after.p);
  zs_encoded_destroy(&E);
}

static void cleanup(void) {
  static const char *const names[] = {"rt.zsm",
                                      "rt2.zsm",
                                      "case.zsm",
                                      "keep.zsm",
                                      "csr_5x5_f64.zsm",
                                      "coo_4x6_f32_params.zsm",
                                      "sell_6x4_f64_options.zsm"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char p[600];
    path_in_dir(p, sizeof p, names[i]);
    remove(p);
  }
  rmdir(dir);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write-golden") == 0) return write_golden(argv[2]);
  if (argc != 3) {
    fprintf(stderr,
            "usage: test-zsm roundtrip|golden|corrupt|save|options GOLDEN_DIR\n"
            "       test-zsm --write-golden DIR\n");
    return 2;
  }
  zs_test_temp_name(dir, sizeof dir, "zsm-test");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "mkdtemp %s: %s\n", dir, strerror(errno));
    return 1;
  }
  const char *what = argv[1];
  if (strcmp(what, "roundtrip") == 0)
    test_roundtrips();
  else if (strcmp(what, "golden") == 0)
    test_golden(argv[2]);
  else if (strcmp(what, "corrupt") == 0)
    test_corruption();
  else if (strcmp(what, "save") == 0)
    test_save_errors();
  else if (strcmp(what, "options") == 0)
    test_options();
  else
    fprintf(stderr, "unknown test %s\n", what), failures++;
  cleanup();
  printf("%s: %d failure(s)\n", what, failures);
  return failures ? 1 : 0;
}
