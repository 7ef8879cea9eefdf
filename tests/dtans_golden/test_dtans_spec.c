/* test_dtans_spec.c — a second CSR-dtANS decoder, written from docs/formats/dtans.md alone (bit by
 * bit unpack, plain tables, no library code), must agree with the reference decoder on every
 * value mode, rows per lane and escape mix: the page stays precise enough to decode with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/zs_internal.h"
#include "tests/common/blob_parts.h"
#include "tests/common/check.h"

static const zsi_array *array(const zs_encoded *E, const char *name) {
  for (int i = 0; i < E->n_arrays; i++)
    if (!strcmp(E->arrays[i].name, name)) return &E->arrays[i];
  fprintf(stderr, "spec decoder: array '%s' missing\n", name);
  check_failures++;
  return NULL;
}

static const zsi_array *optional_array(const zs_encoded *E, const char *name) {
  for (int i = 0; i < E->n_arrays; i++)
    if (!strcmp(E->arrays[i].name, name)) return &E->arrays[i];
  return NULL;
}

/* row_nnz of a row stored apart as plain CSR (long_rows, long_ptr, long_cols, long_values). */
#define LONG_ROW UINT32_MAX

/* "row_nnz: one unsigned little-endian length a row, in 1, 2 or 4 bytes (the array's element
 * size); the element's all-ones value marks a long row" */
static uint32_t row_length(const zsi_array *a, int64_t i) {
  const unsigned char *p = (const unsigned char *)a->data + (size_t)i * a->elem_size;
  uint32_t n = 0, ones = 0;
  for (uint32_t b = 0; b < a->elem_size; b++)
    n |= (uint32_t)p[b] << (8 * b), ones |= 0xFFu << (8 * b);
  return n == ones ? LONG_ROW : n;
}

typedef struct entry {
  unsigned id, digit, base;
} entry;

/* "Slot table": the digit-th copy of id j sits in ((start_j + digit) * 2563) mod 4096. */
static void build_table(const zsi_array *counts, entry *t) {
  const uint16_t *c = counts->data;
  unsigned start = 0;
  for (unsigned id = 0; id < counts->count; id++) {
    for (unsigned d = 0; d < c[id]; d++) t[((start + d) * 2563u) % 4096u] = (entry){id, d, c[id]};
    start += c[id];
  }
}

/* "unpack": slot k is bits 12k .. 12k+11 of w0 + w1 * 2^32 + w2 * 2^64. */
static unsigned unpack(const uint32_t w[3], int k) {
  unsigned v = 0;
  for (int b = 0; b < 12; b++) {
    const int bit = 12 * k + b;
    v |= ((w[bit / 32] >> (bit % 32)) & 1u) << b;
  }
  return v;
}

/* The slices as row ranges: `slice_rows` when the blob has it, else uniform slices of 32·R rows
 * (`rows_per_lane`, the layout before slice_rows). */
static void slice_bounds(const zs_encoded *E, int64_t *slices, int64_t **bounds) {
  const zsi_array *sr = optional_array(E, "slice_rows");
  if (sr) {
    *slices = (int64_t)sr->count - 1;
    *bounds = malloc(sr->count * 8);
    memcpy(*bounds, sr->data, sr->count * 8);
    return;
  }
  const int64_t R = zs_test_param(E, "rows_per_lane");
  *slices = (E->rows + 32 * R - 1) / (32 * R);
  *bounds = malloc((size_t)(*slices + 1) * 8);
  for (int64_t s = 0; s <= *slices; s++) (*bounds)[s] = s * 32 * R < E->rows ? s * 32 * R : E->rows;
}

typedef struct csr {
  int64_t *row_ptr;
  int32_t *col;
  unsigned char *val;
} csr;

/* "Encoded row r is the matrix's row row_perm[r]" and "encoded column c is the matrix's column
 * col_perm[c]" (versions 3 and 4, and version 5 when it carries them): out, decoded by encoded
 * row and column, goes to the matrix's order. */
