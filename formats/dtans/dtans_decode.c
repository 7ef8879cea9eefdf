/* dtans_decode.c — CSR-dtANS blob checks, the normative slice decoder, validate and decode. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dtans/dtans.h"

#define W32 (UINT64_C(1) << 32)

static int64_t param(const zs_encoded *E, const char *name, int64_t fallback) {
  for (int i = 0; i < E->n_params; i++)
    if (strcmp(E->params[i].name, name) == 0) return E->params[i].value;
  return fallback;
}

/* Multiplicities in [1, M] summing to K: the slot table is then a permutation. */
static zs_status check_counts(const char *name, const uint16_t *c, int entries) {
  uint32_t sum = 0;
  for (int i = 0; i < entries; i++) {
    if (c[i] < 1 || c[i] > DTANS_M)
      return zsi_error(ZS_ERR_CORRUPT, "dtans: %s[%d] = %u is not in [1, %d]", name, i, c[i],
                       DTANS_M);
    sum += c[i];
  }
  if (sum != DTANS_K)
    return zsi_error(ZS_ERR_CORRUPT, "dtans: %s sums to %u, not %d", name, sum, DTANS_K);
  return ZS_OK;
}

zs_status dtans_check_offsets(const char *name, const int64_t *o, int64_t n, const char *of,
                              uint64_t total) {
  if (o[0] != 0) return zsi_error(ZS_ERR_CORRUPT, "dtans: %s[0] = %" PRId64 ", not 0", name, o[0]);
  for (int64_t i = 0; i < n; i++)
    if (o[i + 1] < o[i])
      return zsi_error(ZS_ERR_CORRUPT, "dtans: %s[%" PRId64 "] = %" PRId64 " decreases", name,
                       i + 1, o[i + 1]);
  if ((uint64_t)o[n] != total)
    return zsi_error(ZS_ERR_CORRUPT,
                     "dtans: %s ends at %" PRId64 ", but %s has %" PRIu64 " elements", name, o[n],
                     of, total);
  return ZS_OK;
}

/* perm (n entries) holds each of 0 … n − 1 once. */
zs_status dtans_check_permutation(const int32_t *perm, int64_t n, const char *name) {
  uint8_t *seen = calloc((size_t)(n ? n : 1), 1);
  if (!seen) return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: %s check", name);
  for (int64_t r = 0; r < n; r++) {
    const int32_t o = perm[r];
    if (o < 0 || o >= n || seen[o]) {
      free(seen);
      return zsi_error(ZS_ERR_CORRUPT,
                       "dtans: %s[%" PRId64 "] = %" PRId32
                       " is out of range or repeats an index: not a permutation",
                       name, r, o);
    }
    seen[o] = 1;
  }
  free(seen);
  return ZS_OK;
}

