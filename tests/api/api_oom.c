/* api_oom.c — allocation failure at every allocation of the public operations: each must
 * return ZS_ERR_OUT_OF_MEMORY with a message saying "out of memory" (or succeed where the
 * allocation was optional), never another status, a crash or, under the sanitizers, a leak.
 *
 * This executable is linked with -Wl,--wrap for malloc, calloc, realloc, aligned_alloc and
 * posix_memalign (tests/api/meson.build): the library's calls to them come here, so the
 * library itself carries no test hook and its normal path is untouched. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/temp_name.h"
#include "zsparse.h"
#include "zsparse_auto.h"
#include "zsparse_solvers.h"
#include "zsparse_vans.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
int __real_posix_memalign(void **p, size_t align, size_t n);

/* While armed, allocation number `fail_at` (counting from 0) fails; every allocation counts. */
static atomic_int armed;
static atomic_llong counted, fail_at;

static int fail_this(void) {
  if (!atomic_load(&armed)) return 0;
  return atomic_fetch_add(&counted, 1) == atomic_load(&fail_at);
}
void *__wrap_malloc(size_t n) { return fail_this() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return fail_this() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return fail_this() ? NULL : __real_realloc(p, n); }
void *__wrap_aligned_alloc(size_t align, size_t n) {
  return fail_this() ? NULL : __real_aligned_alloc(align, n);
}
int __wrap_posix_memalign(void **p, size_t align, size_t n) {
  return fail_this() ? 12 /* ENOMEM */ : __real_posix_memalign(p, align, n);
}

static int failures, runs;

/* ---- the operations, each on objects made beforehand; results are freed unarmed ---------- */

static struct {
  zs_context *ctx;
  zs_matrix *A; /* 2-D stencil, 64 x 64 */
  zs_encoded *E[8];
  zs_vans *V;
  void *vans_blob;
  size_t vans_size;
  char mtx[96], zsm[8][96], dir[64];
} fx;
static const zs_format formats[] = {ZS_FORMAT_CSR,  ZS_FORMAT_COO, ZS_FORMAT_CSB,
                                    ZS_FORMAT_GCSB, ZS_FORMAT_CCI, ZS_FORMAT_DTANS};
enum { N_FORMATS = sizeof formats / sizeof *formats };
static int fi; /* the format an operation works on */

#define ARMED(call) (atomic_store(&armed, 1), s = (call), atomic_store(&armed, 0), s)

