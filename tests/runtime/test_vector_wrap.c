/* test_vector_wrap.c — vectors over caller memory (zs_vector_wrap): the products and BLAS-1 on
 * them give the bits that created vectors give, in place, reading and writing nothing beyond
 * the caller's elements; bad pointers, overlaps and device backends are refused.
 *
 *   test-vector-wrap BACKEND     (exit 77 where BACKEND is not usable here)
 *
 * Host buffers are malloc'ed to exactly their element count, so a sanitizer build catches any
 * read or write past them. On cuda and hip the test checks the refusal only. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/backend_test.h"
#include "tests/common/check.h"

#define ROWS 37
#define COLS 53

static const char *backend;
static zs_context *ctx;

/* A rectangular matrix with empty rows, one long row and one long column. */
static zs_matrix *make_matrix(zs_type type) {
  static int64_t rp[ROWS + 1];
  static int32_t ci[ROWS * COLS];
  static double v[ROWS * COLS];
  int64_t k = 0;
  for (int i = 0; i < ROWS; i++) {
    rp[i] = k;
    for (int j = 0; j < COLS; j++)
      if (i == 5 || j == 7 || (i % 4 != 3 && (i * 31 + j * 17) % 11 == 0)) {
        ci[k] = j;
        v[k++] = (double)((i * 131 + j * 71) % 97) / 97.0 - 0.4;
      }
  }
  rp[ROWS] = k;
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_from_csr(&A, ROWS, COLS, rp, ci, v, ZS_F64, 0), ZS_OK);
  zs_matrix *B = A;
  if (A && type == ZS_F32) {
    B = NULL;
    CHECK_STATUS(zs_matrix_convert(&B, A, ZS_F32), ZS_OK);
    zs_matrix_destroy(&A);
  }
  return B;
}

/* n elements of type t, exactly: value i from seed, in [-0.5, 0.5). */
static void *host(zs_type t, int64_t n, unsigned seed) {
  void *p = malloc((size_t)(n ? n : 1) * zs_type_size(t));
  for (int64_t i = 0; i < n; i++) {
    const double x = (double)((uint32_t)(i * 2654435761u + seed * 40503u) % 1000003u) / 1000003.0;
    if (t == ZS_F64)
      ((double *)p)[i] = x - 0.5;
    else
      ((float *)p)[i] = (float)(x - 0.5);
  }
  return p;
}

static void poison(void *p, zs_type t, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (t == ZS_F64)
      ((double *)p)[i] = NAN;
    else
      ((float *)p)[i] = NAN;
}

/* y = alpha op(A) x + beta y through created vectors and copies: what wrapping must match. */
static void copied_product(zs_operator *op, zs_op which, double alpha, const void *x, double beta,
                           void *y, int64_t nx, int64_t ny, zs_type t) {
  zs_vector *xv = NULL, *yv = NULL;
  CHECK_STATUS(zs_vector_create(&xv, ctx, backend, t, nx), ZS_OK);
  CHECK_STATUS(zs_vector_create(&yv, ctx, backend, t, ny), ZS_OK);
  CHECK_STATUS(zs_vector_upload(xv, x), ZS_OK);
  CHECK_STATUS(zs_vector_upload(yv, y), ZS_OK);
  CHECK_STATUS(zs_spmv(op, which, alpha, xv, beta, yv), ZS_OK);
  CHECK_STATUS(zs_vector_download(yv, y), ZS_OK);
  zs_vector_destroy(&xv);
  zs_vector_destroy(&yv);
}

static int same_bits(const void *a, const void *b, zs_type t, int64_t n) {
  return memcmp(a, b, (size_t)n * zs_type_size(t)) == 0;
}

