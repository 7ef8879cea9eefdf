/* coo_layout.h — the typed layout of a COO blob (docs/formats/coo.md) and the one parser from a
 * zsb_encoded_view that the reference decoder and every backend read it through. Header-only C11,
 * compiles as C++17. */
#ifndef ZS_COO_LAYOUT_H
#define ZS_COO_LAYOUT_H

#include "formats/format_layout.h"

/* Pointers alias the view's arrays; contents (ranges, row-major order) are checked by validate. */
typedef struct coo_layout {
  int64_t rows, cols, nnz;
  zs_type type;
  uint32_t value_bytes;   /* 4 (f32) or 8 (f64) */
  const int32_t *row_idx; /* nnz, ascending */
  const int32_t *col_idx; /* nnz, ascending within a row */
  const void *values;     /* nnz, of type */
} coo_layout;

/* Parse `v` into L. Returns ZS_OK or ZS_ERR_CORRUPT with a message starting "coo: " in why
 * (why_len bytes; may be NULL). */
static inline zs_status coo_layout_parse(const zsb_encoded_view *v, coo_layout *L, char *why,
                                         size_t why_len) {
  ZSI_LAYOUT_OPEN(c, s, v, L, "coo", why, why_len);
  return zsi_layout_plain(&c, "row_idx", 4, (uint64_t)v->nnz, (const void **)&L->row_idx,
                          &L->col_idx, &L->values);
}

#endif
