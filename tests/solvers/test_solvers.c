/* test_solvers.c — CG, BiCG and BiCGSTAB on every format and on ref and cpu: convergence to a
 * known solution, iteration counts across formats, backends and thread counts, breakdown,
 * limits, arguments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/check.h"
#include "../common/generated.h"
#include "../common/test_matrices.h"
#include "../common/test_random.h"
#include "../common/typed_element.h"
#include "zsparse.h"
#include "zsparse_solvers.h"

/* ---- formats under test: "--format NAME[:OPTIONS]" (meson's zs_formats), default csr, coo ---- */
typedef struct fcase {
  zs_format format;
  char options[96];
  const char *label;
} fcase;
static fcase formats[32];
static int n_formats;
static const char *const backends[] = {"ref", "cpu"};
#define N_BACKENDS 2

static int add_format(const char *arg) {
  if (n_formats == 32) return 0;
  fcase *f = &formats[n_formats];
  char name[32];
  const char *colon = strchr(arg, ':');
  const size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
  if (len >= sizeof name) return 0;
  memcpy(name, arg, len), name[len] = '\0';
  if (zs_format_from_name(name, &f->format) != ZS_OK) return 0;
  snprintf(f->options, sizeof f->options, "%s", colon ? colon + 1 : "");
  f->label = arg;
  n_formats++;
  return 1;
}

/* ---- deterministic x* in [-1, 1] (splitmix64) ---- */
static double *random_x(int64_t n, uint64_t s) {
  double *x = malloc((size_t)(n ? n : 1) * sizeof *x);
  for (int64_t i = 0; i < n; i++) x[i] = zs_test_unit(&s);
  return x;
}

/* y = A x in long double, rounded once: every backend gets the same b. */
static void host_spmv(const zs_matrix *A, const double *x, double *y) {
  const int64_t *rp;
  const int32_t *ci;
  const void *v;
  zs_matrix_csr(A, &rp, &ci, &v);
  for (int64_t i = 0; i < zs_matrix_rows(A); i++) {
    long double s = 0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      s += (long double)zs_test_element(v, zs_matrix_type(A), k) * x[ci[k]];
    y[i] = (double)s;
  }
}

/* ---- one solve: encode, upload, b = A x*, solve from 0, compare on the host ---- */
typedef struct outcome {
  zs_status status;
  zs_solver_result res;
  double err;      /* ||x - x*|| / ||x*|| */
  double true_res; /* ||b - A x|| / ||b||, long double on the host */
  int finite;      /* every x_i finite */
  uint64_t x_bits; /* FNV-1a of x's bytes as downloaded: tells bitwise equal solutions apart */
} outcome;

static int to_vector(zs_vector *v, const double *h, zs_type t, int64_t n) {
  if (t == ZS_F64) return zs_vector_upload(v, h) == ZS_OK;
  float *f = malloc((size_t)(n ? n : 1) * sizeof *f);
  for (int64_t i = 0; i < n; i++) f[i] = (float)h[i];
  const int ok = zs_vector_upload(v, f) == ZS_OK;
  free(f);
  return ok;
}

static int from_vector(const zs_vector *v, double *h, zs_type t, int64_t n) {
  if (t == ZS_F64) return zs_vector_download(v, h) == ZS_OK;
  float *f = malloc((size_t)(n ? n : 1) * sizeof *f);
  const int ok = zs_vector_download(v, f) == ZS_OK;
  for (int64_t i = 0; ok && i < n; i++) h[i] = f[i];
  free(f);
  return ok;
}

