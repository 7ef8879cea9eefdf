/* dtans_order.c — CSR-dtANS's default orders of rows and columns, and what they give version 5's
 * slices: the one rule of the encoder and the format chooser (dtans_order.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "formats/dtans/dtans5_layout.h"
#include "formats/dtans/dtans_order.h"

int64_t zsi_dtans_long_min(int64_t rows, int64_t nnz, int64_t lane_symbols) {
  const double avg = rows ? (double)nnz / (double)rows : 0;
  return (int64_t)(16 * avg > (double)lane_symbols ? 16 * avg : (double)lane_symbols);
}

int32_t *zsi_dtans_rows_by_length(const zs_matrix *A, int64_t cap) {
  int32_t *perm = malloc((size_t)(A->rows ? A->rows : 1) * sizeof *perm);
  int64_t *next = calloc((size_t)cap + 3, sizeof *next);
  if (!perm || !next) {
    free(perm), free(next);
    return NULL;
  }
  for (int64_t i = 0; i < A->rows; i++) {
    const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i];
    next[cap + 1 - (n > cap ? cap + 1 : n) + 1]++; /* bucket 0: the longest */
  }
  for (int64_t b = 0; b <= cap + 1; b++) next[b + 1] += next[b];
  for (int64_t i = 0; i < A->rows; i++) {
    const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i];
    perm[next[cap + 1 - (n > cap ? cap + 1 : n)]++] = (int32_t)i;
  }
  free(next);
  return perm;
}

zs_status zsi_dtans5_slices_measure(const zs_matrix *A, int64_t long_min, double field_bits,
                                    zsi_dtans5_slices *out) {
  *out = (zsi_dtans5_slices){0};
  int64_t longest = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i];
    if (long_min > 0 && n > long_min)
      out->long_rows++, out->long_nnz += n;
    else if (n > longest)
      longest = n;
  }
  out->longest = longest;
  /* Rows in their order: each slice as wide as its longest row that is not long. */
  int64_t *hist = calloc((size_t)longest + 1, sizeof *hist);
  if (!hist)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: a histogram of %" PRId64 " row lengths",
                     longest + 1);
  for (int64_t a = 0; a < A->rows; a += DTANS5_LANES) {
    int64_t width = 0;
    for (int64_t i = a; i < a + DTANS5_LANES && i < A->rows; i++) {
      const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i];
      if (long_min > 0 && n > long_min) continue;
      hist[n]++;
      if (n > width) width = n;
    }
    out->natural += DTANS5_LANES * (double)width;
  }
  /* Rows by length (zsi_dtans_rows_by_length): the long rows first, with no width of their own,
   * then the others longest first, so that a slice is as wide as its first row that is not long. */
  int64_t pos = out->long_rows % DTANS5_LANES; /* the next row's place in its slice */
  int open = pos != 0;                         /* the slice at pos holds long rows only so far */
  for (int64_t len = longest; len >= 1; len--)
    for (int64_t c = hist[len]; c > 0;) {
      if (pos == 0 || open) {
        out->by_length += DTANS5_LANES * (double)len;
        out->by_length_words += DTANS5_LANES * ceil((double)len * field_bits / 32.0);
      }
      open = 0;
      const int64_t take = c < DTANS5_LANES - pos ? c : DTANS5_LANES - pos;
      pos = (pos + take) % DTANS5_LANES, c -= take;
    }
  free(hist);
  out->rows_by_length =
      A->rows >= ZSI_DTANS_ORDER_MIN && A->nnz > 0 && out->natural > 1.5 * out->by_length;
  return ZS_OK;
}

int zsi_dtans_columns_by_count(int64_t cols, double top1_share) {
  return cols >= ZSI_DTANS_ORDER_MIN && top1_share >= 0.25;
}
