/* csr_layout.h — the typed layout of a CSR blob (docs/formats/csr.md) and the one parser from a
 * zsb_encoded_view that the reference decoder and every backend read it through. Header-only C11,
 * compiles as C++17. */
#ifndef ZS_CSR_LAYOUT_H
#define ZS_CSR_LAYOUT_H

#include "formats/format_layout.h"

/* Pointers alias the view's arrays; contents (offsets, column order) are checked by validate. */
typedef struct csr_layout {
  int64_t rows, cols, nnz;
  zs_type type;
  uint32_t value_bytes;   /* 4 (f32) or 8 (f64) */
  const int64_t *row_ptr; /* rows + 1 */
  const int32_t *col_idx; /* nnz, ascending within a row */
  const void *values;     /* nnz, of type */
} csr_layout;

/* Parse `v` into L. Returns ZS_OK or ZS_ERR_CORRUPT with a message starting "csr: " in why
 * (why_len bytes; may be NULL). */
static inline zs_status csr_layout_parse(const zsb_encoded_view *v, csr_layout *L, char *why,
                                         size_t why_len) {
  ZSI_LAYOUT_OPEN(c, s, v, L, "csr", why, why_len);
  return zsi_layout_plain(&c, "row_ptr", 8, (uint64_t)v->rows + 1, (const void **)&L->row_ptr,
                          &L->col_idx, &L->values);
}

#endif
