/* dtans_layout.h — the typed layout of a CSR-dtANS blob (docs/formats/dtans.md): its constants,
 * modes and defaults, and the one parser from a zsb_encoded_view that the reference decoder and
 * every backend read the blob through. Header-only C11, compiles as C++17. */
#ifndef ZS_DTANS_LAYOUT_H
#define ZS_DTANS_LAYOUT_H

#include "formats/dtans/dtans5_layout.h"
#include "formats/dtans/dtans_table.h"
#include "formats/format_layout.h"

/* Stream versions. Version 1 stored raw values in decoding order throughout and is refused. */
typedef enum dtans_version {
  DTANS_VERSION = 2,           /* rows and columns as in the matrix */
  DTANS_VERSION_ROW_ORDER = 3, /* plus `row_perm`: rows encoded in another order */
  DTANS_VERSION_COL_ORDER = 4, /* `col_perm`: columns renumbered; `row_perm` optional */
  /* 5, DTANS_VERSION_TEMPLATES: template rows, a layout of its own (dtans5_layout.h) */
} dtans_version;

/* Fixed by the stream versions above; the blob records them and anything else is refused. */
#define DTANS_M 256                 /* largest multiplicity: a digit fits in 8 bits */
#define DTANS_LANES 32              /* lanes of a slice, decoded in lockstep by one warp */
#define DTANS_MAX_ROWS_PER_LANE 128 /* bounds a lane's walk over empty rows */
#define DTANS_SYMBOLS 4096          /* at most K distinct ids per domain */

/* How the value domain is stored (parameter value_mode). Joint: one table of (delta, value)
 * pairs, 8 nonzeros per segment, the pair's value an index into value_symbols (pair_values). */
typedef enum dtans_value_mode {
  DTANS_VALUES_CODED = 0,    /* a second slot table; 4 nonzeros per segment */
  DTANS_VALUES_CONSTANT = 1, /* every value is value_symbols[0]; 0 bits a value */
  DTANS_VALUES_RAW = 2,      /* a plain array `values` beside the decoded columns */
  DTANS_VALUES_JOINT = 3,
} dtans_value_mode;
#define DTANS_VALUES_DEFAULT DTANS_VALUES_RAW /* what the encoder picks when nothing is smaller */

/* Columns: dtans_column_mode (dtans_table.h, which the GPU kernels read too). */

/* A blob's arrays and parameters, typed. Pointers alias the view's arrays; an array the blob's
 * modes do not use is NULL with count 0. Sizes are checked here; contents (offsets, tables,
 * permutations, row lengths) by the format's validate, so kernels may trust a loaded blob. */
typedef struct dtans_layout {
  int64_t rows, cols, nnz;
  zs_type type;
  uint32_t value_bytes; /* 4 (f32) or 8 (f64) */
  dtans_version version;
  dtans_value_mode value_mode;
  dtans_column_mode column_mode;
  int64_t slices;
  int delta_real, value_real;     /* dictionary entries of each domain (ids below are symbols) */
  int delta_escape, value_escape; /* 1: id `real` of the domain is the escape */
  int64_t guided;                 /* > 0: the encoder shrank slices (raw values); 0: it did not */
  /* rows */
  const int64_t *slice_rows; /* slices + 1: slice s holds rows [slice_rows[s], slice_rows[s+1]);
                              * lane l decodes rows slice_rows[s] + l, + 32, … as one stream */
  const void *row_nnz;       /* rows entries of row_nnz_bytes: read with dtans_row_nnz */
  int row_nnz_bytes;         /* 1, 2 or 4 */
  const int32_t *row_perm;   /* rows, or NULL: encoded row r is the matrix's row row_perm[r] */
  const int32_t *col_perm;   /* cols, or NULL: encoded column c is the matrix's col_perm[c] */
  /* the stream and its per-slice offsets (slices + 1 each) */
  const uint32_t *stream;
  uint64_t stream_words;
  const int64_t *slice_words, *slice_delta_esc;
  const int64_t *slice_value_esc; /* coded values only */
  /* the delta domain */
  const uint16_t *delta_counts; /* delta_entries multiplicities, summing to DTANS_K */
  int delta_entries;
  const int32_t *delta_symbols; /* delta_real */
  const int32_t *delta_escapes; /* n_delta_escapes (none with raw columns) */
  uint64_t n_delta_escapes;
  const uint16_t *pair_values; /* joint: delta_real value ids */
  /* the value domain, of `type` */
  const uint16_t *value_counts; /* coded: value_entries multiplicities */
  int value_entries;
  const void *value_symbols; /* coded and joint: value_real; constant: 1 */
  const void *value_escapes; /* coded and joint: n_value_escapes */
  uint64_t n_value_escapes;
  const void *values; /* raw: one per coded nonzero */
  uint64_t n_values;
  const int32_t *columns; /* raw columns: one per coded nonzero */
  uint64_t n_columns;
  /* long rows, stored apart as plain CSR */
  int64_t n_long;
  const int32_t *long_rows; /* n_long, ascending, marked DTANS_LONG in row_nnz */
  const int64_t *long_ptr;  /* n_long + 1 */
  const int32_t *long_cols; /* long_nnz */
  const void *long_values;  /* long_nnz */
  uint64_t long_nnz;
  /* version 5 (DTANS_VERSION_TEMPLATES): everything is here, every field above but the sizes,
   * type and version zero */
  dtans5_layout v5;
} dtans_layout;

