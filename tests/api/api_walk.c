/* api_walk.c — every public function called with NULL and invalid arguments: it must return
 * what its header documents (ZS_ERR_INVALID_ARGUMENT naming the function, or the documented
 * value of a getter), never crash, and leave out-pointers untouched on failure.
 *
 * usage: api_walk INCLUDE_DIR. Every zsparse*.h there is scanned for ZS_API declarations; a
 * public function without a case in the table below fails the test, so a new function must
 * bring its case. (zsparse_petsc.h is skipped: its functions exist only in builds with PETSc.) */
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/check.h"
#include "tests/common/temp_name.h"
#include "zsparse.h"
#include "zsparse_auto.h"
#include "zsparse_solvers.h"
#include "zsparse_vans.h"

static const char *current = "(setup)"; /* the function under test */
#define failures check_failures

/* A message that names no public function, so a stale message cannot pass for a new one. */
static void reset_error(void) {
  zs_format f;
  (void)zs_format_from_name("(reset)", &f);
}

/* The call must return `want`; a failure must leave a message of its own, one that names the
 * function under test when `named` (the NULL cases: nothing else could say who was called). */
static void expect(zs_status got, zs_status want, int named, int line) {
  const char *msg = zs_last_error();
  if (got != want) {
    fprintf(stderr, "%s: line %d: returned %s, expected %s (%s)\n", current, line,
            zs_status_name(got), zs_status_name(want), msg);
    failures++;
  } else if (want != ZS_OK && (strstr(msg, "(reset)") || (named && !strstr(msg, current)))) {
    fprintf(stderr, "%s: line %d: message does not %s: '%s'\n", current, line,
            named ? "name the function" : "say what happened", msg);
    failures++;
  }
}
#define EXPECT_NAMED(call, want, named)      \
  do {                                       \
    reset_error();                           \
    expect((call), (want), named, __LINE__); \
  } while (0)
/* NULL where an object or out-pointer is needed. */
#define INVALID(call) EXPECT_NAMED(call, ZS_ERR_INVALID_ARGUMENT, 1)
/* A value the function refuses: an unknown name, a bad type, an index out of range. */
#define REFUSED(call, want) EXPECT_NAMED(call, want, 0)
#define EXPECT(call, want) EXPECT_NAMED(call, want, 0)

/* Objects the cases start from, all on the ref backend. */
static struct {
  zs_context *ctx;
  zs_matrix *A;  /* 3 x 3, diagonally dominant */
  zs_matrix *R;  /* 2 x 3 */
  zs_encoded *E; /* A in CSR */
  zs_operator *op;
  zs_vector *x, *y, *z, *w, *v2; /* 3 elements each, v2: 2 elements */
  zs_vans *V;                    /* one 4 x 4 layer */
  zs_vans_chain *chain;
  char dir[64];
  char mtx[96], zsm[96], vans[96], base[96];
} fx;

/* Sentinels: an out-pointer holding one must still hold it after a failed call. */
static int sentinel_storage;
#define SENTINEL ((void *)&sentinel_storage)

/* ---- the cases, one per public function --------------------------------------------------- */

static void c_version(void) { CHECK(zs_version() && strcmp(zs_version(), "") != 0); }
static void c_last_error(void) {
  reset_error();
  CHECK(zs_last_error() != NULL && strstr(zs_last_error(), "(reset)") != NULL);
}
static void c_status_name(void) {
  CHECK(strcmp(zs_status_name((zs_status)12345), "ZS_ERR_UNKNOWN") == 0);
  CHECK(strcmp(zs_status_name(ZS_ERR_PARSE), "ZS_ERR_PARSE") == 0);
}
static void c_type_name(void) { CHECK(strcmp(zs_type_name((zs_type)0), "invalid") == 0); }
static void c_type_size(void) { CHECK(zs_type_size((zs_type)77) == 0); }
static void c_format_name(void) {
  CHECK(zs_format_name((zs_format)0) == NULL && zs_format_name((zs_format)999) == NULL);
}
static void c_format_from_name(void) {
  zs_format f = (zs_format)77;
  INVALID(zs_format_from_name(NULL, &f));
  INVALID(zs_format_from_name("csr", NULL));
  REFUSED(zs_format_from_name("no-such-format", &f), ZS_ERR_INVALID_ARGUMENT);
  CHECK(f == (zs_format)77);
}

