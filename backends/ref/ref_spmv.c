/* ref_spmv.c — the oracle's CSR and COO operators: copies of the arrays and scalar products. */
#include <string.h>

#include "backends/ref/ref_kernels.h"

typedef struct ref_op {
  zs_format format;
  zs_type type;
  int64_t rows, cols, nnz;
  int64_t *row_ptr; /* CSR */
  int32_t *row_idx; /* COO */
  int32_t *col_idx;
  void *values;
} ref_op;

#define VT float
#define SFX(name) name##_f32
#include "backends/ref/ref_spmv_tmpl.inc"
#undef VT
#undef SFX
#define VT double
#define SFX(name) name##_f64
#include "backends/ref/ref_spmv_tmpl.inc"
#undef VT
#undef SFX

static void ref_destroy(void *state) {
  ref_op *A = state;
  if (!A) return;
  zsi_free(A->row_ptr);
  zsi_free(A->row_idx);
  zsi_free(A->col_idx);
  zsi_free(A->values);
  zsi_free(A);
}

/* Every compressed format: the reference decoder gives back the CSR, whose scalar product is the
 * oracle. Kernels of the other backends decode on the fly; here decoding is done once. */
static zs_status ref_create_decoded(void **state, const zsb_encoded_view *enc) {
  zs_matrix *M;
  zs_status s = zsi_view_decode(enc, "ref", &M);
  if (s != ZS_OK) return s;
  ref_op *A = zsi_alloc(sizeof *A);
  if (!A) {
    zs_matrix_destroy(&M);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'ref': operator header");
  }
  A->format = ZS_FORMAT_CSR, A->type = M->type;
  A->rows = M->rows, A->cols = M->cols, A->nnz = M->nnz;
  A->row_ptr = M->row_ptr, A->col_idx = M->col_idx, A->values = M->values;
  M->row_ptr = NULL, M->col_idx = NULL, M->values = NULL; /* now owned by A */
  zs_matrix_destroy(&M);
  *state = A;
  return ZS_OK;
}

static zs_status ref_create(void **state, const zsb_encoded_view *enc) {
  if (enc->format != ZS_FORMAT_CSR && enc->format != ZS_FORMAT_COO)
    return ref_create_decoded(state, enc);
  ref_op *A = zsi_alloc(sizeof *A);
  if (!A) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'ref': operator header");
  A->format = enc->format, A->type = enc->type;
  A->rows = enc->rows, A->cols = enc->cols, A->nnz = enc->nnz;
  const uint64_t nnz = (uint64_t)enc->nnz;
  zs_status s = zsi_view_copy_array(enc, "ref", "col_idx", 4, nnz, (void **)&A->col_idx);
  if (s == ZS_OK)
    s = zsi_view_copy_array(enc, "ref", "values", (uint32_t)zs_type_size(enc->type), nnz,
                            &A->values);
  if (s == ZS_OK && enc->format == ZS_FORMAT_CSR)
    s = zsi_view_copy_array(enc, "ref", "row_ptr", 8, (uint64_t)enc->rows + 1,
                            (void **)&A->row_ptr);
  if (s == ZS_OK && enc->format == ZS_FORMAT_COO)
    s = zsi_view_copy_array(enc, "ref", "row_idx", 4, nnz, (void **)&A->row_idx);
  if (s != ZS_OK) {
    ref_destroy(A);
    return s;
  }
  *state = A;
  return ZS_OK;
}

static zs_status ref_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                           void *y) {
  const ref_op *A = state;
  void *t = NULL;
  /* Only CSR op N sums straight into y; everything else scatters into a scratch vector. */
  if (!(A->format == ZS_FORMAT_CSR && which == ZS_OP_N)) {
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

const zsi_ref_kernel zsi_ref_csr = {ZS_FORMAT_CSR, ref_create, ref_destroy, ref_apply};
const zsi_ref_kernel zsi_ref_coo = {ZS_FORMAT_COO, ref_create, ref_destroy, ref_apply};
const zsi_ref_kernel zsi_ref_csb = {ZS_FORMAT_CSB, ref_create, ref_destroy, ref_apply};
const zsi_ref_kernel zsi_ref_gcsb = {ZS_FORMAT_GCSB, ref_create, ref_destroy, ref_apply};
const zsi_ref_kernel zsi_ref_cci = {ZS_FORMAT_CCI, ref_create, ref_destroy, ref_apply};
const zsi_ref_kernel zsi_ref_dtans = {ZS_FORMAT_DTANS, ref_create, ref_destroy, ref_apply};
