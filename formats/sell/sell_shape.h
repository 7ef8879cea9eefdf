/* sell_shape.h — how SELL-C-sigma lays rows out from their lengths alone (docs/formats/sell.md):
 * the order inside each window, each slice's width, the column a padding entry holds. The encoder
 * (sell.c) and the GPU modules' Aᵀ (backends/cuda_hip/sell_transpose.h) both go through it, so
 * Aᵀ is shaped as the encoder would shape it. Header-only C11 that also compiles as C++17 (the
 * GPU modules link nothing from the library). */
#ifndef ZS_SELL_SHAPE_H
#define ZS_SELL_SHAPE_H

#include <stdint.h>

#include "core/row_sort.h"

/* order[p] = the row stored at position p, for rows with CSR offsets ptr (rows + 1; a row's
 * length ptr[i + 1] - ptr[i] < 2^32): inside each window of sigma rows, the longest rows first,
 * equal lengths in row order. key and tmp hold min(sigma, rows) keys each. */
static inline void sell_sort_windows(const int64_t *ptr, int64_t rows, int64_t sigma,
                                     int32_t *order, uint64_t *key, uint64_t *tmp) {
  for (int64_t w0 = 0; w0 < rows; w0 += sigma) {
    const int64_t w1 = rows - w0 < sigma ? rows : w0 + sigma;
    /* ascending keys: longer rows first (the length complemented), then by place in the window */
    for (int64_t i = w0; i < w1; i++) {
      const uint64_t len = (uint64_t)(ptr[i + 1] - ptr[i]);
      key[i - w0] = (UINT64_C(0xffffffff) - len) << 32 | (uint64_t)(i - w0);
    }
    zsi_sort_row_keys(key, w1 - w0, tmp);
    for (int64_t i = w0; i < w1; i++)
      order[i] = (int32_t)(w0 + (int64_t)(key[i - w0] & 0xffffffffu));
  }
}

/* The width of slice s (positions [s c, (s + 1) c) of rows): its longest row. order: the row at
 * each position (NULL: natural order); lengths from the CSR offsets ptr. */
static inline int64_t sell_slice_width(const int64_t *ptr, const int32_t *order, int64_t rows,
                                       int64_t c, int64_t s) {
  int64_t w = 0;
  for (int64_t p = s * c; p < (s + 1) * c && p < rows; p++) {
    const int64_t i = order ? (int64_t)order[p] : p, len = ptr[i + 1] - ptr[i];
    w = len > w ? len : w;
  }
  return w;
}

/* The slices' offsets into the stored entries: slice_ptr[0] = 0, slice_ptr[s + 1] = slice_ptr[s]
 * + c x the width of slice s (n_slices + 1 values), and *max_width the widest slice. Returns -1,
 * or the first slice that would take the entries past max_entries (slice_ptr then holds the
 * offsets up to it). */
static inline int64_t sell_slice_offsets(const int64_t *ptr, const int32_t *order, int64_t rows,
                                         int64_t c, int64_t max_entries, int64_t *slice_ptr,
                                         int64_t *max_width) {
  const int64_t n_slices = (rows + c - 1) / c;
  *max_width = 0;
  slice_ptr[0] = 0;
  for (int64_t s = 0; s < n_slices; s++) {
    const int64_t w = sell_slice_width(ptr, order, rows, c, s);
    if (w > (max_entries - slice_ptr[s]) / c) return s;
    *max_width = w > *max_width ? w : *max_width;
    slice_ptr[s + 1] = slice_ptr[s] + c * w;
  }
  return -1;
}

/* The column a padding entry of a row holds: the row's last column, so a kernel reads a line of x
 * it has just read; column 0 for an empty row. Its value is +0. */
static inline int32_t sell_pad_column(const int32_t *cols_of_row, int64_t len) {
  return len ? cols_of_row[len - 1] : 0;
}

#endif