static outcome solve_case(zs_context *ctx, const zs_matrix *A, const fcase *f, const char *backend,
                          zs_solver_method m, int jacobi, double tol, int64_t maxit,
                          const double *xstar, const double *b_host) {
  outcome o = {.status = ZS_ERR_INTERNAL, .err = INFINITY, .true_res = INFINITY};
  const int64_t n = zs_matrix_rows(A);
  const zs_type t = zs_matrix_type(A);
  zs_encoded *E = NULL;
  zs_operator *op = NULL, *M = NULL;
  zs_vector *b = NULL, *x = NULL;
  double *hx = malloc((size_t)(n ? n : 1) * sizeof *hx);
  zs_status s;
  if ((s = zs_encode(&E, A, f->format, f->options[0] ? f->options : NULL)) != ZS_OK ||
      (s = zs_operator_create(&op, ctx, E, backend, NULL)) != ZS_OK ||
      (jacobi && (s = zs_solver_jacobi(&M, ctx, A, backend)) != ZS_OK) ||
      (s = zs_vector_create(&b, ctx, backend, t, n)) != ZS_OK ||
      (s = zs_vector_create(&x, ctx, backend, t, n)) != ZS_OK) {
    fprintf(stderr, "setup %s on %s: %s: %s\n", f->label, backend, zs_status_name(s),
            zs_last_error());
    o.status = s;
    goto done;
  }
  if (!to_vector(b, b_host, t, n)) goto done;
  zs_solver_options so;
  zs_solver_options_init(&so);
  so.method = m, so.tol = tol, so.max_iter = maxit, so.precond = M;
  o.status = zs_solve(ctx, op, b, x, &so, &o.res);
  if (!from_vector(x, hx, t, n)) goto done;
  o.x_bits = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < (size_t)n * sizeof *hx; i++)
    o.x_bits = (o.x_bits ^ ((const unsigned char *)hx)[i]) * UINT64_C(0x100000001b3);
  double e2 = 0, x2 = 0, b2 = 0;
  o.finite = 1;
  for (int64_t i = 0; i < n; i++) {
    o.finite &= isfinite(hx[i]) != 0;
    if (xstar) e2 += (hx[i] - xstar[i]) * (hx[i] - xstar[i]), x2 += xstar[i] * xstar[i];
    b2 += b_host[i] * b_host[i];
  }
  o.err = xstar ? sqrt(e2 / x2) : NAN;
  double *ax = malloc((size_t)(n ? n : 1) * sizeof *ax);
  host_spmv(A, hx, ax);
  double r2 = 0;
  for (int64_t i = 0; i < n; i++) r2 += (b_host[i] - ax[i]) * (b_host[i] - ax[i]);
  o.true_res = sqrt(r2 / b2);
  free(ax);
done:
  free(hx);
  zs_vector_destroy(&b);
  zs_vector_destroy(&x);
  zs_operator_destroy(&M);
  zs_operator_destroy(&op);
  zs_encoded_destroy(&E);
  return o;
}

/* Formats whose cpu products have CSR's bits at any thread count: SELL with sigma = 1, its
 * default (docs/formats/sell.md; the sell-csr-bits test checks the products themselves). */
static int csr_bits_on_cpu(const fcase *f) {
  if (f->format != ZS_FORMAT_SELL) return 0;
  const char *sigma = strstr(f->options, "sigma=");
  return !sigma || atol(sigma + 6) == 1;
}

/* Every format on ref and cpu from x = 0 with b = A x*. What holds in any order of summation:
 * each run converges (the solver's own residual at tol), x lies within err_max of x*, and the
 * true residual, recomputed on the host in long double, within 10 tol. Iteration counts depend
 * on the order: csr on ref (scalar, one thread) is the reference, and each cpu run must stay
 * within `spread` of it (0.02 = 2 %, at least one iteration). ref multiplies every format
 * through its decoded CSR, so one format there stands for all. On the cpu each format and
 * thread count sums in its own fixed order, which moves the count by an iteration or two on
 * these systems, and by up to a quarter where BiCG amplifies rounding (real_matrices): the
 * spread is measured over 1 to 16 threads. Formats with CSR's bits on the cpu (csr_bits_on_cpu)
 * must give csr's solve there exactly, at whatever thread count the test runs. */
