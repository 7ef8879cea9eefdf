/* sell.c — SELL-C-sigma: encode (sort rows by length in windows, cut slices, pad them), validate,
 * decode, stats. */
#include <inttypes.h>
#include <string.h>

#include "formats/sell/sell.h"
#include "formats/sell/sell_shape.h"

#define SELL_C_DEFAULT 32

zs_status zsi_sell_layout_of(const zs_encoded *E, sell_layout *L) {
  zsi_view_buf vb;
  char why[ZSI_LAYOUT_WHY];
  const zs_status s = sell_layout_parse(zsi_encoded_as_view(E, &vb), L, why, sizeof why);
  return s == ZS_OK ? ZS_OK : zsi_error(s, "%s", why);
}

/* Bytes of a row_len element: the smallest of 1, 2, 4 that holds the widest slice. */
static uint32_t len_bytes_for(int64_t max_width) {
  return max_width <= UINT8_MAX ? 1 : max_width <= UINT16_MAX ? 2 : 4;
}

/* order[p] = the row stored at position p (sell_shape.h's rule), with the scratch it needs. */
static zs_status sort_windows(const zs_matrix *A, int64_t sigma, int32_t *order) {
  const int64_t n = sigma < A->rows ? sigma : A->rows;
  uint64_t *key = zsi_alloc_array((uint64_t)(n ? n : 1), 8);
  uint64_t *tmp = zsi_alloc_array((uint64_t)(n ? n : 1), 8);
  if (!key || !tmp) {
    zsi_free(key), zsi_free(tmp);
    return zsi_oom("zs_encode sell: sorting window", 16 * (uint64_t)n);
  }
  sell_sort_windows(A->row_ptr, A->rows, sigma, order, key, tmp);
  zsi_free(key), zsi_free(tmp);
  return ZS_OK;
}

static zs_status sell_encode(const zs_matrix *A, const char *options, zs_encoded **out) {
  static const char *const known[] = {"c", "sigma", NULL};
  zs_status s = zsi_option_check(options, known, "sell");
  if (s != ZS_OK) return s;
  int64_t c = SELL_C_DEFAULT, sigma = 1;
  int found;
  if ((s = zsi_option_int(options, "c", 1, SELL_C_MAX, &c, &found)) != ZS_OK ||
      (s = zsi_option_int(options, "sigma", 1, SELL_SIGMA_MAX, &sigma, &found)) != ZS_OK)
    return s;
  if (c & (c - 1))
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "sell option 'c': %" PRId64 " is not a power of two in 1..%d", c, SELL_C_MAX);
  if (sigma > 1 && sigma % c)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT,
                     "sell option 'sigma': %" PRId64 " is not 1 or a multiple of c = %" PRId64,
                     sigma, c);
  const int64_t rows = A->rows, *rp = A->row_ptr, n_slices = (rows + c - 1) / c;
  const size_t es = zs_type_size(A->type);
  int32_t *order = NULL;
  if (sigma > 1) {
    if (!(order = zsi_alloc_array((uint64_t)(rows ? rows : 1), 4)))
      return zsi_oom("zs_encode sell: row order", 4 * (uint64_t)rows);
    if ((s = sort_windows(A, sigma, order)) != ZS_OK) {
      zsi_free(order);
      return s;
    }
  }