/* Every product of one operator on wrapped vectors against the same on created ones. */
static void products(zs_format f, zs_type t) {
  zs_matrix *A = make_matrix(t);
  zs_encoded *E = NULL;
  zs_operator *op = NULL;
  if (!A) return;
  zs_status s = zs_encode(&E, A, f, NULL);
  zs_matrix_destroy(&A);
  if (s == ZS_ERR_UNSUPPORTED) return; /* a format of dense layers (vans) */
  CHECK_STATUS(s, ZS_OK);
  if (s != ZS_OK) return;
  CHECK_STATUS(zs_operator_create(&op, ctx, E, backend, NULL), ZS_OK);
  zs_encoded_destroy(&E);
  if (!op) return;
  const char *name = zs_format_name(f);
  void *x = host(t, COLS, 1), *w = host(t, ROWS, 2), *y = host(t, ROWS, 3), *z = host(t, COLS, 4);
  void *want_y = host(t, ROWS, 3), *want_z = host(t, COLS, 4), *x2 = host(t, COLS, 5);
  zs_vector *xv = NULL, *yv = NULL, *wv = NULL, *zv = NULL;
  CHECK_STATUS(zs_vector_wrap(&xv, ctx, backend, t, COLS, x), ZS_OK);
  CHECK_STATUS(zs_vector_wrap(&yv, ctx, backend, t, ROWS, y), ZS_OK);
  CHECK_STATUS(zs_vector_wrap(&wv, ctx, backend, t, ROWS, w), ZS_OK);
  CHECK_STATUS(zs_vector_wrap(&zv, ctx, backend, t, COLS, z), ZS_OK);
  if (!xv || !yv || !wv || !zv) goto done;

  /* y = 0.75 A x - 1.25 y, in place in the caller's y. */
  copied_product(op, ZS_OP_N, 0.75, x, -1.25, want_y, COLS, ROWS, t);
  CHECK_STATUS(zs_spmv(op, ZS_OP_N, 0.75, xv, -1.25, yv), ZS_OK);
  if (!same_bits(y, want_y, t, ROWS)) fprintf(stderr, "%s: wrapped A x differs\n", name);
  CHECK(same_bits(y, want_y, t, ROWS));
  /* z = A^T w over a poisoned z (beta = 0 ignores it). */
  poison(z, t, COLS), poison(want_z, t, COLS);
  copied_product(op, ZS_OP_T, 1.0, w, 0.0, want_z, ROWS, COLS, t);
  CHECK_STATUS(zs_spmv(op, ZS_OP_T, 1.0, wv, 0.0, zv), ZS_OK);
  CHECK(same_bits(z, want_z, t, COLS));
  /* The pair, after rewrapping x onto another array: the new one is read. */
  CHECK_STATUS(zs_vector_rewrap(xv, x2), ZS_OK);
  poison(y, t, ROWS), poison(z, t, COLS), poison(want_y, t, ROWS), poison(want_z, t, COLS);
  copied_product(op, ZS_OP_N, 2.0, x2, 0.0, want_y, COLS, ROWS, t);
  copied_product(op, ZS_OP_T, -0.5, w, 0.0, want_z, ROWS, COLS, t);
  CHECK_STATUS(zs_spmv_pair(op, 2.0, xv, 0.0, yv, -0.5, wv, 0.0, zv), ZS_OK);
  CHECK(same_bits(y, want_y, t, ROWS));
  CHECK(same_bits(z, want_z, t, COLS));
done:
  zs_vector_destroy(&xv), zs_vector_destroy(&yv), zs_vector_destroy(&wv), zs_vector_destroy(&zv);
  zs_operator_destroy(&op);
  free(x), free(w), free(y), free(z), free(want_y), free(want_z), free(x2);
}

/* BLAS-1 on wrapped vectors reads and writes the caller's arrays. */
static void blas1(void) {
  enum { N = 29 };
  double *a = host(ZS_F64, N, 7), *b = host(ZS_F64, N, 8), *c = host(ZS_F64, N, 9);
  zs_vector *av = NULL, *bv = NULL, *cv = NULL;
  CHECK_STATUS(zs_vector_wrap(&av, ctx, backend, ZS_F64, N, a), ZS_OK);
  CHECK_STATUS(zs_vector_wrap(&bv, ctx, backend, ZS_F64, N, b), ZS_OK);
  CHECK_STATUS(zs_vector_create(&cv, ctx, backend, ZS_F64, N), ZS_OK);
  if (!av || !bv || !cv) goto done;
  double want = 0, got = -1;
  for (int i = 0; i < N; i++) want += a[i] * b[i];
  CHECK_STATUS(zs_vector_dot(av, bv, &got), ZS_OK);
  CHECK(fabs(got - want) <= 1e-14);
  CHECK_STATUS(zs_vector_fill(av, 3.0), ZS_OK);
  CHECK(a[0] == 3.0 && a[N - 1] == 3.0);
  const double b4 = b[4];
  CHECK_STATUS(zs_vector_axpby(2.0, av, 1.0, bv), ZS_OK); /* b = 6 + b */
  CHECK(b[4] == 6.0 + b4);
  CHECK_STATUS(zs_vector_upload(cv, a), ZS_OK); /* created <- caller memory */
  CHECK_STATUS(zs_vector_copy(bv, cv), ZS_OK);  /* caller memory <- created */
  CHECK(b[0] == 3.0 && b[N - 1] == 3.0);
  CHECK_STATUS(zs_vector_upload(av, c), ZS_OK); /* an upload into a wrap copies into `a` */
  CHECK(same_bits(a, c, ZS_F64, N));
  CHECK_STATUS(zs_vector_fill(bv, 0.0), ZS_OK);
  CHECK_STATUS(zs_vector_download(av, b), ZS_OK);
  CHECK(same_bits(b, c, ZS_F64, N));
  CHECK_STATUS(zs_vector_copy(av, av), ZS_OK);            /* itself: nothing to do */
  CHECK_STATUS(zs_vector_axpby(1.0, av, 1.0, av), ZS_OK); /* y = 2y, the same storage */
  CHECK(a[3] == 2 * c[3]);
done:
  zs_vector_destroy(&av), zs_vector_destroy(&bv), zs_vector_destroy(&cv);
  free(a), free(b), free(c); /* destroy left the caller's memory alone */
}