static zs_status op_read(void) {
  zs_matrix *M = NULL;
  zs_status s = ARMED(zs_matrix_read(&M, fx.mtx, ZS_F64, 0, NULL, 0));
  zs_matrix_destroy(&M);
  return s;
}
static zs_status op_transpose(void) {
  zs_matrix *M = NULL;
  zs_status s = ARMED(zs_matrix_transpose(&M, fx.A));
  zs_matrix_destroy(&M);
  return s;
}
static zs_status op_convert(void) {
  zs_matrix *M = NULL;
  zs_status s = ARMED(zs_matrix_convert(&M, fx.A, ZS_F32));
  zs_matrix_destroy(&M);
  return s;
}
static zs_status op_generate(void) {
  zs_matrix *M = NULL;
  zs_status s = ARMED(zs_matrix_generate(&M, "erdos_renyi:rows=200,cols=200,per_row=4", ZS_F64, 0));
  zs_matrix_destroy(&M);
  return s;
}
static zs_status op_dominant(void) {
  zs_matrix *M = NULL;
  zs_status s = ARMED(zs_matrix_make_dominant(&M, fx.A, 1.0));
  zs_matrix_destroy(&M);
  return s;
}
static zs_status op_encode(void) {
  zs_encoded *E = NULL;
  zs_status s = ARMED(zs_encode(&E, fx.A, formats[fi], NULL));
  zs_encoded_destroy(&E);
  return s;
}
static zs_status op_decode(void) {
  zs_matrix *M = NULL;
  zs_status s = ARMED(zs_decode(&M, fx.E[fi]));
  zs_matrix_destroy(&M);
  return s;
}
static zs_status op_save(void) {
  zs_status s = ARMED(zs_encoded_save(fx.E[fi], fx.zsm[fi]));
  return s;
}
static zs_status op_load(void) {
  zs_encoded *E = NULL;
  zs_status s = ARMED(zs_encoded_load(&E, fx.zsm[fi]));
  zs_encoded_destroy(&E);
  return s;
}
/* An operator, one product each way, on ref (even) or cpu (odd). */
static const char *backend;
static zs_status op_spmv(void) {
  zs_operator *op = NULL;
  zs_vector *x = NULL, *y = NULL;
  const int64_t n = zs_matrix_rows(fx.A);
  zs_status s;
  atomic_store(&armed, 1);
  if ((s = zs_operator_create(&op, fx.ctx, fx.E[fi], backend, NULL)) == ZS_OK &&
      (s = zs_vector_create(&x, fx.ctx, backend, ZS_F64, n)) == ZS_OK &&
      (s = zs_vector_create(&y, fx.ctx, backend, ZS_F64, n)) == ZS_OK &&
      (s = zs_vector_fill(x, 1.0)) == ZS_OK && (s = zs_spmv(op, ZS_OP_N, 1, x, 0, y)) == ZS_OK)
    s = zs_spmv(op, ZS_OP_T, 1, y, 0, x);
  atomic_store(&armed, 0);
  zs_vector_destroy(&x), zs_vector_destroy(&y), zs_operator_destroy(&op);
  return s;
}
/* A vector over caller memory: its header is the one allocation. */
static zs_status op_wrap(void) {
  double buf[4];
  zs_vector *v = NULL;
  atomic_store(&armed, 1);
  zs_status s = zs_vector_wrap(&v, fx.ctx, "cpu", ZS_F64, 4, buf);
  atomic_store(&armed, 0);
  zs_vector_destroy(&v);
  return s;
}
static zs_status op_solve(void) {
  zs_operator *op = NULL, *M = NULL;
  zs_vector *b = NULL, *x = NULL;
  const int64_t n = zs_matrix_rows(fx.A);
  zs_solver_options o;
  zs_solver_options_init(&o);
  o.method = ZS_SOLVER_BICG;
  zs_status s;
  atomic_store(&armed, 1);
  if ((s = zs_operator_create(&op, fx.ctx, fx.E[0], "cpu", NULL)) == ZS_OK &&
      (s = zs_solver_jacobi(&M, fx.ctx, fx.A, "cpu")) == ZS_OK &&
      (s = zs_vector_create(&b, fx.ctx, "cpu", ZS_F64, n)) == ZS_OK &&
      (s = zs_vector_create(&x, fx.ctx, "cpu", ZS_F64, n)) == ZS_OK &&
      (s = zs_vector_fill(b, 1.0)) == ZS_OK) {
    o.precond = M;
    s = zs_solve(fx.ctx, op, b, x, &o, NULL);
  }
  atomic_store(&armed, 0);
  zs_vector_destroy(&b), zs_vector_destroy(&x), zs_operator_destroy(&M), zs_operator_destroy(&op);
  return s == ZS_INFO_NOT_CONVERGED ? ZS_OK : s;
}
/* A context: its own memory and each built-in backend's state (a GPU module that cannot start
 * leaves its backend listed, unusable; memory the library cannot get fails the call). */
static zs_status op_context(void) {
  zs_context *c = NULL;
  zs_status s = ARMED(zs_context_create(&c));
  zs_context_destroy(&c);
  return s;
}
/* The chooser's plan, by the model alone or with a trial on the cpu (a candidate that cannot be
 * set up for memory is skipped, the plan then made from the others). */
static const char *plan_options;
static zs_status op_plan(void) {
  zs_plan *p = NULL;
  zs_status s = ARMED(zs_plan_create(&p, fx.A, plan_options));
  zs_plan_destroy(&p);
  return s;
}
static zs_status op_vans_generate(void) {
  zs_vans *V = NULL;
  zs_status s = ARMED(zs_vans_generate(&V, "n=48,k=2,seed=3", fi % 2 ? ZS_VANS_PAIRS : 0));
  zs_vans_destroy(&V);
  return s;
}
static zs_status op_vans_write(void) {
  void *d = NULL;
  size_t n = 0;
  zs_status s = ARMED(zs_vans_write_memory(fx.V, &d, &n));
  free(d);
  return s;
}
static zs_status op_vans_read(void) {
  zs_vans *V = NULL;
  zs_status s = ARMED(zs_vans_read_memory(&V, fx.vans_blob, fx.vans_size));
  zs_vans_destroy(&V);
  return s;
}
static zs_status op_vans_chain(void) {
  zs_vans_chain *c = NULL;
  int8_t y[48];
  zs_status s;
  atomic_store(&armed, 1);
  if ((s = zs_vans_chain_create(&c, fx.ctx, fx.V, backend)) == ZS_OK)
    s = zs_vans_chain_run(c, NULL, y);
  atomic_store(&armed, 0);
  zs_vans_chain_destroy(&c);
  return s;
}

