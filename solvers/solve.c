/* solve.c — CG, BiCG and BiCGSTAB on zs_spmv and the zs_vector BLAS-1, for every backend. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/zs_internal.h"
#include "zsparse_solvers.h"

static const char *const method_names[] = {NULL, "cg", "bicg", "bicgstab"};

const char *zs_solver_method_name(zs_solver_method m) {
  return m >= ZS_SOLVER_CG && m <= ZS_SOLVER_BICGSTAB ? method_names[m] : NULL;
}

zs_status zs_solver_method_from_name(const char *name, zs_solver_method *out) {
  if (!name || !out)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_solver_method_from_name: NULL argument");
  for (int m = ZS_SOLVER_CG; m <= ZS_SOLVER_BICGSTAB; m++)
    if (strcmp(name, method_names[m]) == 0) {
      *out = (zs_solver_method)m;
      return ZS_OK;
    }
  return zsi_error(ZS_ERR_INVALID_ARGUMENT, "unknown solver method '%s' (cg, bicg, bicgstab)",
                   name);
}

void zs_solver_options_init(zs_solver_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->method = ZS_SOLVER_BICGSTAB;
  o->tol = 1e-8;
  o->max_iter = 1000;
}

/* A solver: the operator, the options and the work vectors its method needs, allocated once. */
struct zs_solver {
  zs_context *ctx;
  zs_operator *A;
  zs_solver_options o;
  const char *backend;
  zs_type type;
  int64_t n;
  zs_vector *work[8];
  int n_work;
};

/* State of one solve: the system, the stopping rule and the bookkeeping. */
typedef struct solver {
  zs_operator *A, *M;
  const zs_vector *b;
  zs_vector *x;
  const zs_solver_options *o;
  zs_solver_result *res;
  zs_solver *h;
  int used; /* work vectors of h handed out so far */
  double bnorm, bd;
} solver;

#define TRY(expr)               \
  do {                          \
    zs_status s_ = (expr);      \
    if (s_ != ZS_OK) return s_; \
  } while (0)

/* The next of the work vectors zs_solver_create allocated for the method (work_vectors). */
static zs_status new_vector(solver *S, zs_vector **v) {
  *v = NULL;
  if (S->used == S->h->n_work)
    return zsi_error(ZS_ERR_INTERNAL, "zs_solve: %s needs more than its %d work vectors",
                     zs_solver_method_name(S->o->method), S->h->n_work);
  *v = S->h->work[S->used++];
  return ZS_OK;
}

static zs_status spmv(solver *S, zs_operator *op, zs_op which, double alpha, const zs_vector *x,
                      double beta, zs_vector *y) {
  if (op == S->M)
    S->res->precond_count++;
  else if (which == ZS_OP_N)
    S->res->spmv_count++;
  else
    S->res->spmvt_count++;
  return zs_spmv(op, which, alpha, x, beta, y);
}

/* BiCG's q = A p and qt = Aᵀ pt, in one pass over A where the backend fuses them. */
static zs_status spmv_pair(solver *S, const zs_vector *p, zs_vector *q, const zs_vector *pt,
                           zs_vector *qt) {
  S->res->spmv_count++, S->res->spmvt_count++;
  return zs_spmv_pair(S->A, 1.0, p, 0.0, q, 1.0, pt, 0.0, qt);
}

/* z = M^-1 r (or M^-T); without a preconditioner z is r itself and nothing runs. */
static zs_status precondition(solver *S, zs_op which, const zs_vector *r, zs_vector *z) {
  if (!S->M) return ZS_OK;
  return spmv(S, S->M, which, 1.0, r, 0.0, z);
}

/* Record ||r_k|| / ||b|| as iterate k's residual; 1 when it meets the tolerance. */
static int record(solver *S, int64_t k, double rnorm) {
  const double rel = rnorm / S->bnorm;
  S->res->iterations = k;
  S->res->rel_residual = rel;
  if (S->o->history && k < S->o->history_cap) {
    S->o->history[k] = rel;
    S->res->history_len = k + 1;
  }
  return rel <= S->o->tol;
}

/* Iteration k failed; result->iterations counts those completed before it (k - 1, or k when
 * BiCGSTAB's half step was kept), and the message gives both so that it agrees with them. */
