/* zs_bench_solve.c — time to tolerance of the zsparse solvers per matrix, format, backend, as CSV. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench_clock.h"
#include "zsparse.h"
#include "zsparse_solvers.h"

static const char usage[] =
    "usage: zs-bench-solve [--format F[:OPTS]]... [--backend B]... [--method M]... [--tol T]\n"
    "                      [--maxit N] [--dominant MARGIN] [--precond none|jacobi]\n"
    "                      [--reps K] [--type f32|f64] [--op-options K=V,...] [--csv FILE]\n"
    "                      MATRIX...\n"
    "\n"
    "MATRIX: a .mtx/.mtx.gz file or gen:SPEC (docs/generators.md), made diagonally dominant\n"
    "first with --dominant. For every matrix x format x backend x method: encode, upload,\n"
    "b = A x* (x* uniform in [-1, 1]), then one cold solve (the first on a fresh operator:\n"
    "first-call work such as a transpose index included) and K warm solves (median), each from\n"
    "x = 0, all with one zs_solver (work vectors allocated once, before the clock). One CSV row "
    "per case on stdout (and in FILE); the columns match bicg_cusparse's\n"
    "so make_report.py reads both. Defaults: --format csr, --backend cpu, --method bicg,\n"
    "--tol 1e-8, --maxit 10000, --reps 5, f64. --op-options go to every operator (cpu and\n"
    "cuda: transpose=atomic for the faster, non-deterministic SpMVT; any backend:\n"
    "transpose=stored, A^T encoded beside A when the operator is made, not timed here) and into\n"
    "the format column.\n";

#define MAX_LIST 16
typedef struct list {
  const char *item[MAX_LIST];
  int n;
} list;

static int push(list *l, const char *s) {
  if (l->n == MAX_LIST) return -1;
  l->item[l->n++] = s;
  return 0;
}

typedef struct config {
  double tol, margin;
  int64_t maxit;
  int reps, jacobi;
  zs_type type;
  const char *op_options;
} config;

static const char csv_header[] =
    "matrix,rows,nnz,type,library,format,backend,method,precond,tol,status,stop_reason,"
    "iterations,rel_residual,true_rel_residual,error_vs_known,encoded_bytes,setup_s,"
    "solve_cold_s,solve_warm_s,time_per_iter_s,spmv,spmvt\n";

static void emit(FILE *out[2], const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(FILE *out[2], const char *fmt, ...) {
  for (int i = 0; i < 2; i++) {
    if (!out[i]) continue;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out[i], fmt, ap);
    va_end(ap);
    fflush(out[i]);
  }
}

static int fail(const char *what, zs_status s) {
  fprintf(stderr, "zs-bench-solve: %s: %s: %s\n", what, zs_status_name(s), zs_last_error());
  return 1;
}

/* The exact solution's values: splitmix64 from 7 (bicg-cusparse draws the same x*). */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static void upload_doubles(zs_vector *v, const double *h, zs_type t, int64_t n) {
  if (t == ZS_F64) {
    zs_vector_upload(v, h);
    return;
  }
  float *f = malloc((size_t)(n ? n : 1) * sizeof *f);
  for (int64_t i = 0; i < n; i++) f[i] = (float)h[i];
  zs_vector_upload(v, f);
  free(f);
}

