/* zsparse_solvers.h — Krylov solvers (CG, BiCG, BiCGSTAB) written on the public zsparse API. */
#ifndef ZSPARSE_SOLVERS_H
#define ZSPARSE_SOLVERS_H

#include "zsparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The solvers use only zs_spmv and the zs_vector BLAS-1, so they run on every backend and every
 * format an operator can be created for; their work vectors live on the operator's backend and
 * nothing is copied to the host but the scalars of dot products. */

typedef enum zs_solver_method {
  ZS_SOLVER_CG = 1,       /* A symmetric positive definite: one SpMV per iteration */
  ZS_SOLVER_BICG = 2,     /* any square A: one SpMV and one SpMVT per iteration */
  ZS_SOLVER_BICGSTAB = 3, /* any square A: two SpMVs per iteration, no SpMVT */
} zs_solver_method;

/* "cg", "bicg", "bicgstab"; NULL for an unknown method. */
ZS_API const char *zs_solver_method_name(zs_solver_method m);
/* Parse a method name; ZS_ERR_INVALID_ARGUMENT for an unknown one. */
ZS_API zs_status zs_solver_method_from_name(const char *name, zs_solver_method *out);

typedef struct zs_solver_options {
  zs_solver_method method;
  double tol;       /* stop when ||b - A x_k|| / ||b|| <= tol (recurrence residual); > 0 */
  int64_t max_iter; /* stop after this many iterations (>= 0) */
  /* Preconditioner M^-1 as an operator on the same backend and value type, applied as
   * z = M^-1 r (and z~ = M^-T r~ in BiCG), or NULL for none. zs_solver_jacobi makes one. */
  zs_operator *precond;
  /* Breakdown: a divisor (rho, p'Ap, omega, ...) that is zero or not finite, or where both
   * norms of its dot product are at hand, |d| <= breakdown_tol * |u| |v|; and a residual that
   * grows past ||b|| / breakdown_tol (docs/solvers.md lists the tests per method). 0 selects
   * 100 * eps of the vectors' type. */
  double breakdown_tol;
  int x0_given; /* 1: x holds the initial guess; 0: start from x = 0 */
  /* Caller-owned buffer for the residual history: history[k] = ||r_k|| / ||b|| for
   * k = 0 .. min(iterations, history_cap - 1). NULL (or history_cap 0) keeps none. */
  double *history;
  int64_t history_cap;
} zs_solver_options;

/* Defaults: method BiCGSTAB, tol 1e-8, max_iter 1000, no preconditioner, automatic
 * breakdown_tol, x0_given 0, no history. */
ZS_API void zs_solver_options_init(zs_solver_options *o); /* NULL o: nothing */

typedef struct zs_solver_result {
  int64_t iterations;    /* iterations completed (a BiCGSTAB half step counts as one) */
  double rel_residual;   /* ||r|| / ||b|| of the recurrence at the last iterate */
  int64_t history_len;   /* entries written to options.history */
  int64_t spmv_count;    /* products with A (ZS_OP_N), the initial residual included */
  int64_t spmvt_count;   /* products with A^T (ZS_OP_T) */
  int64_t precond_count; /* applications of the preconditioner (either direction) */
  double time_s;         /* wall time of the solve, the backend synchronised at the end; the
                          * work vectors are allocated before the clock starts */
  /* Why it stopped: "converged", "max_iter", "error", or what broke down: "rho", "p'Ap" (CG),
   * "p~'Ap" (BiCG), "r^'v", "omega" (BiCGSTAB), "residual not finite", "residual diverged".
   * Static storage. */
  const char *stop_reason;
} zs_solver_result;

/* Solve A x = b. A: square operator (rows == cols == size of b and x); b and x live on A's
 * backend with A's value type; x is the initial guess when opts->x0_given, else overwritten with
 * 0 first, and holds the last iterate on return. ctx: the context A was created in (work vectors
 * are allocated there). opts NULL: zs_solver_options_init's defaults. result may be NULL.
 * Returns:
 *   ZS_OK                  converged (b = 0 converges at once to x = 0)
 *   ZS_INFO_NOT_CONVERGED  max_iter reached first; x holds the last iterate
 *   ZS_ERR_BREAKDOWN       a divisor vanished (see breakdown_tol) or the residual stopped being
 *                          finite; x holds the last finite iterate, never NaN; the message and
 *                          result->stop_reason name the quantity and iteration
 *   ZS_ERR_INVALID_ARGUMENT, ZS_ERR_OUT_OF_MEMORY, ZS_ERR_DEVICE, ... from the vector and
 *                          operator calls, passed through with their message.
 * Thread safety: distinct operators and vectors may be solved on from several threads. */
/* zs_solve = zs_solver_create + zs_solver_solve + zs_solver_destroy. */
ZS_API zs_status zs_solve(zs_context *ctx, zs_operator *A, const zs_vector *b, zs_vector *x,
                          const zs_solver_options *opts, zs_solver_result *result);

/* A solver bound to a square operator A, for repeated solves: the work vectors of opts->method
 * (3 to 8 vectors of A's size) are allocated here, on A's backend with A's value type, so
 * zs_solver_solve allocates nothing (the solves of several right-hand sides, timed loops).
 * opts is copied (NULL: the defaults); the preconditioner and history buffer it names, A and
 * ctx must outlive the solver. Errors: ZS_ERR_INVALID_ARGUMENT (options as zs_solve, A not
 * square), ZS_ERR_OUT_OF_MEMORY, ZS_ERR_DEVICE. */
typedef struct zs_solver zs_solver;
ZS_API zs_status zs_solver_create(zs_solver **out, zs_context *ctx, zs_operator *A,
                                  const zs_solver_options *opts);
/* zs_solve with the solver's operator and options; b and x as there. One solve at a time per
 * solver (its work vectors are shared). */
ZS_API zs_status zs_solver_solve(zs_solver *s, const zs_vector *b, zs_vector *x,
                                 zs_solver_result *result);
ZS_API void zs_solver_destroy(zs_solver **s);

/* Jacobi preconditioner M^-1 = diag(A)^-1 of a square matrix, as a CSR operator on `backend`
 * (NULL: the default) with A's value type. A zero or missing diagonal entry is
 * ZS_ERR_INVALID_ARGUMENT naming the row; A not square likewise. */
ZS_API zs_status zs_solver_jacobi(zs_operator **out, zs_context *ctx, const zs_matrix *A,
                                  const char *backend);

/* A copy of the square matrix A whose diagonal is replaced by
 * a_ii = sum_{j != i} |a_ij| + margin (inserted where A has none): strictly diagonally
 * dominant for margin > 0, with A's off-diagonal entries and value type. Used to make random
 * test and benchmark systems solvable. ZS_ERR_INVALID_ARGUMENT when A is not square or margin is
 * not finite and > 0; ZS_ERR_OVERFLOW when the extra entries pass the nnz limit. */
ZS_API zs_status zs_matrix_make_dominant(zs_matrix **out, const zs_matrix *A, double margin);

#ifdef __cplusplus
}
#endif
#endif /* ZSPARSE_SOLVERS_H */