static void all_formats(zs_context *ctx, const char *label, const zs_matrix *A, zs_solver_method m,
                        int jacobi, double tol, int64_t maxit, double err_max, double spread) {
  const int64_t n = zs_matrix_rows(A);
  double *xs = random_x(n, 42), *b = malloc((size_t)(n ? n : 1) * sizeof *b);
  host_spmv(A, xs, b);
  int64_t it0 = -1, lo = INT64_MAX, hi = -1;
  char count_text[32 * N_BACKENDS * 16], *counts = count_text;
  outcome on_cpu[32];
  int csr_on_cpu = -1;
  for (int fi = 0; fi < n_formats; fi++)
    for (int bi = 0; bi < N_BACKENDS; bi++) {
      const int cpu = strcmp(backends[bi], "cpu") == 0;
      if (fi > 0 && !cpu) continue;
      const outcome o =
          solve_case(ctx, A, &formats[fi], backends[bi], m, jacobi, tol, maxit, xs, b);
      const int ok = o.status == ZS_OK && o.finite && o.err <= err_max && o.true_res <= 10 * tol;
      if (!ok || fi + bi == 0)
        printf("%s %s%s %s %s/%s: %s (%s) %lld iterations, err %.2e, true residual %.2e\n",
               ok ? "ok  " : "FAIL", zs_solver_method_name(m), jacobi ? "+jacobi" : "", label,
               formats[fi].label, backends[bi], zs_status_name(o.status), o.res.stop_reason,
               (long long)o.res.iterations, o.err, o.true_res);
      CHECK(ok);
      if (cpu) on_cpu[fi] = o;
      if (cpu && formats[fi].format == ZS_FORMAT_CSR && !formats[fi].options[0]) csr_on_cpu = fi;
      if (it0 < 0) it0 = o.res.iterations;
      counts += snprintf(counts, 16, " %lld", (long long)o.res.iterations);
      if (o.res.iterations < lo) lo = o.res.iterations;
      if (o.res.iterations > hi) hi = o.res.iterations;
    }
  zs_topology topo;
  zs_context_topology(ctx, &topo);
  const int64_t slack = (int64_t)ceil(spread * (double)it0);
  printf(
      "     %s %s: iterations %lld..%lld (allowed %lld +- %lld), csr on ref, then each format on "
      "cpu (%d threads):%s\n",
      label, zs_solver_method_name(m), (long long)lo, (long long)hi, (long long)it0,
      (long long)slack, topo.threads, count_text);
  CHECK(hi - it0 <= slack && it0 - lo <= slack);
  for (int fi = 0; csr_on_cpu >= 0 && fi < n_formats; fi++) {
    if (!csr_bits_on_cpu(&formats[fi])) continue;
    const outcome *c = &on_cpu[csr_on_cpu], *o = &on_cpu[fi];
    const int same = o->res.iterations == c->res.iterations &&
                     o->res.rel_residual == c->res.rel_residual && o->x_bits == c->x_bits;
    if (!same)
      printf(
          "FAIL %s %s %s/cpu: %lld iterations, residual %.17g, x %016llx; csr/cpu: %lld, "
          "%.17g, %016llx (CSR's bits expected)\n",
          label, zs_solver_method_name(m), formats[fi].label, (long long)o->res.iterations,
          o->res.rel_residual, (unsigned long long)o->x_bits, (long long)c->res.iterations,
          c->res.rel_residual, (unsigned long long)c->x_bits);
    CHECK(same);
  }
  free(xs), free(b);
}

static zs_matrix *generated(const char *spec, zs_type t, double dominant) {
  zs_matrix *A = NULL, *D = NULL;
  A = zs_test_generate(spec, t);
  if (A && dominant > 0) {
    CHECK_STATUS(zs_matrix_make_dominant(&D, A, dominant), ZS_OK);
    zs_matrix_destroy(&A);
    return D;
  }
  return A;
}

static zs_matrix *shared_matrix(const char *dir, const char *name) {
  char path[1024];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (stat(path, &st) != 0) { /* the folder has a MANIFEST.tsv: a missing file is an error */
    printf("FAIL %s: not found\n", path);
    check_failures++;
    return NULL;
  }
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_read(&A, path, ZS_F64, 0, NULL, 0), ZS_OK);
  return A;
}

/* ---- small hand-made systems for breakdown ---- */
static zs_matrix *dense2(double a, double b, double c, double d) {
  const int64_t ri[4] = {0, 0, 1, 1}, cj[4] = {0, 1, 0, 1};
  const double v[4] = {a, b, c, d};
  zs_matrix *A = NULL;
  CHECK_STATUS(zs_matrix_from_coo(&A, 2, 2, 4, ri, cj, v, ZS_F64, 0), ZS_OK);
  return A;
}

