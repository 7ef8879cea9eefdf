/* dtans5_decode.c — CSR-dtANS version 5 (template and packed rows): every check of validate, and the
 * normative decoder. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dtans/dtans.h"

#define CORRUPT(...) zsi_error(ZS_ERR_CORRUPT, __VA_ARGS__)

/* Templates: offsets strictly ascending, at most cols of them. */
static zs_status templates_ok(const dtans5_layout *v) {
  zs_status s = dtans_check_offsets("template_ptr", v->template_ptr, v->templates,
                                    "template_offsets", v->n_offsets);
  if (s != ZS_OK) return s;
  for (int64_t t = 0; t < v->templates; t++) {
    const int64_t b = v->template_ptr[t], e = v->template_ptr[t + 1];
    if (e - b > v->cols)
      return CORRUPT("dtans: template %" PRId64 " has %" PRId64 " offsets, over %" PRId64
                     " columns",
                     t, e - b, v->cols);
    for (int64_t k = b + 1; k < e; k++)
      if (v->template_offsets[k] <= v->template_offsets[k - 1])
        return CORRUPT("dtans: template_offsets[%" PRId64 "] = %" PRId32
                       " does not ascend (template %" PRId64 ")",
                       k, v->template_offsets[k], t);
  }
  return ZS_OK;
}

/* Nonzeros of row i in the slices (its template's or its packed fields'); 0 for a long row. */
static inline int64_t row_len(const dtans5_layout *v, int64_t i) {
  const uint32_t t = dtans5_row_template(v->row_template, v->row_template_bytes, i);
  return t == DTANS_LONG ? 0 : dtans5_entry_len(v->template_ptr, v->templates, t);
}

/* Row i is a packed row (its entry past the templates). */
static inline int is_packed(const dtans5_layout *v, int64_t i) {
  const uint32_t t = dtans5_row_template(v->row_template, v->row_template_bytes, i);
  return t != DTANS_LONG && (int64_t)t >= v->templates;
}

/* Row ids in range, each row's columns in [0, cols), long rows as in versions 2-4; *coded: the
 * nonzeros the templates give. */
static zs_status rows_ok(const dtans5_layout *v, uint64_t *coded) {
  int64_t marked = 0, packed = 0;
  *coded = 0;
  for (int64_t i = 0; i < v->rows; i++) {
    const uint32_t t = dtans5_row_template(v->row_template, v->row_template_bytes, i);
    if (t == DTANS_LONG) {
      marked++;
      continue;
    }
    if (t >= (uint64_t)v->templates && v->packed_rows == 0)
      return CORRUPT("dtans: row_template[%" PRId64 "] = %" PRIu32
                     " is not below templates = %" PRId64,
                     i, t, v->templates);
    if (t >= (uint64_t)v->templates) { /* a packed row: its columns are checked by cols_ok */
      if ((int64_t)t - v->templates > v->cols)
        return CORRUPT("dtans: row_template[%" PRId64 "] = %" PRIu32 ": a packed row of %" PRId64
                       " nonzeros, over %" PRId64 " columns",
                       i, t, (int64_t)t - v->templates, v->cols);
      packed++, *coded += (uint64_t)t - (uint64_t)v->templates;
      continue;
    }
    const int64_t b = v->template_ptr[t], e = v->template_ptr[t + 1];
    if (e > b && (i + v->template_offsets[b] < 0 || i + v->template_offsets[e - 1] >= v->cols))
      return CORRUPT("dtans: row %" PRId64 " (template %" PRIu32
                     ") has a column outside [0, %" PRId64 ")",
                     i, t, v->cols);
    *coded += (uint64_t)(e - b);
  }
  zs_status s = dtans_check_offsets("long_ptr", v->long_ptr, v->n_long, "long_cols", v->long_nnz);
  if (s != ZS_OK) return s;
  for (int64_t k = 0; k < v->n_long; k++) {
    const int32_t r = v->long_rows[k];
    if (r < 0 || r >= v->rows || (k > 0 && r <= v->long_rows[k - 1]) ||
        dtans5_row_template(v->row_template, v->row_template_bytes, r) != DTANS_LONG)
      return CORRUPT("dtans: long_rows[%" PRId64 "] = %" PRId32
                     " is out of range, not ascending or not marked in row_template",
                     k, r);
    if (v->long_ptr[k + 1] - v->long_ptr[k] > v->cols)
      return CORRUPT("dtans: long row %" PRId32 " has more nonzeros than columns", r);
    for (int64_t j = v->long_ptr[k]; j < v->long_ptr[k + 1]; j++)
      if (v->long_cols[j] < 0 || v->long_cols[j] >= v->cols ||
          (j > v->long_ptr[k] && v->long_cols[j] <= v->long_cols[j - 1]))
        return CORRUPT("dtans: long_cols[%" PRId64 "] = %" PRId32 " (row %" PRId32
                       ") is out of range or not ascending",
                       j, v->long_cols[j], r);
  }
  if (packed != v->packed_rows)
    return CORRUPT("dtans: row_template holds %" PRId64 " packed rows, packed_rows is %" PRId64,
                   packed, v->packed_rows);
  if (marked != v->n_long)
    return CORRUPT("dtans: row_template marks %" PRId64 " long rows, long_rows lists %" PRId64,
                   marked, v->n_long);
  if (*coded + v->long_nnz != (uint64_t)v->nnz)
    return CORRUPT("dtans: %" PRIu64 " nonzeros from templates and %" PRIu64
                   " long ones, nnz is %" PRId64,
                   *coded, v->long_nnz, v->nnz);
  return ZS_OK;
}

