/* packed_perm.c — zs-packed-perm: what version 5's packed rows would hold for a matrix in three
 * orders (natural; rows by length; rows by length and columns renumbered by count), computed
 * on the host before any kernel: bits a nonzero, field widths, bytes against CSR, the lanes'
 * imbalance within a slice, and the x gathers a warp step makes (distinct 32-byte sectors and
 * 128-byte lines, and how many land in the lines an ideal L1 of a given size would keep).
 *
 *   zs-packed-perm [--f32] SPEC [SPEC ...]     e.g. gen:rmat:scale=19,per_row=16,values=set
 *
 * SPEC is a generator spec (gen:...), a .mtx file, or probe-er / probe-rmat: the first 2^20 of
 * the rows the lookup floor's packed variants time (probe_rows.h: 16 columns of 2^22 a row,
 * uniform or at R-MAT's column marginal in natural order, 64 value ids). The layout follows
 * docs/formats/dtans.md ("Packed rows"): 32 rows a slice, a slice's fields as wide as its
 * largest, value ids of b bits, p a word. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_rows.h"
#include "zsparse.h"

#define LANES 32

typedef struct csr {
  int64_t rows, cols, nnz;
  int64_t *ptr;
  int32_t *col;
  uint64_t *key; /* value bits, for the id count */
} csr;

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "zs-packed-perm: out of memory (%zu bytes)\n", n);
    exit(1);
  }
  return p;
}

static int cmp_i32(const void *a, const void *b) {
  const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The lookup floor's probe rows (probe_rows.h), the first 2^20; value ids as keys. */
static csr probe_rows(int rmat) {
  csr A = {INT64_C(1) << 20, PROBE_COLS, 0, NULL, NULL, NULL};
  A.ptr = xmalloc((size_t)(A.rows + 1) * 8), A.col = xmalloc((size_t)(A.rows * PROBE_ROW) * 4);
  A.key = xmalloc((size_t)(A.rows * PROBE_ROW) * 8);
  A.ptr[0] = 0;
  for (int64_t i = 0; i < A.rows; i++) {
    const int n = probe_row(rmat, probe_row_seed(i), A.col + A.ptr[i]);
    for (int k = 0; k < n; k++) A.key[A.ptr[i] + k] = probe_value_id(i, k);
    A.ptr[i + 1] = A.ptr[i] + n;
  }
  A.nnz = A.ptr[A.rows];
  return A;
}

static csr load(const char *spec, zs_type type) {
  if (!strcmp(spec, "probe-er") || !strcmp(spec, "probe-rmat"))
    return probe_rows(!strcmp(spec, "probe-rmat"));
  zs_matrix *M = NULL;
  zs_status s = !strncmp(spec, "gen:", 4) ? zs_matrix_generate(&M, spec + 4, type, 0)
                                          : zs_matrix_read(&M, spec, type, 0, NULL, 0);
  if (s != ZS_OK) {
    fprintf(stderr, "zs-packed-perm: %s: %s\n", spec, zs_last_error());
    exit(1);
  }
  csr A = {zs_matrix_rows(M), zs_matrix_cols(M), zs_matrix_nnz(M), NULL, NULL, NULL};
  const int64_t *ptr;
  const int32_t *col;
  const void *val;
  zs_matrix_csr(M, &ptr, &col, &val);
  A.ptr = xmalloc((size_t)(A.rows + 1) * 8), A.col = xmalloc((size_t)A.nnz * 4);
  A.key = xmalloc((size_t)A.nnz * 8);
  memcpy(A.ptr, ptr, (size_t)(A.rows + 1) * 8), memcpy(A.col, col, (size_t)A.nnz * 4);
  for (int64_t k = 0; k < A.nnz; k++) {
    uint64_t b = 0;
    if (type == ZS_F64)
      memcpy(&b, (const double *)val + k, 8);
    else
      memcpy(&b, (const float *)val + k, 4);
    A.key[k] = b;
  }
  zs_matrix_destroy(&M);
  return A;
}

/* Distinct value keys of the rows that are not long (at most 65537 counted). */
static int64_t distinct_values(const csr *A, int64_t long_min) {
  const uint64_t mask = (UINT64_C(1) << 18) - 1;
  uint64_t *k = xmalloc((mask + 1) * 8);
  uint8_t *used = calloc(mask + 1, 1);
  int64_t n = 0;
  for (int64_t i = 0; i < A->rows && n <= 65536; i++) {
    if (A->ptr[i + 1] - A->ptr[i] > long_min) continue;
    for (int64_t j = A->ptr[i]; j < A->ptr[i + 1] && n <= 65536; j++) {
      uint64_t h = (A->key[j] * UINT64_C(0x9e3779b97f4a7c15)) >> 20 & mask;
      while (used[h] && k[h] != A->key[j]) h = (h + 1) & mask;
      if (!used[h]) used[h] = 1, k[h] = A->key[j], n++;
    }
  }
  free(k), free(used);
  return n;
}

/* Rows by length, longest first, ties in row order (long rows count as equal, first). */
static int64_t *rows_by_length(const csr *A, int64_t long_min) {
  int64_t top = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    int64_t n = A->ptr[i + 1] - A->ptr[i];
    if (n > long_min) n = long_min + 1;
    if (n > top) top = n;
  }
  int64_t *start = calloc((size_t)top + 2, 8), *ord = xmalloc((size_t)A->rows * 8);
  for (int64_t i = 0; i < A->rows; i++) {
    int64_t n = A->ptr[i + 1] - A->ptr[i];
    start[top - (n > long_min ? long_min + 1 : n) + 1]++;
  }
  for (int64_t b = 1; b <= top + 1; b++) start[b] += start[b - 1];
  for (int64_t i = 0; i < A->rows; i++) {
    int64_t n = A->ptr[i + 1] - A->ptr[i];
    ord[start[top - (n > long_min ? long_min + 1 : n)]++] = i;
  }
  free(start);
  return ord;
}