static zs_status breakdown(solver *S, const char *what, int64_t k, double value, double scale) {
  S->res->stop_reason = what;
  return zsi_error(ZS_ERR_BREAKDOWN,
                   "%s: breakdown in iteration %" PRId64 " (%" PRId64
                   " completed): %s = %.3e (threshold %.3e)",
                   zs_solver_method_name(S->o->method), k, S->res->iterations, what, value, scale);
}

/* A divisor is usable when it is finite and |d| > bd * scale (scale 0: only d != 0). */
static int vanishes(const solver *S, double d, double scale) {
  return !isfinite(d) || d == 0.0 || fabs(d) <= S->bd * scale;
}

static zs_status norm(const zs_vector *v, double *out) { return zs_vector_nrm2(v, out); }

/* A residual that is not finite, or has grown past ||b|| / breakdown_tol, means a divisor was
 * tiny without being caught (tests that would need extra norms are not made). */
static zs_status residual_check(solver *S, int64_t k, double rnorm) {
  if (!isfinite(rnorm)) return breakdown(S, "residual not finite", k, rnorm, 0.0);
  if (rnorm > S->bnorm / S->bd)
    return breakdown(S, "residual diverged", k, rnorm / S->bnorm, 1.0 / S->bd);
  return ZS_OK;
}

/* Preconditioned CG (Templates, Fig. 2.5): one SpMV, two dots, three axpby per iteration. */
static zs_status run_cg(solver *S, zs_vector *r, double rnorm) {
  zs_vector *p, *q, *z = r;
  TRY(new_vector(S, &p));
  TRY(new_vector(S, &q));
  if (S->M) TRY(new_vector(S, &z));
  double rho;
  TRY(precondition(S, ZS_OP_N, r, z));
  if (S->M)
    TRY(zs_vector_dot(r, z, &rho));
  else
    rho = rnorm * rnorm;
  TRY(zs_vector_copy(p, z));
  for (int64_t k = 1; k <= S->o->max_iter; k++) {
    /* M must be positive definite too: r'M^-1 r <= 0 means it is not. */
    if (!(rho > 0.0) || !isfinite(rho)) return breakdown(S, "rho", k, rho, 0.0);
    double pq;
    TRY(spmv(S, S->A, ZS_OP_N, 1.0, p, 0.0, q));
    TRY(zs_vector_dot(p, q, &pq));
    /* p'Ap <= 0: A is not positive definite, CG's step is undefined. */
    if (!(pq > 0.0) || !isfinite(rho / pq)) return breakdown(S, "p'Ap", k, pq, 0.0);
    const double alpha = rho / pq;
    /* r first: a step that breaks down leaves x at the last good iterate. */
    TRY(zs_vector_axpby(-alpha, q, 1.0, r));
    TRY(norm(r, &rnorm));
    TRY(residual_check(S, k, rnorm));
    TRY(zs_vector_axpby(alpha, p, 1.0, S->x));
    if (record(S, k, rnorm)) return ZS_OK;
    if (k == S->o->max_iter) break;
    double rho_next;
    TRY(precondition(S, ZS_OP_N, r, z));
    if (S->M)
      TRY(zs_vector_dot(r, z, &rho_next));
    else
      rho_next = rnorm * rnorm;
    const double beta = rho_next / rho;
    rho = rho_next;
    TRY(zs_vector_axpby(1.0, z, beta, p));
  }
  return ZS_INFO_NOT_CONVERGED;
}

/* Preconditioned BiCG (Templates, Fig. 2.8) with shadow residual r~0 = r0: one SpMV and one
 * SpMVT per iteration. The vector work, which rivals the two products, takes three passes: the
 * dot p~'q, the residual update (r, r~, and r.r~ and ||r|| with them) and the direction update
 * (x, p, p~), which the GPU backends fuse (zs_vector_residual_update). No norm is computed for
 * the breakdown tests alone. */