static void spec_orders(const zs_encoded *E, int64_t rows, size_t es, csr *out) {
  int64_t *rp = out->row_ptr;
  const zsi_array *perm_a = optional_array(E, "row_perm");
  if (perm_a) {
    const int32_t *perm = perm_a->data;
    int64_t *orp = calloc((size_t)rows + 1, 8);
    int32_t *ocol = malloc((size_t)rp[rows] * 4 + 4);
    unsigned char *oval = malloc((size_t)rp[rows] * es + 8);
    for (int64_t i = 0; i < rows; i++) orp[perm[i] + 1] = rp[i + 1] - rp[i];
    for (int64_t i = 0; i < rows; i++) orp[i + 1] += orp[i];
    for (int64_t i = 0; i < rows; i++) {
      memcpy(ocol + orp[perm[i]], out->col + rp[i], (size_t)(rp[i + 1] - rp[i]) * 4);
      memcpy(oval + (size_t)orp[perm[i]] * es, out->val + (size_t)rp[i] * es,
             (size_t)(rp[i + 1] - rp[i]) * es);
    }
    free(rp), free(out->col), free(out->val);
    out->row_ptr = orp, out->col = ocol, out->val = oval;
  }
  /* "Version 4: encoded column c is the matrix's column col_perm[c]: a decoder maps each nonzero's
   * column through col_perm and puts each row's nonzeros in ascending order of the matrix's column
   * again (the values travel with their columns)" */
  const zsi_array *cperm_a = optional_array(E, "col_perm");
  if (cperm_a) {
    const int32_t *cperm = cperm_a->data;
    unsigned char tmp[8];
    for (int64_t i = 0; i < rows; i++)
      for (int64_t k = out->row_ptr[i]; k < out->row_ptr[i + 1]; k++) {
        const int32_t c = cperm[out->col[k]]; /* insertion sort, k's nonzero into place */
        memcpy(tmp, out->val + (size_t)k * es, es);
        int64_t q = k;
        for (; q > out->row_ptr[i] && out->col[q - 1] > c; q--) {
          out->col[q] = out->col[q - 1];
          memcpy(out->val + (size_t)q * es, out->val + (size_t)(q - 1) * es, es);
        }
        out->col[q] = c;
        memcpy(out->val + (size_t)q * es, tmp, es);
      }
  }
}

