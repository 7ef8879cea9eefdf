/* test_contexts.c — several contexts and threads on one backend: each context's backend state is
 * its own, so destroying one leaves the others working, and concurrent work gives the bits a
 * lone thread gets.
 *
 *   test-contexts BACKEND     (exit 77 where BACKEND is not usable here)
 *
 * A "workload" is what an embedding application does on a context: upload vectors, SpMV and
 * SpMVT on a CSR and a CSR-dtANS operator, dots and norms, and a BiCG solve. Its results are
 * compared bit for bit: every kernel here is deterministic. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/backend_test.h"
#include "tests/common/check.h"
#include "zsparse_solvers.h"

#define N_THREADS 4
#define ROUNDS 3
#define N_RESULTS 8

static const char *backend;
static zs_encoded *E_csr, *E_dtans; /* shared, read-only: encodings are immutable */
static int64_t n;                   /* the matrix is n x n */

/* What a workload reports: dots of products, norms and the solve's answer. */
typedef struct results {
  double v[N_RESULTS];
  int64_t iterations;
  int ok;
} results;

static int same(const results *a, const results *b) {
  return a->ok && b->ok && a->iterations == b->iterations && memcmp(a->v, b->v, sizeof a->v) == 0;
}

/* x[i] = a deterministic function of i and seed, in [-0.5, 0.5). */
static void fill_host(double *x, int64_t len, unsigned seed) {
  for (int64_t i = 0; i < len; i++)
    x[i] = (double)((uint32_t)(i * 2654435761u + seed * 40503u) % 1000003u) / 1000003.0 - 0.5;
}

#define TRY(call)                                                                            \
  do {                                                                                       \
    if ((call) != ZS_OK) {                                                                   \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, zs_last_error()); \
      goto done;                                                                             \
    }                                                                                        \
  } while (0)

/* The workload on ctx's backend; r->ok = 0 when any call fails. */
static void workload(zs_context *ctx, unsigned seed, results *r) {
  memset(r, 0, sizeof *r);
  zs_operator *A = NULL, *D = NULL;
  zs_vector *x = NULL, *y = NULL, *z = NULL, *b = NULL, *sol = NULL;
  double *h = malloc((size_t)n * sizeof *h);
  if (!h) return;
  fill_host(h, n, seed);
  TRY(zs_operator_create(&A, ctx, E_csr, backend, NULL));
  TRY(zs_operator_create(&D, ctx, E_dtans, backend, NULL));
  TRY(zs_vector_create(&x, ctx, backend, ZS_F64, n));
  TRY(zs_vector_create(&y, ctx, backend, ZS_F64, n));
  TRY(zs_vector_create(&z, ctx, backend, ZS_F64, n));
  TRY(zs_vector_create(&b, ctx, backend, ZS_F64, n));
  TRY(zs_vector_create(&sol, ctx, backend, ZS_F64, n));
  TRY(zs_vector_upload(x, h));
  TRY(zs_spmv(A, ZS_OP_N, 1.0, x, 0.0, y));
  TRY(zs_vector_dot(x, y, &r->v[0]));
  TRY(zs_spmv(A, ZS_OP_T, 1.0, x, 0.0, z));
  TRY(zs_vector_dot(y, z, &r->v[1]));
  TRY(zs_spmv(D, ZS_OP_N, 2.0, y, 0.5, z));
  TRY(zs_vector_nrm2(z, &r->v[2]));
  TRY(zs_spmv(D, ZS_OP_T, 1.0, z, 0.0, y));
  TRY(zs_vector_dot(y, y, &r->v[3]));
  TRY(zs_vector_axpby(0.25, y, -1.0, x));
  TRY(zs_vector_nrm2(x, &r->v[4]));
  /* BiCG: SpMV and SpMVT every iteration, the fused updates, dots. */
  zs_solver_options o;
  zs_solver_options_init(&o);
  o.method = ZS_SOLVER_BICG, o.tol = 1e-10, o.max_iter = 200;
  zs_solver_result res;
  TRY(zs_vector_upload(b, h));
  TRY(zs_solve(ctx, A, b, sol, &o, &res));
  r->iterations = res.iterations;
  r->v[5] = res.rel_residual;
  TRY(zs_vector_nrm2(sol, &r->v[6]));
  TRY(zs_vector_dot(sol, b, &r->v[7]));
  r->ok = 1;
done:
  zs_vector_destroy(&x), zs_vector_destroy(&y), zs_vector_destroy(&z);
  zs_vector_destroy(&b), zs_vector_destroy(&sol);
  zs_operator_destroy(&A), zs_operator_destroy(&D);
  free(h);
}

