/* sell_layout.h — the typed layout of a SELL-C-sigma blob (docs/formats/sell.md) and the one
 * parser from a zsb_encoded_view that the reference decoder and every backend read it through.
 * Header-only C11, compiles as C++17. */
#ifndef ZS_SELL_LAYOUT_H
#define ZS_SELL_LAYOUT_H

#include "formats/format_layout.h"

/* Slice heights c: the powers of two 1 .. SELL_C_MAX. Sorting windows sigma: 1 (natural order) or
 * a multiple of c up to SELL_SIGMA_MAX. */
#define SELL_C_MAX 256
#define SELL_SIGMA_MAX (INT64_C(1) << 30)
/* Stored entries (nonzeros and padding) at most; slice_ptr holds them as int64. */
#define SELL_ENTRIES_MAX (INT64_C(1) << 62)

/* Pointers alias the view's arrays. Sizes are checked here; contents (offsets, widths, lengths,
 * the permutation, columns and padding) by the format's validate. */
typedef struct sell_layout {
  int64_t rows, cols, nnz;
  zs_type type;
  uint32_t value_bytes;     /* 4 (f32) or 8 (f64) */
  int64_t c, sigma;         /* slice height, sorting window */
  int64_t n_slices;         /* ceil(rows / c) */
  int64_t entries;          /* slice_ptr[n_slices]: nonzeros and padding */
  const int64_t *slice_ptr; /* n_slices + 1: slice s holds entries [slice_ptr[s], slice_ptr[s+1]) */
  const void *row_len;      /* rows of len_bytes bytes, by stored position: real entries */
  uint32_t len_bytes;       /* 1, 2 or 4 */
  const int32_t *perm;      /* rows when sigma > 1 (stored position -> row), else NULL */
  const int32_t *col_idx;   /* entries: position p's k-th entry at slice_ptr[p / c] + k c + p % c */
  const void *values;       /* entries, of type */
} sell_layout;

/* Element p of row_len. */
static inline int64_t sell_len(const sell_layout *L, int64_t p) {
  return L->len_bytes == 1   ? ((const uint8_t *)L->row_len)[p]
         : L->len_bytes == 2 ? ((const uint16_t *)L->row_len)[p]
                             : ((const int32_t *)L->row_len)[p];
}

/* The row stored at position p. */
static inline int64_t sell_row(const sell_layout *L, int64_t p) { return L->perm ? L->perm[p] : p; }

/* Parse `v` into L. Returns ZS_OK or ZS_ERR_CORRUPT with a message starting "sell: " in why
 * (why_len bytes; may be NULL). */
static inline zs_status sell_layout_parse(const zsb_encoded_view *v, sell_layout *L, char *why,
                                          size_t why_len) {
  ZSI_LAYOUT_OPEN(c, s, v, L, "sell", why, why_len);
  if ((s = zsi_layout_param(&c, "c", 1, SELL_C_MAX, ZSI_LAYOUT_REQUIRED, &L->c)) ||
      (s = zsi_layout_param(&c, "sigma", 1, SELL_SIGMA_MAX, 1, &L->sigma)))
    return s;
  if (L->c & (L->c - 1))
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT, "parameter 'c' = %" PRId64 " is not a power of two",
                           L->c);
  if (L->sigma > 1 && L->sigma % L->c)
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                           "parameter 'sigma' = %" PRId64 " is not 1 or a multiple of c = %" PRId64,
                           L->sigma, L->c);
  L->n_slices = (v->rows + L->c - 1) / L->c;
  if ((s = zsi_layout_array(&c, "slice_ptr", 8, (uint64_t)L->n_slices + 1, 1,
                            (const void **)&L->slice_ptr, NULL)))
    return s;
  L->entries = L->slice_ptr[L->n_slices];
  if (L->entries < v->nnz || L->entries > SELL_ENTRIES_MAX)
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                           "slice_ptr ends at %" PRId64 " entries, not in [nnz = %" PRId64
                           ", 2^62]",
                           L->entries, v->nnz);
  const zsb_array *len = zsb_find_array(v, "row_len");
  if (!len) return zsi_layout_fail(&c, ZS_ERR_CORRUPT, "array 'row_len' is missing");
  L->len_bytes = len->elem_size;
  if (L->len_bytes != 1 && L->len_bytes != 2 && L->len_bytes != 4)
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                           "array 'row_len' has %u-byte elements, not 1, 2 or 4", L->len_bytes);
  const uint64_t ne = (uint64_t)L->entries;
  if ((s = zsi_layout_array(&c, "row_len", L->len_bytes, (uint64_t)v->rows, 1, &L->row_len,
                            NULL)) ||
      (s = zsi_layout_array(&c, "perm", 4, (uint64_t)v->rows, L->sigma > 1, (const void **)&L->perm,
                            NULL)) ||
      (s = zsi_layout_array(&c, "col_idx", 4, ne, 1, (const void **)&L->col_idx, NULL)))
    return s;
  if (L->sigma == 1 && L->perm)
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT, "array 'perm' is present with sigma = 1");
  return zsi_layout_array(&c, "values", L->value_bytes, ne, 1, &L->values, NULL);
}

#endif
