/* cli_measure.c — timing and host-reference check of one operator, shared by spmv and demo. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/check_tolerance.h"

double zs_cli_tolerance(zs_type type, int64_t len_max) {
  return zsi_check_tolerance(type, len_max);
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

/* max_i of |y_i - (alpha ref_i + beta y0_i)| relative to |alpha| absum_i + |beta y0_i| and the
 * absolute floor of rows of len_max terms (core/check_tolerance.h); a NaN or infinite y_i counts
 * as an infinite error. */
static double max_error(zs_type type, const void *y, const long double *ref, const double *absum,
                        double alpha, double beta, const double *y0, int64_t ny, int64_t len_max) {
  const double tol = zsi_check_tolerance(type, len_max);
  const double floor = zsi_check_floor(type, len_max, alpha);
  double worst = 0.0;
  for (int64_t i = 0; i < ny; i++) {
    const double yi = typed_get(type, y, i);
    const double b = beta != 0.0 ? beta * y0[i] : 0.0;
    const long double want = (long double)alpha * ref[i] + (long double)b;
    const double scale = fabs(alpha) * absum[i] + fabs(b);
    const double err = isfinite(yi) ? (double)fabsl((long double)yi - want) : INFINITY;
    const double rel = zsi_check_rel_error(err, tol, scale, floor);
    if (!(rel <= worst)) worst = isnan(rel) ? INFINITY : rel;
  }
  return worst;
}

/* Test hook: ZSPARSE_CLI_FAULT=perturb|unwritten damages the first checked product's output the
 * way a wrong or an incomplete kernel would (perturb-z|unwritten-z: the pair's z instead), so the
 * tests can show that --check catches both. */
static void inject_fault(zs_type type, void *y, int64_t ny, int second) {
  const char *f = getenv("ZSPARSE_CLI_FAULT");
  if (!f || ny == 0) return;
  const char *kind = second ? (strcmp(f, "perturb-z") == 0     ? "perturb"
                               : strcmp(f, "unwritten-z") == 0 ? "unwritten"
                                                               : "")
                            : f;
  const int64_t i = ny / 2;
  double v = typed_get(type, y, i);
  if (strcmp(kind, "perturb") == 0)
    v += 1e-2 * (fabs(v) + 1.0);
  else if (strcmp(kind, "unwritten") == 0)
    v = NAN; /* what the poisoned y holds where a kernel wrote nothing */
  else
    return;
  if (type == ZS_F32)
    ((float *)y)[i] = (float)v;
  else
    ((double *)y)[i] = v;
}

/* One product's operands: x in, y out, and what the check compares y with. The pair has two
 * (y = A x, then z = Aᵀ w). */
typedef struct side {
  zs_op op;
  int64_t nx, ny;
  double *xd, *y0;      /* x and y's starting values, as the kernel sees them */
  void *xh, *yh, *yout; /* the same in the value type, and a download buffer */
  zs_vector *x, *y;
  long double *ref; /* op(A) x */
  double *absum;
  int64_t len_max;
} side;

static void side_free(side *d) {
  zs_vector_destroy(&d->x), zs_vector_destroy(&d->y);
  free(d->xd), free(d->y0), free(d->xh), free(d->yh), free(d->yout), free(d->ref), free(d->absum);
}

/* Random x and y on the host and on the operator's backend. *oom is set when the host runs out
 * of memory (the status is then ZS_ERR_OUT_OF_MEMORY). */