static const int64_t ri[] = {0, 1, 2}, ci64[] = {0, 1, 2};
static const double vals[] = {4, 5, 6};
static void c_matrix_from_coo(void) {
  zs_matrix *M = SENTINEL;
  INVALID(zs_matrix_from_coo(NULL, 3, 3, 3, ri, ci64, vals, ZS_F64, 0));
  INVALID(zs_matrix_from_coo(&M, 3, 3, 3, NULL, ci64, vals, ZS_F64, 0));
  INVALID(zs_matrix_from_coo(&M, 3, 3, 3, ri, NULL, vals, ZS_F64, 0));
  REFUSED(zs_matrix_from_coo(&M, 3, 3, 3, ri, ci64, vals, (zs_type)0, 0), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_matrix_from_coo(&M, -1, 3, 0, ri, ci64, vals, ZS_F64, 0), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_matrix_from_coo(&M, 3, 3, -1, ri, ci64, vals, ZS_F64, 0), ZS_ERR_INVALID_ARGUMENT);
  CHECK(M == SENTINEL);
}
static void c_matrix_from_csr(void) {
  static const int64_t rp[] = {0, 1, 2, 3};
  static const int32_t ci[] = {0, 1, 2};
  zs_matrix *M = SENTINEL;
  INVALID(zs_matrix_from_csr(NULL, 3, 3, rp, ci, vals, ZS_F64, 0));
  INVALID(zs_matrix_from_csr(&M, 3, 3, NULL, ci, vals, ZS_F64, 0));
  INVALID(zs_matrix_from_csr(&M, 3, 3, rp, NULL, vals, ZS_F64, 0));
  REFUSED(zs_matrix_from_csr(&M, 3, 3, rp, ci, vals, (zs_type)3, 0), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_matrix_from_csr(&M, -2, 3, rp, ci, vals, ZS_F64, 0), ZS_ERR_INVALID_ARGUMENT);
  CHECK(M == SENTINEL);
}
static void c_matrix_convert(void) {
  zs_matrix *M = SENTINEL;
  INVALID(zs_matrix_convert(NULL, fx.A, ZS_F32));
  INVALID(zs_matrix_convert(&M, NULL, ZS_F32));
  REFUSED(zs_matrix_convert(&M, fx.A, (zs_type)0), ZS_ERR_INVALID_ARGUMENT);
  CHECK(M == SENTINEL);
}
static void c_matrix_transpose(void) {
  zs_matrix *M = SENTINEL;
  INVALID(zs_matrix_transpose(NULL, fx.A));
  INVALID(zs_matrix_transpose(&M, NULL));
  CHECK(M == SENTINEL);
}
static void c_matrix_destroy(void) {
  zs_matrix *M = NULL;
  zs_matrix_destroy(NULL);
  zs_matrix_destroy(&M);
  CHECK(M == NULL);
}
static void c_matrix_rows(void) { CHECK(zs_matrix_rows(NULL) == 0); }
static void c_matrix_cols(void) { CHECK(zs_matrix_cols(NULL) == 0); }
static void c_matrix_nnz(void) { CHECK(zs_matrix_nnz(NULL) == 0); }
static void c_matrix_type(void) { CHECK(zs_matrix_type(NULL) == (zs_type)0); }
static void c_matrix_csr(void) {
  const int64_t *rp = SENTINEL;
  const int32_t *ci = SENTINEL;
  const void *v = SENTINEL;
  zs_matrix_csr(NULL, &rp, &ci, &v);
  CHECK(rp == NULL && ci == NULL && v == NULL);
  zs_matrix_csr(NULL, NULL, NULL, NULL);
  zs_matrix_csr(fx.A, NULL, NULL, NULL);
}
static void c_matrix_read(void) {
  zs_matrix *M = SENTINEL;
  INVALID(zs_matrix_read(NULL, fx.mtx, ZS_F64, 0, NULL, 0));
  INVALID(zs_matrix_read(&M, NULL, ZS_F64, 0, NULL, 0));
  REFUSED(zs_matrix_read(&M, fx.mtx, (zs_type)0, 0, NULL, 0), ZS_ERR_INVALID_ARGUMENT);
  CHECK(M == SENTINEL);
}
static void c_matrix_write(void) {
  INVALID(zs_matrix_write(NULL, fx.mtx));
  INVALID(zs_matrix_write(fx.A, NULL));
}
static void c_matrix_generate(void) {
  zs_matrix *M = SENTINEL;
  INVALID(zs_matrix_generate(NULL, "stencil2d:n=4", ZS_F64, 0));
  INVALID(zs_matrix_generate(&M, NULL, ZS_F64, 0));
  REFUSED(zs_matrix_generate(&M, "stencil2d:n=4", (zs_type)0, 0), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_matrix_generate(&M, "no-such-kind", ZS_F64, 0), ZS_ERR_INVALID_ARGUMENT);
  CHECK(M == SENTINEL);
}
static void c_encode(void) {
  zs_encoded *E = SENTINEL;
  INVALID(zs_encode(NULL, fx.A, ZS_FORMAT_CSR, NULL));
  INVALID(zs_encode(&E, NULL, ZS_FORMAT_CSR, NULL));
  REFUSED(zs_encode(&E, fx.A, (zs_format)0, NULL), ZS_ERR_UNSUPPORTED);
  REFUSED(zs_encode(&E, fx.A, ZS_FORMAT_CSR, "no_such_key=1"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(E == SENTINEL);
}
static void c_decode(void) {
  zs_matrix *M = SENTINEL;
  INVALID(zs_decode(NULL, fx.E));
  INVALID(zs_decode(&M, NULL));
  CHECK(M == SENTINEL);
}
static void c_encoded_destroy(void) {
  zs_encoded *E = NULL;
  zs_encoded_destroy(NULL);
  zs_encoded_destroy(&E);
  CHECK(E == NULL);
}
static void c_encoded_save(void) {
  INVALID(zs_encoded_save(NULL, fx.zsm));
  INVALID(zs_encoded_save(fx.E, NULL));
}
static void c_encoded_load(void) {
  zs_encoded *E = SENTINEL;
  INVALID(zs_encoded_load(NULL, fx.zsm));
  INVALID(zs_encoded_load(&E, NULL));
  CHECK(E == SENTINEL);
}
static void c_encoded_format(void) { CHECK(zs_encoded_format(NULL) == (zs_format)0); }
static void c_encoded_type(void) { CHECK(zs_encoded_type(NULL) == (zs_type)0); }
static void c_encoded_rows(void) { CHECK(zs_encoded_rows(NULL) == 0); }
static void c_encoded_cols(void) { CHECK(zs_encoded_cols(NULL) == 0); }
static void c_encoded_nnz(void) { CHECK(zs_encoded_nnz(NULL) == 0); }
static void c_encoded_bytes(void) { CHECK(zs_encoded_bytes(NULL) == 0); }
static void c_encoded_array_count(void) { CHECK(zs_encoded_array_count(NULL) == 0); }
static void c_encoded_array_info(void) {
  const char *name = SENTINEL;
  size_t es = 77;
  uint64_t n = 77;
  INVALID(zs_encoded_array_info(NULL, 0, &name, &es, &n));
  REFUSED(zs_encoded_array_info(fx.E, -1, &name, &es, &n), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_encoded_array_info(fx.E, zs_encoded_array_count(fx.E), &name, &es, &n),
          ZS_ERR_INVALID_ARGUMENT);
  CHECK(name == SENTINEL && es == 77 && n == 77);
  EXPECT(zs_encoded_array_info(fx.E, 0, NULL, NULL, NULL), ZS_OK);
}
static void c_encoded_param_count(void) { CHECK(zs_encoded_param_count(NULL) == 0); }
static void stat_sink(void *ctx, const char *name, double value) {
  (void)ctx, (void)name, (void)value;
}
static void c_encoded_stats(void) {
  INVALID(zs_encoded_stats(NULL, stat_sink, NULL));
  INVALID(zs_encoded_stats(fx.E, NULL, NULL));
}
static void c_encoded_param_info(void) {
  const char *name = SENTINEL;
  int64_t v = 77;
  INVALID(zs_encoded_param_info(NULL, 0, &name, &v));
  REFUSED(zs_encoded_param_info(fx.E, -1, &name, &v), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_encoded_param_info(fx.E, zs_encoded_param_count(fx.E), &name, &v),
          ZS_ERR_INVALID_ARGUMENT);
  CHECK(name == SENTINEL && v == 77);
}
static void c_encoded_note(void) {
  CHECK(zs_encoded_note(NULL) == NULL && zs_encoded_note(fx.E) && !zs_encoded_note(fx.E)[0]);
}
static void c_encoded_options(void) {
  CHECK(zs_encoded_options(NULL) == NULL && zs_encoded_options(fx.E) &&
        !zs_encoded_options(fx.E)[0]);
}
static void c_plan_create(void) {
  zs_plan *p = SENTINEL;
  INVALID(zs_plan_create(NULL, fx.A, NULL));
  INVALID(zs_plan_create(&p, NULL, NULL));
  REFUSED(zs_plan_create(&p, fx.A, "workload=never"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(p == SENTINEL);
}
static void c_plan_check_options(void) {
  REFUSED(zs_plan_check_options("backend=nope"), ZS_ERR_INVALID_ARGUMENT);
  EXPECT(zs_plan_check_options(NULL), ZS_OK);
}
static void c_plan_destroy(void) {
  zs_plan *p = NULL;
  zs_plan_destroy(NULL);
  zs_plan_destroy(&p);
  CHECK(p == NULL);
}
/* The plan cases share one plan of A for the ref backend. */
static void with_plan(void (*run)(zs_plan *)) {
  zs_plan *p = NULL;
  if (zs_plan_create(&p, fx.A, "backend=ref") != ZS_OK) {
    fprintf(stderr, "%s: zs_plan_create: %s\n", current, zs_last_error());
    failures++;
    return;
  }
  run(p);
  zs_plan_destroy(&p);
}
static void plan_get_info(zs_plan *p) {
  zs_plan_info info = {.candidates = 77};
  INVALID(zs_plan_get_info(NULL, &info));
  INVALID(zs_plan_get_info(p, NULL));
  CHECK(info.candidates == 77);
}
static void c_plan_get_info(void) { with_plan(plan_get_info); }
static void plan_candidate_get(zs_plan *p) {
  zs_plan_candidate c = {.options = SENTINEL};
  INVALID(zs_plan_candidate_get(NULL, 0, &c));
  INVALID(zs_plan_candidate_get(p, 0, NULL));
  REFUSED(zs_plan_candidate_get(p, -1, &c), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_plan_candidate_get(p, 99, &c), ZS_ERR_INVALID_ARGUMENT);
  CHECK(c.options == SENTINEL);
}
static void c_plan_candidate_get(void) { with_plan(plan_candidate_get); }
static void plan_stats(zs_plan *p) {
  INVALID(zs_plan_stats(NULL, stat_sink, NULL));
  INVALID(zs_plan_stats(p, NULL, NULL));
}
static void c_plan_stats(void) { with_plan(plan_stats); }
static void plan_encode(zs_plan *p) {
  zs_encoded *E = SENTINEL;
  INVALID(zs_plan_encode(NULL, p, fx.A));
  INVALID(zs_plan_encode(&E, NULL, fx.A));
  INVALID(zs_plan_encode(&E, p, NULL));
  REFUSED(zs_plan_encode(&E, p, fx.R), ZS_ERR_INVALID_ARGUMENT);
  CHECK(E == SENTINEL);
}
static void c_plan_encode(void) { with_plan(plan_encode); }
static void c_context_create(void) { INVALID(zs_context_create(NULL)); }
static void c_context_destroy(void) {
  zs_context *c = NULL;
  zs_context_destroy(NULL);
  zs_context_destroy(&c);
  CHECK(c == NULL);
}
static void c_context_backend_count(void) { CHECK(zs_context_backend_count(NULL) == 0); }
static void c_context_backend_info(void) {
  zs_backend_info info = {SENTINEL, 77, SENTINEL};
  INVALID(zs_context_backend_info(NULL, 0, &info));
  REFUSED(zs_context_backend_info(fx.ctx, -1, &info), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_context_backend_info(fx.ctx, zs_context_backend_count(fx.ctx), &info),
          ZS_ERR_INVALID_ARGUMENT);
  INVALID(zs_context_backend_info(fx.ctx, 0, NULL));
  CHECK(info.name == SENTINEL && info.usable == 77);
}
static void c_context_default_backend(void) { CHECK(zs_context_default_backend(NULL) == NULL); }
static void c_context_topology(void) {
  zs_topology t;
  memset(&t, 0x55, sizeof t);
  zs_context_topology(NULL, &t);
  CHECK(t.cores == 0 && t.pus == 0 && t.threads == 0 && t.hwloc == 0);
  zs_context_topology(fx.ctx, NULL);
}
static void c_context_device_count(void) { CHECK(zs_context_device_count(NULL) == 0); }
static void c_context_device(void) {
  CHECK(zs_context_device(NULL, 0) == NULL);
  CHECK(zs_context_device(fx.ctx, -1) == NULL);
  CHECK(zs_context_device(fx.ctx, zs_context_device_count(fx.ctx)) == NULL);
}
static void c_vector_create(void) {
  zs_vector *v = SENTINEL;
  INVALID(zs_vector_create(NULL, fx.ctx, "ref", ZS_F64, 3));
  INVALID(zs_vector_create(&v, NULL, "ref", ZS_F64, 3));
  REFUSED(zs_vector_create(&v, fx.ctx, "ref", (zs_type)0, 3), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_vector_create(&v, fx.ctx, "ref", ZS_F64, -1), ZS_ERR_OVERFLOW);
  REFUSED(zs_vector_create(&v, fx.ctx, "no-such-backend", ZS_F64, 3), ZS_ERR_INVALID_ARGUMENT);
  CHECK(v == SENTINEL);
}
static double host[3];
static void c_vector_wrap(void) {
  zs_vector *v = SENTINEL;
  INVALID(zs_vector_wrap(NULL, fx.ctx, "ref", ZS_F64, 3, host));
  INVALID(zs_vector_wrap(&v, NULL, "ref", ZS_F64, 3, host));
  INVALID(zs_vector_wrap(&v, fx.ctx, "ref", ZS_F64, 3, NULL));
  REFUSED(zs_vector_wrap(&v, fx.ctx, "ref", (zs_type)0, 3, host), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_vector_wrap(&v, fx.ctx, "ref", ZS_F64, -1, host), ZS_ERR_OVERFLOW);
  REFUSED(zs_vector_wrap(&v, fx.ctx, "ref", ZS_F64, 2, (char *)host + 1), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_vector_wrap(&v, fx.ctx, "no-such-backend", ZS_F64, 3, host), ZS_ERR_INVALID_ARGUMENT);
  CHECK(v == SENTINEL);
}
static void c_vector_rewrap(void) {
  INVALID(zs_vector_rewrap(NULL, host));
  REFUSED(zs_vector_rewrap(fx.x, host), ZS_ERR_INVALID_ARGUMENT); /* made by zs_vector_create */
}
static void c_vector_destroy(void) {
  zs_vector *v = NULL;
  zs_vector_destroy(NULL);
  zs_vector_destroy(&v);
  CHECK(v == NULL);
}
static void c_vector_size(void) { CHECK(zs_vector_size(NULL) == 0); }
static void c_vector_type(void) { CHECK(zs_vector_type(NULL) == (zs_type)0); }
static void c_vector_upload(void) {
  INVALID(zs_vector_upload(NULL, host));
  INVALID(zs_vector_upload(fx.x, NULL));
}
static void c_vector_download(void) {
  INVALID(zs_vector_download(NULL, host));
  INVALID(zs_vector_download(fx.x, NULL));
}
static void c_vector_fill(void) { INVALID(zs_vector_fill(NULL, 1.0)); }
static void c_vector_copy(void) {
  INVALID(zs_vector_copy(NULL, fx.x));
  INVALID(zs_vector_copy(fx.x, NULL));
  REFUSED(zs_vector_copy(fx.x, fx.v2), ZS_ERR_INVALID_ARGUMENT);
}
static void c_vector_dot(void) {
  double d = 77;
  INVALID(zs_vector_dot(NULL, fx.y, &d));
  INVALID(zs_vector_dot(fx.x, NULL, &d));
  INVALID(zs_vector_dot(fx.x, fx.y, NULL));
  REFUSED(zs_vector_dot(fx.x, fx.v2, &d), ZS_ERR_INVALID_ARGUMENT);
  CHECK(d == 77);
}
static void c_vector_nrm2(void) {
  double d = 77;
  INVALID(zs_vector_nrm2(NULL, &d));
  INVALID(zs_vector_nrm2(fx.x, NULL));
  CHECK(d == 77);
}
static void c_vector_axpby(void) {
  INVALID(zs_vector_axpby(1.0, NULL, 1.0, fx.y));
  INVALID(zs_vector_axpby(1.0, fx.x, 1.0, NULL));
  REFUSED(zs_vector_axpby(1.0, fx.x, 1.0, fx.v2), ZS_ERR_INVALID_ARGUMENT);
}
static void c_vector_residual_update(void) {
  double rs, rr;
  INVALID(zs_vector_residual_update(1.0, NULL, fx.y, fx.z, fx.w, &rs, &rr));
  INVALID(zs_vector_residual_update(1.0, fx.x, NULL, fx.z, fx.w, &rs, &rr));
  INVALID(zs_vector_residual_update(1.0, fx.x, fx.y, NULL, fx.w, &rs, &rr));
  INVALID(zs_vector_residual_update(1.0, fx.x, fx.y, fx.z, NULL, &rs, &rr));
  REFUSED(zs_vector_residual_update(1.0, fx.x, fx.y, fx.z, fx.v2, &rs, &rr),
          ZS_ERR_INVALID_ARGUMENT);
}
static void c_vector_direction_update(void) {
  INVALID(zs_vector_direction_update(1.0, NULL, fx.x, 1.0, fx.y, fx.z, fx.w));
  INVALID(zs_vector_direction_update(1.0, fx.x, NULL, 1.0, fx.y, fx.z, fx.w));
  INVALID(zs_vector_direction_update(1.0, fx.x, fx.y, 1.0, NULL, fx.z, fx.w));
  INVALID(zs_vector_direction_update(1.0, fx.x, fx.y, 1.0, fx.z, NULL, fx.w));
  INVALID(zs_vector_direction_update(1.0, fx.x, fx.y, 1.0, fx.z, fx.w, NULL));
  REFUSED(zs_vector_direction_update(1.0, fx.x, fx.y, 1.0, fx.z, fx.w, fx.v2),
          ZS_ERR_INVALID_ARGUMENT);
}
static void c_operator_create(void) {
  zs_operator *op = SENTINEL;
  INVALID(zs_operator_create(NULL, fx.ctx, fx.E, "ref", NULL));
  INVALID(zs_operator_create(&op, NULL, fx.E, "ref", NULL));
  INVALID(zs_operator_create(&op, fx.ctx, NULL, "ref", NULL));
  REFUSED(zs_operator_create(&op, fx.ctx, fx.E, "ref", "no_such_key=1"), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_operator_create(&op, fx.ctx, fx.E, "no-such-backend", NULL), ZS_ERR_INVALID_ARGUMENT);
  CHECK(op == SENTINEL);
}
static void c_operator_destroy(void) {
  zs_operator *op = NULL;
  zs_operator_destroy(NULL);
  zs_operator_destroy(&op);
  CHECK(op == NULL);
}
static void c_operator_options_help(void) { CHECK(zs_operator_options_help() != NULL); }
static void c_operator_backend(void) { CHECK(zs_operator_backend(NULL) == NULL); }
static void c_operator_rows(void) { CHECK(zs_operator_rows(NULL) == 0); }
static void c_operator_cols(void) { CHECK(zs_operator_cols(NULL) == 0); }
static void c_operator_type(void) { CHECK(zs_operator_type(NULL) == (zs_type)0); }
static void c_spmv(void) {
  INVALID(zs_spmv(NULL, ZS_OP_N, 1.0, fx.x, 0.0, fx.y));
  REFUSED(zs_spmv(fx.op, (zs_op)7, 1.0, fx.x, 0.0, fx.y), ZS_ERR_INVALID_ARGUMENT);
  INVALID(zs_spmv(fx.op, ZS_OP_N, 1.0, NULL, 0.0, fx.y));
  INVALID(zs_spmv(fx.op, ZS_OP_N, 1.0, fx.x, 0.0, NULL));
  REFUSED(zs_spmv(fx.op, ZS_OP_N, 1.0, fx.v2, 0.0, fx.y), ZS_ERR_INVALID_ARGUMENT);
}
static void c_spmv_pair(void) {
  INVALID(zs_spmv_pair(NULL, 1.0, fx.x, 0.0, fx.y, 1.0, fx.w, 0.0, fx.z));
  INVALID(zs_spmv_pair(fx.op, 1.0, NULL, 0.0, fx.y, 1.0, fx.w, 0.0, fx.z));
  INVALID(zs_spmv_pair(fx.op, 1.0, fx.x, 0.0, NULL, 1.0, fx.w, 0.0, fx.z));
  INVALID(zs_spmv_pair(fx.op, 1.0, fx.x, 0.0, fx.y, 1.0, NULL, 0.0, fx.z));
  INVALID(zs_spmv_pair(fx.op, 1.0, fx.x, 0.0, fx.y, 1.0, fx.w, 0.0, NULL));
  REFUSED(zs_spmv_pair(fx.op, 1.0, fx.x, 0.0, fx.y, 1.0, fx.w, 0.0, fx.y), ZS_ERR_INVALID_ARGUMENT);
}
static void c_operator_sync(void) { INVALID(zs_operator_sync(NULL)); }
static void c_solver_method_name(void) {
  CHECK(zs_solver_method_name((zs_solver_method)0) == NULL);
}
static void c_solver_method_from_name(void) {
  zs_solver_method m = (zs_solver_method)77;
  INVALID(zs_solver_method_from_name(NULL, &m));
  INVALID(zs_solver_method_from_name("cg", NULL));
  REFUSED(zs_solver_method_from_name("no-such-method", &m), ZS_ERR_INVALID_ARGUMENT);
  CHECK(m == (zs_solver_method)77);
}
static void c_solver_options_init(void) { zs_solver_options_init(NULL); }
static void c_solve(void) {
  zs_solver_options o;
  zs_solver_options_init(&o);
  o.tol = -1;
  INVALID(zs_solve(NULL, fx.op, fx.x, fx.y, NULL, NULL));
  INVALID(zs_solve(fx.ctx, NULL, fx.x, fx.y, NULL, NULL));
  INVALID(zs_solve(fx.ctx, fx.op, NULL, fx.y, NULL, NULL));
  INVALID(zs_solve(fx.ctx, fx.op, fx.x, NULL, NULL, NULL));
  REFUSED(zs_solve(fx.ctx, fx.op, fx.x, fx.v2, NULL, NULL), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_solve(fx.ctx, fx.op, fx.x, fx.y, &o, NULL), ZS_ERR_INVALID_ARGUMENT);
}
static void c_solver_create(void) {
  zs_solver *s = SENTINEL;
  INVALID(zs_solver_create(NULL, fx.ctx, fx.op, NULL));
  INVALID(zs_solver_create(&s, NULL, fx.op, NULL));
  INVALID(zs_solver_create(&s, fx.ctx, NULL, NULL));
  CHECK(s == SENTINEL);
}
static void c_solver_solve(void) {
  zs_solver *s = NULL;
  INVALID(zs_solver_solve(NULL, fx.x, fx.y, NULL));
  if (zs_solver_create(&s, fx.ctx, fx.op, NULL) != ZS_OK) {
    CHECK(!"zs_solver_create");
    return;
  }
  INVALID(zs_solver_solve(s, NULL, fx.y, NULL));
  INVALID(zs_solver_solve(s, fx.x, NULL, NULL));
  REFUSED(zs_solver_solve(s, fx.v2, fx.y, NULL), ZS_ERR_INVALID_ARGUMENT);
  zs_solver_destroy(&s);
}
static void c_solver_destroy(void) {
  zs_solver *s = NULL;
  zs_solver_destroy(NULL);
  zs_solver_destroy(&s);
  CHECK(s == NULL);
}
static void c_solver_jacobi(void) {
  zs_operator *op = SENTINEL;
  INVALID(zs_solver_jacobi(NULL, fx.ctx, fx.A, "ref"));
  INVALID(zs_solver_jacobi(&op, NULL, fx.A, "ref"));
  INVALID(zs_solver_jacobi(&op, fx.ctx, NULL, "ref"));
  REFUSED(zs_solver_jacobi(&op, fx.ctx, fx.R, "ref"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(op == SENTINEL);
}
static void c_matrix_make_dominant(void) {
  zs_matrix *M = SENTINEL;
  INVALID(zs_matrix_make_dominant(NULL, fx.A, 1.0));
  INVALID(zs_matrix_make_dominant(&M, NULL, 1.0));
  REFUSED(zs_matrix_make_dominant(&M, fx.A, NAN), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_matrix_make_dominant(&M, fx.R, 1.0), ZS_ERR_INVALID_ARGUMENT);
  CHECK(M == SENTINEL);
}
static void c_vans_create(void) {
  zs_vans *V = SENTINEL;
  INVALID(zs_vans_create(NULL, 4, NULL, 0));
  INVALID(zs_vans_create(&V, 4, NULL, 1u << 20));
  EXPECT(zs_vans_create(&V, 0, NULL, 0), ZS_ERR_OVERFLOW);
  CHECK(V == SENTINEL);
}
static const float wf[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const int8_t wi[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const float scales[4] = {1, 1, 1, 1};
static void c_vans_add_layer(void) {
  INVALID(zs_vans_add_layer(NULL, 4, wf));
  INVALID(zs_vans_add_layer(fx.V, 4, NULL));
}
static void c_vans_add_layer_int8(void) {
  INVALID(zs_vans_add_layer_int8(NULL, 4, wi, scales));
  INVALID(zs_vans_add_layer_int8(fx.V, 4, NULL, scales));
  INVALID(zs_vans_add_layer_int8(fx.V, 4, wi, NULL));
}
static void c_vans_generate(void) {
  zs_vans *V = SENTINEL;
  INVALID(zs_vans_generate(NULL, "n=4", 0));
  INVALID(zs_vans_generate(&V, NULL, 0));
  REFUSED(zs_vans_generate(&V, "n=4,no_such_key=1", 0), ZS_ERR_INVALID_ARGUMENT);
  CHECK(V == SENTINEL);
}
static void c_vans_destroy(void) {
  zs_vans *V = NULL;
  zs_vans_destroy(NULL);
  zs_vans_destroy(&V);
  CHECK(V == NULL);
}
static void c_vans_read(void) {
  zs_vans *V = SENTINEL;
  INVALID(zs_vans_read(NULL, fx.vans));
  INVALID(zs_vans_read(&V, NULL));
  CHECK(V == SENTINEL);
}
static void c_vans_read_memory(void) {
  static const char junk[16] = "not a container";
  zs_vans *V = SENTINEL;
  INVALID(zs_vans_read_memory(NULL, junk, sizeof junk));
  INVALID(zs_vans_read_memory(&V, NULL, sizeof junk));
  CHECK(V == SENTINEL);
}
static void c_vans_write(void) {
  INVALID(zs_vans_write(NULL, fx.vans));
  INVALID(zs_vans_write(fx.V, NULL));
}
static void c_vans_write_memory(void) {
  void *data = SENTINEL;
  size_t n = 77;
  INVALID(zs_vans_write_memory(NULL, &data, &n));
  INVALID(zs_vans_write_memory(fx.V, NULL, &n));
  INVALID(zs_vans_write_memory(fx.V, &data, NULL));
  CHECK(data == SENTINEL && n == 77);
}
static void c_vans_read_baseline(void) {
  zs_vans *V = SENTINEL;
  INVALID(zs_vans_read_baseline(NULL, fx.base, 0));
  INVALID(zs_vans_read_baseline(&V, NULL, 0));
  CHECK(V == SENTINEL);
}
static void c_vans_write_baseline(void) {
  INVALID(zs_vans_write_baseline(NULL, fx.base));
  INVALID(zs_vans_write_baseline(fx.V, NULL));
}
static void c_vans_layers(void) { CHECK(zs_vans_layers(NULL) == 0); }
static void c_vans_dim(void) {
  CHECK(zs_vans_dim(NULL, 0) == 0);
  CHECK(zs_vans_dim(fx.V, -1) == 0 && zs_vans_dim(fx.V, 2) == 0);
}
static void c_vans_flags(void) { CHECK(zs_vans_flags(NULL) == 0); }
static void c_vans_v0(void) { CHECK(zs_vans_v0(NULL) == NULL); }
static void c_vans_layer_info_get(void) {
  zs_vans_layer_info info;
  INVALID(zs_vans_layer_info_get(NULL, 0, &info));
  INVALID(zs_vans_layer_info_get(fx.V, 0, NULL));
  REFUSED(zs_vans_layer_info_get(fx.V, -1, &info), ZS_ERR_INVALID_ARGUMENT);
  REFUSED(zs_vans_layer_info_get(fx.V, 1, &info), ZS_ERR_INVALID_ARGUMENT);
}
static void c_vans_layer_decode(void) {
  int8_t w[16];
  INVALID(zs_vans_layer_decode(NULL, 0, w));
  INVALID(zs_vans_layer_decode(fx.V, 0, NULL));
  REFUSED(zs_vans_layer_decode(fx.V, 1, w), ZS_ERR_INVALID_ARGUMENT);
}
static void c_vans_chain_create(void) {
  zs_vans_chain *c = SENTINEL;
  INVALID(zs_vans_chain_create(NULL, fx.ctx, fx.V, "ref"));
  INVALID(zs_vans_chain_create(&c, NULL, fx.V, "ref"));
  INVALID(zs_vans_chain_create(&c, fx.ctx, NULL, "ref"));
  REFUSED(zs_vans_chain_create(&c, fx.ctx, fx.V, "no-such-backend"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(c == SENTINEL);
}
static void c_vans_chain_run(void) {
  int8_t y[4];
  INVALID(zs_vans_chain_run(NULL, NULL, y));
  INVALID(zs_vans_chain_run(fx.chain, NULL, NULL));
}
static void c_vans_chain_time(void) {
  double ms = 77;
  INVALID(zs_vans_chain_time(NULL, 1, &ms));
  INVALID(zs_vans_chain_time(fx.chain, 1, NULL));
  REFUSED(zs_vans_chain_time(fx.chain, 0, &ms), ZS_ERR_INVALID_ARGUMENT);
  CHECK(ms == 77);
}
static void c_vans_chain_destroy(void) {
  zs_vans_chain *c = NULL;
  zs_vans_chain_destroy(NULL);
  zs_vans_chain_destroy(&c);
  CHECK(c == NULL);
}

static const struct {
  const char *name;
  void (*run)(void);
} cases[] = {
#define C(f) \
  { "zs_" #f, c_##f }
    C(version),
    C(last_error),
    C(status_name),
    C(type_name),
    C(type_size),
    C(format_name),
    C(format_from_name),
    C(matrix_from_coo),
    C(matrix_from_csr),
    C(matrix_convert),
    C(matrix_transpose),
    C(matrix_destroy),
    C(matrix_rows),
    C(matrix_cols),
    C(matrix_nnz),
    C(matrix_type),
    C(matrix_csr),
    C(matrix_read),
    C(matrix_write),
    C(matrix_generate),
    C(encode),
    C(decode),
    C(encoded_destroy),
    C(encoded_save),
    C(encoded_load),
    C(encoded_format),
    C(encoded_type),
    C(encoded_rows),
    C(encoded_cols),
    C(encoded_nnz),
    C(encoded_bytes),
    C(encoded_array_count),
    C(encoded_array_info),
    C(encoded_param_count),
    C(encoded_stats),
    C(encoded_param_info),
    C(encoded_note),
    C(encoded_options),
    C(plan_create),
    C(plan_check_options),
    C(plan_destroy),
    C(plan_get_info),
    C(plan_candidate_get),
    C(plan_stats),
    C(plan_encode),
    C(context_create),
    C(context_destroy),
    C(context_backend_count),
    C(context_backend_info),
    C(context_default_backend),
    C(context_topology),
    C(context_device_count),
    C(context_device),
    C(vector_create),
    C(vector_wrap),
    C(vector_rewrap),
    C(vector_destroy),
    C(vector_size),
    C(vector_type),
    C(vector_upload),
    C(vector_download),
    C(vector_fill),
    C(vector_copy),
    C(vector_dot),
    C(vector_nrm2),
    C(vector_axpby),
    C(vector_residual_update),
    C(vector_direction_update),
    C(operator_create),
    C(operator_destroy),
    C(operator_options_help),
    C(operator_backend),
    C(operator_rows),
    C(operator_cols),
    C(operator_type),
    C(spmv),
    C(spmv_pair),
    C(operator_sync),
    C(solver_method_name),
    C(solver_method_from_name),
    C(solver_options_init),
    C(solve),
    C(solver_create),
    C(solver_solve),
    C(solver_destroy),
    C(solver_jacobi),
    C(matrix_make_dominant),
    C(vans_create),
    C(vans_add_layer),
    C(vans_add_layer_int8),
    C(vans_generate),
    C(vans_destroy),
    C(vans_read),
    C(vans_read_memory),
    C(vans_write),
    C(vans_write_memory),
    C(vans_read_baseline),
    C(vans_write_baseline),
    C(vans_layers),
    C(vans_dim),
    C(vans_flags),
    C(vans_v0),
    C(vans_layer_info_get),
    C(vans_layer_decode),
    C(vans_chain_create),
    C(vans_chain_run),
    C(vans_chain_time),
    C(vans_chain_destroy),
#undef C
};
enum { N_CASES = sizeof cases / sizeof *cases };

/* ---- the headers' list of public functions ---------------------------------------------- */

static int has_case(const char *name) {
  for (int i = 0; i < N_CASES; i++)
    if (strcmp(cases[i].name, name) == 0) return 1;
  return 0;
}

/* Each "ZS_API <return type> zs_name(" declaration of a header; returns how many. */
static int scan_header(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    failures++;
    return 0;
  }
  static char text[1 << 20];
  const size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  int found = 0;
  for (const char *p = strstr(text, "ZS_API"); p; p = strstr(p + 6, "ZS_API")) {
    const char *paren = strchr(p, '(');
    if (!paren) break;
    const char *e = paren, *b;
    while (e > p && e[-1] == ' ') e--;
    for (b = e; b > p &&
                (b[-1] == '_' || (b[-1] >= 'a' && b[-1] <= 'z') || (b[-1] >= '0' && b[-1] <= '9'));)
      b--;
    if (e - b < 4 || strncmp(b, "zs_", 3) != 0) continue; /* the macro's own definition */
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(e - b), b);
    found++;
    if (!has_case(name)) {
      fprintf(stderr, "%s: public function %s has no case in api_walk.c\n", path, name);
      failures++;
    }
  }
  return found;
}

/* ---- setup ------------------------------------------------------------------------------ */

static void on_signal(int sig) {
  /* Say which case crashed; only async-signal-safe calls here. */
  static const char msg[] = "api_walk: crashed in ";
  (void)!write(2, msg, sizeof msg - 1);
  (void)!write(2, current, strlen(current));
  (void)!write(2, "\n", 1);
  signal(sig, SIG_DFL);
  raise(sig);
}

static int setup(void) {
  const int64_t r[] = {0, 0, 1, 1, 2, 2}, c[] = {0, 1, 0, 1, 1, 2};
  const double v[] = {4, 1, 1, 4, 1, 4};
  const int64_t r2[] = {0, 1}, c2[] = {2, 0};
  const double one[3] = {1, 1, 1};
  zs_test_temp_name(fx.dir, sizeof fx.dir, "zs-api-walk");
  if (!mkdtemp(fx.dir)) return 0;
  snprintf(fx.mtx, sizeof fx.mtx, "%s/a.mtx", fx.dir);
  snprintf(fx.zsm, sizeof fx.zsm, "%s/a.zsm", fx.dir);
  snprintf(fx.vans, sizeof fx.vans, "%s/a.vans", fx.dir);
  snprintf(fx.base, sizeof fx.base, "%s/a.base", fx.dir);
  zs_vector **vs[] = {&fx.x, &fx.y, &fx.z, &fx.w};
  if (zs_context_create(&fx.ctx) || zs_matrix_from_coo(&fx.A, 3, 3, 6, r, c, v, ZS_F64, 0) ||
      zs_matrix_from_coo(&fx.R, 2, 3, 2, r2, c2, v, ZS_F64, 0) ||
      zs_encode(&fx.E, fx.A, ZS_FORMAT_CSR, NULL) ||
      zs_operator_create(&fx.op, fx.ctx, fx.E, "ref", NULL) ||
      zs_vector_create(&fx.v2, fx.ctx, "ref", ZS_F64, 2) || zs_vans_create(&fx.V, 4, NULL, 0) ||
      zs_vans_add_layer(fx.V, 4, wf) || zs_vans_chain_create(&fx.chain, fx.ctx, fx.V, "ref") ||
      zs_matrix_write(fx.A, fx.mtx) || zs_encoded_save(fx.E, fx.zsm) ||
      zs_vans_write(fx.V, fx.vans) || zs_vans_write_baseline(fx.V, fx.base))
    return 0;
  for (int i = 0; i < 4; i++)
    if (zs_vector_create(vs[i], fx.ctx, "ref", ZS_F64, 3) || zs_vector_upload(*vs[i], one))
      return 0;
  return 1;
}

static void teardown(void) {
  zs_vans_chain_destroy(&fx.chain), zs_vans_destroy(&fx.V);
  zs_vector_destroy(&fx.x), zs_vector_destroy(&fx.y), zs_vector_destroy(&fx.z);
  zs_vector_destroy(&fx.w), zs_vector_destroy(&fx.v2);
  zs_operator_destroy(&fx.op), zs_encoded_destroy(&fx.E);
  zs_matrix_destroy(&fx.A), zs_matrix_destroy(&fx.R), zs_context_destroy(&fx.ctx);
  const char *files[] = {fx.mtx, fx.zsm, fx.vans, fx.base};
  for (int i = 0; i < 4; i++) remove(files[i]);
  remove(fx.dir);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: api_walk INCLUDE_DIR\n");
    return 2;
  }
  signal(SIGSEGV, on_signal), signal(SIGBUS, on_signal), signal(SIGABRT, on_signal);
  int declared = 0, headers = 0;
  DIR *d = opendir(argv[1]);
  for (struct dirent *e; d && (e = readdir(d));) {
    const size_t len = strlen(e->d_name);
    if (strncmp(e->d_name, "zsparse", 7) != 0 || len < 3 || strcmp(e->d_name + len - 2, ".h") ||
        strcmp(e->d_name, "zsparse_petsc.h") == 0)
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
    declared += scan_header(path), headers++;
  }
  if (d) closedir(d);
  if (headers < 3 || declared < N_CASES) {
    fprintf(stderr, "%s: %d headers, %d declarations: not the public headers\n", argv[1], headers,
            declared);
    failures++;
  }
  if (!setup()) {
    fprintf(stderr, "setup failed: %s: %s\n", current, zs_last_error());
    return 1;
  }
  for (int i = 0; i < N_CASES; i++) {
    current = cases[i].name;
    cases[i].run();
  }
  current = "(teardown)";
  teardown();
  printf("%d public functions declared, %d cases walked, %d failure(s)\n", declared, N_CASES,
         failures);
  return failures ? 1 : 0;
}
