/* solver_matrix.c — matrices the solvers need around A: the Jacobi operator, dominant copies. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "core/zs_internal.h"
#include "zsparse_solvers.h"

static void put_value(zs_type t, void *v, int64_t i, double x) {
  if (t == ZS_F32)
    ((float *)v)[i] = (float)x;
  else
    ((double *)v)[i] = x;
}

/* A diagonal matrix is a CSR operator like any other, so M^-1 r runs on every backend through
 * zs_spmv with no elementwise vector product in the API (it costs 12 bytes per row more). */
zs_status zs_solver_jacobi(zs_operator **out, zs_context *ctx, const zs_matrix *A,
                           const char *backend) {
  if (!out || !ctx || !A)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_solver_jacobi: NULL argument");
  const int64_t n = zs_matrix_rows(A);
  if (zs_matrix_cols(A) != n)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "Jacobi: A is %" PRId64 " x %" PRId64 "; it must be square", n,
                     zs_matrix_cols(A));
  const zs_type t = zs_matrix_type(A);
  const int64_t *rp;
  const int32_t *ci;
  const void *av;
  zs_matrix_csr(A, &rp, &ci, &av);
  int64_t *drp = malloc((size_t)(n + 1) * sizeof *drp);
  int32_t *dci = malloc((size_t)(n ? n : 1) * sizeof *dci);
  void *dv = malloc((size_t)(n ? n : 1) * zs_type_size(t));
  zs_matrix *D = NULL;
  zs_encoded *E = NULL;
  zs_status s = ZS_OK;
  if (!drp || !dci || !dv) {
    s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "Jacobi: %" PRId64 " diagonal entries", n);
    goto done;
  }
  drp[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    double d = 0.0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      if (ci[k] == i) {
        d = zsi_value_get(t, av, k);
        break;
      }
    const double inv = 1.0 / d;
    put_value(t, dv, i, inv);
    if (d == 0.0 || !isfinite(zsi_value_get(t, dv, i))) {
      s = zsi_error(ZS_ERR_INVALID_ARGUMENT,
                    "Jacobi: diagonal entry A[%" PRId64 ",%" PRId64
                    "] is %g; its inverse must be a finite %s",
                    i, i, d, zs_type_name(t));
      goto done;
    }
    drp[i + 1] = i + 1;
    dci[i] = (int32_t)i;
  }
  if ((s = zs_matrix_from_csr(&D, n, n, drp, dci, dv, t, 0)) != ZS_OK ||
      (s = zs_encode(&E, D, ZS_FORMAT_CSR, NULL)) != ZS_OK)
    goto done;
  s = zs_operator_create(out, ctx, E, backend, NULL);
done:
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&D);
  free(drp);
  free(dci);
  free(dv);
  return s;
}

zs_status zs_matrix_make_dominant(zs_matrix **out, const zs_matrix *A, double margin) {
  if (!out || !A)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_matrix_make_dominant: NULL argument");
  const int64_t n = zs_matrix_rows(A), nnz = zs_matrix_nnz(A);
  if (zs_matrix_cols(A) != n)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "make_dominant: A is %" PRId64 " x %" PRId64 "; it must be square", n,
                     zs_matrix_cols(A));
  if (!(margin > 0.0) || !isfinite(margin))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "make_dominant: margin %g must be finite and > 0",
                     margin);
  if (nnz > ZS_MAX_NNZ - n)
    return zsi_error(ZS_ERR_OVERFLOW,
                     "make_dominant: %" PRId64 " + %" PRId64 " diagonal entries pass 2^62", nnz, n);
  const zs_type t = zs_matrix_type(A);
  const int64_t *rp;
  const int32_t *ci;
  const void *av;
  zs_matrix_csr(A, &rp, &ci, &av);
  /* Each row's diagonal is written last: zs_matrix_from_csr sorts the columns of a row. */
  const int64_t cap = nnz + n;
  int64_t *nrp = malloc((size_t)(n + 1) * sizeof *nrp);
  int32_t *nci = malloc((size_t)(cap ? cap : 1) * sizeof *nci);
  void *nv = malloc((size_t)(cap ? cap : 1) * zs_type_size(t));
  zs_status s = ZS_OK;
  if (!nrp || !nci || !nv) {
    s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "make_dominant: %" PRId64 " entries", cap);
    goto done;
  }
  int64_t w = 0;
  nrp[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    double off = 0.0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
      if (ci[k] == i) continue;
      const double a = zsi_value_get(t, av, k);
      off += fabs(a);
      nci[w] = ci[k];
      put_value(t, nv, w++, a);
    }
    nci[w] = (int32_t)i;
    put_value(t, nv, w++, off + margin);
    if (!isfinite(zsi_value_get(t, nv, w - 1))) {
      s = zsi_error(ZS_ERR_OVERFLOW, "make_dominant: row %" PRId64 "'s diagonal %g overflows %s", i,
                    off + margin, zs_type_name(t));
      goto done;
    }
    nrp[i + 1] = w;
  }
  s = zs_matrix_from_csr(out, n, n, nrp, nci, nv, t, 0);
done:
  free(nrp);
  free(nci);
  free(nv);
  return s;
}