static zs_status side_setup(side *d, zs_context *ctx, const char *backend, zs_type type,
                            zs_cli_rng *rng, int *oom) {
  d->xd = malloc((size_t)(d->nx ? d->nx : 1) * sizeof *d->xd);
  d->y0 = malloc((size_t)(d->ny ? d->ny : 1) * sizeof *d->y0);
  if (!d->xd || !d->y0) return *oom = 1, ZS_ERR_OUT_OF_MEMORY;
  for (int64_t i = 0; i < d->nx; i++) d->xd[i] = zs_cli_rng_uniform(rng);
  for (int64_t i = 0; i < d->ny; i++) d->y0[i] = zs_cli_rng_uniform(rng);
  d->xh = typed_copy(type, d->xd, d->nx);
  d->yh = typed_copy(type, d->y0, d->ny);
  d->yout = malloc((size_t)(d->ny ? d->ny : 1) * zs_type_size(type));
  if (!d->xh || !d->yh || !d->yout) return *oom = 1, ZS_ERR_OUT_OF_MEMORY;
  zs_status s;
  if ((s = zs_vector_create(&d->x, ctx, backend, type, d->nx)) != ZS_OK ||
      (s = zs_vector_create(&d->y, ctx, backend, type, d->ny)) != ZS_OK ||
      (s = zs_vector_upload(d->x, d->xh)) != ZS_OK || (s = zs_vector_upload(d->y, d->yh)) != ZS_OK)
    return s;
  return ZS_OK;
}

/* The measured call, issued: one product, or both of the pair with the same alpha and beta. */
static zs_status issue(zs_operator *op, const zs_cli_measure *m, side *d, double alpha,
                       double beta) {
  return m->pair ? zs_spmv_pair(op, alpha, d[0].x, beta, d[0].y, alpha, d[1].x, beta, d[1].y)
                 : zs_spmv(op, m->op, alpha, d[0].x, beta, d[0].y);
}

/* The measured call, issued and finished. */
static zs_status product(zs_operator *op, const zs_cli_measure *m, side *d, double alpha,
                         double beta) {
  const zs_status s = issue(op, m, d, alpha, beta);
  return s != ZS_OK ? s : zs_operator_sync(op);
}

