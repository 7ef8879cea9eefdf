/* fuzz_csb.c — libFuzzer target for CSB/GCSB validate, decode and cpu kernels: a small matrix and
 * encoder options from the input, then byte flips in the encoded arrays. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_kernels.h"
#include "core/zs_internal.h"

/* Input: [0] bit 0 gcsb, bit 1 f64, bit 2 transpose=atomic; [1] rows - 1, [2] cols - 1 (mod
 * 64); [3] log2 beta (1..6, or 9: 32-bit local indices); [4] group - 1 (mod 8); [5] triplet count
 * (mod 64), then (r, c, v) bytes; the rest: (array, offset, xor) triples flipping bytes of the
 * encoded arrays. */
static void run(const uint8_t *d, size_t n) {
  if (n < 6) return;
  const zs_format f = d[0] & 1 ? ZS_FORMAT_GCSB : ZS_FORMAT_CSB;
  const zs_type t = d[0] & 2 ? ZS_F64 : ZS_F32;
  const int64_t rows = 1 + d[1] % 64, cols = 1 + d[2] % 64;
  const int lb = d[3] % 7 == 0 ? 9 : d[3] % 7;
  const int group = 1 + d[4] % 8;
  int64_t m = d[5] % 64;
  size_t p = 6;
  if (n < p + 3 * (size_t)m) m = (int64_t)((n - p) / 3);
  int64_t r[64], c[64];
  double v[64];
  for (int64_t k = 0; k < m; k++, p += 3)
    r[k] = d[p] % rows, c[k] = d[p + 1] % cols, v[k] = (double)(int8_t)d[p + 2] / 4;
  float fv[64];
  for (int64_t k = 0; k < m; k++) fv[k] = (float)v[k];
  zs_matrix *A = NULL;
  if (zs_matrix_from_coo(&A, rows, cols, m, r, c, t == ZS_F64 ? (void *)v : fv, t, 0) != ZS_OK)
    return;
  char opts[64];
  if (f == ZS_FORMAT_GCSB)
    snprintf(opts, sizeof opts, "beta=%d,group=%d", 1 << lb, group);
  else
    snprintf(opts, sizeof opts, "beta=%d", 1 << lb);
  zs_encoded *E = NULL;
  if (zs_encode(&E, A, f, opts) != ZS_OK) abort(); /* every small matrix encodes */
  zs_matrix_destroy(&A);
  int flipped = 0;
  for (; p + 3 <= n; p += 3) {
    zsi_array *a = &E->arrays[d[p] % E->n_arrays];
    const uint64_t bytes = a->count * a->elem_size;
    if (bytes == 0) continue;
    ((uint8_t *)a->data)[d[p + 1] % bytes] ^= d[p + 2];
    flipped |= d[p + 2] != 0;
  }
  const zsi_format_ops *ops = zsi_format_lookup(f);
  if (ops->validate(E) != ZS_OK) {
    if (!flipped) abort(); /* the encoder's own output must validate */
    zs_encoded_destroy(&E);
    return;
  }
  /* Valid: decoding succeeds, and the layout is canonical, so re-encoding the decoded matrix
   * gives the same arrays byte for byte. */
  zs_matrix *B = NULL;
  zs_encoded *E2 = NULL;
  if (ops->decode(E, &B) != ZS_OK || zs_encode(&E2, B, f, opts) != ZS_OK) abort();
  if (E2->n_arrays != E->n_arrays) abort();
  for (int i = 0; i < E->n_arrays; i++) {
    const zsi_array *x = &E->arrays[i], *y = zsi_encoded_array(E2, x->name);
    if (!y || y->elem_size != x->elem_size || y->count != x->count ||
        memcmp(x->data, y->data, x->count * x->elem_size))
      abort();
  }
  /* The cpu kernels trust a validated blob: run both ops and BiCG's pair (ASan catches stray
   * reads). Called through the kernel table, so no context (hardware discovery) per input. */
  zsb_array arrays[ZSI_MAX_ARRAYS];
  zsb_param params[ZSI_MAX_PARAMS];
  zsb_encoded_view view;
  zsi_encoded_view(E, &view, arrays, params);
  const zsi_cpu_kernel *kern = zsi_cpu_kernels_for(f);
  const zsi_cpu_opts o = {.threads = 2, .transpose_atomic = (d[0] >> 2) & 1};
  void *op = NULL;
  if (kern->create(&op, &view, &o) == ZS_OK) {
    double xd[64], yd[64];
    for (int i = 0; i < 64; i++) xd[i] = 0.5 + i, yd[i] = 1;
    kern->apply(op, ZS_OP_N, 1.0, xd, 0.5, yd);
    kern->apply(op, ZS_OP_T, 1.0, xd, 0.0, yd);
    double wd[64], zd[64];
    for (int i = 0; i < 64; i++) wd[i] = 1.5 - i, zd[i] = 2;
    if (kern->pair) kern->pair(op, 1.0, xd, 0.5, yd, 2.0, wd, 0.25, zd);
    kern->destroy(op);
  }
  zs_matrix_destroy(&B);
  zs_encoded_destroy(&E2);
  zs_encoded_destroy(&E);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  run(data, size);
  return 0;
}