static void expect_breakdown(zs_context *ctx, zs_matrix *A, zs_solver_method m, int jacobi,
                             const char *reason) {
  const double b[2] = {1.0, 0.0};
  const double b11[2] = {1.0, 1.0};
  const outcome o = solve_case(ctx, A, &formats[0], "cpu", m, jacobi, 1e-10, 50, NULL,
                               m == ZS_SOLVER_CG ? b11 : b);
  printf("%s %s%s breakdown: %s (%s) after %lld iterations: %s\n",
         o.status == ZS_ERR_BREAKDOWN && o.finite && strcmp(o.res.stop_reason, reason) == 0
             ? "ok  "
             : "FAIL",
         zs_solver_method_name(m), jacobi ? "+jacobi" : "", zs_status_name(o.status),
         o.res.stop_reason, (long long)o.res.iterations, zs_last_error());
  CHECK(o.status == ZS_ERR_BREAKDOWN);
  CHECK(o.finite);
  CHECK(strcmp(o.res.stop_reason, reason) == 0);
  CHECK(isfinite(o.res.rel_residual));
  zs_matrix_destroy(&A);
}

static void breakdowns(zs_context *ctx) {
  /* CG: p'Ap = 1 - 1 = 0 for p = (1, 1). */
  expect_breakdown(ctx, dense2(1, 0, 0, -1), ZS_SOLVER_CG, 0, "p'Ap");
  /* CG + Jacobi on a negative definite A: r'M^-1 r < 0. */
  expect_breakdown(ctx, dense2(-1, 0, 0, -2), ZS_SOLVER_CG, 1, "rho");
  /* BiCG: p~ = p = e1 and A e1 = e2, so p~'Ap = 0. */
  expect_breakdown(ctx, dense2(0, 1, 1, 0), ZS_SOLVER_BICG, 0, "p~'Ap");
  /* BiCGSTAB: r^'v = e1'A e1 = 0. */
  expect_breakdown(ctx, dense2(0, 1, 1, 0), ZS_SOLVER_BICGSTAB, 0, "r^'v");
  /* BiCGSTAB: alpha = 1, s = (0, -1), t = A s = (-1, 0) is orthogonal to s: omega = 0. The
   * half step x = e1 stays, and its residual is reported. */
  expect_breakdown(ctx, dense2(1, 1, 1, 0), ZS_SOLVER_BICGSTAB, 0, "omega");
}

