/* dtans5_encode.c — the CSR-dtANS version 5 encoder: rows as templates of column offsets or as
 * packed column fields, values laid out for a thread per row (docs/formats/dtans.md,
 * "Version 5"). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dtans/dtans.h"

/* ---- the template dictionary: open addressing on a row's hash, ids in first-seen order ---- */
typedef struct tdict {
  int32_t *slot;  /* template id, -1 empty; mask + 1 entries */
  uint64_t *hash; /* per template */
  int64_t *ptr;   /* per template + 1: its offsets in off */
  int32_t *off;   /* the offsets of all templates */
  int64_t n, cap; /* templates, their room (max + 1) */
  int64_t n_off, cap_off;
  uint64_t mask;
} tdict;

static inline uint64_t mix64(uint64_t h) {
  h ^= h >> 31;
  h *= UINT64_C(0x9e3779b97f4a7c15);
  return h ^ (h >> 29);
}

/* Hash of row i's offsets (columns minus i) and length. */
static uint64_t row_hash(const zs_matrix *A, int64_t i) {
  uint64_t h = (uint64_t)(A->row_ptr[i + 1] - A->row_ptr[i]) * UINT64_C(0xff51afd7ed558ccd);
  for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
    h = mix64(h ^ (uint64_t)(uint32_t)(A->col_idx[k] - (int32_t)i));
  return h;
}

static int same_row(const tdict *d, int64_t t, const zs_matrix *A, int64_t i) {
  const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i], b = d->ptr[t];
  if (d->ptr[t + 1] - b != n) return 0;
  const int32_t *c = A->col_idx + A->row_ptr[i];
  for (int64_t k = 0; k < n; k++)
    if (d->off[b + k] != c[k] - (int32_t)i) return 0;
  return 1;
}

/* Row i's template id, added when new; -1 when the dictionary is full, -2 out of memory. */
static int64_t template_of(tdict *d, const zs_matrix *A, int64_t i) {
  const uint64_t h = row_hash(A, i);
  uint64_t j = h & d->mask;
  for (; d->slot[j] >= 0; j = (j + 1) & d->mask) {
    const int32_t t = d->slot[j];
    if (d->hash[t] == h && same_row(d, t, A, i)) return t;
  }
  if (d->n + 1 >= d->cap) return -1;
  const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i];
  if (d->n_off + n > d->cap_off) {
    int64_t cap = 2 * d->cap_off + n + 1024;
    int32_t *off = realloc(d->off, (size_t)cap * sizeof *off);
    if (!off) return -2;
    d->off = off, d->cap_off = cap;
  }
  for (int64_t k = 0; k < n; k++) d->off[d->n_off + k] = A->col_idx[A->row_ptr[i] + k] - (int32_t)i;
  d->n_off += n;
  d->hash[d->n] = h, d->slot[j] = (int32_t)d->n, d->ptr[++d->n] = d->n_off;
  return d->n - 1;
}

/* ---- the value dictionary: at most DTANS5_MAX_VALUES distinct bit patterns ---- */
typedef struct vdict {
  uint64_t *key, *count; /* count 0: empty */
  uint64_t mask, used;
} vdict;

/* Slot of key: where it is, or the empty slot where it would go. */
static inline uint64_t vdict_find(const vdict *v, uint64_t key) {
  uint64_t j = mix64(key) & v->mask;
  while (v->count[j] && v->key[j] != key) j = (j + 1) & v->mask;
  return j;
}

/* Count key; 0 when it would be past DTANS5_MAX_VALUES distinct keys. */
static int vdict_add(vdict *v, uint64_t key) {
  const uint64_t j = vdict_find(v, key);
  if (!v->count[j]) {
    if (v->used == DTANS5_MAX_VALUES) return 0;
    v->key[j] = key, v->used++;
  }
  v->count[j]++;
  return 1;
}

typedef struct vfreq {
  uint64_t key, n;
} vfreq;

static int by_count(const void *a, const void *b) {
  const vfreq *x = a, *y = b;
  if (x->n != y->n) return x->n < y->n ? 1 : -1;
  return (x->key > y->key) - (x->key < y->key);
}

/* ---- the encoder ---- */
/* tid of a packed row until the blob is written (then templates + its length) */
#define PACKED_ROW (DTANS_LONG - 1)

