/* fuzz_sell.c — libFuzzer target for the SELL-C-sigma validator, decoder and cpu kernels: input
 * bytes become the arrays and parameters of a small blob; whatever validate accepts must decode,
 * encode back to the same bytes (the layout is canonical), and multiply as its decoded CSR does. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_kernels.h"
#include "core/zs_internal.h"

/* Layout of an input: rows (mod 40), cols - 1 (mod 40), log2 c (mod 6), sigma (0: 1, else that
 * many c, mod 4), flags (bit 0 f32, bit 1 transpose=atomic, bit 2 the encoder's blob for a
 * matrix whose row lengths and columns come next, flipped by the bytes after them), then per
 * position its length (mod 9) and row (perm), per slice its width (mod 9), per entry its column
 * byte. Missing bytes are 0. */
typedef struct reader {
  const uint8_t *p;
  size_t n, at;
} reader;
static unsigned get(reader *r) { return r->at < r->n ? r->p[r->at++] : (r->at++, 0u); }

/* The n outputs (f64, or f32 where f32 is set) are the exact sums `want` (exact: B's values are
 * small integers; a flipped byte may have made them anything, and then only ASan checks). */
static void expect(int f32, const double *d, const float *f, const double *want, int64_t n,
                   int exact) {
  for (int64_t i = 0; exact && i < n; i++)
    if ((f32 ? (double)f[i] : d[i]) != want[i]) abort();
}

/* y = A x through the cpu kernels of E, against the plain CSR product of its decoded B; the
 * same for Aᵀ and for BiCG's pair. x and w hold small integers. */
static void products_agree(const zs_encoded *E, const zs_matrix *B, int atomic) {
  zsb_array arrays[ZSI_MAX_ARRAYS];
  zsb_param params[ZSI_MAX_PARAMS];
  zsb_encoded_view view;
  zsi_encoded_view(E, &view, arrays, params);
  const zsi_cpu_kernel *kern = zsi_cpu_kernels_for(ZS_FORMAT_SELL);
  const zsi_cpu_opts o = {.threads = 3, .transpose_atomic = atomic};
  void *op = NULL;
  if (kern->create(&op, &view, &o) != ZS_OK) return; /* out of memory only */
  enum { N = 64 };
  double x[N], w[N], y[N], z[N], want_y[N] = {0}, want_z[N] = {0};
  float xf[N], wf[N], yf[N], zf[N];
  for (int i = 0; i < N; i++) x[i] = xf[i] = (float)(i % 7 - 3), w[i] = wf[i] = (float)(i % 5 - 2);
  for (int64_t i = 0; i < B->rows; i++)
    for (int64_t k = B->row_ptr[i]; k < B->row_ptr[i + 1]; k++) {
      const double a = zsi_value_get(B->type, B->values, k);
      want_y[i] += a * x[B->col_idx[k]], want_z[B->col_idx[k]] += a * w[i];
    }
  const int f32 = B->type == ZS_F32;
  int exact = 1;
  for (int64_t k = 0; k < B->nnz; k++) {
    const double a = zsi_value_get(B->type, B->values, k);
    exact &= a <= 64 && a >= -64 && a == (double)(int)a; /* NaN fails the first test */
  }
  for (int i = 0; i < N; i++) y[i] = z[i] = yf[i] = zf[i] = NAN;
  kern->apply(op, ZS_OP_N, 1.0, f32 ? (void *)xf : x, 0.0, f32 ? (void *)yf : y);
  kern->apply(op, ZS_OP_T, 1.0, f32 ? (void *)wf : w, 0.0, f32 ? (void *)zf : z);
  expect(f32, y, yf, want_y, B->rows, exact), expect(f32, z, zf, want_z, B->cols, exact);
  for (int i = 0; i < N; i++) y[i] = z[i] = yf[i] = zf[i] = NAN;
  if (kern->pair(op, 1.0, f32 ? (void *)xf : x, 0.0, f32 ? (void *)yf : y, 1.0,
                 f32 ? (void *)wf : w, 0.0, f32 ? (void *)zf : z) == ZS_OK)
    expect(f32, y, yf, want_y, B->rows, exact), expect(f32, z, zf, want_z, B->cols, exact);
  kern->destroy(op);
}