/* Fail each allocation of `op` in turn, until a run makes no more allocations than allowed. */
static void walk(const char *what, zs_status (*op)(void)) {
  long long n;
  for (n = 0;; n++) {
    atomic_store(&counted, 0), atomic_store(&fail_at, n);
    const zs_status s = op();
    runs++;
    const int injected = atomic_load(&counted) > n;
    if (!injected) {
      if (s != ZS_OK) {
        printf("FAIL %s: without an injected failure: %s: %s\n", what, zs_status_name(s),
               zs_last_error());
        failures++;
      }
      break;
    }
    if (s == ZS_OK) continue; /* the allocation had a fallback */
    if (s != ZS_ERR_OUT_OF_MEMORY || !strstr(zs_last_error(), "out of memory")) {
      printf("FAIL %s: allocation %lld failed: %s: %s\n", what, n, zs_status_name(s),
             zs_last_error());
      failures++;
    }
  }
  printf("%-24s %lld allocations\n", what, n);
}

static int setup(void) {
  zs_test_temp_name(fx.dir, sizeof fx.dir, "zs-api-oom");
  if (!mkdtemp(fx.dir)) return 0;
  snprintf(fx.mtx, sizeof fx.mtx, "%s/a.mtx", fx.dir);
  if (zs_context_create(&fx.ctx) || zs_matrix_generate(&fx.A, "stencil2d:n=8", ZS_F64, 0) ||
      zs_matrix_write(fx.A, fx.mtx) || zs_vans_generate(&fx.V, "n=48,k=2,seed=3", 0) ||
      zs_vans_write_memory(fx.V, &fx.vans_blob, &fx.vans_size))
    return 0;
  for (int i = 0; i < N_FORMATS; i++) {
    snprintf(fx.zsm[i], sizeof fx.zsm[i], "%s/%d.zsm", fx.dir, i);
    if (zs_encode(&fx.E[i], fx.A, formats[i], NULL) || zs_encoded_save(fx.E[i], fx.zsm[i]))
      return 0;
  }
  return 1;
}

int main(void) {
  if (!setup()) {
    printf("setup failed: %s\n", zs_last_error());
    return 1;
  }
  walk("zs_matrix_read", op_read);
  walk("zs_matrix_transpose", op_transpose);
  walk("zs_matrix_convert", op_convert);
  walk("zs_matrix_generate", op_generate);
  walk("zs_matrix_make_dominant", op_dominant);
  char what[64];
  for (fi = 0; fi < N_FORMATS; fi++) {
    const char *f = zs_format_name(formats[fi]);
    snprintf(what, sizeof what, "zs_encode %s", f), walk(what, op_encode);
    snprintf(what, sizeof what, "zs_decode %s", f), walk(what, op_decode);
    snprintf(what, sizeof what, "zs_encoded_save %s", f), walk(what, op_save);
    snprintf(what, sizeof what, "zs_encoded_load %s", f), walk(what, op_load);
    for (int b = 0; b < 2; b++) {
      backend = b ? "cpu" : "ref";
      snprintf(what, sizeof what, "spmv %s on %s", f, backend), walk(what, op_spmv);
    }
  }
  walk("zs_vector_wrap", op_wrap);
  walk("zs_solve", op_solve);
  walk("zs_context_create", op_context);
  plan_options = "backend=cpu", walk("zs_plan_create", op_plan);
  plan_options = "backend=cpu,tune=trial:20", walk("zs_plan_create trial", op_plan);
  for (fi = 0; fi < 2; fi++)
    walk(fi ? "zs_vans_generate pairs" : "zs_vans_generate", op_vans_generate);
  walk("zs_vans_write_memory", op_vans_write);
  walk("zs_vans_read_memory", op_vans_read);
  for (int b = 0; b < 2; b++) {
    backend = b ? "cpu" : "ref";
    snprintf(what, sizeof what, "vans chain on %s", backend), walk(what, op_vans_chain);
  }
  for (int i = 0; i < N_FORMATS; i++) zs_encoded_destroy(&fx.E[i]), remove(fx.zsm[i]);
  zs_vans_destroy(&fx.V), free(fx.vans_blob);
  zs_matrix_destroy(&fx.A), zs_context_destroy(&fx.ctx);
  remove(fx.mtx), remove(fx.dir);
  printf("%d runs, %d failure(s)\n", runs, failures);
  return failures ? 1 : 0;
}