typedef struct enc5 {
  const zs_matrix *A;
  int64_t long_min, n_long, long_nnz, slices, packed_rows;
  int mode;
  uint8_t *is_long;
  uint32_t *tid;   /* per row: template id (DTANS_LONG for long rows, PACKED_ROW) */
  int64_t *width;  /* per slice: its longest row (template or packed) */
  uint8_t *cbits;  /* packed rows, per slice: bits of a column field */
  int32_t *cbase;  /* packed rows, per slice: first column − row − first field */
  int64_t *cwords; /* packed rows, per slice + 1: offsets into col_words */
  tdict d;
  vdict v;
  vfreq *sorted;    /* values by count, descending (packed) */
  int64_t distinct; /* -1: more than DTANS5_MAX_VALUES */
} enc5;

static void enc5_free(enc5 *e) {
  free(e->is_long), free(e->tid), free(e->width), free(e->cbits), free(e->cbase), free(e->cwords);
  free(e->d.slot), free(e->d.hash), free(e->d.ptr), free(e->d.off);
  free(e->v.key), free(e->v.count), free(e->sorted);
}

/* Packed rows in place of the templates that hold one row (when the dictionary overflowed,
 * row_kind auto): the templates of two rows or more keep their order, renumbered. */
static zs_status pack_single_rows(enc5 *e) {
  tdict *d = &e->d;
  int64_t *uses = calloc((size_t)d->n + 1, sizeof *uses), *to = malloc(((size_t)d->n + 1) * 8);
  if (!uses || !to) {
    free(uses), free(to);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: template uses");
  }
  for (int64_t i = 0; i < e->A->rows; i++)
    if (e->tid[i] < PACKED_ROW) uses[e->tid[i]]++;
  int64_t kept = 0, n_off = 0;
  for (int64_t t = 0; t < d->n; t++) {
    to[t] = uses[t] >= 2 ? kept : -1;
    if (to[t] < 0) continue;
    const int64_t b = d->ptr[t], n = d->ptr[t + 1] - b;
    memmove(d->off + n_off, d->off + b, (size_t)n * sizeof *d->off);
    d->ptr[kept] = n_off, n_off += n, d->ptr[++kept] = n_off;
  }
  d->n = kept, d->n_off = n_off;
  for (int64_t i = 0; i < e->A->rows; i++)
    if (e->tid[i] < PACKED_ROW)
      e->tid[i] = to[e->tid[i]] < 0 ? PACKED_ROW : (uint32_t)to[e->tid[i]];
  free(uses), free(to);
  return ZS_OK;
}

/* Templates of every row (row_kind TEMPLATES: 0 when more than max_templates are needed); packed
 * rows as row_kind says. */
static zs_status find_templates(enc5 *e, int64_t max_templates, int row_kind, int *fits) {
  const zs_matrix *A = e->A;
  tdict *d = &e->d;
  d->cap = max_templates + 1;
  d->mask = 1;
  while (d->mask + 1 < (uint64_t)(2 * d->cap)) d->mask = 2 * d->mask + 1;
  d->slot = malloc((size_t)(d->mask + 1) * sizeof *d->slot);
  d->hash = malloc((size_t)d->cap * sizeof *d->hash);
  d->ptr = malloc(((size_t)d->cap + 1) * sizeof *d->ptr);
  e->is_long = calloc((size_t)(A->rows ? A->rows : 1), 1);
  e->tid = malloc((size_t)(A->rows ? A->rows : 1) * sizeof *e->tid);
  if (!d->slot || !d->hash || !d->ptr || !e->is_long || !e->tid)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: template dictionary");
  memset(d->slot, 0xff, (size_t)(d->mask + 1) * sizeof *d->slot);
  d->ptr[0] = 0;
  *fits = 1;
  int full = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i];
    if (e->long_min > 0 && n > e->long_min) {
      e->is_long[i] = 1, e->n_long++, e->long_nnz += n, e->tid[i] = DTANS_LONG;
      continue;
    }
    const int64_t t = row_kind == DTANS5_ROWS_PACKED ? -1 : template_of(d, A, i);
    if (t == -2) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: template offsets");
    if (t < 0 && row_kind == DTANS5_ROWS_TEMPLATES) return *fits = 0, ZS_OK;
    full |= t < 0;
    e->tid[i] = t < 0 ? PACKED_ROW : (uint32_t)t;
  }
  zs_status s;
  if (full && row_kind == DTANS5_ROWS_AUTO && (s = pack_single_rows(e)) != ZS_OK) return s;
  for (int64_t i = 0; i < A->rows; i++) e->packed_rows += e->tid[i] == PACKED_ROW;
  e->slices = (A->rows + DTANS5_LANES - 1) / DTANS5_LANES;
  e->width = calloc((size_t)e->slices + 1, sizeof *e->width);
  if (!e->width) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: slice widths");
  for (int64_t i = 0; i < A->rows; i++) {
    if (e->is_long[i]) continue;
    const int64_t n = e->tid[i] == PACKED_ROW ? A->row_ptr[i + 1] - A->row_ptr[i]
                                              : d->ptr[e->tid[i] + 1] - d->ptr[e->tid[i]];
    if (n > e->width[i / DTANS5_LANES]) e->width[i / DTANS5_LANES] = n;
  }
  return ZS_OK;
}