/* newcol[c]: columns by count, fullest first, ties in column order. */
static int32_t *cols_by_count(const csr *A) {
  int64_t *cnt = calloc((size_t)A->cols, 8), top = 0;
  for (int64_t k = 0; k < A->nnz; k++) cnt[A->col[k]]++;
  for (int64_t c = 0; c < A->cols; c++)
    if (cnt[c] > top) top = cnt[c];
  int64_t *start = calloc((size_t)top + 2, 8);
  for (int64_t c = 0; c < A->cols; c++) start[top - cnt[c] + 1]++;
  for (int64_t b = 1; b <= top + 1; b++) start[b] += start[b - 1];
  int32_t *newcol = xmalloc((size_t)A->cols * 4);
  for (int64_t c = 0; c < A->cols; c++) newcol[c] = (int32_t)start[top - cnt[c]]++;
  free(cnt), free(start);
  return newcol;
}

static int bits_of(uint64_t v) {
  int b = 0;
  while (b < 64 && v >> b) b++;
  return b;
}

static int cmp_u64_desc(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x < y) - (x > y);
}

/* One order: ord (NULL: natural), newcol (NULL: natural). */
static void report(const char *what, const csr *A, const int64_t *ord, const int32_t *newcol,
                   int64_t long_min, int es, int64_t distinct) {
  const int64_t slices = (A->rows + LANES - 1) / LANES;
  const int vb = bits_of((uint64_t)(distinct - 1)) ? bits_of((uint64_t)(distinct - 1)) : 1;
  const int per = 32 / vb;
  const int per_sector = 32 / es, per_line = 128 / es;
  const int64_t lines = (A->cols + per_line - 1) / per_line;
  /* pass 1: fields, widths, bytes; line counts for the ideal cache */
  uint64_t *line_n = calloc((size_t)lines, 8);
  const int64_t room = long_min + 1;
  int32_t *cbuf = xmalloc((size_t)(LANES * room) * 4);
#define C(l, k) cbuf[(l)*room + (k)]
  int n[LANES];
  double col_words = 0, val_words = 0, lane_steps = 0, coded = 0, long_nnz = 0, n_long = 0;
  double by_bits[33] = {0};
  int64_t top_len = 0;
  for (int64_t s = 0; s < slices; s++) {
    int64_t width = 0, base = INT64_MAX;
    for (int l = 0; l < LANES; l++) {
      const int64_t r = s * LANES + l;
      n[l] = 0;
      if (r >= A->rows) continue;
      const int64_t i = ord ? ord[r] : r, len = A->ptr[i + 1] - A->ptr[i];
      if (len > long_min) {
        n_long++, long_nnz += (double)len;
        continue;
      }
      n[l] = (int)len;
      for (int64_t k = 0; k < len; k++) {
        const int32_t cc = A->col[A->ptr[i] + k];
        C(l, k) = newcol ? newcol[cc] : cc;
        line_n[C(l, k) / per_line]++;
      }
      if (newcol) qsort(&C(l, 0), (size_t)len, 4, cmp_i32);
      if (len > width) width = len;
      if (len > top_len) top_len = len;
      if (len && C(l, 0) - r < base) base = C(l, 0) - r;
      coded += (double)len;
    }
    uint64_t any = 0;
    for (int l = 0; l < LANES; l++)
      for (int k = 0; k < n[l]; k++)
        any |= (uint64_t)(k ? C(l, k) - C(l, k - 1) - 1 : C(l, 0) - (s * LANES + l) - base);
    const int cb = width ? (bits_of(any) ? bits_of(any) : 1) : 0;
    col_words += LANES * (double)((width * cb + 31) / 32);
    val_words += distinct > 65536 ? LANES * (double)width * es / 4
                                  : LANES * (double)((width + per - 1) / per);
    lane_steps += LANES * (double)width;
    for (int l = 0; l < LANES; l++) by_bits[cb] += n[l];
  }
  /* the ideal L1: the fullest lines of x */
  uint64_t *sorted = xmalloc((size_t)lines * 8);
  memcpy(sorted, line_n, (size_t)lines * 8);
  qsort(sorted, (size_t)lines, 8, cmp_u64_desc);
  static const int kib[] = {64, 128, 156, 228};
  double hit[4];
  uint64_t hot_cut[4];
  for (int q = 0; q < 4; q++) {
    const int64_t keep =
        (int64_t)kib[q] * 1024 / 128 < lines ? (int64_t)kib[q] * 1024 / 128 : lines;
    double h = 0;
    for (int64_t j = 0; j < keep; j++) h += (double)sorted[j];
    hit[q] = coded > 0 ? h / coded : 0;
    hot_cut[q] = keep > 0 ? sorted[keep - 1] : UINT64_MAX;
  }
  /* pass 2: per warp step, distinct sectors and lines, and sectors of lines outside the ideal
   * 156 KiB L1 (the packed kernel's 6 blocks with their dictionaries) */
  double sectors = 0, dlines = 0, miss_sectors = 0, steps = 0;
  for (int64_t s = 0; s < slices; s++) {
    int width = 0;
    for (int l = 0; l < LANES; l++) {
      const int64_t r = s * LANES + l;
      n[l] = 0;
      if (r >= A->rows) continue;
      const int64_t i = ord ? ord[r] : r, len = A->ptr[i + 1] - A->ptr[i];
      if (len > long_min) continue;
      n[l] = (int)len;
      for (int64_t k = 0; k < len; k++) {
        const int32_t cc = A->col[A->ptr[i] + k];
        C(l, k) = newcol ? newcol[cc] : cc;
      }
      if (newcol) qsort(&C(l, 0), (size_t)len, 4, cmp_i32);
      if (len > width) width = (int)len;
    }
    for (int k = 0; k < width; k++) {
      int64_t sec[LANES], lin[LANES];
      int ns = 0, nl = 0, nm = 0;
      for (int l = 0; l < LANES; l++) {
        if (k >= n[l]) continue;
        const int64_t sc = C(l, k) / per_sector, ln = C(l, k) / per_line;
        int f = 0;
        for (int j = 0; j < ns; j++) f |= sec[j] == sc;
        if (!f) {
          sec[ns++] = sc;
          nm += line_n[ln] < hot_cut[2];
        }
        f = 0;
        for (int j = 0; j < nl; j++) f |= lin[j] == ln;
        if (!f) lin[nl++] = ln;
      }
      sectors += ns, dlines += nl, miss_sectors += nm, steps++;
    }
  }
  const double bytes =
      col_words * 4 + val_words * 4 + (distinct > 65536 ? 0 : (double)distinct * es) +
      (double)slices * (8 + 8 + 1 + 4) + (double)A->rows * (top_len < 255 ? 1 : 2) +
      long_nnz * (4 + es) + n_long * 12 + (ord ? 4.0 * (double)A->rows : 0) +
      (newcol ? 4.0 * (double)A->cols : 0);
  const double csr_bytes = (double)A->nnz * (4 + es) + 8.0 * (double)(A->rows + 1);
  double wbits = 0;
  for (int b = 0; b <= 32; b++) wbits += b * by_bits[b];
  printf("%s: long rows %.0f (%.0f nonzeros), coded %.0f, ids %d bits (%" PRId64 " values)\n", what,
         n_long, long_nnz, coded, vb, distinct);
  printf(
      "  blob %.1f MB (%.3f of CSR's %.1f MB), %.2f bits a coded nonzero (columns %.2f, "
      "ids %.2f)\n",
      bytes / 1e6, bytes / csr_bytes, csr_bytes / 1e6, 8 * bytes / coded, 32 * col_words / coded,
      32 * val_words / coded);
  double le8 = 0, le16 = 0, ge20 = 0;
  for (int b = 0; b <= 32; b++)
    le8 += b <= 8 ? by_bits[b] : 0, le16 += b <= 16 ? by_bits[b] : 0,
        ge20 += b >= 20 ? by_bits[b] : 0;
  printf(
      "  field bits a nonzero %.2f; nonzeros in slices of <= 8 bits %.3f, <= 16 %.3f, "
      ">= 20 %.3f\n",
      wbits / coded, le8 / coded, le16 / coded, ge20 / coded);
  printf("  lane steps / coded nonzeros %.3f (1 = no lane waits)\n", lane_steps / coded);
  printf(
      "  warp steps %.0f: %.2f active lanes, %.2f sectors, %.2f lines, %.2f sectors outside "
      "a 156 KiB ideal L1 a step\n",
      steps, coded / steps, sectors / steps, dlines / steps, miss_sectors / steps);
  printf("  per coded nonzero: %.3f sectors, %.3f lines, %.3f L1-missing sectors\n",
         sectors / coded, dlines / coded, miss_sectors / coded);
  printf(
      "  ideal L1 hits (fullest 128-byte lines): 64 KiB %.3f, 128 KiB %.3f, 156 KiB %.3f, "
      "228 KiB %.3f\n",
      hit[0], hit[1], hit[2], hit[3]);
  free(line_n), free(sorted), free(cbuf);
#undef C
}

