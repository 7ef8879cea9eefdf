/* dtans.h — CSR-dtANS: entropy-coded CSR decoded inside the product (docs/formats/dtans.md). */
#ifndef ZS_FORMAT_DTANS_H
#define ZS_FORMAT_DTANS_H

#include <string.h>

#include "core/zs_internal.h"
#include "core/zs_omp.h"
#include "formats/dtans/dtans5_layout.h"
#include "formats/dtans/dtans_layout.h"

ZSI_HIDDEN extern const zsi_format_ops zsi_format_dtans;

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

/* The bits of nonzero k's value (f32 or f64): the key both encoders count values by, so that 0.0
 * and -0.0 are distinct symbols. */
static inline uint64_t dtans_value_key(const zs_matrix *A, int64_t k) {
  if (A->type == ZS_F32) {
    uint32_t b;
    memcpy(&b, (const float *)A->values + k, 4);
    return b;
  }
  uint64_t b;
  memcpy(&b, (const double *)A->values + k, 8);
  return b;
}

/* dst's row r gets src's row rows[r] (rows NULL: row r), its columns renumbered map[c] (a
 * permutation of the columns; NULL: kept) and sorted again, the values moved with them. dst has
 * src's sizes and its own row_ptr, set by the caller; it may be src when rows is NULL. Rows are
 * copied in parallel, each sorted on its own: the encoder orders rows and columns with it
 * (row_order, col_order), the decoder of version 4 maps its columns back with col_perm. */
ZSI_HIDDEN zs_status dtans_copy_rows(zs_matrix *dst, const zs_matrix *src, const int32_t *rows,
                                     const int32_t *map);

/* *P = a new matrix of A's sizes whose row r is A's row rows[r] (NULL: row r), columns renumbered
 * through map (NULL: kept) and sorted again (dtans_copy_rows); *P stays NULL on failure. The
 * encoder orders a matrix with it, version 5's decoder puts one back in the matrix's order. */
ZSI_HIDDEN zs_status dtans_ordered_copy(const zs_matrix *A, const int32_t *rows, const int32_t *map,
                                        zs_matrix **P);

/* E's layout (dtans_layout.h), its offsets, tables, row lengths and permutations checked (not
 * the streams); a failure is recorded for zs_last_error. */
ZSI_HIDDEN zs_status dtans_layout_of(const zs_encoded *E, dtans_layout *L);

/* Offsets `name` (n + 1 of them) into the array `of` of `total` elements: start at 0, never
 * decrease, end at total; else ZS_ERR_CORRUPT naming both. */
ZSI_HIDDEN zs_status dtans_check_offsets(const char *name, const int64_t *o, int64_t n,
                                         const char *of, uint64_t total);

/* perm (n entries) holds each of 0 … n − 1 once; else ZS_ERR_CORRUPT naming the array `name`. */
ZSI_HIDDEN zs_status dtans_check_permutation(const int32_t *perm, int64_t n, const char *name);

/* Decode slice s of v into the CSR arrays col/val at the offsets row_ptr gives its rows (raw
 * values of the slice start at raw_start: the coded nonzeros of the slices before it). Checks
 * everything a corrupted stream could break (column range and order, stream and escape bounds,
 * filler ids, words left over) and fails with ZS_ERR_CORRUPT naming the slice and row. This is
 * the normative decoder: kernels must give the same nonzeros in the same order. */
ZSI_HIDDEN zs_status dtans_decode_slice(const dtans_layout *v, const dtans_slot *dtab,
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

/* Version 5, template and packed rows (dtans5_encode.c, dtans5_decode.c). The encoder: A's rows
 * (but those of more than long_min nonzeros, stored apart; 0: none) as templates when at most
 * max_templates distinct ones hold them; values in `mode` (DTANS5_VALUES_*, or -1: the smallest).
 * row_kind DTANS5_ROWS_TEMPLATES: *out is NULL when the rows need more templates;
 * DTANS5_ROWS_PACKED: every row a packed row; DTANS5_ROWS_AUTO: as TEMPLATES where the rows fit,
 * else the templates of two rows or more kept and the other rows packed.
 * ZS_ERR_INVALID_ARGUMENT for a value mode the values cannot take. */
enum { DTANS5_ROWS_AUTO = -1, DTANS5_ROWS_TEMPLATES = 0, DTANS5_ROWS_PACKED = 1 };
ZSI_HIDDEN zs_status dtans5_encode(const zs_matrix *A, int64_t long_min, int mode,
                                   int64_t max_templates, int row_kind, zs_encoded **out);
/* E's version 5 layout with every content check (templates, row ids, columns, long rows, slice
 * offsets, packed ids and padding); a failure is recorded for zs_last_error. */
ZSI_HIDDEN zs_status dtans5_layout_of(const zs_encoded *E, dtans5_layout *L);
/* Validate (out NULL) or decode a version 5 blob. */
ZSI_HIDDEN zs_status dtans5_decode_all(const zs_encoded *E, zs_matrix **out);

#endif