#define ROW_AT(p) (order ? (int64_t)order[p] : (p))
  /* Slice offsets from the widths (sell_shape.h); the stored entries must fit. */
  int64_t *ptr = zsi_alloc_array((uint64_t)n_slices + 1, 8), max_width = 0;
  if (!ptr) {
    zsi_free(order);
    return zsi_oom("zs_encode sell: slice offsets", 8 * ((uint64_t)n_slices + 1));
  }
  const int64_t past = sell_slice_offsets(rp, order, rows, c, SELL_ENTRIES_MAX, ptr, &max_width);
  if (past >= 0) {
    zsi_free(order), zsi_free(ptr);
    return zsi_error(ZS_ERR_UNSUPPORTED,
                     "sell: slice %" PRId64
                     " takes the stored entries past 2^62 (padding of "
                     "rows of very different lengths; try a larger sigma, or csr)",
                     past);
  }
  const int64_t entries = ptr[n_slices];
  const uint32_t lb = len_bytes_for(max_width);
  zs_encoded *E;
  void *sp, *len, *pm = NULL, *ci, *v;
  if ((s = zsi_encoded_new(&E, ZS_FORMAT_SELL, A->type, rows, A->cols, A->nnz)) != ZS_OK) {
    zsi_free(order), zsi_free(ptr);
    return s;
  }
  if ((s = zsi_encoded_add_param(E, "c", c)) != ZS_OK ||
      (s = zsi_encoded_add_param(E, "sigma", sigma)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "slice_ptr", 8, (uint64_t)n_slices + 1, &sp)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "row_len", lb, (uint64_t)rows, &len)) != ZS_OK ||
      (order && (s = zsi_encoded_add_array(E, "perm", 4, (uint64_t)rows, &pm)) != ZS_OK) ||
      (s = zsi_encoded_add_array(E, "col_idx", 4, (uint64_t)entries, &ci)) != ZS_OK ||
      (s = zsi_encoded_add_array(E, "values", (uint32_t)es, (uint64_t)entries, &v)) != ZS_OK) {
    zsi_free(order), zsi_free(ptr);
    zs_encoded_destroy(&E);
    return s;
  }
  int64_t *slice_ptr = sp;
  int32_t *col = ci;
  char *val = v;
  if (order) memcpy(pm, order, (size_t)rows * 4);
  memcpy(slice_ptr, ptr, ((size_t)n_slices + 1) * 8);
  for (int64_t sl = 0; sl < n_slices; sl++) {
    const int64_t off = ptr[sl], w = (ptr[sl + 1] - off) / c;
    /* Positions past the last row (a partial last slice) are all padding: column 0, value 0. */
    for (int64_t p = sl * c; p < (sl + 1) * c && p < rows; p++) {
      const int64_t i = ROW_AT(p), n = rp[i + 1] - rp[i], lane = p - sl * c;
      if (lb == 1)
        ((uint8_t *)len)[p] = (uint8_t)n;
      else if (lb == 2)
        ((uint16_t *)len)[p] = (uint16_t)n;
      else
        ((int32_t *)len)[p] = (int32_t)n;
      const int32_t *rc = A->col_idx + rp[i];
      for (int64_t k = 0; k < w; k++) {
        const int64_t e = off + k * c + lane;
        col[e] = k < n ? rc[k] : sell_pad_column(rc, n);
        if (k < n)
          memcpy(val + (size_t)e * es, (const char *)A->values + (size_t)(rp[i] + k) * es, es);
      }
    }
  }
#undef ROW_AT
  zsi_free(order), zsi_free(ptr);
  *out = E;
  return ZS_OK;
}

/* Every invariant of docs/formats/sell.md, so decoders and kernels can trust the blob. */
static zs_status sell_validate(const zs_encoded *E) {
  sell_layout L;
  zs_status s = zsi_sell_layout_of(E, &L);
  if (s != ZS_OK) return s;
  const int64_t c = L.c, rows = L.rows, *sp = L.slice_ptr;
  const int32_t *col = L.col_idx;
  const size_t es = L.value_bytes;
  const char *val = L.values;
  static const char zero[8] = {0};
  if (sp[0] != 0)
    return zsi_error(ZS_ERR_CORRUPT, "sell: slice_ptr[0] is %" PRId64 ", not 0", sp[0]);
  if (L.perm) {
    /* a permutation of the rows that keeps each row inside its window of sigma positions, sorted
     * there as the encoder sorts: the layout is canonical */
    unsigned char *seen = zsi_alloc_array((uint64_t)(rows ? rows : 1), 1);
    if (!seen) return zsi_oom("sell validate: perm", (uint64_t)rows);
    for (int64_t p = 0; p < rows && s == ZS_OK; p++) {
      const int64_t i = L.perm[p];
      if (i < 0 || i >= rows || i / L.sigma != p / L.sigma || seen[i])
        s = zsi_error(ZS_ERR_CORRUPT,
                      "sell: perm[%" PRId64 "] = %" PRId64
                      " is out of range, outside its window of sigma = %" PRId64 " or repeated",
                      p, i, L.sigma);
      else if (p % L.sigma && (sell_len(&L, p - 1) < sell_len(&L, p) ||
                               (sell_len(&L, p - 1) == sell_len(&L, p) && L.perm[p - 1] > i)))
        s = zsi_error(ZS_ERR_CORRUPT,
                      "sell: position %" PRId64 " (row %" PRId64
                      ") breaks its window's order: longest rows first, equal lengths by row",
                      p, i);
      else
        seen[i] = 1;
    }
    zsi_free(seen);
    if (s != ZS_OK) return s;
  }
  int64_t nnz = 0, max_width = 0;
  for (int64_t sl = 0; sl < L.n_slices; sl++) {
    /* compared before subtracting: a corrupt offset far below the last must not overflow */
    const int64_t off = sp[sl], end = sp[sl + 1];
    if (end < off || end > L.entries || (end - off) % c)
      return zsi_error(ZS_ERR_CORRUPT,
                       "sell: slice_ptr[%" PRId64 "] = %" PRId64 " is not slice_ptr[%" PRId64
                       "] = %" PRId64 " plus a multiple of c = %" PRId64
                       ", up to the last offset %" PRId64,
                       sl + 1, end, sl, off, c, L.entries);
    const int64_t w = (end - off) / c;
    int64_t widest = 0;
    max_width = w > max_width ? w : max_width;
    for (int64_t lane = 0; lane < c; lane++) {
      const int64_t p = sl * c + lane, n = p < rows ? sell_len(&L, p) : 0;
      if (n < 0 || n > w)
        return zsi_error(ZS_ERR_CORRUPT,
                         "sell: row_len[%" PRId64 "] = %" PRId64 " is not in [0, %" PRId64
                         "] (its slice's width)",
                         p, n, w);
      widest = n > widest ? n : widest;
      nnz += n;
      for (int64_t k = 0; k < w; k++) {
        const int64_t e = off + k * c + lane;
        const int32_t want = k < n ? col[e] : n ? col[off + (n - 1) * c + lane] : 0;
        if (k < n && (col[e] < 0 || col[e] >= L.cols || (k > 0 && col[e] <= col[e - c])))
          return zsi_error(ZS_ERR_CORRUPT,
                           "sell: col_idx[%" PRId64 "] = %" PRId32 " (position %" PRId64
                           ", entry %" PRId64 ") is out of range or not ascending",
                           e, col[e], p, k);
        if (k >= n && (col[e] != want || memcmp(val + (size_t)e * es, zero, es) != 0))
          return zsi_error(ZS_ERR_CORRUPT,
                           "sell: padding entry %" PRId64 " (position %" PRId64
                           ") is not column %" PRId32 " with value +0",
                           e, p, want);
      }
    }
    if (widest != w)
      return zsi_error(ZS_ERR_CORRUPT,
                       "sell: slice %" PRId64 " is %" PRId64 " wide, its longest row %" PRId64, sl,
                       w, widest);
  }
  if (nnz != L.nnz)
    return zsi_error(ZS_ERR_CORRUPT, "sell: row_len sums to %" PRId64 ", nnz is %" PRId64, nnz,
                     L.nnz);
  if (L.len_bytes != len_bytes_for(max_width))
    return zsi_error(ZS_ERR_CORRUPT,
                     "sell: row_len has %u-byte elements; the widest slice (%" PRId64 ") takes %u",
                     L.len_bytes, max_width, len_bytes_for(max_width));
  return ZS_OK;
}

