/* sell_transpose.h — Aᵀ of a SELL-C-sigma matrix as SELL again (host side, plain C), for the GPU
 * modules' deterministic SpMVT (experimental.sell_transpose=sell): slices of 2^lc rows, Aᵀ's
 * rows sorted by length inside windows of sigma rows, slices as wide as their longest row and
 * padding in the row's last column, by the encoder's own rule (formats/sell/sell_shape.h), so
 * that a slice pads little where A's columns hold different counts. Each row of Aᵀ lists its
 * column's nonzeros in A's row order (the order of the sums); padding has no value. Aᵀ's
 * shape (positions, slice widths, so its padding) follows from A's column counts alone
 * (zs_sell_t_offsets, zs_sell_t_plan), so a caller can decide whether to take it before any of
 * its entries is built (zs_sell_t_fill). */
#ifndef ZS_SELL_TRANSPOSE_H
#define ZS_SELL_TRANSPOSE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/sell/sell_layout.h"
#include "formats/sell/sell_shape.h"

typedef struct zs_sell_t {
  int64_t rows, n_slices, entries; /* rows: A's columns */
  int lc;                          /* log2 of the slice height */
  int64_t *slice_ptr;              /* n_slices + 1, as the format's */
  int32_t *perm;                   /* rows: the row of Aᵀ at each position */
  int32_t *col;                    /* entries: A's row of each entry */
  int32_t *at;                     /* entries: A's entry holding its value, -1 for padding */
} zs_sell_t;

/* A as its layout gives it: rows, cols, log2 of its slice height, slice offsets, real entries per
 * position, the row at each position (NULL: natural order) and the columns of every entry. */
typedef struct zs_sell_a {
  int64_t rows, cols;
  int lc;
  const int64_t *slice_ptr;
  const int32_t *len, *perm, *col;
} zs_sell_a;

static inline void zs_sell_t_free(zs_sell_t *t) {
  free(t->slice_ptr), free(t->perm), free(t->col), free(t->at);
  memset(t, 0, sizeof *t);
}

/* The entry of position p's k-th nonzero in A. */
static inline int64_t zs_sell_a_entry(const zs_sell_a *a, int64_t p, int64_t k) {
  return a->slice_ptr[p >> a->lc] + (p & ((INT64_C(1) << a->lc) - 1)) + (k << a->lc);
}

/* Aᵀ's row offsets (a->cols + 1, malloc'ed): A's column counts, summed. NULL when out of memory.
 * They alone fix Aᵀ's shape (zs_sell_t_plan). */
static inline int64_t *zs_sell_t_offsets(const zs_sell_a *a) {
  int64_t *t_ptr = (int64_t *)calloc((size_t)a->cols + 1, sizeof *t_ptr);
  if (!t_ptr) return NULL;
  for (int64_t p = 0; p < a->rows; p++)
    for (int64_t k = 0; k < a->len[p]; k++) t_ptr[a->col[zs_sell_a_entry(a, p, k)] + 1]++;
  for (int64_t j = 0; j < a->cols; j++) t_ptr[j + 1] += t_ptr[j];
  return t_ptr;
}

/* Aᵀ's shape from its row offsets alone (t_ptr, rows + 1): slices of 2^lc rows, windows of
 * sigma >= 1 rows; positions (perm), slice offsets and so the entries, padding included, before
 * any entry is built (col and at stay NULL). Returns 1, 0 when out of memory, -1 when the
 * entries would pass SELL_ENTRIES_MAX (t then holds nothing). */
static inline int zs_sell_t_plan(zs_sell_t *t, const int64_t *t_ptr, int64_t rows, int lc,
                                 int64_t sigma) {
  memset(t, 0, sizeof *t);
  const int64_t c = INT64_C(1) << lc, n_slices = (rows + c - 1) / c;
  const int64_t w = sigma < rows ? sigma : rows; /* a window's rows at most */
  const size_t n = (size_t)(w ? w : 1);
  uint64_t *key = (uint64_t *)malloc(2 * n * sizeof *key);
  t->slice_ptr = (int64_t *)malloc(((size_t)n_slices + 1) * 8);
  t->perm = (int32_t *)malloc(((size_t)rows + 1) * 4);
  if (!key || !t->slice_ptr || !t->perm) {
    free(key);
    zs_sell_t_free(t);
    return 0;
  }
  /* positions and widths as the encoder lays a matrix out (formats/sell/sell_shape.h) */
  sell_sort_windows(t_ptr, rows, sigma, t->perm, key, key + n);
  free(key);
  int64_t widest;
  if (sell_slice_offsets(t_ptr, t->perm, rows, c, SELL_ENTRIES_MAX, t->slice_ptr, &widest) >= 0) {
    zs_sell_t_free(t);
    return -1;
  }
  t->rows = rows, t->n_slices = n_slices, t->entries = t->slice_ptr[n_slices], t->lc = lc;
  return 1;
}