/* Two contexts, the first destroyed while the second's work goes on. */
static void destroy_one_keep_other(const results *want) {
  zs_context *c1 = NULL, *c2 = NULL;
  CHECK_STATUS(zs_context_create(&c1), ZS_OK);
  CHECK_STATUS(zs_context_create(&c2), ZS_OK);
  if (!c1 || !c2) return;
  results r1, r2;
  workload(c1, 1, &r1);
  workload(c2, 1, &r2);
  CHECK(same(&r1, want) && same(&r2, want));
  /* The second context's objects made before the first goes away must keep working too. */
  zs_vector *x = NULL, *y = NULL;
  double d = 0;
  CHECK_STATUS(zs_vector_create(&x, c2, backend, ZS_F64, n), ZS_OK);
  CHECK_STATUS(zs_vector_create(&y, c2, backend, ZS_F64, n), ZS_OK);
  CHECK_STATUS(zs_vector_fill(x, 2.0), ZS_OK);
  CHECK_STATUS(zs_vector_fill(y, 0.5), ZS_OK);
  zs_context_destroy(&c1);
  CHECK(c1 == NULL);
  CHECK_STATUS(zs_vector_dot(x, y, &d), ZS_OK);
  CHECK(d == (double)n);
  workload(c2, 1, &r2);
  CHECK(same(&r2, want));
  /* A fresh context after one was destroyed, beside the survivor. */
  CHECK_STATUS(zs_context_create(&c1), ZS_OK);
  if (c1) {
    workload(c1, 1, &r1);
    CHECK(same(&r1, want));
  }
  zs_vector_destroy(&x), zs_vector_destroy(&y);
  zs_context_destroy(&c2);
  zs_context_destroy(&c1);
}

/* A vector of one context is refused by another's, though both run the same backend. */
static void contexts_do_not_mix(void) {
  zs_context *c1 = NULL, *c2 = NULL;
  CHECK_STATUS(zs_context_create(&c1), ZS_OK);
  CHECK_STATUS(zs_context_create(&c2), ZS_OK);
  zs_vector *a = NULL, *b = NULL;
  double d;
  if (c1 && c2 && zs_vector_create(&a, c1, backend, ZS_F64, 10) == ZS_OK &&
      zs_vector_create(&b, c2, backend, ZS_F64, 10) == ZS_OK) {
    CHECK_STATUS(zs_vector_dot(a, b, &d), ZS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zs_last_error(), "different contexts") != NULL);
  } else {
    CHECK(0);
  }
  zs_vector_destroy(&a), zs_vector_destroy(&b);
  zs_context_destroy(&c1), zs_context_destroy(&c2);
}

typedef struct job {
  zs_context *shared; /* NULL: the thread makes and destroys a context of its own */
  unsigned seed;
  results r[ROUNDS];
  int made;
} job;

static void *run_job(void *arg) {
  job *j = arg;
  zs_context *ctx = j->shared;
  if (!ctx && zs_context_create(&ctx) != ZS_OK) return NULL;
  j->made = 1;
  for (int k = 0; k < ROUNDS; k++) workload(ctx, j->seed, &j->r[k]);
  if (!j->shared) zs_context_destroy(&ctx);
  return NULL;
}

/* N_THREADS threads at once, each with its own context (shared == NULL) or all on one context
 * with distinct vectors and operators; every round gives the bits of a lone run. */
static void threads_at_once(zs_context *shared, const results want[N_THREADS]) {
  job jobs[N_THREADS];
  pthread_t t[N_THREADS];
  memset(jobs, 0, sizeof jobs);
  int started[N_THREADS] = {0};
  for (int i = 0; i < N_THREADS; i++) {
    jobs[i].shared = shared, jobs[i].seed = (unsigned)i + 1;
    started[i] = pthread_create(&t[i], NULL, run_job, &jobs[i]) == 0;
    CHECK(started[i]);
  }
  for (int i = 0; i < N_THREADS; i++) {
    if (!started[i]) continue;
    pthread_join(t[i], NULL);
    CHECK(jobs[i].made);
    for (int k = 0; k < ROUNDS; k++)
      if (!same(&jobs[i].r[k], &want[i])) {
        fprintf(stderr, "%s context, thread %d, round %d: results differ from a lone run\n",
                shared ? "shared" : "own", i, k);
        CHECK(0);
      }
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s BACKEND\n", argv[0]);
    return 2;
  }
  backend = argv[1];
  zs_context *ctx = NULL;
  const int rc = zs_test_context_for(backend, &ctx);
  if (rc) return rc;
  /* A diagonally dominant 2-D stencil: BiCG converges in a few dozen steps. */
  zs_matrix *M = NULL, *A = NULL;
  CHECK_STATUS(zs_matrix_generate(&M, "stencil2d:n=48,points=5", ZS_F64, 0), ZS_OK);
  CHECK_STATUS(zs_matrix_make_dominant(&A, M, 1.5), ZS_OK);
  if (!A) return 1;
  n = zs_matrix_rows(A);
  CHECK_STATUS(zs_encode(&E_csr, A, ZS_FORMAT_CSR, NULL), ZS_OK);
  CHECK_STATUS(zs_encode(&E_dtans, A, ZS_FORMAT_DTANS, NULL), ZS_OK);
  if (!E_csr || !E_dtans) return 1;

  results want[N_THREADS];
  for (int i = 0; i < N_THREADS; i++) {
    workload(ctx, (unsigned)i + 1, &want[i]);
    CHECK(want[i].ok && want[i].iterations > 0 && want[i].v[5] <= 1e-10);
  }
  destroy_one_keep_other(&want[0]);
  contexts_do_not_mix();
  threads_at_once(NULL, want);
  threads_at_once(ctx, want);

  zs_context_destroy(&ctx);
  zs_encoded_destroy(&E_csr), zs_encoded_destroy(&E_dtans);
  zs_matrix_destroy(&M), zs_matrix_destroy(&A);
  CHECK_DONE();
}