zs_status dtans_layout_of(const zs_encoded *E, dtans_layout *v) {
  zsi_view_buf vb;
  char why[ZSI_LAYOUT_WHY];
  zs_status s = dtans_layout_parse(zsi_encoded_as_view(E, &vb), v, why, sizeof why);
  if (s != ZS_OK) return zsi_error(s, "%s", why);
  const int64_t rpl = v->slices;
  if ((rpl && v->slice_rows[0] != 0) || v->slice_rows[rpl] != E->rows)
    return zsi_error(ZS_ERR_CORRUPT, "dtans: slice_rows must run from 0 to %" PRId64, E->rows);
  /* Both ends are now known, so every difference below stays in range. */
  for (int64_t i = 0; i < rpl; i++)
    if (v->slice_rows[i + 1] <= v->slice_rows[i] || v->slice_rows[i + 1] > E->rows ||
        v->slice_rows[i + 1] - v->slice_rows[i] > (int64_t)DTANS_LANES * DTANS_MAX_ROWS_PER_LANE)
      return zsi_error(ZS_ERR_CORRUPT,
                       "dtans: slice_rows[%" PRId64 "] = %" PRId64
                       " does not increase, or the slice has over %d rows per lane",
                       i + 1, v->slice_rows[i + 1], DTANS_MAX_ROWS_PER_LANE);
  if ((s = dtans_check_offsets("slice_words", v->slice_words, v->slices, "stream",
                               v->stream_words)) ||
      (s = check_counts("delta_counts", v->delta_counts, v->delta_entries)))
    return s;
  const uint64_t pair_esc = dtans_layout_pair_escapes(v);
  if ((s = dtans_check_offsets("slice_delta_escapes", v->slice_delta_esc, v->slices,
                               v->columns ? "value_escapes" : "delta_escapes", pair_esc)))
    return s;
  if (!v->delta_escape && pair_esc)
    return zsi_error(ZS_ERR_CORRUPT, "dtans: delta escapes stored but the table has none");
  for (int64_t j = 0; v->columns && j < v->delta_real; j++)
    if (v->delta_symbols[j] != 0)
      return zsi_error(ZS_ERR_CORRUPT,
                       "dtans: raw columns, but delta_symbols[%" PRId64 "] = %" PRId32 ", not 0", j,
                       v->delta_symbols[j]);
  if (v->value_mode == DTANS_VALUES_CODED) {
    if ((s = check_counts("value_counts", v->value_counts, v->value_entries)) ||
        (s = dtans_check_offsets("slice_value_escapes", v->slice_value_esc, v->slices,
                                 "value_escapes", v->n_value_escapes)))
      return s;
    if (!v->value_escape && v->n_value_escapes)
      return zsi_error(ZS_ERR_CORRUPT, "dtans: value escapes stored but the table has none");
  }
  for (int64_t j = 0; v->pair_values && j < v->delta_real; j++)
    if (v->pair_values[j] >= v->value_real)
      return zsi_error(ZS_ERR_CORRUPT,
                       "dtans: pair_values[%" PRId64 "] = %u is not below value_real = %d", j,
                       v->pair_values[j], v->value_real);
  /* Long rows: listed ascending, marked in row_nnz, their nonzeros in plain CSR. */
  if ((s = dtans_check_offsets("long_ptr", v->long_ptr, v->n_long, "long_cols", v->long_nnz)))
    return s;
  uint64_t coded = 0;
  int64_t marked = 0;
  for (int64_t i = 0; i < E->rows; i++) {
    const uint32_t n = dtans_row_nnz(v->row_nnz, v->row_nnz_bytes, i);
    if (n == DTANS_LONG) {
      marked++;
      continue;
    }
    if (n > (uint64_t)E->cols)
      return zsi_error(ZS_ERR_CORRUPT,
                       "dtans: row_nnz[%" PRId64 "] = %u exceeds %" PRId64 " columns", i, n,
                       E->cols);
    coded += n;
  }
  for (int64_t k = 0; k < v->n_long; k++) {
    const int32_t r = v->long_rows[k];
    if (r < 0 || r >= E->rows || (k > 0 && r <= v->long_rows[k - 1]) ||
        dtans_row_nnz(v->row_nnz, v->row_nnz_bytes, r) != DTANS_LONG)
      return zsi_error(ZS_ERR_CORRUPT,
                       "dtans: long_rows[%" PRId64 "] = %" PRId32
                       " is out of range, not ascending or not marked in row_nnz",
                       k, r);
    if (v->long_ptr[k + 1] - v->long_ptr[k] > E->cols)
      return zsi_error(ZS_ERR_CORRUPT, "dtans: long row %" PRId32 " has more nonzeros than columns",
                       r);
  }
  if (marked != v->n_long)
    return zsi_error(ZS_ERR_CORRUPT,
                     "dtans: row_nnz marks %" PRId64 " long rows, long_rows lists %" PRId64, marked,
                     v->n_long);
  if (coded + v->long_nnz != (uint64_t)E->nnz)
    return zsi_error(ZS_ERR_CORRUPT,
                     "dtans: %" PRIu64 " coded and %" PRIu64 " long nonzeros, nnz is %" PRId64,
                     coded, v->long_nnz, E->nnz);
  if (v->values && v->n_values != coded)
    return zsi_error(ZS_ERR_CORRUPT,
                     "dtans: array 'values' has %" PRIu64 " elements, expected %" PRIu64,
                     v->n_values, coded);
  if (v->columns && v->n_columns != coded)
    return zsi_error(ZS_ERR_CORRUPT,
                     "dtans: array 'columns' has %" PRIu64 " elements, expected %" PRIu64,
                     v->n_columns, coded);
  if (v->row_perm && (s = dtans_check_permutation(v->row_perm, E->rows, "row_perm"))) return s;
  if (v->col_perm && (s = dtans_check_permutation(v->col_perm, E->cols, "col_perm"))) return s;
  return ZS_OK;
}