static void limits_and_arguments(zs_context *ctx) {
  zs_matrix *A = generated("stencil2d:n=20", ZS_F64, 0);
  const int64_t n = zs_matrix_rows(A);
  zs_encoded *E = NULL;
  zs_operator *op = NULL;
  zs_vector *b = NULL, *x = NULL, *short_x = NULL;
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CSR, NULL), ZS_OK);
  CHECK_STATUS(zs_operator_create(&op, ctx, E, "cpu", NULL), ZS_OK);
  CHECK_STATUS(zs_vector_create(&b, ctx, "cpu", ZS_F64, n), ZS_OK);
  CHECK_STATUS(zs_vector_create(&x, ctx, "cpu", ZS_F64, n), ZS_OK);
  CHECK_STATUS(zs_vector_create(&short_x, ctx, "cpu", ZS_F64, n - 1), ZS_OK);
  CHECK_STATUS(zs_vector_fill(b, 1.0), ZS_OK);

  /* Iteration limit: ZS_INFO_NOT_CONVERGED, history of limit + 1 entries from 1. */
  double hist[8];
  zs_solver_options so;
  zs_solver_result res;
  zs_solver_options_init(&so);
  so.method = ZS_SOLVER_CG, so.max_iter = 5, so.history = hist, so.history_cap = 8;
  CHECK_STATUS(zs_solve(ctx, op, b, x, &so, &res), ZS_INFO_NOT_CONVERGED);
  CHECK(strstr(zs_last_error(), "not converged") != NULL);
  CHECK(res.iterations == 5 && res.history_len == 6 && hist[0] == 1.0);
  CHECK(strcmp(res.stop_reason, "max_iter") == 0);
  printf("max_iter 5: history %g %g %g %g %g %g\n", hist[0], hist[1], hist[2], hist[3], hist[4],
         hist[5]);
  CHECK(res.rel_residual == hist[5] && res.rel_residual > so.tol);
  CHECK(res.spmv_count == 5 && res.spmvt_count == 0);
  /* A shorter history buffer keeps the first entries only. */
  so.history_cap = 3;
  CHECK_STATUS(zs_solve(ctx, op, b, x, &so, &res), ZS_INFO_NOT_CONVERGED);
  CHECK(res.history_len == 3);
  /* BiCG: one SpMV and one SpMVT per iteration; BiCGSTAB two SpMVs. */
  so.method = ZS_SOLVER_BICG, so.history = NULL, so.history_cap = 0;
  CHECK_STATUS(zs_solve(ctx, op, b, x, &so, &res), ZS_INFO_NOT_CONVERGED);
  CHECK(res.spmv_count == 5 && res.spmvt_count == 5);
  so.method = ZS_SOLVER_BICGSTAB;
  CHECK_STATUS(zs_solve(ctx, op, b, x, &so, &res), ZS_INFO_NOT_CONVERGED);
  CHECK(res.spmv_count == 10 && res.spmvt_count == 0);
  /* max_iter 0 reports the initial residual. */
  so.max_iter = 0;
  CHECK_STATUS(zs_solve(ctx, op, b, x, &so, &res), ZS_INFO_NOT_CONVERGED);
  CHECK(res.iterations == 0 && res.rel_residual == 1.0);

  /* Starting at the solution converges at once; b = 0 gives x = 0. */
  zs_solver_options_init(&so);
  so.method = ZS_SOLVER_CG;
  CHECK_STATUS(zs_solve(ctx, op, b, x, &so, &res), ZS_OK);
  so.x0_given = 1;
  CHECK_STATUS(zs_solve(ctx, op, b, x, &so, &res), ZS_OK);
  CHECK(res.iterations == 0 && res.spmv_count == 1);
  CHECK_STATUS(zs_vector_fill(b, 0.0), ZS_OK);
  CHECK_STATUS(zs_solve(ctx, op, b, x, &so, &res), ZS_OK);
  double xn = -1;
  CHECK_STATUS(zs_vector_nrm2(x, &xn), ZS_OK);
  CHECK(res.iterations == 0 && xn == 0.0);

  /* Arguments. */
  CHECK_STATUS(zs_vector_fill(b, 1.0), ZS_OK);
  zs_solver_options_init(&so);
  so.tol = 0;
  CHECK_STATUS(zs_solve(ctx, op, b, x, &so, &res), ZS_ERR_INVALID_ARGUMENT);
  zs_solver_options_init(&so);
  so.max_iter = -1;
  CHECK_STATUS(zs_solve(ctx, op, b, x, &so, &res), ZS_ERR_INVALID_ARGUMENT);
  zs_solver_options_init(&so);
  so.method = (zs_solver_method)9;
  CHECK_STATUS(zs_solve(ctx, op, b, x, &so, &res), ZS_ERR_INVALID_ARGUMENT);
  zs_solver_options_init(&so);
  so.history_cap = 4;
  CHECK_STATUS(zs_solve(ctx, op, b, x, &so, &res), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_solve(ctx, op, b, short_x, NULL, &res), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_solve(ctx, NULL, b, x, NULL, &res), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zs_vector_fill(b, NAN), ZS_OK);
  CHECK_STATUS(zs_solve(ctx, op, b, x, NULL, &res), ZS_ERR_INVALID_ARGUMENT);
  /* A vector on another backend than the operator: the product refuses it. */
  zs_vector *b_ref = NULL, *x_ref = NULL;
  CHECK_STATUS(zs_vector_create(&b_ref, ctx, "ref", ZS_F64, n), ZS_OK);
  CHECK_STATUS(zs_vector_create(&x_ref, ctx, "ref", ZS_F64, n), ZS_OK);
  CHECK_STATUS(zs_vector_fill(b_ref, 1.0), ZS_OK);
  CHECK_STATUS(zs_solve(ctx, op, b_ref, x_ref, NULL, &res), ZS_ERR_INVALID_ARGUMENT);
  zs_vector_destroy(&b_ref);
  zs_vector_destroy(&x_ref);

  zs_solver_method mm;
  CHECK_STATUS(zs_solver_method_from_name("bicg", &mm), ZS_OK);
  CHECK(mm == ZS_SOLVER_BICG && strcmp(zs_solver_method_name(ZS_SOLVER_CG), "cg") == 0);
  CHECK_STATUS(zs_solver_method_from_name("gmres", &mm), ZS_ERR_INVALID_ARGUMENT);

  /* Jacobi needs every diagonal entry. */
  zs_matrix *Z = dense2(1, 2, 3, 0);
  zs_operator *M = NULL;
  CHECK_STATUS(zs_solver_jacobi(&M, ctx, Z, "cpu"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "A[1,1]") != NULL);
  CHECK(M == NULL);
  zs_matrix_destroy(&Z);

  zs_vector_destroy(&b);
  zs_vector_destroy(&x);
  zs_vector_destroy(&short_x);
  zs_operator_destroy(&op);
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
}