/* Whether t pads at most pct percent (0..100) of its nnz real entries: entries - nnz <=
 * nnz pct / 100, the bound's floor taken as (nnz / 100) pct + (nnz % 100) pct / 100 so that no
 * product overflows. */
static inline int zs_sell_t_pads_at_most(const zs_sell_t *t, int64_t nnz, int64_t pct) {
  return t->entries - nnz <= nnz / 100 * pct + nnz % 100 * pct / 100;
}

/* Aᵀ's entries (col, at) for t, planned by zs_sell_t_plan from t_ptr = zs_sell_t_offsets(a).
 * Returns 0 when out of memory (t then holds nothing). A's entries must fit int32 (the caller
 * checks). */
static inline int zs_sell_t_fill(zs_sell_t *t, const zs_sell_a *a, const int64_t *t_ptr) {
  const int64_t rows = t->rows, c = INT64_C(1) << t->lc, nnz = t_ptr[rows];
  const size_t nr = (size_t)rows + 1, ne = (size_t)(t->entries ? t->entries : 1);
  int64_t *next = (int64_t *)malloc(nr * 8);
  int32_t *pos_of = (int32_t *)malloc((size_t)(a->rows ? a->rows : 1) * 4);
  int32_t *t_col = (int32_t *)malloc((size_t)(nnz ? nnz : 1) * 4);
  int32_t *t_src = (int32_t *)malloc((size_t)(nnz ? nnz : 1) * 4);
  t->col = (int32_t *)malloc(ne * 4), t->at = (int32_t *)malloc(ne * 4);
  const int ok = next && pos_of && t_col && t_src && t->col && t->at;
  /* Aᵀ as CSR, each row in A's row order: filled row by row of A */
  if (ok) {
    memcpy(next, t_ptr, nr * 8);
    for (int64_t p = 0; p < a->rows; p++) pos_of[a->perm ? a->perm[p] : p] = (int32_t)p;
  }
  for (int64_t i = 0; ok && i < a->rows; i++)
    for (int64_t k = 0, p = pos_of[i]; k < a->len[p]; k++) {
      const int64_t e = zs_sell_a_entry(a, p, k), q = next[a->col[e]]++;
      t_col[q] = (int32_t)i, t_src[q] = (int32_t)e;
    }
  for (int64_t p = 0; ok && p < t->n_slices * c; p++) {
    const int64_t s = p >> t->lc, width = (t->slice_ptr[s + 1] - t->slice_ptr[s]) >> t->lc;
    const int64_t b = p < rows ? t_ptr[t->perm[p]] : 0;
    const int64_t len = p < rows ? t_ptr[t->perm[p] + 1] - b : 0;
    for (int64_t k = 0; k < width; k++) {
      const int64_t e = t->slice_ptr[s] + (k << t->lc) + (p & (c - 1));
      t->col[e] = k < len ? t_col[b + k] : sell_pad_column(t_col + b, len);
      t->at[e] = k < len ? t_src[b + k] : -1;
    }
  }
  free(next), free(pos_of), free(t_col), free(t_src);
  if (!ok) zs_sell_t_free(t);
  return ok;
}

/* Build Aᵀ (slices of 2^lc rows, windows of sigma >= 1 rows): offsets, plan, entries. Returns 0
 * when out of memory or past SELL_ENTRIES_MAX (t then holds nothing). A's entries must fit int32
 * (the caller checks). */
static inline int zs_sell_t_build(zs_sell_t *t, const zs_sell_a *a, int lc, int64_t sigma) {
  memset(t, 0, sizeof *t);
  int64_t *t_ptr = zs_sell_t_offsets(a);
  const int ok =
      t_ptr && zs_sell_t_plan(t, t_ptr, a->cols, lc, sigma) > 0 && zs_sell_t_fill(t, a, t_ptr);
  free(t_ptr);
  return ok;
}

#endif /* ZS_SELL_TRANSPOSE_H */