zs_status zs_cli_measure_run(const char *cmd, zs_context *ctx, zs_operator *op, const zs_encoded *E,
                             const zs_matrix *A, zs_cli_measure *m) {
  const zs_type type = zs_encoded_type(E);
  const size_t es = zs_type_size(type);
  const int64_t rows = zs_encoded_rows(E), cols = zs_encoded_cols(E);
  const char *backend = zs_operator_backend(op);
  const int n = m->pair ? 2 : 1;
  side d[2] = {{.op = m->pair ? ZS_OP_N : m->op}, {.op = ZS_OP_T}};
  double *times = malloc((size_t)(m->repeat > 0 ? m->repeat : 1) * sizeof *times);
  zs_status s = ZS_OK;
  int host_oom = !times;
  m->bytes = zs_encoded_bytes(E);
  m->max_rel_err = 0.0, m->tolerance = 0.0, m->check_ok = 1, m->len_max = 0;
  zs_cli_rng rng = {m->seed};
  uint64_t need = 0; /* host copies (double + value type + download), the backend's, the check */
  for (int k = 0; k < n; k++) {
    d[k].nx = d[k].op == ZS_OP_N ? cols : rows, d[k].ny = d[k].op == ZS_OP_N ? rows : cols;
    m->bytes += (uint64_t)(d[k].nx + d[k].ny) * es;
    need += (uint64_t)d[k].nx * (8 + 2 * es) + (uint64_t)d[k].ny * (8 + 3 * es);
    if (m->check) need += (uint64_t)d[k].ny * (sizeof(long double) + 8);
  }
  if (zs_cli_memory_check(cmd, "the vectors", need)) {
    s = ZS_ERR_OUT_OF_MEMORY;
    free(times);
    return s;
  }
  if (host_oom) {
    s = ZS_ERR_OUT_OF_MEMORY;
    goto done;
  }
  for (int k = 0; k < n; k++)
    if ((s = side_setup(&d[k], ctx, backend, type, &rng, &host_oom)) != ZS_OK) goto done;

  /* Timing: alpha 1, beta 0, so y is only written. */
  if ((s = product(op, m, d, 1.0, 0.0)) != ZS_OK) goto done;
  const int batch = m->batch > 1 ? m->batch : 1;
  for (int r = 0; r < m->repeat; r++) {
    if ((s = zs_operator_sync(op)) != ZS_OK) goto done;
    const double t0 = zs_cli_now();
    for (int b = 0; b + 1 < batch && s == ZS_OK; b++) s = issue(op, m, d, 1.0, 0.0);
    if (s != ZS_OK || (s = product(op, m, d, 1.0, 0.0)) != ZS_OK) goto done;
    times[r] = (zs_cli_now() - t0) / batch;
  }
  if (m->repeat > 0) {
    m->time_median_s = zs_cli_median(times, m->repeat);
    m->time_min_s = times[0]; /* sorted by the median */
    m->gbps = m->time_median_s > 0 ? (double)m->bytes / m->time_median_s / 1e9 : 0.0;
  }

  if (m->check) {
    for (int k = 0; k < n; k++) {
      side *e = &d[k];
      e->ref = malloc((size_t)(e->ny ? e->ny : 1) * sizeof *e->ref);
      e->absum = malloc((size_t)(e->ny ? e->ny : 1) * sizeof *e->absum);
      if (!e->ref || !e->absum ||
          reference(A, e->op, e->xd, e->ref, e->absum, e->ny, &e->len_max)) {
        s = ZS_ERR_OUT_OF_MEMORY, host_oom = 1;
        goto done;
      }
      if (e->len_max > m->len_max) m->len_max = e->len_max;
    }
    m->tolerance = zs_cli_tolerance(type, m->len_max);
    /* 1: beta = 0 over NaN: every element must be written, old contents ignored. */
    for (int k = 0; k < n; k++) {
      for (int64_t i = 0; i < d[k].ny; i++) {
        if (type == ZS_F32)
          ((float *)d[k].yout)[i] = NAN;
        else
          ((double *)d[k].yout)[i] = NAN;
      }
      if ((s = zs_vector_upload(d[k].y, d[k].yout)) != ZS_OK) goto done;
    }
    if ((s = product(op, m, d, 1.0, 0.0)) != ZS_OK) goto done;
    double worst = 0.0;
    for (int k = 0; k < n; k++) {
      if ((s = zs_vector_download(d[k].y, d[k].yout)) != ZS_OK) goto done;
      inject_fault(type, d[k].yout, d[k].ny, k);
      const double e1 =
          max_error(type, d[k].yout, d[k].ref, d[k].absum, 1.0, 0.0, d[k].y0, d[k].ny, m->len_max);
      if (!(e1 <= worst)) worst = e1;
    }
    /* 2: general alpha and beta over a random y. */
    for (int k = 0; k < n; k++)
      if ((s = zs_vector_upload(d[k].y, d[k].yh)) != ZS_OK) goto done;
    if ((s = product(op, m, d, 0.75, -1.25)) != ZS_OK) goto done;
    for (int k = 0; k < n; k++) {
      if ((s = zs_vector_download(d[k].y, d[k].yout)) != ZS_OK) goto done;
      const double e2 = max_error(type, d[k].yout, d[k].ref, d[k].absum, 0.75, -1.25, d[k].y0,
                                  d[k].ny, m->len_max);
      if (!(e2 <= worst)) worst = e2;
    }
    m->max_rel_err = worst;
    m->check_ok = m->max_rel_err <= m->tolerance;
  }
done:
  if (host_oom)
    fprintf(stderr,
            "zsparse %s: out of memory for the host vectors and reference (%lld + %lld elements)\n",
            cmd, (long long)(d[0].nx + d[1].nx), (long long)(d[0].ny + d[1].ny));
  else if (s != ZS_OK)
    zs_cli_lib_error(cmd, s);
  for (int k = 0; k < 2; k++) side_free(&d[k]);
  free(times);
  return s;
}