/* Slice offsets as the slices' widths make them, and every padding entry zero. */
static zs_status values_ok(const dtans5_layout *v) {
  const int raw = v->value_mode == DTANS5_VALUES_RAW;
  if (!raw && v->value_mode != DTANS5_VALUES_PACKED) return ZS_OK;
  const int64_t *off = raw ? v->slice_values : v->slice_value_words;
  const char *name = raw ? "slice_values" : "slice_value_words";
  zs_status s = dtans_check_offsets(name, off, v->slices, raw ? "values" : "value_words",
                                    raw ? v->n_values : v->n_value_words);
  if (s != ZS_OK) return s;
  const size_t es = v->value_bytes;
  const int bits = v->value_bits, p = v->ids_per_word;
  for (int64_t sl = 0; sl < v->slices; sl++) {
    int64_t width = 0, len[DTANS5_LANES];
    for (int l = 0; l < DTANS5_LANES; l++) {
      const int64_t i = sl * DTANS5_LANES + l;
      len[l] = i < v->rows ? row_len(v, i) : 0;
      if (len[l] > width) width = len[l];
    }
    const int64_t per_lane = raw ? width : (width + p - 1) / p;
    if (off[sl + 1] - off[sl] != DTANS5_LANES * per_lane)
      return CORRUPT("dtans: %s[%" PRId64 "] = %" PRId64 ": slice %" PRId64 " of width %" PRId64
                     " holds %" PRId64 " entries",
                     name, sl + 1, off[sl + 1], sl, width, DTANS5_LANES * per_lane);
    for (int l = 0; l < DTANS5_LANES; l++)
      for (int64_t j = 0; j < per_lane; j++) {
        const int64_t at = off[sl] + DTANS5_LANES * j + l;
        if (raw) {
          static const uint64_t zero = 0;
          if (j >= len[l] && memcmp((const char *)v->values + (size_t)at * es, &zero, es))
            return CORRUPT("dtans: values[%" PRId64 "] is padding (slice %" PRId64
                           ", lane %d) but not +0",
                           at, sl, l);
          continue;
        }
        /* ids of the word: entries p j … of the lane, the rest of the word zero */
        const int64_t real = len[l] - p * j < 0 ? 0 : len[l] - p * j < p ? len[l] - p * j : p;
        uint32_t w = v->value_words[at];
        for (int64_t k = 0; k < real; k++, w >>= bits)
          if ((w & ((1u << bits) - 1u)) >= (uint64_t)v->value_real)
            return CORRUPT("dtans: value_words[%" PRId64 "] holds id %" PRIu32
                           ", not below value_real = %" PRId64 " (row %" PRId64 ")",
                           at, w & ((1u << bits) - 1u), v->value_real, sl * DTANS5_LANES + l);
        if (real * bits < 32 && w)
          return CORRUPT("dtans: value_words[%" PRId64 "] has padding bits set (slice %" PRId64
                         ", lane %d)",
                         at, sl, l);
      }
  }
  return ZS_OK;
}