static zs_status run_bicg(solver *S, zs_vector *r, double rnorm) {
  zs_vector *rt, *p, *pt, *q, *qt, *z = r, *zt;
  TRY(new_vector(S, &rt));
  TRY(new_vector(S, &p));
  TRY(new_vector(S, &pt));
  TRY(new_vector(S, &q));
  TRY(new_vector(S, &qt));
  zt = rt;
  if (S->M) {
    TRY(new_vector(S, &z));
    TRY(new_vector(S, &zt));
  }
  TRY(zs_vector_copy(rt, r));
  double rho = rnorm * rnorm; /* z'r~ = r'r without a preconditioner */
  TRY(precondition(S, ZS_OP_N, r, z));
  TRY(precondition(S, ZS_OP_T, rt, zt));
  if (S->M) TRY(zs_vector_dot(z, rt, &rho));
  TRY(zs_vector_copy(p, z));
  TRY(zs_vector_copy(pt, zt));
  for (int64_t k = 1; k <= S->o->max_iter; k++) {
    /* ||r~|| would make this test scale-free but costs a dot per iteration; a near-zero rho
     * that slips through makes the residual grow, which residual_check catches. */
    if (vanishes(S, rho, 0.0)) return breakdown(S, "rho", k, rho, 0.0);
    double sigma, rho_next, rr;
    TRY(spmv_pair(S, p, q, pt, qt));
    TRY(zs_vector_dot(pt, q, &sigma));
    if (vanishes(S, sigma, 0.0) || !isfinite(rho / sigma))
      return breakdown(S, "p~'Ap", k, sigma, 0.0);
    const double alpha = rho / sigma;
    TRY(zs_vector_residual_update(alpha, q, r, qt, rt, &rho_next, &rr));
    rnorm = sqrt(rr);
    /* x still holds the last good iterate if this step broke down */
    TRY(residual_check(S, k, rnorm));
    const int converged = record(S, k, rnorm);
    if (converged || k == S->o->max_iter) {
      TRY(zs_vector_axpby(alpha, p, 1.0, S->x));
      return converged ? ZS_OK : ZS_INFO_NOT_CONVERGED;
    }
    if (S->M) {
      TRY(precondition(S, ZS_OP_N, r, z));
      TRY(precondition(S, ZS_OP_T, rt, zt));
      TRY(zs_vector_dot(z, rt, &rho_next));
    }
    /* rho_next ~ 0 is caught at the top of the next iteration, after x has taken this step */
    TRY(zs_vector_direction_update(alpha, p, S->x, rho_next / rho, z, zt, pt));
    rho = rho_next;
  }
  return ZS_INFO_NOT_CONVERGED;
}

/* Right-preconditioned BiCGSTAB (Templates, Fig. 2.10) with r^ = r0: two SpMVs, six dots, six
 * axpby per iteration. s overwrites r, whose old value is not needed again. */