/* make_dominant: off-diagonal entries kept, diagonal = sum |off| + margin (inserted if absent). */
static void dominant(void) {
  zs_matrix *A = dense2(0, -2, 3, 5), *D = NULL, *R = NULL;
  CHECK_STATUS(zs_matrix_make_dominant(&D, A, 0.5), ZS_OK);
  const int64_t *rp;
  const int32_t *ci;
  const void *v;
  zs_matrix_csr(D, &rp, &ci, &v);
  const double *dv = v;
  CHECK(zs_matrix_nnz(D) == 4 && rp[1] == 2);
  CHECK(ci[0] == 0 && dv[0] == 2.5 && ci[1] == 1 && dv[1] == -2.0);
  CHECK(ci[2] == 0 && dv[2] == 3.0 && ci[3] == 1 && dv[3] == 3.5);
  CHECK_STATUS(zs_matrix_make_dominant(&R, A, 0.0), ZS_ERR_INVALID_ARGUMENT);
  zs_matrix_destroy(&A);
  zs_matrix_destroy(&D);
  CHECK_STATUS(zs_matrix_generate(&A, "erdos_renyi:rows=20,cols=30,per_row=3", ZS_F64, 0), ZS_OK);
  CHECK_STATUS(zs_matrix_make_dominant(&R, A, 1.0), ZS_ERR_INVALID_ARGUMENT);
  zs_matrix_destroy(&A);
}

/* A zs_solver reused for several right-hand sides gives what zs_solve gives for each, bit for
 * bit on the deterministic cpu backend; it refuses a non-square operator and foreign vectors. */