int main(int argc, char **argv) {
  zs_type type = ZS_F64;
  int first = 1;
  if (argc > 1 && !strcmp(argv[1], "--f32")) type = ZS_F32, first = 2;
  if (argc <= first) {
    fprintf(stderr, "usage: zs-packed-perm [--f32] SPEC [SPEC ...]\n");
    return 2;
  }
  const int es = type == ZS_F64 ? 8 : 4;
  for (int a = first; a < argc; a++) {
    csr A = load(argv[a], type);
    const double avg = A.rows ? (double)A.nnz / (double)A.rows : 0;
    const int64_t long_min = 16 * avg > 1024 ? (int64_t)(16 * avg) : 1024;
    const int64_t distinct = distinct_values(&A, long_min);
    printf("== %s: %" PRId64 " x %" PRId64 ", %" PRId64 " nonzeros, long rows over %" PRId64 "\n",
           argv[a], A.rows, A.cols, A.nnz, long_min);
    report("natural", &A, NULL, NULL, long_min, es, distinct);
    int64_t *ord = rows_by_length(&A, long_min);
    report("rows by length", &A, ord, NULL, long_min, es, distinct);
    int32_t *newcol = cols_by_count(&A);
    report("rows by length, columns by count", &A, ord, newcol, long_min, es, distinct);
    free(ord), free(newcol), free(A.ptr), free(A.col), free(A.key);
    fflush(stdout);
  }
  return 0;
}