/* ---- packed rows: column fields ---- */

/* Field k of row i: its first column − i − base, then each step − 1. */
static inline uint32_t col_field(const zs_matrix *A, int64_t i, int64_t k, int64_t base) {
  const int32_t *c = A->col_idx + A->row_ptr[i];
  return (uint32_t)(k ? (int64_t)c[k] - c[k - 1] - 1 : (int64_t)c[0] - i - base);
}

/* Slice s's field bits and base, and the words it needs (its packed width's fields a lane). */
static int64_t slice_fields(enc5 *e, int64_t s) {
  const zs_matrix *A = e->A;
  int64_t base = INT64_MAX, width = 0;
  for (int64_t i = s * DTANS5_LANES; i < (s + 1) * DTANS5_LANES && i < A->rows; i++) {
    const int64_t n = A->row_ptr[i + 1] - A->row_ptr[i];
    if (e->tid[i] != PACKED_ROW || n == 0) continue;
    const int64_t first = (int64_t)A->col_idx[A->row_ptr[i]] - i;
    if (first < base) base = first;
    if (n > width) width = n;
  }
  uint32_t any = 0; /* the OR of the fields: its bit length is the largest's */
  for (int64_t i = s * DTANS5_LANES; width && i < (s + 1) * DTANS5_LANES && i < A->rows; i++)
    for (int64_t k = 0; e->tid[i] == PACKED_ROW && k < A->row_ptr[i + 1] - A->row_ptr[i]; k++)
      any |= col_field(A, i, k, base);
  int bits = 0;
  while (bits < 32 && any >> bits) bits++;
  e->cbits[s] = (uint8_t)(width ? (bits ? bits : 1) : 0);
  e->cbase[s] = width ? (int32_t)base : 0;
  return DTANS5_LANES * ((width * e->cbits[s] + 31) / 32);
}

/* Per slice: field bits, base and word offsets. */
static zs_status plan_fields(enc5 *e) {
  const uint64_t n = (uint64_t)e->slices + 1;
  e->cbits = calloc(n, 1), e->cbase = calloc(n, 4), e->cwords = calloc(n, 8);
  if (!e->cbits || !e->cbase || !e->cwords)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: packed rows' slices");
  const zs_matrix *A = e->A;
  ZSI_OMP(parallel for schedule(dynamic, 256) num_threads(zsi_omp_threads()) if (A->nnz > 65536))
  for (int64_t s = 0; s < e->slices; s++) e->cwords[s + 1] = slice_fields(e, s);
  for (int64_t s = 0; s < e->slices; s++) e->cwords[s + 1] += e->cwords[s];
  return ZS_OK;
}

/* Slice s's column words: lane l's fields low bits first, straddling words; the rest zero. */
static void write_fields(const enc5 *e, int64_t s, uint32_t *words) {
  const zs_matrix *A = e->A;
  const int bits = e->cbits[s];
  uint32_t *w = words + e->cwords[s];
  memset(w, 0, (size_t)(e->cwords[s + 1] - e->cwords[s]) * 4);
  for (int l = 0; l < DTANS5_LANES; l++) {
    const int64_t i = s * DTANS5_LANES + l;
    if (i >= A->rows || e->tid[i] != PACKED_ROW) continue;
    for (int64_t k = 0; k < A->row_ptr[i + 1] - A->row_ptr[i]; k++) {
      const uint64_t at = (uint64_t)k * (uint64_t)bits, j = at / 32;
      const uint64_t f = (uint64_t)col_field(A, i, k, e->cbase[s]) << (at % 32);
      w[DTANS5_LANES * j + (uint64_t)l] |= (uint32_t)f;
      if (at % 32 + (uint64_t)bits > 32)
        w[DTANS5_LANES * (j + 1) + (uint64_t)l] |= (uint32_t)(f >> 32);
    }
  }
}

