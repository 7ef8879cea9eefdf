/* csr.c — CSR baseline: encode (a copy of the canonical arrays), validate, decode. */
#include <inttypes.h>
#include <string.h>

#include "formats/csr/csr.h"

static zs_status csr_encode(const zs_matrix *A, const char *options, zs_encoded **out) {
  static const char *const known[] = {NULL};
  zs_status s = zsi_option_check(options, known, "csr");
  if (s != ZS_OK) return s;
  size_t es = zs_type_size(A->type);
  zs_encoded *E;
  void *rp, *ci, *v;
  if ((s = zsi_encoded_new(&E, ZS_FORMAT_CSR, A->type, A->rows, A->cols, A->nnz)) != ZS_OK)
    return s;
  if ((s = zsi_encoded_add_array(E, "row_ptr", 8, (uint64_t)A->rows + 1, &rp)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "col_idx", 4, (uint64_t)A->nnz, &ci)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "values", (uint32_t)es, (uint64_t)A->nnz, &v)) != ZS_OK) {
    zs_encoded_destroy(&E);
    return s;
  }
  memcpy(rp, A->row_ptr, ((size_t)A->rows + 1) * 8);
  memcpy(ci, A->col_idx, (size_t)A->nnz * 4);
  memcpy(v, A->values, (size_t)A->nnz * es);
  *out = E;
  return ZS_OK;
}

static zs_status csr_validate(const zs_encoded *E) {
  csr_layout L;
  zs_status s = zsi_csr_layout_of(E, &L);
  if (s != ZS_OK) return s;
  const int64_t *rp = L.row_ptr;
  const int32_t *ci = L.col_idx;
  if (rp[0] != 0) return zsi_error(ZS_ERR_CORRUPT, "row_ptr[0] is %" PRId64 ", not 0", rp[0]);
  for (int64_t i = 0; i < E->rows; i++) {
    if (rp[i + 1] < rp[i] || rp[i + 1] > E->nnz)
      return zsi_error(ZS_ERR_CORRUPT, "row_ptr[%" PRId64 "] = %" PRId64 " is out of order", i + 1,
                       rp[i + 1]);
    for (int64_t k = rp[i]; k < rp[i + 1]; k++)
      if (ci[k] < 0 || ci[k] >= E->cols || (k > rp[i] && ci[k] <= ci[k - 1]))
        return zsi_error(ZS_ERR_CORRUPT,
                         "col_idx[%" PRId64 "] = %" PRId32 " (row %" PRId64
                         ") is out of range or not ascending",
                         k, ci[k], i);
  }
  if (rp[E->rows] != E->nnz)
    return zsi_error(ZS_ERR_CORRUPT, "row_ptr ends at %" PRId64 ", nnz is %" PRId64, rp[E->rows],
                     E->nnz);
  return ZS_OK;
}

static zs_status csr_decode(const zs_encoded *E, zs_matrix **out) {
  csr_layout L;
  zs_status s = zsi_csr_layout_of(E, &L);
  if (s != ZS_OK) return s;
  zs_matrix *A;
  if ((s = zsi_matrix_alloc(&A, E->rows, E->cols, E->nnz, E->type)) != ZS_OK) return s;
  memcpy(A->row_ptr, L.row_ptr, ((size_t)E->rows + 1) * 8);
  memcpy(A->col_idx, L.col_idx, (size_t)E->nnz * 4);
  memcpy(A->values, L.values, (size_t)E->nnz * L.value_bytes);
  *out = A;
  return ZS_OK;
}

zs_status zsi_csr_layout_of(const zs_encoded *E, csr_layout *L) {
  zsi_view_buf vb;
  char why[ZSI_LAYOUT_WHY];
  const zs_status s = csr_layout_parse(zsi_encoded_as_view(E, &vb), L, why, sizeof why);
  return s == ZS_OK ? ZS_OK : zsi_error(s, "%s", why);
}

const zsi_format_ops zsi_format_csr = {ZS_FORMAT_CSR, "csr",      csr_encode,
                                       csr_validate,  csr_decode, NULL};
