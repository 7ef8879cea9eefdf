/* operator.c — zs_operator: an encoded matrix uploaded to one backend, zs_spmv and zs_spmv_pair. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/runtime.h"

struct zs_operator {
  const zsi_backend_slot *slot; /* its context's backend: functions and state */
  const zsb_backend *be;        /* slot->ops */
  void *state;
  void *state_t; /* transpose=stored: Aᵀ in A's format, applied forward for SpMVT */
  zs_type type;
  int64_t rows, cols;
};

/* Aᵀ encoded in E's format with the encoder options E was made with, so that the SpMVT runs the
 * kernel chosen for A (.zsm files keep them; a blob without options gets the defaults). */
zs_status zsi_encode_transpose(const zs_encoded *E, zs_encoded **out) {
  zs_matrix *A = NULL, *At = NULL;
  zs_status s = zs_decode(&A, E);
  if (s == ZS_OK) s = zs_matrix_transpose(&At, A);
  if (s == ZS_OK && (s = zs_encode(out, At, E->format, E->options)) != ZS_OK && E->options)
    s = zsi_error_prefix(s, "transpose=stored: encoding A^T with the options '%s'", E->options);
  zs_matrix_destroy(&A), zs_matrix_destroy(&At);
  return s;
}

static zs_status backend_op(const zsi_backend_slot *b, const zs_encoded *E, const char *options,
                            void **state) {
  zsb_array arrays[ZSI_MAX_ARRAYS];
  zsb_param params[ZSI_MAX_PARAMS];
  zsb_encoded_view view;
  zsi_encoded_view(E, &view, arrays, params);
  return b->ops->op_create(b->self, state, &view, options);
}

zs_status zs_operator_create(zs_operator **out, zs_context *ctx, const zs_encoded *E,
                             const char *backend, const char *options) {
  if (!out || !ctx || !E)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_operator_create: out, ctx or E is NULL");
  const zsi_backend_slot *b;
  zs_status s = zsi_backend_get(ctx, backend, &b);
  if (s != ZS_OK) return s;
  int stored;
  char *opts;
  if ((s = zsi_backend_options(b->name, E->format, options, &opts, &stored)) != ZS_OK) return s;
  zs_operator *op = calloc(1, sizeof *op);
  if (!op) {
    free(opts);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "operator header");
  }
  op->slot = b, op->be = b->ops, op->type = E->type, op->rows = E->rows, op->cols = E->cols;
  s = backend_op(b, E, opts, &op->state);
  if (s == ZS_OK && stored) {
    zs_encoded *T = NULL;
    s = zsi_encode_transpose(E, &T);
    if (s == ZS_OK) s = backend_op(b, T, opts, &op->state_t);
    zs_encoded_destroy(&T);
  }
  free(opts);
  if (s != ZS_OK) {
    zs_operator_destroy(&op);
    return s;
  }
  *out = op;
  return ZS_OK;
}

void zs_operator_destroy(zs_operator **op) {
  if (!op || !*op) return;
  if ((*op)->state) (*op)->be->op_destroy((*op)->slot->self, (*op)->state);
  if ((*op)->state_t) (*op)->be->op_destroy((*op)->slot->self, (*op)->state_t);
  free(*op);
  *op = NULL;
}

const char *zs_operator_backend(const zs_operator *op) { return op ? op->be->name : NULL; }
int64_t zs_operator_rows(const zs_operator *op) { return op ? op->rows : 0; }
int64_t zs_operator_cols(const zs_operator *op) { return op ? op->cols : 0; }
zs_type zs_operator_type(const zs_operator *op) { return op ? op->type : (zs_type)0; }

/* v, the operand `name` of function fn, has n elements of the operator's type on its backend. */
static zs_status check_operand(const char *fn, const zs_operator *op, const zs_vector *v,
                               const char *name, int64_t n) {
  if (!v) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, name);
  if (zs_vector_size(v) != n)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "%s: %s has %" PRId64 " elements, the %" PRId64 " x %" PRId64
                     " operator needs %" PRId64,
                     fn, name, zs_vector_size(v), op->rows, op->cols, n);
  if (zs_vector_type(v) != op->type)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "%s: %s must be %s like the matrix", fn, name,
                     zs_type_name(op->type));
  if (zsi_vector_backend(v) != op->slot)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "%s: %s must live on backend '%s' of the operator's context", fn, name,
                     op->be->name);
  return ZS_OK;
}

zs_status zs_spmv(zs_operator *op, zs_op which, double alpha, const zs_vector *x, double beta,
                  zs_vector *y) {
  if (!op) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_spmv: NULL operator");
  if (which != ZS_OP_N && which != ZS_OP_T)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_spmv: op %d is neither N nor T", (int)which);
  int64_t nx = which == ZS_OP_N ? op->cols : op->rows, ny = which == ZS_OP_N ? op->rows : op->cols;
  zs_status s;
  if ((s = check_operand("zs_spmv", op, x, "x", nx)) ||
      (s = check_operand("zs_spmv", op, y, "y", ny)))
    return s;
  if (zsi_vector_overlap(x, y))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_spmv: x and y must not alias");
  if (which == ZS_OP_T && op->state_t) /* transpose=stored */
    return op->be->op_apply(op->slot->self, op->state_t, ZS_OP_N, alpha, zsi_vector_data(x), beta,
                            zsi_vector_data(y));
  return op->be->op_apply(op->slot->self, op->state, which, alpha, zsi_vector_data(x), beta,
                          zsi_vector_data(y));
}

zs_status zs_spmv_pair(zs_operator *op, double alpha, const zs_vector *x, double beta, zs_vector *y,
                       double alpha_t, const zs_vector *w, double beta_t, zs_vector *z) {
  if (!op) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_spmv_pair: NULL operator");
  zs_status s;
  const char *fn = "zs_spmv_pair";
  if ((s = check_operand(fn, op, x, "x", op->cols)) ||
      (s = check_operand(fn, op, y, "y", op->rows)) ||
      (s = check_operand(fn, op, w, "w", op->rows)) ||
      (s = check_operand(fn, op, z, "z", op->cols)))
    return s;
  /* Outputs may not share storage with anything else (empty vectors hold none). */
  if (zsi_vector_overlap(y, z) || zsi_vector_overlap(y, x) || zsi_vector_overlap(y, w) ||
      zsi_vector_overlap(z, x) || zsi_vector_overlap(z, w))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_spmv_pair: y and z must be distinct from each other and from x and w");
  if (!op->state_t && op->be->extension) {
    const zsb_spmv_pair *ext = op->be->extension(op->slot->self, ZSB_EXT_SPMV_PAIR);
    if (ext) {
      s = ext->apply_pair(op->slot->self, op->state, alpha, zsi_vector_data(x), beta,
                          zsi_vector_data(y), alpha_t, zsi_vector_data(w), beta_t,
                          zsi_vector_data(z));
      if (s != ZS_ERR_UNSUPPORTED) return s;
    }
  }
  if ((s = zs_spmv(op, ZS_OP_N, alpha, x, beta, y)) != ZS_OK) return s;
  return zs_spmv(op, ZS_OP_T, alpha_t, w, beta_t, z);
}

zs_status zs_operator_sync(zs_operator *op) {
  if (!op) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_operator_sync: NULL operator");
  return op->be->sync ? op->be->sync(op->slot->self) : ZS_OK;
}