/* Validates first: an encoded matrix built by hand never reaches the loops unchecked. */
static zs_status sell_decode(const zs_encoded *E, zs_matrix **out) {
  sell_layout L;
  zs_status s = sell_validate(E);
  if (s == ZS_OK) s = zsi_sell_layout_of(E, &L);
  if (s != ZS_OK) return s;
  zs_matrix *A;
  if ((s = zsi_matrix_alloc(&A, L.rows, L.cols, L.nnz, L.type)) != ZS_OK) return s;
  const int64_t c = L.c;
  const size_t es = L.value_bytes;
  for (int64_t p = 0; p < L.rows; p++) A->row_ptr[sell_row(&L, p) + 1] = sell_len(&L, p);
  for (int64_t i = 0; i < L.rows; i++) A->row_ptr[i + 1] += A->row_ptr[i];
  for (int64_t p = 0; p < L.rows; p++) {
    const int64_t i = sell_row(&L, p), n = sell_len(&L, p);
    const int64_t off = L.slice_ptr[p / c] + p % c;
    for (int64_t k = 0; k < n; k++) {
      const int64_t e = off + k * c, d = A->row_ptr[i] + k;
      A->col_idx[d] = L.col_idx[e];
      memcpy((char *)A->values + (size_t)d * es, (const char *)L.values + (size_t)e * es, es);
    }
  }
  *out = A;
  return ZS_OK;
}

/* The padding's share and the bytes a product reads against CSR's. */
static void sell_stats(const zs_encoded *E, zs_stat_fn emit, void *ctx) {
  zsi_view_buf vb;
  sell_layout L;
  if (sell_layout_parse(zsi_encoded_as_view(E, &vb), &L, NULL, 0) != ZS_OK) return;
  const double entries = (double)L.entries, nnz = (double)L.nnz;
  /* kernels read slice_ptr, perm, columns and values; row_len only the decoder and SpMVT */
  const double read = 8.0 * ((double)L.n_slices + 1) + (L.perm ? 4.0 * (double)L.rows : 0) +
                      entries * (4 + L.value_bytes);
  const double csr = 8.0 * ((double)L.rows + 1) + nnz * (4 + L.value_bytes);
  emit(ctx, "c", (double)L.c);
  emit(ctx, "sigma", (double)L.sigma);
  emit(ctx, "slices", (double)L.n_slices);
  emit(ctx, "entries", entries);
  emit(ctx, "padding_pct", entries > 0 ? 100.0 * (entries - nnz) / entries : 0);
  emit(ctx, "mean_width", L.n_slices ? entries / (double)(L.n_slices * L.c) : 0);
  emit(ctx, "spmv_bytes", read);
  emit(ctx, "spmv_bytes_vs_csr", csr > 0 ? read / csr : 0);
}

const zsi_format_ops zsi_format_sell = {ZS_FORMAT_SELL, "sell",      sell_encode,
                                        sell_validate,  sell_decode, sell_stats};