/* Decode E following the page; returns 0, or -1 when the stream does not end where it should. */
static int spec_decode(const zs_encoded *E, csr *out) {
  const int64_t rows = E->rows, mode = zs_test_param(E, "value_mode");
  const size_t es = E->type == ZS_F64 ? 8 : 4;
  const int coded = mode == 0, joint = mode == 3;
  const zsi_array *lengths = array(E, "row_nnz");
  const uint32_t *stream = array(E, "stream")->data;
  const int64_t *slice_words = array(E, "slice_words")->data;
  const int64_t *slice_desc = array(E, "slice_delta_escapes")->data;
  const int32_t *dsym = array(E, "delta_symbols")->data, *desc = array(E, "delta_escapes")->data;
  const unsigned dreal = (unsigned)zs_test_param(E, "delta_real");
  static entry dt[4096], vt[4096];
  build_table(array(E, "delta_counts"), dt);
  const int64_t *slice_vesc = coded ? array(E, "slice_value_escapes")->data : NULL;
  const unsigned char *vsym = mode != 2 ? array(E, "value_symbols")->data : NULL;
  const unsigned char *vesc = coded || joint ? array(E, "value_escapes")->data : NULL;
  const uint16_t *pair_values = joint ? array(E, "pair_values")->data : NULL;
  const unsigned char *raw = mode == 2 ? array(E, "values")->data : NULL;
  /* "column_mode 1: each coded nonzero's column is read from `columns`, laid out as raw values" */
  const int32_t *columns = zs_test_param(E, "column_mode") == 1 ? array(E, "columns")->data : NULL;
  const unsigned vreal = coded ? (unsigned)zs_test_param(E, "value_real") : 0;
  if (coded) build_table(array(E, "value_counts"), vt);
  const zsi_array *long_rows = optional_array(E, "long_rows");
  const int32_t *lrows = long_rows ? long_rows->data : NULL;
  const int64_t n_long = long_rows ? (int64_t)long_rows->count : 0;
  const int64_t *lptr = n_long ? array(E, "long_ptr")->data : NULL;
  const int32_t *lcols = n_long ? array(E, "long_cols")->data : NULL;
  const unsigned char *lvals = n_long ? array(E, "long_values")->data : NULL;
  int64_t *rp = calloc((size_t)rows + 1, 8);
  uint32_t *coded_len =
      malloc((size_t)rows * 4 + 4); /* what the lanes decode: none of a long row */
  for (int64_t i = 0, k = 0; i < rows; i++) {
    const uint32_t n = row_length(lengths, i);
    rp[i + 1] = rp[i] + (n == LONG_ROW ? lptr[k + 1] - lptr[k] : n);
    k += n == LONG_ROW;
    coded_len[i] = n == LONG_ROW ? 0 : n;
  }
  out->row_ptr = rp;
  out->col = malloc((size_t)rp[rows] * 4 + 4), out->val = malloc((size_t)rp[rows] * es + 8);
  int64_t raw_at = 0; /* raw values: slice after slice, segment step after step */
  int64_t slices, *bounds;
  slice_bounds(E, &slices, &bounds);
  for (int64_t s = 0; s < slices; s++) {
    const int64_t first = bounds[s], stop = bounds[s + 1];
    int64_t cur = slice_words[s], de = slice_desc[s], ve = coded ? slice_vesc[s] : 0;
    int64_t n[32], segs[32], max_segs = 0, *pos[32], *row[32];
    uint32_t w[32][3];
    uint64_t d[32], r[32];
    for (int l = 0; l < 32; l++) { /* lane l: rows first + l + 32j below stop, chained */
      n[l] = 0;
      for (int64_t i = first + l; i < stop; i += 32) n[l] += coded_len[i];
      pos[l] = malloc((size_t)n[l] * 8 + 8), row[l] = malloc((size_t)n[l] * 8 + 8);
      int64_t q = 0;
      for (int64_t i = first + l; i < stop; i += 32)
        for (int64_t k = rp[i]; k < rp[i] + coded_len[i]; k++) pos[l][q] = k, row[l][q++] = i;
      segs[l] = coded ? (n[l] + 3) / 4 : (n[l] + 7) / 8;
      if (segs[l] > max_segs) max_segs = segs[l];
      d[l] = 0, r[l] = 1;
    }
    for (int k = 0; k < 3; k++)
      for (int l = 0; l < 32; l++)
        if (segs[l]) w[l][k] = stream[cur++];
    for (int64_t t = 0; t < max_segs; t++) {
      unsigned slot[32][8];
      /* "a full step stores its raw values position-major, any other in decoding order" */
      int64_t step_lanes = 0, step_values = 0, full = 1, r_lane = 0, r_before = 0;
      for (int l = 0; l < 32; l++)
        if (segs[l] > t) {
          const int64_t m = n[l] - 8 * t < 8 ? n[l] - 8 * t : 8;
          step_lanes++, step_values += m, full = full && m == 8;
        }
      for (int l = 0; l < 32; l++) {
        if (t >= segs[l]) continue;
        for (int k = 0; k < 8; k++) slot[l][k] = unpack(w[l], k);
        const int per = coded ? 4 : 8;
        for (int i = 0; i < per && t * per + i < n[l]; i++) {
          const int64_t q = t * per + i, p = pos[l][q], rw = row[l][q];
          const entry e = dt[slot[l][coded ? 2 * i : i]];
          const int64_t at = raw_at + (full ? i * step_lanes + r_lane : r_before + i);
          const int64_t delta = e.id < dreal ? dsym[e.id] : columns ? 0 : desc[de];
          out->col[p] = columns       ? columns[at]
                        : p == rp[rw] ? (int32_t)(rw + delta)
                                      : (int32_t)(out->col[p - 1] + delta);
          const unsigned char *src;
          if (joint) { /* "an escaped pair has an entry in both escape arrays" */
            src = e.id < dreal ? vsym + pair_values[e.id] * es : vesc + de * es;
          } else if (coded) {
            const entry f = vt[slot[l][2 * i + 1]];
            src = f.id < vreal ? vsym + f.id * es : vesc + (ve++) * es;
          } else {
            src = mode == 1 ? vsym : raw + at * es;
          }
          de += e.id >= dreal;
          memcpy(out->val + p * es, src, es);
        }
        r_lane++, r_before += coded ? 0 : (n[l] - 8 * t < 8 ? n[l] - 8 * t : 8);
      }
      if (mode == 2 || columns) raw_at += step_values;
      for (int step = 0; step < 3; step++)
        for (int l = 0; l < 32; l++) {
          if (t + 1 >= segs[l]) continue;
          if (step < 2) {
            uint64_t D = 0, B = 1;
            for (int k = 4 * step; k < 4 * step + 4; k++) {
              const entry e = coded && (k & 1) ? vt[slot[l][k]] : dt[slot[l][k]];
              D = D * e.base + e.digit, B *= e.base;
            }
            d[l] = d[l] * B + D, r[l] *= B;
            if (r[l] >= (UINT64_C(1) << 32)) {
              w[l][step] = (uint32_t)d[l], d[l] >>= 32, r[l] >>= 32;
              continue;
            }
          }
          w[l][step] = stream[cur++];
        }
    }
    for (int l = 0; l < 32; l++) free(pos[l]), free(row[l]);
    if (cur != slice_words[s + 1] || de != slice_desc[s + 1] || (coded && ve != slice_vesc[s + 1]))
      return free(coded_len), free(bounds), -1;
  }
  for (int64_t k = 0; k < n_long; k++) {
    const int64_t at = rp[lrows[k]], len = lptr[k + 1] - lptr[k];
    memcpy(out->col + at, lcols + lptr[k], (size_t)len * 4);
    memcpy(out->val + (size_t)at * es, lvals + (size_t)lptr[k] * es, (size_t)len * es);
  }
  free(coded_len), free(bounds);
  spec_orders(E, rows, es, out);
  return 0;
}