static zs_status run_bicgstab(solver *S, zs_vector *r, double rnorm) {
  zs_vector *rh, *p, *v, *t, *ph, *sh;
  TRY(new_vector(S, &rh));
  TRY(new_vector(S, &p));
  TRY(new_vector(S, &v));
  TRY(new_vector(S, &t));
  ph = p;
  sh = r;
  if (S->M) {
    TRY(new_vector(S, &ph));
    TRY(new_vector(S, &sh));
  }
  TRY(zs_vector_copy(rh, r));
  const double rhnorm = rnorm;
  double rho_prev = 1.0, alpha = 1.0, omega = 1.0;
  for (int64_t k = 1; k <= S->o->max_iter; k++) {
    double rho;
    TRY(zs_vector_dot(rh, r, &rho));
    if (vanishes(S, rho, rhnorm * rnorm))
      return breakdown(S, "rho", k, rho, S->bd * rhnorm * rnorm);
    if (k == 1) {
      TRY(zs_vector_copy(p, r));
    } else {
      const double beta = (rho / rho_prev) * (alpha / omega);
      TRY(zs_vector_axpby(-omega, v, 1.0, p));
      TRY(zs_vector_axpby(1.0, r, beta, p));
    }
    TRY(precondition(S, ZS_OP_N, p, ph));
    double rv;
    TRY(spmv(S, S->A, ZS_OP_N, 1.0, ph, 0.0, v));
    TRY(zs_vector_dot(rh, v, &rv));
    if (vanishes(S, rv, 0.0) || !isfinite(rho / rv)) return breakdown(S, "r^'v", k, rv, 0.0);
    alpha = rho / rv;
    /* The half step x + alpha p^ is a valid iterate whatever omega turns out to be; x moves
     * only once its residual s is known to be sound. */
    TRY(zs_vector_axpby(-alpha, v, 1.0, r));
    double snorm;
    TRY(norm(r, &snorm));
    TRY(residual_check(S, k, snorm));
    TRY(zs_vector_axpby(alpha, ph, 1.0, S->x));
    if (snorm / S->bnorm <= S->o->tol) {
      record(S, k, snorm);
      return ZS_OK;
    }
    TRY(precondition(S, ZS_OP_N, r, sh));
    double tt, ts;
    TRY(spmv(S, S->A, ZS_OP_N, 1.0, sh, 0.0, t));
    TRY(zs_vector_dot(t, t, &tt));
    TRY(zs_vector_dot(t, r, &ts));
    if (vanishes(S, ts, sqrt(tt) * snorm) || !isfinite(ts / tt)) {
      record(S, k, snorm);
      return breakdown(S, "omega", k, ts, S->bd * sqrt(tt) * snorm);
    }
    omega = ts / tt;
    /* x before r: s^ is r itself without a preconditioner. This step cannot make the residual
     * grow (omega minimises ||s - omega t||), so no check sits between. */
    TRY(zs_vector_axpby(omega, sh, 1.0, S->x));
    TRY(zs_vector_axpby(-omega, t, 1.0, r));
    TRY(norm(r, &rnorm));
    TRY(residual_check(S, k, rnorm));
    if (record(S, k, rnorm)) return ZS_OK;
    rho_prev = rho;
  }
  return ZS_INFO_NOT_CONVERGED;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static zs_status check_options(const zs_solver_options *o) {
  if (!zs_solver_method_name(o->method))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_solve: method %d is not cg, bicg or bicgstab",
                     (int)o->method);
  if (!(o->tol > 0.0) || !isfinite(o->tol))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_solve: tol %g must be finite and > 0", o->tol);
  if (o->max_iter < 0)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_solve: max_iter %" PRId64 " is negative",
                     o->max_iter);
  if (!(o->breakdown_tol >= 0.0) || !isfinite(o->breakdown_tol))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_solve: breakdown_tol %g must be finite and >= 0",
                     o->breakdown_tol);
  if (o->history_cap < 0 || (o->history_cap > 0 && !o->history))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_solve: history_cap %" PRId64 " needs a history buffer that long",
                     o->history_cap);
  return ZS_OK;
}

static zs_status check_vector(const zs_solver *h, const zs_vector *v, const char *name) {
  if (zs_vector_size(v) != h->n || zs_vector_type(v) != h->type)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_solve: %s is %s[%" PRId64 "] but the operator needs %s[%" PRId64 "]", name,
                     zs_type_name(zs_vector_type(v)), zs_vector_size(v), zs_type_name(h->type),
                     h->n);
  return ZS_OK;
}

static zs_status solve(solver *S) {
  zs_vector *r;
  TRY(zs_vector_nrm2(S->b, &S->bnorm));
  if (!isfinite(S->bnorm))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_solve: b holds NaN or Inf (||b|| = %g)",
                     S->bnorm);
  if (S->bnorm == 0.0) {
    /* x = 0 solves A x = 0 exactly; no relative residual exists to iterate on. */
    TRY(zs_vector_fill(S->x, 0.0));
    S->bnorm = 1.0;
    record(S, 0, 0.0);
    return ZS_OK;
  }
  TRY(new_vector(S, &r));
  TRY(zs_vector_copy(r, S->b));
  double rnorm = S->bnorm; /* r0 = b when x0 = 0 */
  if (S->o->x0_given) {
    TRY(spmv(S, S->A, ZS_OP_N, -1.0, S->x, 1.0, r));
    TRY(norm(r, &rnorm));
    if (!isfinite(rnorm))
      return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                       "zs_solve: the initial residual b - A x0 is not finite (x0 holds NaN/Inf "
                       "or overflows)");
  } else {
    TRY(zs_vector_fill(S->x, 0.0));
  }
  if (record(S, 0, rnorm)) return ZS_OK;
  switch (S->o->method) {
  case ZS_SOLVER_CG: return run_cg(S, r, rnorm);
  case ZS_SOLVER_BICG: return run_bicg(S, r, rnorm);
  default: return run_bicgstab(S, r, rnorm);
  }
}

