/* cli_measure.c — timing and host-reference check of one operator, shared by spmv and demo. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

double zs_cli_tolerance(zs_type type, int64_t len_max) {
  const double eps = type == ZS_F32 ? (double)FLT_EPSILON : DBL_EPSILON;
  /* Recursive summation of n terms errs by at most ~n*eps relative to sum |terms|; rounding
   * errors of random sign grow like sqrt(n), so beyond 1024 terms the worst-case bound is
   * far too loose to catch anything and the cap keeps the check meaningful for long rows.
   * The +2 covers the alpha/beta scaling of the second check. */
  const double n = (double)(len_max + 2 < 1024 ? len_max + 2 : 1024);
  return 16.0 * eps * n;
}

/* Host buffer of n elements of `type` from doubles (f32: rounded, and d[] updated to the
 * rounded values so the reference sees exactly what the kernel sees). */
static void *typed_copy(zs_type type, double *d, int64_t n) {
  const size_t es = zs_type_size(type);
  void *buf = malloc((size_t)(n ? n : 1) * es);
  if (!buf) return NULL;
  for (int64_t i = 0; i < n; i++) {
    if (type == ZS_F32) {
      ((float *)buf)[i] = (float)d[i];
      d[i] = (double)((float *)buf)[i];
    } else {
      ((double *)buf)[i] = d[i];
    }
  }
  return buf;
}

static double typed_get(zs_type type, const void *buf, int64_t i) {
  return type == ZS_F32 ? (double)((const float *)buf)[i] : ((const double *)buf)[i];
}

/* ref = op(A) x in long double and absum = sum |a_ij x_j| for every output; len_max = longest
 * row of op(A). Returns 0, or -1 when out of memory. */
static int reference(const zs_matrix *A, zs_op which, const double *x, long double *ref,
                     double *absum, int64_t ny, int64_t *len_max) {
  const int64_t *rp;
  const int32_t *ci;
  const void *vals;
  zs_matrix_csr(A, &rp, &ci, &vals);
  const zs_type t = zs_matrix_type(A);
  const int64_t rows = zs_matrix_rows(A);
  *len_max = 0;
  if (which == ZS_OP_N) {
    for (int64_t i = 0; i < rows; i++) {
      long double acc = 0.0L, abs_acc = 0.0L;
      for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
        const long double p = (long double)typed_get(t, vals, k) * (long double)x[ci[k]];
        acc += p;
        abs_acc += fabsl(p);
      }
      ref[i] = acc;
      absum[i] = (double)abs_acc;
      if (rp[i + 1] - rp[i] > *len_max) *len_max = rp[i + 1] - rp[i];
    }
    return 0;
  }
  long double *abs_acc = calloc((size_t)(ny ? ny : 1), sizeof *abs_acc);
  int64_t *count = calloc((size_t)(ny ? ny : 1), sizeof *count);
  if (!abs_acc || !count) {
    free(abs_acc);
    free(count);
    return -1;
  }
  for (int64_t j = 0; j < ny; j++) ref[j] = 0.0L;
  for (int64_t i = 0; i < rows; i++)
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
      const long double p = (long double)typed_get(t, vals, k) * (long double)x[i];
      ref[ci[k]] += p;
      abs_acc[ci[k]] += fabsl(p);
      count[ci[k]]++;
    }
  for (int64_t j = 0; j < ny; j++) {
    absum[j] = (double)abs_acc[j];
    if (count[j] > *len_max) *len_max = count[j];
  }
  free(abs_acc);
  free(count);
  return 0;
}

/* max_i |y_i - (alpha ref_i + beta y0_i)| / (|alpha| absum_i + |beta y0_i| + tiny); a NaN or
 * infinite y_i counts as an infinite error. */
static double max_error(zs_type type, const void *y, const long double *ref, const double *absum,
                        double alpha, double beta, const double *y0, int64_t ny) {
  double worst = 0.0;
  for (int64_t i = 0; i < ny; i++) {
    const double yi = typed_get(type, y, i);
    const double b = beta != 0.0 ? beta * y0[i] : 0.0;
    const long double want = (long double)alpha * ref[i] + (long double)b;
    const double scale = fabs(alpha) * absum[i] + fabs(b) + 1e-300;
    const double err = isfinite(yi) ? (double)(fabsl((long double)yi - want) / scale) : INFINITY;
    if (!(err <= worst)) worst = isnan(err) ? INFINITY : err;
  }
  return worst;
}

/* Test hook: ZSPARSE_CLI_FAULT=perturb|unwritten damages the first checked product the way a
 * wrong or an incomplete kernel would, so the tests can show that --check catches both. */
static void inject_fault(zs_type type, void *y, int64_t ny) {
  const char *f = getenv("ZSPARSE_CLI_FAULT");
  if (!f || ny == 0) return;
  const int64_t i = ny / 2;
  double v = typed_get(type, y, i);
  if (strcmp(f, "perturb") == 0)
    v += 1e-2 * (fabs(v) + 1.0);
  else if (strcmp(f, "unwritten") == 0)
    v = NAN; /* what the poisoned y holds where a kernel wrote nothing */
  else
    return;
  if (type == ZS_F32)
    ((float *)y)[i] = (float)v;
  else
    ((double *)y)[i] = v;
}