/* Whether the spec decoder's CSR differs from the reference decoder's matrix B, bit for bit. */
static int differs(const csr *got, const zs_matrix *B) {
  const int64_t *rp;
  const int32_t *ci;
  const void *vals;
  zs_matrix_csr(B, &rp, &ci, &vals);
  const size_t nnz = (size_t)zs_matrix_nnz(B);
  return memcmp(got->row_ptr, rp, (size_t)(zs_matrix_rows(B) + 1) * 8) ||
         memcmp(got->col, ci, nnz * 4) ||
         memcmp(got->val, vals, nnz * zs_type_size(zs_matrix_type(B)));
}

/* The matrix of n triplets (v read as `type`: converted in place for f32) in *A, encoded with
 * `options`, and the reference decoder's matrix in *B; the blob (NULL on failure). */
static zs_encoded *encoded(int64_t rows, int64_t cols, int64_t n, const int64_t *r,
                           const int64_t *c, double *v, zs_type type, const char *options,
                           zs_matrix **A, zs_matrix **B) {
  zs_encoded *E = NULL;
  if (type == ZS_F32)
    for (int64_t k = 0; k < n; k++) ((float *)v)[k] = (float)v[k];
  CHECK_STATUS(zs_matrix_from_coo(A, rows, cols, n, r, c, v, type, 0), ZS_OK);
  if (*A) CHECK_STATUS(zs_encode(&E, *A, ZS_FORMAT_DTANS, options), ZS_OK);
  if (E) CHECK_STATUS(zs_decode(B, E), ZS_OK);
  return E;
}

