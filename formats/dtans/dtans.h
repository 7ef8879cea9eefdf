/* dtans.h — CSR-dtANS: entropy-coded CSR decoded inside the product (docs/formats/dtans.md). */
#ifndef ZS_FORMAT_DTANS_H
#define ZS_FORMAT_DTANS_H

#include <string.h>

#include "core/zs_internal.h"
#include "formats/dtans/dtans_table.h"

/* OpenMP in the encoder and decoder: DT_OMP(pragma) and the thread count to use. */
#if defined(_OPENMP)
#include <omp.h>
#define DT_OMP(x) _Pragma(#x)
static inline int dt_threads(void) { return zsi_threads_from_env(omp_get_max_threads()); }
#else
#define DT_OMP(x)
static inline int dt_threads(void) { return 1; }
#endif

ZSI_HIDDEN extern const zsi_format_ops zsi_format_dtans;

/* Fixed by stream version 2; the blob records them and validate refuses anything else.
 * (Version 1 stored raw values in decoding order throughout; see dtans_raw_step.) */
#define DTANS_VERSION 2
#define DTANS_VERSION_ROW_ORDER 3   /* version 2 plus `row_perm`: rows encoded in another order */
#define DTANS_VERSION_COL_ORDER 4   /* `col_perm`: columns renumbered; `row_perm` optional */
#define DTANS_M 256                 /* largest multiplicity: a digit fits in 8 bits */
#define DTANS_LANES 32              /* lanes of a slice, decoded in lockstep by one warp */
#define DTANS_MAX_ROWS_PER_LANE 128 /* bounds a lane's walk over empty rows */
#define DTANS_SPREAD 2563           /* odd, so slot = (rank * SPREAD) mod K is a permutation */
#define DTANS_SYMBOLS 4096          /* at most K distinct ids per domain */

/* How the value domain is stored. Joint: one table of (delta, value) pairs, 8 nonzeros per
 * segment, the pair's value an index into value_symbols (pair_values). */
enum {
  DTANS_VALUES_CODED = 0,
  DTANS_VALUES_CONSTANT = 1,
  DTANS_VALUES_RAW = 2,
  DTANS_VALUES_JOINT = 3
};

/* One decoding-table entry: the symbol id and the (digit, base) pair it gives back. Ids below
 * `real` index the domain's dictionary; every other id is the escape (its value is read raw
 * from the slice's escape stream). */
typedef struct dtans_slot {
  uint16_t id;
  uint8_t digit;
  uint8_t base_m1; /* base - 1, base in [1, 256] */
} dtans_slot;

/* Fill table[K] from the multiplicities of `entries` ids (each in [1, M], summing to K). */
ZSI_HIDDEN void dtans_build_table(const uint16_t *counts, int entries, dtans_slot *table);

/* Segments of a lane holding n nonzeros: 4 per segment when values are coded, else 8. */
static inline int64_t dtans_segments(int64_t n, int coded_values) {
  return coded_values ? (n + 3) / 4 : (n + 7) / 8;
}

/* One f32 or f64 value (es = 4 or 8): a memcpy of es bytes would be a library call per nonzero
 * in the encoder's copies and slice writes. */
static inline void dtans_copy_value(void *to, const void *from, size_t es) {
  if (es == 8)
    memcpy(to, from, 8);
  else
    memcpy(to, from, 4);
}

/* The arrays and parameters of a validated blob, gathered for decoders. */
typedef struct dtans_view {
  int64_t rows, cols, nnz, slices;
  const int64_t *slice_rows; /* slice s: rows [slice_rows[s], slice_rows[s+1]); lane l decodes
                              * rows slice_rows[s] + l, + 32, … below the end, as one stream */
  zs_type type;
  int value_mode;
  int delta_real, value_real;
  int delta_escape, value_escape; /* 1: id `real` of the domain is the escape */
  const void *row_nnz;            /* dtans_row_nnz(row_nnz, row_nnz_bytes, i) */
  int row_nnz_bytes;
  const int32_t *row_perm; /* version 3: encoded row r is the matrix's row row_perm[r]; else NULL */
  const int32_t *col_perm; /* version 4: encoded column c is the matrix's column col_perm[c] */
  const int64_t *slice_words, *slice_delta_esc, *slice_value_esc;
  const uint32_t *stream;
  const uint16_t *delta_counts, *value_counts;
  int delta_entries, value_entries;
  const int32_t *delta_symbols, *delta_escapes;
  const uint16_t *pair_values; /* joint: value id of each delta-table id below delta_real */
  const void *value_symbols, *value_escapes, *values; /* of type */
  const int32_t *columns; /* raw columns (DTANS_COLUMNS_RAW), else NULL */
  int64_t n_long;         /* long rows */
  const int32_t *long_rows, *long_cols;
  const int64_t *long_ptr;
  const void *long_values;
} dtans_view;

/* dst's row r gets src's row rows[r] (rows NULL: row r), its columns renumbered map[c] (a
 * permutation of the columns; NULL: kept) and sorted again, the values moved with them. dst has
 * src's sizes and its own row_ptr, set by the caller; it may be src when rows is NULL. Rows are
 * copied in parallel, each sorted on its own: the encoder orders rows and columns with it
 * (row_order, col_order), the decoder of version 4 maps its columns back with col_perm. */
ZSI_HIDDEN zs_status dtans_copy_rows(zs_matrix *dst, const zs_matrix *src, const int32_t *rows,
                                     const int32_t *map);

/* Gather E's arrays into v, checking names, sizes and parameters (not the streams). */
ZSI_HIDDEN zs_status dtans_view_of(const zs_encoded *E, dtans_view *v);

/* Decode slice s of v into the CSR arrays col/val at the offsets row_ptr gives its rows (raw
 * values of the slice start at raw_start: the coded nonzeros of the slices before it). Checks
 * everything a corrupted stream could break (column range and order, stream and escape bounds,
 * filler ids, words left over) and fails with ZS_ERR_CORRUPT naming the slice and row. This is
 * the normative decoder: kernels must give the same nonzeros in the same order. */
ZSI_HIDDEN zs_status dtans_decode_slice(const dtans_view *v, const dtans_slot *dtab,
                                        const dtans_slot *vtab, int64_t s, const int64_t *row_ptr,
                                        int64_t raw_start, int32_t *col, void *val);

/* Encoder (dtans_encode.c). */
ZSI_HIDDEN zs_status dtans_encode(const zs_matrix *A, const char *options, zs_encoded **out);

/* Multiplicities for one domain (dtans_table.c): freq[0..distinct) sorted descending, `total`
 * their sum plus `unseen` (occurrences of symbols the histogram could not keep), raw_bits the
 * cost of an escaped occurrence, dict_bytes of a dictionary entry. Chooses how many symbols to
 * code (the rest escaped) and their multiplicities, minimising the predicted bits. */
typedef struct dtans_choice {
  int coded;      /* ids 0..coded-1 are the most frequent symbols */
  int escape;     /* 1: id `coded` is the escape */
  int entries;    /* coded + escape + fillers */
  double bits;    /* predicted: stream + escapes + dictionary */
  double ce_bits; /* of that, the table's cross-entropy part (slots only) */
  uint16_t counts[DTANS_SYMBOLS];
} dtans_choice;
ZSI_HIDDEN void dtans_choose(const uint64_t *freq, int64_t distinct, uint64_t unseen,
                             double raw_bits, double dict_bytes, dtans_choice *c);

#endif