static void reused_solver(zs_context *ctx) {
  zs_matrix *A = generated("erdos_renyi:rows=300,per_row=6", ZS_F64, 1.0);
  if (!A) return;
  const int64_t n = zs_matrix_rows(A);
  zs_encoded *E = NULL;
  zs_operator *op = NULL, *M = NULL;
  zs_vector *b = NULL, *x = NULL, *bf = NULL;
  CHECK_STATUS(zs_encode(&E, A, ZS_FORMAT_CSR, NULL), ZS_OK);
  CHECK_STATUS(zs_operator_create(&op, ctx, E, "cpu", NULL), ZS_OK);
  CHECK_STATUS(zs_solver_jacobi(&M, ctx, A, "cpu"), ZS_OK);
  CHECK_STATUS(zs_vector_create(&b, ctx, "cpu", ZS_F64, n), ZS_OK);
  CHECK_STATUS(zs_vector_create(&x, ctx, "cpu", ZS_F64, n), ZS_OK);
  CHECK_STATUS(zs_vector_create(&bf, ctx, "cpu", ZS_F32, n), ZS_OK);
  CHECK(zs_operator_rows(op) == n && zs_operator_cols(op) == n && zs_operator_type(op) == ZS_F64);
  double *bh[2] = {random_x(n, 11), random_x(n, 12)};
  double *once = malloc((size_t)n * sizeof *once), *again = malloc((size_t)n * sizeof *again);
  for (int m = ZS_SOLVER_CG; m <= ZS_SOLVER_BICGSTAB; m++)
    for (int jac = 0; jac < 2; jac++) {
      zs_solver_options so;
      zs_solver_options_init(&so);
      so.method = (zs_solver_method)m, so.precond = jac ? M : NULL, so.max_iter = 40;
      zs_solver *h = NULL;
      CHECK_STATUS(zs_solver_create(&h, ctx, op, &so), ZS_OK);
      if (!h) continue;
      for (int k = 0; k < 4; k++) { /* b0 b1 b0 b1: the work vectors' old contents must not leak */
        zs_solver_result r1, r2;
        CHECK(to_vector(b, bh[k % 2], ZS_F64, n));
        const zs_status s1 = zs_solve(ctx, op, b, x, &so, &r1);
        CHECK(from_vector(x, once, ZS_F64, n));
        CHECK_STATUS(zs_vector_fill(x, NAN), ZS_OK);
        CHECK_STATUS(zs_solver_solve(h, b, x, &r2), s1);
        CHECK(from_vector(x, again, ZS_F64, n));
        CHECK(r1.iterations == r2.iterations && r1.rel_residual == r2.rel_residual);
        CHECK(memcmp(once, again, (size_t)n * sizeof *once) == 0);
      }
      CHECK_STATUS(zs_solver_solve(h, bf, x, NULL), ZS_ERR_INVALID_ARGUMENT);
      CHECK(strstr(zs_last_error(), "b is f32") != NULL);
      zs_solver_destroy(&h);
      CHECK(h == NULL);
    }
  zs_solver_destroy(NULL);
  /* Not square. */
  zs_matrix *R = NULL;
  zs_encoded *ER = NULL;
  zs_operator *opr = NULL;
  zs_solver *h = NULL;
  CHECK_STATUS(zs_matrix_generate(&R, "erdos_renyi:rows=20,cols=30,per_row=3", ZS_F64, 0), ZS_OK);
  CHECK_STATUS(zs_encode(&ER, R, ZS_FORMAT_CSR, NULL), ZS_OK);
  CHECK_STATUS(zs_operator_create(&opr, ctx, ER, "cpu", NULL), ZS_OK);
  CHECK_STATUS(zs_solver_create(&h, ctx, opr, NULL), ZS_ERR_INVALID_ARGUMENT);
  CHECK(h == NULL && strstr(zs_last_error(), "square") != NULL);
  CHECK_STATUS(zs_solver_create(&h, ctx, NULL, NULL), ZS_ERR_INVALID_ARGUMENT);
  zs_operator_destroy(&opr);
  zs_encoded_destroy(&ER);
  zs_matrix_destroy(&R);
  free(once), free(again), free(bh[0]), free(bh[1]);
  zs_vector_destroy(&b), zs_vector_destroy(&x), zs_vector_destroy(&bf);
  zs_operator_destroy(&M), zs_operator_destroy(&op);
  zs_encoded_destroy(&E);
  zs_matrix_destroy(&A);
}

/* The real SuiteSparse matrices with b = A x*: SPD ones with CG, nonsymmetric ones with BiCG
 * and BiCGSTAB; x* is checked only where the conditioning lets tol 1e-10 bound it. */
static void real_matrices(zs_context *ctx, const char *dir) {
  zs_matrix *A = NULL;
  static const struct {
    const char *file;
    zs_solver_method m;
    int jacobi;
    double tol;
    int64_t maxit;
    double err_max, spread;
  } cases[] = {
      {"bcsstk01.mtx", ZS_SOLVER_CG, 1, 1e-10, 300, 1e-4, 0.02},
      {"LFAT5.mtx", ZS_SOLVER_CG, 0, 1e-10, 100, 1e-2, 0.02},
      {"bcsstm25.mtx", ZS_SOLVER_CG, 1, 1e-10, 10, 1e-6, 0.02},
      {"bcsstk16.mtx.gz", ZS_SOLVER_CG, 1, 1e-10, 600, 1e-3, 0.02},
      /* Nonnormal systems, where BiCG's short recurrences lose biorthogonality and rounding
       * decides when they recover. west0067 (67 rows, condition 130) needs more iterations
       * than it has rows, and the cpu's order of summation moves the count from ref's 150 to
       * 139-188 over the formats at 1, 2, 3, 4, 8 and 16 threads (csr alone: 145-187). Half
       * of 150 either way still fails a wrong transposed product: one entry of csr's pair
       * 1e-6 off keeps it from converging in 400. memplus: ref 266, cpu 264-274. */
      {"west0067.mtx", ZS_SOLVER_BICG, 0, 1e-10, 400, 1e-4, 0.50},
      {"memplus.mtx.gz", ZS_SOLVER_BICG, 1, 1e-10, 600, 1e-3, 0.05},
      /* BiCGSTAB breaks down (rho) on the other nonsymmetric shared matrices. On memplus its
       * rho vanishes once the residual nears 3e-6 in some orders of summation (coo at one
       * thread), so it is asked for 1e-5, where x* is met to 2-3e-2: ref 295 iterations, cpu
       * 262-299 (cci 262) at 1-16 threads. */
      {"memplus.mtx.gz", ZS_SOLVER_BICGSTAB, 0, 1e-5, 1500, 5e-2, 0.15},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    if (!(A = shared_matrix(dir, cases[i].file))) continue;
    all_formats(ctx, cases[i].file, A, cases[i].m, cases[i].jacobi, cases[i].tol, cases[i].maxit,
                cases[i].err_max, cases[i].spread);
    zs_matrix_destroy(&A);
  }
}