/* Version 5 ("Version 5: template rows"): row i's template t = row_template[i] (all ones: a long
 * row), its k-th nonzero in column i + template_offsets[template_ptr[t] + k]; entry (k, l) of slice
 * s = i / 32, l = i mod 32 from values[slice_values[s] + 32k + l] (raw), from the b-bit id at bits
 * b·m … of value_words[slice_value_words[s] + 32j + l], k = p·j + m (packed, b = ceil(log2
 * value_real), p = floor(32 / b)), or value_symbols[0] (constant). A packed row (entry T + n, T
 * templates) has n nonzeros whose columns are fields of c = slice_col_bits[s] bits, bit by bit
 * from lane l's words col_words[slice_col_words[s] + 32j + l] (bit q of the lane's string is bit
 * q mod 32 of word q / 32): column_0 = i + slice_col_base[s] + f_0, column_k = column_(k−1) + 1 +
 * f_k. */
static int spec5_decode(const zs_encoded *E, csr *out) {
  const int64_t rows = E->rows, mode = zs_test_param(E, "value_mode");
  const size_t es = E->type == ZS_F64 ? 8 : 4;
  const zsi_array *ids = array(E, "row_template");
  const int64_t *tptr = array(E, "template_ptr")->data;
  const int32_t *toff = array(E, "template_offsets")->data;
  const int64_t *lptr = array(E, "long_ptr")->data;
  const int32_t *lcols = array(E, "long_cols")->data;
  const unsigned char *lvals = array(E, "long_values")->data;
  const int64_t *at = mode == 2   ? array(E, "slice_values")->data
                      : mode == 4 ? array(E, "slice_value_words")->data
                                  : NULL;
  const unsigned char *raw = mode == 2 ? array(E, "values")->data : NULL;
  const uint32_t *words = mode == 4 ? array(E, "value_words")->data : NULL;
  const unsigned char *dict = mode != 2 ? array(E, "value_symbols")->data : NULL;
  const int64_t templates = zs_test_param(E, "templates"),
                packed = zs_test_param(E, "packed_rows") > 0;
  const int64_t *cat = packed ? array(E, "slice_col_words")->data : NULL;
  const uint32_t *cwords = packed ? array(E, "col_words")->data : NULL;
  const uint8_t *cbits = packed ? array(E, "slice_col_bits")->data : NULL;
  const int32_t *cbase = packed ? array(E, "slice_col_base")->data : NULL;
  const int64_t real = mode == 4 ? zs_test_param(E, "value_real") : 1;
  int b = 0;
  while ((INT64_C(1) << b) < real) b++;
  const int p = b ? 32 / b : 0;
  out->row_ptr = calloc((size_t)rows + 1, 8);
  for (int64_t i = 0, k = 0; i < rows; i++) {
    const uint32_t t = row_length(ids, i);
    const int64_t n = t == LONG_ROW            ? lptr[k + 1] - lptr[k]
                      : (int64_t)t < templates ? tptr[t + 1] - tptr[t]
                                               : (int64_t)t - templates;
    k += t == LONG_ROW;
    out->row_ptr[i + 1] = out->row_ptr[i] + n;
  }
  const int64_t nnz = out->row_ptr[rows];
  out->col = malloc((size_t)(nnz ? nnz : 1) * 4);
  out->val = malloc((size_t)(nnz ? nnz : 1) * es);
  for (int64_t i = 0, lk = 0; i < rows; i++) {
    const uint32_t t = row_length(ids, i);
    const int64_t o = out->row_ptr[i], n = out->row_ptr[i + 1] - o, s = i / 32, l = i % 32;
    int64_t column = packed ? i + cbase[s] : 0; /* packed: column_(k-1) + 1 */
    for (int64_t k = 0; k < n; k++) {
      if (t == LONG_ROW) {
        out->col[o + k] = lcols[lptr[lk] + k];
        memcpy(out->val + (o + k) * es, lvals + (lptr[lk] + k) * es, es);
        continue;
      }
      if (t != LONG_ROW && (int64_t)t >= templates) {
        uint64_t f = 0;
        for (int bit = 0; bit < cbits[s]; bit++) {
          const uint64_t q = (uint64_t)k * cbits[s] + (uint64_t)bit;
          f |= (uint64_t)(cwords[cat[s] + 32 * (int64_t)(q / 32) + l] >> (q % 32) & 1u) << bit;
        }
        column += (int64_t)f;
        out->col[o + k] = (int32_t)column++;
      } else {
        out->col[o + k] = (int32_t)(i + toff[tptr[t] + k]);
      }
      const unsigned char *v = dict;
      if (mode == 2) v = raw + (size_t)(at[s] + 32 * k + l) * es;
      if (mode == 4) {
        const uint32_t w = words[at[s] + 32 * (k / p) + l];
        unsigned id = 0;
        for (int bit = 0; bit < b; bit++) id |= ((w >> (b * (k % p) + bit)) & 1u) << bit;
        v = dict + (size_t)id * es;
      }
      memcpy(out->val + (o + k) * es, v, es);
    }
    lk += t == LONG_ROW;
  }
  spec_orders(E, rows, es, out);
  return 0;
}