/* Bad pointers, overlapping views, a created vector rewrapped, empty vectors. */
static void refusals(void) {
  double *buf = host(ZS_F64, 12, 1);
  zs_vector *v = (zs_vector *)buf, *u = NULL, *made = NULL;
  CHECK_STATUS(zs_vector_wrap(&v, ctx, backend, ZS_F64, 4, NULL), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_vector_wrap(&v, ctx, backend, ZS_F64, 4, (char *)buf + 4),
               ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "aligned") != NULL);
  CHECK(v == (zs_vector *)buf); /* *out untouched on failure */
  CHECK_STATUS(zs_vector_wrap(&v, ctx, backend, ZS_F32, 4, (char *)buf + 4), ZS_OK);
  zs_vector_destroy(&v);
  CHECK_STATUS(zs_vector_wrap(&v, ctx, backend, ZS_F64, 0, NULL), ZS_OK); /* empty: any data */
  CHECK(zs_vector_size(v) == 0 && zs_vector_type(v) == ZS_F64);
  zs_vector_destroy(&v);
  /* Overlapping views: a product or an update writing one of them is refused. */
  CHECK_STATUS(zs_vector_wrap(&v, ctx, backend, ZS_F64, 6, buf), ZS_OK);
  CHECK_STATUS(zs_vector_wrap(&u, ctx, backend, ZS_F64, 6, buf + 3), ZS_OK);
  CHECK_STATUS(zs_vector_axpby(1.0, v, 1.0, u), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_vector_copy(u, v), ZS_ERR_INVALID_ARGUMENT);
  double d;
  CHECK_STATUS(zs_vector_dot(u, v, &d), ZS_OK); /* reading both is fine */
  /* Rewrap: checked like wrap, the vector unchanged on failure; created vectors refuse. */
  CHECK_STATUS(zs_vector_rewrap(u, NULL), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_vector_rewrap(u, (char *)buf + 2), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_vector_rewrap(u, buf + 6), ZS_OK); /* apart from v now */
  CHECK_STATUS(zs_vector_axpby(1.0, v, 1.0, u), ZS_OK);
  CHECK_STATUS(zs_vector_create(&made, ctx, backend, ZS_F64, 6), ZS_OK);
  CHECK_STATUS(zs_vector_rewrap(made, buf), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "zs_vector_create") != NULL);
  CHECK_STATUS(zs_vector_wrap(&made, ctx, "no-such-backend", ZS_F64, 6, buf),
               ZS_ERR_INVALID_ARGUMENT);
  zs_vector_destroy(&made), zs_vector_destroy(&u), zs_vector_destroy(&v);

  /* An operator's x and y over one array, in part: refused. */
  zs_matrix *A = NULL;
  zs_encoded *E = NULL;
  zs_operator *op = NULL;
  CHECK_STATUS(zs_matrix_generate(&A, "stencil2d:n=2", ZS_F64, 0), ZS_OK); /* 4 x 4 */
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CSR, NULL), ZS_OK);
  CHECK_STATUS(zs_operator_create(&op, ctx, E, backend, NULL), ZS_OK);
  CHECK_STATUS(zs_vector_wrap(&v, ctx, backend, ZS_F64, 4, buf), ZS_OK);
  CHECK_STATUS(zs_vector_wrap(&u, ctx, backend, ZS_F64, 4, buf + 2), ZS_OK);
  CHECK_STATUS(zs_spmv(op, ZS_OP_N, 1.0, v, 0.0, u), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_spmv_pair(op, 1.0, v, 0.0, u, 1.0, v, 0.0, u), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_vector_rewrap(u, buf + 4), ZS_OK);
  CHECK_STATUS(zs_spmv(op, ZS_OP_N, 1.0, v, 0.0, u), ZS_OK);
  zs_vector_destroy(&u), zs_vector_destroy(&v);
  zs_operator_destroy(&op), zs_encoded_destroy(&E), zs_matrix_destroy(&A);
  free(buf);
}

int main(int argc, char **argv) {
  backend = argc > 1 ? argv[1] : "cpu";
  int rc = zs_test_context_for(backend, &ctx);
  if (rc) return rc;
  if (strcmp(backend, "cuda") == 0 || strcmp(backend, "hip") == 0) {
    /* Device memory cannot be caller memory: refused, with the way out named. */
    double buf[4] = {0};
    zs_vector *v = NULL;
    CHECK_STATUS(zs_vector_wrap(&v, ctx, backend, ZS_F64, 4, buf), ZS_ERR_UNSUPPORTED);
    CHECK(v == NULL && strstr(zs_last_error(), "upload") != NULL);
  } else {
    for (int f = 1; zs_format_name((zs_format)f); f++) {
      products((zs_format)f, ZS_F32);
      products((zs_format)f, ZS_F64);
    }
    blas1();
    refusals();
  }
  zs_context_destroy(&ctx);
  CHECK_DONE();
}
