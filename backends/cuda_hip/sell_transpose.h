/* sell_transpose.h — Aᵀ of a SELL-C-sigma matrix as SELL again (host side, plain C), for the GPU
 * modules' deterministic SpMVT (experimental.sell_transpose=sell): slices of 2^lc rows, Aᵀ's
 * rows sorted by length inside windows of sigma rows (longest first, equal lengths in row order,
 * as the encoder sorts, docs/formats/sell.md), so that a slice pads little where A's columns
 * hold different counts. Each row of Aᵀ lists its column's nonzeros in A's row order (the order
 * of the sums); padding repeats the row's last column (0 for an empty row) with no value. */
#ifndef ZS_SELL_TRANSPOSE_H
#define ZS_SELL_TRANSPOSE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct zs_sell_t {
  int64_t rows, n_slices, entries; /* rows: A's columns */
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

typedef struct zs_sell_t_key {
  int64_t len, row;
} zs_sell_t_key;

static inline int zs_sell_t_cmp(const void *u, const void *v) {
  const zs_sell_t_key *a = (const zs_sell_t_key *)u, *b = (const zs_sell_t_key *)v;
  if (a->len != b->len) return a->len > b->len ? -1 : 1; /* longest first */
  return a->row < b->row ? -1 : a->row > b->row;
}

/* Build Aᵀ (slices of 2^lc rows, windows of sigma >= 1 rows). Returns 0 when out of memory (t
 * then holds nothing). A's entries must fit int32 (the caller checks). */
static inline int zs_sell_t_build(zs_sell_t *t, const zs_sell_a *a, int lc, int64_t sigma) {
  memset(t, 0, sizeof *t);
  const int64_t rows = a->cols, c = INT64_C(1) << lc, n_slices = (rows + c - 1) / c;
  const size_t nr = (size_t)rows + 1;
  int64_t nnz = 0;
  for (int64_t p = 0; p < a->rows; p++) nnz += a->len[p];
  int64_t *t_ptr = (int64_t *)calloc(nr, sizeof *t_ptr), *next = (int64_t *)malloc(nr * 8);
  int32_t *pos_of = (int32_t *)malloc((size_t)(a->rows ? a->rows : 1) * 4);
  int32_t *t_col = (int32_t *)malloc((size_t)(nnz ? nnz : 1) * 4);
  int32_t *t_src = (int32_t *)malloc((size_t)(nnz ? nnz : 1) * 4);
  zs_sell_t_key *keys = (zs_sell_t_key *)malloc(nr * sizeof *keys);
  t->slice_ptr = (int64_t *)malloc(((size_t)n_slices + 1) * 8);
  t->perm = (int32_t *)malloc(nr * 4);
  int ok = t_ptr && next && pos_of && t_col && t_src && keys && t->slice_ptr && t->perm;
  /* Aᵀ as CSR, each row in A's row order: count, then fill row by row of A */
  for (int64_t p = 0; ok && p < a->rows; p++) {
    pos_of[a->perm ? a->perm[p] : p] = (int32_t)p;
    for (int64_t k = 0; k < a->len[p]; k++) t_ptr[a->col[zs_sell_a_entry(a, p, k)] + 1]++;
  }
  if (ok) {
    for (int64_t j = 0; j < rows; j++) t_ptr[j + 1] += t_ptr[j];
    memcpy(next, t_ptr, nr * 8);
  }
  for (int64_t i = 0; ok && i < a->rows; i++)
    for (int64_t k = 0, p = pos_of[i]; k < a->len[p]; k++) {
      const int64_t e = zs_sell_a_entry(a, p, k), q = next[a->col[e]]++;
      t_col[q] = (int32_t)i, t_src[q] = (int32_t)e;
    }
  /* positions: each window sorted; slices as wide as their longest row */
  for (int64_t w0 = 0; ok && w0 < rows; w0 += sigma) {
    const int64_t w1 = rows - w0 < sigma ? rows : w0 + sigma;
    for (int64_t r = w0; r < w1; r++) keys[r] = (zs_sell_t_key){t_ptr[r + 1] - t_ptr[r], r};
    qsort(keys + w0, (size_t)(w1 - w0), sizeof *keys, zs_sell_t_cmp);
    for (int64_t r = w0; r < w1; r++) t->perm[r] = (int32_t)keys[r].row;
  }
  if (ok) {
    t->slice_ptr[0] = 0;
    for (int64_t s = 0; s < n_slices; s++) {
      int64_t width = 0;
      for (int64_t p = s * c; p < rows && p < (s + 1) * c; p++)
        width = keys[p].len > width ? keys[p].len : width;
      t->slice_ptr[s + 1] = t->slice_ptr[s] + width * c;
    }
    t->entries = t->slice_ptr[n_slices];
    const size_t ne = (size_t)(t->entries ? t->entries : 1);
    t->col = (int32_t *)malloc(ne * 4), t->at = (int32_t *)malloc(ne * 4);
    ok = t->col && t->at;
  }
  for (int64_t p = 0; ok && p < n_slices * c; p++) {
    const int64_t s = p >> lc, width = (t->slice_ptr[s + 1] - t->slice_ptr[s]) >> lc;
    const int64_t b = p < rows ? t_ptr[t->perm[p]] : 0;
    const int64_t len = p < rows ? t_ptr[t->perm[p] + 1] - b : 0;
    for (int64_t k = 0; k < width; k++) {
      const int64_t e = t->slice_ptr[s] + (k << lc) + (p & (c - 1));
      t->col[e] = k < len ? t_col[b + k] : len ? t_col[b + len - 1] : 0;
      t->at[e] = k < len ? t_src[b + k] : -1;
    }
  }
  free(t_ptr), free(next), free(pos_of), free(t_col), free(t_src), free(keys);
  if (!ok) {
    zs_sell_t_free(t);
    return 0;
  }
  t->rows = rows, t->n_slices = n_slices;
  return 1;
}

#endif /* ZS_SELL_TRANSPOSE_H */