/* Escaped pairs' entries that slice_delta_escapes counts: delta escapes, or with raw columns the
 * value escapes (no deltas are stored then). */
static inline uint64_t dtans_layout_pair_escapes(const dtans_layout *L) {
  return L->column_mode == DTANS_COLUMNS_RAW ? L->n_value_escapes : L->n_delta_escapes;
}

/* Parse `v` into L: every parameter present and in range, every array the modes need present with
 * its element size and count (version 5: into L->v5, dtans5_layout_parse). Returns ZS_OK, ZS_ERR_UNSUPPORTED (stream version 1) or
 * ZS_ERR_CORRUPT, with a message starting "dtans: " in why (why_len bytes; may be NULL). */
static inline zs_status dtans_layout_parse(const zsb_encoded_view *v, dtans_layout *L, char *why,
                                           size_t why_len) {
  ZSI_LAYOUT_OPEN(c, s, v, L, "dtans", why, why_len);
  const uint32_t es = L->value_bytes;
  if (dtans_view_version(v) == DTANS_VERSION_TEMPLATES) {
    L->version = (dtans_version)DTANS_VERSION_TEMPLATES;
    return dtans5_layout_parse(v, &L->v5, why, why_len);
  }
  if (zsb_find_param(v, "version", 0) == 1)
    return zsi_layout_fail(&c, ZS_ERR_UNSUPPORTED,
                           "stream version 1 is no longer read (its raw values are in another "
                           "order); encode the matrix again");
  int64_t version = 0, tlog = 0, mult = 0, lanes = 0, first = 0, mode = 0, cmode, dr = 0, de = 0;
  int64_t vr = 0, ve = 0;
  const int64_t R = ZSI_LAYOUT_REQUIRED;
  if ((s = zsi_layout_param(&c, "version", DTANS_VERSION, DTANS_VERSION_COL_ORDER, R, &version)) ||
      (s = zsi_layout_param(&c, "table_log", DTANS_TABLE_LOG, DTANS_TABLE_LOG, R, &tlog)) ||
      (s = zsi_layout_param(&c, "max_multiplicity", DTANS_M, DTANS_M, R, &mult)) ||
      (s = zsi_layout_param(&c, "lanes", DTANS_LANES, DTANS_LANES, R, &lanes)) ||
      (s = zsi_layout_param(&c, "slices", v->rows ? 1 : 0, v->rows, R, &L->slices)) ||
      (s = zsi_layout_param(&c, "first_column", 1, 1, R, &first)) ||
      (s = zsi_layout_param(&c, "value_mode", DTANS_VALUES_CODED, DTANS_VALUES_JOINT, R, &mode)) ||
      (s = zsi_layout_param(&c, "delta_real", 0, DTANS_SYMBOLS, R, &dr)) ||
      (s = zsi_layout_param(&c, "delta_escape", 0, 1, R, &de)))
    return s;
  if (mode == DTANS_VALUES_CODED &&
      ((s = zsi_layout_param(&c, "value_real", 0, DTANS_SYMBOLS, R, &vr)) ||
       (s = zsi_layout_param(&c, "value_escape", 0, 1, R, &ve))))
    return s;
  if (mode == DTANS_VALUES_JOINT &&
      (s = zsi_layout_param(&c, "value_real", 0, DTANS_SYMBOLS, R, &vr)))
    return s;
  cmode = zsb_find_param(v, "column_mode", DTANS_COLUMNS_DELTAS);
  if (cmode != DTANS_COLUMNS_DELTAS && (cmode != DTANS_COLUMNS_RAW || mode != DTANS_VALUES_JOINT))
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                           "parameter 'column_mode' = %" PRId64
                           " (0: deltas; 1: raw, only with value_mode 3, joint)",
                           cmode);
  if ((s = zsi_layout_param(&c, "guided", 0, INT64_MAX, 0, &L->guided))) return s;
  L->version = (dtans_version)version, L->value_mode = (dtans_value_mode)mode;
  L->column_mode = (dtans_column_mode)cmode;
  L->delta_real = (int)dr, L->delta_escape = (int)de, L->value_real = (int)vr;
  L->value_escape = (int)ve;
  const int coded = mode == DTANS_VALUES_CODED, joint = mode == DTANS_VALUES_JOINT;
  const int raw_columns = cmode == DTANS_COLUMNS_RAW;
  const uint64_t rows = (uint64_t)v->rows, sl = (uint64_t)L->slices + 1;
  const zsb_array *a = zsb_find_array(v, "row_nnz");
  if (!a || a->count != rows || (a->elem_size != 1 && a->elem_size != 2 && a->elem_size != 4))
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                           "array 'row_nnz' of %" PRIu64 " elements of 1, 2 or 4 bytes is missing",
                           rows);
  L->row_nnz = a->data, L->row_nnz_bytes = (int)a->elem_size;
  uint64_t n_dcounts = 0, n_vcounts = 0;
  if ((s = zsi_layout_array(&c, "slice_rows", 8, sl, 1, (const void **)&L->slice_rows, NULL)) ||
      (s = zsi_layout_array(&c, "slice_words", 8, sl, 1, (const void **)&L->slice_words, NULL)) ||
      (s = zsi_layout_array(&c, "slice_delta_escapes", 8, sl, 1, (const void **)&L->slice_delta_esc,
                            NULL)) ||
      (s = zsi_layout_array(&c, "stream", 4, ZSI_LAYOUT_ANY, 1, (const void **)&L->stream,
                            &L->stream_words)) ||
      (s = zsi_layout_array(&c, "delta_counts", 2, ZSI_LAYOUT_ANY, 1,
                            (const void **)&L->delta_counts, &n_dcounts)))
    return s;
  if (n_dcounts < 1 || n_dcounts > DTANS_SYMBOLS || n_dcounts < (uint64_t)(dr + de))
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT, "array 'delta_counts' has a bad size (%" PRIu64 ")",
                           n_dcounts);
  L->delta_entries = (int)n_dcounts;
  if ((s = zsi_layout_array(&c, "delta_symbols", 4, (uint64_t)dr, 1,
                            (const void **)&L->delta_symbols, NULL)) ||
      (s = zsi_layout_array(&c, "delta_escapes", 4, raw_columns ? 0 : ZSI_LAYOUT_ANY, 1,
                            (const void **)&L->delta_escapes, &L->n_delta_escapes)))
    return s;
  if (coded) {
    if ((s = zsi_layout_array(&c, "value_counts", 2, ZSI_LAYOUT_ANY, 1,
                              (const void **)&L->value_counts, &n_vcounts)))
      return s;
    if (n_vcounts < 1 || n_vcounts > DTANS_SYMBOLS || n_vcounts < (uint64_t)(vr + ve))
      return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                             "array 'value_counts' has a bad size (%" PRIu64 ")", n_vcounts);
    L->value_entries = (int)n_vcounts;
    if ((s = zsi_layout_array(&c, "slice_value_escapes", 8, sl, 1,
                              (const void **)&L->slice_value_esc, NULL)))
      return s;
  }
  if (joint && (s = zsi_layout_array(&c, "pair_values", 2, (uint64_t)dr, 1,
                                     (const void **)&L->pair_values, NULL)))
    return s;
  /* Joint pairs: an escaped pair has an entry in both escape arrays (raw columns: only here). */
  const uint64_t n_vesc = joint && !raw_columns ? L->n_delta_escapes : ZSI_LAYOUT_ANY;
  const uint64_t n_vsym = mode == DTANS_VALUES_CONSTANT ? 1 : (uint64_t)vr;
  if ((coded || joint || mode == DTANS_VALUES_CONSTANT) &&
      (s = zsi_layout_array(&c, "value_symbols", es, n_vsym, 1, &L->value_symbols, NULL)))
    return s;
  if ((coded || joint) && (s = zsi_layout_array(&c, "value_escapes", es, n_vesc, 1,
                                                &L->value_escapes, &L->n_value_escapes)))
    return s;
  if (mode == DTANS_VALUES_RAW &&
      (s = zsi_layout_array(&c, "values", es, ZSI_LAYOUT_ANY, 1, &L->values, &L->n_values)))
    return s;
  if (raw_columns && (s = zsi_layout_array(&c, "columns", 4, ZSI_LAYOUT_ANY, 1,
                                           (const void **)&L->columns, &L->n_columns)))
    return s;
  if ((s = dtans_layout_long_rows(&c, es, &L->n_long, &L->long_rows, &L->long_ptr, &L->long_cols,
                                  &L->long_values, &L->long_nnz)))
    return s;
  /* Version 3: a permutation of the rows (version 2 has none; version 4 may). Version 4: one of
   * the columns (versions 2 and 3 have none). */
  const int has_row_perm = zsb_find_array(v, "row_perm") != NULL;
  const int has_col_perm = zsb_find_array(v, "col_perm") != NULL;
  if (version == DTANS_VERSION && has_row_perm)
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                           "version 2 carries a row_perm array (version 3 does)");
  if (version != DTANS_VERSION_COL_ORDER && has_col_perm)
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                           "version %" PRId64 " carries a col_perm array (version 4 does)",
                           version);
  if ((version == DTANS_VERSION_ROW_ORDER || has_row_perm) &&
      (s = zsi_layout_array(&c, "row_perm", 4, rows, 1, (const void **)&L->row_perm, NULL)))
    return s;
  if (version == DTANS_VERSION_COL_ORDER &&
      (s = zsi_layout_array(&c, "col_perm", 4, (uint64_t)v->cols, 1, (const void **)&L->col_perm,
                            NULL)))
    return s;
  return ZS_OK;
}

#endif