/* test_solvers [--format F]... [--matrices DIR]: generated systems, or with --matrices only
 * the real ones (SKIP when they are absent: tests/common/test_matrices.h). */
int main(int argc, char **argv) {
  const char *dir = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
      if (!add_format(argv[++i])) {
        fprintf(stderr, "test_solvers: bad or too many --format '%s'\n", argv[i]);
        return 2;
      }
    } else if (strcmp(argv[i], "--matrices") == 0 && i + 1 < argc) {
      dir = zst_matrices_dir(argv[++i]);
    } else {
      fprintf(stderr, "usage: test_solvers [--format F]... [--matrices DIR]\n");
      return 2;
    }
  }
  if (!n_formats) add_format("csr"), add_format("coo");
  zs_context *ctx = NULL;
  CHECK_STATUS(zs_context_create(&ctx), ZS_OK);
  if (!ctx) CHECK_DONE();
  if (dir) {
    real_matrices(ctx, dir);
    zs_context_destroy(&ctx);
    CHECK_DONE();
  }

  /* Generated systems with a known solution: SPD for CG, diagonally dominant random ones
   * (nonsymmetric) for BiCG and BiCGSTAB. */
  zs_matrix *A = generated("stencil2d:n=20", ZS_F64, 0);
  all_formats(ctx, "stencil2d:n=20", A, ZS_SOLVER_CG, 0, 1e-10, 500, 1e-6, 0.02);
  all_formats(ctx, "stencil2d:n=20", A, ZS_SOLVER_CG, 1, 1e-10, 500, 1e-6, 0.02);
  /* BiCGSTAB's residual is erratic on this SPD matrix near 1e-10: ref 54, cpu 56-58. */
  all_formats(ctx, "stencil2d:n=20", A, ZS_SOLVER_BICGSTAB, 0, 1e-10, 500, 1e-6, 0.10);
  zs_matrix_destroy(&A);
  A = generated("elasticity3d:n=3", ZS_F64, 0);
  all_formats(ctx, "elasticity3d:n=3", A, ZS_SOLVER_CG, 1, 1e-10, 500, 1e-6, 0.02);
  zs_matrix_destroy(&A);
  static const char *const nonsym[] = {"erdos_renyi:rows=400,per_row=8",
                                       "banded:rows=400,width=16,per_row=8"};
  for (int i = 0; i < 2; i++) {
    A = generated(nonsym[i], ZS_F64, 1.0);
    for (int jac = 0; jac < 2; jac++) {
      all_formats(ctx, nonsym[i], A, ZS_SOLVER_BICG, jac, 1e-10, 500, 1e-6, 0.02);
      all_formats(ctx, nonsym[i], A, ZS_SOLVER_BICGSTAB, jac, 1e-10, 500, 1e-6, 0.02);
    }
    zs_matrix_destroy(&A);
  }
  /* f32: the same algorithms at single precision reach 1e-5. */
  A = generated("stencil2d:n=16", ZS_F32, 0);
  all_formats(ctx, "stencil2d:n=16 f32", A, ZS_SOLVER_CG, 0, 1e-5, 500, 1e-3, 0.02);
  zs_matrix_destroy(&A);
  A = generated("erdos_renyi:rows=300,per_row=6", ZS_F32, 1.0);
  all_formats(ctx, "erdos_renyi f32", A, ZS_SOLVER_BICG, 0, 1e-5, 500, 1e-4, 0.02);
  zs_matrix_destroy(&A);

  breakdowns(ctx);
  limits_and_arguments(ctx);
  dominant();
  reused_solver(ctx);
  zs_context_destroy(&ctx);
  CHECK_DONE();
}