/* Packed rows: each slice's words as its packed width and field bits make them, every column in
 * [0, cols), the bits past a lane's fields zero. */
static zs_status cols_ok(const dtans5_layout *v) {
  if (v->packed_rows == 0) return ZS_OK;
  const int64_t *off = v->slice_col_words;
  zs_status s = dtans_check_offsets("slice_col_words", off, v->slices, "col_words", v->n_col_words);
  if (s != ZS_OK) return s;
  for (int64_t sl = 0; sl < v->slices; sl++) {
    int64_t width = 0, len[DTANS5_LANES];
    for (int l = 0; l < DTANS5_LANES; l++) {
      const int64_t i = sl * DTANS5_LANES + l;
      len[l] = i < v->rows && is_packed(v, i) ? row_len(v, i) : 0;
      if (len[l] > width) width = len[l];
    }
    const int bits = v->slice_col_bits[sl];
    if (bits > 32 || (bits == 0) != (width == 0))
      return CORRUPT("dtans: slice_col_bits[%" PRId64 "] = %d with packed rows of up to %" PRId64
                     " nonzeros (0 exactly when none, else at most 32)",
                     sl, bits, width);
    const int64_t per_lane = (width * bits + 31) / 32;
    if (off[sl + 1] - off[sl] != DTANS5_LANES * per_lane)
      return CORRUPT("dtans: slice_col_words[%" PRId64 "] = %" PRId64 ": slice %" PRId64
                     " of packed width %" PRId64 " and %d-bit fields holds %" PRId64 " words",
                     sl + 1, off[sl + 1], sl, width, bits, DTANS5_LANES * per_lane);
    for (int l = 0; l < DTANS5_LANES; l++) {
      const int64_t i = sl * DTANS5_LANES + l;
      const uint32_t *w = v->col_words + off[sl] + l;
      int64_t col = i + v->slice_col_base[sl] - 1;
      for (int64_t k = 0; k < len[l]; k++) {
        col += 1 + (int64_t)dtans5_col_field(w, bits, k);
        if (col < 0 || col >= v->cols)
          return CORRUPT("dtans: col_words: packed row %" PRId64 ", nonzero %" PRId64
                         ": column %" PRId64 " is outside [0, %" PRId64 ")",
                         i, k, col, v->cols);
      }
      for (int64_t j = 0; j < per_lane; j++) {
        const int64_t used = len[l] * bits - 32 * j;
        if (used < 32 && (used <= 0 ? w[32 * j] : w[32 * j] >> used))
          return CORRUPT("dtans: col_words[%" PRId64
                         "] has bits set past the fields of lane %d "
                         "(slice %" PRId64 ")",
                         off[sl] + 32 * j + l, l, sl);
      }
    }
  }
  return ZS_OK;
}

zs_status dtans5_layout_of(const zs_encoded *E, dtans5_layout *v) {
  zsi_view_buf vb;
  char why[ZSI_LAYOUT_WHY];
  zs_status s = dtans5_layout_parse(zsi_encoded_as_view(E, &vb), v, why, sizeof why);
  if (s != ZS_OK) return zsi_error(s, "%s", why);
  uint64_t coded;
  if ((s = templates_ok(v)) || (s = rows_ok(v, &coded)) || (s = values_ok(v)) || (s = cols_ok(v)))
    return s;
  if (v->row_perm && (s = dtans_check_permutation(v->row_perm, v->rows, "row_perm"))) return s;
  if (v->col_perm && (s = dtans_check_permutation(v->col_perm, v->cols, "col_perm"))) return s;
  return ZS_OK;
}

