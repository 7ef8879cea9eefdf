/* test_transpose_options.c — transpose=stored encodes Aᵀ with the encoder options A was encoded
 * with: the stored blob's parameters are those of Aᵀ encoded with the options by hand (and not
 * those of the format's defaults, where the two differ), it decodes to Aᵀ, and the operator's
 * SpMVT with it gives Aᵀ w. A .zsm file keeps the options: a blob saved and loaded again builds
 * the same Aᵀ. A blob without options (a file from a writer that kept none) gets the defaults.
 *
 *   test-transpose-options */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"
#include "tests/common/blob_parts.h"
#include "tests/common/check.h"
#include "tests/common/same_matrix.h"
#include "tests/common/through_file.h"

/* E saved to a .zsm file and loaded again (E is replaced). */
static void through_file(zs_encoded **E) {
  zs_encoded *L = zs_test_through_file(*E, "zs-transpose-options");
  CHECK(L && ((*E)->options ? L->options && strcmp(L->options, (*E)->options) == 0 : !L->options));
  zs_encoded_destroy(E);
  *E = L;
}

/* Encode A with `options` (saved and loaded again when `file`), build its stored transpose and
 * check the parameter `key` against Aᵀ encoded with the options by hand, and (must_differ)
 * against the defaults' value. */
static void check_format(const zs_matrix *A, const zs_matrix *At, zs_format f, const char *options,
                         const char *key, int must_differ, int file) {
  zs_encoded *E = NULL, *T = NULL, *want = NULL, *plain = NULL;
  CHECK_STATUS(zs_encode(&E, A, f, options), ZS_OK);
  if (E && file) through_file(&E);
  CHECK_STATUS(zs_encode(&want, At, f, options), ZS_OK);
  CHECK_STATUS(zs_encode(&plain, At, f, NULL), ZS_OK);
  if (!E || !want || !plain) goto done;
  CHECK_STATUS(zsi_encode_transpose(E, &T), ZS_OK);
  if (!T) goto done;
  const int64_t got = zs_test_param(T, key), expect = zs_test_param(want, key),
                dflt = zs_test_param(plain, key);
  if (got != expect || (must_differ && got == dflt)) {
    fprintf(stderr,
            "%s:%s%s: stored transpose has %s=%lld, Aᵀ encoded with the options %lld, "
            "with the defaults %lld\n",
            zs_format_name(f), options, file ? " (through a file)" : "", key, (long long)got,
            (long long)expect, (long long)dflt);
    check_failures++;
  }
  CHECK(zs_encoded_bytes(T) == zs_encoded_bytes(want));
  zs_matrix *D = NULL;
  CHECK_STATUS(zs_decode(&D, T), ZS_OK);
  CHECK(D && zs_test_same_matrix(D, At));
  zs_matrix_destroy(&D);
done:
  zs_encoded_destroy(&E), zs_encoded_destroy(&T), zs_encoded_destroy(&want);
  zs_encoded_destroy(&plain);
}

/* SpMVT through an operator with transpose=stored on the cpu backend against Aᵀ w on ref. */
static void check_operator(const zs_matrix *A, zs_format f, const char *options) {
  zs_context *ctx = NULL;
  zs_encoded *E = NULL;
  zs_operator *op = NULL, *ref = NULL;
  zs_vector *w = NULL, *z = NULL, *wr = NULL, *zr = NULL;
  const int64_t rows = zs_matrix_rows(A), cols = zs_matrix_cols(A);
  CHECK_STATUS(zs_context_create(&ctx), ZS_OK);
  CHECK_STATUS(zs_encode(&E, A, f, options), ZS_OK);
  if (!ctx || !E) goto done;
  CHECK_STATUS(zs_operator_create(&op, ctx, E, "cpu", "transpose=stored"), ZS_OK);
  CHECK_STATUS(zs_operator_create(&ref, ctx, E, "ref", NULL), ZS_OK);
  if (!op || !ref) goto done;
  double *h = malloc(sizeof *h * (size_t)rows);
  for (int64_t i = 0; i < rows; i++) h[i] = (double)((i * 37) % 11) - 5.0;
  CHECK_STATUS(zs_vector_create(&w, ctx, "cpu", ZS_F64, rows), ZS_OK);
  CHECK_STATUS(zs_vector_create(&wr, ctx, "ref", ZS_F64, rows), ZS_OK);
  CHECK_STATUS(zs_vector_create(&z, ctx, "cpu", ZS_F64, cols), ZS_OK);
  CHECK_STATUS(zs_vector_create(&zr, ctx, "ref", ZS_F64, cols), ZS_OK);
  if (w && wr && z && zr) {
    CHECK_STATUS(zs_vector_upload(w, h), ZS_OK);
    CHECK_STATUS(zs_vector_upload(wr, h), ZS_OK);
    CHECK_STATUS(zs_spmv(op, ZS_OP_T, 1.0, w, 0.0, z), ZS_OK);
    CHECK_STATUS(zs_spmv(ref, ZS_OP_T, 1.0, wr, 0.0, zr), ZS_OK);
    double *a = malloc(sizeof *a * (size_t)cols), *b = malloc(sizeof *b * (size_t)cols);
    CHECK_STATUS(zs_vector_download(z, a), ZS_OK);
    CHECK_STATUS(zs_vector_download(zr, b), ZS_OK);
    double worst = 0;
    for (int64_t j = 0; j < cols; j++) worst = fmax(worst, fabs(a[j] - b[j]));
    if (worst > 1e-9) {
      fprintf(stderr, "%s:%s@transpose=stored: SpMVT off by %g\n", zs_format_name(f), options,
              worst);
      check_failures++;
    }
    free(a), free(b);
  }
  free(h);
done:
  zs_vector_destroy(&w), zs_vector_destroy(&wr), zs_vector_destroy(&z), zs_vector_destroy(&zr);
  zs_operator_destroy(&op), zs_operator_destroy(&ref);
  zs_encoded_destroy(&E);
  zs_context_destroy(&ctx);
}

