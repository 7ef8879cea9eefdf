/* cpu_sell.c — the cpu backend's SELL-C-sigma operator: slices walked a column of the slice at a
 * time (c independent row sums side by side), SpMVT with private buffers or atomics, and BiCG's
 * pair in one sweep. */
#include <string.h>

#include "backends/cpu/cpu_kernels.h"
#include "formats/sell/sell_layout.h"

/* As cpu_spmv.c: chunks of equal entries + slices, a few per thread; small products stay on the
 * calling thread. */
#define SELL_CHUNKS_PER_THREAD 4
#define SELL_PARALLEL_MIN_WORK 32768

#if defined(__GNUC__)
#define SELL_INLINE static inline __attribute__((always_inline))
#else
#define SELL_INLINE static inline
#endif

typedef struct sell_op {
  zs_type type;
  int64_t rows, cols, nnz, c, n_slices;
  int threads, transpose_atomic, parallel;
  int64_t *slice_ptr;
  int32_t *row_len; /* widened from the blob's 1, 2 or 4 bytes */
  int32_t *perm;    /* NULL: position p holds row p */
  int32_t *col_idx;
  void *values;
  int nchunks;
  int64_t *chunk; /* SpMV chunk q: slices [chunk[q], chunk[q + 1]) */
  /* SpMVT and the pair: slot u (a thread's positions, cut as cpu_spmv.c cuts CSR rows, so with
   * sigma = 1 a slot's rows and sums are CSR's) touches columns [col_lo[u], col_hi[u]] (none
   * when lo > hi) and owns a buffer at buf_off[u], allocated on first use. */
  int nslots;
  int64_t *slot, *col_lo, *col_hi, *buf_off, tbuf_len;
  void *tbuf;
  /* Sorted rows (perm) on several threads: a window of sigma rows that two threads share has its
   * rows' y scattered between them, so writing y[perm[p]] from the slices makes the threads
   * share y's cache lines (on a matrix of one or two windows the product ran no faster on two
   * threads than on one). Where such windows can hold more than an eighth of the rows
   * (sell_sums_pay), the slices write their sums in position order to sums instead, and a
   * second pass writes y in row order through pos_of (perm's inverse); elsewhere that pass
   * costs more than it saves. NULL otherwise. */
  void *sums;
  int32_t *pos_of;
} sell_op;

/* Which product a call makes. */
enum { SELL_SPMV = 0, SELL_SCATTER = 1, SELL_ATOMIC = 2, SELL_PAIR = 3 };

SELL_INLINE int64_t sell_row_at(const sell_op *A, int64_t p) { return A->perm ? A->perm[p] : p; }

/* The kernels of each value type. */
#define ZSI_TEMPLATE "backends/cpu/cpu_sell_tmpl.inc"
#include "backends/each_value_type.h"

static void cpu_sell_destroy(void *state) {
  sell_op *A = state;
  if (!A) return;
  void *arrays[] = {A->slice_ptr, A->row_len, A->perm,    A->col_idx, A->values, A->chunk, A->slot,
                    A->col_lo,    A->col_hi,  A->buf_off, A->tbuf,    A->sums,   A->pos_of};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) zsi_free(arrays[i]);
  zsi_free(A);
}

static zs_status sell_no_memory(const char *what) {
  return zsi_error(ZS_ERR_OUT_OF_MEMORY, "backend 'cpu': cannot allocate SELL %s", what);
}

/* Columns each slot touches (a row's first and last real entry bound it), and the buffers'
 * offsets: the SpMVT's reduction then covers only those columns. */
static void sell_slot_columns(sell_op *A) {
  int64_t off = 0;
  for (int u = 0; u < A->nslots; u++) {
    int64_t lo = A->cols, hi = -1;
    for (int64_t p = A->slot[u]; p < A->slot[u + 1]; p++) {
      const int64_t n = A->row_len[p], e = A->slice_ptr[p / A->c] + p % A->c;
      if (n == 0) continue;
      lo = A->col_idx[e] < lo ? A->col_idx[e] : lo;
      hi = A->col_idx[e + (n - 1) * A->c] > hi ? A->col_idx[e + (n - 1) * A->c] : hi;
    }
    A->col_lo[u] = lo, A->col_hi[u] = hi, A->buf_off[u] = off;
    if (lo <= hi) off += hi - lo + 1;
  }
  A->tbuf_len = off;
}

/* Whether sorted rows take the position-order sums (sell_op's sums): the windows that the
 * threads' boundaries cut, at most (threads - 1) of sigma rows, can hold over an eighth of the
 * rows. */
static int sell_sums_pay(const sell_op *A, int64_t sigma) {
  return A->perm && A->parallel && A->threads > 1 &&
         (int64_t)(A->threads - 1) * sigma * 8 > A->rows;
}