/* Version 5 trials: rows drawn from a few patterns around the diagonal (and some random ones),
 * every value mode, long rows apart, several slices and a partial last one. */
static uint64_t next(void);
static void version5_cases(void) {
  static const char *const opts[] = {"templates=on",
                                     "templates=on,values=raw",
                                     "values=packed",
                                     "templates=on,long_rows=6",
                                     "templates=on,values=constant",
                                     "row_kind=packed",
                                     "row_kind=packed,values=raw,long_rows=7",
                                     "row_kind=packed,row_order=length,col_order=frequency",
                                     "row_kind=packed,values=raw,row_order=length,long_rows=7"};
  int seen[7] = {0};
  for (int trial = 0; trial < 72; trial++) {
    const int o = trial % 9, constant = o == 4;
    const int64_t rows = 1 + (int64_t)(next() % 200), cols = rows + 8;
    int64_t *r = malloc((size_t)rows * 12 * 8), *c = malloc((size_t)rows * 12 * 8), n = 0;
    double *v = malloc((size_t)rows * 12 * 8);
    for (int64_t i = 0; i < rows; i++) {
      const uint64_t pattern = next() % 5; /* 4: a random row, else a pattern of its own */
      for (int64_t d = -4; d <= 8; d++)
        if (pattern == 4 ? next() % 3 == 0 : (uint64_t)(d + 4) % (pattern + 2) == 0)
          if (i + d >= 0 && i + d < cols) {
            r[n] = i, c[n] = i + d;
            v[n++] = constant ? 2.5 : (double)(next() % (trial % 2 ? 7 : 3000)) / 8;
          }
    }
    zs_matrix *A = NULL, *B = NULL;
    zs_encoded *E =
        encoded(rows, cols, n, r, c, v, trial % 3 == 1 ? ZS_F32 : ZS_F64, opts[o], &A, &B);
    if (E && zs_test_param(E, "version") != 5) {
      fprintf(stderr, "version 5 trial %d (%s): version %lld\n", trial, opts[o],
              (long long)zs_test_param(E, "version"));
      check_failures++;
    } else if (B) {
      const int64_t mode = zs_test_param(E, "value_mode");
      seen[mode == 1 ? 0 : mode == 2 ? 1 : 2] = 1;
      seen[3] |= array(E, "long_rows")->count > 0;
      seen[4] |= rows > 32;
      seen[5] |= zs_test_param(E, "packed_rows") > 0;
      seen[6] |= optional_array(E, "row_perm") && optional_array(E, "col_perm");
      csr got = {NULL, NULL, NULL};
      spec5_decode(E, &got);
      if (differs(&got, B)) {
        fprintf(stderr, "version 5 trial %d (%s): the spec decoder and the reference differ\n",
                trial, opts[o]);
        check_failures++;
      }
      free(got.row_ptr), free(got.col), free(got.val);
    }
    zs_matrix_destroy(&A), zs_matrix_destroy(&B);
    zs_encoded_destroy(&E);
    free(r), free(c), free(v);
  }
  static const char *const what[] = {"constant values",
                                     "raw values",
                                     "packed ids",
                                     "long rows",
                                     "several slices",
                                     "packed rows",
                                     "rows and columns in another order"};
  for (int k = 0; k < 7; k++)
    if (!seen[k]) {
      fprintf(stderr, "the version 5 cases never produced %s\n", what[k]);
      check_failures++;
    }
}

