/* dtans5_layout.h — the typed layout of a CSR-dtANS version 5 blob (template rows,
 * docs/formats/dtans.md "Version 5"): its constants and the one parser that the reference
 * decoder and every backend read it through. Header-only C11, compiles as C++17. */
#ifndef ZS_DTANS5_LAYOUT_H
#define ZS_DTANS5_LAYOUT_H

#include "formats/dtans/dtans_table.h"
#include "formats/format_layout.h"

#define DTANS_VERSION_TEMPLATES 5 /* template rows; versions 2-4 are dtans_layout.h's */
#define DTANS5_LANES 32           /* rows of a slice: a warp, one row a lane */
#define DTANS5_MAX_VALUES 65536   /* packed ids of at most 16 bits */

/* Value modes of version 5 (parameter value_mode): 1 and 2 as in versions 2-4, and packed ids. */
#define DTANS5_VALUES_CONSTANT 1 /* every value is value_symbols[0] */
#define DTANS5_VALUES_RAW 2      /* `values`, one entry per (slice, position, lane) */
#define DTANS5_VALUES_PACKED 4   /* b-bit ids into value_symbols, packed in 32-bit words */

/* The version of a dtans blob (0 when it has none): version 5 has a layout of its own. */
static inline int64_t dtans_view_version(const zsb_encoded_view *v) {
  return zsb_find_param(v, "version", 0);
}

/* Bits of a packed id: ceil(log2(value_real)), value_real in [2, 65536]. */
DTANS_HD static inline int dtans5_id_bits(int64_t value_real) {
  int b = 1;
  while ((INT64_C(1) << b) < value_real) b++;
  return b;
}

/* Field k of a packed row's columns: bits k·bits … k·bits + bits − 1 of its lane's words (w
 * points at the lane's word 0, the next word 32 on), bits 1 … 32. */
DTANS_HD static inline uint32_t dtans5_col_field(const uint32_t *w, int bits, int64_t k) {
  const uint64_t at = (uint64_t)k * (uint64_t)bits, j = at / 32;
  const unsigned m = (unsigned)(at % 32);
  uint64_t f = w[32 * j] >> m;
  if (m + (unsigned)bits > 32) f |= (uint64_t)w[32 * (j + 1)] << (32 - m);
  return (uint32_t)(f & (UINT64_C(0xffffffff) >> (32 - bits)));
}

/* Template id of row i (row_template of `bytes` = 1, 2 or 4 bytes an entry); the width's
 * all-ones value marks a long row and reads as DTANS_LONG. */
DTANS_HD static inline uint32_t dtans5_row_template(const void *t, int bytes, int64_t i) {
  return dtans_row_nnz(t, bytes, i); /* the same encoding as row_nnz */
}

/* Nonzeros of a row whose row_template entry is t (not the long mark): its template's length,
 * or t − templates for a packed row. */
static inline int64_t dtans5_entry_len(const int64_t *template_ptr, int64_t templates, uint32_t t) {
  return (int64_t)t < templates ? template_ptr[t + 1] - template_ptr[t] : (int64_t)t - templates;
}

/* The long rows' plain CSR (every stream version): long_rows, long_ptr (one more), long_cols and
 * long_values (as many as long_cols), `es` bytes a value. */
static inline zs_status dtans_layout_long_rows(const zsi_layout_ctx *c, uint32_t es,
                                               int64_t *n_long, const int32_t **rows,
                                               const int64_t **ptr, const int32_t **cols,
                                               const void **values, uint64_t *nnz) {
  uint64_t n = 0;
  zs_status s;
  if ((s = zsi_layout_array(c, "long_rows", 4, ZSI_LAYOUT_ANY, 1, (const void **)rows, &n)) ||
      (s = zsi_layout_array(c, "long_cols", 4, ZSI_LAYOUT_ANY, 1, (const void **)cols, nnz)) ||
      (s = zsi_layout_array(c, "long_ptr", 8, n + 1, 1, (const void **)ptr, NULL)) ||
      (s = zsi_layout_array(c, "long_values", es, *nnz, 1, values, NULL)))
    return s;
  *n_long = (int64_t)n;
  return ZS_OK;
}