/* Per-lane decoder state of one slice. */
typedef struct lane {
  int64_t n, segs;         /* nonzeros and segments of the lane (all its rows) */
  int64_t row, stop, left; /* current row, end of the slice, nonzeros left in the row */
  int64_t at, col;         /* where the row's next nonzero goes, the row's last column */
  uint32_t w[3];           /* the words the current segment unpacks */
  uint64_t d, r;           /* mixed-radix state */
  uint32_t slot[8];
} lane;

/* Move to the lane's next row that has nonzeros (rows without any are simply passed). */
static void settle(const dtans_layout *v, const int64_t *row_ptr, lane *x) {
  while (x->left == 0 && x->row + DTANS_LANES < x->stop) {
    x->row += DTANS_LANES;
    x->left = dtans_coded_len(dtans_row_nnz(v->row_nnz, v->row_nnz_bytes, x->row));
    x->at = row_ptr[x->row];
  }
}

#define CORRUPT(...) zsi_error(ZS_ERR_CORRUPT, __VA_ARGS__)

zs_status dtans_decode_slice(const dtans_layout *v, const dtans_slot *dtab, const dtans_slot *vtab,
                             int64_t s, const int64_t *row_ptr, int64_t raw_start, int32_t *col,
                             void *val) {
  const int coded = v->value_mode == DTANS_VALUES_CODED;
  const int joint = v->value_mode == DTANS_VALUES_JOINT;
  const size_t es = zs_type_size(v->type);
  const int64_t stop = v->slice_rows[s + 1];
  int64_t cur = v->slice_words[s];
  const int64_t end = v->slice_words[s + 1];
  int64_t desc = v->slice_delta_esc[s];
  const int64_t dend = v->slice_delta_esc[s + 1];
  int64_t vesc = coded ? v->slice_value_esc[s] : 0;
  const int64_t vend = coded ? v->slice_value_esc[s + 1] : 0;
  lane L[DTANS_LANES];
  int64_t max_segs = 0;
  int64_t raw_at = raw_start, n[DTANS_LANES]; /* raw values: see dtans_raw_step */
  for (int l = 0; l < DTANS_LANES; l++) {
    lane *x = &L[l];
    const int64_t first = v->slice_rows[s] + l;
    x->n = 0;
    for (int64_t i = first; i < stop; i += DTANS_LANES)
      x->n += dtans_coded_len(dtans_row_nnz(v->row_nnz, v->row_nnz_bytes, i));
    x->segs = dtans_segments(x->n, coded);
    x->row = first, x->stop = stop, x->col = 0, x->d = 0, x->r = 1;
    x->left =
        first < stop ? dtans_coded_len(dtans_row_nnz(v->row_nnz, v->row_nnz_bytes, first)) : 0;
    x->at = first < stop ? row_ptr[first] : 0;
    settle(v, row_ptr, x);
    if (x->segs > max_segs) max_segs = x->segs;
    n[l] = x->n;
  }
  /* The first three words of every lane that has a segment, word k of all lanes together. */
  for (int k = 0; k < 3; k++)
    for (int l = 0; l < DTANS_LANES; l++)
      if (L[l].segs > 0) {
        if (cur >= end) return CORRUPT("dtans: slice %" PRId64 " stream ends early", s);
        L[l].w[k] = v->stream[cur++];
      }
  const int raw = v->value_mode == DTANS_VALUES_RAW;
  for (int64_t t = 0; t < max_segs; t++) {
    int lanes = 0, rank = 0;
    const int full = raw || v->columns ? dtans_raw_step(n, t, &lanes) : 0;
    int64_t before = 0; /* raw values of the step's earlier lanes */
    for (int l = 0; l < DTANS_LANES; l++) {
      lane *x = &L[l];
      if (t >= x->segs) continue;
      for (int k = 0; k < 8; k++) x->slot[k] = dtans_unpack(x->w[0], x->w[1], x->w[2], k);
      const int64_t per = coded ? 4 : 8, todo = x->n - t * per < per ? x->n - t * per : per;
      for (int64_t i = 0; i < todo; i++) { /* the rest of the last segment is padding */
        const dtans_slot e = dtab[x->slot[coded ? 2 * i : i]];
        int64_t delta;
        const void *src = NULL;
        if (e.id < v->delta_real) {
          delta = v->delta_symbols[e.id];
          if (joint) src = (const char *)v->value_symbols + (size_t)v->pair_values[e.id] * es;
        } else if (e.id == v->delta_real && v->delta_escape && desc < dend) {
          if (joint) src = (const char *)v->value_escapes + (size_t)desc * es;
          delta = v->columns ? 0 : v->delta_escapes[desc];
          desc++;
        } else
          return CORRUPT("dtans: slice %" PRId64 " row %" PRId64
                         ": a column delta decodes to a filler or a missing escape",
                         s, x->row);
        const int first = x->at == row_ptr[x->row];
        const int64_t at = raw_at + (full ? i * lanes + rank : before + i); /* raw layout */
        const int64_t c = v->columns ? v->columns[at] : first ? x->row + delta : x->col + delta;
        if ((!first && c <= x->col) || c < 0 || c >= v->cols)
          return CORRUPT("dtans: slice %" PRId64 " row %" PRId64 ": column %" PRId64
                         " is out of range or not ascending",
                         s, x->row, c);
        x->col = c;
        col[x->at] = (int32_t)c;
        if (joint) {
          /* src: the pair's value, found above */
        } else if (coded) {
          const dtans_slot f = vtab[x->slot[2 * i + 1]];
          if (f.id < v->value_real)
            src = (const char *)v->value_symbols + (size_t)f.id * es;
          else if (f.id == v->value_real && v->value_escape && vesc < vend)
            src = (const char *)v->value_escapes + (size_t)(vesc++) * es;
          else
            return CORRUPT("dtans: slice %" PRId64 " row %" PRId64
                           ": a value decodes to a filler or a missing escape",
                           s, x->row);
        } else {
          src = raw ? (const char *)v->values + (size_t)at * es : v->value_symbols;
        }
        memcpy((char *)val + (size_t)x->at * es, src, es);
        x->at++;
        if (--x->left == 0) settle(v, row_ptr, x);
      }
      rank++, before += todo;
    }
    raw_at += before;
    /* Words for segment t + 1: two checks that either take a word out of the state or load it,
     * then one load; each load step gives the loading lanes consecutive words in lane order. */
    for (int step = 0; step < 3; step++)
      for (int l = 0; l < DTANS_LANES; l++) {
        lane *x = &L[l];
        if (t + 1 >= x->segs) continue;
        if (step < 2) {
          const dtans_slot *tab1 = coded ? vtab : dtab;
          uint64_t D = 0, B = 1;
          for (int k = 4 * step; k < 4 * step + 4; k++) {
            const dtans_slot e = (k % 2 == 0 ? dtab : tab1)[x->slot[k]];
            D = D * (e.base_m1 + 1u) + e.digit, B *= e.base_m1 + 1u;
          }
          x->d = x->d * B + D, x->r *= B;
          if (x->r >= W32) {
            x->w[step] = (uint32_t)x->d, x->d >>= 32, x->r >>= 32;
            continue;
          }
        }
        if (cur >= end) return CORRUPT("dtans: slice %" PRId64 " stream ends early", s);
        x->w[step] = v->stream[cur++];
      }
  }
  if (cur != end)
    return CORRUPT("dtans: slice %" PRId64 " leaves %" PRId64 " stream words unread", s, end - cur);
  if (desc != dend || (coded && vesc != vend))
    return CORRUPT("dtans: slice %" PRId64 " leaves escapes unread", s);
  return ZS_OK;
}