zs_status zs_cli_measure_run(const char *cmd, zs_context *ctx, zs_operator *op, const zs_encoded *E,
                             const zs_matrix *A, zs_cli_measure *m) {
  const zs_type type = zs_encoded_type(E);
  const size_t es = zs_type_size(type);
  const int64_t rows = zs_encoded_rows(E), cols = zs_encoded_cols(E);
  const int64_t nx = m->op == ZS_OP_N ? cols : rows, ny = m->op == ZS_OP_N ? rows : cols;
  const char *backend = zs_operator_backend(op);
  zs_vector *x = NULL, *y = NULL;
  double *xd = malloc((size_t)(nx ? nx : 1) * sizeof *xd);
  double *y0 = malloc((size_t)(ny ? ny : 1) * sizeof *y0);
  double *times = malloc((size_t)(m->repeat > 0 ? m->repeat : 1) * sizeof *times);
  void *xh = NULL, *yh = NULL, *yout = NULL;
  long double *ref = NULL;
  double *absum = NULL;
  zs_status s = ZS_OK;
  int host_oom = 0;
  m->bytes = zs_encoded_bytes(E) + (uint64_t)(nx + ny) * es;
  m->max_rel_err = 0.0, m->tolerance = 0.0, m->check_ok = 1, m->len_max = 0;
  if (!xd || !y0 || !times) {
    s = ZS_ERR_OUT_OF_MEMORY, host_oom = 1;
    goto done;
  }
  zs_cli_rng rng = {m->seed};
  for (int64_t i = 0; i < nx; i++) xd[i] = zs_cli_rng_uniform(&rng);
  for (int64_t i = 0; i < ny; i++) y0[i] = zs_cli_rng_uniform(&rng);
  xh = typed_copy(type, xd, nx);
  yh = typed_copy(type, y0, ny);
  yout = malloc((size_t)(ny ? ny : 1) * es);
  if (!xh || !yh || !yout) {
    s = ZS_ERR_OUT_OF_MEMORY, host_oom = 1;
    goto done;
  }
  if ((s = zs_vector_create(&x, ctx, backend, type, nx)) != ZS_OK ||
      (s = zs_vector_create(&y, ctx, backend, type, ny)) != ZS_OK ||
      (s = zs_vector_upload(x, xh)) != ZS_OK || (s = zs_vector_upload(y, yh)) != ZS_OK)
    goto done;

  /* Timing: alpha 1, beta 0, so y is only written. */
  if ((s = zs_spmv(op, m->op, 1.0, x, 0.0, y)) != ZS_OK || (s = zs_operator_sync(op)) != ZS_OK)
    goto done;
  for (int r = 0; r < m->repeat; r++) {
    if ((s = zs_operator_sync(op)) != ZS_OK) goto done;
    const double t0 = zs_cli_now();
    if ((s = zs_spmv(op, m->op, 1.0, x, 0.0, y)) != ZS_OK) goto done;
    if ((s = zs_operator_sync(op)) != ZS_OK) goto done;
    times[r] = zs_cli_now() - t0;
  }
  if (m->repeat > 0) {
    m->time_median_s = zs_cli_median(times, m->repeat);
    m->time_min_s = times[0]; /* sorted by the median */
    m->gbps = m->time_median_s > 0 ? (double)m->bytes / m->time_median_s / 1e9 : 0.0;
  }

  if (m->check) {
    ref = malloc((size_t)(ny ? ny : 1) * sizeof *ref);
    absum = malloc((size_t)(ny ? ny : 1) * sizeof *absum);
    if (!ref || !absum) {
      s = ZS_ERR_OUT_OF_MEMORY, host_oom = 1;
      goto done;
    }
    if (reference(A, m->op, xd, ref, absum, ny, &m->len_max)) {
      s = ZS_ERR_OUT_OF_MEMORY, host_oom = 1;
      goto done;
    }
    m->tolerance = zs_cli_tolerance(type, m->len_max);
    /* 1: beta = 0 over NaN: every element must be written, old contents ignored. */
    for (int64_t i = 0; i < ny; i++) {
      if (type == ZS_F32)
        ((float *)yout)[i] = NAN;
      else
        ((double *)yout)[i] = NAN;
    }
    if ((s = zs_vector_upload(y, yout)) != ZS_OK ||
        (s = zs_spmv(op, m->op, 1.0, x, 0.0, y)) != ZS_OK || (s = zs_operator_sync(op)) != ZS_OK ||
        (s = zs_vector_download(y, yout)) != ZS_OK)
      goto done;
    inject_fault(type, yout, ny);
    double e1 = max_error(type, yout, ref, absum, 1.0, 0.0, y0, ny);
    /* 2: general alpha and beta over a random y. */
    if ((s = zs_vector_upload(y, yh)) != ZS_OK ||
        (s = zs_spmv(op, m->op, 0.75, x, -1.25, y)) != ZS_OK ||
        (s = zs_operator_sync(op)) != ZS_OK || (s = zs_vector_download(y, yout)) != ZS_OK)
      goto done;
    double e2 = max_error(type, yout, ref, absum, 0.75, -1.25, y0, ny);
    m->max_rel_err = e1 > e2 ? e1 : e2;
    m->check_ok = m->max_rel_err <= m->tolerance;
  }
done:
  if (host_oom)
    fprintf(stderr,
            "zsparse %s: out of memory for the host vectors and reference (%lld + %lld elements)\n",
            cmd, (long long)nx, (long long)ny);
  else if (s != ZS_OK)
    zs_cli_lib_error(cmd, s);
  zs_vector_destroy(&x);
  zs_vector_destroy(&y);
  free(xd), free(y0), free(times), free(xh), free(yh), free(yout), free(ref), free(absum);
  return s;
}