/* A version 5 blob's arrays and parameters, typed; pointers alias the view's arrays, NULL with
 * count 0 when the value mode does not use them. Sizes are checked here, contents by validate. */
typedef struct dtans5_layout {
  int64_t rows, cols, nnz;
  zs_type type;
  uint32_t value_bytes;
  int value_mode;               /* DTANS5_VALUES_* */
  int64_t slices;               /* ceil(rows / 32): slice s holds rows 32 s … 32 s + 31 */
  int64_t templates;            /* entries of the template dictionary */
  int64_t value_real;           /* packed: value_symbols entries; constant: 1; raw: 0 */
  int value_bits, ids_per_word; /* packed: b and floor(32 / b) */
  const void *row_template;     /* rows entries of row_template_bytes (dtans5_row_template) */
  int row_template_bytes;
  const int64_t *template_ptr;     /* templates + 1 */
  const int32_t *template_offsets; /* template_ptr[templates]: column - row, ascending */
  uint64_t n_offsets;
  const int64_t *slice_values; /* raw: slices + 1 offsets into values */
  const void *values;          /* raw */
  uint64_t n_values;
  const int64_t *slice_value_words; /* packed: slices + 1 offsets into value_words */
  const uint32_t *value_words;      /* packed */
  uint64_t n_value_words;
  const void *value_symbols;      /* packed: value_real; constant: 1 */
  int64_t packed_rows;            /* rows of column fields: row_template entries T + n */
  const int64_t *slice_col_words; /* packed rows: slices + 1 offsets into col_words */
  const uint32_t *col_words;
  uint64_t n_col_words;
  const uint8_t *slice_col_bits; /* packed rows: bits of a field, per slice */
  const int32_t *slice_col_base; /* packed rows: first column − row − first field, per slice */
  const int32_t *row_perm;       /* rows, or NULL: encoded row r is the matrix's row row_perm[r] */
  const int32_t *col_perm;       /* cols, or NULL: encoded column c is the matrix's col_perm[c] */
  int64_t n_long;
  const int32_t *long_rows;
  const int64_t *long_ptr;
  const int32_t *long_cols;
  const void *long_values;
  uint64_t long_nnz;
} dtans5_layout;

/* Parse a version 5 view into L: parameters in range, arrays present with their element sizes
 * and counts. ZS_OK or ZS_ERR_CORRUPT with a message starting "dtans: " in why. */