static uint64_t rng = 0x853c49e6748fea9bu;
static uint64_t next(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return rng;
}

/* Random matrices: banded or scattered columns, few / many / one distinct value, some long rows,
 * encoded under each option set and both value types. */
static void random_cases(void) {
  static const char *const opts[] = {
      NULL,
      "values=raw",
      "rows_per_lane=1",
      "rows_per_lane=3",
      "values=coded,rows_per_lane=2",
      "lane_symbols=8",
      "values=constant",
      "long_rows=12",
      "values=raw,long_rows=5",
      "values=coded,long_rows=9,rows_per_lane=2",
      "values=joint",
      "values=joint,long_rows=9,rows_per_lane=2",
      "lane_symbols=8,guided=4",
      "row_order=length",
      "values=raw,row_order=length,long_rows=5",
      "values=joint,row_order=length,rows_per_lane=2",
      "columns=raw",
      "values=joint,columns=raw,long_rows=9,rows_per_lane=2",
      "columns=raw,row_order=length,lane_symbols=8",
      "row_bytes=2",
      "values=raw,row_bytes=4,long_rows=5",
      "col_order=frequency",
      "values=joint,col_order=frequency,row_order=length,long_rows=5"};
  const int n_opts = (int)(sizeof opts / sizeof *opts);
  /* coded, constant, raw; several slices; delta escapes; value escapes; chained rows; long rows;
   * slices of different lengths (not counting the last) */
  int seen[18] = {0};
  for (int trial = 0; trial < 96; trial++) {
    const int o = trial % n_opts;
    int kind = opts[o] && strstr(opts[o], "constant") ? 2 : (trial + trial / n_opts) % 3;
    if (kind == 2 && opts[o] && strstr(opts[o], "columns") && !strstr(opts[o], "joint"))
      kind = 1; /* columns=raw is refused on one constant value */
    /* Joint pairs escape when their value is not among the 4096 most frequent: many values. */
    const int many =
        kind == 1 && opts[o] && (strstr(opts[o], "joint") || strstr(opts[o], "columns"));
    const int64_t rows = many ? 2000 : 1 + (int64_t)(next() % 300);
    const int64_t cols = 1 + (int64_t)(next() % 500);
    int64_t cap = rows * 40 + 1, n = 0;
    int64_t *r = malloc((size_t)cap * 8), *c = malloc((size_t)cap * 8);
    double *v = malloc((size_t)cap * 8);
    for (int64_t i = 0; i < rows; i++) {
      const int64_t len = (int64_t)(next() % (i % 17 == 5 ? 40 : 8));
      for (int64_t k = 0; k < len; k++) {
        r[n] = i;
        c[n] = trial % 2 ? (int64_t)(next() % (uint64_t)cols)
                         : (i + (int64_t)(next() % 9) - 4 + 8 * cols) % cols;
        if (kind == 2) { /* distinct columns: summed duplicates would make other values */
          if (k >= cols) break;
          c[n] = (7 * i + k) % cols;
        }
        v[n++] = kind == 0   ? (double)(next() % 5) - 2
                 : kind == 1 ? (double)(next() % (many ? 100000 : 3000)) / 8
                             : 1.5;
      }
    }
    if (n == 0) r[n] = 0, c[n] = 0, v[n++] = 1.5; /* values=constant needs a value */
    const zs_type type = trial % 4 == 1 ? ZS_F32 : ZS_F64;
    zs_matrix *A = NULL, *B = NULL;
    zs_encoded *E = encoded(rows, cols, n, r, c, v, type, opts[o], &A, &B);
    if (E && zs_test_param(E, "version") != 5) { /* what the stream versions' trials cover */
      const int64_t mode = zs_test_param(E, "value_mode");
      int64_t slices, *bounds;
      slice_bounds(E, &slices, &bounds);
      seen[mode == 3 ? 9 : mode] = 1;
      seen[10] |= mode == 3 && array(E, "delta_escapes")->count > 0;
      seen[3] |= slices > 1;
      seen[4] |= array(E, "delta_escapes")->count > 0;
      seen[5] |= mode == 0 && array(E, "value_escapes")->count > 0;
      for (int64_t k = 0; k < slices; k++) seen[6] |= bounds[k + 1] - bounds[k] > 32;
      for (int64_t k = 1; k + 1 < slices; k++)
        seen[8] |= bounds[k + 1] - bounds[k] != bounds[1] - bounds[0];
      free(bounds);
      seen[7] |= optional_array(E, "long_rows") && optional_array(E, "long_rows")->count > 0;
      seen[11] |= optional_array(E, "row_perm") != NULL;
      seen[12] |= zs_test_param(E, "column_mode") == 1;
      seen[13] |= zs_test_param(E, "column_mode") == 1 && array(E, "value_escapes")->count > 0;
      const uint32_t width = array(E, "row_nnz")->elem_size;
      seen[width == 1 ? 14 : width == 2 ? 15 : 16] = 1;
      seen[17] |= optional_array(E, "col_perm") != NULL;
    }
    csr got = {NULL, NULL, NULL};
    /* defaults may take version 5 where it is smaller: its own part of the page */
    if (B &&
        (zs_test_param(E, "version") == 5 ? spec5_decode(E, &got) : spec_decode(E, &got)) != 0) {
      fprintf(stderr, "trial %d (%s): the spec decoder does not end the streams where they end\n",
              trial, opts[o] ? opts[o] : "defaults");
      check_failures++;
    } else if (B) {
      if (differs(&got, B)) {
        fprintf(stderr, "trial %d (%s): the spec decoder and the reference decoder differ\n", trial,
                opts[o] ? opts[o] : "defaults");
        check_failures++;
      }
    }
    free(got.row_ptr), free(got.col), free(got.val);
    zs_matrix_destroy(&A), zs_matrix_destroy(&B);
    zs_encoded_destroy(&E);
    free(r), free(c), free(v);
  }
  static const char *const what[] = {"coded values",
                                     "constant values",
                                     "raw values",
                                     "several slices",
                                     "delta escapes",
                                     "value escapes",
                                     "a lane with several rows",
                                     "long rows",
                                     "slices of different lengths",
                                     "joint (delta, value) pairs",
                                     "escaped pairs",
                                     "rows in another order (version 3)",
                                     "raw columns",
                                     "escaped pairs beside raw columns",
                                     "row lengths in 1 byte",
                                     "row lengths in 2 bytes",
                                     "row lengths in 4 bytes",
                                     "renumbered columns (version 4)"};
  for (int k = 0; k < 18; k++)
    if (!seen[k]) {
      fprintf(stderr, "the random cases never produced %s\n", what[k]);
      check_failures++;
    }
}

int main(void) {
  random_cases();
  version5_cases();
  CHECK_DONE();
}