/* The view has passed the format's validate (at encode or load): its layout is trusted here. */
static zs_status cpu_sell_create(void **state, const zsb_encoded_view *enc, const zsi_cpu_opts *o) {
  sell_layout L;
  char why[ZSI_LAYOUT_WHY];
  zs_status s = sell_layout_parse(enc, &L, why, sizeof why);
  if (s != ZS_OK) return zsi_error(s, "backend 'cpu': %s", why);
  sell_op *A = zsi_alloc(sizeof *A);
  if (!A) return sell_no_memory("operator header");
  A->type = L.type, A->rows = L.rows, A->cols = L.cols, A->nnz = L.nnz;
  A->c = L.c, A->n_slices = L.n_slices;
  A->threads = o->threads < 1 ? 1 : o->threads;
  A->transpose_atomic = o->transpose_atomic;
  A->parallel = L.entries + L.rows + L.cols >= SELL_PARALLEL_MIN_WORK;
  A->nchunks = A->threads * SELL_CHUNKS_PER_THREAD, A->nslots = A->threads;
  const uint64_t ne = (uint64_t)L.entries, rows = (uint64_t)L.rows, ns = (uint64_t)A->nslots;
  if (!(A->slice_ptr = zsi_copy_array(L.slice_ptr, (uint64_t)L.n_slices + 1, 8)) ||
      !(A->row_len = zsi_alloc_array(rows ? rows : 1, 4)) ||
      (L.perm && !(A->perm = zsi_copy_array(L.perm, rows, 4))) ||
      !(A->col_idx = zsi_copy_array(L.col_idx, ne, 4)) ||
      !(A->values = zsi_copy_array(L.values, ne, L.value_bytes)) ||
      !(A->chunk = zsi_alloc_array((uint64_t)A->nchunks + 1, 8)) ||
      !(A->slot = zsi_alloc_array(ns + 1, 8)) || !(A->col_lo = zsi_alloc_array(ns, 8)) ||
      !(A->col_hi = zsi_alloc_array(ns, 8)) || !(A->buf_off = zsi_alloc_array(ns, 8))) {
    cpu_sell_destroy(A);
    return sell_no_memory("arrays and partition");
  }
  /* SpMV chunks: slices weigh their entries plus one. SpMVT slots: positions weigh their real
   * entries plus one, from their offsets in position order (CSR's row_ptr when sigma = 1). */
  zsi_cpu_split_rows(A->slice_ptr, A->n_slices, A->nchunks, A->chunk);
  int64_t *pos_ptr = zsi_alloc_array(rows + 1, 8);
  if (!pos_ptr) {
    cpu_sell_destroy(A);
    return sell_no_memory("position offsets");
  }
  pos_ptr[0] = 0;
  for (int64_t p = 0; p < L.rows; p++) {
    A->row_len[p] = (int32_t)sell_len(&L, p);
    pos_ptr[p + 1] = pos_ptr[p] + A->row_len[p];
  }
  zsi_cpu_split_rows(pos_ptr, L.rows, A->nslots, A->slot);
  if (sell_sums_pay(A, L.sigma)) {
    if (!(A->sums = zsi_alloc_array(rows, L.value_bytes)) ||
        !(A->pos_of = zsi_alloc_array(rows, 4))) {
      zsi_free(pos_ptr);
      cpu_sell_destroy(A);
      return sell_no_memory("position-order sums");
    }
    for (int64_t p = 0; p < L.rows; p++) A->pos_of[A->perm[p]] = (int32_t)p;
  }
  zsi_free(pos_ptr);
  sell_slot_columns(A);
  *state = A;
  return ZS_OK;
}

/* Every product (mode: SELL_SPMV, SELL_SCATTER, SELL_ATOMIC or SELL_PAIR; the pair's SpMVT
 * operands alpha_t, w, beta_t, z). The buffers of SCATTER and PAIR are allocated on first use:
 * operators serving only op N never pay for them. */
static zs_status sell_run(sell_op *A, int mode, double alpha, const void *x, double beta, void *y,
                          double alpha_t, const void *w, double beta_t, void *z) {
  const uint64_t n = (uint64_t)(A->tbuf_len ? A->tbuf_len : 1);
  if ((mode == SELL_SCATTER || mode == SELL_PAIR) && !A->tbuf &&
      !(A->tbuf = zsi_alloc_array(n, zs_type_size(A->type))))
    return zsi_error(ZS_ERR_OUT_OF_MEMORY,
                     "backend 'cpu': SELL SpMVT buffers of %lld elements (try transpose=atomic)",
                     (long long)A->tbuf_len);
  (A->type == ZS_F32 ? sell_run_f32 : sell_run_f64)(A, mode, alpha, x, beta, y, alpha_t, w, beta_t,
                                                    z);
  return ZS_OK;
}

static zs_status cpu_sell_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                                void *y) {
  sell_op *A = state;
  const int mode = which == ZS_OP_N ? SELL_SPMV : A->transpose_atomic ? SELL_ATOMIC : SELL_SCATTER;
  return sell_run(A, mode, alpha, x, beta, y, 0, NULL, 0, NULL);
}

/* BiCG's pair in one sweep with the deterministic SpMVT (y and z have the bits of the two
 * products); with transpose=atomic the library makes the two products. */
static zs_status cpu_sell_pair(void *state, double alpha, const void *x, double beta, void *y,
                               double alpha_t, const void *w, double beta_t, void *z) {
  sell_op *A = state;
  if (A->transpose_atomic) return ZS_ERR_UNSUPPORTED;
  return sell_run(A, SELL_PAIR, alpha, x, beta, y, alpha_t, w, beta_t, z);
}

const zsi_format_kernels zsi_cpu_sell = {cpu_sell_create, cpu_sell_destroy, cpu_sell_apply,
                                         cpu_sell_pair};