#define COPY_AHEAD 8 /* rows */
zs_status dtans_copy_rows(zs_matrix *dst, const zs_matrix *src, const int32_t *rows,
                          const int32_t *map) {
  int64_t longest = 0;
  for (int64_t i = 0; map && i < src->rows; i++)
    if (src->row_ptr[i + 1] - src->row_ptr[i] > longest)
      longest = src->row_ptr[i + 1] - src->row_ptr[i];
  /* per thread, when renumbering: a row's sort keys (new column << 32 | place), the sort's second
   * buffer and, in place (dst == src), a copy of the row's values, in a multiple of 64 bytes so
   * that every thread's keys are aligned (f32 values are 4 bytes) */
  const size_t es = zs_type_size(src->type), copy = dst == src ? es : 0;
  const size_t per = ((size_t)(longest ? longest : 1) * (16 + copy) + 63) & ~(size_t)63;
  const int nt = zsi_omp_threads();
  char *scratch = map ? malloc((size_t)nt * per) : NULL;
  if (map && !scratch)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: column order of rows up to %" PRId64, longest);
  ZSI_OMP(parallel num_threads(nt) if (src->nnz > 65536)) {
    const int t = zsi_omp_tid();
    uint64_t *key = map ? (uint64_t *)(scratch + (size_t)t * per) : NULL;
    char *val = map && copy ? (char *)(key + 2 * (longest ? longest : 1)) : NULL;
    ZSI_OMP(for schedule(dynamic, 1024))
    for (int64_t r = 0; r < dst->rows; r++) {
      if (rows && r + 2 * COPY_AHEAD < dst->rows) { /* reordered rows are scattered: fetch early */
        __builtin_prefetch(&src->row_ptr[rows[r + 2 * COPY_AHEAD]]);
        const int64_t at = src->row_ptr[rows[r + COPY_AHEAD]];
        __builtin_prefetch(&src->col_idx[at]);
        __builtin_prefetch((const char *)src->values + (size_t)at * es);
      }
      const int64_t i = rows ? rows[r] : r, b = src->row_ptr[i], n = src->row_ptr[i + 1] - b;
      const int64_t d = dst->row_ptr[r];
      const char *sv = (const char *)src->values + (size_t)b * es;
      char *dv = (char *)dst->values + (size_t)d * es;
      if (!map) {
        memcpy(dst->col_idx + d, src->col_idx + b, (size_t)n * 4);
        memcpy(dv, sv, (size_t)n * es);
        continue;
      }
      for (int64_t k = 0; k < n; k++)
        key[k] = (uint64_t)(uint32_t)map[src->col_idx[b + k]] << 32 | (uint64_t)k;
      zsi_sort_row_keys(key, n, key + n);
      for (int64_t k = 0; k < n; k++) dst->col_idx[d + k] = (int32_t)(key[k] >> 32);
      if (dst == src) memcpy(val, sv, (size_t)n * es), sv = val; /* in place: read a copy */
      for (int64_t k = 0; k < n; k++)
        dtans_copy_value(dv + es * (size_t)k, sv + es * (key[k] & 0xffffffffu), es);
    }
  }
  free(scratch);
  return ZS_OK;
}