/* The distinct values of the rows in the stream (e->distinct = -1 past DTANS5_MAX_VALUES), sorted
 * by count, and each key's id in place of its count. */
static zs_status count_values(enc5 *e) {
  const zs_matrix *A = e->A;
  vdict *v = &e->v;
  v->mask = 2 * DTANS5_MAX_VALUES - 1;
  v->key = malloc((size_t)(v->mask + 1) * sizeof *v->key);
  v->count = calloc((size_t)v->mask + 1, sizeof *v->count);
  if (!v->key || !v->count) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: value dictionary");
  e->distinct = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    if (e->is_long[i]) continue;
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      if (!vdict_add(v, dtans_value_key(A, k))) return e->distinct = -1, ZS_OK;
  }
  e->distinct = (int64_t)v->used;
  e->sorted = malloc((size_t)(v->used ? v->used : 1) * sizeof *e->sorted);
  if (!e->sorted) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: value dictionary");
  int64_t n = 0;
  for (uint64_t j = 0; j <= v->mask; j++)
    if (v->count[j]) e->sorted[n++] = (vfreq){v->key[j], v->count[j]};
  qsort(e->sorted, (size_t)n, sizeof *e->sorted, by_count);
  for (int64_t r = 0; r < n; r++) v->count[vdict_find(v, e->sorted[r].key)] = (uint64_t)r + 1;
  return ZS_OK;
}

/* Entries (raw) or words (packed, p ids a word) of every slice, as offsets. */
static void slice_offsets(const enc5 *e, int64_t per_word, int64_t *o) {
  o[0] = 0;
  for (int64_t s = 0; s < e->slices; s++) {
    const int64_t w = per_word ? (e->width[s] + per_word - 1) / per_word : e->width[s];
    o[s + 1] = o[s] + DTANS5_LANES * w;
  }
}

/* Slice s of the values: raw entries (k, lane) at 32 k + lane, or packed words (j, lane) at
 * 32 j + lane holding entries p j … p j + p − 1 low bits first; padding zero. */
static void write_slice(const enc5 *e, int64_t s, const int64_t *off, void *values, uint32_t *words,
                        int bits) {
  const zs_matrix *A = e->A;
  const size_t es = zs_type_size(A->type);
  const int64_t per_word = bits ? 32 / bits : 0;
  const int64_t n = off[s + 1] - off[s];
  if (values) memset((char *)values + (size_t)off[s] * es, 0, (size_t)n * es);
  if (words) memset(words + off[s], 0, (size_t)n * 4);
  for (int l = 0; l < DTANS5_LANES; l++) {
    const int64_t i = s * DTANS5_LANES + l;
    if (i >= A->rows || e->is_long[i]) continue;
    for (int64_t k = 0, at = A->row_ptr[i]; at < A->row_ptr[i + 1]; k++, at++) {
      if (values) {
        dtans_copy_value((char *)values + (size_t)(off[s] + DTANS5_LANES * k + l) * es,
                         (const char *)A->values + (size_t)at * es, es);
        continue;
      }
      const uint64_t id = e->v.count[vdict_find(&e->v, dtans_value_key(A, at))] - 1;
      words[off[s] + DTANS5_LANES * (k / per_word) + l] |=
          (uint32_t)(id << (bits * (k % per_word)));
    }
  }
}

