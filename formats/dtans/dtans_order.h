/* dtans_order.h — how CSR-dtANS orders rows and columns by default: one rule that the encoder
 * applies (dtans_encode.c) and the format chooser prices (core/auto/auto_stats.c), so the two
 * cannot drift apart. */
#ifndef ZS_FORMAT_DTANS_ORDER_H
#define ZS_FORMAT_DTANS_ORDER_H

#include "core/zs_internal.h"

/* The automatic orders consider a matrix of this many rows (row order) or columns (column
 * order) or more; a smaller one keeps its order. */
#define ZSI_DTANS_ORDER_MIN (INT64_C(1) << 16)

#define ZSI_DTANS_LANE_SYMBOLS 1024 /* lane_symbols' default: symbols a lane decodes a slice */

/* The default long-row threshold (long_rows): rows of more nonzeros than the larger of
 * lane_symbols and 16 times the average row are stored apart as plain CSR. */
ZSI_HIDDEN int64_t zsi_dtans_long_min(int64_t rows, int64_t nnz, int64_t lane_symbols);

/* Rows by length, longest first, ties in row order (a stable counting sort): perm[r] is the
 * matrix's row of ordered row r. Rows longer than `cap` count as cap + 1 (they are stored apart
 * anyway), so they come first. NULL when out of memory; the caller frees it. */
ZSI_HIDDEN int32_t *zsi_dtans_rows_by_length(const zs_matrix *A, int64_t cap);

/* Version 5's slices of 32 rows, each as wide as its longest row that is not long (over
 * long_min; long_min <= 0: none is), for a matrix's rows in their order and in the order of
 * zsi_dtans_rows_by_length with cap = min(long_min, longest row). */
typedef struct zsi_dtans5_slices {
  double natural;         /* lane steps (32 times a slice's width, summed), rows in their order */
  double by_length;       /* the same, rows by length */
  double by_length_words; /* 32-bit words of the by-length slices' column fields, each
                             `field_bits` wide, a lane's in whole words */
  int64_t long_rows;      /* rows over long_min */
  int64_t long_nnz;       /* their nonzeros */
  int64_t longest;        /* the longest row that is not long */
  /* The rule of row_kind=packed with row_order=auto: rows by length on a matrix of
   * ZSI_DTANS_ORDER_MIN rows or more where that cuts the lane steps below 1/1.5 of the natural
   * order's (a slice waits for its longest row: R-MAT's lengths follow the row index's low bits) */
  int rows_by_length;
} zsi_dtans5_slices;

/* Measures A's slices in both orders in two passes over row_ptr (O(rows), a histogram of the
 * lengths up to the longest row that is not long). field_bits: only for by_length_words (0:
 * not wanted). ZS_OK, or ZS_ERR_OUT_OF_MEMORY. */
ZSI_HIDDEN zs_status zsi_dtans5_slices_measure(const zs_matrix *A, int64_t long_min,
                                               double field_bits, zsi_dtans5_slices *out);

/* The rule of col_order=auto: columns by count on a matrix of ZSI_DTANS_ORDER_MIN columns or
 * more whose 1 % fullest columns (ceil(cols / 100) of them) hold a quarter of the nonzeros or
 * more. R-MAT (0.57) gains on the GPU, Erdős–Rényi (0.017) loses; stencils and banded matrices
 * hold about 0.01-0.02 (docs/performance.md, "CSR-dtANS"). top1_share: that share, exact or
 * estimated. */
ZSI_HIDDEN int zsi_dtans_columns_by_count(int64_t cols, double top1_share);

#endif