zs_status dtans_ordered_copy(const zs_matrix *A, const int32_t *rows, const int32_t *map,
                             zs_matrix **P) {
  zs_status s = zsi_matrix_alloc(P, A->rows, A->cols, A->nnz, A->type);
  if (s != ZS_OK) return s;
  (*P)->row_ptr[0] = 0;
  for (int64_t r = 0; r < A->rows; r++) {
    const int64_t i = rows ? rows[r] : r;
    (*P)->row_ptr[r + 1] = (*P)->row_ptr[r] + (A->row_ptr[i + 1] - A->row_ptr[i]);
  }
  if ((s = dtans_copy_rows(*P, A, rows, map)) != ZS_OK) zs_matrix_destroy(P);
  return s;
}

/* Decode every slice into a matrix (validate keeps nothing, decode keeps it). */
static zs_status decode_all(const zs_encoded *E, zs_matrix **out) {
  if (param(E, "version", 0) == DTANS_VERSION_TEMPLATES) return dtans5_decode_all(E, out);
  dtans_layout v;
  zs_status s = dtans_layout_of(E, &v);
  if (s != ZS_OK) return s;
  static _Thread_local dtans_slot dtab[DTANS_K], vtab[DTANS_K];
  dtans_build_table(v.delta_counts, v.delta_entries, dtab);
  if (v.value_mode == DTANS_VALUES_CODED) dtans_build_table(v.value_counts, v.value_entries, vtab);
  zs_matrix *A;
  if ((s = zsi_matrix_alloc(&A, E->rows, E->cols, E->nnz, E->type)) != ZS_OK) return s;
  /* Encoded row r goes to the matrix's row P(r) (version 3), whose nonzeros start at start[r]. */
  int64_t *start = v.row_perm ? malloc(((size_t)E->rows + 1) * sizeof *start) : A->row_ptr;
  if (!start) {
    zs_matrix_destroy(&A);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: row offsets");
  }
  dtans_matrix_row_ptr(v.row_nnz, v.row_nnz_bytes, v.long_ptr, v.row_perm, E->rows, A->row_ptr);
  if (v.row_perm) {
    for (int64_t r = 0; r < E->rows; r++) start[r] = A->row_ptr[v.row_perm[r]];
    start[E->rows] = E->nnz;
  }
  /* Slices decode independently (each writes its own rows), in parallel; the first slice that
   * fails is decoded again on this thread for its message, so errors do not depend on threads. */
  int64_t *raw = malloc(((size_t)v.slices + 1) * sizeof *raw), first_bad = v.slices;
  if (!raw) {
    if (start != A->row_ptr) free(start);
    zs_matrix_destroy(&A);
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "dtans: slice offsets");
  }
  dtans_coded_before_slices(v.row_nnz, v.row_nnz_bytes, v.slice_rows, v.slices, raw);
  const dtans_slot *dt = dtab, *vt = vtab; /* this thread's tables, for every thread */
  ZSI_OMP(parallel for schedule(dynamic, 16) num_threads(zsi_omp_threads()) if (v.slices > 16))
  for (int64_t sl = 0; sl < v.slices; sl++)
    if (dtans_decode_slice(&v, dt, vt, sl, start, raw[sl], A->col_idx, A->values)) {
      ZSI_OMP(critical(dtans_first_bad))
      if (sl < first_bad) first_bad = sl;
    }
  if (first_bad < v.slices)
    s = dtans_decode_slice(&v, dtab, vtab, first_bad, start, raw[first_bad], A->col_idx, A->values);
  free(raw);
  const size_t es = zs_type_size(E->type);
  for (int64_t k = 0; k < v.n_long && s == ZS_OK; k++) {
    const int64_t r = v.long_rows[k], at = start[r];
    for (int64_t j = v.long_ptr[k]; j < v.long_ptr[k + 1]; j++) {
      const int32_t c = v.long_cols[j];
      if (c < 0 || c >= E->cols || (j > v.long_ptr[k] && c <= v.long_cols[j - 1])) {
        s = zsi_error(ZS_ERR_CORRUPT,
                      "dtans: long_cols[%" PRId64 "] = %" PRId32 " (row %" PRId64
                      ") is out of range or not ascending",
                      j, c, r);
        break;
      }
      A->col_idx[at + j - v.long_ptr[k]] = c;
    }
    memcpy((char *)A->values + (size_t)at * es,
           (const char *)v.long_values + (size_t)v.long_ptr[k] * es,
           (size_t)(v.long_ptr[k + 1] - v.long_ptr[k]) * es);
  }
  if (start != A->row_ptr) free(start);
  if (s == ZS_OK && out && v.col_perm) s = dtans_copy_rows(A, A, NULL, v.col_perm);
  if (s != ZS_OK || !out) {
    zs_matrix_destroy(&A);
    return s;
  }
  *out = A;
  return ZS_OK;
}

