/* cci_layout.h — the typed layout of a CCI blob (docs/formats/cci.md) and the one parser from a
 * zsb_encoded_view that the reference decoder and every backend read it through. Header-only C11,
 * compiles as C++17. */
#ifndef ZS_CCI_LAYOUT_H
#define ZS_CCI_LAYOUT_H

#include "formats/cci/cci_codec.h"
#include "formats/format_layout.h"

#define CCI_SHIFT_LIMIT (INT64_C(1) << 32) /* |first_shift| */

/* Pointers alias the view's arrays. Sizes are checked here; contents (row offsets, the table,
 * stream starts, the codes) by the format's validate. */
typedef struct cci_layout {
  int64_t rows, cols, nnz;
  zs_type type;
  uint32_t value_bytes;    /* 4 (f32) or 8 (f64) */
  int64_t slices;          /* S: code streams per row, a power of two in 1..32 */
  int64_t first_shift;     /* moves each row's expected first column (zs_cci_ref) */
  const int64_t *row_ptr;  /* rows + 1 */
  const uint32_t *optable; /* ZS_CCI_TABLE packed entries (zs_cci_unpack) */
  const void *cstart;      /* rows * slices + 1 bit offsets of cstart_bytes: cci_start_at */
  uint32_t cstart_bytes;   /* 4 or 8 */
  uint64_t total_bits;     /* the last stream start: bits of every code together */
  const uint64_t *codes;   /* n_codes words, one word of padding past the last code */
  uint64_t n_codes;
  const void *values; /* nnz, of type */
} cci_layout;

/* Bit offset where stream q (row q / S, slice q % S) starts. */
static inline uint64_t cci_start_at(const cci_layout *L, uint64_t q) {
  return L->cstart_bytes == 4 ? ((const uint32_t *)L->cstart)[q] : ((const uint64_t *)L->cstart)[q];
}

/* Parse `v` into L. Returns ZS_OK or ZS_ERR_CORRUPT with a message starting "cci: " in why
 * (why_len bytes; may be NULL). */
static inline zs_status cci_layout_parse(const zsb_encoded_view *v, cci_layout *L, char *why,
                                         size_t why_len) {
  ZSI_LAYOUT_OPEN(c, s, v, L, "cci", why, why_len);
  const uint32_t es = L->value_bytes;
  const int64_t R = ZSI_LAYOUT_REQUIRED;
  if ((s = zsi_layout_param(&c, "slices", 1, ZS_CCI_MAX_SLICES, R, &L->slices)) ||
      (s = zsi_layout_param(&c, "first_shift", -CCI_SHIFT_LIMIT, CCI_SHIFT_LIMIT, R,
                            &L->first_shift)))
    return s;
  if (L->slices & (L->slices - 1))
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                           "parameter 'slices' = %" PRId64 " is not a power of two", L->slices);
  const uint64_t nstreams = (uint64_t)v->rows * (uint64_t)L->slices;
  if ((s = zsi_layout_array(&c, "row_ptr", 8, (uint64_t)v->rows + 1, 1, (const void **)&L->row_ptr,
                            NULL)) ||
      (s = zsi_layout_array(&c, "optable", 4, ZS_CCI_TABLE, 1, (const void **)&L->optable, NULL)) ||
      (s = zsi_layout_array(&c, "values", es, (uint64_t)v->nnz, 1, &L->values, NULL)))
    return s;
  const zsb_array *cs = zsb_find_array(v, "cstart");
  if (!cs || (cs->elem_size != 4 && cs->elem_size != 8) || cs->count != nstreams + 1)
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                           "array 'cstart' of %" PRIu64
                           " elements (rows x slices + 1) of 4 or 8 bytes is missing",
                           nstreams + 1);
  L->cstart = cs->data, L->cstart_bytes = cs->elem_size;
  L->total_bits = cci_start_at(L, nstreams);
  if (L->total_bits > (uint64_t)v->nnz * (3 + ZS_CCI_MAX_WIDTH))
    return zsi_layout_fail(&c, ZS_ERR_CORRUPT,
                           "cstart ends at bit %" PRIu64 ", beyond 35 bits for each of %" PRId64
                           " nonzeros",
                           L->total_bits, v->nnz);
  return zsi_layout_array(&c, "codes", 8, (L->total_bits + 63) / 64 + 1, 1,
                          (const void **)&L->codes, &L->n_codes);
}

#endif
