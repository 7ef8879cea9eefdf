/* coo.c — COO baseline: row and column index per nonzero, row-major order. */
#include <inttypes.h>
#include <string.h>

#include "formats/coo/coo.h"

static zs_status coo_encode(const zs_matrix *A, const char *options, zs_encoded **out) {
  static const char *const known[] = {NULL};
  zs_status s = zsi_option_check(options, known, "coo");
  if (s != ZS_OK) return s;
  size_t es = zs_type_size(A->type);
  zs_encoded *E;
  int32_t *ri, *ci;
  void *v;
  if ((s = zsi_encoded_new(&E, ZS_FORMAT_COO, A->type, A->rows, A->cols, A->nnz)) != ZS_OK)
    return s;
  if ((s = zsi_encoded_add_array(E, "row_idx", 4, (uint64_t)A->nnz, (void **)&ri)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "col_idx", 4, (uint64_t)A->nnz, (void **)&ci)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "values", (uint32_t)es, (uint64_t)A->nnz, &v)) != ZS_OK) {
    zs_encoded_destroy(&E);
    return s;
  }
  for (int64_t i = 0; i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) ri[k] = (int32_t)i;
  memcpy(ci, A->col_idx, (size_t)A->nnz * 4);
  memcpy(v, A->values, (size_t)A->nnz * es);
  *out = E;
  return ZS_OK;
}

static zs_status coo_validate(const zs_encoded *E) {
  coo_layout L;
  zs_status s = zsi_coo_layout_of(E, &L);
  if (s != ZS_OK) return s;
  const int32_t *ri = L.row_idx, *ci = L.col_idx;
  for (int64_t k = 0; k < E->nnz; k++) {
    if (ri[k] < 0 || ri[k] >= E->rows || ci[k] < 0 || ci[k] >= E->cols)
      return zsi_error(ZS_ERR_CORRUPT,
                       "row_idx/col_idx[%" PRId64 "] = (%" PRId32 ", %" PRId32
                       ") is outside the %" PRId64 " x %" PRId64 " matrix",
                       k, ri[k], ci[k], E->rows, E->cols);
    if (k > 0 && (ri[k] < ri[k - 1] || (ri[k] == ri[k - 1] && ci[k] <= ci[k - 1])))
      return zsi_error(ZS_ERR_CORRUPT, "row_idx/col_idx[%" PRId64 "] is not in row-major order", k);
  }
  return ZS_OK;
}

static zs_status coo_decode(const zs_encoded *E, zs_matrix **out) {
  coo_layout L;
  zs_status s = zsi_coo_layout_of(E, &L);
  if (s != ZS_OK) return s;
  zs_matrix *A;
  if ((s = zsi_matrix_alloc(&A, E->rows, E->cols, E->nnz, E->type)) != ZS_OK) return s;
  for (int64_t k = 0; k < E->nnz; k++) A->row_ptr[L.row_idx[k] + 1]++;
  for (int64_t i = 0; i < E->rows; i++) A->row_ptr[i + 1] += A->row_ptr[i];
  memcpy(A->col_idx, L.col_idx, (size_t)E->nnz * 4);
  memcpy(A->values, L.values, (size_t)E->nnz * L.value_bytes);
  *out = A;
  return ZS_OK;
}

zs_status zsi_coo_layout_of(const zs_encoded *E, coo_layout *L) {
  zsi_view_buf vb;
  char why[ZSI_LAYOUT_WHY];
  const zs_status s = coo_layout_parse(zsi_encoded_as_view(E, &vb), L, why, sizeof why);
  return s == ZS_OK ? ZS_OK : zsi_error(s, "%s", why);
}

const zsi_format_ops zsi_format_coo = {ZS_FORMAT_COO, "coo",      coo_encode,
                                       coo_validate,  coo_decode, NULL};