/* The blob: templates, row ids, long rows, values in the chosen mode. */
static zs_status write_blob(const enc5 *e, zs_encoded **out) {
  const zs_matrix *A = e->A;
  const size_t es = zs_type_size(A->type);
  const tdict *d = &e->d;
  zs_encoded *E = NULL;
  zs_status s = zsi_encoded_new(&E, ZS_FORMAT_DTANS, A->type, A->rows, A->cols, A->nnz);
  if (s != ZS_OK) return s;
  int64_t top = d->n; /* the largest entry of row_template is below this (but the long mark) */
  for (int64_t i = 0; i < A->rows; i++)
    if (e->tid[i] == PACKED_ROW && d->n + A->row_ptr[i + 1] - A->row_ptr[i] > top)
      top = d->n + A->row_ptr[i + 1] - A->row_ptr[i];
  const uint32_t tb = top < UINT8_MAX ? 1 : top < UINT16_MAX ? 2 : 4;
  uint32_t *cwords = NULL;
  void *rt, *lvals, *vsym = NULL, *values = NULL;
  int64_t *tptr, *lptr, *soff = NULL;
  int32_t *toff, *lrows, *lcols;
  uint32_t *words = NULL;
  const int packed = e->mode == DTANS5_VALUES_PACKED;
  const int bits = packed ? dtans5_id_bits(e->distinct) : 0;
  const uint64_t ns = (uint64_t)e->slices + 1;
  if ((s = zsi_encoded_add_array(E, "row_template", tb, (uint64_t)A->rows, &rt)) ||
      (s = zsi_encoded_add_array(E, "template_ptr", 8, (uint64_t)d->n + 1, (void **)&tptr)) ||
      (s = zsi_encoded_add_array(E, "template_offsets", 4, (uint64_t)d->n_off, (void **)&toff)))
    goto fail;
  if (e->mode != DTANS5_VALUES_CONSTANT) {
    if ((s = zsi_encoded_add_array(E, packed ? "slice_value_words" : "slice_values", 8, ns,
                                   (void **)&soff)))
      goto fail;
    slice_offsets(e, packed ? 32 / bits : 0, soff);
    if (packed ? (s = zsi_encoded_add_array(E, "value_words", 4, (uint64_t)soff[e->slices],
                                            (void **)&words))
               : (s = zsi_encoded_add_array(E, "values", (uint32_t)es, (uint64_t)soff[e->slices],
                                            &values)))
      goto fail;
  }
  if (e->mode != DTANS5_VALUES_RAW) {
    const int64_t nv = packed ? e->distinct : 1;
    if ((s = zsi_encoded_add_array(E, "value_symbols", (uint32_t)es, (uint64_t)nv, &vsym)))
      goto fail;
    for (int64_t r = 0; r < nv; r++) /* little-endian: the key's low bytes are the value */
      memcpy((char *)vsym + (size_t)r * es, e->distinct > 0 ? &e->sorted[r].key : &(uint64_t){0},
             es);
  }
  if (e->packed_rows) {
    const uint64_t n = (uint64_t)e->slices;
    void *bits, *base, *off;
    if ((s = zsi_encoded_add_array(E, "slice_col_words", 8, n + 1, &off)) ||
        (s = zsi_encoded_add_array(E, "col_words", 4, (uint64_t)e->cwords[n], (void **)&cwords)) ||
        (s = zsi_encoded_add_array(E, "slice_col_bits", 1, n, &bits)) ||
        (s = zsi_encoded_add_array(E, "slice_col_base", 4, n, &base)))
      goto fail;
    memcpy(off, e->cwords, (n + 1) * 8), memcpy(bits, e->cbits, n), memcpy(base, e->cbase, n * 4);
  }
  if ((s = zsi_encoded_add_array(E, "long_rows", 4, (uint64_t)e->n_long, (void **)&lrows)) ||
      (s = zsi_encoded_add_array(E, "long_ptr", 8, (uint64_t)e->n_long + 1, (void **)&lptr)) ||
      (s = zsi_encoded_add_array(E, "long_cols", 4, (uint64_t)e->long_nnz, (void **)&lcols)) ||
      (s = zsi_encoded_add_array(E, "long_values", (uint32_t)es, (uint64_t)e->long_nnz, &lvals)))
    goto fail;
  memcpy(tptr, d->ptr, ((size_t)d->n + 1) * sizeof *tptr);
  if (d->n_off) memcpy(toff, d->off, (size_t)d->n_off * sizeof *toff);
  lptr[0] = 0;
  for (int64_t i = 0, k = 0; i < A->rows; i++) {
    const uint32_t t =
        e->tid[i] == PACKED_ROW ? (uint32_t)(d->n + A->row_ptr[i + 1] - A->row_ptr[i]) : e->tid[i];
    if (tb == 1)
      ((uint8_t *)rt)[i] = (uint8_t)t; /* the long mark: all ones in any width */
    else if (tb == 2)
      ((uint16_t *)rt)[i] = (uint16_t)t;
    else
      ((uint32_t *)rt)[i] = t;
    if (!e->is_long[i]) continue;
    const int64_t b = A->row_ptr[i], n = A->row_ptr[i + 1] - b;
    lrows[k] = (int32_t)i, lptr[k + 1] = lptr[k] + n;
    memcpy(lcols + lptr[k], A->col_idx + b, (size_t)n * 4);
    memcpy((char *)lvals + (size_t)lptr[k] * es, (const char *)A->values + (size_t)b * es,
           (size_t)n * es);
    k++;
  }
  if (soff) {
    ZSI_OMP(parallel for schedule(dynamic, 256) num_threads(zsi_omp_threads()) if (A->nnz > 65536))
    for (int64_t sl = 0; sl < e->slices; sl++) write_slice(e, sl, soff, values, words, bits);
  }
  if (cwords) {
    ZSI_OMP(parallel for schedule(dynamic, 256) num_threads(zsi_omp_threads()) if (A->nnz > 65536))
    for (int64_t sl = 0; sl < e->slices; sl++) write_fields(e, sl, cwords);
  }
  if ((s = zsi_encoded_add_param(E, "version", DTANS_VERSION_TEMPLATES)) ||
      (s = zsi_encoded_add_param(E, "lanes", DTANS5_LANES)) ||
      (s = zsi_encoded_add_param(E, "slices", e->slices)) ||
      (s = zsi_encoded_add_param(E, "templates", d->n)) ||
      (s = zsi_encoded_add_param(E, "value_mode", e->mode)) ||
      (packed && (s = zsi_encoded_add_param(E, "value_real", e->distinct))) ||
      (e->packed_rows && (s = zsi_encoded_add_param(E, "packed_rows", e->packed_rows))) ||
      (s = zsi_encoded_add_param(E, "long_min", e->long_min)))
    goto fail;
  *out = E;
  return ZS_OK;
fail:
  zs_encoded_destroy(&E);
  return s;
}