int main(void) {
  zs_matrix *A = NULL, *At = NULL, *S = NULL, *St = NULL;
  /* rectangular and unsymmetric: Aᵀ is another matrix; a stencil for CSR-dtANS's versions */
  CHECK_STATUS(
      zs_matrix_generate(
          &A, "erdos_renyi:rows=3000,cols=2000,per_row=9,values=set,distinct=8,seed=3", ZS_F64, 0),
      ZS_OK);
  CHECK_STATUS(zs_matrix_generate(&S, "stencil2d:n=120,points=5,values=random,seed=4", ZS_F64, 0),
               ZS_OK);
  if (!A || !S) CHECK_DONE();
  CHECK_STATUS(zs_matrix_transpose(&At, A), ZS_OK);
  CHECK_STATUS(zs_matrix_transpose(&St, S), ZS_OK);
  if (!At || !St) CHECK_DONE();

  for (int file = 0; file <= 1; file++) {
    check_format(A, At, ZS_FORMAT_SELL, "sigma=64", "sigma", 1, file);
    check_format(A, At, ZS_FORMAT_SELL, "c=8", "c", 1, file);
    check_format(A, At, ZS_FORMAT_GCSB, "beta=64", "beta", 1, file);
    check_format(A, At, ZS_FORMAT_CCI, "slices=2,opcodes=auto", "slices", 1, file);
    /* lane_symbols=256 cuts 4x the slices of the default 1024-symbol lanes; on the stencil it
     * also keeps versions 2-4 where the default takes version 5 */
    check_format(A, At, ZS_FORMAT_DTANS, "lane_symbols=256", "slices", 1, file);
    check_format(S, St, ZS_FORMAT_DTANS, "lane_symbols=256", "version", 1, file);
    check_format(A, At, ZS_FORMAT_DTANS, "values=raw", "value_mode", 1, file);
    check_format(A, At, ZS_FORMAT_CSR, "", "none", 0, file); /* no options: the defaults */
  }

  /* A blob without kept options (a file from a writer that kept none) gets the defaults. */
  zs_encoded *E = NULL, *T = NULL, *plain = NULL;
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_SELL, "sigma=64"), ZS_OK);
  CHECK_STATUS(zs_encode(&plain, At, ZS_FORMAT_SELL, NULL), ZS_OK);
  if (E && plain) {
    free(E->options);
    E->options = NULL;
    CHECK_STATUS(zsi_encode_transpose(E, &T), ZS_OK);
    CHECK(T && zs_test_param(T, "sigma") == zs_test_param(plain, "sigma"));
  }
  zs_encoded_destroy(&E), zs_encoded_destroy(&T), zs_encoded_destroy(&plain);

  check_operator(A, ZS_FORMAT_DTANS, "lane_symbols=256");
  check_operator(A, ZS_FORMAT_SELL, "sigma=64");
  zs_matrix_destroy(&A), zs_matrix_destroy(&At), zs_matrix_destroy(&S), zs_matrix_destroy(&St);
  CHECK_DONE();
}
