/* ref_spmv.c — the oracle's operator for every format: the blob decoded to CSR by the format's
 * reference decoder, then scalar products. */
#include <string.h>

#include "backends/ref/ref_kernels.h"

typedef struct ref_op {
  zs_type type;
  int64_t rows, cols, nnz;
  int64_t *row_ptr;
  int32_t *col_idx;
  void *values;
} ref_op;

#define ZSI_TEMPLATE "backends/ref/ref_spmv_tmpl.inc"
#include "backends/each_value_type.h"

static void ref_destroy(void *state) {
  ref_op *A = state;
  if (!A) return;
  zsi_free(A->row_ptr);
  zsi_free(A->col_idx);
  zsi_free(A->values);
  zsi_free(A);
}

/* The reference decoder gives back the CSR, whose scalar product is the oracle. Kernels of the
 * other backends decode on the fly; here decoding is done once. */
static zs_status ref_create(void **state, const zsb_encoded_view *enc, const zsi_kernel_opts *o) {
  (void)o;
  zs_matrix *M;
  zs_status s = zsi_view_decode(enc, "ref", &M);
  if (s != ZS_OK) return s;
  ref_op *A = zsi_alloc(sizeof *A);
  if (!A) {
    zs_matrix_destroy(&M);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'ref': operator header");
  }
  A->type = M->type;
  A->rows = M->rows, A->cols = M->cols, A->nnz = M->nnz;
  A->row_ptr = M->row_ptr, A->col_idx = M->col_idx, A->values = M->values;
  M->row_ptr = NULL, M->col_idx = NULL, M->values = NULL; /* now owned by A */
  zs_matrix_destroy(&M);
  *state = A;
  return ZS_OK;
}

static zs_status ref_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                           void *y) {
  const ref_op *A = state;
  void *t = NULL;
  /* Op N sums straight into y; op T scatters into a scratch vector. */
  if (which == ZS_OP_T) {
    const int64_t n = which == ZS_OP_N ? A->rows : A->cols;
    if (!(t = zsi_alloc_array((uint64_t)n, zs_type_size(A->type))))
      return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'ref': scratch vector of %lld elements",
                       (long long)n);
  }
  if (A->type == ZS_F32)
    apply_f32(A, which, alpha, x, beta, y, t);
  else
    apply_f64(A, which, alpha, x, beta, y, t);
  zsi_free(t);
  return ZS_OK;
}

static const zsi_format_kernels ref_decoded = {ref_create, ref_destroy, ref_apply, NULL};

const zsi_format_kernels *zsi_ref_kernels_for(zs_format f) {
  return zsi_format_lookup(f) ? &ref_decoded : NULL;
}