/* Bytes of the values in mode m (the rest of the blob does not depend on it). */
static double value_bytes(const enc5 *e, int m) {
  const double es = (double)zs_type_size(e->A->type);
  double entries = 0, words = 0;
  const int bits = e->distinct >= 2 ? dtans5_id_bits(e->distinct) : 1;
  for (int64_t s = 0; s < e->slices; s++)
    entries += (double)e->width[s], words += (double)((e->width[s] + 32 / bits - 1) / (32 / bits));
  if (m == DTANS5_VALUES_RAW) return DTANS5_LANES * entries * es;
  return DTANS5_LANES * 4 * words + (double)e->distinct * es;
}

zs_status dtans5_encode(const zs_matrix *A, int64_t long_min, int mode, int64_t max_templates,
                        int row_kind, zs_encoded **out) {
  enc5 e;
  memset(&e, 0, sizeof e);
  e.A = A, e.long_min = long_min;
  *out = NULL;
  int fits = 0;
  zs_status s = find_templates(&e, max_templates, row_kind, &fits);
  if (s == ZS_OK && fits && e.packed_rows) s = plan_fields(&e);
  if (s == ZS_OK && fits && mode != DTANS5_VALUES_RAW) s = count_values(&e);
  if (s == ZS_OK && fits) {
    const int64_t coded = A->nnz - e.long_nnz;
    if (mode == DTANS5_VALUES_CONSTANT && e.distinct > 1)
      s = zsi_error(ZS_ERR_INVALID_ARGUMENT,
                    "dtans: values=constant, but the rows in the stream hold %s values",
                    e.distinct < 0 ? "many" : "several");
    else if (mode == DTANS5_VALUES_PACKED && (e.distinct < 2))
      s = zsi_error(ZS_ERR_INVALID_ARGUMENT,
                    e.distinct < 0 ? "dtans: values=packed, but the rows in the stream hold over "
                                     "65536 distinct values"
                                   : "dtans: values=packed needs two distinct values or more "
                                     "(one: values=constant)");
    else if (mode < 0) /* auto: constant, else the smaller of packed ids and raw values */
      mode = coded > 0 && e.distinct == 1 ? DTANS5_VALUES_CONSTANT
             : e.distinct >= 2 &&
                     value_bytes(&e, DTANS5_VALUES_PACKED) < value_bytes(&e, DTANS5_VALUES_RAW)
                 ? DTANS5_VALUES_PACKED
                 : DTANS5_VALUES_RAW;
    e.mode = mode;
    if (s == ZS_OK) s = write_blob(&e, out);
  }
  enc5_free(&e);
  return s;
}