/* One matrix x format x backend x method: the row described in the usage text. */
static int run_case(FILE *out[2], zs_context *ctx, const char *label, const zs_matrix *A,
                    const char *fmt_arg, const char *backend, zs_solver_method m, const config *c) {
  char name[32];
  const char *colon = strchr(fmt_arg, ':');
  const size_t len = colon ? (size_t)(colon - fmt_arg) : strlen(fmt_arg);
  snprintf(name, sizeof name, "%.*s", (int)(len < 31 ? len : 31), fmt_arg);
  zs_format format;
  zs_status s;
  if ((s = zs_format_from_name(name, &format)) != ZS_OK) return fail(fmt_arg, s);
  const int64_t n = zs_matrix_rows(A);
  zs_encoded *E = NULL;
  zs_operator *op = NULL, *M = NULL;
  zs_solver *solver = NULL;
  zs_vector *b = NULL, *x = NULL, *xs = NULL;
  double *times = calloc((size_t)c->reps + 1, sizeof *times);
  double *h = malloc((size_t)(n ? n : 1) * sizeof *h);
  int rc = 1;
  const double t0 = now_s();
  if ((s = zs_encode(&E, A, format, colon ? colon + 1 : NULL)) != ZS_OK ||
      (s = zs_operator_create(&op, ctx, E, backend, c->op_options)) != ZS_OK ||
      (c->jacobi && (s = zs_solver_jacobi(&M, ctx, A, backend)) != ZS_OK) ||
      (s = zs_vector_create(&b, ctx, backend, c->type, n)) != ZS_OK ||
      (s = zs_vector_create(&x, ctx, backend, c->type, n)) != ZS_OK ||
      (s = zs_vector_create(&xs, ctx, backend, c->type, n)) != ZS_OK) {
    fail(fmt_arg, s);
    goto done;
  }
  uint64_t st = 7;
  for (int64_t i = 0; i < n; i++) h[i] = (double)(splitmix64(&st) >> 11) * 0x1p-53 * 2.0 - 1.0;
  upload_doubles(xs, h, c->type, n);
  if ((s = zs_spmv(op, ZS_OP_N, 1.0, xs, 0.0, b)) != ZS_OK || (s = zs_operator_sync(op)) != ZS_OK) {
    fail("b = A x*", s);
    goto done;
  }
  const double setup = now_s() - t0;
  zs_solver_options so;
  zs_solver_options_init(&so);
  so.method = m, so.tol = c->tol, so.max_iter = c->maxit, so.precond = M;
  zs_solver_result res;
  zs_status solve_status = ZS_OK;
  /* Work vectors allocated once, outside the timed solves (as the cuSPARSE baseline's are). */
  if ((s = zs_solver_create(&solver, ctx, op, &so)) != ZS_OK) {
    fail("solver", s);
    goto done;
  }
  for (int r = 0; r <= c->reps; r++) {
    solve_status = zs_solver_solve(solver, b, x, &res);
    if (solve_status < 0 && solve_status != ZS_ERR_BREAKDOWN) {
      fail("solve", solve_status);
      goto done;
    }
    times[r] = res.time_s;
  }
  const double cold = times[0];
  qsort(times + 1, (size_t)c->reps, sizeof *times, cmp_double);
  const double *w = times + 1; /* the warm solves, sorted; their median (cold without any) */
  const double warm = !c->reps      ? cold
                      : c->reps % 2 ? w[c->reps / 2]
                                    : 0.5 * (w[c->reps / 2 - 1] + w[c->reps / 2]);
  /* True residual and error of the last solve's x. */
  double bn, rn, xn, en;
  zs_vector *r = NULL;
  if ((s = zs_vector_create(&r, ctx, backend, c->type, n)) != ZS_OK ||
      (s = zs_vector_copy(r, b)) != ZS_OK || (s = zs_spmv(op, ZS_OP_N, -1.0, x, 1.0, r)) != ZS_OK ||
      (s = zs_vector_nrm2(r, &rn)) != ZS_OK || (s = zs_vector_nrm2(b, &bn)) != ZS_OK ||
      (s = zs_vector_nrm2(xs, &xn)) != ZS_OK || (s = zs_vector_axpby(1.0, x, -1.0, xs)) != ZS_OK ||
      (s = zs_vector_nrm2(xs, &en)) != ZS_OK) {
    zs_vector_destroy(&r);
    fail("residual", s);
    goto done;
  }
  zs_vector_destroy(&r);
  char label_fmt[160];
  snprintf(label_fmt, sizeof label_fmt, "%s%s%s%s", fmt_arg, c->op_options ? " [" : "",
           c->op_options ? c->op_options : "", c->op_options ? "]" : "");
  emit(out,
       "\"%s\",%lld,%lld,%s,zsparse,\"%s\",%s,%s,%s,%.3g,%s,%s,%lld,%.4e,%.4e,%.4e,%llu,%.6f,%.6f,%"
       ".6f,%.6e,"
       "%lld,%lld\n",
       label, (long long)n, (long long)zs_matrix_nnz(A), zs_type_name(c->type), label_fmt,
       zs_operator_backend(op), zs_solver_method_name(m), c->jacobi ? "jacobi" : "none", c->tol,
       zs_status_name(solve_status), res.stop_reason, (long long)res.iterations, res.rel_residual,
       rn / bn, en / xn, (unsigned long long)zs_encoded_bytes(E), setup, cold, warm,
       res.iterations ? warm / (double)res.iterations : 0.0, (long long)res.spmv_count,
       (long long)res.spmvt_count);
  rc = 0;
done:
  free(times);
  free(h);
  zs_solver_destroy(&solver);
  zs_vector_destroy(&xs);
  zs_vector_destroy(&x);
  zs_vector_destroy(&b);
  zs_operator_destroy(&M);
  zs_operator_destroy(&op);
  zs_encoded_destroy(&E);
  return rc;
}

