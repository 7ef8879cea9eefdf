/* operator.c — zs_operator: an encoded matrix uploaded to one backend, and zs_spmv. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/runtime.h"

struct zs_operator {
  const zsb_backend *be;
  void *state;
  zs_type type;
  int64_t rows, cols;
};

zs_status zs_operator_create(zs_operator **out, zs_context *ctx, const zs_encoded *E,
                             const char *backend, const char *options) {
  if (!out || !E) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_operator_create: NULL argument");
  const zsi_backend_slot *b;
  zs_status s = zsi_backend_get(ctx, backend, &b);
  if (s != ZS_OK) return s;
  zsb_array arrays[ZSI_MAX_ARRAYS];
  zsb_param params[ZSI_MAX_PARAMS];
  zsb_encoded_view view;
  zsi_encoded_view(E, &view, arrays, params);
  zs_operator *op = calloc(1, sizeof *op);
  if (!op) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "operator header");
  op->be = b->ops, op->type = E->type, op->rows = E->rows, op->cols = E->cols;
  if ((s = op->be->op_create(op->be->self, &op->state, &view, options)) != ZS_OK) {
    free(op);
    return s;
  }
  *out = op;
  return ZS_OK;
}

void zs_operator_destroy(zs_operator **op) {
  if (!op || !*op) return;
  (*op)->be->op_destroy((*op)->be->self, (*op)->state);
  free(*op);
  *op = NULL;
}

const char *zs_operator_backend(const zs_operator *op) { return op ? op->be->name : NULL; }

zs_status zs_spmv(zs_operator *op, zs_op which, double alpha, const zs_vector *x, double beta,
                  zs_vector *y) {
  if (!op || !x || !y) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_spmv: NULL argument");
  if (which != ZS_OP_N && which != ZS_OP_T)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_spmv: op %d is neither N nor T", (int)which);
  int64_t nx = which == ZS_OP_N ? op->cols : op->rows, ny = which == ZS_OP_N ? op->rows : op->cols;
  if (zs_vector_size(x) != nx || zs_vector_size(y) != ny)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "zs_spmv: x has %" PRId64 " and y %" PRId64 " elements, op(A) needs %" PRId64
                     " and %" PRId64,
                     zs_vector_size(x), zs_vector_size(y), nx, ny);
  if (zs_vector_type(x) != op->type || zs_vector_type(y) != op->type)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_spmv: vectors must be %s like the matrix",
                     zs_type_name(op->type));
  if (zsi_vector_backend(x) != op->be || zsi_vector_backend(y) != op->be)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_spmv: vectors must live on backend '%s'",
                     op->be->name);
  if (zsi_vector_data(x) == zsi_vector_data(y) && nx > 0)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_spmv: x and y must not alias");
  return op->be->op_apply(op->be->self, op->state, which, alpha, zsi_vector_data(x), beta,
                          zsi_vector_data(y));
}

zs_status zs_operator_sync(zs_operator *op) {
  if (!op) return zsi_error(ZS_ERR_INVALID_ARGUMENT, "zs_operator_sync: NULL operator");
  return op->be->sync ? op->be->sync(op->be->self) : ZS_OK;
}