/* Work vectors per method: r and the method's own (solve and run_* take them in this number). */
static int work_vectors(zs_solver_method m, int preconditioned) {
  switch (m) {
  case ZS_SOLVER_CG: return 3 + preconditioned;       /* r p q, z */
  case ZS_SOLVER_BICG: return 6 + 2 * preconditioned; /* r r~ p p~ q q~, z z~ */
  default: return 5 + 2 * preconditioned;             /* r r^ p v t, p^ s^ */
  }
}

zs_status zs_solver_create(zs_solver **out, zs_context *ctx, zs_operator *A,
                           const zs_solver_options *opts) {
  if (!out || !ctx || !A)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_solver_create: NULL argument");
  *out = NULL;
  zs_solver_options defaults;
  if (!opts) {
    zs_solver_options_init(&defaults);
    opts = &defaults;
  }
  TRY(check_options(opts));
  if (zs_operator_rows(A) != zs_operator_cols(A))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_solve: the operator is %" PRId64 " x %" PRId64
                     "; a solver needs a "
                     "square one",
                     zs_operator_rows(A), zs_operator_cols(A));
  zs_solver *h = calloc(1, sizeof *h);
  if (!h) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "zs_solver_create");
  *h = (zs_solver){.ctx = ctx,
                   .A = A,
                   .o = *opts,
                   .backend = zs_operator_backend(A),
                   .type = zs_operator_type(A),
                   .n = zs_operator_rows(A)};
  const int want = work_vectors(opts->method, opts->precond != NULL);
  zs_status s = ZS_OK;
  while (s == ZS_OK && h->n_work < want) {
    s = zs_vector_create(&h->work[h->n_work], ctx, h->backend, h->type, h->n);
    if (s == ZS_OK) h->n_work++;
  }
  if (s != ZS_OK) {
    zs_solver_destroy(&h);
    return s;
  }
  *out = h;
  return ZS_OK;
}

void zs_solver_destroy(zs_solver **h) {
  if (!h || !*h) return;
  for (int i = 0; i < (*h)->n_work; i++) zs_vector_destroy(&(*h)->work[i]);
  free(*h);
  *h = NULL;
}

zs_status zs_solver_solve(zs_solver *h, const zs_vector *b, zs_vector *x,
                          zs_solver_result *result) {
  zs_solver_result local;
  if (!result) result = &local;
  memset(result, 0, sizeof *result);
  result->rel_residual = NAN;
  result->stop_reason = "error";
  if (!h || !b || !x)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_solver_solve: solver, b or x is NULL");
  TRY(check_vector(h, b, "b"));
  TRY(check_vector(h, x, "x"));
  const zs_solver_options *o = &h->o;
  solver S = {.A = h->A, .M = o->precond, .b = b, .x = x, .o = o, .res = result, .h = h};
  S.bd = o->breakdown_tol > 0.0 ? o->breakdown_tol
                                : 100.0 * (h->type == ZS_F32 ? FLT_EPSILON : DBL_EPSILON);
  const double t0 = now_s();
  zs_status s = solve(&S);
  const zs_status s_sync = zs_operator_sync(h->A);
  result->time_s = now_s() - t0;
  if (s == ZS_OK) {
    result->stop_reason = "converged";
  } else if (s == ZS_INFO_NOT_CONVERGED) {
    result->stop_reason = "max_iter";
    zsi_error(ZS_INFO_NOT_CONVERGED,
              "%s: not converged after %" PRId64 " iterations: ||r||/||b|| = %.3e > tol %.3e",
              zs_solver_method_name(o->method), result->iterations, result->rel_residual, o->tol);
  }
  if (s >= 0 && s_sync != ZS_OK) return s_sync;
  return s;
}

zs_status zs_solve(zs_context *ctx, zs_operator *A, const zs_vector *b, zs_vector *x,
                   const zs_solver_options *opts, zs_solver_result *result) {
  if (result) {
    memset(result, 0, sizeof *result);
    result->rel_residual = NAN;
    result->stop_reason = "error";
  }
  if (!ctx || !A || !b || !x)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_solve: ctx, A, b or x is NULL");
  zs_solver *h;
  TRY(zs_solver_create(&h, ctx, A, opts));
  const zs_status s = zs_solver_solve(h, b, x, result);
  zs_solver_destroy(&h);
  return s;
}