/* A blob written from the bytes alone: mostly refused, and what passes is a real matrix. */
static zs_encoded *blob_from_bytes(reader *r, int64_t rows, int64_t cols, int64_t c, int64_t sigma,
                                   zs_type t) {
  zs_encoded *E = NULL;
  const int64_t n_slices = (rows + c - 1) / c;
  int64_t *sp;
  uint8_t *len;
  int32_t *perm = NULL, *col;
  void *val;
  if (zsi_encoded_new(&E, ZS_FORMAT_SELL, t, rows, cols, 0) != ZS_OK ||
      zsi_encoded_add_param(E, "c", c) != ZS_OK || zsi_encoded_add_param(E, "sigma", sigma) ||
      zsi_encoded_add_array(E, "slice_ptr", 8, (uint64_t)n_slices + 1, (void **)&sp) ||
      zsi_encoded_add_array(E, "row_len", 1, (uint64_t)rows, (void **)&len) ||
      (sigma > 1 && zsi_encoded_add_array(E, "perm", 4, (uint64_t)rows, (void **)&perm))) {
    zs_encoded_destroy(&E);
    return NULL;
  }
  for (int64_t p = 0; p < rows; p++) {
    len[p] = (uint8_t)(get(r) % 9), E->nnz += len[p];
    if (perm) perm[p] = (int32_t)(get(r) % (unsigned)rows);
  }
  for (int64_t s = 0; s < n_slices; s++) sp[s + 1] = sp[s] + c * (int64_t)(get(r) % 9);
  const uint64_t entries = (uint64_t)sp[n_slices];
  if (zsi_encoded_add_array(E, "col_idx", 4, entries, (void **)&col) ||
      zsi_encoded_add_array(E, "values", (uint32_t)zs_type_size(t), entries, &val)) {
    zs_encoded_destroy(&E);
    return NULL;
  }
  for (uint64_t e = 0; e < entries; e++) {
    col[e] = (int32_t)get(r) - 2; /* now and then out of range */
    if (e % 3 && t == ZS_F64) ((double *)val)[e] = (double)(e % 4);
    if (e % 3 && t == ZS_F32) ((float *)val)[e] = (float)(e % 4);
  }
  return E;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader r = {data, size, 0};
  const int64_t rows = get(&r) % 40, cols = 1 + get(&r) % 40, c = INT64_C(1) << (get(&r) % 6);
  const unsigned sg = get(&r) % 4, flags = get(&r);
  const int64_t sigma = sg ? (int64_t)sg * c : 1;
  const zs_type t = flags & 1 ? ZS_F32 : ZS_F64;
  char opts[48];
  snprintf(opts, sizeof opts, "c=%d,sigma=%d", (int)c, (int)sigma);
  zs_encoded *E = NULL;
  if (flags & 4) { /* the encoder's blob of a matrix from the bytes, some bytes flipped */
    int64_t ri[320], ci[320], n = 0;
    double v[320];
    for (int64_t i = 0; i < rows; i++)
      for (int64_t k = 0, m = get(&r) % 9, j = 0; k < m && (j += 1 + get(&r) % 5) <= cols; k++)
        ri[n] = i, ci[n] = j - 1, v[n] = (double)(k % 3) - 1, n++;
    zs_matrix *A = NULL;
    float vf[320];
    for (int64_t k = 0; k < n; k++) vf[k] = (float)v[k];
    if (zs_matrix_from_coo(&A, rows, cols, n, ri, ci, t == ZS_F64 ? (void *)v : vf, t, 0) ||
        zs_encode(&E, A, ZS_FORMAT_SELL, opts))
      abort(); /* every small matrix encodes */
    zs_matrix_destroy(&A);
    for (unsigned a, o, x; r.at + 3 <= size;) {
      a = get(&r), o = get(&r), x = get(&r);
      zsi_array *arr = &E->arrays[a % (unsigned)E->n_arrays];
      const uint64_t bytes = arr->count * arr->elem_size;
      if (bytes) ((uint8_t *)arr->data)[o % bytes] ^= (uint8_t)x;
    }
  } else if (!(E = blob_from_bytes(&r, rows, cols, c, sigma, t))) {
    return 0;
  }
  const zsi_format_ops *f = zsi_format_lookup(ZS_FORMAT_SELL);
  zs_matrix *B = NULL;
  zs_encoded *E2 = NULL;
  if (f->validate(E) == ZS_OK) {
    if (zs_decode(&B, E) != ZS_OK || zs_encode(&E2, B, ZS_FORMAT_SELL, opts) != ZS_OK ||
        E2->n_arrays != E->n_arrays)
      abort();
    for (int i = 0; i < E->n_arrays; i++) {
      const zsi_array *a = zsi_encoded_array(E2, E->arrays[i].name);
      if (!a || a->count * a->elem_size != E->arrays[i].count * E->arrays[i].elem_size ||
          memcmp(a->data, E->arrays[i].data, a->count * a->elem_size))
        abort();
    }
    products_agree(E, B, (flags >> 1) & 1);
  }
  zs_matrix_destroy(&B);
  zs_encoded_destroy(&E2);
  zs_encoded_destroy(&E);
  return 0;
}