int main(int argc, char **argv) {
  list formats = {0}, backends = {0}, methods = {0}, matrices = {0};
  config c = {.tol = 1e-8, .margin = 0, .maxit = 10000, .reps = 5, .jacobi = 0, .type = ZS_F64};
  const char *csv = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (a[0] != '-') {
      bad = push(&matrices, a);
      continue;
    } else if (!v) {
      bad = 1;
    } else if (strcmp(a, "--format") == 0) {
      bad = push(&formats, v);
    } else if (strcmp(a, "--backend") == 0) {
      bad = push(&backends, v);
    } else if (strcmp(a, "--method") == 0) {
      bad = push(&methods, v);
    } else if (strcmp(a, "--tol") == 0) {
      c.tol = atof(v), bad = !(c.tol > 0);
    } else if (strcmp(a, "--maxit") == 0) {
      c.maxit = atoll(v), bad = c.maxit < 0;
    } else if (strcmp(a, "--dominant") == 0) {
      c.margin = atof(v), bad = !(c.margin > 0);
    } else if (strcmp(a, "--precond") == 0) {
      c.jacobi = strcmp(v, "jacobi") == 0, bad = !c.jacobi && strcmp(v, "none") != 0;
    } else if (strcmp(a, "--reps") == 0) {
      c.reps = atoi(v), bad = c.reps < 0 || c.reps > 1000;
    } else if (strcmp(a, "--type") == 0) {
      c.type = strcmp(v, "f32") == 0 ? ZS_F32 : ZS_F64;
      bad = strcmp(v, "f32") != 0 && strcmp(v, "f64") != 0;
    } else if (strcmp(a, "--op-options") == 0) {
      c.op_options = v;
    } else if (strcmp(a, "--csv") == 0) {
      csv = v;
    } else {
      bad = 1;
    }
    if (bad) {
      fprintf(stderr, "zs-bench-solve: bad option %s %s\n%s", a, v ? v : "", usage);
      return 2;
    }
    i++;
  }
  if (!matrices.n) {
    fputs(usage, stderr);
    return 2;
  }
  if (!formats.n) push(&formats, "csr");
  if (!backends.n) push(&backends, "cpu");
  if (!methods.n) push(&methods, "bicg");
  FILE *out[2] = {stdout, NULL};
  if (csv && !(out[1] = fopen(csv, "w"))) {
    fprintf(stderr, "zs-bench-solve: cannot write %s\n", csv);
    return 1;
  }
  emit(out, "%s", csv_header);
  zs_context *ctx = NULL;
  zs_status s = zs_context_create(&ctx);
  if (s != ZS_OK) return fail("context", s);
  int failures = 0;
  for (int mi = 0; mi < matrices.n; mi++) {
    const char *spec = matrices.item[mi];
    zs_matrix *A = NULL, *D = NULL;
    s = strncmp(spec, "gen:", 4) == 0 ? zs_matrix_generate(&A, spec + 4, c.type, 0)
                                      : zs_matrix_read(&A, spec, c.type, 0, NULL, 0);
    if (s == ZS_OK && c.margin > 0 && (s = zs_matrix_make_dominant(&D, A, c.margin)) == ZS_OK) {
      zs_matrix_destroy(&A);
      A = D;
    }
    if (s != ZS_OK) {
      failures += fail(spec, s);
      continue;
    }
    const char *base = strrchr(spec, '/');
    for (int fi = 0; fi < formats.n; fi++)
      for (int bi = 0; bi < backends.n; bi++)
        for (int k = 0; k < methods.n; k++) {
          zs_solver_method m;
          if ((s = zs_solver_method_from_name(methods.item[k], &m)) != ZS_OK) {
            failures += fail(methods.item[k], s);
            continue;
          }
          failures += run_case(out, ctx, base ? base + 1 : spec, A, formats.item[fi],
                               backends.item[bi], m, &c);
        }
    zs_matrix_destroy(&A);
  }
  zs_context_destroy(&ctx);
  if (out[1]) fclose(out[1]);
  return failures ? 1 : 0;
}
