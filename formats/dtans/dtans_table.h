/* dtans_table.h — the CSR-dtANS slot table and slot unpacking: plain inline C shared by the
 * library (encoder, decoders) and the GPU modules, which link nothing from the library. */
#ifndef ZS_DTANS_TABLE_H
#define ZS_DTANS_TABLE_H

#include <stdint.h>

/* Callable from GPU kernels too. */
#if defined(__CUDACC__) || defined(__HIPCC__)
#define DTANS_HD __host__ __device__
#else
#define DTANS_HD
#endif

#define DTANS_TABLE_LOG 12 /* K = 4096 slots: 8 slots of 12 bits fill 3 words of 32 */
#define DTANS_K (1 << DTANS_TABLE_LOG)
#define DTANS_SPREAD 2563 /* odd, so slot = (rank * SPREAD) mod K is a permutation */

/* row_nnz of a long row: its nonzeros are stored apart as plain CSR (long_rows, long_ptr,
 * long_cols, long_values), so one hub row cannot hold up its warp; in the stream it has none. */
#define DTANS_LONG UINT32_MAX
DTANS_HD static inline uint32_t dtans_coded_len(uint32_t row_nnz) {
  return row_nnz == DTANS_LONG ? 0 : row_nnz;
}

/* Entry i of row_nnz, whose elements take `bytes` = 1, 2 or 4 bytes (the array's element size:
 * the encoder takes the smallest whose all-ones value is above every row in the stream; short
 * rows then cost a byte, not four). The all-ones value of the width marks a long row and reads
 * as DTANS_LONG. */
DTANS_HD static inline uint32_t dtans_row_nnz(const void *row_nnz, int bytes, int64_t i) {
  if (bytes == 1) {
    const uint8_t n = ((const uint8_t *)row_nnz)[i];
    return n == UINT8_MAX ? DTANS_LONG : n;
  }
  if (bytes == 2) {
    const uint16_t n = ((const uint16_t *)row_nnz)[i];
    return n == UINT16_MAX ? DTANS_LONG : n;
  }
  return ((const uint32_t *)row_nnz)[i];
}

/* row_nnz widened to 4 bytes a row (out[0 .. rows)), for kernels that read it per row. */
static inline void dtans_row_nnz_widen(const void *row_nnz, int bytes, int64_t rows,
                                       uint32_t *out) {
  for (int64_t i = 0; i < rows; i++) out[i] = dtans_row_nnz(row_nnz, bytes, i);
}

/* How columns are stored (parameter column_mode; absent: deltas). Raw: value_mode is joint, every
 * pair's delta is 0, and `columns` holds each coded nonzero's column in the raw values' layout
 * (dtans_raw_step); delta_escapes is empty and slice_delta_escapes counts the escaped pairs. */
typedef enum dtans_column_mode {
  DTANS_COLUMNS_DELTAS = 0,
  DTANS_COLUMNS_RAW = 1
} dtans_column_mode;

/* Slot of the digit-th copy of the symbol whose copies start at rank `start`. */
DTANS_HD static inline uint32_t dtans_slot_of(uint32_t start, uint32_t digit) {
  return ((start + digit) * (uint32_t)DTANS_SPREAD) & (DTANS_K - 1);
}

/* Table entry of every slot as id << 16 | (base - 1) << 8 | digit, from the multiplicities of
 * `entries` ids (each in [1, 256], summing to K: validated before). */
static inline void dtans_table_words(const uint16_t *counts, int entries, uint32_t *table) {
  uint32_t start = 0;
  for (int id = 0; id < entries; id++) {
    for (uint32_t digit = 0; digit < counts[id]; digit++)
      table[dtans_slot_of(start, digit)] =
          (uint32_t)id << 16 | (uint32_t)(counts[id] - 1) << 8 | digit;
    start += counts[id];
  }
}

/* Coded nonzeros before each of the `slices` slices (out[0 .. slices]): where a slice's raw
 * values start, since long rows have none in the stream. */
DTANS_HD static inline void dtans_coded_before_slices(const void *row_nnz, int bytes,
                                                      const int64_t *slice_rows, int64_t slices,
                                                      int64_t *out) {
  out[0] = 0;
  for (int64_t s = 0; s < slices; s++) {
    out[s + 1] = out[s];
    for (int64_t i = slice_rows[s]; i < slice_rows[s + 1]; i++)
      out[s + 1] += dtans_coded_len(dtans_row_nnz(row_nnz, bytes, i));
  }
}

/* The matrix's row offsets (row_ptr[0 .. rows]) from the encoded rows' lengths: row_nnz, or for
 * the k-th long row long_ptr[k + 1] - long_ptr[k]; encoded row i is the matrix's row
 * row_perm[i] (version 3), or i itself when row_perm is NULL. */
static inline void dtans_matrix_row_ptr(const void *row_nnz, int bytes, const int64_t *long_ptr,
                                        const int32_t *row_perm, int64_t rows, int64_t *row_ptr) {
  row_ptr[0] = 0;
  for (int64_t i = 0, k = 0; i < rows; i++) {
    const uint32_t len = dtans_row_nnz(row_nnz, bytes, i);
    int64_t n = len;
    if (len == DTANS_LONG) n = long_ptr[k + 1] - long_ptr[k], k++;
    row_ptr[(row_perm ? row_perm[i] : i) + 1] = n;
  }
  for (int64_t i = 0; i < rows; i++) row_ptr[i + 1] += row_ptr[i];
}

/* Raw values of one segment step t of a slice (value mode raw, 8 nonzeros per segment), given
 * the coded nonzeros n[l] of its 32 lanes. A *full* step (every lane with a segment in it has 8
 * nonzeros there) stores its values position-major: value i of the step's r-th lane (lanes with
 * a segment, in lane order) at i·lanes + r from the step's first value, so that each load of a
 * GPU warp reads consecutive values. Any other step stores them in decoding order: lane after
 * lane, value after value. Returns whether step t is full; *lanes = its lanes. */
static inline int dtans_raw_step(const int64_t *n, int64_t t, int *lanes) {
  int full = 1, count = 0;
  for (int l = 0; l < 32; l++)
    if (n[l] > 8 * t) count++, full &= n[l] >= 8 * (t + 1);
  *lanes = count;
  return full;
}

/* Slot k (0..7) of the 96-bit number w0 + w1·2^32 + w2·2^64. */
DTANS_HD static inline uint32_t dtans_unpack(uint32_t w0, uint32_t w1, uint32_t w2, int k) {
  const uint64_t lo = (uint64_t)w0 | ((uint64_t)w1 << 32);
  if (k < 5) return (uint32_t)(lo >> (12 * k)) & (DTANS_K - 1);
  if (k == 5) return (uint32_t)((lo >> 60) | ((uint64_t)w2 << 4)) & (DTANS_K - 1);
  return (w2 >> (12 * k - 64)) & (DTANS_K - 1);
}

#endif