static inline zs_status dtans5_layout_parse(const zsb_encoded_view *v, dtans5_layout *L, char *why,
                                            size_t why_len) {
  ZSI_LAYOUT_OPEN(c, s, v, L, "dtans", why, why_len);
  const uint32_t es = L->value_bytes;
  const int64_t R = ZSI_LAYOUT_REQUIRED;
  int64_t version = 0, lanes = 0, mode = 0;
  const int64_t slices = (v->rows + DTANS5_LANES - 1) / DTANS5_LANES;
  if ((s = zsi_layout_param(&c, "version", DTANS_VERSION_TEMPLATES, DTANS_VERSION_TEMPLATES, R,
                            &version)) ||
      (s = zsi_layout_param(&c, "lanes", DTANS5_LANES, DTANS5_LANES, R, &lanes)) ||
      (s = zsi_layout_param(&c, "slices", slices, slices, R, &L->slices)) ||
      (s = zsi_layout_param(&c, "templates", 0, v->rows, R, &L->templates)) ||
      (s = zsi_layout_param(&c, "value_mode", DTANS5_VALUES_CONSTANT, DTANS5_VALUES_PACKED, R,
                            &mode)))
    return s;
  if (mode == 3 || mode == 0)
    return zsi_layout_fail(
        &c, ZS_ERR_CORRUPT,
        "parameter 'value_mode' = %" PRId64 " (version 5: 1 constant, 2 raw, 4 packed)", mode);
  L->value_mode = (int)mode;
  if (mode == DTANS5_VALUES_PACKED) {
    if ((s = zsi_layout_param(&c, "value_real", 2, DTANS5_MAX_VALUES, R, &L->value_real))) return s;
    L->value_bits = dtans5_id_bits(L->value_real);
    L->ids_per_word = 32 / L->value_bits;
  } else if (mode == DTANS5_VALUES_CONSTANT) {
    L->value_real = 1;
  }
  const uint64_t rows = (uint64_t)v->rows, sl = (uint64_t)L->slices + 1;
  const zsb_array *a = zsb_find_array(v, "row_template");
  if (!a || a->count != rows || (a->elem_size != 1 && a->elem_size != 2 && a->elem_size != 4))
    return zsi_layout_fail(
        &c, ZS_ERR_CORRUPT,
        "array 'row_template' of %" PRIu64 " elements of 1, 2 or 4 bytes is missing", rows);
  L->row_template = a->data, L->row_template_bytes = (int)a->elem_size;
  if ((s = zsi_layout_array(&c, "template_ptr", 8, (uint64_t)L->templates + 1, 1,
                            (const void **)&L->template_ptr, NULL)) ||
      (s = zsi_layout_array(&c, "template_offsets", 4, ZSI_LAYOUT_ANY, 1,
                            (const void **)&L->template_offsets, &L->n_offsets)))
    return s;
  if (mode == DTANS5_VALUES_RAW &&
      ((s = zsi_layout_array(&c, "slice_values", 8, sl, 1, (const void **)&L->slice_values,
                             NULL)) ||
       (s = zsi_layout_array(&c, "values", es, ZSI_LAYOUT_ANY, 1, &L->values, &L->n_values))))
    return s;
  if (mode == DTANS5_VALUES_PACKED &&
      ((s = zsi_layout_array(&c, "slice_value_words", 8, sl, 1,
                             (const void **)&L->slice_value_words, NULL)) ||
       (s = zsi_layout_array(&c, "value_words", 4, ZSI_LAYOUT_ANY, 1,
                             (const void **)&L->value_words, &L->n_value_words))))
    return s;
  if (mode != DTANS5_VALUES_RAW &&
      (s = zsi_layout_array(&c, "value_symbols", es, (uint64_t)L->value_real, 1, &L->value_symbols,
                            NULL)))
    return s;
  if ((s = zsi_layout_param(&c, "packed_rows", 0, v->rows, 0, &L->packed_rows))) return s;
  if (L->packed_rows > 0 &&
      ((s = zsi_layout_array(&c, "slice_col_words", 8, sl, 1, (const void **)&L->slice_col_words,
                             NULL)) ||
       (s = zsi_layout_array(&c, "col_words", 4, ZSI_LAYOUT_ANY, 1, (const void **)&L->col_words,
                             &L->n_col_words)) ||
       (s = zsi_layout_array(&c, "slice_col_bits", 1, sl - 1, 1, (const void **)&L->slice_col_bits,
                             NULL)) ||
       (s = zsi_layout_array(&c, "slice_col_base", 4, sl - 1, 1, (const void **)&L->slice_col_base,
                             NULL))))
    return s;
  /* Rows and columns in another order (optional: blobs without them read as before) */
  if ((s = zsi_layout_array(&c, "row_perm", 4, rows, 0, (const void **)&L->row_perm, NULL)) ||
      (s = zsi_layout_array(&c, "col_perm", 4, (uint64_t)v->cols, 0, (const void **)&L->col_perm,
                            NULL)))
    return s;
  return dtans_layout_long_rows(&c, es, &L->n_long, &L->long_rows, &L->long_ptr, &L->long_cols,
                                &L->long_values, &L->long_nnz);
}

#endif