/* Value of entry k of row i (lane l of slice s), as the spec reads it. */
static const void *entry_value(const dtans5_layout *v, int64_t i, int64_t k) {
  const size_t es = v->value_bytes;
  const int64_t sl = i / DTANS5_LANES, l = i % DTANS5_LANES;
  if (v->value_mode == DTANS5_VALUES_CONSTANT) return v->value_symbols;
  if (v->value_mode == DTANS5_VALUES_RAW)
    return (const char *)v->values + (size_t)(v->slice_values[sl] + DTANS5_LANES * k + l) * es;
  const int p = v->ids_per_word, b = v->value_bits;
  const uint32_t w = v->value_words[v->slice_value_words[sl] + DTANS5_LANES * (k / p) + l];
  const uint32_t id = (w >> (b * (k % p))) & ((1u << b) - 1u);
  return (const char *)v->value_symbols + (size_t)id * es;
}

/* *A decoded in the encoded order becomes the matrix's: the matrix's row row_perm[r] is encoded
 * row r, its columns mapped through col_perm and sorted again (either may be NULL). */
static zs_status to_matrix_order(const dtans5_layout *v, zs_matrix **A) {
  zs_matrix *M = NULL;
  int32_t *from = NULL; /* the encoded row of each of the matrix's rows */
  zs_status s = ZS_OK;
  if (v->row_perm && !(from = malloc((size_t)(v->rows ? v->rows : 1) * 4)))
    s = zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: row order");
  for (int64_t r = 0; from && r < v->rows; r++) from[v->row_perm[r]] = (int32_t)r;
  if (s == ZS_OK) s = dtans_ordered_copy(*A, from, v->col_perm, &M);
  free(from);
  if (s == ZS_OK) zs_matrix_destroy(A), *A = M;
  return s;
}

zs_status dtans5_decode_all(const zs_encoded *E, zs_matrix **out) {
  dtans5_layout v;
  zs_status s = dtans5_layout_of(E, &v);
  if (s != ZS_OK || !out) return s;
  zs_matrix *A;
  if ((s = zsi_matrix_alloc(&A, E->rows, E->cols, E->nnz, E->type)) != ZS_OK) return s;
  const size_t es = v.value_bytes;
  A->row_ptr[0] = 0;
  for (int64_t i = 0, k = 0; i < E->rows; i++) {
    const int64_t long_n =
        v.n_long && k < v.n_long && v.long_rows[k] == i ? v.long_ptr[k + 1] - v.long_ptr[k] : -1;
    A->row_ptr[i + 1] = A->row_ptr[i] + (long_n >= 0 ? long_n : row_len(&v, i));
    k += long_n >= 0;
  }
  ZSI_OMP(parallel for schedule(dynamic, 1024) num_threads(zsi_omp_threads()) if (E->nnz > 65536))
  for (int64_t i = 0; i < E->rows; i++) {
    const uint32_t t = dtans5_row_template(v.row_template, v.row_template_bytes, i);
    const int64_t at = A->row_ptr[i], sl = i / DTANS5_LANES;
    if (t == DTANS_LONG) continue;
    const int packed = (int64_t)t >= v.templates;
    const uint32_t *w = packed ? v.col_words + v.slice_col_words[sl] + i % DTANS5_LANES : NULL;
    int64_t col = packed ? i + v.slice_col_base[sl] - 1 : 0;
    const int64_t n = row_len(&v, i);
    for (int64_t k = 0; k < n; k++) {
      if (packed)
        col += 1 + (int64_t)dtans5_col_field(w, v.slice_col_bits[sl], k);
      else
        col = i + v.template_offsets[v.template_ptr[t] + k];
      A->col_idx[at + k] = (int32_t)col;
      dtans_copy_value((char *)A->values + (size_t)(at + k) * es, entry_value(&v, i, k), es);
    }
  }
  for (int64_t k = 0; k < v.n_long; k++) {
    const int64_t at = A->row_ptr[v.long_rows[k]], b = v.long_ptr[k], n = v.long_ptr[k + 1] - b;
    memcpy(A->col_idx + at, v.long_cols + b, (size_t)n * 4);
    memcpy((char *)A->values + (size_t)at * es, (const char *)v.long_values + (size_t)b * es,
           (size_t)n * es);
  }
  if (v.row_perm || v.col_perm) s = to_matrix_order(&v, &A);
  if (s != ZS_OK) {
    zs_matrix_destroy(&A);
    return s;
  }
  *out = A;
  return ZS_OK;
}