static zs_status dtans_validate(const zs_encoded *E) { return decode_all(E, NULL); }

static zs_status dtans_decode(const zs_encoded *E, zs_matrix **out) { return decode_all(E, out); }

static void dtans_stats(const zs_encoded *E, zs_stat_fn emit, void *ctx) {
  uint64_t table = 0, rows = 0, esc = 0, stream = 0, raw = 0, offsets = 0, columns = 0, order = 0;
  for (int i = 0; i < E->n_arrays; i++) {
    const zsi_array *a = &E->arrays[i];
    const uint64_t b = a->count * a->elem_size;
    if (strncmp(a->name, "long_", 5) == 0)
      raw += b;
    else if (strstr(a->name, "counts") || strstr(a->name, "symbols") ||
             strcmp(a->name, "pair_values") == 0)
      table += b;
    else if (strncmp(a->name, "template_", 9) == 0) /* version 5's dictionary */
      table += b;
    else if (strcmp(a->name, "row_nnz") == 0 || strcmp(a->name, "row_perm") == 0 ||
             strcmp(a->name, "row_template") == 0)
      rows += b;
    else if (strncmp(a->name, "slice_", 6) == 0)
      offsets += b;
    else if (strstr(a->name, "escapes"))
      esc += b;
    else if (strcmp(a->name, "stream") == 0 || strcmp(a->name, "value_words") == 0)
      stream += b;
    else if (strcmp(a->name, "columns") == 0)
      columns += b;
    else if (strcmp(a->name, "col_perm") == 0)
      order += b;
    else
      raw += b;
  }
  const double symbols = (double)param(E, "coded_symbols", 0);
  const double bound = (double)param(E, "bound_bits", 0);
  emit(ctx, "value_mode", (double)param(E, "value_mode", -1));
  emit(ctx, "column_mode", (double)param(E, "column_mode", DTANS_COLUMNS_DELTAS));
  emit(ctx, "coded_symbols", symbols);
  emit(ctx, "cross_entropy_bits_per_symbol", symbols > 0 ? bound / symbols : 0);
  emit(ctx, "stream_bound_bytes", bound / 8);
  emit(ctx, "stream_bytes", (double)stream);
  emit(ctx, "stream_over_bound", bound > 0 ? 8.0 * (double)stream / bound : 0);
  emit(ctx, "predicted_bytes", (double)param(E, "predicted_bytes", 0));
  emit(ctx, "actual_bytes",
       (double)(table + rows + esc + stream + raw + offsets + columns + order));
  emit(ctx, "table_bytes", (double)table);
  emit(ctx, "row_length_bytes", (double)rows);
  emit(ctx, "slice_offset_bytes", (double)offsets);
  emit(ctx, "escape_bytes", (double)esc);
  emit(ctx, "raw_value_bytes", (double)raw); /* raw values and the long rows' plain CSR */
  emit(ctx, "raw_column_bytes", (double)columns);
  emit(ctx, "column_order_bytes", (double)order); /* col_perm (versions 4 and 5) */
  const zsi_array *lr = zsi_encoded_array(E, "long_rows"), *lc = zsi_encoded_array(E, "long_cols");
  emit(ctx, "long_rows", lr ? (double)lr->count : 0);
  emit(ctx, "long_row_nonzeros", lc ? (double)lc->count : 0);
}

const zsi_format_ops zsi_format_dtans = {ZS_FORMAT_DTANS, "dtans",      dtans_encode,
                                         dtans_validate,  dtans_decode, dtans_stats};
